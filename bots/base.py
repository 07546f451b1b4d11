"""The bot API, as bots and the README import it: ``from bots.base import Bot, Param``.

The protocol belongs to the arena, which speaks it (``arena.play.bot``); this module re-exports
it so that existing bots and plugins keep their imports.
"""

from arena.play.bot import Bot, BotConfigError, Param, declared

__all__ = ["Bot", "BotConfigError", "Param", "declared"]
