"""The Takenoko rules engine: seeded, rules-complete, fast, with honest player views.

Typical use::

    from arena.engine import new_game, action_text
    game = new_game(players=2, seed=7)
    while not game.is_terminal():
        action = game.legal_actions()[0]
        game.apply(action)
    print(game.result())

``arena.engine`` imports nothing else of the project and does no I/O.

Two implementations stand behind ``GameState``, ``PlayerView``, ``new_game`` and the
position functions: the native engine (Rust, ``arena/native``, the default) and the
pure-Python reference (``state.py``, ``view.py``, ``position.py``), selected with the
environment variable ``ARENA_ENGINE=reference``.  They make the same decisions: the
differential test compares them step by step.  ``ENGINE`` says which one is in use.
"""

from arena.engine import actions, components, grid, history, native
from arena.engine.actions import action_text, parse_action
from arena.engine.aliases import Action, CardId, Cell, Edge
from arena.engine.board import Board
from arena.engine.components import (
    CARDS,
    CATEGORIES,
    COLOURS,
    DEFAULT_CARD_SET,
    FACES,
    IMPROVEMENTS,
    Card,
    CardSet,
)
from arena.engine.errors import (
    ArenaError,
    IllegalActionError,
    NotationError,
    OptionError,
    PlacementError,
    PositionError,
)
from arena.engine.history import EVENT_KINDS, Event, event_text, events
from arena.engine.options import DEFAULTS, OPTION_NAMES, RuleOptions
from arena.engine.position import from_position, positions_equal, to_position
from arena.engine.state import (
    STEP_ACTIONS,
    STEP_CHOOSE_WEATHER,
    STEP_CLOUDS,
    STEP_NAMES,
    STEP_PLACE,
    STEP_RAIN,
    STEP_REDRAW,
    STEP_ROLL,
    STEP_STORM,
    GameResult,
    GameState,
    new_game,
)
from arena.engine.view import PlayerView

#: Both engines' classes, for ``isinstance``: a native process may hold the reference's
#: objects too (``as_reference``: a Python bot searches on them).
STATE_TYPES: tuple[type, ...] = (GameState,)
VIEW_TYPES: tuple[type, ...] = (PlayerView,)

ENGINE: str = native.selected()
if ENGINE == "native":
    from arena.engine.native import (  # type: ignore[assignment]
        GameState,
        PlayerView,
        from_position,
        new_game,
        positions_equal,
        to_position,
    )

    STATE_TYPES, VIEW_TYPES = (GameState, *STATE_TYPES), (PlayerView, *VIEW_TYPES)

__all__ = [
    "CARDS",
    "CATEGORIES",
    "COLOURS",
    "DEFAULTS",
    "DEFAULT_CARD_SET",
    "ENGINE",
    "EVENT_KINDS",
    "FACES",
    "IMPROVEMENTS",
    "OPTION_NAMES",
    "STATE_TYPES",
    "STEP_ACTIONS",
    "STEP_CHOOSE_WEATHER",
    "STEP_CLOUDS",
    "STEP_NAMES",
    "STEP_PLACE",
    "STEP_RAIN",
    "STEP_REDRAW",
    "STEP_ROLL",
    "STEP_STORM",
    "VIEW_TYPES",
    "Action",
    "ArenaError",
    "Board",
    "Card",
    "CardId",
    "CardSet",
    "Cell",
    "Edge",
    "Event",
    "GameResult",
    "GameState",
    "IllegalActionError",
    "NotationError",
    "OptionError",
    "PlacementError",
    "PlayerView",
    "PositionError",
    "RuleOptions",
    "action_text",
    "actions",
    "components",
    "event_text",
    "events",
    "from_position",
    "grid",
    "history",
    "new_game",
    "parse_action",
    "positions_equal",
    "to_position",
]
