"""The game state and its forward model: legal actions, apply, copy, result.

One ``GameState`` is the whole truth of a game at a decision point.  Its layout is chosen for
search: everything is ints, tuples, small dicts and frozensets; structures that rarely change
(tiles, improvements, channels, irrigation) are replaced rather than mutated, so ``copy()``
shares them and only copies the few containers that change every turn (``board.FIELDS``
says which, for every field).  Derived sets that are costly to build (placement spaces,
channel spots, plot objectives found) are cached and dropped when what they depend on
changes.

Chance (the die, deck orders) comes only from the state's SplitMix64 generator, so a seed, the
options and the players' choices determine the game bit for bit (R2.5).

Forced steps are taken by the engine: a turn with nothing left to do but ``end`` ends, a
weather effect with no possible target is skipped, and a replacement card that only one deck
can give is drawn from it; each only when no free move is open either, since R3.1 allows free
moves at every decision of the player's own turn (with a stored channel, rain with no target
is still a choice: the channel may give it one).  They carry no choice, so they are not
decisions, and the history records only real choices and chance.  At an action step ``apply``
finds a forced end with a cheap test (``_only_end``) and leaves the legal list to be built
when asked for: a search applies many actions to copies whose legal lists it never reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine import grid, rng
from arena.engine.actions import (
    A_MASK,
    A_SHIFT,
    ACTION_BITS,
    B_SHIFT,
    CHANNEL,
    CLOUDS,
    CLOUDS_KEEP,
    CLOUDS_MOVE,
    COMPLETE,
    END,
    GARDENER,
    IMPROVE,
    IRRIGATE,
    IRRIGATE_KEEP,
    KIND_MASK,
    OBJECTIVE,
    PANDA,
    PLACE,
    PLOT,
    RAIN,
    REDRAW,
    SKIP,
    STORM,
    TURN_ACTION,
    TURN_GARDENER,
    TURN_IRRIGATION,
    TURN_OBJECTIVE,
    TURN_PANDA,
    TURN_PLOT,
    WEATHER,
    action_text,
    place,
)
from arena.engine.board import COPIED, FIELD_NAMES, FIELDS, HISTORY, Board
from arena.engine.components import (
    ALL_PLOTS,
    CATEGORIES,
    CHANNELS,
    DEFAULT_CARD_SET,
    ENCLOSURE,
    FACE_CHOICE,
    FACE_CLOUDS,
    FACE_RAIN,
    FACE_STORM,
    FACE_SUN,
    FACE_WIND,
    FERTILIZER,
    GARDENER_CARD,
    IMPROVEMENT_TOKENS,
    PANDA_CARD,
    PLOT_CARD,
    POND_TILE,
    WATERSHED,
    CardSet,
)
from arena.engine.errors import IllegalActionError, OptionError, PlacementError, refusal
from arena.engine.history import (
    DEALT,
    DREW,
    DREW_PLOTS,
    EMPEROR,
    GAME_OVER,
    MOVE,
    RETURNED,
    ROLLED,
    event_text,
)
from arena.engine.objectives import shoot_slot
from arena.engine.options import DEFAULTS, RuleOptions

# Decision steps of a turn (the position's ``turn.step``).  ``STEP_`` keeps them apart from
# the action kinds (``actions.RAIN``) and the weather faces (``components.FACE_RAIN``).
(
    STEP_ROLL,
    STEP_CHOOSE_WEATHER,
    STEP_RAIN,
    STEP_STORM,
    STEP_CLOUDS,
    STEP_ACTIONS,
    STEP_PLACE,
    STEP_REDRAW,
) = range(8)
STEP_NAMES: tuple[str, ...] = (
    "roll", "choose_weather", "rain", "storm", "clouds", "actions", "place", "redraw",
)  # fmt: skip
#: ``put_back`` outside the redraw step: no card put back.
NONE_PUT_BACK = (0, 0, 0)
#: The most objectives a hand holds (R10.2).
MAX_HAND = 5

NO_SEAT = -1
POND = grid.POND
_RAYS = grid.RAYS
_NEIGHBOURS = grid.NEIGHBOURS
_POND_RING = grid.POND_RING
_EDGE_CELLS = grid.EDGE_CELLS
_EDGE_ENDS = grid.EDGE_ENDS


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of a game (R13): what a game record keeps per player (R13.5)."""

    scores: tuple[int, ...]
    panda_points: tuple[int, ...]
    winners: tuple[int, ...]
    #: ``none`` (one top score), ``panda`` (decided by panda points) or ``shared``.
    tiebreak: str
    emperor: int | None
    capped: bool
    rounds: int
    completed: tuple[tuple[str, ...], ...]
    #: Seats left out of the winners because their bot failed (tournament faults).
    excluded: tuple[int, ...] = ()

    def won_by_tiebreak(self, seat: int) -> bool:
        """Whether this seat won through the panda tie-break (R13.5)."""
        return self.tiebreak == "panda" and seat in self.winners

    def shared(self, seat: int) -> bool:
        """Whether this seat shares the victory (R13.5)."""
        return self.tiebreak == "shared" and seat in self.winners

    def to_dict(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "panda_points": list(self.panda_points),
            "winners": list(self.winners),
            "tiebreak": self.tiebreak,
            "emperor": self.emperor,
            "capped": self.capped,
            "rounds": self.rounds,
            "completed": [list(c) for c in self.completed],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], excluded: Sequence[int] = ()) -> GameResult:
        """The result ``to_dict`` wrote, its lists tuples again: what the native engine
        hands over (``takenoko::facts::result_dict``), with the seats that could not win."""
        return cls(
            scores=tuple(data["scores"]),
            panda_points=tuple(data["panda_points"]),
            winners=tuple(data["winners"]),
            tiebreak=data["tiebreak"],
            emperor=data["emperor"],
            capped=data["capped"],
            rounds=data["rounds"],
            completed=tuple(tuple(c) for c in data["completed"]),
            excluded=tuple(excluded),
        )


def _written_out(stub: Callable[..., GameState]) -> Callable[..., GameState]:
    """``GameState.copy`` with its body generated from ``FIELDS``: one line per field.

    The copy is the hot path of every search: written out field by field it costs 1.2 µs,
    a loop over the names (``copy_public``'s ``getattr``/``setattr``) 4.1 µs.  So the lines
    are written from the table when the module loads, as ``collections.namedtuple`` and
    ``dataclasses`` write theirs, and a field added to the table cannot be left uncopied.
    ``GameState`` is looked up when the copy runs, as in a method written by hand.
    """
    lines = [
        f"def {stub.__name__}(self, *, history=False):",
        "    s = GameState.__new__(GameState)",
    ]
    for name, how, _public in FIELDS:
        if how == COPIED:
            value = f"self.{name}.copy()"
        elif how == HISTORY:
            value = f"list(self.{name}) if history and self.{name} is not None else None"
        else:
            value = f"self.{name}"
        lines.append(f"    s.{name} = {value}")
    lines.append("    return s")
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), globals(), namespace)
    method = namespace[stub.__name__]
    method.__qualname__ = stub.__qualname__
    method.__doc__ = stub.__doc__
    method.__annotations__ = stub.__annotations__
    return method


class GameState(Board):
    """A Takenoko game at a decision point: the OpenSpiel-style ``State`` of our engine.

    Create one with :func:`new_game` or from a position (``position.py``).  ``legal_actions()``
    lists what the ``current`` seat may do; ``apply(action)`` does it (trusting the caller,
    for speed; ``play`` checks).  ``copy()`` is cheap.  Mutating the containers a state hands
    out (the legal list, dicts, lists) corrupts it: copy them first.
    """

    __slots__ = FIELD_NAMES

    # The public fields are declared on ``Board``; the rest here.
    seed: int
    rng: int
    dice: tuple[int, ...]
    drawn: tuple[int, ...]
    plot_deck: tuple[int, ...]
    objective_decks: tuple[tuple[int, ...], ...]
    hands: list[tuple[int, ...]]
    history: list[tuple] | None
    _legal: list[int] | None

    # ----------------------------------------------------------------- basic queries

    def legal_actions(self) -> list[int]:
        """The actions the current seat may choose now (empty once the game is over)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return legal

    def _invalidate(self) -> None:
        """Forget the cached legal actions of a copy a named edit (``with_hand``,
        ``with_step``, ...) changed: the legal list derived from the edited fields must
        then be recomputed.  Private: the native state has no such call, its edits do it."""
        self._legal = None

    def is_terminal(self) -> bool:
        """Whether the game is over (R13.2, or the ``max_rounds`` cap)."""
        return self.ended

    @property
    def step_name(self) -> str:
        """The decision step as in positions: ``actions``, ``place``, ``rain``, ..."""
        return STEP_NAMES[self.step]

    def actions_left(self) -> int:
        """Actions the current seat may still take this turn (R3.3, R4.1)."""
        return (3 if self.weather == FACE_SUN else 2) - len(self.taken)

    @_written_out
    def copy(self, *, history: bool = False) -> GameState:
        """A cheap, independent copy; the history is dropped unless asked for (search).

        Its body is one line per field of ``FIELDS`` (shared, copied, or the history as
        asked), written when the module loads: see ``_written_out``.
        """

    def with_hidden_from(self, sample: GameState, seat: int) -> GameState:
        """A copy of this state holding ``sample``'s hidden parts: the seed, generator and
        scripted dice, the order of the decks and the other seats' hands (``seat``'s own
        hand, the plots drawn and who knows which deck places stay this state's).

        Information-set search needs it: a state reached from the root by actions of
        ``seat`` that read nothing hidden is the same in every sample but for those parts,
        so ``bots.mcts_search`` keeps one per tree node and gives it each new sample's hidden
        parts, instead of applying the same actions to every sample again.
        """
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is not in the game")
        s = self.copy()
        s.seed = sample.seed
        s.rng = sample.rng
        s.dice = sample.dice
        s.plot_deck = sample.plot_deck
        s.objective_decks = sample.objective_decks
        hands = sample.hands.copy()
        hands[seat] = self.hands[seat]
        s.hands = hands
        return s

    # ------------------------------------------------- named edits (``arena.engine.api``)

    def with_hand(self, seat: int, hand: Sequence[int]) -> GameState:
        """A copy in which ``seat`` holds ``hand`` (search asks "what if" of its copies:
        the objective bot values a draw with the drawn card set aside)."""
        if not 0 <= seat < self.players:
            raise IndexError(f"seat {seat} is not in the game")
        if len(hand) > MAX_HAND:
            raise ValueError(f"hand: at most {MAX_HAND} cards")
        for card in hand:
            if not 0 <= card < len(self.card_set.cards):
                raise IndexError(f"{card} is not a card index")
        s = self.copy()
        s.hands = self.hands.copy()
        s.hands[seat] = tuple(hand)
        s._invalidate()
        return s

    def with_hidden(
        self,
        *,
        hands: Sequence[Sequence[int]] | None = None,
        objective_decks: Sequence[Sequence[int]] | None = None,
        plot_deck: Sequence[int] | None = None,
        drawn: Sequence[int] | None = None,
        rng: int | None = None,
        seed: int | None = None,
    ) -> GameState:
        """A copy (history kept) with the hidden parts given replaced: a test's or a
        diagnostic's twin that differs from this state only in what some seat cannot see."""
        s = self.copy(history=True)
        if hands is not None:
            s.hands = [tuple(h) for h in hands]
        if objective_decks is not None:
            s.objective_decks = tuple(tuple(d) for d in objective_decks)
        if plot_deck is not None:
            s.plot_deck = tuple(plot_deck)
        if drawn is not None:
            s.drawn = tuple(drawn)
        s.rng = self.rng if rng is None else rng
        s.seed = self.seed if seed is None else seed
        s._invalidate()
        return s

    def with_step(self, step: int, weather: int) -> GameState:
        """A copy at another step of the turn with another weather (the objective bot's
        probe: what one more action would be worth)."""
        if not 0 <= step < len(STEP_NAMES):
            raise ValueError(f"{step} is not a step")
        if not -1 <= weather <= 5:
            raise ValueError(f"{weather} is not a weather")
        s = self.copy()
        s.step = step
        s.weather = weather
        s._invalidate()
        return s

    def share_layout(self, other: GameState) -> None:
        """Take the layout values of ``other``, a state with the same layout: the same
        objects (tiles, irrigation, channels, improvements) from now on, as a search
        canonicalises its layouts for the caches that find a layout by identity."""
        self.tiles, self.irrigated = other.tiles, other.irrigated
        self.channels, self.improvement = other.channels, other.improvement

    def __copy__(self) -> GameState:
        return self.copy()

    # ----------------------------------------------------------------- experiments

    def place_card(self, card: int, *, seat: int | None = None, depth: int | None = None
                   ) -> None:
        """Put objective ``card`` in a chosen place of the deal, by exchanging the places
        of two cards of its category; allowed only before the first decision of the game.

        With ``seat``: that seat holds ``card`` in place of the card of that category it
        was dealt (R2.3), and ``card``'s old place (another seat's hand, or its position in
        its deck) takes the dealt card.  With ``depth``: ``card`` sits at position
        ``depth`` of its category's deck (0 is the top, the next card drawn), and the card
        that was there takes ``card``'s old place.  Exactly one of the two is given; a card
        already in the place asked for changes nothing.

        Why: an experiment asks what holding a card is worth by playing one seed with
        different cards in one place.  The die, the plots, the other cards and the bots'
        random streams stay as the seed made them, so two such games differ by the card
        alone.  The history's deal entries are rewritten to the hands as they now are: the
        bots are told of the deal they hold, and a record that carries the placement (its
        ``intervention``) replays to the same history.  Raises PlacementError (one
        sentence) when the game has begun, or the card, seat or depth is not in range.
        """
        if (seat is None) == (depth is None):
            raise PlacementError("place_card takes exactly one of seat= and depth=")
        if not (self.round == 1 and self.current == 0 and not self.taken
                and self.step == STEP_ACTIONS and len(self.tiles) == 1
                and not any(self.completed) and not self.ended):
            raise PlacementError("a card can be placed only before the first decision of "
                                 "the game")
        cards = self.card_set
        if type(card) is not int or not 0 <= card < len(cards):
            raise refusal(PlacementError,
                          f"{{value}} is not an objective card (0..{len(cards) - 1})", value=card)
        name = cards.card(card).id
        if card in cards.removed:
            raise PlacementError(f"{name} is removed from this game's card set")
        category = cards.category(card)
        category_name = CATEGORIES[category]
        deck = self.objective_decks[category]
        if seat is not None:
            if type(seat) is not int or not 0 <= seat < self.players:
                raise refusal(PlacementError, "seat {value} is not a seat of this "
                              f"{self.players}-player game", value=seat)
            there = next((c for c in self.hands[seat] if cards.category(c) == category), None)
            if there is None:
                raise PlacementError(f"seat {seat} holds no {category_name} card")
        else:
            if type(depth) is not int or not 0 <= depth < len(deck):
                raise refusal(PlacementError, "depth {value} is not a place of the "
                              f"{category_name} deck (0..{len(deck) - 1})", value=depth)
            there = deck[depth]
        if there == card:
            return
        # The two cards exchange places wherever they are: two hands, or a hand and the deck.
        swap = {card: there, there: card}
        self.hands[:] = [tuple(swap.get(c, c) for c in hand) for hand in self.hands]
        decks = list(self.objective_decks)
        decks[category] = tuple(swap.get(c, c) for c in deck)
        self.objective_decks = tuple(decks)
        if self.history is not None:
            self.history[:] = [(DEALT, 0, e[2], self.hands[e[2]]) if e[0] == DEALT else e
                               for e in self.history]
        self._legal = None

    # ----------------------------------------------------------------- legal actions

    def _generate(self) -> list[int]:
        if self.ended:
            return []
        step = self.step
        if step == STEP_ACTIONS:
            return self._legal_turn()
        if step == STEP_ROLL:
            return []  # a chance node, resolved by _advance: no free move before it (R3.1)
        # R3.1: the free moves at every decision of the turn, before the step's own choices.
        out = self._free_moves()
        if step == STEP_PLACE:
            out += self._legal_place()
        elif step == STEP_RAIN:
            out += [RAIN | c << A_SHIFT for c in self.rain_targets()]
            out.append(SKIP)
        elif step == STEP_STORM:
            out += self._legal_storm()
        elif step == STEP_CLOUDS:
            out += self._legal_clouds()
        elif step == STEP_CHOOSE_WEATHER:
            out += self._legal_weather()
        else:
            out += self._legal_redraw()
        return out

    def _legal_turn(self) -> list[int]:
        out = self._free_moves()
        taken = self.taken
        if len(taken) < (3 if self.weather == FACE_SUN else 2):
            repeat = self.weather == FACE_WIND
            if self.plot_deck and (repeat or TURN_PLOT not in taken):
                out.append(PLOT)
            if self.reserve_channels and (repeat or TURN_IRRIGATION not in taken):
                out.append(IRRIGATE_KEEP)
                for e in self.channel_spots():
                    out.append(IRRIGATE | e << A_SHIFT)
            tiles = self.tiles
            if repeat or TURN_GARDENER not in taken:
                for ray in _RAYS[self.gardener]:
                    for c in ray:
                        if c not in tiles:
                            break
                        out.append(GARDENER | c << A_SHIFT)
            if repeat or TURN_PANDA not in taken:
                for ray in _RAYS[self.panda]:
                    for c in ray:
                        if c not in tiles:
                            break
                        out.append(PANDA | c << A_SHIFT)
            if len(self.hands[self.current]) < 5 and (repeat or TURN_OBJECTIVE not in taken):
                decks = self.objective_decks
                for k in (0, 1, 2):
                    if decks[k]:
                        out.append(OBJECTIVE | k << B_SHIFT)
        out.append(END)
        return out

    def _free_moves(self) -> list[int]:
        """The free moves of R9 open to the current seat now: completions first, then stored
        channels, then stored improvements (R3.1 allows them at every decision of the turn)."""
        s = self.current
        out: list[int] = []
        for card in self.hands[s]:
            if self._objective_found(s, card):
                out.append(COMPLETE | card << B_SHIFT)
        if self.stored_channels[s]:
            for e in self.channel_spots():
                out.append(CHANNEL | e << A_SHIFT)
        stored = self.stored_improvements[s]
        if stored[1] or stored[2] or stored[3]:
            spots = self.improvable_plots()
            for imp in (1, 2, 3):
                if stored[imp]:
                    for c in spots:
                        out.append(IMPROVE | c << A_SHIFT | imp << B_SHIFT)
        return out

    def _legal_redraw(self) -> list[int]:
        """The decks that can give a replacement (R12 ``redraw_satisfied=all``): those with a
        card on top that this draw has not already put back."""
        decks, put_back = self.objective_decks, self.put_back
        return [REDRAW | k << B_SHIFT for k in (0, 1, 2) if len(decks[k]) > put_back[k]]

    def _only_end(self) -> bool:
        """Whether ``_legal_turn()`` would be ``[END]``: the same tests, stopping at the first
        action found (the cheap ones first)."""
        taken = self.taken
        if len(taken) < (3 if self.weather == FACE_SUN else 2):
            if self.plot_deck and (TURN_PLOT not in taken or self.weather == FACE_WIND):
                return False
            repeat = self.weather == FACE_WIND
            if self.reserve_channels and (repeat or TURN_IRRIGATION not in taken):
                return False
            tiles = self.tiles
            if repeat or TURN_GARDENER not in taken:
                for ray in _RAYS[self.gardener]:
                    if ray and ray[0] in tiles:
                        return False
            if repeat or TURN_PANDA not in taken:
                for ray in _RAYS[self.panda]:
                    if ray and ray[0] in tiles:
                        return False
            if len(self.hands[self.current]) < 5 and (repeat or TURN_OBJECTIVE not in taken):
                decks = self.objective_decks
                if decks[0] or decks[1] or decks[2]:
                    return False
        s = self.current
        if self.stored_channels[s] and self.channel_spots():
            return False
        stored = self.stored_improvements[s]
        if (stored[1] or stored[2] or stored[3]) and self.improvable_plots():
            return False
        return not any(self._objective_found(s, card) for card in self.hands[s])

    def _legal_place(self) -> list[int]:
        drawn = self.drawn
        spaces = self.placement_spaces()
        stored = self.stored_improvements[self.current]
        extras = [imp for imp in (1, 2, 3) if stored[imp]]
        out = []
        for k, tile in enumerate(drawn):
            if tile in drawn[:k]:
                continue  # the same plot as an earlier one: the same choices
            others = drawn[:k] + drawn[k + 1 :]
            swaps = (False, True) if len(others) == 2 and others[0] != others[1] else (False,)
            improvements = [0] if tile & 3 else [0, *extras]
            for c in spaces:
                for imp in improvements:
                    for swap in swaps:
                        out.append(place(k, c, imp, swap))
        return out

    def _legal_storm(self) -> list[int]:
        panda = self.panda
        out = [STORM | c << A_SHIFT for c in sorted(self.tiles) if c != panda]
        out.append(SKIP)
        return out

    def _legal_clouds(self) -> list[int]:
        out = []
        reserve = self.reserve_improvements
        if reserve[1] or reserve[2] or reserve[3]:
            spots = sorted(self.improvable_plots())
            keep = self.options.cloud_keep
            for imp in (1, 2, 3):
                if reserve[imp]:
                    for c in spots:
                        out.append(CLOUDS | c << A_SHIFT | imp << B_SHIFT)
                    if keep:
                        out.append(CLOUDS_KEEP | imp << B_SHIFT)
        elif self.options.cloud_when_empty == "move_improvement":
            spots = sorted(self.improvable_plots())
            for src in sorted(self.token_improvements()):
                for dst in spots:
                    out.append(CLOUDS_MOVE | src << A_SHIFT | dst << B_SHIFT)
        out.append(SKIP)
        return out

    def _clouds_possible(self) -> bool:
        """Whether the clouds face could do anything now (so choosing it is a real choice)."""
        reserve = self.reserve_improvements
        if reserve[1] or reserve[2] or reserve[3]:
            return self.options.cloud_keep or bool(self.improvable_plots())
        if self.options.cloud_when_empty == "move_improvement":
            return bool(self.token_improvements()) and bool(self.improvable_plots())
        return False

    def _legal_weather(self) -> list[int]:
        # A face that could have no effect is left out: it is dominated by sun (which
        # allows everything a plain turn does), so the list holds only real choices.
        faces = [FACE_SUN]
        if self.rain_targets():
            faces.append(FACE_RAIN)
        faces.append(FACE_WIND)
        if len(self.tiles) > 1:
            faces.append(FACE_STORM)
        if self.weather == FACE_CHOICE and self._clouds_possible():
            faces.append(FACE_CLOUDS)
        return [WEATHER | f << B_SHIFT for f in faces]

    # ----------------------------------------------------------------- applying actions

    def play(self, action: int) -> None:
        """Apply an action after checking it is legal; raises IllegalActionError if not."""
        if action >> ACTION_BITS:
            raise IllegalActionError(f"{action} is not an action")
        if action not in self.legal_actions():
            raise IllegalActionError(
                f"action {action_text(action, self.card_set)!r} is not legal at this step "
                f"(round {self.round}, seat {self.current}, step {self.step_name})"
            )
        self.apply(action)

    def apply(self, action: int) -> None:
        """Apply a legal action of the current seat, then resolve chance and forced steps."""
        if action >> ACTION_BITS:  # no action: negative, or beyond the native engine's 32 bits
            raise IllegalActionError(f"{action} is not an action")
        kind = action & KIND_MASK
        s = self.current
        if self.history is not None:
            self.history.append((MOVE, self.round, s, action))
        turn_action = TURN_ACTION[kind]
        if turn_action >= 0:
            self.taken = (*self.taken, turn_action)
        a = action >> A_SHIFT & A_MASK
        if kind == GARDENER:
            self._move_gardener(a)
        elif kind == PANDA:
            self.panda = a
            self._eat(a, s)
        elif kind == END:
            self._end_turn()
        elif kind == PLACE:
            self._place(a, action >> B_SHIFT)
        elif kind == PLOT:
            self._draw_plots()
        elif kind == IRRIGATE:
            self.reserve_channels -= 1
            self._put_channel(a)
        elif kind == IRRIGATE_KEEP:
            self.reserve_channels -= 1
            self.stored_channels[s] += 1
        elif kind == OBJECTIVE:
            self._draw_objective(s, action >> B_SHIFT)
        elif kind == COMPLETE:
            self._complete(s, action >> B_SHIFT)
        elif kind == CHANNEL:
            self.stored_channels[s] -= 1
            self._put_channel(a)
        elif kind == IMPROVE:
            imp = action >> B_SHIFT
            self.stored_improvements[s] = _minus(self.stored_improvements[s], imp)
            self._put_improvement(a, imp)
        elif kind == WEATHER:
            self._set_weather(action >> B_SHIFT)
        elif kind == RAIN:
            self._grow(a)
            self.step = STEP_ACTIONS
        elif kind == STORM:
            self.panda = a
            self._eat(a, s)
            self.step = STEP_ACTIONS
        elif kind == CLOUDS:
            imp = action >> B_SHIFT
            self.reserve_improvements = _minus(self.reserve_improvements, imp)
            self._put_improvement(a, imp)
            self.step = STEP_ACTIONS
        elif kind == CLOUDS_KEEP:
            imp = action >> B_SHIFT
            self.reserve_improvements = _minus(self.reserve_improvements, imp)
            self.stored_improvements[s] = _plus(self.stored_improvements[s], imp)
            self.step = STEP_ACTIONS
        elif kind == CLOUDS_MOVE:
            self._move_improvement(a, action >> B_SHIFT)
            self.step = STEP_ACTIONS
        elif kind == SKIP:
            self.step = STEP_ACTIONS
        elif kind == REDRAW:
            self._draw_objective(s, action >> B_SHIFT)
        else:
            raise IllegalActionError(f"{action} is not an action")
        self._advance()

    def _advance(self) -> None:
        """Resolve chance and forced steps until a real decision (or the end) is reached."""
        while not self.ended:
            if self.step == STEP_ROLL:
                self._roll()
                continue
            if self.step == STEP_ACTIONS:
                # The legal list is built only when asked for: a search applies many
                # actions whose children it only evaluates.
                if self._only_end():
                    self._end_turn()
                    continue
                self._legal = None
                return
            legal = self._generate()
            if len(legal) == 1:
                # One option and no free move beside it (R3.1): not a decision.  A place
                # with one spot is still asked: it is the plot action's choice.
                only = legal[0]
                if only == SKIP:
                    self.step = STEP_ACTIONS
                    continue
                if only & KIND_MASK == REDRAW:
                    self._draw_objective(self.current, only >> B_SHIFT)
                    continue
            self._legal = legal
            return
        self._legal = []

    # ----------------------------------------------------------------- rules

    def _roll(self) -> None:
        """Weather (R4): roll the die, from the scripted faces first."""
        if self.dice:
            face, self.dice = self.dice[0], self.dice[1:]
        else:
            self.rng, face = rng.below(self.rng, 6)
        if self.history is not None:
            self.history.append((ROLLED, self.round, face))
        self.weather = face
        self._weather_step(face)

    def _set_weather(self, face: int) -> None:
        """A face chosen after "?" or in place of clouds (R4.5, R4.6)."""
        self.weather = face
        self._weather_step(face)

    def _weather_step(self, face: int) -> None:
        if face == FACE_RAIN:
            self.step = STEP_RAIN
        elif face == FACE_STORM:
            self.step = STEP_STORM
        elif face == FACE_CLOUDS:
            reserve = self.reserve_improvements
            if reserve[1] or reserve[2] or reserve[3]:
                self.step = STEP_CLOUDS
            elif self.options.cloud_when_empty == "other_weather":
                self.step = STEP_CHOOSE_WEATHER
            else:
                self.step = STEP_CLOUDS
        elif face == FACE_CHOICE:
            self.step = STEP_CHOOSE_WEATHER
        else:  # sun, wind: they only change what the action step allows
            self.step = STEP_ACTIONS

    def _end_turn(self) -> None:
        """End of a turn (R3, R13.2): next seat, new round, or the end of the game."""
        s = self.current
        if self.emperor >= 0 and s != self.emperor:
            self.last_turns -= 1
            if self.last_turns <= 0:
                self._game_over()
                return
        nxt = s + 1
        if nxt == self.players:
            nxt = 0
            if self.round >= self.options.max_rounds:
                self.capped = True
                self._game_over()
                return
            self.round += 1
        self.current = nxt
        self.taken = ()
        self.weather = -1
        self.drawn = ()
        self.step = STEP_ROLL if self.round > 1 else STEP_ACTIONS

    def _game_over(self) -> None:
        self.ended = True
        self.step = STEP_ACTIONS
        if self.history is not None:
            self.history.append((GAME_OVER, self.round))

    def _draw_plots(self) -> None:
        """Plot action, first half (R5.1): the top three plots."""
        n = min(3, len(self.plot_deck))
        self.drawn = self.plot_deck[:n]
        self.plot_deck = self.plot_deck[n:]
        self.plot_known = self.plot_known[n:]
        self.step = STEP_PLACE
        if self.history is not None:
            self.history.append((DREW_PLOTS, self.round, self.drawn))

    def _place(self, cell: int, arg: int) -> None:
        """Plot action, second half (R5.1-R5.4)."""
        k, imp, swap = arg & 3, arg >> 2 & 3, arg >> 4 & 1
        drawn = self.drawn
        tile = drawn[k]
        others = drawn[:k] + drawn[k + 1 :]
        if swap:
            others = others[::-1]
        if others:
            self.plot_deck = self.plot_deck + others
            self.plot_known = self.plot_known + (1 << self.current,) * len(others)
        self.drawn = ()
        self.step = STEP_ACTIONS
        self.tiles = {**self.tiles, cell: tile}
        self.bamboo[cell] = 0
        self._spaces = None
        self._edges = None
        printed = tile & 3
        if imp:
            self.stored_improvements[self.current] = _minus(
                self.stored_improvements[self.current], imp
            )
        else:
            imp = printed
        if imp:
            self.improvement = {**self.improvement, cell: imp}
        if cell in _POND_RING or imp == WATERSHED:
            self._irrigate(cell)

    def _put_channel(self, edge: int) -> None:
        """A channel on an edge (R6.2-R6.4): extends the network, irrigates both plots."""
        self.channels = self.channels | {edge}
        ends = [k for k in _EDGE_ENDS[edge] if k >= 0]
        self.network = self.network.union(ends)
        self._edges = None
        a, b = _EDGE_CELLS[edge]
        self._irrigate(a)
        self._irrigate(b)

    def _irrigate(self, cell: int) -> None:
        """R6.4: once irrigated, always; the first time, the plot's first growth."""
        if cell in self.irrigated:
            return
        self.irrigated = self.irrigated | {cell}
        colour = self.tiles[cell] >> 2
        bits = list(self.irrigated_by_colour)
        bits[colour] |= 1 << cell
        self.irrigated_by_colour = (bits[0], bits[1], bits[2])
        self._plot_ok = None
        self._grow(cell)

    def _grow(self, cell: int) -> None:
        """One growth (R7.2, R7.3, R11.4): +1, +2 with fertilizer, only irrigated, never > 4."""
        h = self.bamboo[cell]
        if h >= 4 or cell not in self.irrigated:
            return
        new = h + 2 if self.improvement.get(cell) == FERTILIZER else h + 1
        if new > 4:
            new = 4
        if self.options.bamboo_supply == "limited":
            new = min(new, h + max(0, self.supply_left(self.tiles[cell] >> 2)))
            if new == h:
                return
        self._set_bamboo(cell, h, new)

    def _set_bamboo(self, cell: int, old: int, new: int) -> None:
        shoots = self.shoots
        if old >= 3 or new >= 3:
            colour = self.tiles[cell] >> 2
            imp = self.improvement.get(cell, 0)
            if old >= 3:
                shoots[shoot_slot(colour, old, imp)] -= 1
            if new >= 3:
                shoots[shoot_slot(colour, new, imp)] += 1
        self.bamboo[cell] = new

    def _move_gardener(self, cell: int) -> None:
        """R7.2: growth where the gardener stops and on the same-colour plots around it."""
        self.gardener = cell
        if cell == POND:
            return
        tiles = self.tiles
        colour = tiles[cell] >> 2
        self._grow(cell)
        for n in _NEIGHBOURS[cell]:
            code = tiles.get(n)
            if code is not None and code != POND_TILE and code >> 2 == colour:
                self._grow(n)

    def _eat(self, cell: int, seat: int) -> None:
        """R8.2, R4.4, R11.3: one section to the mover's stock, unless fenced or bare."""
        if cell == POND:
            return
        h = self.bamboo[cell]
        if h and self.improvement.get(cell) != ENCLOSURE:
            self._set_bamboo(cell, h, h - 1)
            self.eaten[seat] = _plus3(self.eaten[seat], self.tiles[cell] >> 2)

    def _put_improvement(self, cell: int, imp: int) -> None:
        """R11: an improvement on a plot without one and without bamboo."""
        self.improvement = {**self.improvement, cell: imp}
        if imp == WATERSHED:
            self._irrigate(cell)

    def _move_improvement(self, src: int, dst: int) -> None:
        """``cloud_when_empty=move_improvement``: a token moves to another plot."""
        imp = self.improvement[src]
        improvement = dict(self.improvement)
        del improvement[src]
        h = self.bamboo[src]
        if h >= 3:
            colour = self.tiles[src] >> 2
            self.shoots[shoot_slot(colour, h, imp)] -= 1
            self.shoots[shoot_slot(colour, h, 0)] += 1
        self.improvement = improvement
        self._put_improvement(dst, imp)

    def _draw_objective(self, seat: int, category: int) -> None:
        """Objective action (R10.1, option ``redraw_satisfied``), and ``redraw CATEGORY``."""
        deck = self.objective_decks[category]
        known = self.objective_known[category]
        card, deck, known = deck[0], deck[1:], known[1:]
        redraw = self.options.redraw_satisfied
        if redraw == "all":
            self._draw_or_redraw(seat, category, card, deck, known)
            return
        if redraw == "plot_gardener" and category != PANDA_CARD:
            # Put satisfied cards under the deck and draw again; a deck of satisfied cards
            # only is gone through once, and its last card kept.
            tries = len(deck)
            while tries > 0 and self._objective_found(seat, card):
                if self.history is not None:
                    self.history.append((RETURNED, self.round, card))
                deck, known = (*deck, card), (*known, 1 << seat)
                card, deck, known = deck[0], deck[1:], known[1:]
                tries -= 1
        decks = list(self.objective_decks)
        decks[category] = deck
        self.objective_decks = tuple(decks)
        knowns = list(self.objective_known)
        knowns[category] = known
        self.objective_known = tuple(knowns)
        self.hands[seat] = (*self.hands[seat], card)
        if self.history is not None:
            self.history.append((DREW, self.round, card))

    def _draw_or_redraw(
        self, seat: int, category: int, card: int, deck: tuple[int, ...], known: tuple[int, ...]
    ) -> None:
        """R12 ``redraw_satisfied=all``: a satisfied card goes under its deck and the player
        chooses the deck of the replacement (step ``redraw``), until a card is not satisfied.

        A deck can give a replacement while it holds a card this draw has not put back (they
        go to the bottom, so ``len(deck) > put_back``); when none can, the satisfied card is
        kept, as a deck of satisfied cards is gone through once under ``plot_gardener``.
        """
        put_back = self.put_back
        decks = list(self.objective_decks)
        knowns = list(self.objective_known)
        decks[category], knowns[category] = deck, known
        if self._objective_found(seat, card) and any(
            len(decks[k]) > put_back[k] for k in (0, 1, 2)
        ):
            if self.history is not None:
                self.history.append((RETURNED, self.round, card))
            decks[category] = (*deck, card)
            knowns[category] = (*known, 1 << seat)
            counts = list(put_back)
            counts[category] += 1
            self.put_back = (counts[0], counts[1], counts[2])
            self.step = STEP_REDRAW
        else:
            self.hands[seat] = (*self.hands[seat], card)
            if self.history is not None:
                self.history.append((DREW, self.round, card))
            self.put_back = NONE_PUT_BACK
            self.step = STEP_ACTIONS
        self.objective_decks = tuple(decks)
        self.objective_known = tuple(knowns)

    def _complete(self, seat: int, card: int) -> None:
        """R9.1, R10.6, R13.1: the card is scored; maybe the Emperor."""
        hand = list(self.hands[seat])
        hand.remove(card)
        self.hands[seat] = tuple(hand)
        self.completed[seat] = (*self.completed[seat], card)
        c = self.card_set.cards[card]
        if c.category == PANDA_CARD:
            e, need = self.eaten[seat], c.eat
            self.eaten[seat] = (e[0] - need[0], e[1] - need[1], e[2] - need[2])
        if self.emperor < 0 and len(self.completed[seat]) >= self.options.objectives_needed(
            self.players
        ):
            self.emperor = seat
            self.last_turns = self.players - 1
            if self.history is not None:
                self.history.append((EMPEROR, self.round, seat))

    # ----------------------------------------------------------------- results

    def panda_points(self) -> list[int]:
        """Points of completed panda objectives per seat (the tie-break of R13.4)."""
        points, category = self.card_points, self.card_set.categories
        return [
            sum(points[c] for c in done if category[c] == PANDA_CARD)
            for done in self.completed
        ]

    def result(self, excluded: tuple[int, ...] = ()) -> GameResult:
        """Scores and winners (R13.3-R13.5) as the game stands.

        ``excluded`` seats cannot win (a bot that failed in a tournament); the others are
        ranked as usual.
        """
        scores = self.scores()
        panda = self.panda_points()
        seats = [s for s in range(self.players) if s not in excluded]
        winners: list[int] = []
        tiebreak = "none"
        if seats:
            best = max(scores[s] for s in seats)
            winners = [s for s in seats if scores[s] == best]
            if len(winners) > 1:
                best_panda = max(panda[s] for s in winners)
                winners = [s for s in winners if panda[s] == best_panda]
                tiebreak = "panda" if len(winners) == 1 else "shared"
        return GameResult(
            scores=tuple(scores),
            panda_points=tuple(panda),
            winners=tuple(winners),
            tiebreak=tiebreak,
            emperor=self.emperor if self.emperor >= 0 else None,
            capped=self.capped,
            rounds=self.round,
            completed=tuple(tuple(self.card_set.cards[c].id for c in done)
                            for done in self.completed),
            excluded=tuple(excluded),
        )

    def returns(self) -> list[float]:
        """Per seat: 1 for a win, 1/k for a victory shared by k, 0 otherwise (for search)."""
        res = self.result()
        share = 1.0 / len(res.winners) if res.winners else 0.0
        return [share if s in res.winners else 0.0 for s in range(self.players)]

    # ----------------------------------------------------------------- history

    def history_text(self) -> list[str]:
        """The history in notation: ``"S ACTION"`` for choices, ``"* EVENT"`` for chance."""
        return [event_text(entry, self.card_set) for entry in self.history or ()]

    def __repr__(self) -> str:
        return (
            f"<GameState players={self.players} round={self.round} seat={self.current} "
            f"step={self.step_name} scores={self.scores()}{' ended' if self.ended else ''}>"
        )


def _minus(counts: tuple[int, int, int, int], index: int) -> tuple[int, int, int, int]:
    out = list(counts)
    out[index] -= 1
    return (out[0], out[1], out[2], out[3])


def _plus(counts: tuple[int, int, int, int], index: int) -> tuple[int, int, int, int]:
    out = list(counts)
    out[index] += 1
    return (out[0], out[1], out[2], out[3])


def _plus3(counts: tuple[int, int, int], index: int) -> tuple[int, int, int]:
    if index == 0:
        return (counts[0] + 1, counts[1], counts[2])
    if index == 1:
        return (counts[0], counts[1] + 1, counts[2])
    return (counts[0], counts[1], counts[2] + 1)


def new_game(
    players: int = 2,
    seed: int = 0,
    options: RuleOptions | None = None,
    *,
    dice: tuple[int, ...] | list[int] = (),
    history: bool = True,
    cards: CardSet | None = None,
) -> GameState:
    """A new game (R2): decks shuffled from ``seed``, one objective of each kind dealt.

    ``dice`` scripts the first die faces (tests); ``history=False`` skips the move log, for
    games that nobody will replay; ``cards`` is the objective card set (default: the
    printed one).
    """
    rng.check_new_game(players, seed, dice)
    options = options or DEFAULTS
    cards = cards or DEFAULT_CARD_SET
    problem = cards.deal_problem(players)
    if problem:
        raise OptionError(f"card set: {problem}")
    s = GameState.__new__(GameState)
    s.players = players
    s.options = options
    s.card_set = cards
    s.card_points = cards.points
    s.seed = seed
    state = rng.seed_state(seed)
    state, s.plot_deck = rng.shuffled(state, ALL_PLOTS)
    decks = []
    for category in range(3):
        state, deck = rng.shuffled(state, cards.decks[category])
        decks.append(deck)
    s.rng = state
    s.dice = tuple(dice)
    s.round = 1
    s.current = 0
    s.step = STEP_ACTIONS
    s.weather = -1
    s.taken = ()
    s.drawn = ()
    s.put_back = NONE_PUT_BACK
    s.tiles = {POND: POND_TILE}
    s.bamboo = {}
    s.improvement = {}
    s.irrigated = frozenset()
    s.irrigated_by_colour = (0, 0, 0)
    s.channels = frozenset()
    s.network = grid.POND_CORNERS
    s.gardener = POND
    s.panda = POND
    s.reserve_channels = CHANNELS
    s.reserve_improvements = IMPROVEMENT_TOKENS
    s.plot_known = (0,) * len(s.plot_deck)
    s.hands = []
    s.history = [] if history else None
    for seat in range(players):
        hand = tuple(decks[k][seat] for k in (PLOT_CARD, GARDENER_CARD, PANDA_CARD))
        s.hands.append(hand)
        if s.history is not None:
            s.history.append((DEALT, 0, seat, hand))
    s.objective_decks = tuple(deck[players:] for deck in decks)
    s.objective_known = tuple((0,) * len(deck) for deck in s.objective_decks)
    s.completed = [() for _ in range(players)]
    s.eaten = [(0, 0, 0) for _ in range(players)]
    s.stored_channels = [0] * players
    s.stored_improvements = [(0, 0, 0, 0)] * players
    s.emperor = NO_SEAT
    s.last_turns = -1
    s.ended = False
    s.capped = False
    s.shoots = [0] * 15
    s._legal = None
    s._spaces = None
    s._edges = None
    s._plot_ok = None
    s._advance()
    return s

