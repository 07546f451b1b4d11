"""``arena balance study``, ``suggest`` and ``tune`` end to end, on fast random bots: the
study's files, its report section, replays of its games, resume, bad input in one sentence,
and the suggestion's rules on a table whose figures are set by hand."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.runs.segments import iter_lines
from arena.show.replay import read_records, replay_record
from reports import experiment
from tests.unsigned import resign

BOT = "random:complete=true"


def study(tmp: Path, *extra: str) -> tuple[Path, object]:
    out = tmp / "study"
    result = CliRunner().invoke(main, [
        "balance", "study", "--bot", BOT, "--deals", "10", "--category", "panda",
        "--price-cards", "panda-03", "--workers", "1", "--quiet", "--seed", "0", "--out", str(out),
        *extra])
    return out, result


def test_a_study_plays_reports_and_replays(tmp_path: Path) -> None:
    out, result = study(tmp_path)
    assert result.exit_code == 0, result.output
    assert "strongest evidence" in result.output and "report written to" in result.output
    report = out / "report"
    copies = pd.read_csv(out / "report" / "study_copies.csv")
    assert set(copies["asks"]) == {"eat 2 green", "eat 2 yellow", "eat 2 pink",
                                   "eat 1 green + 1 yellow + 1 pink"}
    for name in ("study_cards.csv", "study_design.csv", "study_effects.png",
                 "study_fair_points.png", "report.md", "report.html"):
        assert (report / name).is_file(), name
    cards = pd.read_csv(report / "study_cards.csv")
    assert set(cards["card"]) == {f"panda-{i:02d}" for i in range(1, 16)}
    assert (cards["deals"] == 10).all()
    # Every deal's effects of a category sum to 0: so do their means.
    assert abs(cards["effect"].sum()) < 1e-9
    md = (report / "report.md").read_text()
    assert "Card value by experiment" in md and "&lt;" not in md
    assert max(len(line) for line in md.splitlines() if line.startswith("|")) <= 100
    # A study's report is the study's: its headline first, no standings of a level against
    # its own copies, no descriptive card table, games to watch picked by its findings.
    # (after the line that says who signed the run, which every report starts with, then the
    # designer's own card, panda-03 of --price-cards)
    headline = md.split("\n\n")[2].splitlines()
    assert headline[0].startswith("- Signed by your key")
    assert headline[1].startswith("- Your card panda-03 (")
    assert "\n- Strongest evidence: " in md.split("\n\n")[2]
    assert "## 1. Overview" in md and "Standings" not in md and "Objective-card" not in md
    assert not (report / "standings.csv").exists() and not (report / "cards.csv").exists()
    # One level: nothing to compare across levels, no table of it.
    assert not any((report / f"study_{name}.csv").exists()
                   for name in ("skill", "skill_neighbours", "convergence"))
    assert "Better players" not in md and "Neighbouring levels" not in md
    watch = pd.read_csv(report / "games_to_watch.csv")
    assert not watch["why"].str.contains("upset|flagged:").any()
    assert watch["why"].str.contains(r"\(study: ").any()
    summary = (report / "summary.txt").read_text().splitlines()
    assert summary[0].startswith("Signed by your key")
    assert summary[1].startswith("Your card panda-03 (")
    records = list(read_records(out))
    assert len(records) == 10 * (15 + 2)
    for record in records[:20]:
        assert replay_record(record).ok


def test_a_studys_games_to_watch_are_links_that_open(tmp_path: Path) -> None:
    """Issue 52: the study's report linked ``replays/`` that nothing wrote, and an id with an
    ``@`` (a re-priced arm) showed as raw Markdown in the HTML."""
    import re

    from reports.render import text_to_html

    out, result = study(tmp_path)
    assert result.exit_code == 0, result.output
    report = out / "report"
    watch = pd.read_csv(report / "games_to_watch.csv")
    assert len(watch)
    for file in watch["file"]:
        assert (report / file).is_file(), file
    html = (report / "report.html").read_text()
    assert not re.search(r"\[[^\]]+\]\(replays/", html)
    assert text_to_html("- [x0-panda-0004-panda-06@7](replays/x0-panda-0004-panda-06@7.html)"
                        ) == ('<ul><li><a href="replays/x0-panda-0004-panda-06@7.html">'
                              'x0-panda-0004-panda-06@7</a></li></ul>')


def test_a_study_opens_with_the_designers_cards(tmp_path: Path) -> None:
    """Issue 52: a study's report and terminal output open with the cards the designer
    named (--price-cards): fair points with their interval, the verdict, and the deals that
    would settle it, before the strongest evidence."""
    out, result = study(tmp_path)
    assert result.exit_code == 0, result.output
    text = result.stdout
    mine = text.index("your cards")
    assert mine < text.index("the cards with the strongest evidence")
    line = next(li for li in text.splitlines() if li.strip().startswith("panda-03 ("))
    assert "fair points" in line and ("deals" in line or "settled" in line)
    assert "effect" in line
    summary = (out / "report" / "summary.txt").read_text().splitlines()
    # after the line that says who signed the run, which every report starts with
    assert summary[0].startswith("Signed by your key")
    assert summary[1].startswith("Your card panda-03 (") and "fair points" in summary[1]
    assert summary[2].startswith("Strongest evidence: ")
    html = (out / "report" / "report.html").read_text()
    assert html.index("Your card panda-03") < html.index("Strongest evidence")


def test_a_studys_progress_counts_deals_not_a_leader(tmp_path: Path) -> None:
    """Issue 52: "leader: greedy#1 58%" is a level's own copy beating it, which means
    nothing in a study; its progress is the deals complete, the unit of its analysis."""
    result = CliRunner().invoke(main, [
        "balance", "study", "--bot", BOT, "--deals", "4", "--category", "panda", "--workers",
        "1", "--seed", "0", "--no-report", "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert lines and not any("leader" in line for line in lines)
    assert lines[-1].endswith("deals complete: 4 of 4")


def test_the_price_arms_are_measured_against_the_games_without_the_card(
        tmp_path: Path) -> None:
    """The fair points' baseline leaves out the block games where a rival holds the priced
    card: with two seats each such game is a win and a loss between two other cards, so it
    is 1/2 on every deal, where the block's own baseline (those games in) is not."""
    out, result = study(tmp_path, "--no-report")
    assert result.exit_code == 0, result.output
    exp = experiment.load(out)
    (b,) = experiment.blocks(exp)
    j = b.cards.index("panda-03")
    assert set(b.apart) == {"panda-03"} and len(b.apart["panda-03"]) == len(b.deals) == 10
    assert (abs(b.apart["panda-03"] - 0.5) < 1e-12).all()
    block_baseline = (b.y.sum(axis=1) - b.y[:, j]) / (len(b.cards) - 1)
    assert (abs(block_baseline - 0.5) > 1e-6).any()
    # Its rivals' records name the cards placed with the other seats.
    faced = exp.arms[(exp.arms["arm"] == "block") & (exp.arms["card"] == "panda-03")]
    assert len(faced) == 20 and faced["rivals"].str.startswith("panda-").all()


def test_a_study_without_price_arms_says_its_fair_points_were_not_measured(
        tmp_path: Path) -> None:
    out, result = study(tmp_path, "--price-cards", "")
    assert result.exit_code == 0, result.output
    md = (out / "report" / "report.md").read_text()
    assert "`fair_points`: not measured here" in md and "nearest price" not in md
    assert "nearest price" in (study(tmp_path / "priced")[0] / "report" / "report.md").read_text()


def test_a_study_resumes_to_the_same_games(tmp_path: Path) -> None:
    out, result = study(tmp_path, "--no-report")
    assert result.exit_code == 0, result.output
    games = out / "games.jsonl"
    written = [raw.decode() for _, raw in iter_lines(out)]
    whole = sorted(written)
    # The first 100 games left, as one games.jsonl (the compact segments removed), as a run
    # killed before it sealed them leaves it (a signed run's lines stay in their order).
    shutil.rmtree(out / "games", ignore_errors=True)
    games.write_text("\n".join(written[:100]) + "\n")
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["seal"]
    resign(out, manifest)
    again = CliRunner().invoke(main, ["balance", "study", "--resume", str(out), "--quiet",
                                      "--workers", "1", "--no-report"])
    assert again.exit_code == 0, again.output
    varies = ("seconds", "mac", "prev", "sig")
    strip = [{k: v for k, v in json.loads(x).items() if k not in varies} for x in whole]
    now = [{k: v for k, v in json.loads(x).items() if k not in varies}
           for _, x in iter_lines(out)]
    assert sorted(strip, key=lambda r: r["game"]) == sorted(now, key=lambda r: r["game"])


@pytest.mark.parametrize("args, message", [
    (["--deals", "2"], "at least one --bot"),
    (["--bot", BOT, "--games", "100", "--deals", "2"], "--games or --deals, not both"),
    (["--bot", BOT, "--deals", "2", "--price-cards", "plot-99"], "not an objective card"),
    (["--bot", BOT, "--deals", "2", "--offsets", "a,b"], "--offsets"),
    (["--bot", BOT, "--bot", BOT, "--deals", "2"], "two skill levels are named"),
    (["--bot", BOT, "--deals", "2", "--depth", "40"], "--depth must be"),
])
def test_bad_study_options_are_one_sentence(tmp_path: Path, args: list[str],
                                            message: str) -> None:
    result = CliRunner().invoke(main, ["balance", "study", "--out", str(tmp_path / "s"),
                                       "--quiet", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "s" / "games.jsonl").exists()


def _table(rows: list[dict]) -> dict:
    base = {"category": "panda", "asks": "", "priced": True, "fair_points_games_needed": math.nan,
            "flag": "", "q_value": 0.5, "effect": 0.0}
    return {"levels": [pd.DataFrame([{**base, **r} for r in rows])]}


def test_suggest_moves_a_card_only_on_evidence_and_pools_copies() -> None:
    """A card flagged by the study (BH) moves to its rounded fair points, and so does one
    whose fair points are away from its points (their own test, BH across the cards);
    copies (the same condition and points) move together; the rest keep their points."""
    table = _table([
        {"card": "panda-07", "points": 8.0, "fair_points": 4.4, "fair_points_se": 0.5,
         "fair_points_lo": 3.4, "fair_points_hi": 5.4, "flag": "too strong", "q_value": 0.01,
         "effect": 0.2},
        {"card": "panda-01", "points": 3.0, "fair_points": 3.6, "fair_points_se": 0.6,
         "fair_points_lo": 2.4, "fair_points_hi": 4.8},
        {"card": "panda-02", "points": 3.0, "fair_points": 5.6, "fair_points_se": 0.6,
         "fair_points_lo": 4.4, "fair_points_hi": 6.8, "q_value": 0.2},
        {"card": "panda-04", "points": 3.0, "fair_points": 4.21, "fair_points_se": 0.6,
         "fair_points_lo": 3.03, "fair_points_hi": 5.39, "q_value": 0.3},
        {"card": "panda-13", "points": 6.0, "fair_points": 8.3, "fair_points_se": 0.5,
         "fair_points_lo": 7.3, "fair_points_hi": 9.3, "asks": "eat 1 of each",
         "flag": "too weak", "q_value": 0.02, "effect": -0.1},
        {"card": "panda-14", "points": 6.0, "fair_points": math.nan, "fair_points_se": math.nan,
         "fair_points_lo": math.nan, "fair_points_hi": math.nan, "asks": "eat 1 of each"},
        {"card": "panda-03", "points": 3.0, "fair_points": math.nan, "fair_points_se": math.nan,
         "fair_points_lo": math.nan, "fair_points_hi": math.nan, "priced": False},
        {"card": "panda-05", "points": 3.0, "fair_points": math.nan, "fair_points_se": math.nan,
         "fair_points_lo": math.nan, "fair_points_hi": math.nan, "priced": False,
         "flag": "too strong", "q_value": 0.01},
    ])
    from arena.balance.tune import suggest

    out = suggest(None, 0, table).set_index("card")  # type: ignore[arg-type]
    why = out["why"]
    assert out.loc["panda-07", "suggested"] == 4 and "fair points 4.4" in why["panda-07"]
    assert out.loc["panda-01", "suggested"] == 3 and "not flagged" in why["panda-01"]
    # Not flagged by its effect, but its fair points are 4.3 errors from its points.
    assert out.loc["panda-02", "suggested"] == 6
    assert "fair points away from its points (q = 0.000)" in why["panda-02"]
    # A 95% interval that leaves the points out is not enough: BH across the cards decides
    # (p = 0.044, the 4th smallest of 5: q = 0.055).
    assert out.loc["panda-04", "suggested"] == 3 and "q = 0.05)" in why["panda-04"]
    assert 0.05 < out.loc["panda-04", "q_fair_points"] < 0.06
    assert out.loc["panda-13", "suggested"] == out.loc["panda-14", "suggested"] == 8
    assert out.loc["panda-03", "change"] == 0 and "other prices" in why["panda-03"]
    # Flagged but not played at other prices: not moved (the flag says which way, not how
    # far); the old loop stepped it one point a round.
    assert out.loc["panda-05", "change"] == 0 and "not moved" in why["panda-05"]
    assert not out.loc["panda-05", "movable"] and out.loc["panda-07", "movable"]


def test_suggest_moves_no_further_than_the_prices_played() -> None:
    """A fair point beyond the price arms is an extrapolation of the line: the card moves
    as far as the prices played go (its points -3 or +3 here), and says so."""
    from types import SimpleNamespace

    from arena.balance.tune import suggest

    table = _table([
        {"card": "panda-12", "points": 8.0, "fair_points": 1.2, "fair_points_se": 0.8,
         "fair_points_lo": -0.4, "fair_points_hi": 2.8, "flag": "too strong",
         "q_value": 0.001, "effect": 0.2},
        {"card": "panda-07", "points": 1.0, "fair_points": 3.6, "fair_points_se": 0.5,
         "fair_points_lo": 2.6, "fair_points_hi": 4.6, "flag": "too weak", "q_value": 0.001,
         "effect": -0.2},
    ])
    exp = SimpleNamespace(design={"offsets": [-3, 3]})
    out = suggest(exp, 0, table).set_index("card")  # type: ignore[arg-type]
    assert out.loc["panda-12", "suggested"] == 5
    assert "beyond the prices played (-3, +3)" in out.loc["panda-12", "why"]
    assert out.loc["panda-07", "suggested"] == 4  # 1 + 2.6 rounds to 4, within +3
    assert "beyond" not in out.loc["panda-07", "why"]


def test_suggest_pools_a_cards_fair_points_over_the_rounds() -> None:
    """A card whose fair price is between two whole points (3.6 here, measured at 3 and
    at 4) stays where the pooled estimate rounds, instead of following one round's noise;
    an earlier estimate beyond the prices played is left out of the pool."""
    from types import SimpleNamespace

    from arena.balance.tune import suggest

    now = _table([{"card": "panda-12", "points": 4.0, "fair_points": 3.45,
                   "fair_points_se": 0.4, "fair_points_lo": 2.67, "fair_points_hi": 4.23,
                   "flag": "too strong", "q_value": 0.01, "effect": 0.05}])
    before = [_table([{"card": "panda-12", "points": 3.0, "fair_points": 3.95,
                       "fair_points_se": 0.4, "fair_points_lo": 3.17,
                       "fair_points_hi": 4.73}])["levels"][0],
              _table([{"card": "panda-12", "points": 8.0, "fair_points": 0.8,
                       "fair_points_se": 1.5, "fair_points_lo": -2.1,
                       "fair_points_hi": 3.7}])["levels"][0]]
    exp = SimpleNamespace(design={"offsets": [-3, 3]})
    alone = suggest(exp, 0, now).set_index("card")  # type: ignore[arg-type]
    assert alone.loc["panda-12", "suggested"] == 3
    pooled = suggest(exp, 0, now, earlier=before).set_index("card")  # type: ignore[arg-type]
    assert pooled.loc["panda-12", "suggested"] == 4  # (3.45 + 3.95) / 2 = 3.7
    assert pooled.loc["panda-12", "fair_points"] == pytest.approx(3.7)
    assert "over 2 rounds" in pooled.loc["panda-12", "why"]


def test_tune_writes_its_rounds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop's files: each round's set and study, the rounds' spreads, the chart and the
    final set; a round whose suggestion moves nothing ends it."""
    out, result = study(tmp_path, "--no-report")
    assert result.exit_code == 0, result.output
    from arena.balance import tune as tuning

    real = tuning.suggest
    calls = []

    def once(exp: experiment.Experiment, level: int = 0, analysis: dict | None = None,
             earlier: list | None = None) -> pd.DataFrame:
        table = real(exp, level, analysis, earlier=earlier)
        if not calls:  # the first round moves panda-03 by one point, then nothing moves
            table.loc[table["card"] == "panda-03", "suggested"] += 1
            table["change"] = table["suggested"] - table["points"].astype(int)
        calls.append(1)
        return table

    monkeypatch.setattr(tuning, "suggest", once)
    result = CliRunner().invoke(main, ["balance", "tune", str(out), "--rounds", "3",
                                       "--workers", "1", "--quiet",
                                       "--out", str(tmp_path / "tuned")])
    assert result.exit_code == 0, result.output
    tuned = tmp_path / "tuned"
    assert json.loads((tuned / "round-1.json").read_text())["points"]["panda-03"] == 4
    assert (tuned / "round-1" / "games.jsonl").is_file()
    assert not (tuned / "round-2.json").exists()
    rounds = pd.read_csv(tuned / "rounds.csv")
    assert list(rounds["round"]) == [0, 1] and list(rounds["moved"]) == [0, 1]
    cards = pd.read_csv(tuned / "round-1-cards.csv")
    # The loop may move panda-03 (the one priced card) and its copies (panda-01 to -05 ask
    # the same for the same points: one price line), unless the study found them dead.
    movable = set(cards.loc[cards["movable"], "card"])
    dead = bool(cards.loc[cards["card"] == "panda-03", "dead"].item())
    assert movable == (set() if dead else {f"panda-0{i}" for i in range(1, 6)})
    assert set(rounds["movable"]) == {len(movable)}
    assert (tuned / "spread.png").is_file() and (tuned / "final.json").is_file()
    assert "no card moves" in result.output
    # A round stopped by Ctrl-C is not analysed: one sentence, exit 130, its games kept.
    calls.clear()
    playing = tuning.run_study

    def stopped(config: object, folder: Path, **kw: object) -> object:
        return dataclasses.replace(playing(config, folder, **kw), finished=False, done=1)

    monkeypatch.setattr(tuning, "run_study", stopped)
    result = CliRunner().invoke(main, ["balance", "tune", str(out), "--rounds", "3",
                                       "--workers", "1", "--quiet",
                                       "--out", str(tmp_path / "cut")])
    assert result.exit_code == 130
    assert "interrupted in round 1" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "cut" / "rounds.csv").exists()


def test_a_study_at_a_depth_of_the_deck(tmp_path: Path) -> None:
    """``--depth 0``: the card is the next drawn from its deck; the outcome is the win of
    the seat that drew it, deals where nobody did left out of the blocks."""
    out = tmp_path / "depth"
    result = CliRunner().invoke(main, [
        "balance", "study", "--bot", BOT, "--deals", "12", "--category", "panda", "--depth",
        "0", "--price-cards", "", "--workers", "1", "--quiet", "--no-report", "--seed", "0",
        "--out", str(out)])
    assert result.exit_code == 0, result.output
    records = list(read_records(out))
    assert all(r["intervention"] == [{"card": r["placed"], "depth": 0}] for r in records)
    exp = experiment.load(out)
    drawn = exp.arms.dropna(subset=["y"])
    assert (drawn["seat"] >= 0).all() and len(drawn) > 0
    table = experiment.analyse(exp, replicates=20)["levels"][0]
    assert len(table) == 15 and (table["deals"] <= 12).all()
    assert replay_record(records[0]).ok


def test_suggest_says_extrapolated_beyond_the_prices_measured() -> None:
    """The efficiency method may move a card past its price arms (12 -> 2, arms at 9..15):
    its output and the written set say "extrapolated", and it states what the value evidence
    (the fair-value method `tune` uses) supports for the same card: here, no move."""
    from types import SimpleNamespace

    from arena.balance.tune import card_file, suggest

    table = _table([
        {"card": "panda-07", "points": 12.0, "fair_points": math.nan,
         "fair_points_se": math.nan, "fair_points_lo": math.nan, "fair_points_hi": math.nan,
         "fair_points_games_needed": 7000.0, "flag": "efficient (beyond ±20%)",
         "q_value": 0.07, "effect": 0.36, "efficiency": 5.62, "efficiency_lo": 4.76,
         "efficiency_hi": 6.53},
        {"card": "panda-01", "points": 3.0, "fair_points": math.nan,
         "fair_points_se": math.nan, "fair_points_lo": math.nan, "fair_points_hi": math.nan,
         "priced": False, "efficiency": 1.1, "efficiency_lo": 0.8, "efficiency_hi": 1.4},
    ])
    exp = SimpleNamespace(
        design={"offsets": [-3, 3]}, manifest={},
        catalog=pd.DataFrame({"card": ["panda-07", "panda-01"], "points": [12, 3],
                              "removed": [False, False]}))
    out = suggest(exp, 0, table, method="efficiency").set_index("card")  # type: ignore[arg-type]
    assert out.loc["panda-07", "suggested"] == 2
    why = out.loc["panda-07", "why"]
    assert "extrapolated: 2 is outside the prices its games measured (9 to 15)" in why
    assert "by value (the fair-value method `tune` uses) it would stay at 12" in why
    assert bool(out.loc["panda-07", "extrapolated"])
    assert out.loc["panda-01", "change"] == 0 and "extrapolated" not in out.loc["panda-01", "why"]
    written = card_file(exp, out.reset_index(), "suggested")  # type: ignore[arg-type]
    assert "extrapolated beyond the prices measured: panda-07 12->2" in written["name"]
    # The fair-value method (tune's) on the same evidence keeps the card.
    value = suggest(exp, 0, table).set_index("card")  # type: ignore[arg-type]
    assert value.loc["panda-07", "change"] == 0


def test_a_flagged_card_without_price_arms_is_not_moved() -> None:
    """The flag says which way, not how far: a card flagged too weak with no price arms (nor
    a priced copy) keeps its points round after round (the old loop stepped it one point a
    round, 5→4→3→4), and says why; a copy of a priced card moves with it."""
    from arena.balance.tune import suggest

    table = _table([
        {"card": "panda-10", "points": 5.0, "fair_points": math.nan,
         "fair_points_se": math.nan, "fair_points_lo": math.nan, "fair_points_hi": math.nan,
         "priced": False, "flag": "too strong", "q_value": 0.001, "effect": 0.1,
         "asks": "eat 2 pink"},
        {"card": "panda-06", "points": 4.0, "fair_points": math.nan,
         "fair_points_se": math.nan, "fair_points_lo": math.nan, "fair_points_hi": math.nan,
         "priced": True, "flag": "too weak", "q_value": 0.01, "effect": -0.1,
         "fair_points_games_needed": 900.0},
        {"card": "panda-01", "points": 3.0, "fair_points": 4.6, "fair_points_se": 0.3,
         "fair_points_lo": 4.0, "fair_points_hi": 5.2, "flag": "too weak", "q_value": 0.01,
         "effect": -0.1, "asks": "eat 2 green"},
        {"card": "panda-02", "points": 3.0, "fair_points": math.nan,
         "fair_points_se": math.nan, "fair_points_lo": math.nan, "fair_points_hi": math.nan,
         "priced": False, "asks": "eat 2 green"},
    ])
    out = suggest(None, 0, table).set_index("card")  # type: ignore[arg-type]
    assert out.loc["panda-10", "change"] == 0 and not out.loc["panda-10", "movable"]
    assert "not played at other prices: not moved" in out.loc["panda-10", "why"]
    # Priced, but its fair points not resolved: not moved either, with the games it needs.
    assert out.loc["panda-06", "change"] == 0
    assert "not resolved: not moved (about 900 games needed)" in out.loc["panda-06", "why"]
    # A copy of a measured card shares its price line.
    assert out.loc["panda-01", "suggested"] == out.loc["panda-02", "suggested"] == 5
    assert out.loc["panda-02", "movable"]


def test_a_dead_card_is_never_repriced_and_is_reported_dead() -> None:
    """A card whose value does not respond to its price is not moved, however far its fair
    points or its flag say, in this round or any later one once found dead; its ``why``, the
    set written and ``tune``'s round files say what to change instead."""
    from types import SimpleNamespace

    from arena.balance.tune import DEAD, card_file, suggest

    row = {"card": "gardener-13", "category": "gardener", "points": 8.0, "fair_points": 10.5,
           "fair_points_se": 0.4, "fair_points_lo": 9.7, "fair_points_hi": 11.3,
           "flag": "too weak, dead", "q_value": 0.001, "effect": -0.13, "dead": True,
           "dead_why": "its price barely moves its value (slope 0.003 ± 0.004 per point)"}
    table = _table([row])
    out = suggest(None, 0, table).set_index("card")  # type: ignore[arg-type]
    assert out.loc["gardener-13", "change"] == 0 and out.loc["gardener-13", "dead"]
    assert out.loc["gardener-13", "why"].startswith(DEAD)
    assert "slope 0.003" in out.loc["gardener-13", "why"]
    assert not out.loc["gardener-13", "movable"]
    # Found dead in an earlier round, not (by noise) in this one: still not re-priced.
    now = _table([{**row, "dead": False, "dead_why": "", "flag": "too weak"}])
    later = suggest(None, 0, now, earlier=table["levels"])  # type: ignore[arg-type]
    assert later.loc[0, "change"] == 0 and later.loc[0, "why"].startswith(DEAD)
    exp = SimpleNamespace(manifest={}, catalog=pd.DataFrame(
        {"card": ["gardener-13"], "points": [8], "removed": [False]}))
    written = card_file(exp, out.reset_index(), "suggested")  # type: ignore[arg-type]
    assert f"{DEAD}: gardener-13" in written["name"]
    assert written["points"]["gardener-13"] == 8


def test_the_study_calls_a_card_dead_when_its_price_or_completion_does_not_move() -> None:
    """``reports.experiment._dead``: a priced card whose slope is far below the other priced
    cards', or a card completed far less often than the rest of its category on the same
    deals, is dead (BH); a card like the others is not, and nor is a card alone in being
    priced (no reference to compare its slope with)."""
    import numpy as np

    rng = np.random.default_rng(1)
    n = 60
    done = (rng.random((n, 4)) < 0.9).astype(float)
    done[:, 3] = (rng.random(n) < 0.05).astype(float)  # gardener-04: rarely completed
    b = experiment.Block(0, "gardener", ["gardener-01", "gardener-02", "gardener-03",
                                         "gardener-04"], np.full(4, 4.0), np.arange(n),
                         np.zeros((n, 4)), np.zeros((n, 4)), np.zeros((n, 4)), done, {}, {}, 0)
    table = pd.DataFrame({
        "card": b.cards, "category": "gardener", "deals": n, "priced": True,
        "slope": [0.04, 0.045, 0.003, 0.05], "slope_se": [0.004, 0.004, 0.004, 0.004],
        "held_completion": done.mean(axis=0), "flag": ["", "", "too weak", ""]})
    experiment._dead(table, [b])
    assert list(table["dead"]) == [False, False, True, True]
    assert "slope 0.003" in table.loc[2, "dead_why"] and table.loc[2, "flag"] == "too weak, dead"
    assert "completed" in table.loc[3, "dead_why"]
    alone = table.assign(priced=[False, False, True, False])
    experiment._dead(alone, [])
    assert not alone["dead"].any()


def test_the_spread_and_the_stop_rule_cover_every_movable_card() -> None:
    """The round's spread is over the cards the loop may move (a dead card far from its
    fair points is not one), with their count; the stop rule compares two rounds over the
    movable cards resolved in both, so a card resolved in one round only (here B, far off)
    does not stop a loop whose cards all came closer."""
    from arena.balance.tune import _no_longer_shrinks, _round_row

    def level(rows: list[tuple[str, float, float]]) -> pd.DataFrame:
        return pd.DataFrame([{"card": c, "points": 4.0, "fair_points": fp,
                              "fair_points_se": se} for c, fp, se in rows])

    before = level([("A", 6.0, 0.1), ("B", math.nan, math.nan), ("D", 9.0, 0.1)])
    now = level([("A", 4.2, 0.1), ("B", 7.0, 0.1), ("D", 9.0, 0.1)])
    row = _round_row(1, Path("r"), {"levels": [now]}, 0, moved=1, movable={"A", "B", "C"})
    assert row["movable"] == 3 and row["cards"] == 2  # C unresolved, D (dead) left out
    assert row["spread"] == pytest.approx(math.sqrt((0.2**2 + 3**2) / 2 - 0.01), abs=1e-6)
    assert not _no_longer_shrinks(before, now, {"A", "B"})
    worse = level([("A", 6.5, 0.1), ("B", 4.0, 0.1), ("D", 4.0, 0.1)])
    assert _no_longer_shrinks(before, worse, {"A", "B"})


def test_copies_are_flagged_together_and_their_efficiency_pooled(tmp_path: Path) -> None:
    """Issue 52: in a printed-set study only panda-04 was flagged inefficient while its
    identical twins (eat 2 green, 3 points) had intervals entirely below the margin and no
    flag; the pooled-copies table had no efficiency.  Copies are one unit for the flags."""
    out, result = study(tmp_path)
    assert result.exit_code == 0, result.output
    cards = pd.read_csv(out / "report" / "study_cards.csv").fillna({"flag": "", "copies": ""})
    copies = pd.read_csv(out / "report" / "study_copies.csv")
    for col in ("efficiency", "efficiency_lo", "efficiency_hi", "q_efficiency", "flag"):
        assert col in copies, col
    twins = cards[cards["copies"].str.contains("panda-01")]
    assert set(twins["card"]) == {f"panda-0{i}" for i in range(1, 6)}
    for _, group in cards[cards["copies"] != ""].groupby("copies"):
        assert group["flag"].nunique() == 1 and group["q_efficiency"].nunique() == 1
    green = copies[copies["asks"] == "eat 2 green"].iloc[0]
    assert 0 < green["efficiency_lo"] <= green["efficiency"] <= green["efficiency_hi"]


def _twins(flags: dict[str, str]) -> dict:
    return _table([{"card": f"panda-0{i}", "points": 3.0, "asks": "eat 2 green",
                    "fair_points": math.nan, "fair_points_se": math.nan,
                    "fair_points_lo": math.nan, "fair_points_hi": math.nan, "priced": False,
                    "efficiency": 0.55, "efficiency_lo": 0.45, "efficiency_hi": 0.7,
                    "efficiency_games_needed": math.nan, "flag": flags.get(f"panda-0{i}", "")}
                   for i in range(1, 6)])


def test_suggest_by_efficiency_moves_only_cards_the_evidence_names() -> None:
    """Issue 52: with panda-04 alone flagged, `suggest --method efficiency` doubled all five
    copies from 3 to 6, each line saying its value evidence kept it at 3.  A group moves
    only when its flag names every copy (the study flags copies together), and a figure the
    deals do not carry says "not enough deals"."""
    from arena.balance.tune import suggest

    one = suggest(None, 0, _twins({"panda-04": "inefficient (beyond ±20%)"}),  # type: ignore[arg-type]
                  method="efficiency")
    assert (one["change"] == 0).all(), one[["card", "suggested"]]
    every = suggest(None, 0, _twins({f"panda-0{i}": "inefficient (beyond ±20%)"  # type: ignore[arg-type]
                                     for i in range(1, 6)}), method="efficiency")
    assert (every["suggested"] == 5).all()
    assert all("parity of effort only" in w and "keeps it at" not in w for w in every["why"])
    thin = _twins({})
    thin["levels"][0]["efficiency"] = math.nan
    thin["levels"][0]["efficiency_games_needed"] = 170.0
    why = suggest(None, 0, thin, method="efficiency")["why"]  # type: ignore[arg-type]
    assert all(w.startswith("not enough deals") and "170 games" in w for w in why)


def test_tune_says_which_flagged_cards_it_cannot_move_and_why() -> None:
    """Issue 52: `balance tune --rounds 1` said "no card moves; the set is as balanced as
    the study can tell" while panda-07 had an effect of +0.268 [0.090, 0.446]."""
    from arena.balance.tune import _unresolved, suggest

    analysis = _table([
        {"card": "panda-07", "points": 12.0, "fair_points": math.nan,
         "fair_points_se": math.nan, "fair_points_lo": math.nan, "fair_points_hi": math.nan,
         "flag": "too strong", "q_value": 0.001, "effect": 0.268, "effect_lo": 0.090,
         "effect_hi": 0.446, "fair_points_games_needed": 1275.0},
        {"card": "panda-08", "points": 4.0, "fair_points": math.nan,
         "fair_points_se": math.nan, "fair_points_lo": math.nan, "fair_points_hi": math.nan,
         "priced": False, "effect": -0.01, "effect_lo": -0.1, "effect_hi": 0.08}])
    table = suggest(None, 0, analysis)  # type: ignore[arg-type]
    assert (table["change"] == 0).all()
    lines = _unresolved(table, analysis["levels"][0])
    assert len(lines) == 1 and lines[0].startswith("panda-07 is too strong (effect +0.268")
    assert "not enough deals" in lines[0] and "1,275 games" in lines[0]
