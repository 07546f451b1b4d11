"""Value of information: a search bot's match re-played with its samples drawn from the truth.

Usage::

    python scripts/strength.py mcts objective --games 100 --seed 16 --out runs/s16
    python scripts/clairvoyance.py mcts objective --reveal cards --games 100 --seed 16 \\
        --out runs/s16-cards
    python scripts/paired.py runs/s16 runs/s16-cards

A diagnostic, not a bot, and never part of a tournament: it answers "how much of the gap to a
strength target could better inference about the hidden parts close?" before anyone spends a
week on it.  SPEC_A must be a bot that reasons about what it cannot see only through
``view.determinize`` (``mcts`` does).  Its views are wrapped so that each sample is the true
game with some hidden parts kept as they really are and the rest dealt again at random:

- ``none``: nothing kept (the honest bot: the games are those of ``scripts/strength.py``);
- ``hands``: the opponents' hands kept, the decks re-shuffled;
- ``cards``: the hands and the order of every deck kept (the cards the bot will draw);
- ``all``: those and the future die rolls.

Everything else is ``scripts/strength.py``'s: the same schedule, deals, seat rotations and
bot seeds (from the spec's text), so ``scripts/paired.py`` compares a run of this script with
a strength run of the same ``--seed`` game by game, and ``arena report`` reads its directory.
The bot's own choices, its planner prior and its ``view`` stay honest; only the samples know.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from _args import add_match_options, match_config, script_parser

from arena.engine import ArenaError, Event, GameState, PlayerView, RuleOptions
from arena.engine import rng as splitmix
from arena.play.bot import Bot
from arena.play.match import play_game
from arena.play.registry import make_bot
from arena.runs.records import json_problem
from arena.runs.store import GAMES, StoreError
from arena.stats.intervals import wilson
from arena.tournament.schedule import Schedule, make_schedule
from arena.tournament.sprt import game_score

REVEALS = ("none", "hands", "cards", "all")
#: The participant whose samples see: ``against_copies`` puts SPEC_A first.
SUBJECT = 0


class RevealingView(PlayerView):
    """A seat's view whose ``determinize`` starts from the true game (see the module text).

    A ``PlayerView`` itself, with the real view's fields, so the bot reads the same public
    game and code that tells a view from a state by its type treats it as the view it is.
    """

    __slots__ = ("_reveal", "_truth")

    def __init__(self, view: PlayerView, truth: GameState, reveal: str) -> None:
        # The reference's view is made of slots to copy; the native one is made a copy of
        # ``view`` by its constructor (and has no slots to set).
        for name in getattr(PlayerView, "__slots__", ()):
            with contextlib.suppress(AttributeError):  # a slot left unset stays unset
                setattr(self, name, getattr(view, name))
        self._truth = truth
        self._reveal = reveal

    def determinize(self, rng: random.Random, legal: list[int] | None = None) -> GameState:
        """A copy of the true game with the parts not revealed dealt again from ``rng``.

        ``legal`` is accepted for the view's signature; a copy of the truth has the true list.
        """
        if self._reveal == "none":
            return super().determinize(rng, legal)
        s = self._truth.copy()
        if self._reveal != "all":  # the dice stay unknown: a fresh generator
            s = s.with_hidden(rng=splitmix.seed_state(rng.getrandbits(64)))
        if self._reveal == "hands":
            s = s.with_hidden(
                plot_deck=_reshuffled(s.plot_deck, self.known_plots, rng),
                objective_decks=[
                    _reshuffled(deck, known, rng)
                    for deck, known in zip(s.objective_decks, self.known_objectives,
                                           strict=True)
                ],
            )
        return s


def _reshuffled(deck: tuple[Any, ...], known: Sequence[tuple[int, Any]],
                rng: random.Random) -> tuple[Any, ...]:
    """``deck`` shuffled, except the positions the seat knows (cards it put under a deck)."""
    fixed = {i for i, _ in known}
    free = [c for i, c in enumerate(deck) if i not in fixed]
    rng.shuffle(free)
    return tuple(c if i in fixed else free.pop() for i, c in enumerate(deck))


class Clairvoyant(Bot):
    """Wraps a bot: each decision gets a :class:`RevealingView` of the game being played."""

    def __init__(self, inner: Bot, reveal: str) -> None:
        self.inner = inner
        self.reveal = reveal
        self.truth: GameState | None = None

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        self.inner.start(seat, players, options)

    def choose(self, view: PlayerView, legal: Sequence[int]) -> int:
        assert self.truth is not None
        return self.inner.choose(RevealingView(view, self.truth, self.reveal), legal)

    def observe(self, event: Event) -> None:
        self.inner.observe(event)

    def finish(self, result: Any) -> None:
        self.inner.finish(result)


_JOB: tuple[Schedule, str] | None = None


def _init(schedule: Schedule, reveal: str) -> None:
    global _JOB
    for spec in schedule.config.participants:
        spec.bot_class()  # imported once per process, before the first game
    _JOB = (schedule, reveal)


def play(index: int) -> dict[str, Any]:
    """Game ``index`` of the schedule, the subject's bot wrapped; its record."""
    assert _JOB is not None
    schedule, reveal = _JOB
    game = schedule.games[index]
    config = schedule.config
    bots: list[Bot] = []
    wrapped: Clairvoyant | None = None
    for seat, participant in enumerate(game.seats):
        bot = make_bot(config.participants[participant], game.seed, seat)
        if participant == SUBJECT:
            bot = wrapped = Clairvoyant(bot, reveal)
        bots.append(bot)
    assert wrapped is not None

    def see(_event: Event, state: GameState) -> None:
        wrapped.truth = state

    names = _names(schedule, game, reveal)
    outcome = play_game(bots, game.seed, config.options, names=names, on_event=see,
                        meta=game.meta(), cards=config.cards)
    return outcome.record


def read_games(out: Path) -> tuple[list[dict[str, Any]], bool]:
    """The records of ``out/games.jsonl`` (this script's own file: unsigned, no manifest, not
    a run folder) and whether a line cut short by a kill was dropped (the file is truncated
    at its last newline, so that appending goes on cleanly)."""
    path = out / GAMES
    if not path.is_file():
        return [], False
    data = path.read_bytes()
    whole = data[: data.rfind(b"\n") + 1]
    if len(whole) != len(data):
        path.write_bytes(whole)
    records = []
    for number, line in enumerate(whole.splitlines(), 1):
        record, problem = json_problem(line)
        if problem or not isinstance(record, dict):
            raise StoreError(f"{path} line {number} is {problem or 'not a record'}")
        records.append(record)
    return records, len(whole) != len(data)


def _played(out: Path, schedule: Schedule, reveal: str) -> set[str]:
    """Ids of the games already in ``out``, which a resumed run skips.

    A line cut short by a kill is dropped, so that appending goes on cleanly.  A file of
    another run (other bots, another reveal or seed) is refused: mixing them would give a
    number that is neither's.
    """
    records, _cut = read_games(out)
    by_id = {g.id: g for g in schedule.games}
    for number, record in enumerate(records, 1):
        game = by_id.get(record["game"])
        if (game is None or record.get("seats") != _names(schedule, game, reveal)
                or record.get("seed") != game.seed):
            raise StoreError(f"{out / GAMES} line {number}: game {record['game']} was played "
                             f"by {record.get('seats')} with another schedule or reveal; use "
                             f"another --out")
    return {record["game"] for record in records}


def _names(schedule: Schedule, game: Any, reveal: str) -> list[str]:
    names = schedule.names(game)
    names[game.seats.index(SUBJECT)] += f" (sees {reveal})"
    return names


def _records(indices: list[int], workers: int, schedule: Schedule,
             reveal: str) -> Iterator[dict[str, Any]]:
    if workers <= 1:
        _init(schedule, reveal)
        yield from map(play, indices)
        return
    with multiprocessing.Pool(
        workers, initializer=_init, initargs=(schedule, reveal)
    ) as pool:
        yield from pool.imap_unordered(play, indices)


def main(argv: list[str] | None = None) -> int:
    ap = script_parser(
        __doc__,
        "python scripts/clairvoyance.py mcts objective --reveal cards --games 100 --seed 16 "
        "--out runs/s16-cards",
        "python scripts/paired.py runs/s16 runs/s16-cards   "
        "(runs/s16: scripts/strength.py, same --seed)",
    )
    add_match_options(ap, games=100, in_process=True,
                      subject="the bot given the samples (it must reach what it cannot see "
                              "only through view.determinize, as mcts does)")
    ap.add_argument("--reveal", choices=REVEALS, required=True,
                    help="what each sample keeps from the true game")
    ap.add_argument("--out", type=Path, required=True,
                    help="directory for games.jsonl (a run found there is resumed)")
    args = ap.parse_args(argv)
    config = match_config(ap, args)
    a = config.participants[SUBJECT]  # renamed "NAME (A)" when both specs are one
    b = args.spec_b
    try:
        schedule = make_schedule(config)
    except (ArenaError, ValueError) as exc:
        ap.error(str(exc))
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        ap.error(f"--out: {exc}")
    path = args.out / GAMES
    try:
        done = _played(args.out, schedule, args.reveal)
    except StoreError as exc:
        print(f"clairvoyance.py: error: {exc}", file=sys.stderr)
        return 2
    todo = [g.index for g in schedule.games if g.id not in done]
    n = len(schedule.games)
    print(f"{a.name} (sees {args.reveal}) vs {b.name}: {n} games, {len(done)} "
          f"already in {path}", file=sys.stderr)
    start = time.monotonic()
    finished = 0
    try:
        with path.open("a", encoding="utf-8") as out:
            for record in _records(todo, args.workers, schedule, args.reveal):
                out.write(json.dumps(record) + "\n")
                out.flush()
                finished += 1
                rate = finished / (time.monotonic() - start)
                print(f"\r[{len(done) + finished:4d}/{n}] {rate:.2f} games/s", end="",
                      file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print(f"\ninterrupted: {len(done) + finished} games kept in {path}; run again to "
              f"resume", file=sys.stderr)
        return 130
    print(file=sys.stderr)
    games, _cut = read_games(args.out)
    errors = sum(1 for g in games if g["error"])
    share = 0.0
    for g in games:
        seat = next(i for i, name in enumerate(g["seats"])
                    if name.endswith(f"(sees {args.reveal})"))
        share += game_score(g["winners"], seat)
    lo, hi = wilson(share, len(games))
    print(f"{a.name} (sees {args.reveal}) vs {b.name}: {share:.1f} wins of {len(games)} "
          f"games, {share / max(len(games), 1):.1%} [{lo:.1%}, {hi:.1%}]"
          f"{f', {errors} games ended by a bot error' if errors else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
