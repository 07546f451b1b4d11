"""Bot specs and the registry, as bots and scripts have imported them (``arena.registry``)."""

from arena.registry import (
    ENTRY_POINT_GROUP,
    BotSpec,
    available,
    describe_all,
    load_class,
    parse_value,
)

__all__ = ["ENTRY_POINT_GROUP", "BotSpec", "available", "describe_all", "load_class",
           "parse_value"]
