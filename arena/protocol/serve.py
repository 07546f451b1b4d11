"""``arena engine SPEC``: a built-in bot speaking the engine protocol on stdin/stdout.

So other frameworks (or this arena, through ``engine:"arena engine objective"``) can play
the arena's bots.  Each ``newgame`` makes the bot anew from the seed it carries, as
``make_bot`` makes it in the arena's process, and each ``decide`` gives it the view rebuilt
from the withheld position (``view.rebuild``): the same bot, seed and view make the same
decisions wherever they are played.
"""

from __future__ import annotations

import random
import sys
from typing import IO, Any

import orjson

from arena.engine import ArenaError, RuleOptions, action_text, parse_action
from arena.engine.components import DEFAULT_CARD_SET, CardSet
from arena.play.bot import Bot, Param
from arena.play.registry import BotSpec
from arena.protocol import PROTOCOL, VERSION
from arena.protocol.messages import event_of
from arena.protocol.view import rebuild


def declared(param: Param) -> dict[str, Any]:
    """A bot parameter as an engine option declaration."""
    if param.type is bool:
        return {"name": param.name, "type": "check", "default": param.default}
    if param.choices:
        return {"name": param.name, "type": "combo", "default": param.default,
                "values": list(param.choices)}
    if param.type in (int, float):
        out = {"name": param.name, "type": "spin" if param.type is int else "float",
               "default": param.default}
        if param.minimum is not None:
            out["min"] = param.minimum
        if param.maximum is not None:
            out["max"] = param.maximum
        return out
    return {"name": param.name, "type": "string", "default": str(param.default)}


class Server:
    """The engine's side of the protocol, for one bot spec."""

    def __init__(self, spec: BotSpec, out: IO[bytes]) -> None:
        self.spec = spec
        self.out = out
        self.values: dict[str, Any] = dict(spec.params)
        self.bot: Bot | None = None
        #: The set of the game being played (``newgame``'s ``cards``): its cards' ids.
        self.cards = DEFAULT_CARD_SET

    def send(self, message: dict[str, Any]) -> None:
        self.out.write(orjson.dumps(message) + b"\n")
        self.out.flush()

    def handle(self, message: dict[str, Any]) -> bool:
        """Answer one message; False on ``quit``."""
        kind = message.get("type")
        if kind == "hello":
            cls = self.spec.bot_class()
            self.send({"type": "hello", "protocol": PROTOCOL, "version": VERSION,
                       "name": self.spec.name, "author": "takenoko-arena",
                       "options": [declared(p) for p in cls.PARAMS]})
        elif kind == "options":
            names = {p.name for p in self.spec.bot_class().PARAMS}
            self.values.update({k: v for k, v in message.get("values", {}).items()
                                if k in names})
        elif kind == "newgame":
            cards = message.get("cards") or {}
            self.cards = CardSet.from_changes(cards.get("points", {}), cards.get("remove", []),
                                              add=cards.get("add"))
            cls = self.spec.bot_class()
            self.bot = cls(random.Random(message["seed"]), **self.values)
            self.bot.start(message["seat"], message["players"],
                           RuleOptions.from_dict(message.get("rules", {})))
        elif kind in ("event", "decide") and self.bot is None:
            raise ValueError(f"{kind} before any newgame")
        elif kind == "event" and self.bot is not None:
            self.bot.observe(event_of(message, self.cards))
        elif kind == "decide" and self.bot is not None:
            view = rebuild(message["view"])
            legal = [parse_action(t, self.cards) for t in message["legal"]]
            action = self.bot.choose(view, legal)
            self.send({"type": "action", "action": action_text(action, self.cards)})
        elif kind == "quit":
            return False
        # gameover, error and unknown messages need no answer (docs/protocol.md).
        return True


class ServeError(Exception):
    """A message ``arena engine`` cannot act on (one sentence: its line and why)."""


def serve(spec: BotSpec, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> None:
    """Speak the protocol until ``quit`` or the end of the input; ServeError when a
    message is malformed (the arena would have sent a good one: the caller stops)."""
    server = Server(spec, stdout or sys.stdout.buffer)
    for number, line in enumerate(stdin or sys.stdin.buffer, 1):
        if not line.strip():
            continue
        try:
            message = orjson.loads(line)
            if not isinstance(message, dict):
                raise ValueError("not a JSON object")
            if not server.handle(message):
                return
        except (ValueError, KeyError, TypeError, IndexError, ArenaError) as exc:
            what = f"{type(exc).__name__}: {exc}" if isinstance(exc, KeyError) else str(exc)
            raise ServeError(f"line {number} is not a message arena engine can act on "
                             f"({what[:200]})") from None
