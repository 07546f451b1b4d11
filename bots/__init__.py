"""The built-in bots, one module each; the arena registers them by entry point
(``pyproject.toml``) like any plugin's.  The API they implement is ``arena.play.bot``, which
``bots.base`` re-exports."""

from .base import Bot, BotConfigError, Param

__all__ = ["Bot", "BotConfigError", "Param"]
