"""What the jail costs: its start-up per game, and decisions per second jailed and in-process.

Three figures, each the median of ``--runs`` runs (min-max beside it), measured in one
process that referees as a tournament worker does (``arena.jail.sandbox``):

- start-up: milliseconds from nothing to a bot ready for its first request, with a fresh jail
  (bwrap, the jail's first process dropping to its user, Python starting, the bot's module
  imported, a bot process forked) and with a jail kept for the participant (a bot process
  forked by the host: what a kept jail costs per game);
- decisions per second of ``--bot`` (random and greedy by default) in self-play, every seat
  in-process, then every seat jailed (kept jails), over the same ``--games`` games; the ratio
  jailed / in-process is taken within each run, so the machine's load cancels.

Wall-clock time: a jailed decision is a message each way and a stop and a start of the bot's
process, which process time in the referee would not show.

Example: ``python scripts/bench_jail.py --runs 5 --games 20``
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

from _args import at_least, own_bot_spec, script_parser

from arena.jail.bwrap import jail_problem
from arena.jail.sandbox import BotHost, Isolation, RemoteBot
from arena.play.match import play_game
from arena.play.registry import BotSpec, make_bot
from arena.play.seeds import bot_seed

ISOLATION = Isolation(mode="all")


def startup(fresh: bool, spec: BotSpec) -> float:
    """Milliseconds until a jailed bot has answered its creation (``hello``)."""
    host = BotHost(spec, ISOLATION)
    try:
        if not fresh:
            RemoteBot(host, 1, None).close()  # the jail is up; what follows is per game
        started = time.perf_counter()
        bot = RemoteBot(host, 2, None)
        elapsed = time.perf_counter() - started
        bot.close()
    finally:
        host.close()
    return elapsed * 1000


def decisions_per_second(spec: BotSpec, games: int, jailed: bool) -> float:
    """Decisions per wall-clock second over ``games`` 2-player self-play games."""
    hosts = [BotHost(spec, ISOLATION, seat) for seat in range(2)] if jailed else []
    made = 0

    def count(_seat: int) -> None:
        nonlocal made
        made += 1

    try:
        if jailed:  # the jails up before the clock starts, as in a tournament after game 1
            for host in hosts:
                RemoteBot(host, 0, None).close()
        started = time.perf_counter()
        for seed in range(games):
            if jailed:
                bots = [RemoteBot(host, bot_seed(seed, seat, spec.name), None)
                        for seat, host in enumerate(hosts)]
            else:
                bots = [make_bot(spec, seed, seat) for seat in range(2)]
            try:
                play_game(bots, seed, names=[spec.name, spec.name], on_decision=count)
            finally:
                for bot in bots:
                    if isinstance(bot, RemoteBot):
                        bot.close()
        return made / (time.perf_counter() - started)
    finally:
        for host in hosts:
            host.close()


def spread(values: list[float], fmt: Callable[[float], str]) -> str:
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}-{fmt(max(values))})"


def main(argv: list[str] | None = None) -> int:
    ap = script_parser(__doc__, "python scripts/bench_jail.py --runs 5 --games 20",
                       "python scripts/bench_jail.py --bot greedy --games 10")
    ap.add_argument("--bot", action="append", type=own_bot_spec, default=None,
                    help="a bot spec to measure (repeat) [default: random and greedy]")
    ap.add_argument("--games", type=at_least(1), default=20, help="games per run and bot")
    ap.add_argument("--runs", type=at_least(1), default=5, help="runs (medians are shown)")
    args = ap.parse_args(argv)
    problem = jail_problem()
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    specs = args.bot or [BotSpec.parse("random"), BotSpec.parse("greedy")]
    ms = lambda v: f"{v:.1f} ms"  # noqa: E731
    fresh = [startup(True, specs[0]) for _ in range(args.runs)]
    kept = [startup(False, specs[0]) for _ in range(args.runs)]
    print(f"jail start-up ({specs[0].name}), median (min-max) of {args.runs} runs:")
    print(f"  fresh jail per game:  {spread(fresh, ms)}")
    print(f"  kept jail, per game:  {spread(kept, ms)}")
    print(f"decisions per second, 2-player self-play, {args.games} games per run:")
    print(f"  {'bot':<10} {'in-process':>22} {'jailed':>22} {'jailed/in-process':>20}")
    for spec in specs:
        inside, jailed, ratio = [], [], []
        for _ in range(args.runs):
            a = decisions_per_second(spec, args.games, jailed=False)
            b = decisions_per_second(spec, args.games, jailed=True)
            inside.append(a)
            jailed.append(b)
            ratio.append(b / a)
        rate = lambda v: f"{v:,.0f}"  # noqa: E731
        print(f"  {spec.name:<10} {spread(inside, rate):>22} {spread(jailed, rate):>22} "
              f"{spread(ratio, lambda v: f'{v:.3f}'):>20}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
