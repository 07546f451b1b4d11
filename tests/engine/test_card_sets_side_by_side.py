"""Two games of card sets that add different cards, played step by step side by side in one
process, are each the game it is when played alone: the same notation, the same events for
every seat, the same decisions of a Python bot, the same observations for an RL agent and
the same board text.  The games are played on the engine ``arena.engine`` is backed by (the
Python bots read that engine's states), and again in a subprocess on the reference.

A set's added cards take the indices after the printed ones (45 on), so the two sets give
those indices different cards, one of them under the same id with another condition.
Whatever read a table of the process instead of its game's set (``state.card_set``) would
name, price or encode the other game's card at some step.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena.engine import ENGINE, RuleOptions, action_text, events
from arena.engine.components import CARDS, CATEGORY_CARDS, CardSet
from arena.engine.native import engine
from arena.rl.spaces import ActionTable, Observation
from arena.show.board_text import render_view
from bots.greedy import GreedyBot

#: Every printed card but the first two of each deck is left out, so the added ones are dealt
#: and drawn within a few rounds.
REMOVED = [CARDS[c].id for deck in CATEGORY_CARDS for c in deck[2:]]

#: Set A adds plot-16, gardener-16 and panda-16; set B adds other cards under the same ids
#: and the same indices (other colours, shapes, heights, sections), and one id of its own.
SET_A = CardSet.from_changes(remove=REMOVED, name="A", add={
    "plot": [{"id": "plot-16", "points": 3, "cells": [
        {"at": "0,0", "colour": "green"}, {"at": "1,0", "colour": "green"}]}],
    "gardener": [{"id": "gardener-16", "colour": "green", "shoots": 1, "height": 2,
                  "improvement": "any", "points": 2}],
    "panda": [{"id": "panda-16", "eat": {"green": 1, "pink": 1}, "points": 2},
              {"id": "panda-17", "eat": {"green": 2}, "points": 3}],
})
SET_B = CardSet.from_changes(remove=REMOVED, name="B", add={
    "plot": [{"id": "plot-16", "points": 5, "cells": [
        {"at": "0,0", "colour": "pink"}, {"at": "1,0", "colour": "yellow"},
        {"at": "0,1", "colour": "pink"}]}],
    "gardener": [{"id": "gardener-16", "colour": "yellow", "shoots": 1, "height": 1,
                  "improvement": "none", "points": 4}],
    "panda": [{"id": "panda-16", "eat": {"yellow": 2}, "points": 4},
              {"id": "panda-big", "eat": {"pink": 1, "yellow": 1}, "points": 1}],
})
OPTIONS = RuleOptions(max_rounds=9)
PLAYERS = 2



@dataclass
class Game:
    """One game being played, with what was read of it at each step."""

    state: Any
    view_class: Any
    bots: list[GreedyBot]
    seen: list[Any] = field(default_factory=list)

    def step(self) -> None:
        """One decision: the board text and the RL observation of the seat to move, its
        bot's choice in notation, and the choice applied."""
        state = self.state
        seat, legal = state.current, list(state.legal_actions())
        view = self.view_class.of(state, seat)
        cards = view.card_set
        action = self.bots[seat].choose(view, legal)
        self.seen.append((
            render_view(view, color=False),
            Observation(cards=cards).encode(view).tobytes(),
            ActionTable(options=OPTIONS, cards=cards).mask(legal).tobytes(),
            action_text(action, state.card_set),
        ))
        state.apply(action)

    def finish(self) -> list[Any]:
        """Everything read of the game: each step's, then the history in notation, every
        seat's events and the cards completed."""
        state = self.state
        told = [[e.text for e in events(state.history, seat, cards=state.card_set)]
                for seat in range(PLAYERS)]
        return [*self.seen, state.history_text(), told, state.result().completed]


def new(eng: SimpleNamespace, cards: CardSet, seed: int) -> Game:
    bots = []
    for seat in range(PLAYERS):
        bot = GreedyBot(random.Random(seed * 10 + seat), samples=1)
        # The Python decision, not the Rust port the bot hands a native view to: what is
        # tested is the Python reading of the game's cards.
        bot._native = None
        bot.start(seat, PLAYERS, OPTIONS)
        bots.append(bot)
    return Game(eng.new_game(PLAYERS, seed=seed, options=OPTIONS, cards=cards), eng.PlayerView,
                bots)


def alone(eng: SimpleNamespace, cards: CardSet, seed: int) -> list[Any]:
    game = new(eng, cards, seed)
    while not game.state.ended:
        game.step()
    return game.finish()


def test_two_added_card_sets_side_by_side_play_as_alone() -> None:
    eng = engine(ENGINE)
    # One seed: the two games start alike but for the added cards (same plots, same dice,
    # the cards dealt from the same places), so a table shared by boards of the same
    # content (a bot's cache) meets both sets.
    seed_a = seed_b = 3
    a, b = new(eng, SET_A, seed_a), new(eng, SET_B, seed_b)
    while not (a.state.ended and b.state.ended):
        for game in (a, b):
            if not game.state.ended:
                game.step()
    side_by_side = a.finish(), b.finish()
    assert side_by_side[0] == alone(eng, SET_A, seed_a)
    assert side_by_side[1] == alone(eng, SET_B, seed_b)
    # The games met their added cards: held, named and drawn (else nothing was tested).
    for game, ids in ((side_by_side[0], ("plot-16", "gardener-16", "panda-16", "panda-17")),
                      (side_by_side[1], ("plot-16", "gardener-16", "panda-16", "panda-big"))):
        history = " ".join(game[-3])
        assert sum(card in history for card in ids) >= 3, history
    assert "panda-big" not in " ".join(side_by_side[0][-3])


def test_a_bots_cache_of_a_board_keeps_each_sets_cards_apart() -> None:
    """The heuristics keep what a board's layout costs across games (boards of the same
    content share it); card 45 is A's two green plots and B's three pink and yellow ones."""
    from bots import heuristics

    eng = engine(ENGINE)
    games = {}
    for cards in (SET_A, SET_B):
        game = eng.new_game(PLAYERS, seed=3, options=OPTIONS, cards=cards)
        game.place_card(45, seat=0)
        games[cards.name] = game
    alone = {}
    for name, game in games.items():
        heuristics._clear_caches()
        alone[name] = heuristics.card_cost(game, 0, 45)
    assert alone["A"] != alone["B"]
    heuristics._clear_caches()
    assert [heuristics.card_cost(games[n], 0, 45) for n in "ABA"] == [
        alone["A"], alone["B"], alone["A"]]


@pytest.mark.skipif(ENGINE == "reference", reason="the suite runs on the reference already")
def test_side_by_side_on_the_reference_engine() -> None:
    """The same tests with the Python engine behind ``arena.engine``, in a subprocess."""
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__,
         "-k", "not on_the_reference_engine"],
        cwd=root, env={**os.environ, "ARENA_ENGINE": "reference"}, capture_output=True,
        text=True, timeout=600, check=False,
    )
    passed = re.search(r"(\d+) passed", run.stdout)
    assert run.returncode == 0 and passed and int(passed[1]) >= 3, run.stdout[-3000:]


def test_a_set_is_its_own_table_and_the_printed_tables_never_change() -> None:
    """A set answers for its cards, printed and added; making, playing or unpickling a set
    that adds cards leaves the module's printed tables as they were."""
    import pickle

    from arena.engine import components as comp

    assert len(SET_A) == len(SET_B) == 49 and len(comp.DEFAULT_CARD_SET) == 45
    assert [c.index for c in SET_A] == list(range(49))
    assert SET_A.card(45).id == SET_B.card(45).id == "plot-16"
    assert SET_A.card(45).shifts != SET_B.card(45).shifts
    assert SET_A.index("panda-17") == 48 and SET_B.index("panda-big") == 48
    assert SET_A.category(46) == comp.GARDENER_CARD and SET_B.category(48) == comp.PANDA_CARD
    with pytest.raises(ValueError, match="'panda-big' is not an objective card"):
        SET_A.index("panda-big")
    again = pickle.loads(pickle.dumps(SET_B))
    assert again == SET_B and again.card(48).eat == SET_B.card(48).eat
    engine(ENGINE).new_game(PLAYERS, seed=1, cards=SET_A)
    assert len(comp.CARDS) == len(comp.CARD_CATEGORY) == len(comp.CARD_INDEX) == 45
    with pytest.raises(ValueError):
        comp.parse_card("plot-16")
