"""The report's tables, one function per section, each a pure function of :class:`Tables`.

Which games count where.  A game stopped by an error is the faulty bot's loss (the record's
``winners`` already leave that seat out), so it counts in everything about the participants:
standings, ratings, head-to-head and the paired analysis, where the faulty seat finishes last.
It is left out of everything about the game itself (tie-breaks, seat advantage, cards, game
shape), because a game cut short says nothing about how Takenoko plays; those tables say how
many games they left out.  Capped games (the ``max_rounds`` safety cap) ended by the rules'
scoring and count everywhere; they are counted and flagged in the standings and game shape.

A shared victory between ``k`` seats counts as ``1/k`` of a win in every rate; the raw counts
(outright wins, shared wins) are shown beside the rates.
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

import numpy as np
import pandas as pd

from arena.stats import intervals

from . import balance, stats
from .loader import (
    ACTION_KINDS,
    CATEGORIES,
    WEATHER_FACES,
    Tables,
    card_set_hash,
    emperor_points,
)
from .render import signed

REPLICATES = 1000
MIN_COMPLETIONS = balance.MIN_COMPLETIONS
#: Deals below which a participant's rating is not shown.
MIN_DEALS = 10


def card_set_text(t: Tables) -> str:
    """The run's card set in a line: its hash and the cards whose points are not printed."""
    c = t.catalog
    changed = [f"{card} {printed:g}→{points:g}" for card, points, printed, removed in
               zip(c["card"], c["points"], c["printed"], c["removed"], strict=True)
               if not removed and points == points and printed == printed and points != printed]
    removed = list(c.loc[c["removed"], "card"])
    emperor = emperor_points(t.manifest)
    parts = [card_set_hash(t.manifest), f"Emperor {emperor}"]
    if changed:
        parts.append("points changed: " + ", ".join(changed))
    if removed:
        parts.append("removed: " + ", ".join(removed))
    if c["printed"].isna().all():
        parts.append("printed points not in the manifest")
    elif not changed and not removed:
        parts.append("printed points")
    return "; ".join(parts)


def overview(t: Tables) -> pd.DataFrame:
    """What was played: the manifest's facts beside the counts found in the games."""
    m = t.manifest
    g = t.games
    options = sorted(set(g["options"])) if len(g) else []
    rows: list[tuple[str, Any]] = [
        ("directory", str(t.source)),
        ("participants", ", ".join(t.participants)),
        ("players per game", t.players),
        ("format", m.get("format", "")),
        ("games per pairing asked", m.get("games", "")),
        ("games scheduled", m.get("scheduled", "")),
        ("games in games.jsonl", len(g)),
        ("games stopped by an error", int(g["error"].sum()) if len(g) else 0),
        ("capped games (max_rounds)", int(g["capped"].sum()) if len(g) else 0),
        ("deals (seeds)", int(g["deal_key"].nunique()) if len(g) else 0),
        ("master seed", m.get("seed", "")),
        ("rule options (manifest)", json.dumps(m.get("options", {}), sort_keys=True)),
        ("card set", card_set_text(t)),
        ("options differing from defaults (games)", "; ".join(options)),
        ("move time limit (s)", m.get("move_time", "")),
        ("arena version", m.get("arena_version", "")),
        ("started", m.get("started", "")),
        ("finished", m.get("finished") or "(not finished)"),
    ]
    return pd.DataFrame({"item": [r[0] for r in rows], "value": [str(r[1]) for r in rows]})


def _by_participant(t: Tables, frame: pd.DataFrame, column: str, how: str) -> pd.Series:
    """A per-participant aggregate that keeps participants with no rows (as 0 or NaN)."""
    grouped = frame.groupby("participant", observed=False)[column]
    return grouped.agg(how).reindex(t.participants)


def standings(t: Tables, rating: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per participant: games, wins, shared wins, win rate with its Wilson interval, scores.

    Sorted by win rate, ties in participant order: the order ``arena tournament`` prints,
    so the two never disagree on who is first.  The Bradley–Terry Elo of :func:`ratings` is
    beside it (it accounts for who met whom, which a raw win rate does not when
    participants met different opponents; with 3–4 seats it comes from who finished ahead
    of whom, and openskill's ordinal is shown too).  ``rating`` is the ``ratings`` table
    when it has already been computed.
    """
    s = t.seats
    out = pd.DataFrame(index=pd.Index(t.participants, name="participant"))
    out["games"] = _by_participant(t, s, "win", "size").astype(int)
    # The deals its win rate stands on (its own, not the run's: a participant of a round
    # robin plays only its pairings' deals), which decide whether it carries an interval.
    out["deals"] = _by_participant(t, s, "deal_key", "nunique").fillna(0).astype(int)
    outright = s["win"] & ~s["shared"]
    out["wins"] = _by_participant(t, s.assign(x=outright), "x", "sum").astype(int)
    out["shared_wins"] = _by_participant(t, s, "shared", "sum").astype(int)
    out["losses"] = out["games"] - out["wins"] - out["shared_wins"]
    out["win_share"] = _by_participant(t, s, "share", "sum").astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["win_rate"] = out["win_share"] / out["games"]
    out["win_rate_lo"], out["win_rate_hi"] = stats.wilson(out["win_share"], out["games"])
    out["score_mean"] = _by_participant(t, s, "score", "mean")
    out["score_sd"] = _by_participant(t, s, "score", "std")
    out["rank_mean"] = _by_participant(t, s, "rank", "mean")
    out["errors"] = _by_participant(t, s, "faulty", "sum").astype(int)
    out["capped"] = _by_participant(t, s, "capped", "sum").astype(int)
    if rating is None:
        rating = ratings(t)["ratings"]
    rating = rating.set_index("participant")
    for col in ("elo", "elo_lo", "elo_hi", "elo_games_needed", "elo_clipped", "ordinal"):
        if col in rating:
            out[col] = rating[col].reindex(out.index)
    # The order `arena tournament` prints: best win rate first, ties in participant order.
    out = out.sort_values("win_rate", ascending=False, na_position="last", kind="stable")
    return out.reset_index()


def pairwise(t: Tables) -> pd.DataFrame:
    """Every pair of participants in every game: did ``a`` finish ahead of ``b``?

    One row per (game, a, b) with ``a`` before ``b`` in the participant order; ``outcome`` is
    1 (a ahead), 0.5 (level: a shared win, or tied ranks) or 0.  In 2-player games this is
    simply the game result; with more seats it is what the head-to-head and the pairwise
    Bradley–Terry rating use.
    """
    s = t.seats
    cols = ["gi", "deal_key", "stratum", "rank"]
    left = pd.DataFrame({c: s[c].to_numpy() for c in cols})
    left["p"] = s["participant"].cat.codes.to_numpy()
    merged = left.merge(left[["gi", "p", "rank"]], on="gi", suffixes=("_a", "_b"))
    merged = merged[merged["p_a"] < merged["p_b"]]
    ra, rb = merged["rank_a"].to_numpy(), merged["rank_b"].to_numpy()
    outcome = np.where(ra < rb, 1.0, np.where(ra == rb, 0.5, 0.0))
    return pd.DataFrame({
        "gi": merged["gi"].to_numpy(),
        "deal_key": merged["deal_key"].to_numpy(),
        "stratum": merged["stratum"].to_numpy(),
        "a": merged["p_a"].to_numpy(),
        "b": merged["p_b"].to_numpy(),
        "outcome": outcome,
    })


def _pair_matrices(
    pairs: pd.DataFrame, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Score and games matrices (``wins[i, j]`` = what i scored against j) from pair rows."""
    agg = pairs.groupby(["a", "b"])["outcome"].agg(["sum", "size"]).reset_index()
    wins = np.zeros((k, k))
    games = np.zeros((k, k))
    a, b = agg["a"].to_numpy(), agg["b"].to_numpy()
    wins[a, b] = agg["sum"].to_numpy()
    wins[b, a] = agg["size"].to_numpy() - agg["sum"].to_numpy()
    games[a, b] = games[b, a] = agg["size"].to_numpy()
    return wins, games


def _bt_bootstrap(
    pairs: pd.DataFrame, k: int, replicates: int, rng: np.random.Generator
) -> np.ndarray:
    """Bradley–Terry Elo of each replicate, resampling whole deals within each pairing."""
    if pairs.empty or replicates <= 0:
        return np.full((0, k), np.nan)
    pair_id, uniques = pd.factorize(pd.MultiIndex.from_arrays([pairs["a"], pairs["b"]]))
    m = len(uniques)
    deal_id, deal_uniques = pd.factorize(pairs["deal_key"])
    rows = np.zeros((len(deal_uniques), 2 * m))
    np.add.at(rows, (deal_id, pair_id), pairs["outcome"].to_numpy())
    np.add.at(rows, (deal_id, m + pair_id), 1.0)
    strata = np.zeros(len(deal_uniques), dtype=np.int64)
    strata[deal_id] = pairs["stratum"].to_numpy()
    sums = stats.bootstrap_sums(rows, strata, replicates, rng)
    ua = np.array([u[0] for u in uniques])
    ub = np.array([u[1] for u in uniques])
    wins = np.zeros((replicates, k, k))
    games = np.zeros((replicates, k, k))
    wins[:, ua, ub] = sums[:, :m]
    wins[:, ub, ua] = sums[:, m:] - sums[:, :m]
    games[:, ua, ub] = games[:, ub, ua] = sums[:, m:]
    return stats.bradley_terry(wins, games) * stats.ELO_PER_NAT


def _openskill(t: Tables) -> pd.DataFrame:
    """Plackett–Luce ratings with openskill's model, updated game by game in game-id order.

    openskill is an online filter: its sigma is the model's remaining uncertainty about mu,
    not a sampling interval, and the figures depend (slightly) on the order of the games,
    which is why the games are sorted by id at loading.  The parameters are read from
    openskill's ``PlackettLuce`` model; the update itself is ``stats.plackett_luce_online``.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    names = t.participants
    s = t.seats
    codes = s["participant"].cat.codes.to_numpy().tolist()
    ranks = s["rank"].to_numpy().tolist()
    bounds = (np.flatnonzero(np.diff(s["gi"].to_numpy())) + 1).tolist()
    games = []
    for start, end in zip([0, *bounds], [*bounds, len(codes)], strict=True):
        who = codes[start:end]
        if len(set(who)) >= 2:
            games.append((who, ranks[start:end]))
    mu, sigma = stats.plackett_luce_online(
        games, len(names), model.mu, model.sigma, model.beta, model.kappa, model.tau)
    out = pd.DataFrame({"participant": names, "mu": mu, "sigma": sigma})
    played = s.groupby("participant", observed=False).size().reindex(names).to_numpy() > 0
    out.loc[~played, ["mu", "sigma"]] = np.nan
    out["ordinal"] = out["mu"] - 3.0 * out["sigma"]
    return out


def ratings(
    t: Tables, replicates: int = REPLICATES, seed: int = 0, pairs: pd.DataFrame | None = None,
    min_deals: int = MIN_DEALS,
) -> dict[str, pd.DataFrame]:
    """Ratings with their uncertainty, and the likelihood of superiority of each pair.

    - ``ratings``: Bradley–Terry Elo (mean 0) fitted to every pairwise result (2 players: the
      games; more: who finished ahead of whom, ties as half), with a 95% percentile interval
      from ``replicates`` bootstrap resamples of whole deals within each pairing, because
      the rotations of one deal share its luck and are not independent games.  With 3–4
      seats, also openskill's Plackett–Luce ``mu``, ``sigma`` and ``ordinal`` = mu − 3 sigma.
    - ``los``: matrix, LOS of the row over the column from their direct decisive results.
    - ``pairs``: per pair, wins, losses, level results, score, implied Elo difference, LOS.

    ``pairs`` is :func:`pairwise`'s table when it has already been computed.  A participant
    with fewer than ``min_deals`` deals gets no rating, and ``elo_games_needed`` instead.
    """
    names = t.participants
    k = len(names)
    if pairs is None:
        pairs = pairwise(t)
    out = pd.DataFrame({"participant": names})
    wins, games = _pair_matrices(pairs, k)
    out["pairwise_games"] = games.sum(axis=1).astype(int)
    played = games.sum(axis=1) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out["score"] = wins.sum(axis=1) / games.sum(axis=1)
    elo, lo, hi, clipped = _elo(pairs, wins, games, played, replicates, seed)
    thin, needed = _thin(t, pairs, played, min_deals)
    elo[thin] = lo[thin] = hi[thin] = np.nan
    clipped[thin] = False
    out["elo"], out["elo_lo"], out["elo_hi"] = elo, lo, hi
    out["elo_games_needed"] = needed
    out["elo_clipped"] = clipped
    if t.players > 2 and len(t.seats):
        out = out.merge(_openskill(t), on="participant", how="left")
    los_matrix, pair_table = _los(pairs, names)
    return {"ratings": out, "los": los_matrix.reset_index(), "pairs": pair_table}


def _elo(pairs: pd.DataFrame, wins: np.ndarray, games: np.ndarray, played: np.ndarray,
         replicates: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per participant: the Bradley–Terry Elo, its bootstrap interval, and whether it is
    clipped (beyond ``ELO_CLIP``, or from a perfect record: then without an interval).

    A participant that won (or lost) every pairwise result has no finite rating: it is
    shown as "> +999" ("< -999"), without an interval, and the others are centred without
    it, in the estimate and in every replicate alike."""
    k = len(played)
    elo = np.full(k, np.nan)
    lo = np.full(k, np.nan)
    hi = np.full(k, np.nan)
    clipped = np.zeros(k, dtype=bool)
    idx = np.flatnonzero(played)
    if len(idx) == 1:
        elo[idx] = 0.0
    if len(idx) < 2:
        return elo, lo, hi, clipped
    sc = wins.sum(axis=1) / np.where(games.sum(axis=1) > 0, games.sum(axis=1), 1)
    extreme = played & ((sc <= 0) | (sc >= 1))
    finite = np.flatnonzero(played & ~extreme)
    centre_on = finite if len(finite) else idx
    sub = np.ix_(idx, idx)
    raw = np.full(k, np.nan)
    raw[idx] = stats.bradley_terry(wins[sub], games[sub]) * stats.ELO_PER_NAT
    raw -= np.nanmean(raw[centre_on])
    clipped[idx] = extreme[idx] | (np.abs(raw[idx]) > stats.ELO_CLIP)
    elo[idx] = np.clip(raw[idx], -stats.ELO_CLIP, stats.ELO_CLIP)
    rng = np.random.default_rng(seed)
    boot = _bt_bootstrap(pairs, k, replicates, rng)
    if len(boot):
        boot = boot - boot[:, centre_on].mean(axis=1, keepdims=True)
        lo[idx], hi[idx] = np.percentile(boot[:, idx], [2.5, 97.5], axis=0)
        # A percentile interval of a skewed statistic can miss its own estimate (the
        # ridge that keeps a near-perfect record finite pulls the replicates unevenly):
        # the interval is widened to hold it rather than printed beside it.
        lo[idx] = np.minimum(lo[idx], elo[idx])
        hi[idx] = np.maximum(hi[idx], elo[idx])
    lo[clipped] = np.nan
    hi[clipped] = np.nan
    return elo, lo, hi, clipped


def _thin(t: Tables, pairs: pd.DataFrame, played: np.ndarray, min_deals: int
          ) -> tuple[np.ndarray, np.ndarray]:
    """Which participants' ratings come from too few deals to be shown (an interval from
    one deal is no interval), and the games each would need for one.  Games needed are
    counted in the participant's games (not its pairwise results, two or three a game with
    3-4 seats), by the one rule the standings and the tournament use."""
    k = len(played)
    deals = np.zeros(k)
    if len(pairs):
        both = pd.concat([pairs[["a", "deal_key"]].rename(columns={"a": "p"}),
                          pairs[["b", "deal_key"]].rename(columns={"b": "p"})])
        per = both.groupby("p")["deal_key"].nunique()
        deals[per.index.to_numpy()] = per.to_numpy()
    games_of = _by_participant(t, t.seats, "win", "size").fillna(0).to_numpy(dtype=float)
    thin = played & (deals < min_deals)
    needed = np.full(k, np.nan)
    for i in np.flatnonzero(thin):
        needed[i] = float(intervals.games_to_carry(games_of[i], deals[i], min_deals) or np.nan)
    return thin, needed


def _los(pairs: pd.DataFrame, names: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The likelihood-of-superiority matrix from each pair's decisive results, and the
    per-pair table: wins, losses, level results, score, implied Elo difference, LOS."""
    decisive = pairs.assign(w=pairs["outcome"] == 1.0, l=pairs["outcome"] == 0.0)
    agg = decisive.groupby(["a", "b"]).agg(
        games=("outcome", "size"), score=("outcome", "sum"), wins=("w", "sum"),
        losses=("l", "sum"))
    rows: list[dict[str, Any]] = []
    los_matrix = pd.DataFrame(np.nan, index=pd.Index(names, name="participant"), columns=names)
    for (a, b), r in agg.iterrows():
        w, lo_, n = float(r["wins"]), float(r["losses"]), float(r["games"])
        value = float(stats.los(w, lo_))
        los_matrix.iloc[a, b] = value
        los_matrix.iloc[b, a] = 1.0 - value if not math.isnan(value) else math.nan
        score = float(r["score"]) / n
        rows.append({
            "a": names[a], "b": names[b], "games": int(n), "wins": int(w), "losses": int(lo_),
            "level": int(n - w - lo_), "score": score,
            "elo_diff": float(stats.elo_from_score(score)), "los": value,
        })
    pair_table = pd.DataFrame(rows, columns=[
        "a", "b", "games", "wins", "losses", "level", "score", "elo_diff", "los"])
    return los_matrix, pair_table


def head_to_head(t: Tables, pairs: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """How often the row finished ahead of the column, level results counting half.

    ``matrix`` holds the rates, ``pairs`` both directions of every pair with Wilson
    intervals.  The intervals treat games as independent; the paired table shows how much
    the duplicate deals narrow them.
    """
    names = t.participants
    k = len(names)
    if pairs is None:
        pairs = pairwise(t)
    wins, games = _pair_matrices(pairs, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = wins / games
    lo, hi = stats.wilson(wins, games)
    matrix = pd.DataFrame(rate, index=pd.Index(names, name="participant"), columns=names)
    rows = []
    for i, j in itertools.permutations(range(k), 2):
        if games[i, j] > 0:
            rows.append({"row": names[i], "column": names[j], "games": int(games[i, j]),
                         "ahead": wins[i, j], "rate": rate[i, j], "rate_lo": lo[i, j],
                         "rate_hi": hi[i, j]})
    long = pd.DataFrame(rows, columns=["row", "column", "games", "ahead", "rate", "rate_lo",
                                       "rate_hi"])
    return {"matrix": matrix.reset_index(), "pairs": long}


def _halves(players: int) -> list[str]:
    return [f"{v / 2:g}" for v in range(0, 2 * players + 1)]


def paired(t: Tables) -> pd.DataFrame:
    """Paired analysis over duplicate deals, in the manner of fishtest's pentanomial counts.

    A deal is one seed played once per seat rotation.  Per deal, a participant's score is the
    sum of its win shares over the rotations: in 2-player games 0, 0.5, 1, 1.5 or 2 (the
    pentanomial outcomes; the row is the pairing's first participant, the other's counts are
    the mirror image).  With 3–4 seats the analogue is the same sum over 3–4 rotations, counted
    in half-point bins (a 1/3 share is rounded to the nearest half).  Only complete deals (one
    game per rotation) are counted; the rest are reported as incomplete.

    ``score`` is the mean win share per seat held (the win rate; a participant holding two
    seats of a game counts its two shares over two seats), over complete deals.
    ``variance_ratio`` = Var(mean score) estimated from independent games / the same from
    deal means, i.e. how many times fewer games the paired estimate needs for the same
    precision; ``score_lo``/``score_hi`` are the paired 95% interval.  A pairing of ``all``
    pools a participant's deals against every opponent.
    """
    s = t.seats
    players = t.players
    bins = _halves(players)
    columns = ["pairing", "participant", "opponents", "deals", "incomplete_deals", "games",
               "score", "score_lo", "score_hi", "se_unpaired", "se_paired", "variance_ratio",
               *bins]
    if players == 2:
        columns[columns.index("variance_ratio") + 1:columns.index("variance_ratio") + 1] = [
            "elo", "elo_lo", "elo_hi"]
    if s.empty:
        return pd.DataFrame(columns=columns)
    per_deal = _per_deal(t)
    roster = s.groupby("stratum", observed=True)["participant"].agg(
        lambda x: sorted(set(x), key=t.participants.index))
    rows = []
    for stratum, frame in per_deal.groupby("stratum"):
        members = roster.loc[stratum]
        pairing_id = int(frame["pairing"].iloc[0])
        label = f"{pairing_id:03d}" if pairing_id >= 0 else "all"
        chosen = members[:1] if players == 2 else members
        for who in chosen:
            others = [m for m in members if m != who]
            rows.append(_paired_row(frame[frame["participant"] == who], label, who, others,
                                    players))
    if per_deal["stratum"].nunique() > 1:
        for who in t.participants:
            frame = per_deal[per_deal["participant"] == who]
            if len(frame):
                others = sorted({m for st in frame["stratum"].unique() for m in roster.loc[st]}
                                - {who}, key=t.participants.index)
                rows.append(_paired_row(frame, "all", who, others, players))
    return pd.DataFrame(rows).reindex(columns=columns)


def _per_deal(t: Tables) -> pd.DataFrame:
    """Per stratum, deal and participant: the summed shares and seats held, the sums of the
    per-game scores and their squares (for the unpaired variance), the games, and whether
    the deal is complete (one game per rotation).

    Per game first: a participant holding several seats of a game (2 participants, 4
    seats) has one result per game, the sum of its seats' shares, over that many seats."""
    per_game = t.seats.groupby(["gi", "participant"], observed=True).agg(
        x=("share", "sum"), m=("share", "size")).reset_index()
    gi = per_game["gi"].to_numpy()
    games = t.games
    for col in ("stratum", "deal_key", "pairing", "players"):
        per_game[col] = games[col].to_numpy()[gi]
    per_game["v"] = per_game["x"] / per_game["m"]
    per_game["v2"] = per_game["v"] ** 2
    per_deal = per_game.groupby(["stratum", "deal_key", "participant"], observed=True).agg(
        y=("x", "sum"), m=("m", "sum"), v=("v", "sum"), v2=("v2", "sum"), n=("x", "size"),
        pairing=("pairing", "first"), players=("players", "first")).reset_index()
    game_count = games.groupby("deal_key").size()
    per_deal["games_in_deal"] = game_count.reindex(per_deal["deal_key"]).to_numpy()
    per_deal["complete"] = (per_deal["games_in_deal"] == per_deal["players"]) & (
        per_deal["n"] == per_deal["players"])
    return per_deal


def _paired_row(frame: pd.DataFrame, label: str, who: str, others: list[str],
                players: int) -> dict[str, Any]:
    """One row of ``paired``: a participant's complete deals of one pairing (or ``all``),
    its score, the paired and unpaired errors and their ratio, and the half-point bins."""
    done = frame[frame["complete"]]
    deals = len(done)
    games_total = int(done["n"].sum())  # games, whatever the seats held in each
    row: dict[str, Any] = {
        "pairing": label, "participant": who, "opponents": ", ".join(others),
        "deals": deals, "incomplete_deals": int((~frame["complete"]).sum()),
        "games": games_total,
    }
    y = done["y"].to_numpy(dtype=float)
    seats = done["m"].to_numpy(dtype=float)
    score = y.sum() / seats.sum() if games_total else math.nan
    row["score"] = score
    if deals >= 2:
        means = y / seats
        var_paired = means.var(ddof=1) / deals
        # Per-game variance from the deals' sums of v and v², to avoid a pass over games.
        sum_v, sum_v2 = float(done["v"].sum()), float(done["v2"].sum())
        var_game = (sum_v2 - sum_v**2 / games_total) / (games_total - 1)
        var_unpaired = var_game / games_total
        row["se_paired"] = math.sqrt(var_paired)
        row["se_unpaired"] = math.sqrt(var_unpaired)
        row["variance_ratio"] = var_unpaired / var_paired if var_paired > 0 else math.nan
        row["score_lo"] = score - stats.Z * row["se_paired"]
        row["score_hi"] = score + stats.Z * row["se_paired"]
    counts = np.rint(y * 2).astype(int)
    for v, name in enumerate(_halves(players)):
        row[name] = int((counts == v).sum())
    if players == 2:
        row["elo"] = float(stats.elo_from_score(score))
        row["elo_lo"] = float(stats.elo_from_score(row.get("score_lo", math.nan)))
        row["elo_hi"] = float(stats.elo_from_score(row.get("score_hi", math.nan)))
    return row


def tiebreaks(t: Tables) -> dict[str, pd.DataFrame]:
    """Games tied on points (R13.4): how they were decided, who gained and lost, the margins.

    ``summary`` per player count: ties, decided by panda points, shared, with Wilson
    intervals on their rates, and ``inconsistent`` = games whose ``tiebreak`` field disagrees
    with their scores (zero unless the engine has a bug).  ``participants``: tie-break
    games, wins and losses through the panda tie-break, shared wins.  ``margins``: the gap
    between the top score and the next one, error games left out.
    """
    g = t.ok_games
    s = t.ok_seats
    rows = []
    for players, frame in g.groupby("players"):
        n = len(frame)
        tied = int((frame["tiebreak"] != "none").sum())
        panda = int((frame["tiebreak"] == "panda").sum())
        shared = int((frame["tiebreak"] == "shared").sum())
        row: dict[str, Any] = {"players": int(players), "games": n, "tied": tied}
        for name, x in (("tied", tied), ("panda", panda), ("shared", shared)):
            row[name] = x
            row[f"{name}_rate"] = x / n if n else math.nan
            lo, hi = stats.wilson(x, n)
            row[f"{name}_rate_lo"], row[f"{name}_rate_hi"] = float(lo), float(hi)
        row["inconsistent"] = int(((frame["margin"] == 0) != (frame["tiebreak"] != "none")).sum())
        row["margin_mean"] = float(frame["margin"].mean())
        row["margin_median"] = float(frame["margin"].median())
        rows.append(row)
    summary = pd.DataFrame(rows, columns=[
        "players", "games", "tied", "tied_rate", "tied_rate_lo", "tied_rate_hi", "panda",
        "panda_rate", "panda_rate_lo", "panda_rate_hi", "shared", "shared_rate",
        "shared_rate_lo", "shared_rate_hi", "inconsistent", "margin_mean", "margin_median"])
    summary["errors_left_out"] = [
        int(((t.games["players"] == p) & t.games["error"]).sum()) for p in summary["players"]]

    top = t.games["top_score"].to_numpy()[s["gi"].to_numpy()]
    at_top = (s["score"].to_numpy() == top) & (s["tiebreak"].to_numpy() != "none")
    frame = s.assign(
        tie_games=at_top,
        tiebreak_wins=s["win"].to_numpy() & (s["tiebreak"].to_numpy() == "panda"),
        tiebreak_losses=at_top & ~s["win"].to_numpy(),
    )
    parts = pd.DataFrame(index=pd.Index(t.participants, name="participant"))
    for col in ("tie_games", "tiebreak_wins", "tiebreak_losses", "shared"):
        parts[col] = _by_participant(t, frame, col, "sum").astype(int)
    parts["net"] = parts["tiebreak_wins"] - parts["tiebreak_losses"]

    labels = [str(v) for v in range(10)] + ["10+"]
    margin = g["margin"].to_numpy()
    binned = np.where(np.isnan(margin), -1, np.minimum(margin, 10)).astype(int)
    margins = pd.DataFrame({"margin": labels})
    for players in sorted(g["players"].unique()):
        mask = g["players"].to_numpy() == players
        counts = np.bincount(binned[mask & (binned >= 0)], minlength=11)[:11]
        margins[f"games_{players}p"] = counts
        margins[f"share_{players}p"] = counts / max(1, counts.sum())
    return {"summary": summary, "participants": parts.reset_index(), "margins": margins}


def seat_advantage(t: Tables) -> dict[str, pd.DataFrame]:
    """Win rate per seat, per player count, and a chi-square test of "no seat advantage".

    The test compares the wins per seat (shared wins as fractions) with equal expected
    counts.  Error games are left out.  Because every deal is played in every rotation, each
    participant sits in each seat equally often, so the participants' strengths cancel out.
    """
    s = t.ok_seats
    s = s.assign(outright=s["win"] & ~s["shared"])
    g = s.groupby(["players", "seat"], observed=True).agg(
        games=("share", "size"), wins=("share", "sum"), outright=("outright", "sum"),
        score_mean=("score", "mean"))
    g = g.reset_index()
    g["win_rate"] = g["wins"] / g["games"]
    g["win_rate_lo"], g["win_rate_hi"] = stats.wilson(g["wins"], g["games"])
    g["expected"] = 1.0 / g["players"]
    seats = g[["players", "seat", "games", "wins", "outright", "win_rate", "win_rate_lo",
               "win_rate_hi", "expected", "score_mean"]]
    tests = []
    for players, frame in g.groupby("players"):
        chi2, p, dof = stats.chisquare_uniform(frame["wins"].to_numpy())
        if math.isnan(p):
            verdict = "not enough games"
        elif p < 0.05:
            best = int(frame.loc[frame["win_rate"].idxmax(), "seat"])
            verdict = f"seat advantage (p < 0.05); seat {best} wins most"
        else:
            verdict = "no evidence of a seat advantage at the 5% level"
        tests.append({"players": int(players), "games": int(frame["games"].iloc[0]),
                      "chi2": chi2, "dof": dof, "p_value": p, "verdict": verdict})
    tests_frame = pd.DataFrame(tests, columns=["players", "games", "chi2", "dof", "p_value",
                                               "verdict"])
    return {"seats": seats.reset_index(drop=True), "tests": tests_frame}


def card_balance(
    t: Tables, min_completions: int = MIN_COMPLETIONS, replicates: int = REPLICATES,
    seed: int = 0, fdr: float = balance.FDR, min_drawn: int = balance.MIN_DRAWN,
) -> dict[str, pd.DataFrame]:
    """Objective-card balance, the designer's questions (see ``reports/balance.py``).

    ``cards``, per card, from games without error, sorted by evidence of an imbalance (the
    distance of the fair value's interval from the points, then the p-value): drawn,
    completed, completion rate, turns held from draw to completion, how often it is still in
    hand at the end, points per turn held, the win-rate lift when completed (win rate of the
    seats that completed it minus that of the seats that drew it and did not), the fair
    value and ``imbalance`` = fair value − points, the test's p and Benjamini–Hochberg q
    values, the completion rate of the rest of its category, ``games_needed`` to resolve one
    point, and ``flag``.  Every interval is from the bootstrap over deals.  ``categories``:
    per category and the Emperor, the share of the winners' points and of all points (as
    printed), completion rate and points per turn against the deck's.  ``model``: the run-
    level figures (exchange rate, Emperor, the set's spread of fair value minus points).  A
    card drawn fewer than ``min_drawn`` times gets no test and no bootstrap figure.
    """
    result = balance.analyse(t, replicates=replicates, seed=seed,
                             min_completions=min_completions, min_drawn=min_drawn)
    cards = result["cards"]
    info = result["info"]
    _dealt_win_rate(t, cards)
    emp = float(info["emperor_points"])
    categories = _point_shares(t, emp).merge(result["categories"], on="category", how="left")
    model = pd.DataFrame([{
        "games": info["games"], "deals": info["deals"],
        "cards_modelled": info["cards_modelled"], "flagged": info["flagged"],
        "fdr": info["fdr"],
        "spread": info["spread"], "spread_lo": info["spread_lo"],
        "spread_hi": info["spread_hi"],
        "log_odds_per_point": info.get("lambda", math.nan),
        "log_odds_per_point_lo": info.get("lambda_lo", math.nan),
        "log_odds_per_point_hi": info.get("lambda_hi", math.nan),
        "log_odds_per_point_games_needed": (info.get("lambda_games_needed", math.nan)
                                            if not info.get("priced") else math.nan),
        "emperor_fair_value": info.get("emperor_fair_value", math.nan),
        "emperor_fair_value_lo": info.get("emperor_fair_value_lo", math.nan),
        "emperor_fair_value_hi": info.get("emperor_fair_value_hi", math.nan),
        "emperor_fair_value_games_needed": (info.get("lambda_games_needed", math.nan)
                                            if not info.get("priced") else math.nan),
        "emperor_points": emp, "deck_points_per_turn": info["deck_points_per_turn"],
        "min_completions": min_completions, "replicates": replicates,
    }])
    return {"cards": cards, "categories": categories, "model": model, "result": result}


def _dealt_win_rate(t: Tables, cards: pd.DataFrame) -> None:
    """Add to the card table the win rate of the seats dealt each card in their starting
    hand (drawn in round 0), with its Wilson interval (a column of ``card_balance``'s
    card table, beside the analysis's figures)."""
    dealt = t.ok_column("cards", "drawn_round") == 0
    code = t.ok_column("cards", "card")[dealt]
    order = t.cards["card"].cat.categories
    n_dealt = pd.Series(np.bincount(code, minlength=len(order)), index=order)
    won = pd.Series(np.bincount(code, weights=t.ok_column("cards", "share", float)[dealt],
                                minlength=len(order)), index=order)
    del dealt, code
    n_dealt = n_dealt.reindex(cards["card"]).fillna(0).to_numpy()
    won = won.reindex(cards["card"]).fillna(0).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        cards["dealt_win_rate"] = won / n_dealt
    cards["dealt_win_rate_lo"], cards["dealt_win_rate_hi"] = stats.wilson(won, n_dealt)


def _point_shares(t: Tables, emp: float) -> pd.DataFrame:
    """Per category and the Emperor: its share of the winners' points and of all points,
    with intervals, beside its share of the printed points.  Sums are per game, so that
    the interval treats a game as the sampled unit."""
    s = t.ok_seats
    parts = {
        "plot": s["plot_points"].to_numpy(),
        "gardener": s["gardener_points"].to_numpy(),
        "panda": s["panda_card_points"].to_numpy(),
        "emperor": s["emperor"].to_numpy(dtype=float) * emp,
    }
    weight = s["share"].to_numpy()
    total = s["score"].to_numpy()
    gi = s["gi"].to_numpy()
    catalog = t.catalog[~t.catalog["removed"]]
    printed_total = float(catalog.loc[catalog["category"].isin(CATEGORIES), "points"].sum())
    rows = []
    for cat, pts in parts.items():
        win_num = np.bincount(gi, weights=pts * weight)
        win_den = np.bincount(gi, weights=total * weight)
        all_num = np.bincount(gi, weights=pts)
        all_den = np.bincount(gi, weights=total)
        used = np.bincount(gi, minlength=len(win_num)) > 0
        w, wlo, whi = stats.ratio_ci(win_num[used], win_den[used])
        a, alo, ahi = stats.ratio_ci(all_num[used], all_den[used])
        printed = (float(catalog.loc[catalog["category"] == cat, "points"].sum()) / printed_total
                   if cat in CATEGORIES and printed_total else math.nan)
        rows.append({"category": cat, "winners_share": w, "winners_share_lo": wlo,
                     "winners_share_hi": whi, "all_share": a, "all_share_lo": alo,
                     "all_share_hi": ahi, "points_share": printed})
    return pd.DataFrame(rows)


def game_shape(t: Tables) -> dict[str, pd.DataFrame]:
    """How games go: length, the cap, the Emperor's effect, weather and actions.

    ``summary`` per player count (error games counted, then left out of the rest): rounds,
    capped games, how often the Emperor's holder won (against the 1/players of chance).
    ``rounds``: games per length.  ``weather``: faces rolled, with Wilson intervals on their
    shares (each 1/6 for a fair die).  ``actions``: per participant, mean actions of each
    kind per game and their shares.  ``errors``: every error game.
    """
    games = t.games
    rows = []
    for players, frame in games.groupby("players"):
        ok = frame[~frame["error"]]
        n_all, n = len(frame), len(ok)
        capped = int(ok["capped"].sum())
        clo, chi = stats.wilson(capped, n)
        seats = t.seats[(t.seats["players"] == players) & ~t.seats["error"] & t.seats["emperor"]]
        emp_n, emp_won = len(seats), float(seats["share"].sum())
        elo, ehi = stats.wilson(emp_won, emp_n)
        r = ok["rounds"].where(ok["rounds"] >= 0)
        rlo, rhi = stats.wilson(n_all - n, n_all)
        rows.append({
            "players": int(players), "games": n_all, "errors": n_all - n,
            "error_rate": (n_all - n) / n_all if n_all else math.nan,
            "error_rate_lo": float(rlo), "error_rate_hi": float(rhi),
            "capped": capped, "capped_rate": capped / n if n else math.nan,
            "capped_rate_lo": float(clo), "capped_rate_hi": float(chi),
            "rounds_mean": float(r.mean()), "rounds_sd": float(r.std()),
            "rounds_median": float(r.median()), "rounds_min": float(r.min()),
            "rounds_max": float(r.max()), "emperor_games": emp_n,
            "emperor_won": emp_won / emp_n if emp_n else math.nan,
            "emperor_won_lo": float(elo), "emperor_won_hi": float(ehi),
            "chance": 1.0 / float(players),
        })
    summary = pd.DataFrame(rows, columns=[
        "players", "games", "errors", "error_rate", "error_rate_lo", "error_rate_hi", "capped",
        "capped_rate", "capped_rate_lo",
        "capped_rate_hi", "rounds_mean", "rounds_sd", "rounds_median", "rounds_min",
        "rounds_max", "emperor_games", "emperor_won", "emperor_won_lo", "emperor_won_hi",
        "chance"])

    ok = t.ok_games
    valid = ok[ok["rounds"] >= 0]
    hist = valid.groupby(["rounds", "players"]).size().unstack(fill_value=0)
    hist.columns = [f"games_{c}p" for c in hist.columns]
    capped_hist = valid[valid["capped"]].groupby("rounds").size()
    rounds = hist.assign(capped=capped_hist.reindex(hist.index).fillna(0).astype(int))
    rounds = rounds.reset_index()

    counts = np.array([ok[f"weather_{f}"].sum() for f in WEATHER_FACES], dtype=float)
    total = counts.sum()
    wlo, whi = stats.wilson(counts, np.full(len(counts), total))
    weather = pd.DataFrame({
        "face": WEATHER_FACES, "rolls": counts.astype(int),
        "share": counts / total if total else np.nan, "share_lo": wlo, "share_hi": whi,
        "expected": 1.0 / len(WEATHER_FACES)})

    s = t.ok_seats
    acts = pd.DataFrame(index=pd.Index(t.participants, name="participant"))
    acts["games"] = _by_participant(t, s, "win", "size").astype(int)
    sums = {k: _by_participant(t, s, f"act_{k}", "sum").astype(float) for k in ACTION_KINDS}
    all_actions = sum(sums.values())
    for kind in ACTION_KINDS:
        acts[f"{kind}_per_game"] = sums[kind] / acts["games"].replace(0, np.nan)
    for kind in ACTION_KINDS:
        acts[f"{kind}_share"] = sums[kind] / pd.Series(all_actions).replace(0, np.nan)

    err = games[games["error"]]
    seat_rows = t.seats[t.seats["faulty"]].set_index("gi")["participant"]
    errors = pd.DataFrame({
        "game": err["game"].to_numpy(),
        "seat": err["error_seat"].to_numpy(),
        "participant": seat_rows.reindex(err.index).astype(object).to_numpy(),
        "kind": err["error_kind"].to_numpy(),
        "rounds": err["rounds"].to_numpy(),
        "message": err["error_message"].to_numpy(),
    })
    return {"summary": summary, "rounds": rounds, "weather": weather,
            "actions": acts.reset_index(), "errors": errors}


def summary_text(tables: Tables | pd.DataFrame, limit: int = 20) -> str:
    """A short standings table for the console: name, games, win rate with CI, rating."""
    table = standings(tables) if isinstance(tables, Tables) else tables
    if table.empty or int(table["games"].sum()) == 0:
        return "no games"
    shown = table.head(limit)
    width = max(11, *(len(str(p)) for p in shown["participant"]))
    short = 0
    lines = [f"{'participant':<{width}}  {'games':>6}  {'win rate':>8}  {'95% CI':>15}  "
             f"{'Elo':>7}  {'Elo 95% CI':>15}"]
    for _, r in shown.iterrows():
        # Percentages, as the tournament's standings print them.
        ci_needed = r.get("win_rate_games_needed", math.nan)
        ci = (f"[{r['win_rate_lo']:.1%}, {r['win_rate_hi']:.1%}]"
              if not math.isnan(r["win_rate_lo"]) else
              f"needs ~{int(ci_needed)} games" if ci_needed == ci_needed else "")
        rate = f"{r['win_rate']:.1%}" if not math.isnan(r["win_rate"]) else "-"
        elo = "-" if math.isnan(r["elo"]) else signed(r["elo"])
        needed = r.get("elo_games_needed", math.nan)
        if math.isnan(r["elo"]) and needed == needed:
            short = max(short, int(needed))
        if bool(r.get("elo_clipped", False)) and not math.isnan(r["elo"]):
            elo = f"< {signed(r['elo'])}" if r["elo"] < 0 else f"> {signed(r['elo'])}"
        elo_ci = ("" if math.isnan(r["elo_lo"]) else
                  f"[{signed(r['elo_lo'])}, {signed(r['elo_hi'])}]")
        lines.append(f"{r['participant']!s:<{width}}  {int(r['games']):>6}  {rate:>8}  "
                     f"{ci:>15}  {elo:>7}  {elo_ci:>15}")
    if len(table) > limit:
        lines.append(f"... and {len(table) - limit} more")
    if short:
        lines.append(f"Elo: not enough games (fewer than {MIN_DEALS} deals): about {short} "
                     "games needed")
    return "\n".join(lines)
