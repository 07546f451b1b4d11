"""Neighbouring skill levels (issue 51, item 5): the per-card change of effect between
levels next to each other, and whether the category's prices converge as skill grows
(``reports/experiment.py``: ``neighbour_table``, ``convergence_table``).

Checked by simulation on synthetic blocks whose truth is known (independent games around
set win chances, a deal effect shared by a deal's games at every level; no game is
played), each over a few hundred simulated studies, with tolerances of about 3 binomial
standard errors of that many repetitions: an A/A null flags at most about the false
discovery rate, a planted change between two neighbours is found at least at the power the
report states, a planted convergence is said and a null one is not.  Then one small study
of two levels played end to end, for the report's section and files.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats as sps

from arena.cli import main
from reports.balance import bh
from reports.experiment import (
    FDR,
    POWER_Z,
    Block,
    convergence_lines,
    convergence_table,
    deals_for,
    neighbour_table,
)

LEVELS = ("low", "mid", "high")


def levels_blocks(rng: np.random.Generator, effects: list[np.ndarray], n: int,
                  holders: int = 2) -> list[Block]:
    """One block series per level on the same ``n`` deals: each card held ``holders``
    times per deal, win chance 0.5 + the level's effect of the card + the deal's luck."""
    m = len(effects[0])
    deal = rng.normal(0, 0.05, size=(n, 1))
    out = []
    for level, eff in enumerate(effects):
        p = np.clip(0.5 + eff[None, :] + deal, 0.02, 0.98)
        y = rng.binomial(holders, np.broadcast_to(p, (n, m))) / holders
        out.append(Block(level, "panda", [f"c{j}" for j in range(m)], np.full(m, 4.0),
                         np.arange(n), y, y * 4.0, np.full((n, m), 6.0), y, {}, {}, 0))
    return out


def test_a_null_flags_at_most_the_false_discovery_rate() -> None:
    """Effects the same at every level (and not 0): in at most about FDR of the studies is
    any (card, pair) flagged, which BH's control of the false discovery rate means under a
    complete null; the p-values themselves are uniform."""
    rng = np.random.default_rng(11)
    m, n, studies = 15, 30, 300
    effects = np.linspace(-0.1, 0.1, m)
    any_flag, small = 0, 0
    for _ in range(studies):
        t = neighbour_table(LEVELS, levels_blocks(rng, [effects] * 3, n))
        assert len(t) == m * 2 and set(t["from"] + ">" + t["to"]) == {"low>mid", "mid>high"}
        any_flag += int((t["flag"] != "").any())
        small += int((t["p_change"] <= 0.05).sum())
    assert any_flag / studies <= FDR + 3 * math.sqrt(FDR * (1 - FDR) / studies), any_flag
    # Per test, the paired t test holds its level (the tests are not independent, so the
    # tolerance counts studies, not tests).
    rate = small / (studies * m * 2)
    assert abs(rate - 0.05) < 3 * math.sqrt(0.05 * 0.95 / studies), rate


def test_a_planted_change_between_two_neighbours_is_found_at_the_stated_power() -> None:
    """One card stronger by the smallest change the report's sizes promise at the
    Bonferroni bound (80% power; BH rejects at least whatever Bonferroni does) between the
    middle and the top level: found, in the right pair and direction, in at least about
    80% of the studies; nothing flagged between the two lower levels beyond the rate."""
    rng = np.random.default_rng(12)
    m, n, studies, holders = 15, 120, 200, 2
    tests = m * 2
    # The per-deal difference of two contrasts at win chance 1/2: the card's variance and
    # the others' mean's, at two levels.
    sd = math.sqrt(2 * 0.25 / holders * m / (m - 1))
    delta = (sps.t.isf(0.025 / tests, n - 1) + POWER_Z) * sd / math.sqrt(n)
    base = np.zeros(m)
    top = base.copy()
    top[0] = delta
    found, wrong = 0, 0
    for _ in range(studies):
        t = neighbour_table(LEVELS, levels_blocks(rng, [base, base, top], n, holders))
        hit = t[(t["card"] == "c0") & (t["from"] == "mid")]
        found += int(hit["flag"].iloc[0] == "stronger at high")
        wrong += int((t.loc[t["from"] == "low", "flag"] != "").any())
    assert found / studies >= 0.8 - 3 * math.sqrt(0.8 * 0.2 / studies), found
    assert wrong / studies <= FDR + 3 * math.sqrt(FDR * (1 - FDR) / studies), wrong


def test_copies_are_one_card_between_neighbours() -> None:
    """Copies of one card (``copies``) are tested together: a change planted on a group of
    three is flagged on each copy, in the right direction, with one q; the group counts
    once in Benjamini–Hochberg, so the family is the units, not the cards."""
    rng = np.random.default_rng(15)
    m, n = 9, 200
    base = np.zeros(m)
    later = base.copy()
    later[:3] = -0.15
    t = neighbour_table(LEVELS[:2], levels_blocks(rng, [base, later], n),
                        copies=[["c0", "c1", "c2"]])
    group = t[t["copies"] == "c0, c1, c2"]
    assert len(group) == 3 and set(group["flag"]) == {"weaker at mid"}
    assert group["q_change"].nunique() == 1
    assert group["pooled_change"].iloc[0] == pytest.approx(group["change"].mean())
    alone = t[t["copies"] == ""]
    assert len(alone) == 6 and np.allclose(alone["pooled_change"], alone["change"])
    units = t.assign(unit=t["copies"].where(t["copies"] != "", t["card"]))
    units = units.drop_duplicates("unit")
    assert len(units) == 7  # the group and the six cards alone
    assert np.allclose(units["q_change"], bh(units["p_pooled"].to_numpy()))


def test_a_planted_convergence_is_said_and_a_null_one_is_not() -> None:
    """Prices that converge (the effects halved from one level to the next) are said to in
    most studies, with the verdict in the sentence; prices as mispriced at every level are
    said to converge or diverge in at most about 5% of them (the two-sided 95% interval)."""
    rng = np.random.default_rng(13)
    m, n, studies = 15, 60, 200
    effects = np.linspace(-0.15, 0.15, m)
    said_null, said_planted = 0, 0
    for s in range(studies):
        null = convergence_table(LEVELS[:2], levels_blocks(rng, [effects] * 2, n),
                                 replicates=200, seed=s)
        said_null += int(null["resolved"].eq(True).any())
        if not null["resolved"].eq(True).any():
            assert convergence_lines(null)[0].startswith(
                "panda: no change resolved between neighbours; these 60 deals find")
        planted = convergence_table(LEVELS[:2], levels_blocks(rng, [effects, effects / 4],
                                                              n), replicates=200, seed=s)
        converged = planted.iloc[1]["verdict"] == "converge"
        said_planted += int(converged)
        line = convergence_lines(planted)[0]
        assert ("prices converge from low to mid" in line) == converged, line
    assert said_null / studies <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / studies), said_null
    assert said_planted / studies >= 0.8, said_planted


def test_the_deals_said_to_resolve_a_change_do() -> None:
    """"About N deals would resolve a difference of D": N from a small study's error (the
    median over studies, for the true D), then studies of N deals with that change resolve
    it in at least about 80% of them (the projection is meant as an upper estimate)."""
    rng = np.random.default_rng(14)
    m, studies = 15, 150
    effects = np.linspace(-0.15, 0.15, m)
    later = effects * 0.6
    truth = (np.sqrt(np.mean((later * m / (m - 1)) ** 2))
             - np.sqrt(np.mean((effects * m / (m - 1)) ** 2)))
    pilot = [convergence_table(LEVELS[:2], levels_blocks(rng, [effects, later], 30),
                               replicates=200, seed=s).iloc[1] for s in range(60)]
    need = math.ceil(np.median([deals_for(abs(truth), r["change_se"], 30)
                                for r in pilot]))
    assert 30 < need < 400, need
    found = sum(convergence_table(LEVELS[:2], levels_blocks(rng, [effects, later], need),
                                  replicates=200, seed=s).iloc[1]["verdict"] == "converge"
                for s in range(studies))
    assert found / studies >= 0.8 - 3 * math.sqrt(0.8 * 0.2 / studies), (need, found)


def test_a_study_of_two_levels_reports_its_neighbours_and_convergence(tmp_path: Path
                                                                      ) -> None:
    """A small study of two levels played end to end: the neighbour table's change is the
    difference of the skill table's effects, its q the BH of its p, the convergence table's
    uncorrected spread the cards' effects' root mean square, and the report says both."""
    out = tmp_path / "study"
    result = CliRunner().invoke(main, [
        "balance", "study", "--bot", "random:complete=true", "--bot", "random:name=r2",
        "--deals", "10", "--category", "panda", "--price-cards", "", "--workers", "1",
        "--quiet", "--seed", "0", "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = out / "report"
    near = pd.read_csv(report / "study_skill_neighbours.csv")
    skill = pd.read_csv(report / "study_skill.csv").set_index("card")
    assert len(near) == 15 and set(near["from"]) == {"random:complete=true"}
    assert set(near["to"]) == {"r2"} and (near["deals"] == 10).all()
    want = (skill["effect[r2]"] - skill["effect[random:complete=true]"])[near["card"]]
    assert np.allclose(near["change"], want.to_numpy())
    # Panda's copies (four groups) are tested together: one q and flag a group, on the
    # mean of its copies' changes, Benjamini–Hochberg across the four groups.
    groups = near.groupby("copies")
    assert groups.ngroups == 4 and (near["copies"] != "").all()
    assert (groups["q_change"].nunique() == 1).all()
    assert (groups["flag"].nunique(dropna=False) == 1).all()
    assert np.allclose(groups["change"].mean(), groups["pooled_change"].first())
    units = near.drop_duplicates("copies")
    assert np.allclose(units["q_change"], bh(units["p_pooled"].to_numpy()))
    conv = pd.read_csv(report / "study_convergence.csv")
    cards = pd.read_csv(report / "study_cards.csv")
    assert list(conv["level"]) == ["random:complete=true", "r2"]
    for _, r in conv.iterrows():
        effects = cards.loc[cards["level"] == r["level"], "effect"]
        assert r["spread_raw"] == pytest.approx(math.sqrt((effects ** 2).mean()))
        assert r["spread"] <= r["spread_raw"] and r["spread_lo"] <= r["spread"] <= r[
            "spread_hi"]
    assert conv["change"].iloc[1] == pytest.approx(conv["spread"].iloc[1]
                                                   - conv["spread"].iloc[0])
    md = (report / "report.md").read_text()
    assert "**Change of effect between neighbouring levels**" in md
    assert "- Better players, panda: " in md.split("\n\n")[2]
    assert "- Neighbouring levels: " in md and "- Do prices converge as skill grows?" in md
