"""How a record's ``moves`` read: the one reading of its notation lines a report needs.

A record's ``moves`` (``arena/runs/records.py``) are the game's history in notation:
``"S ACTION"`` for a choice by seat S, ``"* EVENT"`` for what chance or the rules did.  One
fact the reports need lives there alone: how many turn actions a seat spent on a card, from
its draw (or the start) until it completed the card (``turn_actions``; the card study's
"actions to complete").  A turn action's line is its kind's word first, one of
:data:`TURN_ACTIONS`: the same names under which the record's writer counts each seat's
turn actions in ``actions``, so this reading is held to the writer's counts
(``tests/reports/test_moves.py``, which also holds it to the engine's parser).

Why here and not a record field or the engine's parser: a field would change the bytes of
every record (and its signature's meaning) for a fact the records already hold; the
engine's ``parse_action`` is a layer the reports may not import (a report reads the files,
never the engine: ``tests/test_layering.py``), and it needs the game's card set, while this
reading needs only the first word of a seat's line and a card's id, which the record spells
as the catalog does.  This module imports nothing: a leaf the reports may import.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The five turn actions (R3.3), as a record's ``actions`` names them and a move's notation
#: begins.
TURN_ACTIONS = ("plot", "irrigation", "gardener", "panda", "objective")
_TURN_WORDS = frozenset(TURN_ACTIONS)


def turn_actions(moves: Sequence[str], seat: int, card: str, after_draw: bool) -> int:
    """The seat's turn actions from the start (or, with ``after_draw``, from the draw of
    ``card``: its line ``* drew CARD``) until it completed ``card`` (``S complete CARD``) or
    the game ended."""
    prefix = f"{seat} "
    done = f"{seat} complete {card}"
    drew = f"* drew {card}"
    counting = not after_draw
    count = 0
    for line in moves:
        if not counting:
            counting = line == drew
            continue
        if line.startswith(prefix):
            if line == done:
                break
            if line.split(" ", 2)[1] in _TURN_WORDS:
                count += 1
    return count
