"""Every seed the arena derives, in one place: a game's from the master seed, a bot's from its
game.

A seed is never drawn from a shared generator (its output would depend on the order games
are handed out) nor from Python's ``hash()`` (salted per process): it is a hash of the
coordinates of what it seeds, the same on every platform, Python version and process, and
simple enough for another implementation of the arena (the native core) to compute alike.
docs/tournaments.md ("The schedule and the seeds") spells it out.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

#: Seeds are non-negative and below ``2**SEED_BITS``.
SEED_BITS = 63


def draw_seed() -> int:
    """A master seed for a command given none (every command's default): random, and
    printed or recorded by the caller so that the run can be played again."""
    return secrets.randbelow(2**31)


def derive_seed(*parts: object) -> int:
    """A stable 63-bit seed from any parts (``derive_seed("deal", 7, 0, 12)``).

    The parts' text (``str``: decimal for an integer) joined by U+001F, encoded as UTF-8, hashed
    by BLAKE2b with an 8-byte digest (no key, salt or personalization); the digest read as a
    big-endian unsigned integer, shifted right by one bit.
    """
    text = "\x1f".join(str(p) for p in parts).encode()
    digest = hashlib.blake2b(text, digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


def deal_seed(master_seed: int, pairing: int, deal: int) -> int:
    """The game seed of a deal of a pairing (every seat rotation of the deal plays it)."""
    return derive_seed("deal", master_seed, pairing, deal)


def keyed_deal_seed(key: bytes, master_seed: int, pairing: int, deal: int) -> int:
    """The game seed of a deal when the run's deals are keyed (a run with untrusted bots):
    HMAC-SHA256 under ``key`` of the same text as ``derive_seed("deal", ...)`` hashes, its
    first 8 bytes read big-endian and shifted right by one bit.

    Without the key the master seed says nothing of the deals, so a bot that learns the
    master seed (a public competition may print it) cannot compute the decks.
    """
    text = "\x1f".join(str(p) for p in ("deal", master_seed, pairing, deal)).encode()
    digest = hmac.new(key, text, hashlib.sha256).digest()[:8]
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


def deal_key_check(key: bytes) -> str:
    """A fingerprint of a deal key (12 hex digits, HMAC-SHA256 of ``"check"``): what the
    manifest says of the key while the run is live, so that ``--resume`` knows it was given
    the same key, and which tells nothing of the deals."""
    return hmac.new(key, b"check", hashlib.sha256).hexdigest()[:12]


def bot_seed(game_seed: int, seat: int, participant: str) -> int:
    """The seed of a bot's ``random.Random`` in one game: from the game, the seat and the
    participant's name (its spec text, or its ``name=``).

    Derived, not drawn, so a bot plays the same moves whichever worker or command runs the
    game.  The name is part of it so that two copies of one bot at a table (``objective``
    against ``objective:name=B``), or the seat rotations of a deal, are not the same game
    played again.  A one-way hash: a bot told its seed learns nothing of the game seed
    (which would give the decks away).
    """
    return derive_seed("bot", game_seed, seat, participant)
