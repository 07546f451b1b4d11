"""Names for the ints the engine speaks in (as python-chess names ``Square``).

An action, a cell, an edge and a card are plain ints for speed (the hot paths do integer and
bit arithmetic on them); these aliases say in a signature which one is meant.  They are
aliases, not new types: an ``Action`` is an ``int`` to the type checker.  A card's index is
``CardId`` because ``Card`` is already the card's description (``components.Card``).
"""

from __future__ import annotations

from typing import TypeAlias

#: An action: kind in the low bits, its fields above (``actions``; ``action_text`` spells it).
Action: TypeAlias = int
#: A cell of the hex grid (``grid``; ``parse_cell`` reads its text).
Cell: TypeAlias = int
#: An edge between two adjacent cells, where a channel goes (``grid.EDGE_CELLS``).
Edge: TypeAlias = int
#: A card's index in its game's card set (``state.card_set.card(i)``).
CardId: TypeAlias = int
