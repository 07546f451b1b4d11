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

from collections.abc import Callable, Sequence

import numpy as np
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
    # Every choice is a vectorized pass over the columns (no loop over games): the report
    # must stay linear, and cheap per game, at a million games.  Ties go to the smallest
    # game id, as the order of the ids (``rank``) says.
    ok = ~games["error"].to_numpy()
    ids = games["game"].astype(str).to_numpy()
    rank = np.empty(len(ids), dtype=np.int64)
    rank[np.argsort(ids, kind="stable")] = np.arange(len(ids))
    rounds = games["rounds"].to_numpy()
    seat_gi = seats["gi"].to_numpy()
    by_game = np.lexsort((seats["seat"].to_numpy(), seat_gi))
    sorted_gi = seat_gi[by_game]
    # Names by their codes: a column of two million strings (and an index of them to look
    # the win rates up) was half a gigabyte at a million games.
    label_of = np.asarray(seats["participant"].cat.categories.astype(str))
    participant = seats["participant"].cat.codes.to_numpy()

    def who(gi: int) -> list[str]:
        lo, hi = np.searchsorted(sorted_gi, [gi, gi + 1])
        return [str(label_of[p]) for p in participant[by_game[lo:hi]]]

    reasons: dict[int, list[str]] = {}
    clean = games[ok]
    chosen = _typical(clean, rank, rounds, who)
    if upset:
        chosen.extend(_biggest_upset(t, participant, label_of, rank))
    if len(clean):
        index = clean.index.to_numpy()
        longest = int(index[np.lexsort((rank[index], -rounds[index]))[0]])
        chosen.append((longest, f"longest game: {rounds[longest]} rounds"))
    if flagged is not None and len(flagged):
        chosen.extend(_flagged_games(t, flagged, rank))
    for gi, why in chosen:
        reasons.setdefault(gi, []).append(why)
    rows = [{"game": ids[gi], "why": "; ".join(why), "seats": ", ".join(who(gi)),
             "rounds": int(rounds[gi]), "file": replay_file(ids[gi])}
            for gi, why in sorted(reasons.items(), key=lambda kv: ids[kv[0]])]
    return pd.DataFrame(rows, columns=COLUMNS)


def _typical(clean: pd.DataFrame, rank: np.ndarray, rounds: np.ndarray,
             who: Callable[[int], list[str]]) -> list[tuple[int, str]]:
    """Per pairing, the game whose length is nearest its median, and why it was chosen."""
    chosen = []
    for _pairing, group in clean.groupby("pairing", sort=True):
        median = float(group["rounds"].median())
        index = group.index.to_numpy()
        first = int(index[np.lexsort((rank[index], np.abs(rounds[index] - median)))[0]])
        names = " vs ".join(sorted(set(who(first))))
        chosen.append((first, f"typical game of {names}: {rounds[first]} rounds "
                              f"(median {median:g})"))
    return chosen


def _biggest_upset(t: Tables, participant: np.ndarray, label_of: np.ndarray,
                   rank: np.ndarray) -> list[tuple[int, str]]:
    """The biggest upset (see ``_upset``) and why it was chosen, or nothing.  Per
    participant (by code) the win rate of its seats in games without error; NaN for one
    that held none."""
    seats = t.seats
    fine = ~seats["error"].to_numpy()
    share = seats["share"].to_numpy()[fine]
    code = participant[fine]
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = (np.bincount(code, weights=share, minlength=len(label_of))
                 / np.bincount(code, minlength=len(label_of)))
    rate = pd.Series(rates, index=label_of).dropna()
    found = _upset(seats["gi"].to_numpy()[fine], seats["seat"].to_numpy()[fine],
                   seats["win"].to_numpy()[fine], code, label_of, rates, rank)
    if found is None:
        return []
    gi, winner, favourite = found
    return [(gi, f"biggest upset: {winner} ({rate[winner]:.0%} of its games won) "
                 f"beat {favourite} ({rate[favourite]:.0%})")]


def _flagged_games(t: Tables, flagged: pd.DataFrame, rank: np.ndarray
                   ) -> list[tuple[int, str]]:
    """For each of the first ``MAX_CARDS`` flagged cards, the first game (by id) where it
    was completed, and why.  Two columns of the completed cards are read, not a copy of
    the card frame (half a gigabyte at a million games)."""
    done = t.cards["completed"].to_numpy() & ~t.cards["error"].to_numpy()
    categories = list(map(str, t.cards["card"].cat.categories))
    codes = t.cards["card"].cat.codes.to_numpy()[done]
    card_gi = t.cards["gi"].to_numpy()[done]
    del done
    chosen = []
    for card, flag in list(zip(flagged["card"], flagged["flag"]))[:MAX_CARDS]:
        if str(card) not in categories:
            continue
        rows = card_gi[codes == categories.index(str(card))]
        if not len(rows):
            continue
        gi = int(rows[np.argmin(rank[rows])])
        chosen.append((gi, completed_why(str(card), str(flag))))
    return chosen


def completed_why(card: str, flag: str) -> str:
    """Why a flagged card's game was chosen.  A tournament's ``dead`` card is one rarely
    completed, so its game is one of the few where it was: "completed (flagged: dead)" read
    as a contradiction.  A study's flag keeps its own words (its ``dead`` is about price)."""
    if flag.startswith("study"):
        return f"{card} completed ({flag})"
    kinds = [k.strip() for k in flag.split(",")]
    if "dead" in kinds:
        return (f"{card} completed, one of the few games where it was (flagged: {flag}; "
                "dead: rarely completed against its category)")
    return f"{card} completed (flagged: {flag})"


def _upset(gi: np.ndarray, seat: np.ndarray, won: np.ndarray, code: np.ndarray,
           names: np.ndarray, rates: np.ndarray, rank: np.ndarray
           ) -> tuple[int, str, str] | None:
    """The game whose winner has the lowest overall win rate against the best loser at its
    table (the gap largest, above 0; ties to the smallest id): ``(gi, winner, favourite)``,
    the winner and the favourite being each side's best-rated participant (the first seat
    among equals).  The seats of games without error come as columns (``code``: the
    participant's, ``names[code]`` its name, ``rates[code]`` its win rate)."""
    if not len(gi):
        return None
    order = np.lexsort((seat, gi))
    gi, win = gi[order], (won > 0)[order]
    code = code[order]
    r = rates[code]
    games, start = np.unique(gi, return_index=True)
    best_win = np.maximum.reduceat(np.where(win, r, -np.inf), start)
    best_other = np.maximum.reduceat(np.where(win, -np.inf, r), start)
    both = np.isfinite(best_win) & np.isfinite(best_other)
    gap = np.where(both, best_other - best_win, -np.inf)
    top = gap.max()
    if not top > 0:
        return None
    tied = np.flatnonzero(gap == top)
    pick = tied[np.argmin(rank[games[tied]])]
    lo = start[pick]
    hi = start[pick + 1] if pick + 1 < len(start) else len(gi)
    window = slice(lo, hi)

    def first_best(mask: np.ndarray, value: float) -> str:
        idx = np.flatnonzero(mask & (r[window] == value))[0]
        return str(names[code[window][idx]])

    return (int(games[pick]), first_best(win[window], best_win[pick]),
            first_best(~win[window], best_other[pick]))


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


__all__: Sequence[str] = ("REPLAYS", "completed_why", "flagged_cards", "games_to_watch",
                          "replay_file", "watch_text")
