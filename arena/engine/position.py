"""Positions as the JSON of docs/notation.md: written from a state, read back into one.

Reading is all-or-nothing and names the field at fault (``tiles[3].bamboo``), because a
position is typed or edited by hand to set up a test or a puzzle, and "invalid position" with
no place to look is useless.  Beyond the fields of the spec, a written position carries
``rng`` (the generator's state, so that play continues exactly as it would have), ``known``
(who knows which card under a deck) and ``capped``; and, when the game's objective cards
are not the printed set, ``card_set``: ``{"points": {card id: points}, "remove": [card ids]}``
(only what differs, as in a ``--cards`` file).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena.engine import grid, rng
from arena.engine.actions import ACTION_NAMES
from arena.engine.board import CACHE, COPIED, FIELDS, SHARED, board_dict
from arena.engine.card_defs import CardDefinitionError
from arena.engine.card_defs import check as check_added
from arena.engine.components import (
    ALL_PLOTS,
    BAMBOO_SECTIONS,
    CATEGORIES,
    CHANNELS,
    COLOURS,
    COUNT_MAX,
    DEFAULT_CARD_SET,
    FACES,
    IMPROVEMENT_TOKENS,
    IMPROVEMENTS,
    POND_TILE,
    PRINTED_INDEX,
    WATERSHED,
    CardSet,
    parse_tile,
    tile_name,
)
from arena.engine.errors import NO_VALUE, OptionError, PositionError, refusal
from arena.engine.objectives import SHOOT_COUNTERS, shoot_slot
from arena.engine.options import RuleOptions
from arena.engine.state import (
    NO_SEAT,
    NONE_PUT_BACK,
    POND,
    STEP_ACTIONS,
    STEP_NAMES,
    STEP_PLACE,
    STEP_REDRAW,
    STEP_ROLL,
    GameState,
)

FORMAT = "takenoko-position/1"
DECK_NAMES = ("plots", "plot", "gardener", "panda")


def to_position(state: GameState) -> dict[str, Any]:
    """The position of a state (docs/notation.md): the whole truth, hidden parts included."""
    cards = state.card_set.cards
    data: dict[str, Any] = {
        "format": FORMAT,
        "options": state.options.to_dict(only_changed=True),
        **({} if state.card_set.is_default() else {"card_set": state.card_set.changes()}),
        "players": state.players,
        "seed": state.seed,
        "rng": state.rng,
        "round": state.round,
        "current": state.current,
        "turn": {
            "step": state.step_name,
            "weather": FACES[state.weather] if state.weather >= 0 else None,
            "actions": [ACTION_NAMES[a] for a in state.taken],
            "drawn": [tile_name(t) for t in state.drawn],
        },
        "dice": [FACES[f] for f in state.dice],
    }
    if state.step == STEP_REDRAW:
        data["turn"]["put_back"] = dict(zip(CATEGORIES, state.put_back))
    data.update(board_dict(state))
    data["reserve"] = {
        "channels": state.reserve_channels,
        "improvements": {
            IMPROVEMENTS[i]: state.reserve_improvements[i] for i in (1, 2, 3)
        },
    }
    data["decks"] = {
        "plots": [tile_name(t) for t in state.plot_deck],
        **{
            CATEGORIES[k]: [cards[c].id for c in state.objective_decks[k]]
            for k in range(3)
        },
    }
    known: dict[str, list[list[int]]] = {}
    for name, masks in zip(DECK_NAMES, (state.plot_known, *state.objective_known)):
        if any(masks):
            known[name] = [[s for s in range(state.players) if m >> s & 1] for m in masks]
    if known:
        data["known"] = known
    data["hands"] = [
        {
            "objectives": [cards[c].id for c in state.hands[s]],
            "completed": [cards[c].id for c in state.completed[s]],
            "eaten": dict(zip(COLOURS, state.eaten[s])),
            "channels": state.stored_channels[s],
            "improvements": [
                IMPROVEMENTS[i] for i in (1, 2, 3) for _ in range(state.stored_improvements[s][i])
            ],
        }
        for s in range(state.players)
    ]
    data["emperor"] = state.emperor if state.emperor >= 0 else None
    data["last_turns"] = state.last_turns if state.emperor >= 0 else None
    data["ended"] = state.ended
    data["capped"] = state.capped
    return data


class _Reader:
    """Field-by-field reading with error messages that name the field."""

    def __init__(self, data: Any) -> None:
        if not isinstance(data, dict):
            raise PositionError("a position must be a JSON object")
        self.data = data
        #: The position's card set, whose ids its cards are (read first: ``_read_game``).
        self.cards = DEFAULT_CARD_SET
        #: Read from a game that reached it (``read_position``'s ``played``).
        self.played = False

    @staticmethod
    def fail(field: str, message: str, value: Any = NO_VALUE) -> PositionError:
        """The refusal of ``field``; ``message`` quotes ``value`` where it says ``{value}``
        (made by ``errors.refusal``, as the native engine's are)."""
        return refusal(PositionError, message, field=field, value=value)

    def get(self, obj: dict, key: str, field: str, kind: type | tuple, default: Any = ...) -> Any:
        if key not in obj or (obj[key] is None and default is not ...):
            if default is ...:
                raise self.fail(field, "is missing")
            return default
        value = obj[key]
        if kind is int and isinstance(value, bool):
            raise self.fail(field, "must be a whole number, not {value}", value)
        if not isinstance(value, kind):
            expected = {int: "a whole number", bool: "true or false", str: "a text",
                        list: "a list", dict: "an object"}.get(kind, str(kind))  # type: ignore[call-overload]
            raise self.fail(field, f"must be {expected}, not {{value}}", value)
        return value

    def count(self, value: int, field: str) -> None:
        """Refuse a count beyond ``COUNT_MAX``, which the native engine cannot hold."""
        if value > COUNT_MAX:
            raise self.fail(field, f"must be at most {COUNT_MAX}, not {{value}}", value)

    def cell(self, text: Any, field: str) -> int:
        if not isinstance(text, str):
            raise self.fail(field, "must be a coordinate q,r, not {value}", text)
        try:
            return grid.parse_cell(text)
        except ValueError as exc:
            raise self.fail(field, str(exc)) from None

    def tile(self, text: Any, field: str) -> int:
        if not isinstance(text, str):
            raise self.fail(field, "must be a tile name, not {value}", text)
        try:
            return parse_tile(text)
        except ValueError as exc:
            raise self.fail(field, str(exc)) from None

    def card(self, text: Any, field: str) -> int:
        if not isinstance(text, str):
            raise self.fail(field, "must be a card id, not {value}", text)
        try:
            return self.cards.index(text)
        except ValueError as exc:
            raise self.fail(field, str(exc)) from None

    def choice(self, value: Any, names: tuple[str, ...], field: str) -> int:
        if value not in names:
            raise self.fail(field, f"{{value}} is not one of {', '.join(names)}", value)
        return names.index(value)


def from_position(data: Any) -> GameState:
    """A state from a position; raises PositionError naming the field when it is bad.

    A position at step ``roll`` is a chance node: the die is rolled (scripted ``dice`` first)
    so the state returned is at the next decision.  Decks left out are filled with the
    components found nowhere else, shuffled with ``seed``.

    The sections are read in this order, each checked against those before it (a deck's
    plots against the tiles, a reserve against the stocks), so a position with several
    faults is refused for the first one in that order.
    """
    s = read_position(data)
    s._advance()
    return s


def read_position(data: Any, played: bool = False) -> GameState:
    """The state a position writes, not advanced to the next decision: what
    ``from_position`` reads before it rolls the die of a chance node or moves past a step
    with nothing to decide; and the native engine's way to the reference's object of a
    state or view (``arena.engine.native.reference_of``), whose step is the one given.

    ``played``: the position is one a game reached (the native engine's state), so channels
    cut off from the pond are taken as ``apply`` left them (a test may apply a channel the
    legal list would not offer, R6.4) rather than refused as a hand-written position's are."""
    r = _Reader(data)
    r.played = played
    s = GameState.__new__(GameState)
    _read_game(r, s)
    claimed_irrigated = _read_tiles(r, s)
    _read_channels(r, s)
    _read_irrigation(r, s, claimed_irrigated)
    _read_figures(r, s)
    _read_turn(r, s)
    _read_hands(r, s)
    _read_reserve(r, s)
    _read_decks(r, s)
    _read_known(r, s)
    _read_end(r, s)
    s.history = []
    for name, how, _public in FIELDS:
        if how == CACHE:
            setattr(s, name, None)
    return s


def _read_game(r: _Reader, s: GameState) -> None:
    """``format``, ``options``, ``players``, ``seed``, ``card_set``, ``round``, ``current``."""
    d = r.data
    fmt = d.get("format")
    if fmt != FORMAT:
        raise r.fail(
            "format", f"{{value}} is not a known position format (expected {FORMAT!r})", fmt
        )
    try:
        options = RuleOptions.from_dict(r.get(d, "options", "options", dict, {}))
    except OptionError as exc:
        raise r.fail("options", str(exc)) from None
    players = r.get(d, "players", "players", int)
    if players not in (2, 3, 4):
        raise r.fail("players", f"a game has 2, 3 or 4 players, not {players}")
    s.players = players
    s.options = options
    s.seed = r.get(d, "seed", "seed", int, 0)
    if not -rng.SEED_LIMIT <= s.seed < rng.SEED_LIMIT:
        raise r.fail("seed", rng.SEED_RANGE, s.seed)
    s.card_set = _card_set(r, d)
    r.cards = s.card_set  # its added cards (if any) are read by id from here on
    s.card_points = s.card_set.points
    s.round = r.get(d, "round", "round", int, 1)
    if s.round < 1:
        raise r.fail("round", f"must be at least 1, not {s.round}")
    r.count(s.round, "round")
    s.current = r.get(d, "current", "current", int, 0)
    if not 0 <= s.current < players:
        raise r.fail("current", f"seat {s.current} is not in a {players}-player game")


def _read_tiles(r: _Reader, s: GameState) -> dict[int, tuple[str, bool]]:
    """``tiles``: the plots, their bamboo and improvements, joined to the pond (R5.2).

    Returns the ``irrigated`` each entry claims, by cell with its field, to be checked once
    the channels are known.
    """
    tiles: dict[int, int] = {POND: POND_TILE}
    bamboo: dict[int, int] = {}
    improvement: dict[int, int] = {}
    claimed_irrigated: dict[int, tuple[str, bool]] = {}
    for i, entry in enumerate(r.get(r.data, "tiles", "tiles", list, [])):
        f = f"tiles[{i}]"
        if not isinstance(entry, dict):
            raise r.fail(f, "must be an object with at, tile, bamboo, improvement")
        cell = r.cell(entry.get("at"), f"{f}.at")
        if cell == POND:
            raise r.fail(f"{f}.at", "0,0 is the pond, not a plot")
        if cell in tiles:
            raise r.fail(f"{f}.at", f"{entry['at']} holds two tiles")
        code = r.tile(entry.get("tile"), f"{f}.tile")
        height = r.get(entry, "bamboo", f"{f}.bamboo", int, 0)
        if not 0 <= height <= 4:
            raise r.fail(f"{f}.bamboo", f"{height} is not between 0 and 4 (R7.3)")
        imp_name = entry.get("improvement")
        imp = 0 if imp_name in (None, "none") else r.choice(
            imp_name, IMPROVEMENTS[1:], f"{f}.improvement"
        ) + 1
        printed = code & 3
        if printed and imp != printed:
            raise r.fail(
                f"{f}.improvement",
                f"a {tile_name(code)} tile always carries its printed {IMPROVEMENTS[printed]}",
            )
        tiles[cell] = code
        bamboo[cell] = height
        if imp:
            improvement[cell] = imp
        if "irrigated" in entry:
            claimed_irrigated[cell] = (f"{f}.irrigated", r.get(entry, "irrigated",
                                                              f"{f}.irrigated", bool))
    _check_connected(r, tiles)
    s.tiles = tiles
    s.bamboo = bamboo
    s.improvement = improvement
    return claimed_irrigated


def _read_channels(r: _Reader, s: GameState) -> None:
    """``channels``: between two plots, off the pond, in networks from the pond (R6)."""
    tiles = s.tiles
    channels: set[int] = set()
    for i, text in enumerate(r.get(r.data, "channels", "channels", list, [])):
        f = f"channels[{i}]"
        if not isinstance(text, str):
            raise r.fail(f, "must be an edge q,r|q,r, not {value}", text)
        try:
            edge = grid.parse_edge(text)
        except ValueError as exc:
            raise r.fail(f, str(exc)) from None
        a, b = grid.EDGE_CELLS[edge]
        if POND in (a, b):
            raise r.fail(f, f"{text} is an edge of the pond, where no channel may lie (R1.1)")
        if a not in tiles or b not in tiles:
            raise r.fail(f, f"{text} needs plots on both sides (R6.2)")
        if edge in channels:
            raise r.fail(f, f"{text} holds two channels")
        channels.add(edge)
    s.network = _check_network(r, channels)
    s.channels = frozenset(channels)


def _read_irrigation(
    r: _Reader, s: GameState, claimed_irrigated: dict[int, tuple[str, bool]]
) -> None:
    """The irrigated plots, derived from the pond, channels and watersheds (R6.4), and
    checked against each tile's ``irrigated`` and its bamboo."""
    tiles, bamboo, improvement = s.tiles, s.bamboo, s.improvement
    irrigated = {c for c in bamboo if c in grid.POND_RING or improvement.get(c) == WATERSHED}
    for e in s.channels:
        irrigated.update(grid.EDGE_CELLS[e])
    for cell, (field, claim) in claimed_irrigated.items():
        if claim and cell not in irrigated and s.options.cloud_when_empty == "move_improvement":
            # A watershed moved away by clouds leaves its plot irrigated (R6.4, R12).
            irrigated.add(cell)
            continue
        if claim != (cell in irrigated):
            raise r.fail(
                field,
                f"is {str(claim).lower()} but the plot at {grid.cell_text(cell)} is "
                f"{'' if cell in irrigated else 'not '}irrigated by the pond, a channel or a "
                "watershed (R6.4)",
            )
    for cell, height in bamboo.items():
        if height and cell not in irrigated:
            raise r.fail(
                "tiles",
                f"the plot at {grid.cell_text(cell)} has bamboo but is not irrigated (R6.4)",
            )
    s.irrigated = frozenset(irrigated)
    bits = [0, 0, 0]
    for c in irrigated:
        bits[tiles[c] >> 2] |= 1 << c
    s.irrigated_by_colour = (bits[0], bits[1], bits[2])


def _read_figures(r: _Reader, s: GameState) -> None:
    """``gardener`` and ``panda``, on tiles in play (R7.1); and the shoots they may count."""
    d, tiles = r.data, s.tiles
    s.gardener = r.cell(d.get("gardener", "0,0"), "gardener")
    s.panda = r.cell(d.get("panda", "0,0"), "panda")
    for name, cell in (("gardener", s.gardener), ("panda", s.panda)):
        if cell not in tiles:
            raise r.fail(name, f"{grid.cell_text(cell)} is not a tile in play (R7.1)")
    shoots = [0] * SHOOT_COUNTERS
    for cell, height in s.bamboo.items():
        slot = shoot_slot(tiles[cell] >> 2, height, s.improvement.get(cell, 0))
        if slot >= 0:
            shoots[slot] += 1
    s.shoots = shoots


def _read_turn(r: _Reader, s: GameState) -> None:
    """``turn`` (step, weather, actions taken, plots drawn, cards put back) and ``dice``."""
    d = r.data
    turn = r.get(d, "turn", "turn", dict, {})
    s.step = r.choice(turn.get("step", "actions"), STEP_NAMES, "turn.step")
    weather = turn.get("weather")
    s.weather = -1 if weather is None else r.choice(weather, FACES, "turn.weather")
    taken = r.get(turn, "actions", "turn.actions", list, [])
    s.taken = tuple(r.choice(a, ACTION_NAMES, f"turn.actions[{i}]") for i, a in enumerate(taken))
    _check_turn(r, s)
    drawn = r.get(turn, "drawn", "turn.drawn", list, [])
    s.drawn = tuple(r.tile(t, f"turn.drawn[{i}]") for i, t in enumerate(drawn))
    if (s.step == STEP_PLACE) != bool(s.drawn) or len(s.drawn) > 3:
        raise r.fail("turn.drawn", "holds 1 to 3 plots at step place, and none at other steps")
    put_back = r.get(turn, "put_back", "turn.put_back", dict, {})
    for key in put_back:
        if key not in CATEGORIES:
            raise r.fail("turn.put_back", "{value} is not a category (plot, gardener, panda)", key)
    counts = [r.get(put_back, k, f"turn.put_back.{k}", int, 0) for k in CATEGORIES]
    if min(counts) < 0:
        raise r.fail("turn.put_back", "counts cannot be negative")
    s.put_back = (counts[0], counts[1], counts[2])
    if (s.step == STEP_REDRAW) != (s.put_back != NONE_PUT_BACK):
        raise r.fail(
            "turn.put_back",
            "counts the satisfied cards put back at step redraw (at least one), and is empty "
            "at other steps",
        )
    s.dice = tuple(
        r.choice(f, FACES, f"dice[{i}]") for i, f in enumerate(r.get(d, "dice", "dice", list, []))
    )


def _read_hands(r: _Reader, s: GameState) -> None:
    """``hands``: per seat the objectives in hand and completed, the sections eaten (within
    the supply when it is limited) and the stored channels and improvements."""
    players = s.players
    hands_data = r.get(r.data, "hands", "hands", list)
    if len(hands_data) != players:
        raise r.fail("hands", f"has {len(hands_data)} entries for {players} players")
    s.hands, s.completed, s.eaten, s.stored_channels, s.stored_improvements = [], [], [], [], []
    for seat, h in enumerate(hands_data):
        f = f"hands[{seat}]"
        if not isinstance(h, dict):
            raise r.fail(f, "must be an object")
        objectives = r.get(h, "objectives", f"{f}.objectives", list, [])
        if len(objectives) > 5:
            raise r.fail(f"{f}.objectives", f"holds {len(objectives)} cards; the limit is 5 "
                         "(R10.2)")
        s.hands.append(tuple(r.card(c, f"{f}.objectives[{i}]") for i, c in enumerate(objectives)))
        done = r.get(h, "completed", f"{f}.completed", list, [])
        s.completed.append(tuple(r.card(c, f"{f}.completed[{i}]") for i, c in enumerate(done)))
        eaten = r.get(h, "eaten", f"{f}.eaten", dict, {})
        for key in eaten:
            if key not in COLOURS:
                raise r.fail(f"{f}.eaten", "{value} is not a colour (green, yellow, pink)", key)
        counts = tuple(r.get(eaten, c, f"{f}.eaten.{c}", int, 0) for c in COLOURS)
        if min(counts) < 0:
            raise r.fail(f"{f}.eaten", "counts cannot be negative")
        for c, count in zip(COLOURS, counts):
            r.count(count, f"{f}.eaten.{c}")
        s.eaten.append(counts)  # type: ignore[arg-type]
        stored = r.get(h, "channels", f"{f}.channels", int, 0)
        if stored < 0:
            raise r.fail(f"{f}.channels", "cannot be negative")
        r.count(stored, f"{f}.channels")
        s.stored_channels.append(stored)
        imps = [0, 0, 0, 0]
        for i, name in enumerate(r.get(h, "improvements", f"{f}.improvements", list, [])):
            imps[r.choice(name, IMPROVEMENTS[1:], f"{f}.improvements[{i}]") + 1] += 1
        s.stored_improvements.append((imps[0], imps[1], imps[2], imps[3]))
    if s.options.bamboo_supply == "limited":
        # Sections are counted components when the supply is limited (R1.5, R12).
        tiles = s.tiles
        for colour, name in enumerate(COLOURS):
            total = sum(h for c, h in s.bamboo.items() if tiles[c] >> 2 == colour)
            fields = ["tiles"] + [f"hands[{i}].eaten.{name}" for i in range(players)]
            for field, count in zip(fields, [0] + [e[colour] for e in s.eaten]):
                total += count
                if total > BAMBOO_SECTIONS[colour]:
                    raise r.fail(
                        field,
                        f"{total} {name} sections on the board and in stocks exceed the "
                        f"game's {BAMBOO_SECTIONS[colour]} (R1.5, bamboo_supply=limited)",
                    )


def _read_reserve(r: _Reader, s: GameState) -> None:
    """``reserve``: channels and improvement tokens, which with those on the board and in
    stocks must make the game's (R1.3, R1.4); left out, they are worked out."""
    reserve = r.get(r.data, "reserve", "reserve", dict, {})
    tiles, channels = s.tiles, s.channels
    placed_tokens = Counter(imp for c, imp in s.improvement.items() if not tiles[c] & 3)
    held = [sum(si[i] for si in s.stored_improvements) for i in range(4)]
    if "channels" in reserve:
        s.reserve_channels = r.get(reserve, "channels", "reserve.channels", int)
    else:
        s.reserve_channels = CHANNELS - len(channels) - sum(s.stored_channels)
    if s.reserve_channels < 0 or s.reserve_channels + len(channels) + sum(
        s.stored_channels
    ) != CHANNELS:
        raise r.fail(
            "reserve.channels",
            f"{s.reserve_channels} in the reserve, {len(channels)} on the board and "
            f"{sum(s.stored_channels)} in stocks do not make the game's {CHANNELS} (R1.3)",
        )
    res_imps = r.get(reserve, "improvements", "reserve.improvements", dict, {})
    for key in res_imps:
        if key not in IMPROVEMENTS[1:]:
            raise r.fail("reserve.improvements", "{value} is not an improvement", key)
    reserve_imps = [0, 0, 0, 0]
    for i in (1, 2, 3):
        name = IMPROVEMENTS[i]
        expected = IMPROVEMENT_TOKENS[i] - placed_tokens[i] - held[i]
        reserve_imps[i] = r.get(res_imps, name, f"reserve.improvements.{name}", int, expected)
        if reserve_imps[i] != expected or expected < 0:
            raise r.fail(
                f"reserve.improvements.{name}",
                f"{reserve_imps[i]} in the reserve, {placed_tokens[i]} placed as tokens and "
                f"{held[i]} in stocks do not make the game's {IMPROVEMENT_TOKENS[i]} (R1.4)",
            )
    s.reserve_improvements = (0, reserve_imps[1], reserve_imps[2], reserve_imps[3])


def _read_decks(r: _Reader, s: GameState) -> None:
    """``decks``, then ``rng``: every plot and card of the game found once (R1.2, R1.6).

    A deck left out is what is found nowhere else, shuffled from ``seed``; ``rng`` left
    out is the generator after those shuffles.
    """
    d = r.data
    state = rng.seed_state(s.seed)
    decks = r.get(d, "decks", "decks", dict, {})
    for key in decks:
        if key not in DECK_NAMES:
            raise r.fail("decks", f"{{value}} is not a deck ({', '.join(DECK_NAMES)})", key)
    plots_used = Counter(t for c, t in s.tiles.items() if c != POND)
    plots_used.update(s.drawn)
    if "plots" in decks:
        deck_list = r.get(decks, "plots", "decks.plots", list)
        s.plot_deck = tuple(r.tile(t, f"decks.plots[{i}]") for i, t in enumerate(deck_list))
        plots_used.update(s.plot_deck)
        if plots_used != Counter(ALL_PLOTS):
            raise r.fail("decks.plots", _plot_mismatch(plots_used))
    else:
        missing = Counter(ALL_PLOTS)
        missing.subtract(plots_used)
        if any(v < 0 for v in missing.values()):
            raise r.fail("tiles", _plot_mismatch(plots_used))
        state, s.plot_deck = rng.shuffled(state, sorted(missing.elements()))
    seen_cards = _cards_in_hands(r, s)
    objective_decks = []
    for k, name in enumerate(CATEGORIES):
        if name in decks:
            cards = []
            for i, text in enumerate(r.get(decks, name, f"decks.{name}", list)):
                c = r.card(text, f"decks.{name}[{i}]")
                if s.card_set.category(c) != k:
                    raise r.fail(f"decks.{name}[{i}]", f"{text} is not a {name} card")
                if c in seen_cards:
                    raise r.fail(f"decks.{name}[{i}]", f"{text} is also in {seen_cards[c]}")
                if c in s.card_set.removed:
                    raise r.fail(f"decks.{name}[{i}]", f"{text} is removed by the card_set")
                seen_cards[c] = f"decks.{name}"
                cards.append(c)
            missing_cards = [c for c in s.card_set.decks[k] if c not in seen_cards]
            if missing_cards:
                raise r.fail(
                    f"decks.{name}",
                    "the game's cards do not add up: "
                    + ", ".join(s.card_set.card(c).id for c in missing_cards)
                    + " found nowhere (R1.6)",
                )
            objective_decks.append(tuple(cards))
        else:
            rest = [c for c in s.card_set.decks[k] if c not in seen_cards]
            state, deck = rng.shuffled(state, rest)
            objective_decks.append(deck)
    s.objective_decks = tuple(objective_decks)
    s.rng = r.get(d, "rng", "rng", int, state)
    if not 0 <= s.rng < 1 << 64:
        raise r.fail("rng", "must be a 64-bit generator state")


def _cards_in_hands(r: _Reader, s: GameState) -> dict[int, str]:
    """The cards in hands and completed, each with the field it was found in: once each,
    and in the game's card set."""
    seen_cards: dict[int, str] = {}
    for seat in range(s.players):
        for field, cards in ((f"hands[{seat}].objectives", s.hands[seat]),
                             (f"hands[{seat}].completed", s.completed[seat])):
            for c in cards:
                if c in seen_cards:
                    raise r.fail(field, f"{s.card_set.card(c).id} is also in {seen_cards[c]}")
                if c in s.card_set.removed:
                    raise r.fail(field, f"{s.card_set.card(c).id} is removed by the card_set")
                seen_cards[c] = field
    return seen_cards


def _read_known(r: _Reader, s: GameState) -> None:
    """``known``: per deck place, the seats that know what lies there; and, at step redraw,
    the cards put back against the decks that hold them."""
    players = s.players
    known = r.get(r.data, "known", "known", dict, {})
    masks = []
    for name, deck in zip(DECK_NAMES, (s.plot_deck, *s.objective_decks)):
        entries = r.get(known, name, f"known.{name}", list, [[]] * len(deck))
        if len(entries) != len(deck):
            raise r.fail(f"known.{name}", f"has {len(entries)} entries for {len(deck)} cards")
        row = []
        for i, seats in enumerate(entries):
            if not isinstance(seats, list) or any(
                not isinstance(x, int) or not 0 <= x < players for x in seats
            ):
                raise r.fail(f"known.{name}[{i}]", "must be a list of seats")
            row.append(sum(1 << x for x in set(seats)))
        masks.append(tuple(row))
    s.plot_known = masks[0]
    s.objective_known = tuple(masks[1:])
    if s.step == STEP_REDRAW:
        for k, name in enumerate(CATEGORIES):
            if s.put_back[k] > len(s.objective_decks[k]):
                raise r.fail(
                    f"turn.put_back.{name}",
                    f"{s.put_back[k]} cards put back, but the {name} deck holds "
                    f"{len(s.objective_decks[k])}",
                )
        if not any(len(s.objective_decks[k]) > s.put_back[k] for k in range(3)):
            raise r.fail(
                "turn.put_back",
                "at step redraw some deck must still hold a card not put back (R12)",
            )


def _read_end(r: _Reader, s: GameState) -> None:
    """``ended``, ``capped``, ``emperor`` and ``last_turns`` (R13.1, R13.2)."""
    d, players = r.data, s.players
    s.ended = r.get(d, "ended", "ended", bool, False)
    s.capped = r.get(d, "capped", "capped", bool, False)
    emperor = d.get("emperor")
    needed = s.options.objectives_needed(players)
    if emperor is None:
        s.emperor, s.last_turns = NO_SEAT, -1
        if d.get("last_turns") is not None:
            raise r.fail("last_turns", "is set but nobody has the Emperor")
        for seat, done in enumerate(s.completed):
            if len(done) >= needed:
                raise r.fail(
                    "emperor",
                    f"is null, but seat {seat} has completed {len(done)} objectives and the "
                    f"first to reach {needed} takes the Emperor (R13.1)",
                )
    else:
        s.emperor = r.get(d, "emperor", "emperor", int)
        if not 0 <= s.emperor < players:
            raise r.fail("emperor", f"seat {s.emperor} is not in a {players}-player game")
        if len(s.completed[s.emperor]) < needed:
            raise r.fail(
                "emperor",
                f"seat {s.emperor} has completed {len(s.completed[s.emperor])} objectives; "
                f"the Emperor takes {needed} (R13.1)",
            )
        s.last_turns = r.get(d, "last_turns", "last_turns", int)
        lowest = 0 if s.ended else 1
        if not lowest <= s.last_turns <= players - 1:
            raise r.fail("last_turns", f"must be between {lowest} and {players - 1}")


def checked_add(add: Any) -> dict[str, list[dict[str, Any]]]:
    """A position's ``card_set.add``, checked by the card definitions (both engines read it
    so): PositionError naming the card and field."""
    try:
        return check_added(add, set(PRINTED_INDEX), "card_set")
    except CardDefinitionError as exc:
        raise _Reader.fail("card_set.add", str(exc).removeprefix("card_set: ")) from None


def _card_set(r: _Reader, d: dict) -> CardSet:
    """The position's ``card_set`` (the printed set when it is left out)."""
    data = r.get(d, "card_set", "card_set", dict, {})
    for key in data:
        if key not in ("points", "remove", "add"):
            raise r.fail("card_set", "{value} is not a card-set field (points, remove, add)", key)
    points = r.get(data, "points", "card_set.points", dict, {})
    remove = r.get(data, "remove", "card_set.remove", list, [])
    add = checked_add(data["add"]) if "add" in data else None
    try:
        return CardSet.from_changes(points, remove, add=add)
    except OptionError as exc:
        raise r.fail("card_set", str(exc)) from None


def _plot_mismatch(used: Counter) -> str:
    expected = Counter(ALL_PLOTS)
    parts = []
    for code in sorted(set(used) | set(expected)):
        if used[code] != expected[code]:
            parts.append(f"{used[code]} {tile_name(code)} for {expected[code]}")
    return "the plots do not add up with the game's 27 (R1.2): " + ", ".join(parts)


def _check_connected(r: _Reader, tiles: dict[int, int]) -> None:
    """Every plot must be joined to the pond through tiles in play (R5.2)."""
    reached = {POND}
    frontier = [POND]
    while frontier:
        c = frontier.pop()
        for n in grid.NEIGHBOURS[c]:
            if n in tiles and n not in reached:
                reached.add(n)
                frontier.append(n)
    for cell in tiles:
        if cell not in reached:
            raise r.fail("tiles", f"the plot at {grid.cell_text(cell)} is cut off from the pond")


def _check_network(r: _Reader, channels: set[int]) -> frozenset[int]:
    """Channels must form networks that start at the pond (R6.3); returns their corners."""
    network, remaining = grid.channel_network(channels)
    if remaining and r.played:  # as ``apply`` keeps it: every channel's ends join the network
        return network.union(k for e in remaining for k in grid.EDGE_ENDS[e] if k >= 0)
    if remaining:
        text = grid.edge_text(min(remaining))
        raise r.fail("channels", f"{text} is not joined to the pond by other channels (R6.3)")
    return network


def _check_turn(r: _Reader, s: GameState) -> None:
    """The turn fields must describe a step the rules can reach."""
    step, weather, taken = s.step, s.weather, s.taken
    faces = {"choose_weather": ("choice", "clouds"), "rain": ("rain",), "storm": ("storm",),
             "clouds": ("clouds",)}
    name = STEP_NAMES[step]
    if name in faces and (weather < 0 or FACES[weather] not in faces[name]):
        raise r.fail("turn.weather", f"step {name} needs the weather {' or '.join(faces[name])}")
    if step == STEP_ROLL and (weather >= 0 or taken):
        raise r.fail("turn", "step roll is the start of a turn: no weather, no actions yet")
    if step not in (STEP_ACTIONS, STEP_PLACE, STEP_REDRAW) and taken:
        raise r.fail("turn.actions", "actions come after the weather")
    if s.round == 1 and step == STEP_ROLL:
        raise r.fail("turn.step", "there is no weather roll in the first round (R3.2)")
    if s.round == 1 and weather >= 0:
        raise r.fail("turn.weather", "there is no weather in the first round (R3.2)")
    limit = 3 if weather == FACES.index("sun") else 2
    if len(taken) > limit:
        raise r.fail("turn.actions", f"{len(taken)} actions; at most {limit} this turn (R3.3)")
    if weather != FACES.index("wind") and len(set(taken)) != len(taken):
        raise r.fail("turn.actions", "the same action twice needs the wind (R3.4)")
    if step == STEP_PLACE and (not taken or taken[-1] != ACTION_NAMES.index("plot")):
        raise r.fail("turn.actions", "step place follows the plot action")
    if step == STEP_REDRAW:
        if s.options.redraw_satisfied != "all":
            raise r.fail("turn.step", "step redraw needs the option redraw_satisfied=all (R12)")
        if not taken or taken[-1] != ACTION_NAMES.index("objective"):
            raise r.fail("turn.actions", "step redraw follows the objective action")


def positions_equal(a: GameState, b: GameState) -> bool:
    """Whether two states are the same position (what round-trip tests compare).

    Every field of ``board.FIELDS`` but the history and the caches is compared, the derived
    ones too (the network, the shoots), so a field added to the table is compared without
    being named here; and the plots must have been placed in the same order, which the
    rules and bots read (``Board.plots``) and a dict's equality ignores.
    """
    for name, how, _public in FIELDS:
        if how in (SHARED, COPIED) and getattr(a, name) != getattr(b, name):
            return False
    return list(a.bamboo) == list(b.bamboo)
