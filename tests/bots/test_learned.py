"""The ``learned`` bot (issue 51): its weights file, its features, its decisions, its
registration."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from arena.engine import ENGINE, PlayerView, new_game
from arena.play.registry import BotSpec

DATA = Path(__file__).resolve().parents[2] / "arena" / "data"

native = pytest.mark.skipif(ENGINE != "native", reason="the learned bot is native-only")


def test_the_weights_file_has_its_recorded_hash() -> None:
    text = (DATA / "value.json").read_text()
    recorded = (DATA / "value.sha256").read_text().split()[0]
    assert hashlib.sha256(text.encode()).hexdigest() == recorded


@native
def test_the_weights_name_the_cores_features_in_order() -> None:
    from arena.engine.native import _module

    doc = json.loads((DATA / "value.json").read_text())
    assert doc["features"] == list(_module().feature_names())


@native
def test_features_are_finite_and_hide_the_other_hand() -> None:
    from arena.engine.native import _module

    s = new_game(2, 5)
    x = _module().value_features(s, 0)
    assert len(x) == len(_module().feature_names())
    assert all(v == v and abs(v) < 1e6 for v in x)


@native
def test_plays_a_whole_game_with_legal_actions() -> None:
    bots = [BotSpec.parse("learned").create(random.Random(p)) for p in range(2)]
    s = new_game(2, 11)
    for p, bot in enumerate(bots):
        bot.start(p, 2, s.options)
    while not s.ended:
        legal = list(s.legal_actions())
        action = bots[s.current].choose(PlayerView.of(s, s.current), legal)
        assert action in legal
        s.apply(action)
    assert s.result().winners


def test_is_registered_with_its_parameters() -> None:
    spec = BotSpec.parse("learned:samples=2")
    assert spec.full_params() == {"samples": 2}


#: (bot spec, players, seed, decisions) -> digest, as ``tests/bots/test_decision_digests.py``
#: computes them; here because ``learned`` is native-only (that file checks its cases on the
#: reference engine too).  The shipped weights (``value.sha256``) decide these: new weights
#: re-make them in their own commit (``python -m tests.bots.test_learned``).
DIGESTS: dict[tuple[str, int, int, int | None], str] = {
    ("learned", 2, 1, None): "8502ffd813fa1061",
    ("learned", 4, 3, None): "dec4da7a85a502a5",
}


@native
@pytest.mark.parametrize("case", list(DIGESTS), ids=lambda c: f"{c[0]}-{c[1]}p-seed{c[2]}")
def test_decisions_are_unchanged(case: tuple[str, int, int, int | None]) -> None:
    from tests.bots.test_decision_digests import game_digest

    assert game_digest(*case) == DIGESTS[case]


if __name__ == "__main__":  # pragma: no cover - prints the table to paste above
    from tests.bots.test_decision_digests import game_digest

    for key in DIGESTS:
        print(f"    {key!r}: {game_digest(*key)!r},")
