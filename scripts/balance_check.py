"""Validation of the card-balance report: does the paired comparison find a planted imbalance,
and does an A/A comparison stay within the stated false discovery rate?

Three runs on the same deals (same ``--seed``, participants and player count, so the
runner's schedule pairs them game by game):

- ``default``: the default card set;
- ``planted``: the default set with one mid-value card made ``--plus`` points richer
  (``--rich``, default +4) and one made worth 0 (``--zero``);
- ``aa``: the default set again, its participants renamed.  A bot's random generator is
  seeded from its participant's name, so this is the same deals played with other random
  streams: the honest A/A of a paired design (the same set under the same names would replay
  the very same games, and a second seed would deal other cards and not pair at all).

The paired report (``reports.compare.paired_sections``, what ``arena report A B`` prints)
of planted against default and of aa against default lists the cards whose fair value or
completion rate changed, by Benjamini–Hochberg at ``reports.balance.FDR`` across the cards.
A planted card listed is found; any card the A/A lists is a false discovery.  When a
planted card is not found, the summary says how many games would find it (the paired
interval's error extrapolated to 80% power at the planted size).

The runs are kept under ``--out`` and resumed, so an interrupted check goes on where it
stopped, and a second check with ``--plus 2`` plays only its own planted run.  A run's game
count is in its manifest: another ``--games`` needs another ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import secrets
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from _args import at_least, bot_spec, output_dir, output_file, script_parser

from arena.engine import ArenaError
from arena.engine.card_files import CardChoice, parse, template
from arena.play.registry import BotSpec
from arena.runs.reader import open_run
from arena.runs.store import StoreError
from arena.tournament import RunSettings, TournamentConfig, run_tournament
from arena.tournament.schedule import ScheduleError, against_copies
from reports import balance, stats
from reports.compare import paired_sections, pairing_problem
from reports.loader import ReportError, Tables, load

RUNS = ("default", "planted", "aa")


def planted_choice(rich: str, zero: str, plus: int) -> CardChoice:
    """The default set with ``rich`` ``plus`` points richer and ``zero`` worth 0."""
    points = template()["points"]
    for option, card in (("--rich", rich), ("--zero", zero)):
        if card not in points:
            raise ArenaError(f"{option}: unknown card {card!r} (see `arena cards`)")
    if rich == zero:
        raise ArenaError("--rich and --zero name the same card; plant two different cards")
    return parse({"name": f"planted: {rich} {plus:+d}, {zero} = 0",
                  "points": {rich: points[rich] + plus, zero: 0}}, "planted set")


def participants(specs: list[BotSpec], players: int, suffix: str = "") -> tuple[BotSpec, ...]:
    """One spec: it against copies of itself; several: a round-robin of them.  ``suffix``
    renames every participant (other random streams on the same deals)."""
    if len(specs) == 1:
        base = against_copies(specs[0], specs[0], players).participants
    else:
        base = tuple(specs)
    return tuple(replace(p, name=p.name + suffix) for p in base)


def configs(args: argparse.Namespace) -> dict[str, TournamentConfig]:
    """The three runs; only the card set and the participants' names differ."""
    planted = planted_choice(args.rich, args.zero, args.plus)
    common: dict[str, Any] = {"players": args.players, "games": args.games, "seed": args.seed}
    return {
        "default": TournamentConfig(participants(args.bot, args.players), **common),
        "planted": TournamentConfig(participants(args.bot, args.players),
                                    cards=planted.cards, **common),
        "aa": TournamentConfig(participants(args.bot, args.players, " A/A"), **common),
    }


def run_dirs(out: Path, plus: int) -> dict[str, Path]:
    """Where each run is kept: the planted run's directory names its size."""
    return {"default": out / "default", "planted": out / f"planted{plus:+d}", "aa": out / "aa"}


def play(config: TournamentConfig, directory: Path, workers: int, progress: str
         ) -> dict[str, Any]:
    """Play (or finish) one run; its games, wall and CPU seconds (the workers' too)."""
    resume = (directory / "manifest.json").is_file()
    cpu0 = time.process_time() + _children_cpu()
    result = run_tournament(config, directory, resume=resume,
                            settings=RunSettings(workers=workers, progress=progress))
    cpu = time.process_time() + _children_cpu() - cpu0
    return {"directory": str(directory), "games": result.done, "played": result.played,
            "errors": result.errors, "finished": result.finished,
            "wall_s": round(result.elapsed, 1), "cpu_s": round(cpu, 1),
            "games_per_cpu_s": round(result.played / cpu, 2) if result.played and cpu else None}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _number(value: Any) -> float | None:
    """A float for the JSON summary (NaN becomes null)."""
    value = float(value)
    return None if math.isnan(value) else round(value, 4)


def games_to_find(games: int, lo: float, hi: float, size: float) -> int | None:
    """Games for a paired difference of ``size`` to be found at 5% (two-sided) with 80% power,
    from the error of the paired interval measured on ``games`` games (error ~ 1/sqrt(n))."""
    se = (hi - lo) / (2 * stats.Z)
    if not (math.isfinite(se) and se > 0 and size):
        return None
    return math.ceil(games * (se * (stats.Z + balance.POWER_Z) / abs(size)) ** 2)


def _winning_seats(t: Tables) -> dict[str, tuple[int, ...]]:
    """Per game (id and seed), the seats that won."""
    out = {}
    # The one verified reader (arena/runs/reader.py); a last line cut short comes with its
    # problem and is skipped, as the loader skips it.
    for line in open_run(Path(t.source)).lines(whole_only=False):
        if line.problem is not None:
            continue
        record = line.record
        out[f"{record['game']}@{record['seed']}"] = tuple(sorted(record.get("winners", ())))
    return out


def paired_check(a: Tables, b: Tables, replicates: int, planted: dict[str, int]
                 ) -> dict[str, Any]:
    """The paired report of ``b`` against ``a``: the cards it lists, and each planted card's
    differences (``planted``: card -> points it was moved by)."""
    problem = pairing_problem(a, b)
    if problem and "participants differ" not in problem:
        # Renamed participants (the A/A) are paired on purpose: same deals, other streams.
        raise ReportError(problem)
    _, cards, info = paired_sections(a, b, "A", "B", replicates)
    # By seat, not by name: the A/A's participants are renamed, and the report's count of
    # changed winners matches names.
    wa, wb = _winning_seats(a), _winning_seats(b)
    info["winner_changed"] = sum(wa[g] != wb[g] for g in wa.keys() & wb.keys())
    cards = cards.set_index("card")
    tested = {m: int(cards[f"q_{m}"].notna().sum()) for m in ("fair_value", "completion_rate")}
    flagged = {m: sorted(cards.index[cards[f"q_{m}"] <= balance.FDR])
               for m in ("fair_value", "completion_rate")}
    out: dict[str, Any] = {
        "deals": info["deals"], "games": info["games_compared"],
        "winner_changed": info["winner_changed"], "tested": tested, "flagged": flagged,
        "spread_change": [_number(info[k]) for k in
                          ("spread_change", "spread_change_lo", "spread_change_hi")],
        "planted": {},
    }
    for card, moved in planted.items():
        r = cards.loc[card]
        entry: dict[str, Any] = {"moved": moved}
        for m in ("fair_value", "completion_rate"):
            entry[m] = {"change": _number(r[f"Δ{m}"]), "lo": _number(r[f"Δ{m}_lo"]),
                        "hi": _number(r[f"Δ{m}_hi"]), "q": _number(r[f"q_{m}"]),
                        "flagged": card in flagged[m]}
        entry["games_to_find_fair_value"] = games_to_find(
            info["games_compared"], float(r["Δfair_value_lo"]), float(r["Δfair_value_hi"]),
            moved)
        out["planted"][card] = entry
    return out


def _interval(d: dict[str, Any], spec: str = "+.2f") -> str:
    if d["change"] is None:
        return "not estimated (too few completions)"
    if d["lo"] is None or d["q"] is None:
        return f"{d['change']:{spec}} (no interval: no variation between the runs)"
    return f"{d['change']:{spec}} [{d['lo']:{spec}}, {d['hi']:{spec}}] (q {d['q']:.3g})"


def render(summary: dict[str, Any]) -> str:
    """The readable summary printed at the end."""
    s = summary["settings"]
    lines = [f"Balance check: {', '.join(s['bots'])}, {s['players']} players, "
             f"{s['games']} games per run, seed {s['seed']}, false discovery rate "
             f"{s['fdr']:.0%} (Benjamini–Hochberg across the cards)."]
    for name, run in summary["runs"].items():
        rate = f", {run['games_per_cpu_s']} games/CPU-s" if run["games_per_cpu_s"] else ""
        lines.append(f"  {name:8s} {run['games']} games in {run['directory']} (played now "
                     f"{run['played']}: {run['wall_s']} s wall, {run['cpu_s']} CPU-s{rate})")
    p = summary["planted"]
    lines.append(f"Planted ({p['deals']} deals, {p['games']} games paired, "
                 f"{p['winner_changed']} changed winner):")
    for card, e in p["planted"].items():
        found = [m.replace("_", " ") for m in ("fair_value", "completion_rate")
                 if e[m]["flagged"]]
        verdict = "FOUND by " + " and ".join(found) if found else "not found"
        lines.append(f"  {card} moved {e['moved']:+d}: {verdict}")
        lines.append(f"    Δ fair value {_interval(e['fair_value'])}; Δ completion rate "
                     f"{_interval(e['completion_rate'], '+.3f')}")
        if not e["fair_value"]["flagged"] and e["games_to_find_fair_value"]:
            lines.append(f"    about {e['games_to_find_fair_value']} games per run would find "
                         f"a {e['moved']:+d} change of its fair value (80% power)")
    others = {m: [c for c in p["flagged"][m] if c not in p["planted"]]
              for m in ("fair_value", "completion_rate")}
    lines.append(f"  other cards listed: fair value {', '.join(others['fair_value']) or 'none'}"
                 f"; completion rate {', '.join(others['completion_rate']) or 'none'}")
    a = summary["aa"]
    lines.append(f"A/A (same deals, other random streams; {a['games']} games, "
                 f"{a['winner_changed']} changed winner):")
    for m in ("fair_value", "completion_rate"):
        lines.append(f"  {m.replace('_', ' ')}: {len(a['flagged'][m])} of {a['tested'][m]} "
                     f"cards listed ({', '.join(a['flagged'][m]) or 'none'})")
    lines.append("  share of the cards falsely listed within the false discovery rate: "
                 f"{'yes' if a['within_fdr'] else 'NO'} (every card listed here is a false "
                 "discovery; with no real change, Benjamini-Hochberg lists none in 95% of "
                 "A/A checks)")
    for row in summary.get("smaller", []):
        found = "; ".join(
            f"{card} {e['moved']:+d}: " + (" and ".join(
                m.replace("_", " ") for m in ("fair_value", "completion_rate")
                if e[m]["flagged"]) or "not found") for card, e in row["planted"].items())
        false = sum(len(v) for v in row["aa_flagged"].values())
        lines.append(f"First {row['games']} games: {found}; A/A false flags {false}")
    return "\n".join(lines)


def first_games(directory: Path, games: int, players: int, into: Path) -> Path:
    """A copy of a run holding only its first ``games`` games (whole deals, schedule order):
    what a run stopped there would have given, for the size at which a change is found.

    A run's lines are signed in a chain that a subset breaks, so the copy is a run of its
    own, signed with your key (``arena/runs/integrity.py``): its games are the run's, unchanged."""
    from arena.runs.integrity import PREV_FIELD, SIG_FIELD, ChainSigner, sign_chained_manifest
    from arena.runs.keys import fingerprint, own_key, public_bytes

    into.mkdir(parents=True, exist_ok=True)
    deals = math.ceil(games / players)
    # The run's segments and games.jsonl, read (and checked) by the one verified reader
    # (arena/runs/reader.py), copied into one games.jsonl.
    run = open_run(directory)
    kept = [line.record for line in run.lines() if _deal(line.record) < deals]
    key = own_key()
    run_id = secrets.token_bytes(16)
    signer = ChainSigner(key, run_id)
    signed = []
    for record in kept:
        for name in (SIG_FIELD, PREV_FIELD, "mac"):
            record.pop(name, None)
        signed.append(signer.sign_line(json.dumps(record, separators=(",", ":")),
                                       record["game"]))
    (into / "games.jsonl").write_text("".join(f"{line}\n" for line in signed))
    manifest = dict(run.manifest)
    manifest.pop("mac", None)
    public = public_bytes(key)  # type: ignore[arg-type]
    manifest.update(signer={"ed25519": public.hex(), "fingerprint": fingerprint(public)},
                    run_id=run_id.hex(), seal=signer.seal())
    (into / "manifest.json").write_text(json.dumps(sign_chained_manifest(key, manifest)))
    return into


def _deal(record: Any) -> float:
    """A record's deal; a line that is not a record (its problem said by the reader) sorts
    after every deal, so it is left out of the copy."""
    try:
        return float(record["deal"])
    except (KeyError, TypeError, ValueError):
        return math.inf


def main(argv: list[str] | None = None) -> int:
    ap = script_parser(
        __doc__,
        "python scripts/balance_check.py --games 600 --out runs/check",
        "python scripts/balance_check.py --games 600 --out runs/check --plus 2",
        "python scripts/balance_check.py --bot objective --games 200 --workers 1 "
        "--out runs/check-objective --json check.json",
        "python scripts/balance_check.py --bot random --games 8 --replicates 50 --out /tmp/c",
    )
    ap.add_argument("--bot", type=bot_spec, action="append", default=None, metavar="SPEC",
                    help="a participant (repeatable; one: it against copies of itself; "
                         "default greedy)")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--games", type=at_least(1), default=600,
                    help="games per run (and pairing), rounded up to whole deals (default 600)")
    ap.add_argument("--seed", type=int, default=19, help="master seed of the deals (default 19)")
    ap.add_argument("--rich", default="panda-07", metavar="CARD",
                    help="the card made richer (default panda-07, 4 points)")
    ap.add_argument("--plus", type=at_least(1), default=4,
                    help="points added to --rich (default 4)")
    ap.add_argument("--zero", default="plot-08", metavar="CARD",
                    help="the card made worth 0 (default plot-08, 3 points)")
    ap.add_argument("--replicates", type=at_least(10), default=balance.REPLICATES,
                    help=f"bootstrap replicates (default {balance.REPLICATES})")
    ap.add_argument("--workers", type=at_least(1), default=2, help="worker processes")
    ap.add_argument("--out", type=output_dir, default=Path("runs/balance-check"),
                    help="directory of the runs, kept and resumed (default runs/balance-check)")
    ap.add_argument("--json", type=output_file, default=None, metavar="FILE",
                    help="the JSON summary (default OUT/balance_check{+PLUS}.json)")
    ap.add_argument("--at", type=at_least(2), action="append", default=[], metavar="GAMES",
                    help="also check on the first GAMES games of each run (repeatable): the "
                         "size at which the planted cards are found")
    ap.add_argument("--progress", choices=("auto", "bar", "lines", "none"), default="auto")
    args = ap.parse_args(argv)
    args.bot = args.bot or [BotSpec.parse("greedy")]
    try:
        runs = configs(args)
    except (ArenaError, ScheduleError, ValueError) as exc:
        ap.error(str(exc))
    dirs = run_dirs(args.out, args.plus)
    played: dict[str, Any] = {}
    try:
        for name in RUNS:
            print(f"[{name}] {dirs[name]}", file=sys.stderr)
            played[name] = play(runs[name], dirs[name], args.workers, args.progress)
    except StoreError as exc:
        print(f"balance_check: {exc}", file=sys.stderr)
        return 2
    if not all(r["finished"] for r in played.values()):
        print("balance_check: interrupted; run the same command again to finish",
              file=sys.stderr)
        return 1
    tables = {name: load(dirs[name]) for name in RUNS}
    print("analysing (paired bootstrap)...", file=sys.stderr)
    default_points = template()["points"]
    planted = paired_check(tables["default"], tables["planted"], args.replicates,
                           {args.rich: args.plus, args.zero: -default_points[args.zero]})
    aa = paired_check(tables["default"], tables["aa"], args.replicates, {})
    aa["within_fdr"] = all(len(aa["flagged"][m]) <= balance.FDR * max(aa["tested"][m], 1)
                           for m in aa["flagged"])
    smaller = []
    for games in sorted(set(args.at)):
        if games >= args.games:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            cut = {name: load(first_games(dirs[name], games, args.players, Path(tmp) / name))
                   for name in RUNS}
            p = paired_check(cut["default"], cut["planted"], args.replicates,
                             {c: e["moved"] for c, e in planted["planted"].items()})
            a = paired_check(cut["default"], cut["aa"], args.replicates, {})
        smaller.append({"games": p["games"], "planted": p["planted"], "flagged": p["flagged"],
                        "aa_flagged": a["flagged"], "aa_tested": a["tested"]})
    summary = {
        "settings": {"bots": [b.text for b in args.bot], "players": args.players,
                     "games": args.games, "seed": args.seed, "rich": args.rich,
                     "plus": args.plus, "zero": args.zero, "replicates": args.replicates,
                     "fdr": balance.FDR},
        "runs": played, "planted": planted, "aa": aa, "smaller": smaller,
    }
    print(render(summary))
    path = args.json or args.out / f"balance_check{args.plus:+d}.json"
    path.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"JSON summary: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
