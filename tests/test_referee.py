"""The native referee against the Python game loop: the same records, byte for byte.

``arena.play.match.play_game`` plays on the native referee under the native engine; the Python
loop (``arena.play.match.python_loop``) is the reference's.  Seeded games with random rule
options, card sets and bot parameters are played both ways, and their records compared
as the runner writes them (orjson lines) with only the measured ``seconds`` left out;
Python bots (the README's ``Eager``, observers, the deliberately broken bots) sit among
the native ones.  The seeds and the bots' parameter checks are held against Python's, and
a planted panic must end as a failed game, not as a crash.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

import orjson
import pytest

from arena.engine import ENGINE, ArenaError, Event, PlacementError, PlayerView, RuleOptions
from arena.engine.actions import COMPLETE, kind_of
from arena.engine.components import CARDS, CardSet
from arena.play import seeds
from arena.play.bot import Bot, BotConfigError
from arena.play.intervention import Placement
from arena.play.match import play_game, python_loop
from arena.play.registry import BotSpec, load_class, make_bot
from bots.base import Param
from bots.random_bot import RandomBot
from tests.bots.test_native_bots import LONG, random_params, spec_text
from tests.engine.test_native import random_cards, random_options
from tests.tournament import broken_bots

pytestmark = pytest.mark.skipif(ENGINE != "native", reason="the native referee")

SECONDS = re.compile(r'"seconds":\[[^\]]*\]')


def line(outcome: Any) -> str:
    """The record as the runner writes it, its ``seconds`` left out."""
    text = outcome.line if outcome.line is not None else orjson.dumps(outcome.record).decode()
    return SECONDS.sub('"seconds":[]', text)


class Eager(Bot):
    """The README's example bot: completes once it could have for `patience` decisions."""

    PARAMS = (Param("patience", int, 0, "decisions to wait before completing", minimum=0),)
    patience: int

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        super().start(seat, players, options)
        self.waited = 0

    def choose(self, view: PlayerView, legal: Sequence[int]) -> int:
        completing = [a for a in legal if kind_of(a) == COMPLETE]
        if completing and self.waited >= self.patience:
            self.waited = 0
            return completing[0]
        self.waited += bool(completing)
        others = [a for a in legal if kind_of(a) != COMPLETE]
        return self.rng.choice(others or legal)


class Watcher(RandomBot):
    """Plays as ``random`` in Python (a subclass does not inherit ``NATIVE``), and keeps
    what it observes in its choices (a seen event count picks among the first actions)."""

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        super().start(seat, players, options)
        self.seen: list[str] = []

    def observe(self, event: Event) -> None:
        self.seen.append(str(event))

    def choose(self, view: PlayerView, legal: Sequence[int]) -> int:
        if len(legal) > 1 and len(self.seen) % 7 == 0:
            return legal[len(self.seen) % len(legal)]
        return super().choose(view, legal)


def lineup(rng: random.Random, seed: int, players: int, python: bool,
           kinds: Sequence[str] = ("random",)) -> list[Bot]:
    """Built-in bots of these kinds with random parameters (every parameter of ``greedy``
    and ``objective``, ``prefer=`` included), and a Python bot among them when asked."""
    bots: list[Bot] = []
    for seat in range(players):
        kind = rng.choice(kinds)
        if kind == "random":
            text = f"random:complete={rng.choice(['true', 'false'])}"
        else:
            text = spec_text(kind, random_params(rng, kind))
        bots.append(make_bot(BotSpec.parse(text), seed, seat))
    if python:
        seat = rng.randrange(players)
        kind = rng.choice([Eager, Watcher])
        bots[seat] = kind(random.Random(seed * 7 + seat), **(
            {"patience": rng.randrange(3)} if kind is Eager else {"complete": True}))
    return bots


def both(seed: int, python: bool, kinds: Sequence[str] = ("random",)) -> tuple[Any, Any]:
    """One game on the native referee and in the Python loop (fresh bots each)."""
    rng = random.Random(seed)
    players = rng.choice((2, 3, 4))
    options = random_options(rng)
    cards = random_cards(rng, players)
    meta = {"game": f"{seed:03d}-0000-0", "pairing": seed, "deal": 0, "rotation": 0}
    state = rng.getstate()
    native = play_game(lineup(rng, seed, players, python, kinds), seed, options, meta=meta,
                       cards=cards)
    rng.setstate(state)
    bots = lineup(rng, seed, players, python, kinds)
    names = [type(b).__name__ for b in bots]
    loop = python_loop(bots, seed, options, names, None, None, (), meta, None, cards)
    return native, loop


@pytest.mark.parametrize("python", [False, True], ids=["native bots", "a Python bot"])
def test_records_are_the_python_loops_byte_for_byte(python: bool) -> None:
    for seed in range(150):
        native, loop = both(seed, python)
        assert line(native) == line(loop), seed
        assert native.error == loop.error
        assert native.state.history_text() == loop.state.history_text()


@pytest.mark.parametrize("python", [False, True], ids=["native bots", "a Python bot"])
def test_greedy_and_objective_records_are_the_python_loops_byte_for_byte(python: bool) -> None:
    """The Rust greedy and objective played by the native referee (no Python in the loop
    when every seat is native) against the Python loop, where each decision is a call
    from Python; random parameters, rule options and card sets (the reference engine's
    records of such games: tests/bots/test_native_bots.py)."""
    kinds = ("random", "greedy", "objective")
    for seed in range(300 if LONG else 40):
        native, loop = both(seed, python, kinds)
        assert native.line is not None  # the core's record, not a Python fallback
        assert line(native) == line(loop), seed
        assert native.error == loop.error
        assert native.state.history_text() == loop.state.history_text()


def test_generators_end_where_the_python_bots_leave_them() -> None:
    """A native bot's generator is written back: a bot reused for a second game draws on."""
    specs = [BotSpec.parse("greedy:decay=0.5"), BotSpec.parse("objective:prefer=panda")]
    twins = [[make_bot(specs[s], 5, s) for s in range(2)] for _ in range(2)]
    for seed in (5, 6):
        a = play_game(twins[0], seed)
        b = python_loop(twins[1], seed, RuleOptions(), ["a", "b"], None, None, (), {}, None,
                        None)
        assert a.state.history_text() == b.state.history_text()
    assert [b.rng.getstate() for b in twins[0]] == [b.rng.getstate() for b in twins[1]]
    assert twins[0][1].seat == 1 and twins[0][1].players == 2


def test_hooks_see_what_the_python_loop_shows() -> None:
    """on_event gets every event with the state past it, on_decision every seat."""
    shown: list[list[Any]] = [[], []]
    for k, play in enumerate((play_game, None)):
        bots = [make_bot(BotSpec.parse("random"), 3, s) for s in range(2)]

        def event(e: Event, state: Any, k: int = k) -> None:
            shown[k].append((str(e), state.round, len(state.history)))

        def decision(seat: int, k: int = k) -> None:
            shown[k].append(seat)

        if play is not None:
            play(bots, 3, on_event=event, on_decision=decision)
        else:
            python_loop(bots, 3, RuleOptions(), ["a", "b"], None, event, (), {}, decision, None)
    assert shown[0] == shown[1] and len(shown[0]) > 100


@pytest.mark.parametrize("broken", ["Crasher", "Illegal", "NotInList", "Teller"])
def test_faults_of_python_bots_are_recorded_as_the_loop_records_them(broken: str) -> None:
    cls = getattr(broken_bots, broken)
    for seed in range(3):
        bots = [cls(random.Random(seed), at=5), make_bot(BotSpec.parse("random"), seed, 1)]
        native = play_game(bots, seed)
        bots = [cls(random.Random(seed), at=5), make_bot(BotSpec.parse("random"), seed, 1)]
        loop = python_loop(bots, seed, RuleOptions(), [type(b).__name__ for b in bots], None,
                           None, (), {}, None, None)
        assert native.error is not None and native.error["seat"] == 0
        assert line(native) == line(loop)


def test_a_slow_python_bot_is_stopped_by_the_alarm() -> None:
    bots = [broken_bots.Sleeper(random.Random(1), at=2), make_bot(BotSpec.parse("random"), 1, 1)]
    outcome = play_game(bots, 1, move_time=0.2)
    assert outcome.error is not None
    assert outcome.error["kind"] == "timeout" and outcome.error["seat"] == 0
    assert outcome.seconds[0] < 5


def test_a_native_decision_over_the_move_time_is_a_timeout() -> None:
    """A native bot cannot be stopped: the limit is checked when it returns."""
    bots = [make_bot(BotSpec.parse("random"), 1, s) for s in range(2)]
    outcome = play_game(bots, 1, move_time=1e-9)
    assert outcome.error is not None and outcome.error["kind"] == "timeout"
    assert re.fullmatch(r"took \d+\.\d{3} s, over the 1e-09 s move time",
                        outcome.error["message"])


def test_seeds_are_pythons() -> None:
    from arena._native import _probe

    def derive_seed(parts: list[str]) -> int:
        return _probe("derive_seed", parts)  # type: ignore[no-any-return]

    def bot_seed(seed: int, seat: int, participant: str) -> int:
        return _probe("bot_seed", [seed, seat, participant])  # type: ignore[no-any-return]

    rng = random.Random(0)
    for _ in range(300):
        parts = [rng.choice(["deal", "bot", "ü\x1f", ""]), rng.randrange(-2**70, 2**70),
                 rng.randrange(4), "".join(rng.choice("ab:=,é") for _ in range(rng.randrange(6)))]
        assert derive_seed([str(p) for p in parts]) == seeds.derive_seed(*parts)
        assert bot_seed(parts[1], parts[2], parts[3]) == seeds.bot_seed(*parts[1:])


def native_classes() -> list[type[Bot]]:
    from arena._native import bot_names

    from arena.play.registry import builtin_paths

    classes = [load_class(p) for p in sorted(builtin_paths())]
    return [c for c in classes if c.__dict__.get("NATIVE") in bot_names()]


def test_native_bots_declare_the_python_bots_parameters() -> None:
    from arena._native import _probe

    classes = native_classes()
    assert RandomBot in classes
    for cls in classes:
        rows = _probe("bot_params", cls.NATIVE)
        assert [r["name"] for r in rows] == [p.name for p in cls.PARAMS]
        for r, p in zip(rows, cls.PARAMS):
            assert (r["type"], r["default"], r["minimum"], r["maximum"], tuple(r["choices"])) == (
                p.type.__name__, p.default, p.minimum, p.maximum, p.choices), (cls, r["name"])


def test_native_bots_refuse_what_python_refuses() -> None:
    from arena._native import check_bot_params

    values: list[Any] = [True, False, 0, 1, -3, 2.5, 7.0, float("nan"), "", "x", "true", "0"]
    for cls in native_classes():
        for p in cls.PARAMS:
            for v in values:
                try:
                    cls.check_params({p.name: v})
                    python = None
                except BotConfigError as exc:
                    python = str(exc)
                assert check_bot_params(cls.NATIVE, {p.name: v}) == python, (p.name, v)
        assert check_bot_params(cls.NATIVE, {"nope": 1}) is not None


class NativePanic(RandomBot):
    """The test-only native bot that panics at decision ``after``."""

    NATIVE = "panic"
    PARAMS = (Param("after", int, 0, "decisions before the panic", minimum=0),)
    complete = False  # in Python it plays as random


@pytest.fixture
def test_bots() -> Any:
    from arena import _native

    _native._test_bots(True)
    yield
    _native._test_bots(False)


def test_a_planted_panic_is_a_failed_game_not_a_crash(test_bots: Any) -> None:
    from arena import _native
    from arena.play.seat import make

    bots = [make(NativePanic, random.Random(1), {"after": 12}),  # a native seat, as made
            make_bot(BotSpec.parse("random"), 4, 1)]
    outcome = play_game(bots, 4, meta={"game": "007-0001-1"})
    error = outcome.error
    assert error is not None and error["kind"] == "crash" and error["seat"] == 0
    assert "game 007-0001-1, seed 4" in error["message"] and "seat 0" in error["message"]
    record = outcome.record
    assert record["error"] == error and 0 not in record["winners"]
    assert sum(m[0] == "0" for m in record["moves"]) == 12  # its twelve decisions kept
    with pytest.raises(ArenaError, match="seat 0"):
        _native.play_game(2, 4, RuleOptions(), CardSet(), [], None,
                          [("panic", {"after": 3}, 1), ("random", {"complete": False}, 2)],
                          None, None, False, '{"game":"x"', ["a", "b"], ("{}", "{}"), "x")


def test_the_panic_bot_is_out_of_reach_without_the_hook() -> None:
    from arena._native import bot_names

    assert "panic" not in bot_names()
    bots = [NativePanic(random.Random(1), after=0), make_bot(BotSpec.parse("random"), 4, 1)]
    assert play_game(bots, 4).error is None  # plays as the Python RandomBot it is


def test_cards_removed_and_rules_changed_reach_the_record() -> None:
    cards = CardSet.from_changes({CARDS[0].id: 9}, [CARDS[20].id])
    bots = [make_bot(BotSpec.parse("random:complete=true"), 2, s) for s in range(2)]
    outcome = play_game(bots, 2, RuleOptions(max_rounds=9), cards=cards)
    record = outcome.record
    assert record["options"] == {"max_rounds": 9}
    assert record["card_set"]["changes"] and record["rounds"] <= 9


def _intervention(rng: random.Random, players: int, cards: CardSet) -> tuple[Placement, ...]:
    """One to three placements of cards in play: in seats' hands or at deck depths."""
    playable = [cards.card(c).id for deck in cards.decks for c in deck]
    out = []
    for _ in range(rng.randrange(1, 4)):
        card = rng.choice(playable)
        if rng.random() < 0.6:
            out.append(Placement(card, seat=rng.randrange(players)))
        else:
            out.append(Placement(card, depth=rng.randrange(3)))
    return tuple(out)


@pytest.mark.parametrize("python", [False, True], ids=["native bots", "a Python bot"])
def test_interventions_are_played_as_the_python_loop_plays_them(python: bool) -> None:
    """An experiment's game (cards placed in the deal) on the native referee: the record,
    its ``intervention`` field and the hands the bots were told of, byte for byte the
    Python loop's; a placement that cannot be made is the same PlacementError."""
    for seed in range(80):
        rng = random.Random(seed)
        players = rng.choice((2, 3, 4))
        options = random_options(rng)
        cards = random_cards(rng, players)
        placed = _intervention(rng, players, cards)
        meta = {"game": f"{seed:03d}-0000-0", "pairing": seed, "deal": 0, "rotation": 0}
        state = rng.getstate()
        native = play_game(lineup(rng, seed, players, python), seed, options, meta=meta,
                           cards=cards, intervention=placed)
        rng.setstate(state)
        bots = lineup(rng, seed, players, python)
        names = [type(b).__name__ for b in bots]
        loop = python_loop(bots, seed, options, names, None, None, (), meta, None, cards,
                           placed)
        assert line(native) == line(loop), seed
        assert orjson.loads(line(native))["intervention"] == [p.to_dict() for p in placed]
        assert native.state.history_text() == loop.state.history_text()
    alien = (Placement("plot-16", seat=0),)  # a card only a set with added cards has
    with pytest.raises(PlacementError, match="plot-16 is not a card of this game's set"):
        play_game(lineup(random.Random(1), 1, 2, False), 1, intervention=alien)
    bad = (Placement("plot-01", seat=3),)
    with pytest.raises(PlacementError, match="seat 3 is not a seat of this 2-player game"):
        play_game(lineup(random.Random(1), 1, 2, False), 1, intervention=bad)
    with pytest.raises(PlacementError, match="seat 3 is not a seat of this 2-player game"):
        python_loop(lineup(random.Random(1), 1, 2, False), 1, RuleOptions(), ["a", "b"],
                    None, None, (), {}, None, None, bad)
