"""The report's tables on hand-made games whose figures are worked out in the comments."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import reports
from tests.reports.report_helpers import card, duel, kept, record, write_run

Z = 1.959963984540054


def wilson(x: float, n: float) -> tuple[float, float]:
    """Wilson interval written out again, independently of reports.stats."""
    p = x / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return centre - half, centre + half


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> reports.Tables:
    return reports.load(duel(tmp_path_factory.mktemp("duel")))


def row(frame: pd.DataFrame, **where: object) -> pd.Series:
    mask = np.ones(len(frame), dtype=bool)
    for key, value in where.items():
        mask &= (frame[key] == value).to_numpy()
    assert mask.sum() == 1, f"{where} matches {mask.sum()} rows"
    return frame[mask].iloc[0]


def test_load_shapes(tables: reports.Tables) -> None:
    assert len(tables.games) == 8
    assert len(tables.seats) == 16
    assert len(tables.cards) == 6
    assert tables.participants == ["A", "B"]
    assert tables.manifest["seed"] == 7
    assert kept(tables.warnings) == []


def test_standings(tables: reports.Tables) -> None:
    st = reports.standings(tables, reports.ratings(tables, replicates=200)["ratings"])
    a, b = row(st, participant="A"), row(st, participant="B")
    # A: outright wins in d0 (2), d1r0 and d2r1 (panda) = 4, one shared win, 3 losses.
    assert (a["games"], a["wins"], a["shared_wins"], a["losses"]) == (8, 4, 1, 3)
    assert a["win_share"] == 4.5
    assert a["win_rate"] == 4.5 / 8
    assert (a["win_rate_lo"], a["win_rate_hi"]) == pytest.approx(wilson(4.5, 8), abs=1e-9)
    assert (a["win_rate_lo"], a["win_rate_hi"]) == pytest.approx((0.258948, 0.825501),
                                                                 abs=1e-5)
    assert (b["wins"], b["shared_wins"], b["losses"], b["win_share"]) == (3, 1, 4, 3.5)
    # A's scores: 20, 18, 25, 21, 16, 17, 9, 11 -> mean 137/8.
    assert a["score_mean"] == pytest.approx(137 / 8)
    # The stronger first: A scored 4.5/8 against B.
    assert list(st["participant"]) == ["A", "B"]
    assert a["errors"] == 0 and a["capped"] == 0


def test_ratings_and_los(tables: reports.Tables) -> None:
    # Four deals: too few for a rating by default ("not enough games: about 20 needed").
    few = reports.ratings(tables, replicates=50)["ratings"].set_index("participant")
    assert few["elo"].isna().all() and (few["elo_games_needed"] == 20).all()
    r = reports.ratings(tables, replicates=300, min_deals=1)
    ratings = r["ratings"].set_index("participant")
    # Elo gap of a 0.5625 score: -400 log10(1/0.5625 - 1) = 43.66, split around 0.
    gap = -400 * math.log10(1 / 0.5625 - 1)
    assert ratings.loc["A", "elo"] - ratings.loc["B", "elo"] == pytest.approx(gap, abs=0.1)
    assert ratings.loc["A", "elo_lo"] < ratings.loc["A", "elo"] < ratings.loc["A", "elo_hi"]
    pair = r["pairs"].iloc[0]
    # Decisive games: A won 4, B won 3 (the shared win is level): LOS = Phi(1/sqrt(7)).
    assert (pair["wins"], pair["losses"], pair["level"]) == (4, 3, 1)
    # Phi(0.377964) = 0.647272 (normal table).
    assert pair["los"] == pytest.approx(0.647272, abs=1e-6)
    los = r["los"].set_index("participant")
    assert los.loc["B", "A"] == pytest.approx(1 - 0.647272, abs=1e-6)


def test_head_to_head(tables: reports.Tables) -> None:
    h = reports.head_to_head(tables)
    matrix = h["matrix"].set_index("participant")
    assert matrix.loc["A", "B"] == 4.5 / 8
    assert matrix.loc["B", "A"] == 3.5 / 8
    pair = row(h["pairs"], row="B", column="A")
    assert (pair["rate_lo"], pair["rate_hi"]) == pytest.approx(wilson(3.5, 8), abs=1e-9)


def test_paired_pentanomial_counts(tables: reports.Tables) -> None:
    p = reports.paired(tables)
    assert len(p) == 1
    a = p.iloc[0]
    assert a["participant"] == "A" and a["deals"] == 4 and a["incomplete_deals"] == 0
    # A's deal scores 2, 1, 1.5, 0.
    assert [a[c] for c in ("0", "0.5", "1", "1.5", "2")] == [1, 0, 1, 1, 1]
    # Deal means 1, .5, .75, 0: sample variance 0.546875/3; per deal-mean of 4 deals:
    # 0.0455729.  Games 1,1,1,0,.5,1,0,0: variance 1.71875/7, over 8 games: 0.0306920.
    assert a["se_paired"] ** 2 == pytest.approx(0.546875 / 3 / 4)
    assert a["se_unpaired"] ** 2 == pytest.approx(1.71875 / 7 / 8)
    assert a["variance_ratio"] == pytest.approx((1.71875 / 56) / (0.546875 / 12))
    assert a["score"] == 0.5625
    assert a["score_lo"] == pytest.approx(0.5625 - Z * math.sqrt(0.546875 / 12))


def test_paired_incomplete_deal_is_reported_not_counted(tmp_path: Path) -> None:
    games = [
        record(0, 0, 0, ["A", "B"], [10, 5], [0]),
        record(0, 0, 1, ["B", "A"], [10, 5], [0]),
        record(0, 1, 0, ["A", "B"], [10, 5], [0]),  # rotation 1 of deal 1 is missing
    ]
    t = reports.load(write_run(tmp_path, games, ["A", "B"]))
    a = reports.paired(t).iloc[0]
    assert (a["deals"], a["incomplete_deals"], a["games"]) == (1, 1, 2)
    assert a["1"] == 1  # one win, one loss


def test_tiebreaks(tables: reports.Tables) -> None:
    tb = reports.tiebreaks(tables)
    s = tb["summary"].iloc[0]
    assert (s["games"], s["tied"], s["panda"], s["shared"], s["inconsistent"]) == (8, 2, 1, 1, 0)
    assert (s["tied_rate_lo"], s["tied_rate_hi"]) == pytest.approx(wilson(2, 8), abs=1e-9)
    parts = tb["participants"].set_index("participant")
    assert parts.loc["A"].tolist() == [2, 1, 0, 1, 1]  # ties, tb wins, tb losses, shared, net
    assert parts.loc["B"].tolist() == [2, 0, 1, 1, -1]
    # Margins: 5, 6, 15, 1, 0, 0, 21, 8 -> two 0s, one each of 1, 5, 6, 8, three in 10+.
    margins = tb["margins"].set_index("margin")["games_2p"]
    assert margins["0"] == 2 and margins["1"] == 1 and margins["10+"] == 2
    assert margins.sum() == 8
    assert s["margin_median"] == 5.5


def test_seat_advantage(tables: reports.Tables) -> None:
    sa = reports.seat_advantage(tables)
    seats = sa["seats"].set_index("seat")
    # Seat 0 won d0r0, d1r0, d1r1, d3r1 and half of d2r0: 4.5; seat 1 the other 3.5.
    assert seats.loc[0, "wins"] == 4.5 and seats.loc[1, "wins"] == 3.5
    assert seats.loc[0, "outright"] == 4
    test = sa["tests"].iloc[0]
    assert test["chi2"] == pytest.approx(0.125)
    assert test["p_value"] == pytest.approx(0.72367, abs=1e-5)
    assert "no evidence" in test["verdict"]


def test_card_balance_counts(tables: reports.Tables) -> None:
    # Four draws: too few for the bootstrap figures by default (the games they would need).
    few = reports.card_balance(tables, replicates=50)["cards"].set_index("card")
    assert math.isnan(few.loc["plot-01", "turns_held"])
    assert few.loc["plot-01", "turns_held_games_needed"] == 8 * 10 / 4
    cb = reports.card_balance(tables, replicates=200, min_drawn=1)
    cards = cb["cards"].set_index("card")
    plot = cards.loc["plot-01"]
    assert (plot["drawn"], plot["completed"]) == (4, 3)
    assert plot["completion_rate"] == 0.75
    assert plot["in_hand_at_end"] == 0.25
    # Draws of one deal are correlated, so the interval is at least Wilson's on 4 draws.
    lo, hi = wilson(3, 4)
    assert plot["completion_rate_lo"] <= lo + 1e-9 and plot["completion_rate_hi"] >= hi - 1e-9
    # Turns held from draw to completion: 5 - 0, 5 - 2, 8 - 1 -> mean 5, inside its interval.
    assert plot["turns_held"] == 5.0
    assert plot["turns_held_lo"] <= 5.0 <= plot["turns_held_hi"]
    # Points per turn held: 3 completions of 2 points over 5 + 3 + 7 turns and the missed
    # draw's turns to the end of its game.
    assert plot["points_per_turn"] > 0
    assert plot["dealt_win_rate"] == 1.0
    panda = cards.loc["panda-01"]
    assert (panda["drawn"], panda["completed"]) == (2, 0)
    assert panda["dealt_win_rate"] == 0.0
    assert math.isnan(panda["turns_held"])
    assert cards.loc["gardener-07", "drawn"] == 0  # every card of the game is listed
    assert len(cards) == 45
    # Too few completions for a fair value: no estimate rather than noise.
    assert cards["fair_value"].isna().all()
    assert not cards["flag"].str.contains("worth").any()


def test_game_shape(tables: reports.Tables) -> None:
    gs = reports.game_shape(tables)
    s = gs["summary"].iloc[0]
    assert (s["games"], s["errors"], s["capped"]) == (8, 0, 0)
    assert s["rounds_mean"] == pytest.approx((6 * 20 + 31 + 27) / 8)
    # The Emperor's holder won 7 games outright and shared one: 7.5 / 8.
    assert s["emperor_won"] == 7.5 / 8
    weather = gs["weather"].set_index("face")
    assert weather.loc["sun", "rolls"] == 8
    assert weather["share"].sum() == pytest.approx(1.0)
    actions = gs["actions"].set_index("participant")
    assert actions.loc["A", "plot_per_game"] == 1.0
    assert actions.loc["A", "plot_share"] == pytest.approx(0.2)


def test_summary_text(tables: reports.Tables) -> None:
    text = reports.summary_text(tables)
    lines = text.splitlines()
    # Percentages, as the tournament's standings print them (56.2%, not 0.562).
    assert lines[1].startswith("A") and "56.2%" in lines[1]
    assert lines[2].startswith("B") and "43.8%" in lines[2]


def test_error_games_count_for_the_faulty_seat_only_where_documented(tmp_path: Path) -> None:
    games = [
        record(0, 0, 0, ["A", "B"], [10, 5], [0], cards=[card("plot-01", 0, 0, 3)]),
        record(0, 0, 1, ["B", "A"], [10, 5], [0], cards=[card("plot-01", 1, 0, 3)]),
        # B crashed while ahead on points: A wins, as the runner recorded.
        record(0, 1, 0, ["A", "B"], [4, 12], [0], emperor=None, rounds=6,
               error={"seat": 1, "kind": "crash", "message": "ZeroDivisionError"},
               cards=[card("plot-01", 1, 0, 2)]),
    ]
    t = reports.load(write_run(tmp_path, games, ["A", "B"]))
    st = reports.standings(t, reports.ratings(t, replicates=50)["ratings"]).set_index(
        "participant")
    assert st.loc["B", "errors"] == 1 and st.loc["A", "errors"] == 0
    assert st.loc["A", "games"] == 3 and st.loc["A", "win_share"] == 2.0
    # The faulty seat finishes last although it had the higher score.
    assert reports.head_to_head(t)["matrix"].set_index("participant").loc["A", "B"] == 2 / 3
    # Left out of the game tables: seat advantage and cards see 2 games.
    sa = reports.seat_advantage(t)["seats"]
    assert sa["games"].tolist() == [2, 2]
    plot = reports.card_balance(t)["cards"].set_index("card").loc["plot-01"]
    assert (plot["drawn"], plot["completed"]) == (2, 2)
    shape = reports.game_shape(t)
    assert shape["summary"].iloc[0]["errors"] == 1
    errors = shape["errors"]
    assert errors.iloc[0]["participant"] == "B" and errors.iloc[0]["kind"] == "crash"
    assert reports.tiebreaks(t)["summary"].iloc[0]["errors_left_out"] == 1


def test_capped_games_are_kept_and_counted(tmp_path: Path) -> None:
    games = [
        record(0, 0, 0, ["A", "B"], [10, 5], [0]),
        record(0, 0, 1, ["B", "A"], [3, 8], [1], capped=True, emperor=None, rounds=60),
    ]
    t = reports.load(write_run(tmp_path, games, ["A", "B"]))
    st = reports.standings(t, reports.ratings(t, replicates=50)["ratings"]).set_index(
        "participant")
    assert st.loc["A", "capped"] == 1 and st.loc["A", "win_share"] == 2.0
    s = reports.game_shape(t)["summary"].iloc[0]
    assert (s["capped"], s["capped_rate"]) == (1, 0.5)
    rounds = reports.game_shape(t)["rounds"].set_index("rounds")
    assert rounds.loc[60, "capped"] == 1


def test_three_player_ranks_and_openskill(tmp_path: Path) -> None:
    # Seats A, B, C; B wins, A and C tie on points, C ahead on panda points.
    games = [record(0, 0, 0, ["A", "B", "C"], [10, 20, 10], [1], panda=[0, 0, 4])]
    t = reports.load(write_run(tmp_path, games, ["A", "B", "C"], players=3))
    assert t.seats["rank"].tolist() == [3, 1, 2]
    h = reports.head_to_head(t)["matrix"].set_index("participant")
    assert (h.loc["C", "A"], h.loc["B", "C"], h.loc["A", "B"]) == (1.0, 1.0, 0.0)
    r = reports.ratings(t, replicates=20)["ratings"].set_index("participant")
    assert r.loc["B", "mu"] > r.loc["C", "mu"] > r.loc["A", "mu"]
    assert "ordinal" in r.columns


def test_fair_value_flags_a_card_worth_more_than_printed(tmp_path: Path) -> None:
    """Games where panda-01 (printed 3) decides like 9 points: it must be flagged."""
    rng = random.Random(11)
    pool = [("plot-01", 2), ("plot-03", 4), ("gardener-02", 4), ("gardener-08", 6),
            ("panda-01", 3), ("panda-06", 4)]
    games = []
    for deal in range(700):
        done = [[c for c in pool if rng.random() < 0.5] for _ in range(2)]
        value = [sum(9 if name == "panda-01" else pts for name, pts in d) + rng.gauss(0, 2)
                 for d in done]
        winner = 0 if value[0] > value[1] else 1
        cards = [card(name, seat, 0, 5) for seat in range(2) for name, _ in done[seat]]
        cards += [card(name, seat, 0, None) for seat in range(2) for name, _ in pool
                  if (name, _) not in done[seat]]
        scores = [sum(p for _, p in d) for d in done]
        games.append(record(0, deal, 0, ["A", "B"], scores, [winner], emperor=None,
                            cards=cards))
    t = reports.load(write_run(tmp_path, games, ["A", "B"]))
    cards = reports.card_balance(t)["cards"].set_index("card")
    assert "worth more" in cards.loc["panda-01", "flag"]
    assert cards.loc["panda-01", "fair_value_lo"] > 3
    # The other cards decide by their printed points; their intervals should hold them.
    others = cards.loc[[n for n, _ in pool if n != "panda-01"]]
    assert (others["fair_value_lo"] < others["points"] * 1.6).all()
    assert cards.loc["plot-07", "fair_value"] != cards.loc["plot-07", "fair_value"]  # NaN


def test_a_participant_holding_two_seats(tmp_path: Path) -> None:
    """2 participants, 4 seats (allowed by the runner): results count per seat, as it does."""
    seats = [["A", "B", "A", "B"], ["B", "A", "B", "A"], ["A", "B", "A", "B"],
             ["B", "A", "B", "A"]]
    # Rotation 0: seat 0 (A) wins; 1: seat 1 (A); 2: seat 0 (A) and seat 1 (B) share;
    # 3: seat 2 (B).  A's shares: 1, 1, 0.5, 0 over 8 seats.
    winners = [[0], [1], [0, 1], [2]]
    games = [record(0, 0, r, seats[r], [10, 9, 8, 7], winners[r],
                    tiebreak="shared" if r == 2 else "none") for r in range(4)]
    t = reports.load(write_run(tmp_path, games, ["A", "B"], players=4))
    st = reports.standings(t, reports.ratings(t, replicates=20)["ratings"]).set_index(
        "participant")
    assert (st.loc["A", "games"], st.loc["A", "win_share"]) == (8, 2.5)
    p = reports.paired(t).set_index("participant")
    assert p.loc["A", "deals"] == 1 and p.loc["A", "games"] == 4
    assert p.loc["A", "score"] == 2.5 / 8
    assert p.loc["A", "2.5"] == 1  # the deal's score: 1 + 1 + 0.5 + 0
    r = reports.ratings(t, replicates=20)["ratings"].set_index("participant")
    assert r.loc["A", "mu"] > r.loc["B", "mu"]  # openskill moved, by seat means
