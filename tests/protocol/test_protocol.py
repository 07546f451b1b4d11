"""The engine protocol: the view as a withheld position, the handshake's refusals, faults of
an engine's own games, ``arena engine`` against the built-in bot it serves, engine-check."""

from __future__ import annotations

import io
import json
import random
import shutil
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.engine import PlayerView, new_game
from arena.engine.components import DEFAULT_CARD_SET
from arena.jail.bwrap import jail_problem
from arena.protocol import PROTOCOL, VERSION
from arena.protocol.view import rebuild, withhold, withhold_by_sample

from .fakes import fake_engine

needs_jail = pytest.mark.skipif(jail_problem() is not None,
                                reason=f"no jail here: {jail_problem()}")
FAST = ("--rule", "max_rounds=8")


def arena_command() -> str:
    """The ``arena`` program of this environment (the tests may run without it on PATH)."""
    beside = Path(sys.executable).parent / "arena"
    return str(beside) if beside.exists() else (shutil.which("arena") or "arena")


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def records(folder: Path) -> dict[str, dict[str, Any]]:
    lines = (folder / "games.jsonl").read_text().splitlines()
    return {r["game"]: r for r in map(json.loads, lines)}


# ----------------------------------------------------------------- the view


def test_a_withheld_view_hides_what_the_seat_may_not_see_and_rebuilds_the_same_view() -> None:
    """At every decision of a few games the view rebuilt from the text is the seat's view
    (what makes ``arena engine`` decide as the bot does in-process), and the text holds no
    other seat's objective, no unknown deck place and no seed."""
    for seed in range(4):
        state, rng = new_game(2 + seed % 3, seed), random.Random(seed)
        while not state.ended:
            seat = state.current
            view = PlayerView.of(state, seat)
            text = withhold(view)
            assert text == withhold_by_sample(view)  # the fast writer keeps to its spec
            assert not {"seed", "rng", "dice"} & set(text)
            for other, hand in enumerate(text["hands"]):
                assert (other == seat) == all(c is not None for c in hand["objectives"])
            known = text.get("known", {})
            for name, entries in text["decks"].items():
                masks = known.get(name)
                for i, entry in enumerate(entries):
                    assert (entry is not None) == (masks is not None and seat in masks[i])
            assert rebuild(json.loads(json.dumps(text))).to_json() == view.to_json()
            state.apply(rng.choice(state.legal_actions()))


# ----------------------------------------------------------------- arena engine


def test_arena_engine_answers_the_handshake_and_decisions_without_a_jail() -> None:
    from arena.play.registry import BotSpec
    from arena.protocol.serve import serve

    state = new_game(2, 3)
    view = PlayerView.of(state, 0)
    from arena.engine import action_text

    legal = [action_text(a, DEFAULT_CARD_SET) for a in state.legal_actions()]
    lines = [{"type": "hello", "protocol": PROTOCOL, "version": VERSION},
             {"type": "options", "values": {"complete": True}},
             {"type": "brand-new-message"},
             {"type": "newgame", "seat": 0, "players": 2, "rules": {}, "cards": {},
              "seed": 5, "clock": {}},
             {"type": "decide", "view": withhold(view), "legal": legal, "clock": {}},
             {"type": "quit"}]
    out = io.BytesIO()
    serve(BotSpec.parse("random"), io.BytesIO(b"".join(orjson.dumps(m) + b"\n"
                                                      for m in lines)), out)
    hello, action = map(json.loads, out.getvalue().splitlines())
    assert hello["type"] == "hello" and hello["version"] == VERSION
    assert {"name": "complete", "type": "check", "default": False} in hello["options"]
    assert action["type"] == "action" and action["action"] in legal


#: A card set with a card added to each deck and a card's points changed.
ADDED_CARDS = {
    "name": "added", "points": {"plot-01": 5},
    "add": {"plot": [{"id": "plot-16", "shape": "line", "points": 5, "cells": [
                {"at": "0,0", "colour": "green"}, {"at": "1,0", "colour": "green"},
                {"at": "2,0", "colour": "green"}, {"at": "3,0", "colour": "green"}]}],
            "gardener": [{"id": "gardener-16", "colour": "pink", "shoots": 1, "height": 3,
                          "improvement": "none", "points": 3}],
            "panda": [{"id": "panda-16", "eat": {"green": 3}, "points": 4}]},
}


@needs_jail
@pytest.mark.parametrize("cards", [False, True], ids=["printed cards", "added cards"])
def test_a_tournament_through_arena_engine_plays_the_games_of_the_builtin_bot(
        tmp_path: Path, cards: bool) -> None:
    """``engine:"arena engine objective"`` against ``objective`` plays, decision for
    decision, the games ``objective`` against ``objective`` plays with the same seeds (with
    the printed cards, and with a set that adds cards, which the engine is told of)."""
    engine = f'engine:"{arena_command()} engine objective":name=E'
    extra: list[str] = []
    if cards:
        (tmp_path / "set.json").write_text(json.dumps(ADDED_CARDS))
        extra = ["--cards", str(tmp_path / "set.json")]
    for folder, first in (("engine", engine), ("builtin", "objective:name=E")):
        result = CliRunner().invoke(main, [
            "tournament", "--bot", first, "--bot", "objective", "--players", "2",
            "--games", "2", "--seed", "11", "--workers", "2", "--out",
            str(tmp_path / folder), *extra])
        assert result.exit_code == 0, result.output
    through, builtin = records(tmp_path / "engine"), records(tmp_path / "builtin")
    assert through.keys() == builtin.keys() and len(through) == 2
    for game, record in through.items():
        assert record["error"] is None
        assert record["moves"] == builtin[game]["moves"]
        assert record["scores"] == builtin[game]["scores"]
    manifest = json.loads((tmp_path / "engine" / "manifest.json").read_text())
    assert manifest["participants"][0]["params"] == {
        "hand_size": 5, "beam": 6, "plot_samples": 3, "focus": 0.5, "protect": True,
        "decay": 0.5, "deny": 1.0, "race": 0.0, "prefer": "none", "weight": 2.0}


def test_arena_engine_and_engine_check_refuse_bad_input_in_one_sentence() -> None:
    for args, said in ((["engine", "nosuch"], "unknown bot 'nosuch'"),
                       (["engine", "engine:./x"], "plays a built-in bot"),
                       (["engine-check", "/no/such/engine"], "no engine program")):
        result = cli(*args)
        assert result.exit_code == 2 and said in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1
    result = CliRunner().invoke(main, ["engine", "random"],
                                input='{"type": "hello"}\n{"type": "decide"}\n')
    assert result.exit_code == 2 and "line 2 is not a message" in result.output
    assert "Traceback" not in result.output


# ----------------------------------------------------------------- bad engines


@needs_jail
@pytest.mark.parametrize(("behaviour", "said"), [
    ("silent", "did not answer the handshake"),
    ("version2", "answers protocol version 2, the arena speaks 1"),
    ("twice", "declares option 'complete' twice"),
    ("huge_hello", "wrote a line over 65536 bytes"),
    ("no_author", "gives no author"),
])
def test_a_bad_handshake_is_one_sentence_before_any_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, behaviour: str, said: str) -> None:
    import arena.protocol.handshake

    monkeypatch.setattr(arena.protocol.handshake, "HELLO_TIME", 1.5)
    path = fake_engine(tmp_path, behaviour)
    result = cli("play", "--bot", f"engine:{path}", "--bot", "random", "--seed", "1")
    assert result.exit_code == 2, result.output
    assert said in result.output and f"{behaviour}_engine.py" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert "seed 1" not in result.output  # no game started


@needs_jail
def test_an_engine_runs_as_another_user_than_root_with_no_capability(tmp_path: Path) -> None:
    path = fake_engine(tmp_path, "dropped")
    result = cli("play", "--bot", f"engine:{path}", "--bot", "random", "--seed", "2", *FAST)
    assert result.exit_code == 0, result.output


@needs_jail
def test_an_engine_sees_its_folder_and_the_bot_paths_but_nothing_else(tmp_path: Path) -> None:
    """A file outside its folder is missing in its jail, unless ``--bot-path`` shows it."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "book.txt").write_text("opening\n")
    for path in (tmp_path, data, data / "book.txt"):
        path.chmod(0o755)
    engine = tmp_path / "engine"
    engine.mkdir()
    path = fake_engine(engine, "fine")
    reads = f'if kind == "hello":\n        open({str(data / "book.txt")!r})\n'
    path.write_text(path.read_text().replace('if kind == "hello":\n', reads))
    blind = cli("play", "--bot", f"engine:{path}", "--bot", "random", *FAST)
    assert blind.exit_code == 2 and "No such file or directory" in blind.output
    shown = cli("play", "--bot", f"engine:{path}", "--bot", "random", "--bot-path", str(data),
                *FAST, "-q")
    assert shown.exit_code == 0, shown.output


@needs_jail
def test_an_engine_spec_refuses_undeclared_options_and_bad_clocks(tmp_path: Path) -> None:
    path = fake_engine(tmp_path, "fine")
    for spec, said in ((f"engine:{path}:depth=3", "has no option 'depth'"),
                       (f"engine:{path}:complete=7", "parameter complete must be"),
                       (f"engine:{path}:tc=fast", "tc must be BASE or BASE+INC"),
                       (f'engine:"{path}', "no closing quote"),
                       ("engine:/no/such/engine", "no engine program")):
        result = cli("play", "--bot", spec, "--bot", "random")
        assert result.exit_code == 2 and said in result.output, (spec, result.output)


@needs_jail
@pytest.mark.parametrize(("behaviour", "kind", "said"), [
    ("crash", "crash", "boom: out of ideas"),
    ("illegal", "illegal", "'fly away', which is not an action"),
    ("hang", "timeout", "did not answer within 1 s while choosing a move (st=1)"),
    ("garbage", "crash", "wrote 'hello world' while choosing a move, which is not a message"),
    ("huge_move", "crash", "wrote a line over 65536 bytes"),
])
def test_a_faulty_engine_loses_its_own_games_only(tmp_path: Path, behaviour: str, kind: str,
                                                  said: str) -> None:
    """Each game it plays is its fault, recorded with its stderr in arena.log; the run goes
    on, and its opponent's other games are not touched."""
    path = fake_engine(tmp_path, behaviour)
    out = tmp_path / "run"
    result = CliRunner().invoke(main, [
        "tournament", "--bot", f"engine:{path}:st=1", "--bot", "random", "--bot",
        "random:name=R2", "--players", "2", "--games", "3", "--seed", "2", "--workers", "1",
        "--out", str(out), *FAST])
    assert result.exit_code == 0, result.output
    games = records(out).values()
    faulted = [r for r in games if r["error"] is not None]
    assert faulted and all(r["error"]["kind"] == kind and said in r["error"]["message"]
                           for r in faulted)
    assert all(r["seats"][r["error"]["seat"]].startswith("engine:") for r in faulted)
    assert all(r["error"] is None for r in games if not any(
        s.startswith("engine:") for s in r["seats"]))
    assert said in (out / "arena.log").read_text()


@needs_jail
def test_an_engine_that_spends_its_clock_loses_on_time(tmp_path: Path) -> None:
    """``tc=1+0.05``: a quarter of a second a move spends the clock in a few moves."""
    path = fake_engine(tmp_path, "slow")
    out = tmp_path / "record.json"
    result = cli("play", "--bot", f"engine:{path}:tc=1+0.05", "--bot", "random", "--seed", "3",
                 "--record", str(out), "-q")
    assert result.exit_code == 1, result.output
    error = json.loads(out.read_text())["error"]
    assert error["seat"] == 0 and error["kind"] == "timeout"
    assert "while choosing a move (its clock, tc=1+0.05)" in error["message"]


@needs_jail
def test_an_unknown_message_from_an_engine_is_answered_with_an_error_not_a_fault(
        tmp_path: Path) -> None:
    path = fake_engine(tmp_path, "chatty")
    result = cli("play", "--bot", f"engine:{path}:st=5", "--bot", "random", "--seed", "4",
                 *FAST, "-q")
    assert result.exit_code == 0, result.output


# ----------------------------------------------------------------- engine-check


@needs_jail
def test_engine_check_passes_a_good_engine_and_lists_a_bad_ones_violations(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = cli("engine-check", str(fake_engine(tmp_path, "fine")))
    assert good.exit_code == 0 and "no violation" in good.output, good.output
    bad = cli("engine-check", str(fake_engine(tmp_path, "illegal")))
    assert bad.exit_code == 2
    assert "replied 'fly away' at position 1" in bad.output
    import arena.protocol.check

    monkeypatch.setattr(arena.protocol.check, "SLOW_START", 0.0)
    slow = cli("engine-check", str(fake_engine(tmp_path, "fine")))
    assert slow.exit_code == 2 and "a slow start" in slow.output


@needs_jail
@pytest.mark.parametrize(("fresh", "started"), [(False, 1), (True, 3)])
def test_an_engine_process_plays_game_after_game_unless_fresh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: bool, started: int) -> None:
    """One process (one jail) plays the participant's games in turn, each a ``newgame``;
    ``fresh=true`` starts one per game."""
    from arena.play.match import play_game
    from arena.play.registry import BotSpec, make_bot
    from arena.protocol import bot as seat

    path = fake_engine(tmp_path, "fine")
    spec = BotSpec.parse(f"engine:{path}:fresh={str(fresh).lower()}")
    made: list[int] = []
    original = seat.EngineProcess.__init__

    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        made.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(seat.EngineProcess, "__init__", counted)
    for game in range(3):
        bots = [make_bot(spec, game, 0), make_bot(BotSpec.parse("random"), game, 1)]
        outcome = play_game(bots, game, names=[spec.name, "random"])
        assert outcome.error is None
        del bots
    assert len(made) == started
    seat.close_all()


@needs_jail
def test_no_engine_process_outlives_the_game_or_run_that_started_it(tmp_path: Path) -> None:
    """An engine is kept between the games of one run, not beyond it: after ``arena play``
    and after a tournament's worker closes, in a process that lives on (a notebook, a Dask
    worker, this test), no engine process is left."""
    from arena.protocol import bot as seat

    path = fake_engine(tmp_path, "fine")
    result = CliRunner().invoke(main, ["play", "--bot", f"engine:{path}", "--bot", "random",
                                       "--seed", "1", "-q", "--rule", "max_rounds=3"])
    assert result.exit_code == 0, result.output
    assert not any(seat._POOL.values())

    from arena.play.registry import BotSpec
    from arena.tournament.schedule import TournamentConfig
    from arena.tournament.worker import GamePlayer

    config = TournamentConfig(participants=(BotSpec.parse(f"engine:{path}"),
                                            BotSpec.parse("random")), games=2, seed=1)
    player = GamePlayer(config)
    player.play_chunk(range(2), None, lambda finished: None)
    assert any(seat._POOL.values())  # kept between the run's games
    player.close()
    assert not any(seat._POOL.values())
