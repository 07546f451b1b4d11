"""``objective``: plans each turn towards the objectives it holds.

Idea: every decision starts from the cards in hand and an estimate of the actions each still
needs (``bots.heuristics.card_cost``).  The *target* is the card with the most points per
estimated remaining action; the position is judged by the shared evaluation plus ``focus``
times the target's discounted value, so the bot finishes one card rather than spreading its
work.  Then, by step:

- actions: a turn-level search.  Every legal action is tried on a determinized state
  (``plot`` over ``plot_samples`` sampled draws, each placed at its best; ``objective`` by
  the *expected* value of a card from that deck, not a sampled one), and the ``beam`` best
  are extended by the best action that can follow in the same turn: the pair is judged, so
  a channel that only pays once the gardener grows the plot is found.  It draws objectives
  only while it holds fewer than ``hand_size`` cards, and picks the deck whose cards are most
  achievable on this board (panda cards when bamboo is plentiful, and so on).
- weather: each face is valued by its best use now (rain on the plot the target needs,
  storm to eat a colour the hand needs, clouds for the improvement a card asks for), the sun
  by what a third action is worth, the wind a little (it allows repeating an action).
- redraw (``redraw_satisfied=all``: a drawn card already satisfied went under its deck): the
  deck with the best expected card, as for the objective action.
- stored channels and improvements are free moves inside the same search, placed when they
  shorten a path; a stored enclosure is put on a bare plot the hand's gardener cards need
  as soon as an opponent has been eating that colour (``protect``).
- denial: from the value of a position it subtracts ``deny`` times what the opponents'
  hidden hands are expected to be worth on it (``heuristics.expected_hand_value``: each
  card they hold is any unseen card of its category, public stocks and board), so eating a
  tall shoot that someone else's gardener card may need, or the colour their pandas
  collect, counts for something.  Their plot cards are left out (slow, and a pattern cannot
  be taken away).  1 (own progress against theirs, point for point) is the default.
- endgame: when an opponent is one objective short of the Emperor, or holds it, cards that
  cannot be finished in the actions left are written off.  It does not complete the
  objective that would take the Emperor when it would end the game behind.

Satisfied objectives are always completed at once.

``race`` (points a card is worth beyond its own, 0 by default) values cards as ``points +
race`` (target, draws, hand, completed cards), so that the bot prefers the quick cards: the
seat that takes the Emperor wins most games.  It is not the default, so that every bot's
figures of record stay measured against the same opponent.  How the defaults, ``deny`` and
``race`` were measured is in ``docs/experiments.md``.

Archetypes: ``prefer`` (``plot``, ``gardener`` or ``panda``; default ``none``) makes the bot
plan as if the cards of that category were worth ``weight`` (default 2) times their points: its
target, its draws and its evaluation favour them, while what it completes and the Emperor
check still use the game's points.  ``objective:prefer=panda`` is the classic panda rush, so
"rush against balanced" is a tournament (what the archetypes do, measured: docs/experiments.md).

Parameters: ``hand_size`` (cards to hold before it stops drawing, default 5: the rules'
limit), ``beam`` (first actions extended by a second one, default 6), ``plot_samples``
(draws sampled to value the plot action, default 3), ``focus`` (extra weight on the target
card, default 0.5), ``protect`` (fence shoots with enclosures when opponents eat, default
true), ``decay`` (a card in hand is worth ``points * decay ** actions still needed``,
default the shared evaluation's ``DECAY``, 0.5), ``deny`` (weight of the opponents'
expected progress, default 1; divided among the opponents in 3 and 4-player games),
``race`` (points a card is worth beyond its own, for the race to the Emperor; default 0),
``prefer`` and ``weight`` (the archetype, above).

On the native engine an ``objective`` made from its spec is a native seat (``arena.play.seat``):
its Rust twin (``arena/native/core/src/bots/objective.rs``) makes the same decisions with
the same draws; this class is the readable reference.

Strengths: finishes cards quickly by planning whole turns, values chance actions by their
expectation, uses weather and stored pieces on purpose, and spoils what opponents are
likely building.  Limits: it plans one turn at a time and never simulates the opponents'
replies; it judges their hands only by category (it does not read their moves to guess
which cards they hold) and ignores their plot cards; its cost estimates ignore that two
cards may need the same bamboo at different heights.  About 5 ms of CPU per decision on
average (0.7 s for a whole 2-player game between two of them, about 140 decisions;
``scripts/bench_bots.py``, median of three runs of five games on a loaded machine): ``value``
remembers each position it has judged during a decision, by what it reads of it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine import (
    STEP_ACTIONS,
    STEP_CHOOSE_WEATHER,
    STEP_REDRAW,
    Event,
    GameState,
    PlayerView,
    RuleOptions,
)
from arena.engine.actions import (
    COMPLETE,
    END,
    FREE_KINDS,
    IMPROVE,
    OBJECTIVE,
    PANDA,
    PLOT,
    REDRAW,
    STORM,
    WEATHER,
    card_of,
    category_of,
    cell_of,
    face_of,
    improvement_of,
    is_swap,
    kind_of,
)
from arena.engine.components import (
    CATEGORIES,
    ENCLOSURE,
    FACE_SUN,
    FACE_WIND,
    GARDENER_CARD,
    PANDA_CARD,
)

from .base import Bot, declared
from .heuristics import (
    Snapshot,
    Weights,
    card_costs,
    card_value,
    draw_value,
    layout_token,
)

#: What the sun's third action is worth, as a share of the best single action's gain.
SUN_SHARE = 0.8
#: What the wind's permission to repeat an action is worth, likewise.
WIND_SHARE = 0.2
#: Value of a stored enclosure on a plot the hand wants, once opponents eat (``protect``).
FENCE_VALUE = 1.0
#: Values of ``prefer``: no archetype, or the category the bot favours.
ARCHETYPES = ("none", *CATEGORIES)


@dataclass
class _Plan:
    """What one decision works towards (computed once per decision, from the view)."""

    seat: int
    target: int
    horizon: int | None
    focus: float
    #: Colours whose shoots opponents have been eating.
    threatened: frozenset[int]
    #: Colours of the hand's gardener cards that an enclosure does not spoil.
    fence_colours: frozenset[int]
    #: Per category, the cards this seat has not seen (what opponents may hold).
    pools: tuple[list[int], ...] = ()


def _value_key(state: GameState | PlayerView, plan: _Plan, layout: object) -> tuple[Any, ...]:
    """What ``ObjectiveBot.value`` reads of a state, for one plan: the layout (by content),
    the bamboo, both figures, the hands (the seat's cards, the others' categories), stocks,
    stored pieces, the reserve of improvements, the seat's completed cards, the Emperor, and
    where the turn stands when the Emperor is out and the plan sets no horizon (the
    evaluation then reckons the actions left).  The shoots and the objectives found follow
    from these."""
    seat = plan.seat
    turn = None
    if state.emperor >= 0 and plan.horizon is None:
        turn = (state.current, state.step, state.taken, state.weather, state.last_turns)
    category = state.card_set.categories.__getitem__
    hands = [
        hand if s == seat else tuple(map(category, hand))
        for s, hand in enumerate(state.hands)  # type: ignore[union-attr]
    ]
    return (
        layout, tuple(state.bamboo.items()), state.gardener, state.panda,
        *hands, *state.eaten, *state.stored_improvements,
        state.stored_channels[seat], state.reserve_improvements, state.completed[seat],
        state.emperor, turn,
    )


class ObjectiveBot(Bot):
    """Plans each turn towards the objective with the most points per remaining action."""

    NATIVE = "objective"  # arena/native/core/src/bots/objective.rs

    #: Declared in arena/data/bot_params.json, which the native core compiles in too.
    PARAMS = declared("objective")
    hand_size: int
    beam: int
    plot_samples: int
    focus: float
    protect: bool
    decay: float
    deny: float
    race: float
    prefer: str
    weight: float

    def __init__(self, rng: random.Random | None = None, **params: Any) -> None:
        super().__init__(rng, **params)
        #: The shared evaluation's weights, with this bot's ``decay``.
        self.weights = Weights(decay=self.decay, race=self.race)
        self.eaten_by_others: set[int] = set()
        #: ``value``'s memory, for the plan it was made for.
        self._values_plan: _Plan | None = None
        self._values: dict[tuple[Any, ...], float] = {}
        #: ``_draw_value``'s memory, for the view it was made for.
        self._draws_view: PlayerView | None = None
        self._draws: dict[tuple[int, int], float] = {}

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        super().start(seat, players, options)
        self.eaten_by_others = set()

    def observe(self, event: Event) -> None:
        """Remember where opponents' pandas went (to decide when to fence, ``protect``)."""
        action = event.action  # None but for a move
        if action is not None and event.seat != self.seat and kind_of(action) in (PANDA, STORM):
            self.eaten_by_others.add(cell_of(action))

    # ----------------------------------------------------------------- decisions

    def choose(self, view: PlayerView, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        completing = [a for a in legal if kind_of(a) == COMPLETE]
        if completing:
            if self._emperor_would_lose(view, completing):
                legal = [a for a in legal if kind_of(a) != COMPLETE]
            else:
                return max(completing, key=lambda a: view.card_points[card_of(a)])
        if self.prefer != "none":
            view = self._preferring(view)
        if view.step == STEP_REDRAW:
            return self._choose_redraw(view, legal)
        plan = self._plan(view)
        state = view.determinize(self.rng)
        if view.step == STEP_ACTIONS:
            fence = self._fence(view, legal, plan)
            if fence is not None:
                return fence
            return self._plan_turn(view, state, legal, plan)
        if view.step == STEP_CHOOSE_WEATHER:
            return self._choose_weather(view, state, legal, plan)
        # place, rain, storm, clouds: the best result now.
        values = [self._after(view, state, a, plan)[0] for a in legal]
        return self._best(legal, values)

    def _preferring(self, view: PlayerView) -> PlayerView:
        """A copy of the view in which the preferred category's cards are worth ``weight``
        times their points: what the archetype plans with (the game's own points still
        decide what it completes and when, above)."""
        category = CATEGORIES.index(self.prefer)
        category_of = view.card_set.categories
        return view.with_card_points(tuple(
            p * self.weight if category_of[c] == category else p
            for c, p in enumerate(view.card_points)
        ))

    def _choose_redraw(self, view: PlayerView, legal: Sequence[int]) -> int:
        """The replacement of a satisfied card (``redraw_satisfied=all``): the deck with the
        best expected card, as for the objective action; stored pieces wait for the actions."""
        redraws = [a for a in legal if kind_of(a) == REDRAW]
        values = [self._draw_value(view, view.seat, category_of(a)) for a in redraws]
        return self._best(redraws, values)

    def _emperor_would_lose(self, view: PlayerView, completing: Sequence[int]) -> bool:
        """Whether completing now would take the Emperor and end the game behind (R13).

        Taking the Emperor ends the game after the others' last turns: if even with every
        satisfied card and the Emperor's points this seat is behind, completing makes the
        loss certain, while waiting keeps a chance to score more first.
        """
        seat = view.seat
        needed = view.options.objectives_needed(view.players)
        if view.emperor >= 0 or len(view.completed[seat]) + 1 < needed:
            return False
        scores = view.scores()
        mine = scores[seat] + view.options.emperor_points
        mine += sum(view.card_points[card_of(a)] for a in completing)
        best_other = max(scores[s] for s in range(view.players) if s != seat)
        return mine < best_other

    def _plan(self, view: PlayerView) -> _Plan:
        seat = view.seat
        hand = view.hand
        costs = card_costs(view, seat, hand)
        target = -1
        if hand:
            race = self.race
            target = max(
                hand, key=lambda c: ((view.card_points[c] + race) / (1.0 + costs[c]), -costs[c])
            )
        horizon: int | None = None
        needed = view.options.objectives_needed(view.players)
        if view.emperor < 0 and any(
            len(view.completed[s]) >= needed - 1 for s in range(view.players) if s != seat
        ):
            # An opponent may take the Emperor on its next turn: we have this turn and one more.
            left = (3 if view.weather == FACE_SUN else 2) - len(view.taken)
            horizon = left + 2
        # Opponents eat a colour if their stock shows it or their panda was seen on it.
        threatened = {
            k for k in range(3)
            if any(view.eaten[s][k] for s in range(view.players) if s != seat)
        }
        threatened.update(view.colour(c) for c in self.eaten_by_others)
        cards = view.card_set.cards
        fence = frozenset(
            cards[c].colour for c in hand
            if cards[c].category == GARDENER_CARD and cards[c].improvement in (-1, ENCLOSURE)
        )
        # Opponents' plot cards are left out: a pattern, once laid, cannot be taken away,
        # and pricing every unseen pattern on every board the search meets is slow.
        pools = ([], view.unseen_cards(GARDENER_CARD), view.unseen_cards(PANDA_CARD))
        if not self.deny:
            pools = ()
        return _Plan(seat, target, horizon, self.focus, frozenset(threatened), fence, pools)

    def value(self, state: GameState | PlayerView, plan: _Plan) -> float:
        """The planner's evaluation: the shared one, plus the target's pull and fences.

        Remembered for the decision (``plan``): a turn's search meets the same position many
        times (a first action valued again when extended, two actions in either order), and
        the key holds everything the value reads (see ``_value_key``).
        """
        if self._values_plan is not plan:
            self._values_plan = plan
            self._values = {}
        layout = layout_token(state)
        key = _value_key(state, plan, layout)
        v = self._values.get(key)
        if v is None:
            v = self._values[key] = self._value(state, plan, layout)
        return v

    def _draw_value(self, view: PlayerView, seat: int, category: int) -> float:
        """``draw_value`` of a deck on the decision's view, worked out once per decision."""
        if self._draws_view is not view:
            self._draws_view = view
            self._draws = {}
        key = (seat, category)
        v = self._draws.get(key)
        if v is None:
            v = self._draws[key] = draw_value(view, seat, category, self.decay, self.race)
        return v

    def _value(
        self, state: GameState | PlayerView, plan: _Plan, layout: object | None = None
    ) -> float:
        seat = plan.seat
        board = Snapshot(state, layout)
        v, costs = board.evaluate(seat, self.weights, horizon=plan.horizon)
        target = plan.target
        if target >= 0 and plan.focus and target in state.hands[seat]:  # type: ignore[union-attr]
            # A panda card alone may use the whole stock: its cost apart from the hand's.
            cost = (
                board.card_cost(seat, target)
                if state.card_set.category(target) == PANDA_CARD
                else costs[target]
            )
            v += plan.focus * card_value(state.card_points[target] + self.race, cost, self.decay)
        if plan.pools:
            deny = self.deny / (state.players - 1)
            for other in range(state.players):
                if other != seat:
                    v -= deny * board.expected_hand_value(
                        other, plan.pools, self.decay, self.race
                    )
        if self.protect and plan.fence_colours & plan.threatened:
            improvement, tiles, bamboo = state.improvement, state.tiles, state.bamboo
            for cell, imp in improvement.items():
                if imp == ENCLOSURE and tiles[cell] >> 2 in plan.fence_colours and bamboo[cell] < 4:
                    v += FENCE_VALUE
        return v

    def _best(self, legal: Sequence[int], values: Sequence[float]) -> int:
        best = max(values)
        ties = [a for a, v in zip(legal, values) if v >= best - 1e-9]
        return ties[self.rng.randrange(len(ties))] if len(ties) > 1 else ties[0]

    # ----------------------------------------------------------------- lookahead

    def _after(
        self, view: PlayerView, state: GameState, action: int, plan: _Plan, samples: int = 1
    ) -> tuple[float, GameState]:
        """Value after ``action`` (looking through place and weather effects) and the state.

        A drawn objective is valued by its deck's expectation and left out of the returned
        state (``_plan_turn`` carries that expectation over to the actions that follow).
        With ``samples`` > 1, ``plot`` is valued over that many sampled draws.
        """
        seat = plan.seat
        kind = kind_of(action)
        if kind == OBJECTIVE:
            child = state.copy()
            child.apply(action)
            # A satisfied card put back (``redraw_satisfied=all``): the sample's replacement
            # comes from the best deck; the card kept is the hand's last either way.
            while child.step == STEP_REDRAW and not child.ended:
                redraws = [a for a in child.legal_actions() if kind_of(a) == REDRAW]
                child.apply(max(redraws,
                                key=lambda a: self._draw_value(view, seat, category_of(a))))
            child = child.with_hand(seat, child.hands[seat][:-1])
            bonus = self._draw_value(view, seat, category_of(action))
            return self.value(child, plan) + bonus, child
        if kind == PLOT and samples > 1:
            total, first = 0.0, None
            for k in range(samples):
                base = state if k == 0 else view.determinize(self.rng)
                v, child = self._after(view, base, action, plan)
                total += v
                if first is None:
                    first = child
            assert first is not None
            return total / samples, first
        child = state.copy()
        child.apply(action)
        if not child.ended and child.current == seat and child.step != STEP_ACTIONS:
            best_v, best_c = -1e9, child
            for follow in child.legal_actions():
                if is_swap(follow):
                    continue  # "swap" only reorders the deck's bottom: the same value
                if kind_of(follow) in FREE_KINDS:
                    continue  # free moves (R3.1) are valued at the action step that follows
                v, c = self._after(view, child, follow, plan)
                if v > best_v:
                    best_v, best_c = v, c
            return best_v, best_c
        return self.value(child, plan), child

    def _plan_turn(
        self, view: PlayerView, state: GameState, legal: Sequence[int], plan: _Plan
    ) -> int:
        values = self.turn_values(view, state, legal, plan)
        if not values:
            return END if END in legal else legal[0]
        actions = list(values)
        return self._best(actions, [values[a] for a in actions])

    def planned_values(
        self, view: PlayerView, state: GameState, legal: Sequence[int]
    ) -> dict[int, float]:
        """``turn_values`` with this decision's plan (target, horizon, denial) made afresh
        from ``view``: what the ``mcts`` bot takes as the prior of its root."""
        return self.turn_values(view, state, legal, self._plan(view))

    def turn_values(
        self, view: PlayerView, state: GameState, legal: Sequence[int], plan: _Plan
    ) -> dict[int, float]:
        """Each first action of the turn valued with its best follow-up in the same turn."""
        seat = plan.seat
        hand_full = len(view.hand) >= self.hand_size
        firsts: list[tuple[float, int, GameState]] = []
        for action in legal:
            kind = kind_of(action)
            if kind == OBJECTIVE and hand_full:
                continue
            v, child = self._after(view, state, action, plan, self.plot_samples)
            firsts.append((v, action, child))
        ranked = sorted(firsts, key=lambda t: -t[0])
        values = {a: v for v, a, _c in firsts}
        for v1, action, child in ranked[: self.beam]:
            if action == END or child.ended or child.current != seat or child.step != STEP_ACTIONS:
                continue
            bonus = v1 - self.value(child, plan)
            best2 = v1
            # A drawn card is left out of ``child`` (its value is in ``bonus``): count it.
            drew = kind_of(action) == OBJECTIVE
            full = len(child.hands[seat]) + drew >= self.hand_size
            for follow in child.legal_actions():
                kind = kind_of(follow)
                if kind in (END, COMPLETE) or (kind == OBJECTIVE and full):
                    continue
                v2, _c = self._after(view, child, follow, plan)
                best2 = max(best2, v2 + bonus)
            # Equal plans: the one that gains first (it is safe from what the draw reveals).
            values[action] = best2 + 1e-3 * v1
        return values

    def _choose_weather(
        self, view: PlayerView, state: GameState, legal: Sequence[int], plan: _Plan
    ) -> int:
        base = self.value(state, plan)
        # The best single action's gain now: what one more action (the sun) is roughly worth.
        probe = state.with_step(STEP_ACTIONS, -1)
        gain = 0.0
        for action in probe.legal_actions():
            if kind_of(action) in (END, OBJECTIVE):
                continue
            gain = max(gain, self._after(view, probe, action, plan)[0] - base)
        values = []
        for action in legal:
            face = face_of(action)
            if kind_of(action) != WEATHER:  # a free move first (R3.1)
                values.append(self._after(view, state, action, plan)[0])
            elif face == FACE_SUN:
                values.append(base + SUN_SHARE * gain)
            elif face == FACE_WIND:
                values.append(base + WIND_SHARE * gain)
            else:
                values.append(self._after(view, state, action, plan)[0])
        return self._best(legal, values)

    # ----------------------------------------------------------------- protection

    def _fence(self, view: PlayerView, legal: Sequence[int], plan: _Plan) -> int | None:
        """An enclosure from the stock on a bare plot the hand's gardener cards need."""
        if not self.protect or not (plan.fence_colours & plan.threatened):
            return None
        best, best_key = None, None
        for action in legal:
            if kind_of(action) != IMPROVE or improvement_of(action) != ENCLOSURE:
                continue
            cell = cell_of(action)
            colour = view.colour(cell)
            if colour not in plan.fence_colours or colour not in plan.threatened:
                continue
            key = (cell in view.irrigated, cell)
            if best_key is None or key > best_key:
                best, best_key = action, key
        return best


__all__ = ["ObjectiveBot"]
