"""The engine protocol: bots in any language, as UCI is for chess engines (docs/protocol.md).

An engine is a program that reads JSON lines on stdin and writes JSON lines on stdout.  This
package holds both sides: the arena's (``spec``: the ``engine:`` bot spec; ``process``: an
engine running in its jail; ``bot``: the seat that plays through it) and the engine's
(``serve``: ``arena engine SPEC``, a built-in bot as an engine), with ``check`` for ``arena
engine-check`` and ``view`` for the view as a withheld position.  The constants below are
shared by both sides and import nothing.
"""

from __future__ import annotations

#: The protocol's name and version, as the handshake gives them.
PROTOCOL = "takenoko-engine"
VERSION = 1
#: The longest line an engine may write (bytes, newline included): an action is a few
#: bytes, a handshake a few kilobytes.
LINE_LIMIT = 1 << 16
#: Bytes of an engine's stderr kept (its last lines go with a fault into arena.log).
STDERR_LIMIT = 1 << 16
#: Lines of stderr quoted with a fault.
STDERR_LINES = 5
#: Seconds an engine has to answer the handshake.
HELLO_TIME = 10.0
#: Seconds for a decision when no time control is given (a hang still costs one game).
DEFAULT_MOVE_LIMIT = 60.0
#: The option types an engine may declare (UCI's, and ``float``).
OPTION_TYPES = ("check", "spin", "float", "combo", "string")
#: Spec keys the arena keeps for itself: an engine may not declare options by these names.
RESERVED_KEYS = ("name", "tc", "st", "fresh")
