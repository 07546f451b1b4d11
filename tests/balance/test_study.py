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
from arena.replay import read_records, replay_record
from arena.segments import iter_lines
from reports import experiment

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
    assert md.split("\n\n")[2].startswith("- Strongest evidence: ")
    assert "## 1. Overview" in md and "Standings" not in md and "Objective-card" not in md
    assert not (report / "standings.csv").exists() and not (report / "cards.csv").exists()
    watch = pd.read_csv(report / "games_to_watch.csv")
    assert not watch["why"].str.contains("upset|flagged:").any()
    assert watch["why"].str.contains(r"\(study: ").any()
    assert (report / "summary.txt").read_text().startswith("Strongest evidence: ")
    records = list(read_records(out))
    assert len(records) == 10 * (15 + 2)
    for record in records[:20]:
        assert replay_record(record).ok


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
    whole = sorted(raw.decode() for _, raw in iter_lines(out))
    # The first 100 games left, as one games.jsonl (the compact segments removed).
    shutil.rmtree(out / "games", ignore_errors=True)
    games.write_text("\n".join(whole[:100]) + "\n")
    again = CliRunner().invoke(main, ["balance", "study", "--resume", str(out), "--quiet",
                                      "--workers", "1", "--no-report"])
    assert again.exit_code == 0, again.output
    strip = [{k: v for k, v in json.loads(x).items() if k not in ("seconds", "mac")} for x in whole]
    now = [{k: v for k, v in json.loads(x).items() if k not in ("seconds", "mac")}
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
    assert "keeps it at 12" in why
    assert bool(out.loc["panda-07", "extrapolated"])
    assert out.loc["panda-01", "change"] == 0 and "extrapolated" not in out.loc["panda-01", "why"]
    written = card_file(exp, out.reset_index(), "suggested")  # type: ignore[arg-type]
    assert "extrapolated beyond the prices measured: panda-07 12->2" in written["name"]
    # The fair-value method (tune's) on the same evidence keeps the card.
    value = suggest(exp, 0, table).set_index("card")  # type: ignore[arg-type]
    assert value.loc["panda-07", "change"] == 0
