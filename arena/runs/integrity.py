"""What makes a run's files believable: signatures by their author's key, and older MACs.

Format 3 (today's runs; ``CHAINED_FORMAT``): the lines and the manifest are signed with the
author's Ed25519 key (``arena/runs/keys.py``), in a chain that the manifest seals; see the section
"signed, chained runs" below and docs/tournaments.md, "Who wrote a folder".  ``run.key`` then
holds only the deal key of a run with keyed deals (``arena.play.seeds.keyed_deal_seed``), mode
0600, written to the manifest (``deal_key``) when the run ends, and nothing that signs. A shared key
(``--deal-key FILE``) is written into neither ``run.key`` nor the manifest: it keys other
runs' deals too, and stays in its file.

Format 2 (``SIGNED_FORMAT``, earlier runs): ``run.key`` held an HMAC secret beside the deal
key, each line of ``games.jsonl`` ended with ``"mac"`` (HMAC-SHA256 of the line as written
without it) and the manifest with one over its canonical form.  Those MACs are still checked
(they catch damage) and a resumed format-2 run goes on writing them, but a secret that
travels with the folder proves nothing about who wrote it: readers re-play such a run's
games, as they do those of format 1 (no MACs), before counting them.

Readers (``arena report``, ``--resume``, ``arena replay``, ``arena export``) refuse a record
or a manifest that fails its signature or MAC, naming the line.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
import secrets
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
    data = orjson.dumps({"format": KEY_FORMAT, "secret": keys.secret.hex() or None,
                         "deals": keys.deals.hex() if keys.deals is not None else None})
    tmp = path.with_suffix(".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
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
        # A format-3 run's key file holds the deal key only: nothing in it signs.
        secret = bytes.fromhex(data["secret"]) if data.get("secret") is not None else b""
        deals = bytes.fromhex(data["deals"]) if data.get("deals") is not None else None
    except (KeyError, TypeError, ValueError, AttributeError):
        raise IntegrityError(f"{path} is not a run key file") from None
    if secret and len(secret) < 16:
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
    """What is wrong with a signed manifest's MAC or signature (None: it holds, or a MAC
    cannot be checked without ``run.key``)."""
    if is_chained(manifest):
        return _signature_problem(manifest)
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


# ----------------------------------------------------------------- signed, chained runs
#
# Format 3 (``takenoko-arena-manifest/3``): the run is signed with its author's Ed25519 key
# (``arena/runs/keys.py``), which the manifest names (``signer``); ``run.key`` holds only the
# deal key of a run with keyed deals, never anything that signs.
#
# Each line ends with ``"prev"`` (the game written just before it, null for the first) and
# ``"sig"``: Ed25519 over the chain digest up to it, ``chain_i = SHA-256(chain_(i-1) + body_i)``
# (``body``: the line without ``sig``; ``chain_0`` from the run's random ``run_id``).  A
# signature therefore vouches for every line before it: a reader hashes each line (a few
# microseconds) and checks one signature in ``CHECK_EVERY`` and the last, and only when one
# fails looks for the first line that does.  ``prev`` names the game a deleted or moved line
# held.  The manifest's ``seal`` (the number of games, the chain digest after them and the last
# game), signed with the manifest, makes a folder cut short say so.

#: The manifest format of runs signed with a key pair and chained.
CHAINED_FORMAT = "takenoko-arena-manifest/3"
SIG_FIELD = "sig"
PREV_FIELD = "prev"
_SIG_TAIL = b',"sig":"'
_SIG_HEX = 128
_SIG_SUFFIX = len(_SIG_TAIL) + _SIG_HEX + 2
_PREV = b',"prev":'
_RECORD_DOMAIN = b"takenoko-arena record/1\0"
_MANIFEST_DOMAIN = b"takenoko-arena manifest/3\0"
#: Lines between two signatures checked: a failure costs at most this many checks to place.
CHECK_EVERY = 64


def is_chained(manifest: dict[str, Any]) -> bool:
    """Whether a manifest is of a run signed with a key pair (format 3 or later)."""
    fmt = str(manifest.get("file_format", ""))
    return fmt.startswith("takenoko-arena-manifest/") and fmt.rsplit("/", 1)[-1] not in ("1", "2")


def chain_start(run_id: bytes) -> bytes:
    """The chain digest before a run's first line: its own, so no other run's lines fit."""
    return hashlib.sha256(b"takenoko-arena chain/1\0" + run_id).digest()


def chain_next(chain: bytes, body: bytes) -> bytes:
    """The chain digest after a line (``body``: the line without its signature)."""
    return hashlib.sha256(chain + body).digest()


class ChainSigner:
    """Signs a run's lines in the order they are written (the runner's parent process only):
    the chain's state, and the key.  ``count``/``last``/``chain`` resume where a read left."""

    def __init__(self, key: Any, run_id: bytes, chain: bytes | None = None, count: int = 0,
                 last: str | None = None) -> None:
        self.key = key
        self.run_id = run_id
        self.chain = chain if chain is not None else chain_start(run_id)
        self.count = count
        self.last = last

    def sign_line(self, line: str, game: str) -> str:
        """``line`` (a JSON object, no newline) with ``prev`` and ``sig`` as its last fields."""
        prev = "null" if self.last is None else orjson.dumps(self.last).decode()
        body = f'{line[:-1]},"{PREV_FIELD}":{prev}}}'
        self.chain = chain_next(self.chain, body.encode())
        sig = self.key.sign(_RECORD_DOMAIN + self.chain).hex()
        self.count += 1
        self.last = game
        return f'{body[:-1]},"{SIG_FIELD}":"{sig}"}}'

    def seal(self) -> dict[str, Any]:
        """What the manifest seals: the games so far, the chain after them, the last."""
        return {"games": self.count, "chain": self.chain.hex(), "last": self.last}


def sign_chained_manifest(key: Any, manifest: dict[str, Any]) -> dict[str, Any]:
    """The manifest signed with ``key`` (format 3; ``signer`` and ``run_id`` must be in it)."""
    signed = {k: v for k, v in manifest.items() if k not in (MAC_FIELD, SIG_FIELD)}
    signed["file_format"] = CHAINED_FORMAT
    signed[SIG_FIELD] = key.sign(_MANIFEST_DOMAIN + canonical(signed)).hex()
    return signed


def _signature_problem(manifest: dict[str, Any]) -> str | None:
    from arena.runs.keys import verify

    try:
        public = bytes.fromhex(manifest["signer"]["ed25519"])
        run_id = bytes.fromhex(manifest["run_id"])
        sig = bytes.fromhex(manifest[SIG_FIELD])
    except (KeyError, TypeError, ValueError):
        return "has no signer, run id or signature"
    try:
        body = canonical({k: v for k, v in manifest.items() if k != SIG_FIELD})
    except TypeError:
        return _not_plain(manifest)
    if len(public) != 32 or len(run_id) < 16:
        return "names no Ed25519 key or run id"
    if not verify(public, sig, _MANIFEST_DOMAIN + body):
        return "fails its signature (it was edited after the run wrote it)"
    seal = manifest.get("seal")
    if seal is not None and not (
            isinstance(seal, dict) and isinstance(seal.get("games"), int)
            and isinstance(seal.get("chain"), str) and len(seal["chain"]) == 64):
        return "has a seal that is not one"
    return None


def _not_plain(manifest: dict[str, Any]) -> str:
    """Which field of a manifest is not plain JSON (a number no reader can hold)."""
    for name, value in manifest.items():
        try:
            orjson.dumps(value)
        except TypeError:
            if isinstance(value, int):
                return f"has a {name} of {len(str(abs(value)))} digits, which is no JSON number"
            return f"has a {name} that is not plain JSON"
    return "holds a value that is not plain JSON"


class ChainCheck:
    """Checks the lines of a format-3 run as they are read, in order (``RecordCheck``'s
    interface, plus ``finish`` once the last line is read): each line's place in the chain
    (its ``prev``), a signature in ``CHECK_EVERY`` and the last, and the manifest's seal."""

    signed = True
    keys = None

    def __init__(self, path: Path, manifest: dict[str, Any]) -> None:
        from arena.runs.keys import KeyFileError, whose

        self.path = path
        self.public = bytes.fromhex(manifest["signer"]["ed25519"])
        try:
            self.signer = whose(self.public)
        except KeyFileError as exc:
            raise IntegrityError(str(exc)) from None
        self.chain = chain_start(bytes.fromhex(manifest["run_id"]))
        self.count = 0
        self.last: str | None = None
        self.seen: set[str] = set()
        self.window: list[tuple[Path, int, bytes, bytes]] = []
        seal = manifest.get("seal")
        self.seal: dict[str, Any] | None = seal if isinstance(seal, dict) else None
        self.sealed = False
        self.repeats = 0
        self.warnings: list[str] = []
        if not self.signer.believed:
            self.warnings.append(
                f"{path.parent} is signed by {self.signer.words()}: who wrote it is not known, "
                "so its games are re-played before they are counted (`arena keys trust FILE` "
                "to believe that key)")

    @property
    def believed(self) -> bool:
        return self.signer.believed

    def describe(self) -> str:
        """Whose signatures, and whether the chain is whole (after ``finish``)."""
        if self.seal is None:
            chain = "chain whole, no seal (the run did not end)"
        else:
            chain = f"chain whole and sealed at {self.seal['games']} games"
        return f"signatures by {self.signer.words()}, {chain}"

    def check(self, number: int, raw: bytes, game: Any) -> bool:
        raw = raw.rstrip(b"\r\n")
        where = f"line {number} of {self.path}"
        if len(raw) <= _SIG_SUFFIX or raw[-_SIG_SUFFIX:-_SIG_HEX - 2] != _SIG_TAIL \
                or not raw.endswith(b'"}'):
            raise IntegrityError(f"{where} has no signature; a signed run's lines are "
                                 "written by the arena only")
        body = raw[:-_SIG_SUFFIX] + b"}"
        at = body.rfind(_PREV)
        try:
            sig = bytes.fromhex(raw[-_SIG_HEX - 2:-2].decode("ascii"))
            prev = orjson.loads(body[at + len(_PREV):-1]) if at >= 0 else ...
        except (ValueError, orjson.JSONDecodeError):
            prev = ...
        if prev is ... or not (prev is None or isinstance(prev, str)):
            raise IntegrityError(f"{where} has no readable prev field or signature")
        name = f"game {game}" if isinstance(game, str) else "a record"
        if isinstance(game, str) and game in self.seen:
            raise IntegrityError(f"{where} holds game {game} a second time; a signed run "
                                 "records each game once")
        if prev != self.last:
            after = f"game {self.last}" if self.last else "nothing (the run's start)"
            if prev is None:
                why = (f"{name}, the run's first game, yet it follows {after}: lines were "
                       "added or moved before it")
            elif prev in self.seen:
                why = (f"{name}, which the run wrote right after game {prev}, yet it follows "
                       f"{after}: the lines are out of order")
            else:
                why = (f"{name}, which the run wrote right after game {prev}, yet it follows "
                       f"{after}: game {prev} is missing there (its line was deleted or moved)")
            raise IntegrityError(f"{where} holds {why}")
        self.chain = chain_next(self.chain, body)
        self.count += 1
        if isinstance(game, str):
            self.last = game
            self.seen.add(game)
        self.window.append((self.path, number, self.chain, sig))
        if len(self.window) >= CHECK_EVERY:
            self._verify()
        if self.seal is not None and self.count == self.seal["games"]:
            if self.chain.hex() != self.seal["chain"]:
                self._verify()  # names the edited line, if one is
                raise IntegrityError(f"the first {self.count} lines of {self.path.parent}'s "
                                     "games are not the ones its run sealed")
            self.sealed = True
        return True

    def _verify(self) -> None:
        from arena.runs.keys import verify

        if not self.window:
            return
        _path, _number, chain, sig = self.window[-1]
        if not verify(self.public, sig, _RECORD_DOMAIN + chain):
            bad = next(entry for entry in self.window
                       if not verify(self.public, entry[3], _RECORD_DOMAIN + entry[2]))
            raise IntegrityError(f"line {bad[1]} of {bad[0]} fails its signature (it was "
                                 f"edited after {self.signer.words()} signed it)")
        self.window.clear()

    def finish(self) -> None:
        """After the last line: the last signatures, and the count the seal promises."""
        self._verify()
        if self.seal is not None and not self.sealed and self.count < self.seal["games"]:
            after = f"game {self.last}" if self.last else "the run's start"
            raise IntegrityError(
                f"{self.path.parent} holds {self.count} of the {self.seal['games']} games its "
                f"run sealed: the games after {after} are missing (the last sealed is game "
                f"{self.seal.get('last')}), so its records were cut")


def folder_check(path: Path, manifest: dict[str, Any], keys: RunKeys | None
                 ) -> RecordCheck | ChainCheck:
    """The check of a run's lines, by its manifest's format (``path``: its games.jsonl);
    IntegrityError when the manifest fails its own signature or MAC."""
    problem = manifest_problem(keys, manifest)
    if problem:
        raise IntegrityError(f"{path.parent / 'manifest.json'} {problem}; a run's manifest is "
                             "written by the arena only")
    if is_chained(manifest):
        return ChainCheck(path, manifest)
    return RecordCheck(path, keys, is_signed(manifest))


def finish(check: RecordCheck | ChainCheck | None) -> None:
    """End a read: a chained run's last signatures and seal (nothing for older formats)."""
    if isinstance(check, ChainCheck):
        check.finish()


def provenance(check: RecordCheck | ChainCheck) -> str:
    """Who wrote a run, in the words of a report's first line."""
    if isinstance(check, ChainCheck):
        return f"Signed by {check.signer.words()}."
    if check.signed:
        return ("Signed with a folder secret (run.key, format 2): that proves no author, so "
                "who wrote this run is not known.")
    return "Not signed (written by an earlier version): who wrote this run is not known."


def believed(check: RecordCheck | ChainCheck) -> bool:
    """Whether a run's signatures prove its author (else its games must re-play)."""
    return isinstance(check, ChainCheck) and check.believed
