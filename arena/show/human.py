"""The human seat: a person at the terminal plays one seat of ``arena play --bot human``.

It is a bot like any other (``choose(view, legal)``), so the game loop, the record and the
replay treat it as they treat a program, and it is given what every bot is given: the seat's
``PlayerView`` and the events as that seat may see them.  It never sees the state, so it
cannot show what the seat may not know.  At each decision it draws the board and the seat's
hand, numbers the legal actions, and reads a number or an action in notation; ``quit``
(or end of input) stops the game, which is recorded as ``abandoned``; Ctrl-C interrupts it:
no winner, nothing recorded, exit status 130.

A tournament never seats it (``schedule.TournamentConfig`` refuses it): it plays in worker
processes without a terminal.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from collections.abc import Sequence
from typing import IO, Any

from arena.engine import (
    FACES,
    Action,
    Event,
    GameResult,
    NotationError,
    PlayerView,
    action_text,
    parse_action,
)
from arena.engine.components import tile_name
from arena.play.bot import Bot, Param
from arena.runs.records import GameAbandoned
from arena.show.board_text import render_view

HELP = """\
Type the number of an action, or the action in notation (e.g. `gardener 1,0`).
A word that starts several actions lists them (e.g. `place`, `irrigation`).
  board   draw the board and list the legal actions again
  hand    your objectives: what each asks, its points, whether it is satisfied now
  help    this text
  quit    leave the game (it is recorded as abandoned)

The board: each plot is drawn as G3w* (colour letter, upper case if irrigated; bamboo
height; improvement w/e/f; G gardener, P panda, * both); ≈ is the pond, · an open space;
the q,r under each is its place in the notation (docs/notation.md); | / \\ are channels.
The prompt says how many actions your turn has left (two, three with sun; free moves
don't count); the turn ends when you type `end` or have nothing left to do.

What the actions do:
""" + "\n".join(textwrap.fill(meaning, 96, initial_indent=f"  {form:<24}",
                                subsequent_indent=" " * 26) for form, meaning in (
    ("weather FACE", "choose the die's face: " + ", ".join(
        f"{face} ({text})" for face, text in (
            ("sun", "a third action"), ("rain", "one plot grows"),
            ("wind", "the same action twice"), ("storm", "the panda jumps and eats"),
            ("clouds", "take an improvement")))),
    ("rain Q,R", "one bamboo grows on the irrigated plot Q,R"),
    ("storm Q,R", "the panda jumps to Q,R and eats a bamboo there"),
    ("clouds IMP Q,R / keep", "take that improvement: place it on Q,R, or keep it"),
    ("skip", "decline the weather's effect"),
    ("plot", "draw 3 plots (up to 3), then place one of them"),
    ("place K Q,R", "put drawn plot K (listed as 0, 1, 2) at Q,R; the others go under the "
                    "deck in draw order"),
    ("place K Q,R swap", "the same, the other two going under in the reverse order"),
    ("place K Q,R +IMP", "the same, with your stored improvement on the new plot first"),
    ("irrigation A|B / keep", "take a channel: lay it between plots A and B, or keep it"),
    ("gardener Q,R", "move the gardener in a line to Q,R: it grows a bamboo there and on "
                     "the irrigated plots next to it of the same colour"),
    ("panda Q,R", "move the panda in a line to Q,R: it eats a bamboo there"),
    ("objective CAT", "draw an objective card: plot, gardener or panda"),
    ("channel A|B", "free: lay a stored channel between A and B"),
    ("improve IMP Q,R", "free: put a stored improvement on plot Q,R"),
    ("complete CARD", "free: score an objective of your hand that is satisfied"),
    ("end", "end your turn"),
    ("redraw CAT", "draw the replacement card from that deck"),
    ("improvements", "watershed: irrigates its plot; enclosure: the panda cannot eat "
                     "there; fertilizer: grows two at a time"),
))


#: The first words of actions (a line that starts with one is a mistyped action).
VERBS = frozenset(("end", "plot", "place", "irrigation", "gardener", "panda", "objective",
                   "channel", "improve", "complete", "weather", "rain", "storm", "clouds",
                   "skip", "redraw"))


_IMPROVEMENT_DOES = {"watershed": "it irrigates the plot", "enclosure": "the panda cannot "
                     "eat there", "fertilizer": "bamboo grows two at a time there"}
_FACE_DOES = {"sun": "a third action this turn", "rain": "a bamboo grows on an irrigated "
              "plot of your choice", "wind": "you may take the same action twice",
              "storm": "the panda jumps anywhere and eats", "clouds": "take an improvement"}


def describe(text: str, view: PlayerView) -> str:
    """What an action in notation does, in words (the list of legal actions and `help`): a
    person should not need docs/notation.md open to play."""
    words = text.split(" ")
    verb, rest = words[0], words[1:]
    if verb == "place":
        k = int(rest[0])
        plot = tile_name(view.drawn[k]) if k < len(view.drawn) else f"plot {k}"
        does = f"put drawn plot {k} ({plot}) at {rest[1]}"
        extra = [w for w in rest[2:] if w.startswith("+")]
        if extra:
            imp = extra[0][1:]
            does += f" with your {imp} on it ({_IMPROVEMENT_DOES.get(imp, imp)})"
        if "swap" in rest:
            return does + "; the other plots go under the deck in reverse order"
        return does + "; the other plots go under the deck in draw order"
    if verb == "plot":
        return "draw up to 3 plots, then place one of them"
    if verb == "irrigation":
        return ("take a channel into your stock" if rest == ["keep"] else
                f"take a channel and lay it between {rest[0].replace('|', ' and ')}")
    if verb == "gardener":
        return f"move the gardener to {rest[0]}: bamboo grows there and on the irrigated " \
               "plots of its colour next to it"
    if verb == "panda":
        return f"move the panda to {rest[0]}: it eats a bamboo there"
    if verb == "objective":
        return f"draw a {rest[0]} objective"
    if verb == "channel":
        return f"free: lay a stored channel between {rest[0].replace('|', ' and ')}"
    if verb == "improve":
        return f"free: put your {rest[0]} on {rest[1]} ({_IMPROVEMENT_DOES.get(rest[0], '')})"
    if verb == "complete":
        card = next((c for c in view.hand if view.card_set.card(c).id == rest[0]), None)
        points = f", {view.card_points[card]} points" if card is not None else ""
        return f"free: score the objective {rest[0]}{points}"
    if verb == "end":
        return "end your turn"
    if verb == "weather":
        return f"choose {rest[0]} for the die: {_FACE_DOES.get(rest[0], rest[0])}"
    if verb == "rain":
        return f"a bamboo grows on {rest[0]}"
    if verb == "storm":
        return f"the panda jumps to {rest[0]} and eats a bamboo there"
    if verb == "clouds":
        if rest[0] == "move":
            return f"move the improvement on {rest[1]} to {rest[2]}"
        if rest[1] == "keep":
            return f"take a {rest[0]} into your stock"
        return f"take a {rest[0]} and put it on {rest[1]} ({_IMPROVEMENT_DOES.get(rest[0], '')})"
    if verb == "skip":
        return "decline the weather's effect"
    if verb == "redraw":
        return f"draw the replacement card from the {rest[0]} deck"
    return ""


#: The prompt's words for the steps that are not the turn's actions.
_STEP_WORDS = {"choose_weather": "choose the weather", "place": "place a drawn plot",
               "rain": "where it rains", "storm": "where the storm takes the panda",
               "clouds": "which improvement the clouds give", "redraw": "redraw an objective"}

#: What each kind of action does, under a long list (one line per kind shown).
KIND_DOES = {
    "place": "place K Q,R puts drawn plot K at Q,R, the others going under the deck in draw "
             "order (`swap`: in reverse order; `+IMP`: your stored improvement on it)",
    "irrigation": "irrigation A|B lays a channel between plots A and B; `keep` stores it",
    "gardener": "gardener Q,R moves the gardener there: bamboo grows there and on the "
                "irrigated plots of its colour next to it",
    "panda": "panda Q,R moves the panda there: it eats a bamboo",
    "channel": "free: channel A|B lays a stored channel between A and B",
    "improve": "free: improve IMP Q,R puts your stored improvement on that plot",
    "rain": "rain Q,R: a bamboo grows there",
    "storm": "storm Q,R: the panda jumps there and eats",
    "clouds": "clouds IMP Q,R puts that improvement on the plot; `keep` stores it",
}


def actions_left(view: PlayerView) -> int:
    """The actions the seat may still take this turn (R3.3, R4.1): two, three with the sun;
    free moves are not counted."""
    return (3 if view.weather == FACES.index("sun") else 2) - len(view.taken)


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
        #: Whether this seat has moved in the current turn (so its end can be announced).
        self._my_turn = False

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
        """Each event as this seat may see it: another seat's cards only by category.  When
        this seat's turn is over (the next turn's roll, another seat's move, the end), it
        says so: the last free move would otherwise end the turn silently."""
        if self._my_turn and (event.kind in ("roll", "game_over")
                              or (event.kind == "move" and event.seat != self.seat)):
            self._my_turn = False
            self.say("      -- your turn is over --")
        text = event.text
        if text.startswith("*"):
            self.say(f"      {text[2:]}")
        else:
            seat_text, _, action = text.partition(" ")
            mine = seat_text == str(self.seat)
            who = "you" if mine else f"seat {seat_text}"
            self.say(f"r{event.round:<2} {who}: {action}")
            if mine:
                self._my_turn = True

    def finish(self, result: GameResult) -> None:
        if self._my_turn:
            self._my_turn = False
            self.say("      -- your turn is over --")
        mine = result.scores[self.seat]
        won = "you won" if self.seat in result.winners else "you did not win"
        self.say(f"Game over: {mine} points, {won}.")

    # ------------------------------------------------------------------ a decision

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        texts = sorted((action_text(a, view.card_set), a) for a in legal)
        self.say()
        self.say(render_view(view, color=self._colour(), legend=False, coords=True))
        self.list_actions(texts, view)
        while True:
            try:
                line = self._read(self.prompt(view))
            except EOFError:
                self.say()
                raise GameAbandoned(f"seat {self.seat}'s player left the game") from None
            except KeyboardInterrupt:
                # Ctrl-C interrupts the game rather than ending it: no one wins a game no
                # one finished, and `arena play` exits 130, as an interrupted command does.
                self.say()
                raise
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
            self.say(render_view(view, color=self._colour(), coords=True))
            self.list_actions(texts, view)
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
            action = parse_action(line, view.card_set)
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

    def prompt(self, view: PlayerView) -> str:
        """``seat 0, 2 actions left> ``: what remains of the turn, at every prompt."""
        if view.step_name == "actions":
            left = actions_left(view)
            what = f"{left} action{'s' * (left != 1)} left" if left > 0 else "free moves only"
        else:
            what = _STEP_WORDS.get(view.step_name, f"{view.step_name} step")
        return f"seat {self.seat}, {what}> "

    def list_actions(self, texts: list[tuple[str, Action]], view: PlayerView) -> None:
        """The drawn plots (when one is to be placed), then the legal actions numbered from
        1: each with what it does when they fit on a screen, else in columns as wide as the
        terminal followed by what each kind does."""
        if view.drawn:
            self.say("Drawn plots: " + ", ".join(f"{k} = {tile_name(code)}"
                                                 for k, code in enumerate(view.drawn)))
        self.say(f"Your legal actions ({len(texts)}):")
        if len(texts) <= 14:
            width = max(len(t) for t, _a in texts)
            for i, (t, _a) in enumerate(texts, 1):
                self.say(f"{i:>3} {t:<{width}}  {describe(t, view)}".rstrip())
            return
        items = [f"{i:>3} {t}" for i, (t, _a) in enumerate(texts, 1)]
        width = max(len(s) for s in items) + 2
        columns = max(1, shutil.get_terminal_size((100, 24)).columns // width)
        rows = -(-len(items) // columns)
        for r in range(rows):
            self.say("".join(items[c * rows + r].ljust(width) for c in range(columns)
                             if c * rows + r < len(items)).rstrip())
        seen: set[str] = set()
        for t, _a in texts:
            kind = t.split(" ")[0]
            if kind in seen:
                continue
            seen.add(kind)
            self.say(f"    {kind}: {KIND_DOES.get(kind, describe(t, view))}")

    def show_hand(self, view: PlayerView) -> None:
        from arena.engine.card_files import condition

        if not view.hand:
            self.say("Your hand is empty.")
        for card in view.hand:
            done = "satisfied now" if view.objective_found(self.seat, card) else "not yet"
            self.say(f"  {view.card_set.card(card).id:<12} {view.card_points[card]} pts  "
                     f"{condition(view.card_set, card)}  ({done})")
