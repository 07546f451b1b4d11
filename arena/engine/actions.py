"""Actions as ints, with the text form of docs/notation.md.

An action is a plain int: hashable, ordered, free to copy and to store in a search tree, and
decoded with a couple of shifts in ``apply``.  ``action_text`` and ``parse_action`` give the
notation and round-trip exactly, like python-chess's ``Move.uci()`` / ``Move.from_uci()``.
A ``complete`` names a card of the game's own set, so both take that set
(``action_text(a, state.card_set)``): two games of different sets may be side by side.

Layout: ``kind | a << 5 | b << 17``; ``a`` is a cell or an edge, ``b`` a small argument
(a drawn plot's number with its improvement and ``swap`` flag, a category, a card, a face,
an improvement, or a second cell).  Code outside the engine reads the fields by name:
``kind_of``, ``cell_of``/``edge_of``, ``arg_of`` (or ``card_of``, ``category_of``,
``face_of``), and for a ``place`` ``plot_of``, ``improvement_of`` and ``is_swap``.
"""

from __future__ import annotations

from enum import IntEnum

from arena.engine import grid
from arena.engine.aliases import Action, CardId, Cell, Edge
from arena.engine.components import CATEGORIES, FACES, IMPROVEMENTS, CardSet
from arena.engine.errors import NotationError


class Kind(IntEnum):
    """What an action does: its low five bits (``kind_of``), named after its notation."""

    END = 0
    PLOT = 1
    PLACE = 2
    IRRIGATE = 3
    IRRIGATE_KEEP = 4
    GARDENER = 5
    PANDA = 6
    OBJECTIVE = 7
    CHANNEL = 8
    IMPROVE = 9
    COMPLETE = 10
    WEATHER = 11
    RAIN = 12
    STORM = 13
    CLOUDS = 14
    CLOUDS_KEEP = 15
    CLOUDS_MOVE = 16
    SKIP = 17
    REDRAW = 18


# The kinds as plain ints, as code written before ``Kind`` imports them (``kind_of(a) ==
# PANDA``).  Plain ints rather than the members themselves, so that an action built from one
# (``parse_action("end")``, a legal list's ``END``) is an int, not an enum member.
END = Kind.END.value
PLOT = Kind.PLOT.value
PLACE = Kind.PLACE.value
IRRIGATE = Kind.IRRIGATE.value
IRRIGATE_KEEP = Kind.IRRIGATE_KEEP.value
GARDENER = Kind.GARDENER.value
PANDA = Kind.PANDA.value
OBJECTIVE = Kind.OBJECTIVE.value
CHANNEL = Kind.CHANNEL.value
IMPROVE = Kind.IMPROVE.value
COMPLETE = Kind.COMPLETE.value
WEATHER = Kind.WEATHER.value
RAIN = Kind.RAIN.value
STORM = Kind.STORM.value
CLOUDS = Kind.CLOUDS.value
CLOUDS_KEEP = Kind.CLOUDS_KEEP.value
CLOUDS_MOVE = Kind.CLOUDS_MOVE.value
SKIP = Kind.SKIP.value
REDRAW = Kind.REDRAW.value

KIND_MASK = 31
A_SHIFT = 5
B_SHIFT = 17
A_MASK = (1 << 12) - 1
#: An action fits in 32 bits (the native engine's ``Action``): a wider int, or a negative
#: one, is no action on either engine.
ACTION_BITS = 32
#: A ``place`` action's ``swap`` flag: bit 4 of its argument.
_SWAP_BIT = 1 << (B_SHIFT + 4)
_SWAP_FIELDS = KIND_MASK | _SWAP_BIT

#: The five actions of R3.5 (the ones a turn counts), by action kind.
ACTION_NAMES: tuple[str, ...] = ("plot", "irrigation", "gardener", "panda", "objective")
TURN_PLOT, TURN_IRRIGATION, TURN_GARDENER, TURN_PANDA, TURN_OBJECTIVE = range(5)
#: TURN_ACTION[kind]: which of the five actions an action kind spends, or -1 (free or weather).
TURN_ACTION: tuple[int, ...] = (
    -1, TURN_PLOT, -1, TURN_IRRIGATION, TURN_IRRIGATION, TURN_GARDENER, TURN_PANDA,
    TURN_OBJECTIVE, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
)  # fmt: skip
#: The free moves of R9, which R3.1 allows at every decision of one's own turn.
FREE_KINDS: frozenset[int] = frozenset((CHANNEL, IMPROVE, COMPLETE))


def make(kind: int, a: int = 0, b: int = 0) -> Action:
    """Action of a kind with its arguments."""
    return kind | a << A_SHIFT | b << B_SHIFT


def place(k: int, cell: Cell, improvement: int = 0, swap: bool = False) -> Action:
    """``place K Q,R [+IMPROVEMENT] [swap]``."""
    return PLACE | cell << A_SHIFT | (k | improvement << 2 | swap << 4) << B_SHIFT


def kind_of(action: Action) -> int:
    """The kind of an action, as an int (``PANDA``; ``Kind(kind_of(a))`` names it)."""
    return action & KIND_MASK


def cell_of(action: Action) -> Cell:
    """The cell of an action: where a figure goes, rain falls, a plot or an improvement is put,
    or the plot a ``clouds move`` takes its token from."""
    return action >> A_SHIFT & A_MASK


def edge_of(action: Action) -> Edge:
    """The edge of an ``irrigation`` or ``channel`` action (the field ``cell_of`` reads)."""
    return action >> A_SHIFT & A_MASK


def arg_of(action: Action) -> int:
    """The argument of an action: a category, card, face, improvement, or the cell a ``clouds
    move`` takes the token to (a ``place`` packs three fields here: ``plot_of`` and after)."""
    return action >> B_SHIFT


def card_of(action: Action) -> CardId:
    """The card a ``complete`` action completes."""
    return action >> B_SHIFT


def category_of(action: Action) -> int:
    """The deck an ``objective`` or ``redraw`` action draws from (an index in CATEGORIES)."""
    return action >> B_SHIFT


def face_of(action: Action) -> int:
    """The weather a ``weather`` action chooses (an index in FACES)."""
    return action >> B_SHIFT


def plot_of(action: Action) -> int:
    """Which of the drawn plots a ``place`` action puts in play (0, 1 or 2)."""
    return action >> B_SHIFT & 3


def improvement_of(action: Action) -> int:
    """The improvement (an index in IMPROVEMENTS, 0 for none) a ``place`` action puts with
    its plot, or an ``improve``, ``clouds`` or ``clouds keep`` action puts or keeps."""
    b = action >> B_SHIFT
    return b >> 2 & 3 if action & KIND_MASK == PLACE else b


def is_swap(action: Action) -> bool:
    """Whether an action is a ``place ... swap``: the two plots going under the deck swap
    order, which changes nothing anyone sees for many turns."""
    return action & _SWAP_FIELDS == PLACE | _SWAP_BIT


def action_text(action: Action, cards: CardSet) -> str:
    """The notation of an action (docs/notation.md); ``cards`` is the game's set, which
    names the card of a ``complete``."""
    kind = action & KIND_MASK
    a = action >> A_SHIFT & A_MASK
    b = action >> B_SHIFT
    if kind == END:
        return "end"
    if kind == PLOT:
        return "plot"
    if kind == PLACE:
        k, improvement, swap = b & 3, b >> 2 & 3, b >> 4 & 1
        text = f"place {k} {grid.cell_text(a)}"
        if improvement:
            text += f" +{IMPROVEMENTS[improvement]}"
        if swap:
            text += " swap"
        return text
    if kind == IRRIGATE:
        return f"irrigation {grid.edge_text(a)}"
    if kind == IRRIGATE_KEEP:
        return "irrigation keep"
    if kind == GARDENER:
        return f"gardener {grid.cell_text(a)}"
    if kind == PANDA:
        return f"panda {grid.cell_text(a)}"
    if kind == OBJECTIVE:
        return f"objective {CATEGORIES[b]}"
    if kind == CHANNEL:
        return f"channel {grid.edge_text(a)}"
    if kind == IMPROVE:
        return f"improve {IMPROVEMENTS[b]} {grid.cell_text(a)}"
    if kind == COMPLETE:
        return f"complete {cards.cards[b].id}"
    if kind == WEATHER:
        return f"weather {FACES[b]}"
    if kind == RAIN:
        return f"rain {grid.cell_text(a)}"
    if kind == STORM:
        return f"storm {grid.cell_text(a)}"
    if kind == CLOUDS:
        return f"clouds {IMPROVEMENTS[b]} {grid.cell_text(a)}"
    if kind == CLOUDS_KEEP:
        return f"clouds {IMPROVEMENTS[b]} keep"
    if kind == CLOUDS_MOVE:
        return f"clouds move {grid.cell_text(a)} {grid.cell_text(b)}"
    if kind == SKIP:
        return "skip"
    if kind == REDRAW:
        return f"redraw {CATEGORIES[b]}"
    raise ValueError(f"not an action: {action}")


def _cell(text: str, action: str) -> int:
    try:
        return grid.parse_cell(text)
    except ValueError as exc:
        raise NotationError(f"in action {action!r}: {exc}") from None


def _edge(text: str, action: str) -> int:
    try:
        return grid.parse_edge(text)
    except ValueError as exc:
        raise NotationError(f"in action {action!r}: {exc}") from None


def _improvement(text: str, action: str) -> int:
    if text in IMPROVEMENTS[1:]:
        return IMPROVEMENTS.index(text)
    raise NotationError(
        f"in action {action!r}: {text!r} is not an improvement "
        f"(watershed, enclosure or fertilizer)"
    )


_FORMS = (
    "end, plot, place K Q,R [+IMPROVEMENT] [swap], irrigation EDGE|keep, gardener Q,R, "
    "panda Q,R, objective CATEGORY, channel EDGE, improve IMPROVEMENT Q,R, complete CARD, "
    "weather FACE, rain Q,R, storm Q,R, clouds IMPROVEMENT Q,R|keep, clouds move Q,R Q,R, skip, "
    "redraw CATEGORY"
)


def parse_action(text: str, cards: CardSet) -> Action:
    """The action of a notation text; raises NotationError with one sentence when malformed.
    ``cards`` is the game's set, whose ids a ``complete`` may name."""
    words = text.strip().split(" ")
    verb, args = words[0], words[1:]
    n = len(args)
    if verb == "end" and n == 0:
        return END
    if verb == "skip" and n == 0:
        return SKIP
    if verb == "plot" and n == 0:
        return PLOT
    if verb == "place" and 2 <= n <= 4:
        if args[0] not in ("0", "1", "2"):
            raise NotationError(f"in action {text!r}: the plot number must be 0, 1 or 2")
        k = int(args[0])
        cell = _cell(args[1], text)
        improvement, swap = 0, False
        rest = args[2:]
        if rest and rest[0].startswith("+"):
            improvement = _improvement(rest[0][1:], text)
            rest = rest[1:]
        if rest == ["swap"]:
            swap, rest = True, []
        if rest:
            raise NotationError(
                f"in action {text!r}: expected 'place K Q,R [+IMPROVEMENT] [swap]'"
            )
        return place(k, cell, improvement, swap)
    if verb == "irrigation" and n == 1:
        if args[0] == "keep":
            return IRRIGATE_KEEP
        return make(IRRIGATE, _edge(args[0], text))
    if verb in ("gardener", "panda", "rain", "storm") and n == 1:
        kind = {"gardener": GARDENER, "panda": PANDA, "rain": RAIN, "storm": STORM}[verb]
        return make(kind, _cell(args[0], text))
    if verb in ("objective", "redraw") and n == 1:
        if args[0] not in CATEGORIES:
            raise NotationError(
                f"in action {text!r}: {args[0]!r} is not a category (plot, gardener or panda)"
            )
        return make(OBJECTIVE if verb == "objective" else REDRAW, 0, CATEGORIES.index(args[0]))
    if verb == "channel" and n == 1:
        return make(CHANNEL, _edge(args[0], text))
    if verb == "improve" and n == 2:
        return make(IMPROVE, _cell(args[1], text), _improvement(args[0], text))
    if verb == "complete" and n == 1:
        try:
            return make(COMPLETE, 0, cards.index(args[0]))
        except ValueError as exc:
            raise NotationError(f"in action {text!r}: {exc}") from None
    if verb == "weather" and n == 1:
        if args[0] not in FACES[:5]:
            raise NotationError(
                f"in action {text!r}: {args[0]!r} is not a weather to choose "
                "(sun, rain, wind, storm or clouds)"
            )
        return make(WEATHER, 0, FACES.index(args[0]))
    if verb == "clouds" and n == 3 and args[0] == "move":
        return make(CLOUDS_MOVE, _cell(args[1], text), _cell(args[2], text))
    if verb == "clouds" and n == 2:
        improvement = _improvement(args[0], text)
        if args[1] == "keep":
            return make(CLOUDS_KEEP, 0, improvement)
        return make(CLOUDS, _cell(args[1], text), improvement)
    raise NotationError(f"{text!r} is not an action (the forms are: {_FORMS})")
