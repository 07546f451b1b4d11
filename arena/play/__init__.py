"""Playing games: the bot protocol, the registry of bots, seeds, faults and limits, the referee
and the game loop.

Above the engine and the run folder's schema (``arena.runs``), below the jail: nothing here
imports a jail, a tournament or a command."""
