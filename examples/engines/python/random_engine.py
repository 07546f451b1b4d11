#!/usr/bin/env python3
"""A complete Takenoko engine in the standard library only: completes an objective when it
can, else plays a random legal action (the arena's ``random:complete=true``).

The simplest example of the engine protocol (docs/protocol.md): read one JSON object per
line, answer ``hello`` and ``decide``, ignore everything else, stop at ``quit``.
"""

import json
import random
import sys


def main() -> None:
    """Answer the arena's messages until it says quit (or closes our input)."""
    rng = random.Random(0)
    complete = True
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply = {"type": "hello", "protocol": "takenoko-engine", "version": 1,
                     "name": "random-py", "author": "takenoko-arena examples",
                     "options": [{"name": "complete", "type": "check", "default": True}]}
        elif kind == "options":
            complete = bool(message["values"].get("complete", True))
            continue
        elif kind == "newgame":
            rng = random.Random(message["seed"])
            continue
        elif kind == "decide":
            legal = message["legal"]
            completing = [a for a in legal if a.startswith("complete ")]
            action = completing[0] if complete and completing else rng.choice(legal)
            reply = {"type": "action", "action": action}
        elif kind == "quit":
            return
        else:  # event, gameover, error, and anything newer than this engine
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
