"""Games to watch: the games behind the figures, chosen from the records for a person to
replay.

A table of win rates says who wins; a replay shows how.  Per pairing the typical game (the
one whose length is nearest the pairing's median), the biggest upset (a win by the seat whose
participant has the lowest overall win rate against the best one at its table), the longest
game, and for each flagged card of the card table a game where it was completed.  The
report links each to ``replays/GAME.html``, which ``arena report`` writes beside it with
the replay viewer (a report reads files only, so it names the games and the arena draws
them).  Games stopped by an error are left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .loader import Tables

#: The folder of the replay pages, beside report.html.
REPLAYS = "replays"
#: At most this many flagged cards get a game of their own.
MAX_CARDS = 10
COLUMNS = ["game", "why", "seats", "rounds", "file"]


def replay_file(game: str) -> str:
    """The replay page of a game, relative to the report."""
    return f"{REPLAYS}/{game}.html"


def games_to_watch(t: Tables, flagged: pd.DataFrame | None = None,
                   upset: bool = True) -> pd.DataFrame:
    """The chosen games, one row each (a game chosen for several reasons has them all).

    ``flagged``: the card table's rows with a flag (columns ``card`` and ``flag``).  Without
    ``upset`` no upset is chosen: in a card study the participants are a level and its own
    copies, and who beat whom is the placed cards' doing, not a result.
    """
    games, seats = t.games, t.seats
    if len(games) == 0:
        return pd.DataFrame(columns=COLUMNS)
    ok = ~games["error"].to_numpy()
    ids = games["game"].astype(str).to_numpy()
    rounds = games["rounds"].to_numpy()
    who = seats.sort_values(["gi", "seat"]).groupby("gi", sort=True)["participant"].agg(
        lambda s: [str(p) for p in s])
    reasons: dict[int, list[str]] = {}

    def choose(gi: int, why: str) -> None:
        reasons.setdefault(gi, []).append(why)

    clean = games[ok]
    for _pairing, group in clean.groupby("pairing", sort=True):
        median = float(group["rounds"].median())
        order = sorted(group.index, key=lambda gi: (abs(rounds[gi] - median), ids[gi]))
        names = " vs ".join(sorted(set(who[order[0]])))
        choose(order[0], f"typical game of {names}: {rounds[order[0]]} rounds (median "
                         f"{median:g})")
    played = seats[~seats["error"].to_numpy()]
    rate = (played.groupby("participant", observed=True)["share"].sum()
            / played.groupby("participant", observed=True)["share"].count())
    best_upset, upset_gi, upset_text = 0.0, -1, ""
    for gi, group in played.groupby("gi", sort=True):
        winners = group[group["win"].to_numpy() > 0]
        others = group[group["win"].to_numpy() <= 0]
        if winners.empty or others.empty:
            continue
        winner = max(winners["participant"], key=lambda p: rate[p])
        favourite = max(others["participant"], key=lambda p: rate[p])
        gap = float(rate[favourite] - rate[winner])
        if gap > best_upset or (gap == best_upset and upset_gi >= 0 and ids[gi] < ids[upset_gi]):
            best_upset, upset_gi = gap, int(gi)  # type: ignore[arg-type]
            upset_text = (f"biggest upset: {winner} ({rate[winner]:.0%} of its games won) "
                          f"beat {favourite} ({rate[favourite]:.0%})")
    if upset and upset_gi >= 0:
        choose(upset_gi, upset_text)
    if len(clean):
        longest = min(clean.index, key=lambda gi: (-rounds[gi], ids[gi]))
        choose(longest, f"longest game: {rounds[longest]} rounds")
    if flagged is not None and len(flagged):
        cards = t.cards[t.cards["completed"].to_numpy() & ~t.cards["error"].to_numpy()]
        for card, flag in list(zip(flagged["card"], flagged["flag"]))[:MAX_CARDS]:
            rows = cards[cards["card"].astype(str) == str(card)]
            if rows.empty:
                continue
            gi = min(rows["gi"], key=lambda g: ids[g])
            choose(int(gi), f"{card} completed ({flag})" if str(flag).startswith("study")
                   else f"{card} completed (flagged: {flag})")
    rows = [{"game": ids[gi], "why": "; ".join(why), "seats": ", ".join(who[gi]),
             "rounds": int(rounds[gi]), "file": replay_file(ids[gi])}
            for gi, why in sorted(reasons.items(), key=lambda kv: ids[kv[0]])]
    return pd.DataFrame(rows, columns=COLUMNS)


def watch_text(chosen: pd.DataFrame, study: bool = False) -> str:
    """The section's text: what the games are, and a link to each replay."""
    if chosen.empty:
        return "No finished game without an error to replay yet."
    lines = [f"- [{game}]({file}): {why} ({seats})" for game, why, seats, file in
             zip(chosen["game"], chosen["why"], chosen["seats"], chosen["file"])]
    if study:
        return (
            "The games behind the study's findings, each a page that steps through the game "
            "with the board drawn, every hand and the scores by round (`arena replay DIR "
            "--game ID --html OUT` draws any other): for each card the study flagged (or, "
            "with none flagged, the card with the strongest evidence) a game where it was "
            "placed and completed, and per pairing the typical and the longest game. No "
            "upset: the seats are a level and its own copies.\n\n" + "\n".join(lines))
    lines = [f"- [{game}]({file}): {why} ({seats})" for game, why, seats, file in
             zip(chosen["game"], chosen["why"], chosen["seats"], chosen["file"])]
    return (
        "The games behind the figures, each a page that steps through the game with the board "
        "drawn, every hand and the scores by round (`arena replay DIR --game ID --html OUT` "
        "draws any other). Per pairing the typical game (length nearest the median), the "
        "biggest upset (the winner with the lowest overall win rate against the best one at "
        "its table), the longest game, and a game where each flagged card was completed. "
        f"The pages are in `{REPLAYS}/` beside this report.\n\n" + "\n".join(lines))


def flagged_cards(cards: pd.DataFrame) -> pd.DataFrame:
    """The card table's rows with a flag, in the table's order (most unbalanced first)."""
    if "flag" not in cards:
        return cards.iloc[0:0]
    flag = cards["flag"].fillna("").astype(str)
    return cards[flag.str.len() > 0]


__all__: Sequence[str] = ("REPLAYS", "flagged_cards", "games_to_watch", "replay_file",
                          "watch_text")
