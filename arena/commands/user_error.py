"""The command line's one error for bad input: ``Error: <sentence>`` on stderr, exit status 2.

Every command raises it (``arena play`` and the others through their group, ``arena
tournament`` itself) for input it refuses; the library's own exceptions (``ArenaError`` and
its kin) carry the sentence, and the commands turn them into this.
"""

from __future__ import annotations

import click


class UserError(click.ClickException):
    """Bad input: the message, exit status 2."""

    exit_code = 2
