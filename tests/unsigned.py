"""Folders of the format of earlier versions, made from runs of this one: no MACs, no key.

The checks a reader makes of a record's fields (seats, results, numbers out of range, two
tournaments in one file) still guard the folders written before records carried MACs; a
test of those checks edits such a folder, since in a folder of this version the MAC refuses
the edited line first (``tests/tournament/test_jail.py`` tests that).
"""

from __future__ import annotations

import json
from pathlib import Path

from arena.runs.integrity import KEY_FILE, MAC_FIELD, PREV_FIELD, SIG_FIELD

#: What a signed run's manifest holds that an earlier version's did not.
SIGNED_FIELDS = (MAC_FIELD, SIG_FIELD, "signer", "run_id", "seal")


def unsign(directory: Path) -> Path:
    """Turn ``directory`` (a run of this version) into one of an earlier version."""
    manifest_path = directory / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for name in SIGNED_FIELDS:
        manifest.pop(name, None)
    manifest["file_format"] = "takenoko-arena-manifest/1"
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    games = directory / "games.jsonl"
    if games.exists():
        records = [json.loads(line) for line in games.read_text().splitlines() if line.strip()]
        for record in records:
            for name in (MAC_FIELD, PREV_FIELD, SIG_FIELD):
                record.pop(name, None)
        games.write_text("".join(json.dumps(r) + "\n" for r in records))
    (directory / KEY_FILE).unlink(missing_ok=True)
    return directory


def resign(directory: Path, manifest: dict, source: Path | None = None) -> Path:
    """Write ``manifest`` into ``directory`` as the run would have (signed with your key,
    or an older run's with its ``run.key``, copied from ``source`` when given): a folder as
    a run killed at that point leaves it."""
    import shutil

    from arena.runs.integrity import is_chained, read_keys
    from arena.runs.keys import own_key
    from arena.runs.store import write_manifest

    if is_chained(manifest):
        write_manifest(directory, {k: v for k, v in manifest.items() if k != SIG_FIELD},
                       key=own_key())
        return directory

    if source is not None:
        shutil.copy2(source / KEY_FILE, directory / KEY_FILE)
    keys = read_keys(directory)
    assert keys is not None
    write_manifest(directory, {k: v for k, v in manifest.items() if k != MAC_FIELD}, keys)
    return directory
