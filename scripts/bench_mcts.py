"""Benchmarks of the ``mcts`` bot: search speed, time per game, and strength.

Usage::

    python scripts/bench_mcts.py speed [--bot SPEC] [--runs 5] [--positions 3]
        [--policy random|SPEC] [--rounds 10]
    python scripts/bench_mcts.py game [--bot SPEC] [--opponent SPEC] [--games 4]
    python scripts/bench_mcts.py profile [--bot SPEC] [--positions 3] [--runs 2] [--top 25]
    python scripts/bench_mcts.py match --opponent objective [--bot SPEC] [--players 2]
        [--games 400] [--workers 2] [--seed 1] [--rule K=V ...]

``speed`` builds mid-game positions (a seeded 2-player game played to round 10 by a random
policy that completes objectives, or with ``--policy objective`` by that bot) and reports
iterations per second of one decision at each, median and spread over several runs, per CPU
second and per wall-clock second.  ``game`` times whole games at the bot's budget: seconds
per decision and per game.  ``profile`` runs ``speed``'s decisions, in the Python search,
under ``cProfile`` and prints the functions that take the most time, by their own time
and with what they call (the figures are inflated by the profiler's cost per call, the
proportions are the point).
``match`` plays the bot against an opponent spec: in 2-player
games each deal is played twice with the seats swapped, in 3-4 player games the bot takes
every seat of each deal in turn against copies of the opponent, so deal luck cancels.  It
prints games, the bot's win rate (a victory shared by k counts 1/k) with a 95% confidence
interval, and mean scores.  The long matches live here rather than in the tests.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from _args import (
    add_cards_option,
    add_rule_option,
    at_least,
    own_bot_spec,
    rules_and_cards,
    script_parser,
)

from arena.engine import (
    DEFAULT_CARD_SET,
    ArenaError,
    CardSet,
    GameState,
    PlayerView,
    RuleOptions,
    new_game,
)
from arena.engine.actions import COMPLETE, kind_of
from arena.engine.history import MOVE
from arena.play.match import play_game
from arena.play.registry import BotSpec, make_bot
from arena.tournament.sprt import game_score
from bots.mcts import MctsBot

DEFAULT_BOT = "mcts"


# ------------------------------------------------------------------------- positions


def midgame_position(seed: int, rounds: int = 10, players: int = 2,
                     policy: str = "random") -> GameState:
    """A seeded game played to the action step of a turn of round ``rounds``.

    ``policy`` is ``random`` (random moves, satisfied objectives completed first: small
    boards) or a bot spec such as ``objective`` (the boards real games reach).
    """
    rng = random.Random(seed)
    state = new_game(players, seed, history=False)
    bots = None
    if policy != "random":
        bots = [BotSpec.parse(policy).create(random.Random(seed + i)) for i in range(players)]
        for i, bot in enumerate(bots):
            bot.start(i, players, state.options)
    while not state.ended and (state.round < rounds or state.step_name != "actions"):
        legal = state.legal_actions()
        if bots is not None:
            action = bots[state.current].choose(PlayerView.of(state, state.current), list(legal))
        else:
            action = legal[0]
            if kind_of(action) != COMPLETE:
                action = legal[rng.randrange(len(legal))]
        state.apply(action)
    return state


def speed(spec_text: str, runs: int, positions: int, policy: str = "random",
          rounds: int = 10) -> None:
    """Iterations per second of one decision at several mid-game positions.

    Two rates: per second of wall-clock time, and per second of this process's CPU time.
    On a machine shared with other jobs the second is the one to compare across runs (it is
    what the wall-clock rate would be on an idle core).
    """
    spec = BotSpec.parse(spec_text)
    print(f"bot {spec.text}: iterations per second at mid-game positions "
          f"(round {rounds}, reached by {policy} play)")
    all_wall: list[float] = []
    all_cpu: list[float] = []
    for k in range(positions):
        state = midgame_position(100 + k, rounds, policy=policy)
        legal = state.legal_actions()
        wall, cpu = [], []
        for run in range(runs):
            bot = spec.create(random.Random(run))
            bot.start(state.current, state.players, state.options)
            start, start_cpu = time.perf_counter(), time.process_time()
            bot.choose(PlayerView.of(state, state.current), list(legal))
            elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - start_cpu
            iterations = bot.last_iterations
            wall.append(iterations / elapsed)
            cpu.append(iterations / max(elapsed_cpu, 1e-9))
        all_wall.extend(wall)
        all_cpu.extend(cpu)
        print(
            f"  position {k} ({state.step_name}, {len(legal)} legal actions): "
            f"{_spread(cpu)} per CPU second; {_spread(wall)} per wall second"
        )
    print(f"  all: {_spread(all_cpu)} per CPU second; {_spread(all_wall)} per wall second")


def profile(spec_text: str, runs: int, positions: int, top: int, rounds: int = 10) -> None:
    """The top of a profile of ``speed``'s decisions: by own time, then cumulative.

    It profiles the Python search (the reference's code, on either engine): ``cProfile``
    sees no function inside the Rust port, which ``perf`` or ``valgrind --tool=callgrind``
    profile on ``cargo run --release --example bot_games -- mcts 2`` in ``arena/native``.
    """
    import cProfile
    import pstats

    spec = BotSpec.parse(spec_text)
    states = [midgame_position(100 + k, rounds) for k in range(positions)]
    profiler = cProfile.Profile()
    iterations = 0
    for state in states:
        legal = state.legal_actions()
        for run in range(runs):
            bot = spec.bot_class()(random.Random(run), **spec.params)  # the Python search
            bot.start(state.current, state.players, state.options)
            view = PlayerView.of(state, state.current)
            profiler.enable()
            bot.choose(view, list(legal))
            profiler.disable()
            iterations += bot.last_iterations
    print(f"bot {spec.text}: {positions * runs} decisions, {iterations} iterations")
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.strip_dirs().sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def _spread(rates: list[float]) -> str:
    """Median, min and max of rates."""
    return (
        f"median {statistics.median(rates):,.0f}/s (min {min(rates):,.0f}, "
        f"max {max(rates):,.0f}, n={len(rates)})"
    )


# ------------------------------------------------------------------------- games


@dataclass(frozen=True)
class Job:
    """One game of a match: the specs in seat order, the deal seed, the bot's seat."""

    specs: tuple[str, ...]
    seed: int
    seat: int
    options: RuleOptions
    cards: CardSet = DEFAULT_CARD_SET


@dataclass(frozen=True)
class Outcome:
    seat: int
    share: float
    scores: tuple[int, ...]
    seconds: tuple[float, ...]
    decisions: int
    rounds: int
    error: str | None


def run_job(job: Job) -> Outcome:
    """Play one game (in a worker process)."""
    bots = [make_bot(BotSpec.parse(text), job.seed, i) for i, text in enumerate(job.specs)]
    out = play_game(bots, job.seed, job.options, cards=job.cards)
    result = out.state.result()
    share = game_score(result.winners, job.seat)
    decisions = sum(1 for e in out.state.history or () if e[0] == MOVE and e[2] == job.seat)
    error = None if out.error is None else f"{out.error['kind']}: {out.error['message']}"
    return Outcome(
        job.seat, share, tuple(result.scores), tuple(out.seconds), decisions, result.rounds, error
    )


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def match_jobs(
    bot: str, opponent: str, players: int, games: int, seed: int, options: RuleOptions,
    cards: CardSet = DEFAULT_CARD_SET,
) -> list[Job]:
    """Deals with every seat rotation of the bot, ``games`` games in all."""
    jobs = []
    deal = 0
    while len(jobs) < games:
        deal_seed = seed * 1_000_003 + deal
        for seat in range(players):
            specs = [opponent] * players
            specs[seat] = bot
            jobs.append(Job(tuple(specs), deal_seed, seat, options, cards))
        deal += 1
    return jobs[:games]


def play_jobs(jobs: Sequence[Job], workers: int) -> list[Outcome]:
    """Play the games on a process pool, printing progress."""
    results: list[Outcome] = []
    start = time.perf_counter()
    with multiprocessing.Pool(workers) as pool:
        for out in pool.imap_unordered(run_job, jobs):
            results.append(out)
            if out.error:
                print(f"  game error: {out.error}", file=sys.stderr)
            if len(results) % 20 == 0:
                wins = sum(o.share for o in results)
                print(
                    f"  {len(results)}/{len(jobs)} games, win rate {wins / len(results):.3f}, "
                    f"{time.perf_counter() - start:.0f} s",
                    flush=True,
                )
    return results


def match(
    bot: str, opponent: str, players: int, games: int, seed: int, workers: int,
    options: RuleOptions, cards: CardSet = DEFAULT_CARD_SET,
) -> None:
    """Play a match and print the win rate with its 95% interval."""
    BotSpec.parse(bot)
    BotSpec.parse(opponent)
    problem = cards.deal_problem(players)
    if problem:
        raise SystemExit(f"bench_mcts.py: error: --cards: remove: {problem}")
    jobs = match_jobs(bot, opponent, players, games, seed, options, cards)
    print(f"{bot} vs {opponent} x{players - 1}, {players} players, {len(jobs)} games")
    results = play_jobs(jobs, workers)
    n = len(results)
    wins = sum(o.share for o in results)
    low, high = wilson(wins, n)
    mine = statistics.mean(o.scores[o.seat] for o in results)
    theirs = statistics.mean(
        max(s for i, s in enumerate(o.scores) if i != o.seat) for o in results
    )
    secs = statistics.mean(o.seconds[o.seat] for o in results)
    rounds = statistics.mean(o.rounds for o in results)
    errors = sum(1 for o in results if o.error)
    print(
        f"games {n}, wins {wins:g}, win rate {wins / n:.3f} (95% CI {low:.3f}-{high:.3f}); "
        f"mean score {mine:.1f} vs best opponent {theirs:.1f}; rounds {rounds:.1f}; "
        f"bot seconds per game {secs:.1f}; errors {errors}"
    )


def game_times(bot: str, opponent: str, games: int) -> None:
    """Seconds per decision and per 2-player game at the bot's budget (one process).

    Wall-clock seconds and CPU seconds of the whole game (both bots and the engine); on a
    shared machine the CPU seconds are what an idle core would take.
    """
    per_game, per_game_cpu, per_decision = [], [], []
    for k in range(games):
        seat = k % 2
        specs = [opponent, opponent]
        specs[seat] = bot
        bots = [BotSpec.parse(t).create(random.Random(k * 10 + i)) for i, t in enumerate(specs)]
        start, start_cpu = time.perf_counter(), time.process_time()
        out = play_game(bots, 500 + k)
        total, total_cpu = time.perf_counter() - start, time.process_time() - start_cpu
        moves = sum(1 for e in out.state.history or () if e[0] == MOVE and e[2] == seat)
        per_game.append(total)
        per_game_cpu.append(total_cpu)
        per_decision.append(out.seconds[seat] / max(1, moves) * total_cpu / total)
        print(
            f"  game {k}: {total:.1f} s wall, {total_cpu:.1f} s CPU; bot {out.seconds[seat]:.1f}"
            f" s wall over {moves} decisions; {out.state.round} rounds, scores "
            f"{out.state.scores()}",
            flush=True,
        )
    print(
        f"{bot} vs {opponent}: per game median {statistics.median(per_game_cpu):.1f} s CPU "
        f"(max {max(per_game_cpu):.1f}), {statistics.median(per_game):.1f} s wall "
        f"(max {max(per_game):.1f}); per decision of the bot about "
        f"{statistics.median(per_decision) * 1000:.0f} ms CPU"
    )


def _policy(text: str) -> str:
    """``--policy``: ``random`` (the policy of ``midgame_position``, not the ``random`` bot)
    or a bot spec, checked while parsing like ``--bot``."""
    return text if text == "random" else own_bot_spec(text).text


def mcts_spec(text: str) -> BotSpec:
    """A ``--bot`` for ``speed`` and ``profile``: they count a search's iterations, which only
    an ``mcts`` bot reports (another bot's rate read 0 per second)."""
    spec = own_bot_spec(text)
    if not issubclass(spec.bot_class(), MctsBot):
        raise argparse.ArgumentTypeError(f"{text!r} is not an mcts bot: speed and profile "
                                         "count search iterations")
    return spec


def main(argv: Sequence[str] | None = None) -> None:
    parser = script_parser(
        __doc__,
        "python scripts/bench_mcts.py speed --runs 5",
        "python scripts/bench_mcts.py game --games 4",
        "python scripts/bench_mcts.py profile --positions 3 --runs 2 --top 25",
        "python scripts/bench_mcts.py match --opponent objective --games 100 --seed 16",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_speed = sub.add_parser("speed", help="iterations per second at mid-game positions")
    p_speed.add_argument("--bot", type=mcts_spec, default=DEFAULT_BOT)
    p_speed.add_argument("--runs", type=at_least(1), default=5)
    p_speed.add_argument("--positions", type=at_least(1), default=3)
    p_speed.add_argument("--policy", type=_policy, default="random",
                         help="how positions are reached: random, or a bot spec")
    p_speed.add_argument("--rounds", type=at_least(0), default=10)
    p_game = sub.add_parser("game", help="seconds per decision and per game")
    p_game.add_argument("--bot", type=own_bot_spec, default=DEFAULT_BOT)
    p_game.add_argument("--opponent", type=own_bot_spec, default="random:complete=true")
    p_game.add_argument("--games", type=at_least(1), default=4)
    p_profile = sub.add_parser("profile", help="where a decision's time goes (cProfile)")
    p_profile.add_argument("--bot", type=mcts_spec, default=DEFAULT_BOT)
    p_profile.add_argument("--runs", type=at_least(1), default=2)
    p_profile.add_argument("--positions", type=at_least(1), default=3)
    p_profile.add_argument("--top", type=at_least(1), default=25,
                           help="functions listed, by own and by cumulative time")
    p_match = sub.add_parser("match", help="win rate against an opponent")
    p_match.add_argument("--bot", type=own_bot_spec, default=DEFAULT_BOT)
    p_match.add_argument("--opponent", type=own_bot_spec, required=True)
    p_match.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p_match.add_argument("--games", type=at_least(1), default=400)
    p_match.add_argument("--workers", type=at_least(1), default=2)
    p_match.add_argument("--seed", type=int, default=1)
    add_rule_option(p_match)
    add_cards_option(p_match)
    args = parser.parse_args(argv)
    if args.command == "speed":
        speed(args.bot.text, args.runs, args.positions, args.policy, args.rounds)
    elif args.command == "profile":
        profile(args.bot.text, args.runs, args.positions, args.top)
    elif args.command == "game":
        game_times(args.bot.text, args.opponent.text, args.games)
    else:
        try:
            options, cards = rules_and_cards(args)
        except ArenaError as exc:
            p_match.error(str(exc))
        match(args.bot.text, args.opponent.text, args.players, args.games, args.seed,
              args.workers, options, cards)


if __name__ == "__main__":
    main()
