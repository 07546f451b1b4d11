"""The Takenoko rules engine: seeded, rules-complete, fast, with honest player views.

Typical use::

    from arena.engine import new_game, action_text
    game = new_game(players=2, seed=7)
    while not game.is_terminal():
        action = game.legal_actions()[0]
        game.apply(action)
    print(game.result())

``arena.engine`` imports nothing else of the project and does no I/O.
"""

from . import actions, components, grid
from .actions import action_text, parse_action
from .aliases import Action, CardId, Cell, Edge
from .components import (
    CARDS,
    CATEGORIES,
    COLOURS,
    DEFAULT_CARD_SET,
    FACES,
    IMPROVEMENTS,
    Card,
    CardSet,
)
from .errors import ArenaError, IllegalActionError, NotationError, OptionError, PositionError
from .options import DEFAULTS, OPTION_NAMES, RuleOptions
from .position import from_position, positions_equal, to_position
from .state import (
    ACTIONS,
    CHOOSE_WEATHER,
    CLOUDS_STEP,
    PLACE_STEP,
    RAIN_STEP,
    REDRAW_STEP,
    ROLL,
    STEP_NAMES,
    STORM_STEP,
    GameResult,
    GameState,
    event_text,
    new_game,
)
from .view import PlayerView

__all__ = [
    "ACTIONS",
    "CARDS",
    "CATEGORIES",
    "CHOOSE_WEATHER",
    "CLOUDS_STEP",
    "COLOURS",
    "DEFAULTS",
    "DEFAULT_CARD_SET",
    "FACES",
    "IMPROVEMENTS",
    "OPTION_NAMES",
    "PLACE_STEP",
    "RAIN_STEP",
    "REDRAW_STEP",
    "ROLL",
    "STEP_NAMES",
    "STORM_STEP",
    "Action",
    "ArenaError",
    "Card",
    "CardId",
    "CardSet",
    "Cell",
    "Edge",
    "GameResult",
    "GameState",
    "IllegalActionError",
    "NotationError",
    "OptionError",
    "PlayerView",
    "PositionError",
    "RuleOptions",
    "action_text",
    "actions",
    "components",
    "event_text",
    "from_position",
    "grid",
    "new_game",
    "parse_action",
    "positions_equal",
    "to_position",
]
