"""Engines that misbehave in one way each, written as small Python scripts into a test's
temporary folder (the jail shows them their folder and the interpreter)."""

from __future__ import annotations

import sys
from pathlib import Path

#: The engine's body: a random player; ``HOOK`` lines are replaced per engine.
TEMPLATE = '''#!{python}
import json, random, sys, time
PROTOCOL, VERSION = "takenoko-engine", 1
OPTIONS = [{{"name": "complete", "type": "check", "default": True}}]
def say(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()
decisions = 0
rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
{hello}
        say({{"type": "hello", "protocol": PROTOCOL, "version": VERSION, "name": "fake",
             "author": "tests", "options": OPTIONS}})
    elif kind == "newgame":
        rng = random.Random(message["seed"])
    elif kind == "decide":
        decisions += 1
{decide}
        say({{"type": "action", "action": rng.choice(message["legal"])}})
    elif kind == "quit":
        break
'''

#: What each fake does differently (the lines go into the hello, then the decide branch).
BEHAVIOURS: dict[str, tuple[str, str]] = {
    "fine": ("pass", "pass"),
    # Ends itself unless it runs as another user than root with no capability at all.
    "dropped": ("import os; status = open('/proc/self/status').read()\n        "
                "if os.getuid() == 0 or any(f'{k}:\\t0000000000000000' not in status "
                "for k in ('CapEff', 'CapPrm', 'CapBnd')): sys.exit(9)", "pass"),
    "silent": ("time.sleep(60)", "pass"),
    "version2": ("VERSION = 2", "pass"),
    "twice": ("OPTIONS.append(dict(OPTIONS[0]))", "pass"),
    "huge_hello": ("say({'type': 'hello', 'name': 'x' * 1_100_000}); continue", "pass"),
    "no_author": ("say({'type': 'hello', 'protocol': PROTOCOL, 'version': 1, 'name': 'x', "
                  "'options': []}); continue", "pass"),
    "crash": ("pass", "if decisions == 3:\n            print('boom: out of ideas', "
                      "file=sys.stderr); sys.stderr.flush(); sys.exit(3)"),
    "illegal": ("pass", "say({'type': 'action', 'action': 'fly away'}); continue"),
    "hang": ("pass", "time.sleep(60)"),
    "slow": ("pass", "time.sleep(0.25)"),
    "garbage": ("pass", "print('hello world', flush=True); continue"),
    "huge_move": ("pass", "sys.stdout.write('x' * 1_100_000); sys.stdout.flush()"),
    "chatty": ("pass", "say({'type': 'ponder'}); say({'type': 'info', 'text': 'hmm'}); "
                       "sys.stdin.readline()"),
}


def fake_engine(folder: Path, behaviour: str) -> Path:
    """Write the engine of ``behaviour`` into ``folder`` (executable); its path."""
    hello, decide = BEHAVIOURS[behaviour]
    path = folder / f"{behaviour}_engine.py"
    path.write_text(TEMPLATE.format(python=sys.executable, hello=" " * 8 + hello,
                                    decide=" " * 8 + decide))
    path.chmod(0o755)
    folder.chmod(0o755)  # the jail's user reads it (pytest makes its folders private)
    return path
