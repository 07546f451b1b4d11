"""Bot specs and the registry, as bots and scripts have imported them (``arena.play.registry``)."""

from arena.play.registry import (
    ENTRY_POINT_GROUP,
    BotSpec,
    available,
    describe_all,
    load_class,
    parse_value,
)

__all__ = ["ENTRY_POINT_GROUP", "BotSpec", "available", "describe_all", "load_class",
           "parse_value"]
