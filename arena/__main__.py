"""``python -m arena``: the same as the ``arena`` command."""

from .cli import main

main()
