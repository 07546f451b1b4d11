"""Your signing key, and the public keys you trust: who wrote a run folder.

A run's records are signed with an Ed25519 key pair (``arena/runs/integrity.py``).  The private
key is yours, not the folder's: it lives in your config directory (``$ARENA_CONFIG_DIR``, else
``$XDG_CONFIG_HOME/takenoko-arena``, else ``~/.config/takenoko-arena``), made on first use,
mode 0600 in a 0700 directory, and never copied into a run.  A run's manifest names the public
key that signed it, so anyone holding a folder can check its signatures; whether to *believe*
it is a question of that key: yours, one you chose to trust (``arena keys trust FILE``: a copy
under ``trusted/``), or an unknown one (a folder re-signed by whoever edited it).

Ed25519 from ``cryptography`` (pyca): maintained, audited, wheels for every platform the arena
runs on, and already the Python ecosystem's reference for the primitive (PyNaCl, libsodium's
binding, would do as well).  A public key file is one line, ``takenoko-arena-ed25519 HEX``
followed by an optional comment, so it can be mailed, pasted or published beside a run.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

#: The environment variable that moves the config directory (the tests point it at a tmp).
CONFIG_ENV = "ARENA_CONFIG_DIR"
PRIVATE_FILE = "signing.key"
TRUSTED_DIR = "trusted"
PRIVATE_FORMAT = "takenoko-arena-ed25519-private"
PUBLIC_FORMAT = "takenoko-arena-ed25519"
#: What a key is called in messages: the first hex digits of its public key's SHA-256.
FINGERPRINT_HEX = 16


class KeyFileError(Exception):
    """A key file that cannot be read or written (one sentence for the user)."""


def config_dir() -> Path:
    """Where the arena keeps your keys: ``$ARENA_CONFIG_DIR``, ``$XDG_CONFIG_HOME`` or
    ``~/.config``, in that order."""
    explicit = os.environ.get(CONFIG_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg else Path.home() / ".config"
    return base / "takenoko-arena"


def fingerprint(public: bytes) -> str:
    """A key's short name in messages (16 hex digits of SHA-256 of the raw public key)."""
    return hashlib.sha256(public).hexdigest()[:FINGERPRINT_HEX]


def _read_nofollow(path: Path) -> bytes:
    """A file's bytes, refusing a symbolic link (a key file is never one)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(4096)
    finally:
        os.close(fd)


def _private_dir(create: bool) -> Path:
    folder = config_dir()
    if create:
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise KeyFileError(f"cannot make the key directory {folder}: "
                               f"{exc.strerror or exc}") from None
    return folder


def own_key(create: bool = True) -> Ed25519PrivateKey | None:
    """Your private key; made (0600) on first use with ``create``, else None when absent."""
    path = config_dir() / PRIVATE_FILE
    try:
        text = _read_nofollow(path).decode("ascii").split()
    except FileNotFoundError:
        if not create:
            return None
        return _new_key(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(f"cannot read your signing key {path} "
                           f"({getattr(exc, 'strerror', None) or exc})") from None
    try:
        if len(text) < 2 or text[0] != PRIVATE_FORMAT:
            raise ValueError
        return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(text[1]))
    except ValueError:
        raise KeyFileError(f"{path} is not a takenoko-arena signing key; move it away and "
                           "a new key is made on next use") from None


def _new_key(path: Path) -> Ed25519PrivateKey:
    _private_dir(create=True)
    key = Ed25519PrivateKey.generate()
    seed = key.private_bytes_raw().hex()
    tmp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, f"{PRIVATE_FORMAT} {seed}\n".encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        # Two first uses at once: the first key written stays, and both use it.
        try:
            os.link(tmp, path)
        except FileExistsError:
            tmp.unlink()
            found = own_key(create=False)
            assert found is not None
            return found
        tmp.unlink()
    except OSError as exc:
        raise KeyFileError(f"cannot write your signing key {path}: "
                           f"{exc.strerror or exc}") from None
    return key


def public_bytes(key: Ed25519PrivateKey) -> bytes:
    """The raw 32 bytes of a private key's public half."""
    return key.public_key().public_bytes_raw()


def public_text(public: bytes, comment: str = "") -> str:
    """A public key file's text: one line, format, hex, comment."""
    line = f"{PUBLIC_FORMAT} {public.hex()}"
    return f"{line} {comment}".rstrip() + "\n"


def parse_public(text: str, where: str) -> bytes:
    """The raw public key of a public key file's text; KeyFileError naming ``where``."""
    words = text.split()
    try:
        if len(words) < 2 or words[0] != PUBLIC_FORMAT:
            raise ValueError
        raw = bytes.fromhex(words[1])
        Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise KeyFileError(f"{where} is not a takenoko-arena public key (a line "
                           f"'{PUBLIC_FORMAT} HEX', as `arena keys export` writes)") from None
    return raw


def trusted_keys() -> dict[str, bytes]:
    """The public keys you trust, by fingerprint (``arena keys trust``)."""
    folder = config_dir() / TRUSTED_DIR
    found: dict[str, bytes] = {}
    try:
        entries = sorted(folder.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return found
    for path in entries:
        try:
            raw = parse_public(_read_nofollow(path).decode("ascii", "replace"), str(path))
        except (OSError, KeyFileError):
            continue  # not a key: ignored, as any stray file there
        found[fingerprint(raw)] = raw
    return found


def trust(path: Path) -> str:
    """Trust the public key in ``path`` (a copy under ``trusted/``); its fingerprint."""
    try:
        text = path.read_text(encoding="ascii", errors="replace")
    except OSError as exc:
        raise KeyFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    raw = parse_public(text, str(path))
    name = fingerprint(raw)
    folder = _private_dir(create=True) / TRUSTED_DIR
    try:
        folder.mkdir(exist_ok=True, mode=0o700)
        target = folder / f"{name}.pub"
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        try:
            os.write(fd, public_text(raw, f"trusted from {path.name}").encode())
        finally:
            os.close(fd)
    except OSError as exc:
        raise KeyFileError(f"cannot write to {folder}: {exc.strerror or exc}") from None
    return name


@dataclass(frozen=True)
class Signer:
    """Whose a public key is, for the reader: ``"yours"``, ``"trusted"`` or ``"unknown"``."""

    public: bytes
    whose: str

    @property
    def name(self) -> str:
        return fingerprint(self.public)

    @property
    def believed(self) -> bool:
        """Whether its signatures prove who wrote a run (yours, or a key you trust)."""
        return self.whose in ("yours", "trusted")

    def words(self) -> str:
        """``your key (ab12...)``, ``a key you trust (...)``, ``an unknown key (...)``."""
        label = {"yours": "your key", "trusted": "a key you trust"}.get(
            self.whose, "an unknown key")
        return f"{label} ({self.name})"


def whose(public: bytes) -> Signer:
    """Whose ``public`` is, by your config directory (your key is not made to ask)."""
    mine = own_key(create=False)
    if mine is not None and public_bytes(mine) == public:
        return Signer(public, "yours")
    if fingerprint(public) in trusted_keys():
        return Signer(public, "trusted")
    return Signer(public, "unknown")


def verify(public: bytes, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` is ``public``'s over ``message``."""
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True
