"""The engine's data: the published game's components, the rule option table and the built-in
bots' parameters, as JSON.

Both engines read these files: the reference (``arena.engine``) through :func:`load`,
the native core (``arena/native``) compiled in with ``include_str!``.  They live here, a
package that imports nothing of ours, below the engine and the crate alike: the engine's
wrapper imports the crate, so a crate that compiled in files of the engine's own package
would make the engine depend on itself through the build (``tests/test_layering.py``).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

#: The files of this package, each read by both engines.
COMPONENTS = "components.json"
OPTIONS = "options.json"
#: The built-in bots' parameters (``arena.play.bot.declared``, the core's ``bots/declared.rs``).
BOT_PARAMS = "bot_params.json"


def load(name: str) -> Any:
    """The JSON value of one of this package's files (:data:`COMPONENTS`, :data:`OPTIONS`,
    :data:`BOT_PARAMS`)."""
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))
