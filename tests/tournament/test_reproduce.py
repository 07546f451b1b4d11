"""A tournament's game is ``arena play`` with its seed and its seats' specs (issue: one way to
make a bot).

Both commands make their bots with ``arena.play.registry.make_bot``, seeded from the game seed, the
seat and the participant's name; so a game picked from ``games.jsonl`` and played again with
``arena play --seed SEED --bot SEAT0 --bot SEAT1 ...`` gives the same record, moves, chance,
scores and all (times aside, and the schedule's coordinates, which a single game has not).
An isolated bot (a plugin, in a process of its own in the tournament, in-process in
``arena play``) is seeded alike.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from tests.bots.test_decision_digests import CASES

ROOT = Path(__file__).resolve().parents[2]
#: A built-in bot that draws from its generator at every tie, one that draws at every
#: decision, and a plugin that draws at every decision and runs isolated in the tournament.
SPECS = ("greedy", "random:complete=true", "tests.bots.plugin_bot.Lucky")
#: What only a tournament's record has (the game's place in the schedule), or what differs
#: between any two runs (thinking times).
NOT_COMPARED = {"seconds", "mac", "prev", "sig", "game", "pairing", "deal", "rotation"}


def play_record(tmp_path: Path, seed: int, specs: list[str], rules: list[str]) -> dict:
    path = tmp_path / f"play-{seed}-{'-'.join(s[:6] for s in specs)}.json"
    args = ["play", "--seed", str(seed), "--record", str(path), "-q"]
    for spec in specs:
        args += ["--bot", spec]
    for rule in rules:
        args += ["--rule", rule]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return json.loads(path.read_text())


def test_arena_play_reproduces_every_game_of_a_tournament(tmp_path: Path) -> None:
    rules = ["max_rounds=12"]
    out = tmp_path / "run"
    command = [sys.executable, "-m", "arena", "tournament", "--players", "3", "--games", "3",
               "--workers", "2", "--seed", "11", "--out", str(out), "--quiet"]
    for spec in SPECS:
        command += ["--bot", spec]
    for rule in rules:
        command += ["--rule", rule]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "in jails of their own (memory limit 2048 MB" in (out / "arena.log").read_text()
    assert "tests.bots.plugin_bot.Lucky" in (out / "arena.log").read_text()
    manifest = json.loads((out / "manifest.json").read_text())
    spec_of = {p["name"]: p["spec"] for p in manifest["participants"]}
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 3  # one deal, three seat rotations
    assert len({tuple(r["seats"]) for r in records}) == 3
    for record in records:
        again = play_record(tmp_path, record["seed"], [spec_of[n] for n in record["seats"]],
                            rules)
        assert record["error"] is None
        kept = {k: v for k, v in record.items() if k not in NOT_COMPARED}
        assert {k: v for k, v in again.items() if k not in NOT_COMPARED} == kept, record["game"]
    # Rotations of one deal are not the same game again: the seats' luck moves with the bots.
    assert len({tuple(r["moves"]) for r in records}) == 3


def test_the_decision_digests_are_games_of_arena_play(tmp_path: Path) -> None:
    """The digests hold ``arena play``'s games: the same events and result, hashed alike."""
    for spec, players, seed in (("greedy", 2, 1), ("random:complete=true", 4, 2)):
        record = play_record(tmp_path, seed, [spec] * players, [])
        lines = [*record["moves"], f"scores {record['scores']} winners {record['winners']}"]
        digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
        assert digest == CASES[(spec, players, seed, None)]
