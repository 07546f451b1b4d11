"""The run's secrets, and the MACs that make its files believable.

A run folder written by this version holds ``run.key`` (mode 0600, readable by the arena's
user only; a jail never sees the run's folder): the run's MAC secret and, for a run with
keyed deals, the deal key (``arena.seeds.keyed_deal_seed``).  Neither is in a command line,
an environment or the manifest while the run is live; when it ends the run's own deal key is
written to the manifest (``deal_key``), so that anyone can play its games again, and the MAC
secret stays in ``run.key``.  A shared key (``--deal-key FILE``) is written into neither: it
keys other runs' deals too, and stays in its file.

Each line of ``games.jsonl`` ends with ``"mac"``: HMAC-SHA256, under a key derived from the
MAC secret, of the line as the runner wrote it without that field (the exact bytes: no
re-serialization to agree on, and a check is one hash over the line).  The manifest carries
``"mac"`` too, over its canonical form (its fields without ``mac``, keys sorted, compact,
as orjson writes them), and says ``file_format`` ``takenoko-arena-manifest/2``.

Readers (``arena report``, ``--resume``, ``arena replay``) refuse a record or a manifest
that fails its MAC, a signed run's record without one, and a game recorded twice with
different contents, naming the line.  A folder of an earlier version (manifest format 1, no
MACs) still reads, with a warning that its files are not authenticated; so does a signed
folder copied without its ``run.key`` (its MACs cannot be checked without the secret).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

KEY_FILE = "run.key"
KEY_FORMAT = "takenoko-arena-key/1"
#: The manifest format of runs whose files carry MACs (1: earlier versions, without).
SIGNED_FORMAT = "takenoko-arena-manifest/2"
MAC_FIELD = "mac"
_TAIL = b',"mac":"'
_HEX = 64
#: Bytes a MAC adds at the end of a line: ``,"mac":"`` + 64 hex digits + ``"}``.
_SUFFIX = len(_TAIL) + _HEX + 2


class IntegrityError(Exception):
    """A file that fails its MAC, or a duplicate record that differs (one sentence)."""


@dataclass(frozen=True)
class RunKeys:
    """A run's secrets: the MAC secret, and the deal key of keyed deals (None: public)."""

    secret: bytes
    deals: bytes | None = None

    @classmethod
    def new(cls, deals: bytes | None = None) -> RunKeys:
        return cls(secrets.token_bytes(32), deals)

    def _key(self, purpose: bytes) -> bytes:
        return hmac.new(self.secret, b"takenoko-arena " + purpose, hashlib.sha256).digest()

    @functools.cached_property
    def records(self) -> bytes:
        # Derived once: the parent signs every line with it (thousands a second).
        return self._key(b"records")

    @property
    def manifest(self) -> bytes:
        return self._key(b"manifest")


def write_keys(directory: Path, keys: RunKeys) -> None:
    """Write ``run.key``, readable by this user only (created 0600, never wider)."""
    path = directory / KEY_FILE
    data = orjson.dumps({"format": KEY_FORMAT, "secret": keys.secret.hex(),
                         "deals": keys.deals.hex() if keys.deals is not None else None})
    tmp = path.with_suffix(".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def read_keys(directory: Path) -> RunKeys | None:
    """The keys of a run folder (None when it has no ``run.key``); IntegrityError when the
    file is not one."""
    path = directory / KEY_FILE
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as exc:
        raise IntegrityError(f"cannot read {path} ({exc})") from None
    try:
        if data["format"] != KEY_FORMAT:
            raise ValueError(data["format"])
        secret = bytes.fromhex(data["secret"])
        deals = bytes.fromhex(data["deals"]) if data.get("deals") is not None else None
    except (KeyError, TypeError, ValueError):
        raise IntegrityError(f"{path} is not a run key file") from None
    if len(secret) < 16:
        raise IntegrityError(f"{path} holds a secret too short to be a run's")
    return RunKeys(secret, deals)


def read_deal_key(path: Path, *, create: bool) -> bytes:
    """A shared deal key file (``--deal-key FILE``): 64 hex digits.  ``create``: a missing
    file is made with a fresh key (0600), for the next run to share."""
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        if not create:
            raise IntegrityError(f"--deal-key {path}: no such file") from None
        key = secrets.token_bytes(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, key.hex().encode() + b"\n")
        finally:
            os.close(fd)
        return key
    except (OSError, UnicodeDecodeError) as exc:
        raise IntegrityError(f"--deal-key {path}: cannot read it ({exc})") from None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise IntegrityError(f"--deal-key {path} must hold a key of at least 32 hex digits "
                             "(a missing file is created with one)")
    return key


# ----------------------------------------------------------------- records


def sign_line(keys: RunKeys, line: str) -> str:
    """A ``games.jsonl`` line (a JSON object, no newline) with its MAC as the last field."""
    body = line.encode()
    mac = hmac.new(keys.records, body, hashlib.sha256).hexdigest()
    return f'{line[:-1]},"{MAC_FIELD}":"{mac}"}}'


def line_problem(keys: RunKeys, raw: bytes) -> str | None:
    """What is wrong with a signed line's MAC (None: it holds)."""
    raw = raw.rstrip(b"\r\n")
    if len(raw) <= _SUFFIX or raw[-_SUFFIX:-_HEX - 2] != _TAIL or not raw.endswith(b'"}'):
        return "has no MAC"
    body = raw[:-_SUFFIX] + b"}"
    mac = raw[-_HEX - 2:-2]
    expected = hmac.new(keys.records, body, hashlib.sha256).hexdigest().encode()
    if not hmac.compare_digest(expected, mac):
        return "fails its MAC (it was not written by this run, or was edited since)"
    return None


def line_mac(raw: bytes) -> bytes:
    """The MAC a line ends with (b"" when none): what tells two records of a game apart."""
    raw = raw.rstrip(b"\r\n")
    if len(raw) > _SUFFIX and raw[-_SUFFIX:-_HEX - 2] == _TAIL:
        return raw[-_HEX - 2:-2]
    return b""


class RecordCheck:
    """Checks the lines of one ``games.jsonl`` as they are read: each line's MAC (when the
    run is signed and its key is known) and that a game recorded twice is recorded the same.

    ``check(number, raw, game)`` returns False for a repeat of an identical record (to be
    skipped) and raises IntegrityError naming the line otherwise; ``warnings`` says what
    could not be checked, once.  A folder of an earlier version (``signed`` False) is not
    checked at all: its readers keep their own policy for repeats.
    """

    def __init__(self, path: Path, keys: RunKeys | None, signed: bool) -> None:
        self.path = path
        self.keys = keys
        self.signed = signed
        self.seen: dict[str, tuple[int, bytes]] = {}
        self.repeats = 0
        self.warnings: list[str] = []
        if not signed:
            self.warnings.append(
                f"{path.parent} was written by an earlier version of the arena, without MACs: "
                "its records are not authenticated (a forged or edited line would go unseen)")
        elif keys is None:
            self.warnings.append(
                f"{path.parent} has no {KEY_FILE}: its records' MACs cannot be checked here "
                "(copy the run's key file with it to authenticate them)")

    def check(self, number: int, raw: bytes, game: Any) -> bool:
        if self.signed and self.keys is not None:
            problem = line_problem(self.keys, raw)
            if problem:
                raise IntegrityError(f"line {number} of {self.path} {problem}; delete it to "
                                     "have that game played again (--resume)")
        if not self.signed or not isinstance(game, str) or game == "play":
            return True  # an earlier version's repeats: the reader's own policy applies
        digest = line_mac(raw)
        earlier = self.seen.get(game)
        if earlier is None:
            self.seen[game] = (number, digest)
            return True
        if earlier[1] != digest or not digest:
            raise IntegrityError(f"lines {earlier[0]} and {number} of {self.path} both hold game "
                                 f"{game} with different contents; delete the one that is not "
                                 "the run's")
        self.repeats += 1
        return False


def check_lines(path: Path, lines: Iterable[tuple[int, bytes, Any]], keys: RunKeys | None,
                signed: bool) -> Iterator[tuple[int, Any]]:
    """``(number, record)`` of the lines that pass ``RecordCheck`` (identical repeats
    dropped)."""
    checker = RecordCheck(path, keys, signed)
    for number, raw, record in lines:
        game = record.get("game") if isinstance(record, dict) else None
        if checker.check(number, raw, game):
            yield number, record


# ----------------------------------------------------------------- the manifest


def canonical(manifest: dict[str, Any]) -> bytes:
    """The manifest's fields but ``mac``, keys sorted, compact: what its MAC covers."""
    return orjson.dumps({k: v for k, v in manifest.items() if k != MAC_FIELD},
                        option=orjson.OPT_SORT_KEYS)


def sign_manifest(keys: RunKeys, manifest: dict[str, Any]) -> dict[str, Any]:
    """The manifest with its MAC (and the signed format)."""
    signed = {**manifest, "file_format": SIGNED_FORMAT}
    signed.pop(MAC_FIELD, None)
    signed[MAC_FIELD] = hmac.new(keys.manifest, canonical(signed), hashlib.sha256).hexdigest()
    return signed


def is_signed(manifest: dict[str, Any]) -> bool:
    """Whether the manifest is of a run whose files carry MACs (format 2 or later)."""
    fmt = str(manifest.get("file_format", ""))
    return fmt.startswith("takenoko-arena-manifest/") and fmt != "takenoko-arena-manifest/1"


def manifest_problem(keys: RunKeys | None, manifest: dict[str, Any]) -> str | None:
    """What is wrong with a signed manifest's MAC (None: it holds, or cannot be checked)."""
    if not is_signed(manifest) or keys is None:
        return None
    mac = manifest.get(MAC_FIELD)
    if not isinstance(mac, str):
        return "has no MAC"
    try:
        body = canonical(manifest)
    except TypeError:
        return "holds a value that is not plain JSON"
    expected = hmac.new(keys.manifest, body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, mac):
        return "fails its MAC (it was edited after the run wrote it)"
    return None


def damaged_line(path: str | Path, number: int, why: str) -> str:
    """The one wording of a damaged line of a records file (``games.jsonl``), whichever
    command reads it (``report``, ``tournament --resume``, ``replay``): the file, the line,
    what is wrong, and what to do.  ``why`` reads after the file (``is not JSON: ...``)."""
    # json_problem's position within the one line says nothing more than the line number
    why = why.removesuffix(" (line 1)")
    return f"Line {number} of {path} {why}; fix or delete that line"
