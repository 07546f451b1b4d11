"""The human seat: a person at the terminal plays one seat of ``arena play --bot human``.

It is a bot like any other (``choose(view, legal)``), so the game loop, the record and the
replay treat it as they treat a program, and it is given what every bot is given: the seat's
``PlayerView`` and the events as that seat may see them.  It never sees the state, so it
cannot show what the seat may not know.  At each decision it draws the board and the seat's
hand, numbers the legal actions, and reads a number or an action in notation; ``quit``
(or end of input, or Ctrl-C) stops the game, which is recorded as ``abandoned``.

A tournament never seats it (``schedule.TournamentConfig`` refuses it): it plays in worker
processes without a terminal.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from typing import IO, Any

from .board_text import render_view
from .bot import Bot, Param
from .engine import (
    CARDS,
    Action,
    Event,
    GameResult,
    NotationError,
    PlayerView,
    action_text,
    parse_action,
)
from .records import GameAbandoned

HELP = """\
Type the number of an action, or the action in notation (e.g. `gardener 1,0`).
A word that starts several actions lists them (e.g. `place`, `irrigation`).
  board   draw the board and list the legal actions again
  hand    your objectives: what each asks, its points, whether it is satisfied now
  help    this text
  quit    leave the game (it is recorded as abandoned)"""


#: The first words of actions (a line that starts with one is a mistyped action).
VERBS = frozenset(("end", "plot", "place", "irrigation", "gardener", "panda", "objective",
                   "channel", "improve", "complete", "weather", "rain", "storm", "clouds",
                   "skip", "redraw"))


class HumanBot(Bot):
    """A person at the terminal plays this seat (arena play only, never a tournament)."""

    PARAMS = (
        Param("color", str, "auto", "colours on the board", choices=("auto", "true", "false")),
    )
    color: str

    def __init__(self, rng: Any = None, *, stdin: IO[str] | None = None,
                 stdout: IO[str] | None = None, **params: Any) -> None:
        super().__init__(rng, **params)
        self._stdin = stdin
        self._stdout = stdout

    @property
    def input(self) -> IO[str]:
        return self._stdin or sys.stdin

    @property
    def output(self) -> IO[str]:
        return self._stdout or sys.stdout

    def say(self, text: str = "") -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def _colour(self) -> bool:
        if self.color != "auto":
            return self.color == "true"
        isatty = getattr(self.output, "isatty", None)
        return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")

    def start(self, seat: int, players: int, options: Any) -> None:
        super().start(seat, players, options)
        self.say(f"You play seat {seat} of {players}. Type `help` at any prompt.")

    def observe(self, event: Event) -> None:
        """Each event as this seat may see it: another seat's cards only by category."""
        text = event.text
        if text.startswith("*"):
            self.say(f"      {text[2:]}")
        else:
            seat_text, _, action = text.partition(" ")
            who = "you" if seat_text == str(self.seat) else f"seat {seat_text}"
            self.say(f"r{event.round:<2} {who}: {action}")

    def finish(self, result: GameResult) -> None:
        mine = result.scores[self.seat]
        won = "you won" if self.seat in result.winners else "you did not win"
        self.say(f"Game over: {mine} points, {won}.")

    # ------------------------------------------------------------------ a decision

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        texts = sorted((action_text(a), a) for a in legal)
        self.say()
        self.say(render_view(view, color=self._colour(), legend=False))
        self.list_actions(texts)
        while True:
            try:
                line = self._read(f"seat {self.seat}> ")
            except (EOFError, KeyboardInterrupt):
                self.say()
                raise GameAbandoned(f"seat {self.seat}'s player left the game") from None
            answer = self.answer(line.strip(), view, texts)
            if answer is not None:
                return answer

    def _read(self, prompt: str) -> str:
        if self._stdin is None and self._stdout is None:
            return input(prompt)
        self.output.write(prompt)
        self.output.flush()
        line = self.input.readline()
        if not line:
            raise EOFError
        return line

    def answer(self, line: str, view: PlayerView,
               texts: list[tuple[str, Action]]) -> Action | None:
        """The action a line of input chooses, or None after answering a command."""
        if not line:
            return None
        word = line.lower()
        if word in ("quit", "exit"):
            raise GameAbandoned(f"seat {self.seat}'s player quit the game")
        if word in ("help", "?"):
            self.say(HELP)
            return None
        if word == "board":
            self.say(render_view(view, color=self._colour()))
            self.list_actions(texts)
            return None
        if word == "hand":
            self.show_hand(view)
            return None
        if line.isdigit():
            number = int(line)
            if 1 <= number <= len(texts):
                return texts[number - 1][1]
            self.say(f"{number} is not a number from 1 to {len(texts)}.")
            return None
        problem = ""
        try:
            action = parse_action(line)
        except NotationError as exc:
            action, problem = None, str(exc)
        legal = {a for _t, a in texts}
        if action is not None and action in legal:
            return action
        matching = [(i, t) for i, (t, _a) in enumerate(texts, 1) if t.startswith(line)]
        if matching:
            self.say("  ".join(f"{i}: {t}" for i, t in matching))
            return None
        if action is not None:
            self.say(f"`{line}` is not legal now (step {view.step_name}); "
                     "the numbers above are. Type `help`.")
        elif line.split(" ")[0] in VERBS:
            self.say(f"{problem}. Type `help`.")
        else:
            self.say(f"`{line}` is neither a number, an action nor a command. Type `help`.")
        return None

    def list_actions(self, texts: list[tuple[str, Action]]) -> None:
        """The legal actions numbered from 1, in columns as wide as the terminal."""
        items = [f"{i:>3} {t}" for i, (t, _a) in enumerate(texts, 1)]
        width = max(len(s) for s in items) + 2
        columns = max(1, shutil.get_terminal_size((100, 24)).columns // width)
        rows = -(-len(items) // columns)
        self.say(f"Your legal actions ({len(items)}):")
        for r in range(rows):
            self.say("".join(items[c * rows + r].ljust(width) for c in range(columns)
                             if c * rows + r < len(items)).rstrip())

    def show_hand(self, view: PlayerView) -> None:
        from .cards import condition

        if not view.hand:
            self.say("Your hand is empty.")
        for card in view.hand:
            done = "satisfied now" if view.objective_found(self.seat, card) else "not yet"
            self.say(f"  {CARDS[card].id:<12} {view.card_points[card]} pts  "
                     f"{condition(card)}  ({done})")
