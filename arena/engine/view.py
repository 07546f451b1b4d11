"""What one seat may know (R2.6), and full states sampled from it.

A ``PlayerView`` is built by copying out of the state only what the seat may see; it holds no
reference to the state, so a bot that is given a view cannot reach hidden information by any
attribute path.  Nor does it share a mutable object with the game: the containers the rules
change in place are the view's own copies, and ``tiles`` and ``improvement`` (which the rules
replace) are read-only proxies, so a bot that edits its view (a careless search simulating a
move on it) fails in its own decision instead of corrupting the game.  That protects the game
from mistakes, not from malice: in one process a bot can reach anything (``gc``), which is why
the tournament runs untrusted bots in processes of their own.

The hidden parts are: the objectives in other hands (the view keeps the
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
from types import MappingProxyType
from typing import Any

from arena.engine import rng as splitmix
from arena.engine.board import COPIED_PUBLIC, SHARED_PUBLIC, Board, board_dict, copy_public
from arena.engine.components import ALL_PLOTS, POND_TILE
from arena.engine.options import RuleOptions
from arena.engine.state import STEP_ACTIONS, STEP_NAMES, STEP_PLACE, GameState

#: A deck's places, top first, in runs: a number ``k`` for ``k`` places dealt from the end
#: of the shuffled pool (``pool.pop()`` after ``pool.pop()``), a tuple for places whose
#: card or plot this seat knows; None when it knows none (the deck is the pool in its
#: shuffled order).
_Places = tuple[int | tuple[int, ...], ...] | None
#: ``random.shuffle``'s steps over a list of some length: ``(i, i + 1, bits)`` from the last
#: place down, ``bits`` the bit length of ``i + 1``.
_Steps = tuple[tuple[int, int, int], ...]
#: What every sample re-deals (``PlayerView._sampling``).
_Pools = tuple[
    tuple[int, ...], _Steps, _Places,
    tuple[tuple[tuple[int, ...], _Steps, tuple[tuple[int, int], ...], _Places], ...],
    GameState,
]

_STEPS: dict[int, _Steps] = {}


def _shuffle_steps(n: int) -> _Steps:
    """The steps of ``random.shuffle`` over ``n`` items (worked out once per length)."""
    steps = _STEPS.get(n)
    if steps is None:
        steps = _STEPS[n] = tuple((i, i + 1, (i + 1).bit_length()) for i in range(n - 1, 0, -1))
    return steps


def _shuffle(rng: random.Random, items: list[int], steps: _Steps) -> None:
    """``rng.shuffle(items)``, to the same order with the same draws from ``rng``.

    ``random.Random.shuffle`` swaps place ``i`` with ``randbelow(i + 1)``, which draws
    ``getrandbits(bit length of i + 1)`` until it is below ``i + 1``.  Done here inline,
    without its two calls per place, it is about twice as fast, and a search samples a
    state per iteration.  A subclass of ``Random`` may draw otherwise: it gets its own
    ``shuffle``.
    """
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i, n, bits in steps:
        j = getrandbits(bits)
        while j >= n:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


def _deck_places(size: int, known: dict[int, int]) -> _Places:
    """A deck's places for ``_fill``, in runs of dealt and of known places."""
    if not known:
        return None
    runs: list[int | tuple[int, ...]] = []
    for i in range(size):
        card = known.get(i)
        last = runs[-1] if runs else None
        if card is None:
            if isinstance(last, int):
                runs[-1] = last + 1
            else:
                runs.append(1)
        elif isinstance(last, tuple):
            runs[-1] = (*last, card)
        else:
            runs.append((card,))
    return tuple(runs)


def _fill(places: tuple[int | tuple[int, ...], ...], pool: list[int]) -> tuple[int, ...]:
    """A deck: the known places as they are, the others dealt from the end of ``pool``
    (one place after another, as ``pool.pop()`` would deal them)."""
    dealt = pool[::-1]
    out: list[int] = []
    j = 0
    for run in places:
        if isinstance(run, int):
            out += dealt[j : j + run]
            j += run
        else:
            out += run
    return tuple(out)


#: Read-only proxies by the identity of the dict they show, each holding its dict (so that
#: an identity is not reused while its entry lives).  One proxy per board layout, not one
#: per view: bots cache per layout by the identity of ``tiles`` and ``improvement``.
_PROXIES: dict[int, tuple[dict[int, int], MappingProxyType[int, int]]] = {}
_PROXY_LIMIT = 4096


def read_only(mapping: Any) -> Any:
    """A read-only proxy of a dict of the state, the same proxy for the same dict."""
    if type(mapping) is MappingProxyType:
        return mapping
    entry = _PROXIES.get(id(mapping))
    if entry is not None and entry[0] is mapping:
        return entry[1]
    if len(_PROXIES) >= _PROXY_LIMIT:
        _PROXIES.clear()
    proxy = MappingProxyType(mapping)
    _PROXIES[id(mapping)] = (mapping, proxy)
    return proxy


class PlayerView(Board):
    """The information set of one seat at one moment (a snapshot: it never changes)."""

    # The public fields (``board.FIELDS``) are declared on ``Board``; the view's own here.
    __slots__ = (
        *SHARED_PUBLIC,
        *COPIED_PUBLIC,
        "_plot_ok",
        "_pools",
        "drawn",
        "drawn_count",
        "hand",
        "hand_categories",
        "known_objectives",
        "known_plots",
        "objective_deck_sizes",
        "plot_deck_size",
        "seat",
    )

    seat: int
    #: The plots being chosen from, when this seat is choosing; else empty.
    drawn: tuple[int, ...]
    drawn_count: int
    plot_deck_size: int
    #: ``(position, tile)`` for the plots this seat knows in the deck.
    known_plots: tuple[tuple[int, int], ...]
    objective_deck_sizes: tuple[int, int, int]
    known_objectives: tuple[tuple[tuple[int, int], ...], ...]
    #: This seat's objectives, in draw order.
    hand: tuple[int, ...]
    #: Per seat, the category of each objective in hand, in draw order.
    hand_categories: tuple[tuple[int, ...], ...]
    _pools: _Pools | None

    @classmethod
    def of(cls, state: GameState, seat: int) -> PlayerView:
        """The view of ``seat`` on ``state``."""
        if not 0 <= seat < state.players:
            raise ValueError(f"seat {seat} is not in a {state.players}-player game")
        v = cls.__new__(cls)
        v.seat = seat
        copy_public(state, v)
        # The two dicts the rules replace rather than change: handed out read-only, so a
        # bot that edits its view fails in its own decision instead of changing the game.
        v.tiles = read_only(state.tiles)  # type: ignore[assignment]
        v.improvement = read_only(state.improvement)  # type: ignore[assignment]
        mine = state.current == seat and state.step == STEP_PLACE
        v.drawn = state.drawn if mine else ()
        v.drawn_count = len(state.drawn)
        bit = 1 << seat
        v.plot_deck_size = len(state.plot_deck)
        v.known_plots = tuple(
            (i, t) for i, (t, m) in enumerate(zip(state.plot_deck, state.plot_known)) if m & bit
        )
        v.objective_deck_sizes = tuple(len(d) for d in state.objective_decks)  # type: ignore[assignment]
        v.known_objectives = tuple(
            tuple((i, c) for i, (c, m) in enumerate(zip(deck, known)) if m & bit)
            for deck, known in zip(state.objective_decks, state.objective_known)
        )
        v.hand = state.hands[seat]
        category = state.card_set.categories
        v.hand_categories = tuple(tuple(category[c] for c in h) for h in state.hands)
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
        return [c for c in self.card_set.decks[category] if c not in seen]

    def _sampling(self) -> _Pools:
        """What every sample re-deals, worked out once (a view never changes, however many
        samples a search draws from it): the unseen plots and the deck places they fill,
        and per category the unseen cards, the hand slots (other seat, index) and the deck
        places they fill, each pool with the steps that shuffle it (``_shuffle_steps``); and
        the public game as a state to copy (``_public_state``).
        """
        pools = self._pools
        if pools is None:
            plots = tuple(self.unseen_plots())
            known = dict(self.known_plots)
            cards = []
            for category in range(3):
                unseen = tuple(self.unseen_cards(category))
                slots = tuple(
                    (other, j)
                    for other, cats in enumerate(self.hand_categories)
                    if other != self.seat
                    for j, cat in enumerate(cats)
                    if cat == category
                )
                where = dict(self.known_objectives[category])
                cards.append((
                    unseen, _shuffle_steps(len(unseen)), slots,
                    _deck_places(self.objective_deck_sizes[category], where),
                ))
            pools = self._pools = (
                plots, _shuffle_steps(len(plots)),
                _deck_places(self.plot_deck_size, known), tuple(cards), self._public_state(),
            )
        return pools

    def _public_state(self) -> GameState:
        """A state holding this view's public game, the hidden parts left empty: each
        sample is a copy of it (``GameState.copy`` is written out field by field, faster
        than ``copy_public``'s loop over names) with the hidden parts dealt."""
        s = GameState.__new__(GameState)
        copy_public(self, s)
        s.seed = 0
        s.rng = 0
        s.dice = ()
        s.drawn = self.drawn
        s.plot_deck = ()
        s.hands = []
        s.objective_decks = ((), (), ())
        s.history = None
        s._legal = None
        s._plot_ok = None
        return s

    def determinize(
        self, rng: random.Random, legal: list[int] | None = None
    ) -> GameState:
        """A full state consistent with this view, hidden parts sampled with ``rng``.

        ``legal``: the legal actions of this seat when it is the one to play (what a bot is
        given); the sample's list is the same, so it is reused instead of recomputed.

        The draws from ``rng`` are those of ``rng.shuffle`` on each pool in turn (plots,
        then the three objective categories), done by ``_shuffle``: the same numbers in
        the same order, so a seeded search samples the same states as it always has.
        """
        unseen_plots, plot_steps, plot_places, unseen_cards, public = self._sampling()
        s = public.copy()
        # The board's caches as the view holds them now (it fills them as it is asked).
        s._spaces = self._spaces
        s._edges = self._edges
        s.seed = rng.getrandbits(63)
        s.rng = splitmix.seed_state(rng.getrandbits(64))
        seat = self.seat

        plots = list(unseen_plots)
        _shuffle(rng, plots, plot_steps)
        drawn_count = self.drawn_count
        if drawn_count and not self.drawn:
            s.drawn = tuple(plots[:drawn_count])
            del plots[:drawn_count]
        else:
            s.drawn = self.drawn
        s.plot_deck = tuple(plots) if plot_places is None else _fill(plot_places, plots)

        hands = [list(cats) for cats in self.hand_categories]
        decks = []
        for unseen, steps, slots, places in unseen_cards:
            pool = list(unseen)
            _shuffle(rng, pool, steps)
            for other, j in slots:
                hands[other][j] = pool.pop()
            decks.append(tuple(pool) if places is None else _fill(places, pool))
        hands[seat] = self.hand
        s.hands = [tuple(h) for h in hands]
        s.objective_decks = tuple(decks)
        if legal is not None and self.current == seat:
            s._legal = list(legal)
        s._plot_ok = self._plot_ok
        return s

    # ----------------------------------------------------------------- serialisation

    def to_dict(self) -> dict[str, Any]:
        """Everything in the view, JSON-ready (equal views give equal dicts)."""
        cards = self.card_set.cards
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
            "hand": [cards[c].id for c in self.hand],
            "hand_categories": [list(h) for h in self.hand_categories],
            "completed": [[cards[c].id for c in done] for done in self.completed],
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
        if not self.card_set.is_default():
            data["card_set"] = self.card_set.changes()
        data.update(board_dict(self))
        return data

    def to_json(self) -> str:
        """Canonical text of the view (sorted keys): two views are equal iff their texts are."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlayerView) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(self.to_json())

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its fields, the read-only proxies as plain dicts (a proxy does not
        pickle); the copy is read-only again once unpickled."""
        values = tuple(getattr(self, name, None) for name in _FIELDS)
        values = tuple(dict(v) if type(v) is MappingProxyType else v for v in values)
        return _unpickle_view, (values,)

    def __repr__(self) -> str:
        return (
            f"<PlayerView seat={self.seat} round={self.round} current={self.current} "
            f"step={self.step_name}>"
        )


_FIELDS: tuple[str, ...] = PlayerView.__slots__


#: The board values of the last view unpickled, by field: a new view whose board equals the
#: last one's gets the same objects, so that bots' caches keyed by their identity (one per
#: board layout) keep hitting in a bot process, where every view arrives as a copy.
_LAST_BOARD: dict[str, Any] = {}
_BOARD_FIELDS = ("tiles", "improvement", "irrigated", "channels")


def _unpickle_view(values: tuple[Any, ...]) -> PlayerView:
    v = PlayerView.__new__(PlayerView)
    for name, value in zip(_FIELDS, values):
        if value is not None or name in ("_plot_ok", "_pools", "_spaces", "_edges"):
            setattr(v, name, value)
    v.tiles = MappingProxyType(v.tiles)  # type: ignore[assignment]
    v.improvement = MappingProxyType(v.improvement)  # type: ignore[assignment]
    for name in _BOARD_FIELDS:
        value, last = getattr(v, name), _LAST_BOARD.get(name)
        if last is not None and last == value:
            setattr(v, name, last)
        else:
            _LAST_BOARD[name] = value
    return v


__all__ = ["STEP_ACTIONS", "PlayerView", "RuleOptions"]
