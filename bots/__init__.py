"""Bots: a small API (``bots.base``), a registry by entry point (``bots.registry``) and the
built-in strategies, one module each."""

from .base import Bot, BotConfigError, Param
from .registry import BotSpec, available, load_class

__all__ = ["Bot", "BotConfigError", "BotSpec", "Param", "available", "load_class"]
