"""takenoko-arena: bots play Takenoko against each other, by the thousands."""

__version__ = "0.1.0"
