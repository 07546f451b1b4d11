"""The run folder, owned in one place: what a run writes and how it is read back.

This package sits right above the engine (and ``arena.engine.card_files``): the play layer
(the match, the referee) writes records through it, and the tournament runner, ``arena replay``,
``arena export`` and the reports read them through it.  It owns

- the record schema and the door to its one writer, the core's (:mod:`arena.runs.records`:
  ``GameRecord``, ``make_record``, ``json_problem``), and the reading of its ``moves`` a
  report needs (:mod:`arena.runs.moves`: a card's turn actions);
- the store (:mod:`arena.runs.store`: the manifest, the games journal, the run's lock) and
  its sealed, compressed segments (:mod:`arena.runs.segments`);
- the signatures: each line's MAC or Ed25519 signature, the chain and the seal
  (:mod:`arena.runs.integrity`), and whose key signed a run (:mod:`arena.runs.keys`);
- the one verified reader of a folder (:mod:`arena.runs.reader`).
- the summary files a search rewrites after every trial, written whole even when Ctrl-C
  comes meanwhile (:mod:`arena.runs.outputs`).

It imports nothing here on purpose: a report imports the leaves it needs (the reports read
files, never live objects), and importing one leaf must not load the others' dependencies.
"""
