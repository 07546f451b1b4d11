"""The ``arena`` commands, one module per command group; ``arena/cli.py`` only assembles
them.  A command parses its options, calls the library and prints: no game logic lives
here."""
