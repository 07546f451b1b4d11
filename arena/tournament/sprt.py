"""Early stopping for a 2-participant match: the GSPRT on deal pairs, as fishtest does it.

The unit of evidence is a *deal pair*: the two games of one deal (same seed, seats swapped).
Its outcome for the first participant is one of five scores (0, ½, 1, 1½, 2 points out of
2), the *pentanomial* counts.  Pairs, not games, because the two games of a deal are
correlated (the deal favours whoever sits well in it); treating them as independent games
would misstate the variance, which is what fishtest fixed by moving to pentanomial counts.

The test is the generalized SPRT of fishtest (``LLR_logistic`` in its ``stats/LLRcalc.py``),
in *logistic* Elo: under H0 the expected pair score is ``L(elo0)``, under H1 ``L(elo1)`` with
``L(x) = 1 / (1 + 10^(-x/400))``; each hypothesis' distribution is the maximum-likelihood
distribution of the five outcomes with that mean, and the log-likelihood ratio of the
observed counts between the two is compared with Wald's bounds ``log(beta / (1 - alpha))``
(accept H0) and ``log((1 - beta) / alpha)`` (accept H1).  Empty cells get fishtest's small
prior (1e-3) so the maximum-likelihood distributions exist from the first pair.

A game is scored 1 for a sole win, ½ for a shared win, 0 otherwise (a game a bot forfeits
by a fault is scored as it stood, the faulty seat never winning).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.tournament.schedule import SprtParams

#: Prior mass for empty cells (fishtest's ``regularize``).
EPSILON = 1e-3
#: The five outcomes of a pair, as a fraction of the 2 points at stake.
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)


def logistic(elo: float) -> float:
    """Expected score of a side ``elo`` logistic-Elo points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds: accept H0 at or below, H1 at or above."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def mle_with_mean(probs: Sequence[float], values: Sequence[float], mean: float) -> list[float]:
    """The distribution on ``values`` closest (in likelihood) to ``probs`` with this mean.

    Maximizing ``sum p_i log q_i`` subject to ``sum q_i = 1`` and ``sum q_i v_i = mean``
    gives ``q_i = p_i / (1 + t (v_i - mean))``, with ``t`` the root of the decreasing
    function ``sum p_i (v_i - mean) / (1 + t (v_i - mean))``, found by bisection.
    """
    x = [v - mean for v in values]
    hi_x, lo_x = max(x), min(x)
    if not (lo_x < 0.0 < hi_x):
        raise ValueError("the mean must lie strictly inside the range of values")
    lo, hi = -1.0 / hi_x, -1.0 / lo_x  # where some 1 + t x_i reaches 0

    def slope(t: float) -> float:
        return sum(p * xi / (1.0 + t * xi) for p, xi in zip(probs, x))

    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if slope(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    t = 0.5 * (lo + hi)
    q = [p / (1.0 + t * xi) for p, xi in zip(probs, x)]
    total = sum(q)
    return [v / total for v in q]


def llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of pentanomial ``counts`` for H1 (elo1) over H0 (elo0).

    ``counts[k]`` is the number of deal pairs where the first participant scored ``k/2``.
    """
    if len(counts) != len(PAIR_SCORES):
        raise ValueError("pentanomial counts have five cells")
    if sum(counts) <= 0:
        return 0.0
    regular = [c if c > 0 else EPSILON for c in counts]
    n = sum(regular)
    probs = [c / n for c in regular]
    q0 = mle_with_mean(probs, PAIR_SCORES, logistic(elo0))
    q1 = mle_with_mean(probs, PAIR_SCORES, logistic(elo1))
    return sum(c * math.log(b / a) for c, a, b in zip(regular, q0, q1))


def game_score(winners: Sequence[int], seat: int) -> float:
    """The points of ``seat`` in one game: 1 alone on top, ½ sharing it, else 0."""
    if seat not in winners:
        return 0.0
    return 1.0 / len(winners)


@dataclass
class SprtState:
    """The running test: pentanomial counts over the first complete deals, in deal order.

    Deals are counted in schedule order only (deal 0, 1, 2, ... each once both its games are
    in), so the decision, and the number of pairs it took, do not depend on which games
    happened to finish first: the same command stops at the same pair on 1 worker or 8.
    """

    params: SprtParams
    counts: list[int] = field(default_factory=lambda: [0] * 5)
    pending: dict[int, dict[int, float]] = field(default_factory=dict)
    next_deal: int = 0
    decision: str | None = None
    value: float = 0.0

    @property
    def bounds(self) -> tuple[float, float]:
        return bounds(self.params.alpha, self.params.beta)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def add(self, deal: int, rotation: int, score: float) -> None:
        """The first participant's score in one game (``rotation`` 0 or 1 of ``deal``)."""
        self.pending.setdefault(deal, {})[rotation] = score
        while not self.decision and len(self.pending.get(self.next_deal, {})) == 2:
            both = self.pending.pop(self.next_deal)
            self.counts[round(2 * sum(both.values()))] += 1
            self.next_deal += 1
            self.value = llr(self.counts, self.params.elo0, self.params.elo1)
            lower, upper = self.bounds
            if self.value >= upper:
                self.decision = "H1"
            elif self.value <= lower:
                self.decision = "H0"

    def describe(self) -> str:
        """One line: the decision (or none yet), the LLR with its bounds, the pair counts."""
        lower, upper = self.bounds
        p = self.params
        what = {"H1": f"H1 accepted (elo >= {p.elo1:g})", "H0": f"H0 accepted (elo <= {p.elo0:g})",
                None: "no decision yet"}[self.decision]
        return (f"SPRT elo0={p.elo0:g} elo1={p.elo1:g} alpha={p.alpha:g} beta={p.beta:g}: "
                f"{what}; LLR {self.value:.2f} in [{lower:.2f}, {upper:.2f}] after "
                f"{self.pairs} deal pairs, pentanomial {self.counts}")

    def result(self) -> dict[str, Any]:
        """What the manifest records under ``sprt.result``."""
        lower, upper = self.bounds
        return {"accepted": self.decision, "llr": round(self.value, 4),
                "lower": round(lower, 4), "upper": round(upper, 4), "pairs": self.pairs,
                "pentanomial": list(self.counts), "elo_model": "logistic"}
