"""Untrusted bots attacking the arena (issue 21): each attack costs the attacker only.

Every test plays an attacker (``attack_bots``, by dotted path) against two sound random bots
(round-robin, 2 seats, 2 games per pairing, 8-round games), then checks that the attacker's
games carry an error blamed on the attacker (or, for attacks that only read or edit its own
copies, that it gained nothing), that the sound bots' game is clean, that the tournament
completed, that every record replays, and that ``--resume`` finds nothing left to play.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.replay import replay

from .conftest import FAST, read_records, run_cli

pytestmark = pytest.mark.timeout(180, method="thread")

ATTACK = "tests.tournament.attack_bots."


def attack(tmp_path: Path, bot: str, *extra: str, name: str = "run") -> list[dict[str, Any]]:
    """Play the attacker against two random bots; every record replays; resume is a no-op."""
    out = tmp_path / name
    spec = ATTACK + bot + ("," if ":" in bot else ":") + "name=X"
    args = ["--bot", spec, "--bot", "random:name=A", "--bot", "random:name=B", "--games", "2",
            "--seed", "21", "--workers", "2", "--out", str(out), "--quiet", *FAST, *extra]
    result = run_cli(args)
    assert result.exit_code == 0, result.output
    assert "Standings after 6 of 6 games (complete)" in result.stdout
    records = read_records(out)
    assert len(records) == 6 and len({r["game"] for r in records}) == 6
    for record in records:
        assert replay(record).ok, (record["game"], replay(record).problems)
    again = run_cli(["--resume", str(out), "--quiet"])
    assert again.exit_code == 0, again.output
    assert "Nothing left to play" in again.stdout
    return records


def blamed(records: list[dict[str, Any]], kind: str, message: str) -> None:
    """The attacker's games carry its fault; the others are clean."""
    for record in records:
        if "X" in record["seats"]:
            seat = record["seats"].index("X")
            error = record["error"]
            assert error is not None, record["game"]
            assert error["seat"] == seat and error["kind"] == kind, error
            assert message in error["message"], error
            assert seat not in record["winners"] and record["winners"]
        else:
            clean(record)


def clean(record: dict[str, Any]) -> None:
    assert record["error"] is None, record["error"]
    assert record["winners"] and len(record["moves"]) > 20


@pytest.mark.parametrize(("bot", "message"), [
    ("TileEditor", "'mappingproxy' object does not support item assignment"),
    ("ImprovementEditor", "'mappingproxy' object does not support item assignment"),
])
def test_a_bot_that_edits_its_view_fails_in_its_own_game(
        tmp_path: Path, bot: str, message: str) -> None:
    blamed(attack(tmp_path, bot), "crash", message)


def test_a_bot_that_edits_its_own_copies_changes_nothing(tmp_path: Path) -> None:
    records = attack(tmp_path, "StockEditor")
    for record in records:
        clean(record)


def test_a_view_shares_no_mutable_object_with_its_game() -> None:
    import pickle
    import random

    from arena.engine import new_game

    state = new_game(2, 7)
    rng = random.Random(7)
    for _ in range(40):
        state.apply(rng.choice(state.legal_actions()))
    view = state.view(state.current)
    mutable = (dict, list, set, bytearray)
    for name in type(view).__slots__:
        value = getattr(view, name, None)
        if isinstance(value, mutable) and not name.startswith("_"):
            assert value is not getattr(state, name, None), name
    with pytest.raises(TypeError):
        view.tiles[1] = 0  # type: ignore[index]
    # One proxy per board layout, so bots' caches keyed by identity keep working.
    assert state.view(0).tiles is state.view(1).tiles
    copy = pickle.loads(pickle.dumps(view))
    assert copy == view and copy.tiles is not view.tiles
    with pytest.raises(TypeError):
        copy.improvement[1] = 0  # type: ignore[index]


@pytest.mark.parametrize(("bot", "kind", "message"), [
    ("EqualsAll", "illegal", "returned an unprintable _Liar, which is not a legal action"),
    ("MuteError", "crash", "_Mute: (unprintable)"),
    ("Faceless", "illegal", "returned an unprintable _Faceless, which is not a legal"),
    ("Huge", "illegal", "returned 1000000000000000000000000000000, which is not a legal"),
    ("Huge:digits=5000", "illegal", "returned an integer of 16610 bits, which is not"),
])
def test_a_hostile_value_is_a_fault_of_its_seat(
        tmp_path: Path, bot: str, kind: str, message: str) -> None:
    blamed(attack(tmp_path, bot), kind, message)
