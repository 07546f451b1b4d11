"""``arena engine-check PATH``: scripted positions against an engine, each protocol
violation one line.

The positions are decisions of seeded games chosen to cover every kind of step (the action
step, a plot placement, each weather choice), so that an engine author sees at once which
replies the arena would refuse, without a tournament to read through.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from arena.engine import PlayerView, action_text, events, new_game
from arena.play.faults import BotFault
from arena.protocol import HELLO_TIME
from arena.protocol.handshake import hello_message, hello_problems
from arena.protocol.messages import event_message, result_message
from arena.protocol.process import Command, EngineProcess
from arena.protocol.view import withhold

#: A handshake slower than this is reported (the arena waits ``HELLO_TIME``).
SLOW_START = 2.0
#: Seconds the check gives each decision.
CHECK_MOVE_TIME = 5.0
#: Seeds of the games the positions come from, and positions kept per step kind.
SEEDS = range(6)
PER_STEP = 2


@dataclass
class Report:
    """What the check found: the violations, one sentence each, and what went well."""

    engine: str
    violations: list[str] = field(default_factory=list)
    answered: int = 0
    seconds: list[float] = field(default_factory=list)
    start: float = 0.0


def positions() -> Iterator[tuple[Any, Any, list[int], list[Any]]]:
    """``(state, view, legal, events)`` at decisions of seeded random games, a few per
    kind of step, with the events the seat saw since the game began (as it saw them)."""
    kept: dict[str, int] = {}
    for seed in SEEDS:
        rng = random.Random(seed)
        state = new_game(2 + seed % 3, seed)
        while not state.ended:
            step = state.step_name
            legal = list(state.legal_actions())
            if kept.get(step, 0) < PER_STEP and (step != "actions" or state.round > 1):
                kept[step] = kept.get(step, 0) + 1
                seen = list(events(state.history or (), state.current, cards=state.card_set))
                yield state, PlayerView.of(state, state.current), legal, seen
            state.apply(rng.choice(legal))


def check(command: Command, label: str) -> Report:
    """Play the scripted positions against the engine of ``command``."""
    report = Report(label)
    try:
        process = EngineProcess(command, label)
    except BotFault as fault:
        report.violations.append(fault.message)
        return report
    try:
        _run(process, report)
    finally:
        process.close()
    return report


def _run(process: EngineProcess, report: Report) -> None:
    begin = time.monotonic()
    process.send([hello_message()])
    try:
        reply = process.read(begin + HELLO_TIME, "the handshake")
    except BotFault as fault:
        report.violations.append(f"{fault.message} (within {HELLO_TIME:g} s)")
        return
    report.start = time.monotonic() - begin
    if report.start > SLOW_START:
        report.violations.append(f"{report.engine} took {report.start:.1f} s to answer the "
                                 f"handshake (a slow start: over {SLOW_START:g} s)")
    hello, problems = hello_problems(reply)
    report.violations.extend(f"{report.engine} {p}" for p in problems)
    if hello is None:
        return
    report.engine = f"engine {hello.name!r}"
    process.label = report.engine
    process.send([{"type": "options", "values": {o.name: o.default for o in hello.options}},
                  {"type": "unknown-to-engines", "note": "an engine ignores this"}])
    for number, (state, view, legal, seen) in enumerate(positions(), 1):
        where = f"position {number} (round {state.round}, step {state.step_name})"
        texts = [action_text(a, state.card_set) for a in legal]
        messages: list[dict[str, Any]] = [
            {"type": "newgame", "seat": view.seat, "players": state.players,
             "rules": state.options.to_dict(), "cards": view.card_set.changes(),
             "seed": number, "clock": {"base": None, "increment": 0.0,
                                       "move": CHECK_MOVE_TIME}}]
        messages.extend(event_message(e) for e in seen)
        messages.append({"type": "decide", "view": withhold(view), "legal": texts,
                         "clock": {"move": CHECK_MOVE_TIME, "left": None}})
        sent = time.monotonic()
        try:
            process.send(messages)
            while True:
                reply = process.read(sent + CHECK_MOVE_TIME, f"at {where}")
                if reply["type"] != "info":
                    break
        except BotFault as fault:
            report.violations.append(fault.message)
            return
        report.seconds.append(time.monotonic() - sent)
        action = reply.get("action")
        if reply["type"] != "action":
            report.violations.append(f"{report.engine} answered a decision at {where} with "
                                     f"a {reply['type'][:20]!r} message, not action")
        elif not isinstance(action, str):
            report.violations.append(f"{report.engine} gave no action text at {where}")
        elif action not in texts:
            report.violations.append(f"{report.engine} replied {action[:60]!r} at {where}, "
                                     "which is not one of the legal actions it was sent")
        else:
            report.answered += 1
        process.send([result_message(None)])
