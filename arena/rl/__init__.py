"""Reinforcement learning: Takenoko as a PettingZoo AEC environment, and an environment
policy as a bot of the arena (``docs/rl.md``).

Needs the ``rl`` extra (``pip install -e '.[rl]'``: pettingzoo, gymnasium); the arena itself
does not.
"""

from __future__ import annotations

from arena.rl.spaces import (
    DEFAULT_RADIUS,
    ActionTable,
    CardSlotError,
    Observation,
    RadiusError,
    card_slots,
    layout,
)

__all__ = ["DEFAULT_RADIUS", "ActionTable", "CardSlotError", "Observation", "RadiusError",
           "card_slots", "layout"]
