"""docs/notation.md: action texts round-trip, malformed texts are refused, events are written."""

from __future__ import annotations

import re

import pytest

from arena.engine import (
    CARDS,
    FACES,
    NotationError,
    action_text,
    grid,
    new_game,
    parse_action,
)
from arena.engine import actions as act
from arena.engine.components import DEFAULT_CARD_SET as PRINTED
from tests.engine.helpers import (
    finish_turn,
    hand,
    load,
    objective_decks,
    play,
    play_random_game,
    tile,
)

EVERY_KIND = [
    "end",
    "skip",
    "plot",
    "place 0 1,0",
    "place 2 -3,4 swap",
    "place 1 0,-1 +fertilizer",
    "place 0 5,-9 +watershed swap",
    "place 2 1,1 +enclosure",
    "irrigation 0,-1|1,-1",
    "irrigation -2,3|-1,3",
    "irrigation keep",
    "gardener 1,0",
    "gardener 0,0",
    "panda -2,3",
    "objective plot",
    "objective gardener",
    "objective panda",
    "channel 1,0|2,-1",
    "improve watershed 2,-1",
    "improve enclosure -1,-1",
    "improve fertilizer 15,-15",
    "complete plot-07",
    "complete gardener-15",
    "complete panda-01",
    "weather sun",
    "weather rain",
    "weather wind",
    "weather storm",
    "weather clouds",
    "rain 1,0",
    "storm 0,0",
    "storm -14,7",
    "clouds watershed 1,0",
    "clouds enclosure -3,1",
    "clouds fertilizer keep",
    "clouds watershed keep",
    "clouds move 1,0 2,-1",
    "redraw plot",
    "redraw gardener",
    "redraw panda",
]


@pytest.mark.parametrize("text", EVERY_KIND)
def test_action_text_round_trips(text: str) -> None:
    """Every action form: text -> int -> the same text, and int -> text -> the same int."""
    action = parse_action(text, PRINTED)
    assert isinstance(action, int)
    assert action_text(action, PRINTED) == text
    assert parse_action(action_text(action, PRINTED), PRINTED) == action


def test_every_kind_is_covered() -> None:
    """The list above holds each of the 19 action kinds."""
    kinds = {act.kind_of(parse_action(t, PRINTED)) for t in EVERY_KIND}
    assert kinds == set(range(19))


def test_every_card_and_every_cell_round_trip() -> None:
    """All card ids, and every cell of the grid, in the forms that carry them."""
    for card in CARDS:
        text = f"complete {card.id}"
        assert action_text(parse_action(text, PRINTED), PRINTED) == text
    for cell in grid.CELLS:
        text = f"gardener {grid.cell_text(cell)}"
        assert action_text(parse_action(text, PRINTED), PRINTED) == text
    for edge in range(len(grid.EDGE_CELLS)):
        text = f"channel {grid.edge_text(edge)}"
        assert parse_action(text, PRINTED) == act.make(act.CHANNEL, edge)
        assert action_text(parse_action(text, PRINTED), PRINTED) == text


def test_edges_are_written_smaller_tile_first() -> None:
    """An edge may be read in either order; it is written smaller tile first (q, then r)."""
    reversed_ = parse_action("irrigation 1,-1|0,-1", PRINTED)
    assert reversed_ == parse_action("irrigation 0,-1|1,-1", PRINTED)
    assert action_text(reversed_, PRINTED) == "irrigation 0,-1|1,-1"
    assert action_text(parse_action("channel 0,1|0,0", PRINTED), PRINTED) == "channel 0,0|0,1"
    assert action_text(parse_action("channel -1,1|-1,0", PRINTED), PRINTED) == "channel -1,0|-1,1"


def test_surrounding_spaces_are_ignored() -> None:
    """Leading and trailing spaces do not matter."""
    assert parse_action("  gardener 1,0 \n", PRINTED) == parse_action("gardener 1,0", PRINTED)


MALFORMED = [
    "",
    "jump",
    "END",
    "end now",
    "gardener",
    "gardener 1",
    "gardener 1,0,2",
    "gardener a,b",
    "gardener  1,0",
    "gardener 99,0",
    "panda 1;0",
    "place 3 1,0",
    "place x 1,0",
    "place 0",
    "place 0 1,0 swap +fertilizer",
    "place 0 1,0 +gold",
    "place 0 1,0 swap swap",
    "irrigation 0,0|2,0",
    "irrigation 1,0|1,0",
    "irrigation 1,0",
    "irrigation",
    "channel keep",
    "objective bamboo",
    "objective",
    "complete plot-99",
    "complete panda",
    "weather choice",
    "weather hail",
    "rain",
    "storm 1,0 2,0",
    "clouds move 1,0",
    "clouds gold keep",
    "clouds watershed",
    "improve 1,0 enclosure",
    "improve enclosure",
    "skip 1",
    "redraw",
    "redraw bamboo",
    "redraw plot gardener",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_actions_raise_notation_error(text: str) -> None:
    """Malformed texts raise NotationError with a one-sentence message naming the text."""
    with pytest.raises(NotationError) as info:
        parse_action(text, PRINTED)
    message = str(info.value)
    assert message and "\n" not in message
    assert repr(text.strip()) in message or repr(text) in message, message


def test_events_are_written_in_notation() -> None:
    """History: ``S ACTION`` for choices, ``* EVENT`` for chance (deal, roll, drew, ...)."""
    mine = ["plot-02"]
    done = [f"panda-{i:02d}" for i in range(1, 9)]
    s = load(
        tiles=[tile("1,0", "green", 4)],
        weather="rain",
        hands=[hand(mine, completed=done), hand()],
        decks=objective_decks({"gardener": ["gardener-04"]}, elsewhere=mine + done),
        dice=["choice"],
    )
    play(s, "objective gardener", "complete gardener-04", "plot")
    play(s, "place 0 0,-1")
    finish_turn(s)
    text = s.history_text()
    assert text[:4] == [
        "0 objective gardener",
        "* drew gardener-04",
        "0 complete gardener-04",
        "* emperor 0",
    ]
    assert text[4] == "0 plot"
    assert re.fullmatch(r"\* drew plots \S+ \S+ \S+", text[5])
    assert text[6] == "0 place 0 0,-1"
    # Two actions: the turn ends by itself; seat 1's last turn rolls "?" and ends the game.
    assert text[7:] == ["* roll choice", "1 weather sun", "1 end", "* game over"]


EVENT = re.compile(
    r"(\d (?P<action>.+))"
    r"|(\* deal \d( (plot|gardener|panda)-\d\d){3})"
    r"|(\* roll (sun|rain|wind|storm|clouds|choice))"
    r"|(\* drew plots( (green|yellow|pink)(/(watershed|enclosure|fertilizer))?){1,3})"
    r"|(\* (drew|returned) (plot|gardener|panda)-\d\d)"
    r"|(\* emperor \d)"
    r"|(\* game over)"
)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_history_line_follows_the_notation(players: int) -> None:
    """Every line of a whole game's history is an action or an event of docs/notation.md."""
    options = None
    for seed in range(6):
        state, chosen = play_random_game(players, seed, options)
        moves = 0
        for line in state.history_text():
            m = EVENT.fullmatch(line)
            assert m, f"not notation: {line!r}"
            if m.group("action"):
                action = parse_action(m.group("action"), PRINTED)
                assert action_text(action, PRINTED) == m.group("action")
                moves += 1
        assert moves == len(chosen)
        assert [action_text(a, PRINTED) for a in chosen] == [
            line.split(" ", 1)[1] for line in state.history_text() if not line.startswith("*")
        ]


def test_roll_event_names_choice_for_the_question_mark_face() -> None:
    """The "?" face is written ``choice`` in events, and is not a face to choose."""
    assert FACES[5] == "choice"
    s = new_game(2, seed=0, dice=[5])
    finish_turn(s)
    finish_turn(s)
    assert s.history_text()[-1] == "* roll choice"
    with pytest.raises(NotationError):
        parse_action("weather choice", PRINTED)
