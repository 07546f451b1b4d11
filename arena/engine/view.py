"""What one seat may know (R2.6), and full states sampled from it.

A ``PlayerView`` is built by copying out of the state only what the seat may see; it holds no
reference to the state, so a bot that is given a view cannot reach hidden information by any
attribute path.  The hidden parts are: the objectives in other hands (the view keeps the
category of each, in draw order, since everyone saw which deck each came from), the order of
every deck (the view keeps its size, and the plots or cards this seat itself put under it and
where), the plots another seat is choosing from, the generator's state and the game seed
(which would give the deck orders away), and the scripted dice.

``determinize(rng)`` returns a ``GameState`` consistent with the view: the hidden cards
re-dealt at random from those this seat has not seen, deck orders reshuffled, a fresh
generator.  This is information-set sampling as in OpenSpiel's ``resample_from_infostate`` or
TAG's ``copy(playerId)``.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from . import rng as splitmix
from .components import ALL_PLOTS, CARD_CATEGORY, CARDS, CATEGORY_CARDS, POND_TILE
from .options import RuleOptions
from .state import ACTIONS, PLACE_STEP, STEP_NAMES, Board, GameState, copy_public

#: The unseen plots, and per category the unseen cards with the hand slots they fill.
_Pools = tuple[tuple[int, ...], list[tuple[tuple[int, ...], list[tuple[int, int]]]]]


class PlayerView(Board):
    """The information set of one seat at one moment (a snapshot: it never changes)."""

    __slots__ = (
        "_edges",
        "_plot_ok",
        "_pools",
        "_spaces",
        "bamboo",
        "capped",
        "channels",
        "completed",
        "current",
        "drawn",
        "drawn_count",
        "eaten",
        "emperor",
        "ended",
        "gardener",
        "hand",
        "hand_categories",
        "improvement",
        "irrigated",
        "irrigated_by_colour",
        "known_objectives",
        "known_plots",
        "last_turns",
        "network",
        "objective_deck_sizes",
        "objective_known",
        "options",
        "panda",
        "players",
        "plot_deck_size",
        "plot_known",
        "put_back",
        "reserve_channels",
        "reserve_improvements",
        "round",
        "seat",
        "shoots",
        "step",
        "stored_channels",
        "stored_improvements",
        "taken",
        "tiles",
        "weather",
    )  # fmt: skip

    seat: int
    players: int
    round: int
    current: int
    step: int
    weather: int
    taken: tuple[int, ...]
    #: The plots being chosen from, when this seat is choosing; else empty.
    drawn: tuple[int, ...]
    drawn_count: int
    #: Per category, the satisfied cards put back during the draw in progress (step
    #: ``redraw``): public, as the ``returned`` events show each card's deck to everyone.
    put_back: tuple[int, int, int]
    reserve_channels: int
    reserve_improvements: tuple[int, int, int, int]
    plot_deck_size: int
    #: Per deck position (top first), a bit mask of the seats that know the plot there.
    plot_known: tuple[int, ...]
    #: ``(position, tile)`` for the plots this seat knows in the deck.
    known_plots: tuple[tuple[int, int], ...]
    objective_deck_sizes: tuple[int, int, int]
    objective_known: tuple[tuple[int, ...], ...]
    known_objectives: tuple[tuple[tuple[int, int], ...], ...]
    #: This seat's objectives, in draw order.
    hand: tuple[int, ...]
    #: Per seat, the category of each objective in hand, in draw order.
    hand_categories: tuple[tuple[int, ...], ...]
    completed: list[tuple[int, ...]]
    stored_channels: list[int]
    stored_improvements: list[tuple[int, int, int, int]]
    emperor: int
    last_turns: int
    ended: bool
    capped: bool

    @classmethod
    def of(cls, state: GameState, seat: int) -> PlayerView:
        """The view of ``seat`` on ``state``."""
        if not 0 <= seat < state.players:
            raise ValueError(f"seat {seat} is not in a {state.players}-player game")
        v = cls.__new__(cls)
        v.seat = seat
        copy_public(state, v)
        mine = state.current == seat and state.step == PLACE_STEP
        v.drawn = state.drawn if mine else ()
        v.drawn_count = len(state.drawn)
        bit = 1 << seat
        v.plot_deck_size = len(state.plot_deck)
        v.plot_known = state.plot_known
        v.known_plots = tuple(
            (i, t) for i, (t, m) in enumerate(zip(state.plot_deck, state.plot_known)) if m & bit
        )
        v.objective_deck_sizes = tuple(len(d) for d in state.objective_decks)  # type: ignore[assignment]
        v.objective_known = state.objective_known
        v.known_objectives = tuple(
            tuple((i, c) for i, (c, m) in enumerate(zip(deck, known)) if m & bit)
            for deck, known in zip(state.objective_decks, state.objective_known)
        )
        v.hand = state.hands[seat]
        v.hand_categories = tuple(tuple(CARD_CATEGORY[c] for c in h) for h in state.hands)
        # Not the state's cache of plot objectives: it is keyed by the cards the state was
        # asked about, other seats' hands included (R2.6).  The view starts its own.
        v._plot_ok = None
        v._pools = None
        return v

    @property
    def step_name(self) -> str:
        return STEP_NAMES[self.step]

    def hand_size(self, seat: int) -> int:
        """How many objectives a seat holds."""
        return len(self.hand_categories[seat])

    def scores(self) -> list[int]:
        """Points per seat now (public: completed cards and the Emperor)."""
        out = [sum(CARDS[c].points for c in done) for done in self.completed]
        if self.emperor >= 0:
            out[self.emperor] += self.options.emperor_points
        return out

    # ----------------------------------------------------------------- sampling

    def unseen_plots(self) -> list[int]:
        """Plots this seat has not seen: in the deck unknown to it, or being chosen by another."""
        pool = Counter(ALL_PLOTS)
        pool.subtract(t for c, t in self.tiles.items() if t != POND_TILE)
        pool.subtract(t for _i, t in self.known_plots)
        pool.subtract(self.drawn)
        return sorted(pool.elements())

    def unseen_cards(self, category: int) -> list[int]:
        """Cards of a category this seat has not seen (other hands and unknown deck places)."""
        seen = {c for done in self.completed for c in done}
        seen.update(self.hand)
        seen.update(c for _i, c in self.known_objectives[category])
        return [c for c in CATEGORY_CARDS[category] if c not in seen]

    def _sampling(self) -> _Pools:
        """What every sample re-deals: the unseen plots, and per category the unseen cards
        with the hand slots (other seat, index) they fill.

        A view never changes, so this is worked out once, however many samples a search
        draws from it.
        """
        pools = self._pools
        if pools is None:
            cards = []
            for category in range(3):
                slots = [
                    (other, j)
                    for other, cats in enumerate(self.hand_categories)
                    if other != self.seat
                    for j, cat in enumerate(cats)
                    if cat == category
                ]
                cards.append((tuple(self.unseen_cards(category)), slots))
            pools = self._pools = (tuple(self.unseen_plots()), cards)
        return pools

    def determinize(
        self, rng: random.Random, legal: list[int] | None = None
    ) -> GameState:
        """A full state consistent with this view, hidden parts sampled with ``rng``.

        ``legal``: the legal actions of this seat when it is the one to play (what a bot is
        given); the sample's list is the same, so it is reused instead of recomputed.
        """
        s = GameState.__new__(GameState)
        copy_public(self, s)
        s.seed = rng.getrandbits(63)
        s.rng = splitmix.seed_state(rng.getrandbits(64))
        s.dice = ()
        seat = self.seat
        unseen_plots, unseen_cards = self._sampling()

        plots = list(unseen_plots)
        rng.shuffle(plots)
        if self.drawn_count and not self.drawn:
            s.drawn = tuple(plots[: self.drawn_count])
            del plots[: self.drawn_count]
        else:
            s.drawn = self.drawn
        if self.known_plots:
            known = dict(self.known_plots)
            s.plot_deck = tuple(
                known[i] if i in known else plots.pop() for i in range(self.plot_deck_size)
            )
        else:
            s.plot_deck = tuple(plots)
        s.plot_known = self.plot_known

        hands = [list(cats) for cats in self.hand_categories]
        hands[seat] = list(self.hand)
        decks = []
        for category, (unseen, slots) in enumerate(unseen_cards):
            pool = list(unseen)
            rng.shuffle(pool)
            for other, j in slots:
                hands[other][j] = pool.pop()
            known_cards = self.known_objectives[category]
            if known_cards:
                where = dict(known_cards)
                decks.append(
                    tuple(
                        where[i] if i in where else pool.pop()
                        for i in range(self.objective_deck_sizes[category])
                    )
                )
            else:
                decks.append(tuple(pool))
        s.hands = [tuple(h) for h in hands]
        s.objective_decks = tuple(decks)
        s.objective_known = self.objective_known
        s.history = None
        s._legal = list(legal) if legal is not None and self.current == seat else None
        s._plot_ok = self._plot_ok
        return s

    # ----------------------------------------------------------------- serialisation

    def to_dict(self) -> dict[str, Any]:
        """Everything in the view, JSON-ready (equal views give equal dicts)."""
        from .position import board_dict

        data: dict[str, Any] = {
            "seat": self.seat,
            "players": self.players,
            "options": self.options.to_dict(only_changed=True),
            "round": self.round,
            "current": self.current,
            "step": self.step_name,
            "weather": self.weather,
            "taken": list(self.taken),
            "drawn": list(self.drawn),
            "drawn_count": self.drawn_count,
            "put_back": list(self.put_back),
            "plot_deck_size": self.plot_deck_size,
            "plot_known": list(self.plot_known),
            "known_plots": [list(x) for x in self.known_plots],
            "objective_deck_sizes": list(self.objective_deck_sizes),
            "objective_known": [list(k) for k in self.objective_known],
            "known_objectives": [[list(x) for x in k] for k in self.known_objectives],
            "hand": [CARDS[c].id for c in self.hand],
            "hand_categories": [list(h) for h in self.hand_categories],
            "completed": [[CARDS[c].id for c in done] for done in self.completed],
            "eaten": [list(e) for e in self.eaten],
            "stored_channels": list(self.stored_channels),
            "stored_improvements": [list(i) for i in self.stored_improvements],
            "reserve_channels": self.reserve_channels,
            "reserve_improvements": list(self.reserve_improvements),
            "emperor": self.emperor,
            "last_turns": self.last_turns,
            "ended": self.ended,
            "capped": self.capped,
        }
        data.update(board_dict(self))
        return data

    def to_json(self) -> str:
        """Canonical text of the view (sorted keys): two views are equal iff their texts are."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlayerView) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(self.to_json())

    def __repr__(self) -> str:
        return (
            f"<PlayerView seat={self.seat} round={self.round} current={self.current} "
            f"step={self.step_name}>"
        )


__all__ = ["ACTIONS", "PlayerView", "RuleOptions"]
