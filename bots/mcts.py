"""``mcts``: information-set Monte Carlo tree search with a Takenoko leaf evaluation.

Idea: single-observer information-set MCTS (SO-ISMCTS; Cowling, Powley & Whitehouse,
"Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012).  One tree is grown over
the bot's information set, its edges keyed by action ints.  Every iteration samples a full
state from the view (``view.determinize``: opponents' hands, deck orders and a fresh die
generator), walks the tree choosing only among the actions legal in that sample, with the
availability-aware UCB of the paper (``mean + c * sqrt(ln(availability) / visits)``: an action
that is legal in few samples is not punished for it), adds one node, plays a few cheap
decisions on, and scores the leaf with a heuristic.  The score is a vector (one value per
seat) and every node is chosen from the point of view of the seat to move there, so 3 and
4-player games are searched max^n style.  A Takenoko turn is a chain of decisions (weather,
action 1, action 2, free moves), so a turn is a path of nodes; the subtree under the chosen
action is kept for the next decision of the same turn.

Chance (the die, cards and plots drawn) happens inside ``apply`` in each sampled state with
its own generator, and the tree is keyed by our choices only, so no outcome is assumed to
repeat across iterations.  The bot never reads hidden information: its only inputs are the
view and ``view.determinize(self.rng)``; hands it sees in a sample are samples, not peeks.

Pruning and guidance: a satisfied objective is always completed before anything else (a
free move worth points), and the ``swap`` variants of a plot placement (the order of the two
plots sent under the deck) are not searched.  Progressive widening lets a node consider one
more action each time its visits grow.  At the root and in the bot's own turn just below it,
the actions are ordered by a one-step look-ahead (apply, evaluate) and each child starts with
a few virtual visits at that one-step value (a progressive bias: the search begins as a
greedy player and corrects it with samples); deeper nodes order their actions by a cheap
action score.

The leaf evaluation (``eval=deny``, the default with 3-4 players) is built on
``bots.heuristics.evaluate``, the measure the ``objective`` bot plans with (weighted points
plus each card in hand discounted by the actions it still needs). The searching seat's value
is its own evaluation against the best opponent as estimated from public information only
(points, stored pieces, and each hidden card valued as the mean of the unseen cards of its
category on this board), so its values do not swing with the hands a sample deals the
opponents; an opponent's value, which it maximises at its own nodes, is read from its
sampled hand. Both become win chances through a logistic of the lead scaled by
``temperature``. The other evaluations: ``heuristics`` (``evaluate_all`` on the sample,
every seat from its sampled hand); ``fitted`` (the 2-player default: the same measures split
into terms, points, hand, cards completed, whose turn it is, how far the game is, weighed by
a logistic regression fitted on recorded games: ``FITTED_WEIGHTS``,
``scripts/fit_value.py``); ``progress`` (this module's own cheaper measure: points plus each
card's points times ``0.6 ** steps``, against the public estimate of the others);
``sampled`` (``progress`` read from sampled hands); ``heuristics-public`` (an experiment);
``score`` (points only, a baseline). A finished game scores its real result (1 for a win,
1/k for a victory shared by k).

At the root of the action step (``planner=true``), the ``objective`` bot's turn planner
values every first action with its best follow-up in the same turn; those values order
the root's actions and are its prior.  While an action of the turn is left, ending the
turn is not searched (some action is always about as harmless as none).

In 2-player games the search is spent on the action step.  With ``delegate=steps`` (the
2-player default) the other decisions (which weather face, which plot to keep and where,
where rain, storm or clouds act) and the choice of which satisfied objective to complete,
and whether to complete it at all when taking the Emperor would end the game behind
(R13), are the ``objective`` planner's: in a paired screen that cost nothing in strength
(50.5% against 50.0% on the same 100 games) and saved about a third of the thinking time,
which buys a bigger budget for the decisions that matter.

How the defaults were chosen (2 players against ``objective``, 1000 iterations, the same
100 deals each): ``eval=heuristics`` with ``temperature=3`` won 30%, ``eval=deny`` with
``temperature=8`` 42%; with ``c=0.03`` and ``planner=true`` 46% (78 games).  The defaults
then won 45.2% of 200 games (95% CI 38.5-52.2%).  Then ``delegate=steps`` (50.5% against
50.0% on the same 100 games, seed 11) and its time saved spent on ``iterations=3000``:
62.0% of those 100 games (95% CI 52.2-70.9%), thinking a median 29 s per game; on 100
fresh games (seed 12) 50.0% (40.4-59.6%): 56.0% (49.1-62.7%) of the 200.  With 4
players the same change did worse on the same 80 games against three ``objective`` bots
(23.8% against 36.2% for the old defaults), and each half of it did too: delegation at
1000 iterations won 23.8% of the 80 games (against 36.2%), 3000 iterations without
delegation none of its first 13 where they won 5.  Why is not established (the
planner plans for one opponent's denial; max^n over three opponents' replies, each
searched from its sampled hand, may grow more pessimistic as the tree deepens), so the
3-4 player defaults stay at 1000 iterations without delegation.  Screens without gain,
not kept: ``reuse=false``, ``prior=10``, 150 virtual visits for the planner's own choice,
an extra pull towards the planner's target card in the leaf value (``focus`` 0.5: 47.5%).
``eval=fitted`` won 62.0% of the 100 seed-11 games at 1000 iterations (``deny`` 50.5%,
discordant games 24 for, 12 against; ``deny`` at 3000 iterations also 62.0%) and 55.0% of
the 100 seed-12 games (``deny`` at 3000: 50.0%; discordant 25 for, 20 against): 58.5% of
the 200 games (95% CI 51.6-65.1%; on games no choice was made on, below, it is no stronger
than ``objective``) against 56.0% for ``deny`` at 3000 iterations, with a
third of the thinking (a median 10 s per game against 29 s, at most 20 s).  So the 2-player
default is ``eval=fitted`` at 1000 iterations: as strong, three times faster.  More search
did not help it: at 3000 iterations it won 58.0% (seed 11) and 53.0% (seed 12), 55.5% of the
200.  With 4 players it won 28.7% of the 80 seed-11 games against 36.2% for ``deny``, which
stays the 3-4 player default; a horizon at the end of the bot's own turn (``turns=1``: no
opponent replies searched) won 21.9% of those 80 games (discordant 11 for, 23 against): the
replies matter.
Later screens on the same 100 seed-11 games (the 2-player default won 62.0% of them), none
kept: ``depth=0`` (no rollout decision before the leaf) 57.0% (discordant 20 for, 25
against); ``c=0.1`` 52.0% (14 for, 24 against); three independent trees of 1000 iterations
with their visits added, 50.0% of the first 44 games where the default won 63.6% (5 for, 11
against; stopped); a leaf that scores the race itself (the actions each seat needs to
complete the objectives it lacks, its cheapest cards first, against the fastest rival, with
points and the phase, fitted like ``fitted``: held-out log loss 0.540 against ``deny``'s
0.563 on the same positions, where ``fitted`` had 0.558 against 0.574 on its own) won 43.8%
of the first 48 games where the default won 64.6% (6 for, 16 against; stopped).  A leaf that
predicts the winner better is not a leaf that tells two actions apart better: both
``fitted`` and that race leaf were chosen by log loss on positions of ``objective`` games,
and only the one that keeps the hand's card-by-card values gained.  With 4 players, 300
iterations won 23.8% of the 80 seed-11 games against 36.2% for 1000 (10 for, 20 against),
``c=0.1`` 34.4% (16 for, 17 against) and ``temperature=4`` 26.9% (12 for, 19 against).
**Those screens measured noise and selection more than strength.** A control run, the
2-player default itself with only another random stream (a bot's generator is seeded from
its participant's name, which ``scripts/strength.py`` takes from the spec's text, so
``mcts`` and ``mcts:eval=fitted,iterations=1000,delegate=steps`` play the same games
differently), won 45.0% of the same 100 seed-11 games where the run the default was chosen
on had won 62.0% (30 games went to the first run, 13 to the second; sign test p = 0.014). A
configuration chosen because it did best on some games did better on them than it does
elsewhere: the default won 44.0% of 100 fresh seed-13 games and 49.0% of seed 14's (with the
control and 58.0% of seed 12's, 49.0% of 400 games, 95% CI 44.1-53.9%), and with 4 players
36.2% of the 80 games it was chosen on against 25.0% of the next 120 deals of the same run
and 22.5% of 120 seed-12 games. So the differences between the screens above, measured on
the games that chose the default, are not evidence that one configuration plays better than
another; compare on fresh deals (``scripts/paired.py --deals-from``, or another seed), and
against a control run of the reference itself.
Later screens: the fitted weights held to "completing a satisfied card never lowers the
value" (the free fit values a point in hand above a point scored until a third of the game,
so completing a card lowered the leaf in 104 of the 112 completions made, in 40
``objective`` games, before any seat had two cards done; the held fit costs 0.0005 of
held-out log loss) won 56.0% of the 100 seed-11 games (21 for, 27 against), and as a
4-player ``fitted`` leaf 28.7% of the 80 (13 for, 19 against). Keying the tree's plot
placements by the plot drawn rather than by its place in the draw (``tree_keys``: the place
means another plot in every sample, so the node after ``plot`` mixed unrelated placements
and drawing plots looked worse than it is) made the search draw plots more often (5.9 plot
actions a game against 4.7; ``objective`` 7.1) and won 56.0% of the 100 seed-11 games
against the lucky 62.0% (24 for, 30 against) but against the control 45.0% (28 for, 17
against), and 65.0% of the fresh seed-13 games where the default won 44.0% (36 for, 15
against), and 59.5% of seed 14's where it won 49.0% (28 for, 18 against): **60.2% of 300
games (95% CI 54.5-65.5%) against 46.0% for the same bot without it, discordant 92 for and
50 against (sign test p < 0.001), so the 2-player default keys placements by plot**
(``AUTO_PLOT_KEYS``). With 4 players it won 14.6% of the first 41 seed-11 games (3 for, 11
against; stopped) and stays off; never drawing plots at the root when another action is
legal did as badly with 4 players (25.0% of the first 60, 3 for, 11 against): there a plot
helps three rivals, and neither more plots nor none did better than the biased search. With
4 players, the searching seat's chance as the geometric mean of its chances against each
opponent (instead of against the best one: a gain to any opponent counts) won 30.0% of 200
games against 29.5%, 28.3% against 25.0% on the 120 deals the default was not chosen on (21
for, 17 against).
Measured on fresh seeds after that (no choice made on them): the 2-player default won 60.0%
of seed 12's games (the old default 58.0%) and 59.0% of seed 15's, **59.9% of 500 games
(seeds 11-15, 95% CI 55.5-64.1%)**.  Three changes did no better against it on seed 12's
100 games: 2500 iterations 59.0% (20 for, 21 against; thinking a median 23.8 s a game
against 9.2 s), so the search is not short of samples and its strength rests on the leaf;
ranking by the one-step look-ahead, rather than at random, the placements of plots that the
first sample at a node had not drawn (appended to its order) 58.5% (22 for, 23 against;
6.1 plot actions a game, as before); ``depth=0`` 61.0% (22 for, 21 against, a quarter less
thinking), but on seed 15 47.5% where the default won 59.0% (18 for, 30 against): 54.2% of
the 200 games against 59.5%.  None is kept.  With 4 players the default won 33.3% of 120
fresh seed-13 games: 28.6% of 440 (seeds 11-13, 95% CI 24.6-33.0%), near parity (25%).
Four more fresh seeds: 59.0% (seed 16), 55.5% (seed 17), 66.0% (seed 18) and 63.0% (seed
19), **60.3% of 900 games (seeds 11-19, 95% CI 57.1-63.5%)**, thinking a median 9.3-10.3 s a
game, at most 28.4 s (seed 19, run beside other work: a median 14.8 s, at most 36.6 s).  With
4 players, 28.3% of 120 fresh seed-14 games: **28.5% of 560 (seeds 11-14, 95% CI
25.0-32.4%)**.  Against
it on the seed-16 deals (and seed 17's for the refitted weights and the replies), none
kept: the node below the bot's own objective draw split by the card drawn, as plots are
keyed (the second action of a turn that starts with a draw depends on the card) 58.0% (21
for, 22 against); the fitted weights refitted on 579,000 positions of 2,393 recorded
``mcts``-``objective`` games and held to "completing a card never lowers the value" (the
free fit valued a card completed early in the game hardly above the same card one action
from done, and the default had completed fewer cards than ``objective`` by round 6) 60.0%
and 53.0% where the default won 59.0% and 55.5% (45 for, 47 against; more early
completions, same results); ``delegate=complete`` (the search also takes the weather, plot
and placement decisions) 59.0% (23 for, 23 against; 13.5 s of thinking a game); gardener
costs that count the gardener's moves in the leaf (one more when neither the plot nor an
irrigated neighbour of its colour is in a straight line, two per growth after the first
when there is no such neighbour to alternate with: closer to what the cards really took in
``objective`` games, 3 actions instead of 4 for those estimated at 2) 59.0% (22 for, 22
against); ``depth=3`` (the rollout plays on into the opponent's turn) 50.0% (17 for, 26
against); the opponent's actions in the turn right after the bot's tried in the order of
their one-step value for that opponent (its 8 best by the cheap ``action_score`` re-ranked;
that order is the opponent model, since few iterations reach those nodes) 63.0% and 56.0%
where the default won 59.0% and 55.5% (42 for, 37 against: 59.5% against 57.2% of 200
games, within the noise; a median 13.0-14.7 s of thinking a game).  100 iterations won
48.0% (17 for, 28 against) and 300 iterations 57.0% (22 for, 24 against; a median 3.5 s of
thinking a game): the search is worth about ten points over its priors and has saturated by
300 to 1000 iterations (2500 did no better).  Since the plot keys, every change to what the
tree averages, what it searches or how its leaf weighs a hand has landed within a few
points of the default (``depth=3`` below it): none of those details is what holds the bot
near 60%.  Nor is the noise of one tree: two trees of 1000 iterations, their root visits
and values summed, won 56.5% (19 for, 21 against; a median 20.4 s of thinking a game).
What the hidden parts are worth (``scripts/clairvoyance.py``: the same games, the samples
drawn from the true game): on the seed-16 and seed-17 games, where the default won 57.2%,
with the opponent's hand kept in every sample 57.0% (48 for, 48 against); with the hand and
the order of every deck (the cards and plots the bot will draw) 84.0% (69 for, 15 against).
With 4 players, on the seed-13 games where it won 33.3%: the hands 25.8% (17 for, 26
against), the cards 59.6% (45 for, 14 against).  A better read of the opponents is worth
nothing here; the gap is the draws, which no honest player knows.  The seat that takes the
Emperor won 86% of 1,061 recorded games against ``objective``, so a card was valued at its
points plus 3 (``objective``'s ``race``, with which that bot wins 56.2% of 1,200 games against
itself): in the planner only, 53.0% of the seed-16 games where the default won 59.0% (19
for, 25 against); in the planner and the leaf (the spec's text unchanged, so the same random
stream) 57.0% (21 for, 23 against); with 4 players, in the planner and the ``deny`` leaf,
30.0% of the seed-13 games where it won 33.3% (22 for, 26 against).  Not kept: the search
already finishes more and quicker cards than ``objective`` (8.6 a game against 8.2 on seeds
16-18, 2.1 plot cards against 1.9).  Against ``objective:race=3`` the default won 46.0% of the
seed-16 games and 56.0% of seed 17's (59.0% and 55.5% against ``objective``), 51.0% of the 200
(95% CI 44.1-57.8%): that one change to the planner's valuation is worth about what the
search adds to the planner.  Perfect-information Monte Carlo (four trees of 250 iterations,
each over one world sampled at the decision, its hands and deck orders fixed and only the die
sampled, their root visits added: the clairvoyant search of ``scripts/clairvoyance.py`` run in
guessed worlds) won 58.0% of the seed-20 games where the default won 65.0% (15 for, 22
against), thinking a median 28.6 s a game, three times the default's: a tree that plans for
the draws of one guessed world plays no better than one that averages the draws; not kept.
With seed 20 the default has won **60.8% of 1,000 games (seeds 11-20, 95% CI 57.7-63.8%)**.
``scripts/strength.py`` and ``scripts/bench_mcts.py`` measure again.

Parameters:
- ``iterations`` (0: 1000, kept per number of players in ``AUTO_ITERATIONS``): iterations
  per decision; with ``time`` set, the cap.
- ``time`` (0): seconds per decision; 0 searches exactly ``iterations`` (reproducible).
- ``c`` (0.03): the exploration constant of UCB (values are win chances in [0, 1]; the
  priors and progressive widening do most of the exploring).
- ``depth`` (1): decisions played by the rollout policy below a new node before evaluating.
- ``rollout`` (``greedy-lite``): ``random`` (uniform, objectives completed first) or
  ``greedy-lite`` (the better of two random actions by a cheap action score).
- ``eval`` (``auto``: ``fitted`` with 2 players, ``deny`` with 3-4): the leaf evaluation
  (above).
- ``temperature`` (8): evaluation points of lead that make a win chance of about 73%.
- ``widen`` (1.5): progressive widening, a node with ``n`` visits considers
  ``1 + widen * sqrt(n)`` actions; 0 considers every legal action at once.
- ``lookahead`` (2): tree levels (the root is 1) whose own-turn nodes use the look-ahead.
- ``prior`` (3): virtual visits given to a look-ahead node's children; 0 turns the bias off.
- ``reuse`` (true): keep the subtree of the chosen action for the next decision of the turn.
- ``turns`` (0): a horizon; the search evaluates once this many turns have ended.
- ``planner`` (true): root priors from the ``objective`` planner (above).
- ``delegate`` (``auto``: ``steps`` with 2 players, ``none`` with 3-4): decisions left to
  the ``objective`` planner: ``none``, ``complete`` (completions only), ``steps``
  (completions and every decision outside the action step).

Strengths: plans the actions of a turn together (a channel, then the growth it enables),
weighs the die and the draws by sampling them, and plays the opponents' replies.  Limits:
the budget is small for a game with 10-150 actions per decision, so the strength rests on
the leaf heuristic and the one-step prior; opponents are modelled as playing the tree's own
policy for their sampled hands (max^n), not as they really play; hidden cards are
sampled uniformly from the unseen ones: reading opponents' hands from their moves was
tried and measured useless here (naive Bayes on the colours of their gardener and panda
moves, odds measured on ``objective`` games, gave the cards they really held 0.67 to 0.98
times their uniform probability at our decisions: a card worked on is usually completed in
the same turn, and the evidence leaves with it); iterations per
second are those of a pure-Python forward model and leaf.

Speed (``python scripts/bench_mcts.py speed``, CPU time, 2 players, three round-10
positions, a loaded 2-core machine): a median of about 6,700 iterations per second (5,300 to
7,200) where the bot before the speed work of issue 20 did about 5,500 (3,900 to 6,300) in
the same runs, with the same decisions (``tests/bots/test_decision_digests.py``); a game
against ``random:complete=true`` (``bench_mcts.py game``) takes a median 8.2 CPU seconds
against 8.9 before (1.08 to 1.18 times faster, four games).  The thinking times quoted above
were measured before that work.  What the search spends: the leaf
(``bots.heuristics.evaluate`` and the public estimate of the rival) about 40% of an
iteration, the forward model (``apply`` and its legal lists) about a quarter, the root's
planner prior and look-ahead under a tenth, ``view.determinize`` about a tenth (an eighth
before).  Two savings leave the decisions as they were: where the searching seat moves in
every sample (the actions of its own turn from the root, up to an objective drawn or the
turn's end), the UCB reads its values only, so an iteration that adds a child there scores
the leaf for it alone (``mine``); and the states reached by its open actions (``OPEN_KIND``:
no draw, no die) are the same in every sample but for the hidden parts, so they are kept per
node and copied (``_with_hidden``).

Reference: P. I. Cowling, E. J. Powley, D. Whitehouse, "Information Set Monte Carlo Tree
Search", IEEE Transactions on Computational Intelligence and AI in Games 4(2), 2012.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from arena.engine import PlayerView
from arena.engine.actions import (
    A_MASK,
    A_SHIFT,
    B_SHIFT,
    CHANNEL,
    CLOUDS,
    CLOUDS_KEEP,
    CLOUDS_MOVE,
    COMPLETE,
    END,
    GARDENER,
    IMPROVE,
    IRRIGATE,
    IRRIGATE_KEEP,
    KIND_MASK,
    OBJECTIVE,
    PANDA,
    PLACE,
    PLOT,
    RAIN,
    SKIP,
    STORM,
    TURN_ACTION,
    WEATHER,
)
from arena.engine.components import (
    CARD_CATEGORY,
    CARDS,
    ENCLOSURE,
    FERTILIZER,
    GARDENER_CARD,
    PANDA_CARD,
    PLOT_CARD,
    WATERSHED,
)
from arena.engine.grid import POND, POND_RING
from arena.engine.objectives import PLOT_SHIFTS
from arena.engine.state import ACTIONS, PLACE_STEP, GameState
from arena.limits import MAX_MOVE_TIME

from .base import Bot, Param

#: The default budget, delegation and leaf by number of players (2, and 3 or more), from
#: paired screens against ``objective`` (module docstring): with 2 players the fitted leaf at
#: 1000 iterations did as well as ``deny`` at 3000; with 3-4 players more iterations, the
#: delegation and the fitted leaf did worse.
AUTO_ITERATIONS = {2: 1000, 3: 1000}
AUTO_DELEGATE = {2: "steps", 3: "none"}
AUTO_EVAL = {2: "fitted", 3: "deny"}
#: Whether the tree keys plot placements by the plot drawn (``tree_keys``): with 2 players
#: it won 60.1% of 400 games where the same bot without it won 49.0%; with 4 players it
#: lost (module docstring).
AUTO_PLOT_KEYS = {2: True, 3: False}

#: Per action kind: whether it is one of the turn's actions (R3.5), not a free move.
TURN_KIND: tuple[bool, ...] = tuple(t >= 0 for t in TURN_ACTION)

#: The ``swap`` flag of a ``place`` action (``actions.place``): only the order of the two
#: plots sent under the deck, which no one sees again for many turns.
SWAP_BIT = 1 << (4 + B_SHIFT)

#: Per action kind: whether, taken by the seat to move in its own turn, its outcome reads
#: nothing hidden (no deck, no other hand, no die while the turn goes on).  A plot draw, an
#: objective draw, a placement (the other plots go under the deck) and the end of a turn
#: (the next seat's die) do.
_OPEN_KINDS = frozenset(
    (GARDENER, PANDA, IRRIGATE, IRRIGATE_KEEP, CHANNEL, IMPROVE, COMPLETE, WEATHER, RAIN,
     STORM, CLOUDS, CLOUDS_KEEP, CLOUDS_MOVE, SKIP)
)
OPEN_KIND: tuple[bool, ...] = tuple(k in _OPEN_KINDS for k in range(KIND_MASK + 1))


#: Per action kind: whether, taken by the searching seat, it may let another seat move next
#: in some samples and not in others (an objective drawn may or may not be completable at
#: once; the end of a turn).  Along other actions of its turn, from the root, the searching
#: seat moves at every node in every sample: the UCB there reads its values only, and an
#: iteration that adds a child at such a node needs no other seat's value (``_mine_only``).
#: A placement keyed by its place in the draw (``_position_keys``) puts another plot in
#: each sample, and what the seat may do next (complete a plot card, or nothing: the turn
#: ends) can differ with it; keyed by the plot (``tree_keys``) it is the same plot.
SEAT_TURN_ENDS: tuple[bool, ...] = tuple(k in (OBJECTIVE, END) for k in range(KIND_MASK + 1))
SEAT_TURN_ENDS_BY_POSITION: tuple[bool, ...] = tuple(
    k in (OBJECTIVE, END, PLACE) for k in range(KIND_MASK + 1)
)


def _with_hidden(public: GameState, sample: GameState, seat: int) -> GameState:
    """``public`` (reached from the root by ``OPEN_KIND`` actions of ``seat``) with the
    hidden parts of ``sample``: its generator, decks and the other seats' hands.

    Such a state is the same in every sample but for those parts, so the search keeps it
    per node and copies it, instead of applying the same actions to each sample again.
    The plots drawn and which deck places are known are the view's along such a path.
    """
    s = public.copy()
    s.seed = sample.seed
    s.rng = sample.rng
    s.dice = sample.dice
    s.plot_deck = sample.plot_deck
    s.objective_decks = sample.objective_decks
    hands = sample.hands.copy()
    hands[seat] = public.hands[seat]
    s.hands = hands
    return s

# ------------------------------------------------------------------------- card tables

#: Per card: the colour a gardener card grows, else -1.
_GARDEN_COLOUR: tuple[int, ...] = tuple(
    c.colour if c.category == GARDENER_CARD else -1 for c in CARDS
)
#: Per card: the sections a panda card needs, else None.
_PANDA_NEED: tuple[tuple[int, int, int] | None, ...] = tuple(
    c.eat if c.category == PANDA_CARD else None for c in CARDS
)


# ------------------------------------------------------------------------- evaluation

#: Leaf values: per missing step an objective in hand is worth this much less.
STEP_DISCOUNT = 0.6
#: After the Emperor is taken only a turn or so is left: hands are worth much less.
LATE_DISCOUNT = 0.25
#: Points per action left in the turn of the seat to move (so that a leaf in the middle of
#: a turn is not worse than one after it).
TEMPO = 0.35
#: Logistic scale (points) from a lead over the best opponent to a win chance.
TEMPERATURE = 3.0
#: A card in another seat's hand, valued from public information only.
HAND_CARD = 1.0
#: An eaten section in a stock, valued from public information only (up to six).
STOCK_SECTION = 0.25
#: Steps an objective with no usable plot, shoot or pattern start is reckoned to need.
FAR = 5.0

_plot_cache: dict[tuple[tuple[int, int, int], int], float] = {}


def plot_steps(irrigated_by_colour: tuple[int, int, int], card: int) -> float:
    """Actions a plot card still needs: about 1.5 per pattern cell that is not there (R10.3).

    A cell may be missing if nothing blocks it (an irrigated plot of another colour, or the
    pond); with bit sets over the board this is a few big-int operations per rotation, and
    the answer depends only on the irrigated plots, so it is cached across searches.
    """
    key = (irrigated_by_colour, card)
    steps = _plot_cache.get(key)
    if steps is not None:
        return steps
    blocked = irrigated_by_colour[0] | irrigated_by_colour[1] | irrigated_by_colour[2]
    blocked |= 1 << POND
    best = 3
    for rotation in PLOT_SHIFTS[card]:
        ok = [irrigated_by_colour[colour] >> shift for shift, colour in rotation]
        free = [
            (irrigated_by_colour[colour] >> shift) | ~(blocked >> shift)
            for shift, colour in rotation
        ]
        n = len(ok)
        full = -1
        for m in ok:
            full &= m
        if full:
            best = 0
            break
        if best <= 1:
            continue
        for j in range(n):
            m = free[j]
            for i in range(n):
                if i != j:
                    m &= ok[i]
            if m:
                best = 1
                break
        if best <= 2:
            continue
        for j in range(n):
            for k in range(j + 1, n):
                m = free[j] & free[k]
                for i in range(n):
                    if i != j and i != k:
                        m &= ok[i]
                if m:
                    best = 2
                    break
            if best == 2:
                break
    steps = 1.5 * best if best < 3 else FAR
    if len(_plot_cache) > 200_000:
        _plot_cache.clear()
    _plot_cache[key] = steps
    return steps


def _plots_by_colour(s: GameState) -> list[list[tuple[int, int, bool]]]:
    """Per colour, ``(height, improvement, irrigated)`` of every plot in play."""
    out: list[list[tuple[int, int, bool]]] = [[], [], []]
    tiles, improvement, irrigated = s.tiles, s.improvement, s.irrigated
    for cell, h in s.bamboo.items():
        out[tiles[cell] >> 2].append((h, improvement.get(cell, 0), cell in irrigated))
    return out


def gardener_steps(card: int, plots: list[tuple[int, int, bool]]) -> float:
    """Actions a gardener card still needs (R10.4, R10.5), from the plots of its colour."""
    c = CARDS[card]
    if c.shoots == 1:
        want = c.improvement
        best = FAR
        for h, imp, irr in plots:
            if imp != want:
                continue
            grow = 2 if imp == FERTILIZER else 1
            if not irr:
                # Irrigating it is one action and one growth.
                h = min(4, h + grow)
                steps = 1.0
            else:
                steps = 0.0
            steps += -(-(4 - h) // grow)
            if steps < best:
                best = steps
        if best >= FAR and want:
            # A plot without bamboo can still take the improvement: one more step.
            for h, imp, irr in plots:
                if imp == 0 and h == 0:
                    grow = 2 if want == FERTILIZER else 1
                    steps = 1.0 + (0 if irr or want == WATERSHED else 1) + -(-4 // grow)
                    best = min(best, steps)
        return best
    needs = []
    for h, imp, _irr in plots:
        if h == 3:
            needs.append(0)
        elif h == 4:
            if imp != ENCLOSURE:
                needs.append(1)
        elif imp == FERTILIZER:
            needs.append(1 if h == 1 else 2 if h == 2 else 3)
        else:
            needs.append(3 - h)
    needs.sort()
    k = c.shoots
    total = float(sum(needs[:k])) + 3.5 * max(0, k - len(needs))
    # One gardener move grows the same-colour plots around it too.
    return total * 0.6


def progress(s: GameState) -> list[float]:
    """Per seat: points plus the discounted points of the objectives in hand, plus tempo."""
    players = s.players
    plots = None
    base = LATE_DISCOUNT if s.emperor >= 0 else STEP_DISCOUNT
    out = []
    bamboo_left: list[int] | None = None
    for p in range(players):
        value = 0.0
        for card in s.completed[p]:
            value += s.card_points[card]
        if s.emperor == p:
            value += s.options.emperor_points
        stock: list[int] | None = None
        for card in s.hands[p]:
            category = CARD_CATEGORY[card]
            if category == PANDA_CARD:
                if stock is None:
                    stock = list(s.eaten[p])
                need = _PANDA_NEED[card]
                assert need is not None
                steps = 0.0
                for colour in (0, 1, 2):
                    k = need[colour]
                    if k:
                        have = stock[colour]
                        if have >= k:
                            stock[colour] = have - k
                        else:
                            missing = k - have
                            stock[colour] = 0
                            if bamboo_left is None:
                                bamboo_left = _edible(s)
                            steps += missing
                            if bamboo_left[colour] < missing:
                                steps += missing - bamboo_left[colour]
            elif category == GARDENER_CARD:
                if plots is None:
                    plots = _plots_by_colour(s)
                steps = gardener_steps(card, plots[_GARDEN_COLOUR[card]])
            else:
                steps = plot_steps(s.irrigated_by_colour, card)
            value += s.card_points[card] * 0.95 * base**steps
        out.append(value)
    _add_tempo(s, out)
    return out


def _add_tempo(s: GameState, values: list[float]) -> None:
    """The seat to move gets a little for each action left in its turn."""
    if not s.ended:
        left = s.actions_left()
        if left > 0:
            values[s.current] += TEMPO * left


def public_progress(s: GameState) -> list[float]:
    """Per seat, what anyone could reckon: points, a flat value per card in hand, the stock.

    A card in hand is worth ``HAND_CARD`` on average (measured on ``objective`` games), and
    eaten sections are the raw material of panda cards.  No tempo: actions left are only
    worth something to the seat that spends them, and a seat's actions show in public only
    when they score, so with tempo here a seat would look worse for every action it takes.
    """
    out = []
    for p in range(s.players):
        value = float(HAND_CARD * len(s.hands[p]))
        for card in s.completed[p]:
            value += s.card_points[card]
        if s.emperor == p:
            value += s.options.emperor_points
        e = s.eaten[p]
        value += STOCK_SECTION * min(e[0] + e[1] + e[2], 6)
        out.append(value)
    return out


def _edible(s: GameState) -> list[int]:
    """Sections of each colour the panda could eat (on plots without an enclosure)."""
    out = [0, 0, 0]
    tiles, improvement = s.tiles, s.improvement
    for cell, h in s.bamboo.items():
        if h and improvement.get(cell) != ENCLOSURE:
            out[tiles[cell] >> 2] += h
    return out


def score_only(s: GameState) -> list[float]:
    """Per seat: the points scored so far (the ``eval=score`` baseline)."""
    return [float(x) for x in s.scores()]


def leaf_progress(s: GameState) -> list[float]:
    """Win chances: each seat's own ``progress`` against the others' public estimate.

    A seat knows its own hand and not the others', so it is judged that way: its progress
    from its hand (for the searching seat, the true hand; for another seat, the hand of the
    sample) against the best ``public_progress`` of the others.  The searching seat's value
    then never depends on the opponents' sampled hands, which would otherwise add noise far
    larger than the difference between two actions.
    """
    own = progress(s)
    public = public_progress(s)
    return against_best(own, public)


def leaf_sampled(s: GameState) -> list[float]:
    """Win chances from every seat's ``progress`` with the hands of the sample."""
    return win_chances(progress(s))


def leaf_score(s: GameState) -> list[float]:
    """Win chances from the points scored only (a baseline)."""
    return win_chances(score_only(s))


class _LayoutInterner:
    """Points a state's layout objects at the first ones seen with the same content.

    ``bots.heuristics`` caches what it derives from a board layout (tiles, irrigation,
    channels, improvements) by the identity of those objects, which the engine replaces
    rather than mutates.  A plot or channel placed inside an iteration makes new objects in
    every sample, so that cache would miss every time; interning them by content makes it
    hit.  The values are equal, so the state is unchanged (and a leaf state is thrown away
    after its evaluation anyway).
    """

    def __init__(self) -> None:
        self.table: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.last: tuple[Any, ...] = (None, None, None, None)
        #: Bumped when the table is emptied (identities of old layouts may then be reused).
        self.generation = 0

    def __call__(self, s: GameState) -> None:
        last = self.last
        if (
            s.tiles is last[0] and s.irrigated is last[1] and s.channels is last[2]
            and s.improvement is last[3]
        ):
            return
        key = (frozenset(s.tiles.items()), s.irrigated, s.channels,
               frozenset(s.improvement.items()))
        canon = self.table.get(key)
        if canon is None:
            if len(self.table) > 20_000:
                self.table.clear()
                self.generation += 1
            canon = self.table[key] = (s.tiles, s.irrigated, s.channels, s.improvement)
        s.tiles, s.irrigated, s.channels, s.improvement = canon  # type: ignore[assignment]
        self.last = canon


def _leaf_heuristics(temperature: float = TEMPERATURE) -> Callable[[GameState], list[float]]:
    """Win chances from ``bots.heuristics.evaluate_all`` (the ``objective`` bot's measure)."""
    from . import heuristics

    evaluate_all = heuristics.evaluate_all
    intern = _LayoutInterner()

    def leaf(s: GameState) -> list[float]:
        intern(s)
        return win_chances(evaluate_all(s), temperature)

    return leaf


def _leaf_heuristics_public() -> Callable[[GameState], list[float]]:
    """``bots.heuristics.evaluate`` of each seat against the others' public estimate.

    As ``eval=progress`` does with this module's measure: a seat's own value reads its hand,
    the others are valued as ``bots.heuristics`` values a hand it cannot see (a flat value
    per card), so the searching seat's values do not depend on the sampled hands.
    """
    from . import heuristics

    evaluate = heuristics.evaluate
    score = heuristics.score
    w_score = getattr(heuristics, "SCORE_WEIGHT", 1.5)
    w_card = getattr(heuristics, "UNKNOWN_CARD_VALUE", 1.2)
    w_channel = getattr(heuristics, "CHANNEL_VALUE", 0.35)
    w_improvement = getattr(heuristics, "IMPROVEMENT_VALUE", 0.3)
    intern = _LayoutInterner()

    def leaf(s: GameState) -> list[float]:
        intern(s)
        n = s.players
        own = [evaluate(s, p) for p in range(n)]
        public = []
        for q in range(n):
            stored = s.stored_improvements[q]
            public.append(
                w_score * score(s, q) + w_card * len(s.hands[q])
                + w_channel * s.stored_channels[q]
                + w_improvement * (stored[1] + stored[2] + stored[3])
            )
        return against_best(own, public)

    return leaf


class _DenyLeaf:
    """``eval=deny``: the ``objective`` bot's measure, own progress against expected rivals.

    Per seat ``bots.heuristics.evaluate`` (each seat read from its hand in the sample).  The
    searching seat's value is its own evaluation against the best opponent as the
    ``objective`` bot reckons opponents for denial: points, stored pieces, and each hidden
    card valued as the mean over the unseen cards of its category on this board
    (``heuristics.expected_hand_value``; plot cards at a flat mean worked out once per
    decision).  So our values do not swing with the hands the samples deal the opponents
    (noise far larger than the difference between two actions), yet eating the shoots an
    opponent's cards probably need still counts.  An opponent's value (what it maximises at
    its own nodes) is its sampled evaluation against the others' sampled ones.  Both become
    win chances through a logistic of the lead, scaled by ``temperature``.
    """

    def __init__(self, temperature: float) -> None:
        from . import heuristics

        self.h = heuristics
        self.temperature = temperature
        self.intern = _LayoutInterner()
        self.seat = 0
        self.pools: tuple[list[int], ...] = ([], [], [])
        self.plot_card = 0.0
        self.cache: dict[tuple[Any, ...], float] = {}

    def prepare(self, view: PlayerView) -> None:
        """The searching seat and what it has not seen (once per decision)."""
        h = self.h
        self.seat = view.seat
        self.pools = ([], view.unseen_cards(GARDENER_CARD), view.unseen_cards(PANDA_CARD))
        plots = view.unseen_cards(PLOT_CARD)
        if plots:
            costs = h.card_costs(view, view.seat, plots)
            self.plot_card = sum(
                h.card_value(view.card_points[c], costs[c]) for c in plots
            ) / len(plots)
        else:
            self.plot_card = 0.0
        self.cache.clear()

    def rival(self, s: GameState, q: int) -> float:
        """What the searching seat reckons seat ``q`` is worth (public information only)."""
        h = self.h
        stored = s.stored_improvements[q]
        value = (
            h.SCORE_WEIGHT * h.score(s, q) + h.CHANNEL_VALUE * s.stored_channels[q]
            + h.IMPROVEMENT_VALUE * (stored[1] + stored[2] + stored[3])
        )
        hand = s.hands[q]
        if not hand or (s.emperor >= 0 and h.actions_horizon(s, q) == 0):
            return value
        key = (
            q, id(self.intern.last), self.intern.generation, tuple(s.bamboo.items()), s.panda,
            s.eaten[q], stored,
            s.reserve_improvements, tuple(sorted(CARD_CATEGORY[c] for c in hand)),
        )
        cards = self.cache.get(key)
        if cards is None:
            cards = h.expected_hand_value(s, q, self.pools)
            cards += self.plot_card * sum(1 for c in hand if CARD_CATEGORY[c] == PLOT_CARD)
            if len(self.cache) > 100_000:
                self.cache.clear()
            self.cache[key] = cards
        return value + cards

    def own_and_rival(self, s: GameState) -> tuple[list[float], float, int]:
        """Every seat's evaluation from its hand in ``s``, and the searching seat's
        strongest rival as reckoned from public information: its value and its seat."""
        self.intern(s)
        own = [self.h.evaluate(s, p) for p in range(s.players)]
        rival, q = self.public_rival(s)
        return own, rival, q

    def public_rival(self, s: GameState) -> tuple[float, int]:
        """The searching seat's strongest rival as reckoned from public information (the
        layout interned first): its value and its seat."""
        me = self.seat
        if s.players == 2:
            return self.rival(s, 1 - me), 1 - me
        return max((self.rival(s, q), q) for q in range(s.players) if q != me)

    def __call__(self, s: GameState) -> list[float]:
        own, rival, _q = self.own_and_rival(s)
        out = against_best(own, own, self.temperature)
        out[self.seat] = lead_chance(own[self.seat] - rival, self.temperature)
        return out

    def mine(self, s: GameState) -> list[float]:
        """The searching seat's value alone, as ``__call__`` gives it (the other seats 0):
        for the iterations whose values are read for that seat only (``MctsBot._iterate``).
        It reads no other seat's hand, so their evaluations are not needed."""
        self.intern(s)
        me = self.seat
        own = self.h.evaluate(s, me)
        rival, _q = self.public_rival(s)
        out = [0.0] * s.players
        out[me] = lead_chance(own - rival, self.temperature)
        return out


#: ``eval=fitted``: logistic-regression weights for 2 and for 4 players (3-player games use
#: the 4-player ones) over ``_FittedLeaf.features``, fitted by ``scripts/fit_value.py`` on
#: games between ``objective`` bots: whether a seat went on to win, against the features at
#: each decision of an action step.  Order: intercept, points lead, hand lead,
#: completed-cards lead, hand-size lead, actions left (+ own turn, - the rival's), Emperor
#: (+1 own, -1 another's), phase (most cards completed / cards needed), and the points, hand
#: and completed-cards leads times the phase.  The 4-player weights are the output of
#: ``scripts/fit_value.py --players 4 --games 400 --seed 1000`` (held out, 80 games: log loss
#: 0.472 against 0.541 for ``deny``).  The 2-player ones, which the screens in the module
#: docstring used, come from the same features and fit on 366 games of an earlier run (seeds
#: 1000-1182 and 2000-2182); ``--players 2 --games 400 --seed 1000`` gives (-0.040, -0.031,
#: 0.093, 0.182, 0.050, 0.051, 0.131, 0.144, 0.365, 0.159, 0.033), log loss 0.558 against
#: 0.574: with 400 games single weights move by up to 0.07, the regression is loosely
#: determined.
FITTED_WEIGHTS: dict[int, tuple[float, ...]] = {
    2: (-0.0537, 0.0347, 0.1341, 0.1683, 0.017, 0.0563, 0.0971, 0.1698, 0.3025, 0.1578,
        -0.0132),
    4: (-1.0488, 0.0574, 0.1393, 0.0284, -0.0231, 0.0483, 0.3201, 0.7448, 0.3174, 0.2768,
        0.1558),
}


class _FittedLeaf(_DenyLeaf):
    """``eval=fitted``: a win chance fitted on recorded games rather than a hand-set scale.

    The same inputs as ``deny`` (the ``objective`` bot's measure of each hand, the
    searching seat's rivals reckoned from public information), split into terms whose
    weights a logistic regression chose: how far the game is (a lead in points counts for
    more near the end, a lead in hand value for more at the start), the number of cards
    completed (the race to the Emperor, R13.2) and whose actions are left this turn.
    """

    def __init__(self, temperature: float) -> None:
        super().__init__(temperature)
        self.weights = FITTED_WEIGHTS[2]

    def prepare(self, view: PlayerView) -> None:
        super().prepare(view)
        self.weights = FITTED_WEIGHTS[2 if view.players == 2 else 4]

    def features(self, s: GameState, p: int, own: float, q: int, rival: float) -> list[float]:
        """The regression's inputs for seat ``p`` against seat ``q`` (``FITTED_WEIGHTS``),
        ``own`` and ``rival`` their evaluations."""
        h = self.h
        sp, sq = h.score(s, p), h.score(s, q)
        points = sp - sq
        hand = (own - h.SCORE_WEIGHT * sp) - (rival - h.SCORE_WEIGHT * sq)
        done = len(s.completed[p]) - len(s.completed[q])
        phase = max(len(c) for c in s.completed) / s.options.objectives_needed(s.players)
        left = s.actions_left() if s.step == ACTIONS else 2
        tempo = left if s.current == p else -left if s.current == q else 0
        emperor = 0 if s.emperor < 0 else 1 if s.emperor == p else -1
        return [
            points, hand, done, len(s.hands[p]) - len(s.hands[q]), tempo, emperor, phase,
            phase * points, phase * hand, phase * done,
        ]

    def chance(self, s: GameState, p: int, own: float, q: int, rival: float) -> float:
        """Seat ``p``'s win chance against seat ``q``: the fitted logistic."""
        w = self.weights
        z = w[0]
        for i, x in enumerate(self.features(s, p, own, q, rival), 1):
            z += w[i] * x
        return lead_chance(z, 1.0)

    def __call__(self, s: GameState) -> list[float]:
        """Per seat, ``chance`` against its rival: the searching seat against the public
        estimate of its strongest rival, an opponent against the others' sampled hands.

        Written out rather than through ``chance``: the terms every seat shares (points,
        the phase, the actions left) are read once, and each sum is taken in the order
        ``chance`` takes it, so the values are the same to the last bit.
        """
        own, public_rival, public_q = self.own_and_rival(s)
        return self._chances(s, own, public_rival, public_q, range(s.players))

    def mine(self, s: GameState) -> list[float]:
        """The searching seat's chance alone, as ``__call__`` gives it (the other seats 0):
        for the iterations whose values are read for that seat only (``MctsBot._iterate``).
        It is reckoned against the public estimate of its rival, so the other seats'
        evaluations are not needed."""
        self.intern(s)
        me = self.seat
        own = [0.0] * s.players
        own[me] = self.h.evaluate(s, me)
        rival, q = self.public_rival(s)
        return self._chances(s, own, rival, q, (me,))

    def _chances(
        self, s: GameState, own: list[float], public_rival: float, public_q: int,
        seats: Sequence[int],
    ) -> list[float]:
        """``chance`` of each of ``seats`` (the others 0), from the seats' evaluations."""
        n = s.players
        h = self.h
        weight = h.SCORE_WEIGHT
        w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10 = self.weights
        completed, hands = s.completed, s.hands
        scores = [h.score(s, p) for p in range(n)]
        done = [len(c) for c in completed]
        sizes = [len(hand) for hand in hands]
        phase = max(done) / s.options.objectives_needed(n)
        left = s.actions_left() if s.step == ACTIONS else 2
        current = s.current
        emperor = s.emperor
        me = self.seat
        exp = math.exp
        out = [0.0] * n
        for p in seats:
            if p == me:
                rival, q = public_rival, public_q
            else:  # an opponent, against the others' sampled hands
                rival, q = max((own[k], k) for k in range(n) if k != p)
            sp, sq = scores[p], scores[q]
            points = sp - sq
            hand = (own[p] - weight * sp) - (rival - weight * sq)
            lead = done[p] - done[q]
            tempo = left if current == p else -left if current == q else 0
            z = w0
            z += w1 * points
            z += w2 * hand
            z += w3 * lead
            z += w4 * (sizes[p] - sizes[q])
            z += w5 * tempo
            z += w6 * (0 if emperor < 0 else 1 if emperor == p else -1)
            z += w7 * phase
            z += w8 * (phase * points)
            z += w9 * (phase * hand)
            z += w10 * (phase * lead)
            # lead_chance(z, 1.0)
            d = z / 1.0
            d = -30.0 if d < -30.0 else 30.0 if d > 30.0 else d
            out[p] = 1.0 / (1.0 + exp(-d))
        return out


#: Leaf evaluations by name: factories (given the temperature), so that an optional module
#: is imported only if used.  A leaf with a ``prepare(view)`` method is told each decision's
#: view before the search.
_EVALUATIONS: dict[str, Callable[[float], Callable[[GameState], list[float]]]] = {
    "progress": lambda t: leaf_progress,
    "sampled": lambda t: leaf_sampled,
    "heuristics": lambda t: _leaf_heuristics(t),
    "heuristics-public": lambda t: _leaf_heuristics_public(),
    "deny": _DenyLeaf,
    "fitted": _FittedLeaf,
    "score": lambda t: leaf_score,
}


def lead_chance(lead: float, temperature: float = TEMPERATURE) -> float:
    """A win chance in (0, 1) from a lead in evaluation points: a logistic, clamped."""
    d = lead / temperature
    d = -30.0 if d < -30.0 else 30.0 if d > 30.0 else d
    return 1.0 / (1.0 + math.exp(-d))


def against_best(
    own: list[float], rivals: list[float], temperature: float = TEMPERATURE
) -> list[float]:
    """Per seat ``p``, the chance of its ``own`` value against the best ``rivals`` value of
    the other seats (the two lists differ where a seat is judged from public estimates)."""
    n = len(own)
    return [
        lead_chance(own[p] - max(rivals[q] for q in range(n) if q != p), temperature)
        for p in range(n)
    ]


def win_chances(values: list[float], temperature: float = TEMPERATURE) -> list[float]:
    """Per seat, a logistic of its lead over the best other seat: a value in (0, 1)."""
    if len(values) == 2:
        v0 = lead_chance(values[0] - values[1], temperature)
        return [v0, 1.0 - v0]
    return against_best(values, values, temperature)


# ------------------------------------------------------------------------- action scores


def action_score(s: GameState, a: int) -> float:
    """A cheap guess of how useful an action is for the seat to move (no look-ahead).

    Used to order the actions a node expands and by the ``greedy-lite`` rollout: growing or
    eating the colours the hand asks for, drawing objectives when the hand is short, and not
    ending a turn with actions left.
    """
    kind = a & KIND_MASK
    if kind == COMPLETE:
        return 100.0
    p = s.current
    if kind in (GARDENER, RAIN):
        cell = a >> A_SHIFT & A_MASK
        if cell == POND:
            return -1.0
        colour = s.tiles[cell] >> 2
        score = 0.0
        for card in s.hands[p]:
            if _GARDEN_COLOUR[card] == colour:
                score += 2.0
            elif CARD_CATEGORY[card] == PANDA_CARD and _PANDA_NEED[card][colour]:  # type: ignore[index]
                score += 0.5
        if cell in s.irrigated and s.bamboo[cell] < 4:
            score += 0.5
        return score
    if kind in (PANDA, STORM):
        cell = a >> A_SHIFT & A_MASK
        if cell == POND:
            return -1.0
        h = s.bamboo[cell]
        if not h or s.improvement.get(cell) == ENCLOSURE:
            return -0.5
        colour = s.tiles[cell] >> 2
        score = 1.0
        for card in s.hands[p]:
            need = _PANDA_NEED[card]
            if need is not None and need[colour] > s.eaten[p][colour]:
                score += 2.0
            elif _GARDEN_COLOUR[card] == colour and h in (3, 4):
                score -= 1.0
        return score
    if kind == OBJECTIVE:
        return 2.5 if len(s.hands[p]) < 3 else 0.0
    if kind == END:
        return -2.0
    if kind == PLACE:
        cell = a >> A_SHIFT & A_MASK
        return 1.0 if cell in POND_RING else 0.5
    if kind in (IRRIGATE, CHANNEL, PLOT, IMPROVE):
        return 0.5
    if kind == IRRIGATE_KEEP:
        return 0.2
    return 0.0


def candidates(legal: list[int]) -> list[int]:
    """The legal actions worth searching: completions first and alone, no ``swap`` twins.

    Completing a satisfied objective is a free move that scores (the engine lists
    completions first), so it is taken before anything else; the search still chooses
    between several completions.
    """
    kind = legal[0] & KIND_MASK
    if kind == COMPLETE:
        out = []
        for a in legal:
            if a & KIND_MASK != COMPLETE:
                break
            out.append(a)
        return out
    if kind == PLACE:
        return [a for a in legal if not a & SWAP_BIT]
    if len(legal) > 1 and legal[-1] == END and TURN_KIND[legal[-2] & KIND_MASK]:
        # An action is left: ending the turn now throws it away.  Some action is always
        # about as harmless as none (a figure moved to the pond grows or eats nothing), and
        # an evaluation that is noisy, or that sees an opponent gain from every growth,
        # would otherwise end turns early: about one action in nine in matches.  (The turn's
        # actions come last in the legal list, just before END.)
        return legal[:-1]
    return legal


#: Where ``tree_keys`` puts the drawn plot's tile (plus one) in a ``place`` key, above every
#: field of a real action (``actions.place``: plot index, improvement and swap take 5 bits).
PLOT_KEY_SHIFT = B_SHIFT + 5
_PLOT_INDEX = 3 << B_SHIFT


def tree_keys(
    s: GameState | PlayerView, cands: list[int]
) -> tuple[list[int], dict[int, int] | None]:
    """The tree's keys for a decision's candidates, and the action of each key if they differ.

    A ``place`` action names a drawn plot by its position (``place 0``, ``place 1``...), and
    which plots those are is chance: each sample deals other ones.  Keyed by position, a
    node after ``plot`` adds up the values of placing a green plot in one sample and a pink
    one in the next, and no placement looks good (the search drew plots 4.7 times a game
    where ``objective`` drew 7.7, and 16 of the 61 times the planner would have).  So a
    placement is keyed by the plot itself (its tile: colour and printed improvement) and the
    cell; two drawn plots with the same tile are the same key.  Used with 2 players
    (``AUTO_PLOT_KEYS``).
    """
    if s.step != PLACE_STEP:
        return cands, None
    drawn = s.drawn
    actions: dict[int, int] = {}
    for a in cands:
        key = (a & ~_PLOT_INDEX) | (drawn[a >> B_SHIFT & 3] + 1) << PLOT_KEY_SHIFT
        actions.setdefault(key, a)
    return list(actions), actions


def _position_keys(
    s: GameState | PlayerView, cands: list[int]
) -> tuple[list[int], dict[int, int] | None]:
    """The actions as their own keys (``tree_keys`` off: placements by position)."""
    return cands, None


# ------------------------------------------------------------------------- the tree


class Node:
    """An edge of the tree and the node below it: statistics of one action in one context.

    ``totals`` holds the summed value per seat, so a node may be judged by whichever seat is
    to move above it; ``avail`` counts the iterations in which the action was legal when its
    parent was visited (the availability of SO-ISMCTS).
    """

    __slots__ = ("avail", "children", "order", "prior", "totals", "visits")

    def __init__(self, players: int) -> None:
        self.children: dict[int, Node] = {}
        self.order: list[int] | None = None
        #: One-step leaf values of the actions, where a look-ahead ordered them.
        self.prior: dict[int, list[float]] | None = None
        self.visits = 0
        self.avail = 1
        self.totals = [0.0] * players


class MctsBot(Bot):
    """Information-set MCTS (SO-ISMCTS) with a heuristic leaf evaluation."""

    PARAMS = (
        Param("iterations", int, 0, "iterations per decision (the cap when time is set); "
              + (f"0 = {AUTO_ITERATIONS[2]}" if AUTO_ITERATIONS[2] == AUTO_ITERATIONS[3] else
                 f"0 = by the number of players: {AUTO_ITERATIONS[2]} with 2, "
                 f"{AUTO_ITERATIONS[3]} with 3-4"), minimum=0, maximum=1_000_000),
        Param("time", float, 0.0, "seconds per decision; 0 = use iterations (reproducible)",
              minimum=0.0, maximum=MAX_MOVE_TIME),
        Param("c", float, 0.03, "UCB exploration constant", minimum=0.0),
        Param("depth", int, 1, "rollout depth in decisions before the leaf evaluation",
              minimum=0, maximum=1000),
        Param("rollout", str, "greedy-lite", "rollout policy",
              choices=("greedy-lite", "random")),
        Param("eval", str, "auto", "leaf evaluation; auto = fitted with 2 players, deny "
              "with 3-4",
              choices=("auto", "deny", "fitted", "heuristics", "heuristics-public",
                       "progress", "sampled", "score")),
        Param("temperature", float, 8.0, "logistic scale from a lead in evaluation "
              "points to a win chance", minimum=0.01),
        Param("widen", float, 1.5, "progressive widening: 1 + widen*sqrt(visits) actions "
              "per node; 0 = all", minimum=0.0),
        Param("lookahead", int, 2, "tree levels (the root is 1) whose own-turn nodes order "
              "their actions by a one-step evaluation", minimum=0),
        Param("prior", int, 3, "virtual visits at the one-step value given to the actions "
              "of look-ahead nodes", minimum=0),
        Param("reuse", bool, True, "keep the chosen subtree for the next decision of the turn"),
        Param("turns", int, 0, "horizon: the search evaluates once this many turns have "
              "ended (1 = the end of its own turn); 0 = no horizon", minimum=0),
        Param("planner", bool, True, "root priors of the action step from the objective "
              "bot's turn planner (first action valued with its best follow-up)"),
        Param("delegate", str, "auto", "decisions left to the objective planner: none, "
              "complete (which objective to complete, and whether: the Emperor rule), "
              "steps (that and every decision outside the action step); auto = steps with "
              "2 players, none with 3-4", choices=("auto", "none", "complete", "steps")),
    )
    iterations: int
    time: float
    c: float
    depth: int
    rollout: str
    eval: str
    temperature: float
    widen: float
    lookahead: int
    prior: int
    reuse: bool
    turns: int
    planner: bool
    delegate: str

    def __init__(self, rng: Any = None, **params: Any) -> None:
        super().__init__(rng, **params)
        self._kept: Node | None = None
        self._kept_round = -1
        self._planner: Any = None
        self._keys: Callable[
            [GameState | PlayerView, list[int]], tuple[list[int], dict[int, int] | None]
        ] = tree_keys
        self._turn_ends: tuple[bool, ...] = SEAT_TURN_ENDS
        self._eval_name = ""
        self._evaluate: Callable[[GameState], list[float]]
        self._prepare: Callable[[PlayerView], None] | None = None
        #: The leaf's value for the searching seat alone, if it has one (``_iterate``).
        self._mine: Callable[[GameState], list[float]] | None = None
        self._for_players(2)
        if self.planner or self.delegate != "none":
            from .objective import ObjectiveBot

            self._planner = ObjectiveBot(self.rng)
        #: Iterations run by the last ``choose`` (for benchmarks).
        self.last_iterations = 0
        #: The root's tree keys and their actions in this decision, and those of the
        #: placements met, by the plots drawn and the legal list (``_iterate``).
        self._root_keys: tuple[list[int], dict[int, int] | None] | None = None
        self._place_keys: dict[
            tuple[tuple[int, ...], tuple[int, ...]], tuple[list[int], dict[int, int] | None]
        ] = {}
        #: Per node reached from the root by open actions only, its state (``_iterate``).
        self._states: dict[Node, GameState] = {}

    def start(self, seat: int, players: int, options: Any) -> None:
        super().start(seat, players, options)
        self._for_players(players)
        self._kept = None
        self._kept_round = -1
        if self._planner is not None:
            self._planner.start(seat, players, options)

    def _for_players(self, players: int) -> None:
        """``iterations``, ``delegate`` and ``eval`` for this game's number of players (their
        defaults were screened per number of players)."""
        key = min(players, 3)
        self._iterations = self.iterations or AUTO_ITERATIONS[key]
        self._delegate = self.delegate if self.delegate != "auto" else AUTO_DELEGATE[key]
        self._keys = tree_keys if AUTO_PLOT_KEYS[key] else _position_keys
        self._turn_ends = SEAT_TURN_ENDS if AUTO_PLOT_KEYS[key] else SEAT_TURN_ENDS_BY_POSITION
        name = self.eval if self.eval != "auto" else AUTO_EVAL[key]
        if name != self._eval_name:  # a leaf keeps caches: made again only when it changes
            self._eval_name = name
            self._evaluate = _EVALUATIONS[name](self.temperature)
            self._prepare = getattr(self._evaluate, "prepare", None)
            self._mine = getattr(self._evaluate, "mine", None)

    def observe(self, event: str) -> None:
        """Passed on to the planner (it remembers where opponents' pandas ate)."""
        if self._planner is not None:
            self._planner.observe(event)

    # --------------------------------------------------------------------- decisions

    def choose(self, view: PlayerView, legal: Sequence[int]) -> int:
        """The most visited root action after the search."""
        if len(legal) == 1:
            self._kept = None
            return legal[0]
        if self._delegate != "none" and (
            legal[0] & KIND_MASK == COMPLETE
            or (self._delegate == "steps" and view.step != ACTIONS)
        ):
            self._kept = None
            self.last_iterations = 0
            return self._planner.choose(view, legal)
        deadline = time.perf_counter() + self.time if self.time > 0 else 0.0
        legal = list(legal)
        if self._prepare is not None:
            self._prepare(view)
        root = self._root(view)
        self._root_keys = None
        self._place_keys.clear()
        self._states.clear()
        n = 0
        while n < self._iterations:
            self._iterate(root, view)
            n += 1
            if deadline and not n & 7 and time.perf_counter() >= deadline:
                break
        self.last_iterations = n
        cands, actions = self._keys(view, candidates(legal))
        best = cands[0]
        best_key = (-1, -1.0)
        for a in cands:
            child = root.children.get(a)
            if child is None or not child.visits:
                continue
            key = (child.visits, child.totals[self.seat] / child.visits)
            if key > best_key:
                best, best_key = a, key
        if self.reuse and best != END and best in root.children:
            self._kept = root.children[best]
            self._kept_round = view.round
        else:
            self._kept = None
        return best if actions is None else actions[best]

    def _root(self, view: PlayerView) -> Node:
        """The kept subtree when this decision continues the turn it was grown for."""
        kept = self._kept
        self._kept = None
        if kept is not None and view.round == self._kept_round and view.current == self.seat:
            return kept
        root = Node(view.players)
        s = view.determinize(self.rng)
        cands, actions = self._keys(s, candidates(s.legal_actions()))
        self._lookahead_order(root, s, cands, actions, alone=view.current == self.seat)
        if self._planner is not None and view.step == ACTIONS and cands[0] & KIND_MASK != COMPLETE:
            self._planner_prior(root, view, s, cands)
        return root

    def _planner_prior(self, node: Node, view: PlayerView, s: GameState,
                       cands: list[int]) -> None:
        """Order and prior values of the root's actions from the ``objective`` planner.

        The planner values each first action of the turn by its best follow-up in the same
        turn (a channel by the growth it enables), with expected draws and denial: a better
        start than one step.  Its value is own progress minus the opponents' expected hands;
        the opponents' public points and pieces are subtracted too and the difference goes
        through the same logistic as the leaves, for the searching seat's component.
        """
        from . import heuristics

        planner = self._planner
        plan = planner._plan(view)
        seat = view.seat
        values = planner.turn_values(view, s, cands, plan)
        if not values:
            return
        rival = max(
            heuristics.SCORE_WEIGHT * heuristics.score(view, q)
            + heuristics.CHANNEL_VALUE * view.stored_channels[q]
            + heuristics.IMPROVEMENT_VALUE * sum(view.stored_improvements[q][1:])
            for q in range(view.players) if q != seat
        )
        t = self.temperature
        prior = node.prior if node.prior is not None else {}
        for a, v in values.items():
            vec = list(prior.get(a, [0.5] * view.players))
            vec[seat] = lead_chance(v - rival, t)
            prior[a] = vec
        if self.prior > 0:
            node.prior = prior
        rand = self.rng.random
        node.order = [
            a for _v, _r, a in sorted((-values.get(a, -1e9), rand(), a) for a in cands)
        ]

    def _lookahead_order(
        self, node: Node, s: GameState, cands: list[int], actions: dict[int, int] | None = None,
        alone: bool = False,
    ) -> list[int]:
        """Order a node's actions by the evaluation one step ahead in one sample, best first.

        Used at the root and below it in the bot's own turn, where progressive widening
        must look at the promising actions first (a channel, then the gardener move that
        pays for it); deeper nodes use the cheap ``action_score`` instead.  The values are
        kept as priors: a child created later starts with ``prior`` virtual visits at its
        one-step value, so a few unlucky samples do not bury a good action.

        ``alone``: the searching seat moves at this node in every sample, so only its values
        are read (the order, and its children's totals); the leaf scores it alone
        (``_iterate``).
        """
        evaluate = self._mine if alone and self._mine is not None else self._evaluate
        seat = s.current
        rand = self.rng.random
        scored = []
        prior: dict[int, list[float]] = {}
        for a in cands:
            t = s.copy()
            t.apply(a if actions is None else actions[a])
            values = [float(x) for x in t.returns()] if t.ended else evaluate(t)
            prior[a] = values
            scored.append((-values[seat], rand(), a))
        scored.sort()
        node.order = [a for _v, _r, a in scored]
        if self.prior > 0:
            node.prior = prior
        return node.order

    # --------------------------------------------------------------------- search

    def _iterate(self, root: Node, view: PlayerView) -> None:
        """One iteration: sample, select, expand, roll out, evaluate, back up.

        The root's candidates are the same in every sample (they are this seat's own, in
        the position it sees), so they are worked out once per decision (``_root_keys``).
        """
        s = view.determinize(self.rng)
        players = s.players
        node = root
        path = [root]
        c = self.c
        widen = self.widen
        log, sqrt = math.log, math.sqrt
        turns = self.turns
        mover = s.current
        keys = self._keys
        keyed = self._root_keys
        place_keys = self._place_keys
        # While only open actions of the searching seat lead from the root, the state is
        # one kept per node (``_with_hidden``).
        states = self._states
        open_path = s.current == self.seat
        seat = self.seat
        with_hidden = _with_hidden
        # Whether the node reached is one where the searching seat moves in every sample:
        # its children are judged by that seat's values only (see ``_mine_only``).
        mine_path = open_path
        mine_only = False
        turn_ends = self._turn_ends
        while not s.ended:
            if turns and s.current != mover:
                mover = s.current
                turns -= 1
                if not turns:
                    break  # the horizon: as many turns as asked have ended
            if keyed is not None:
                cands, actions = keyed
                keyed = None
            elif s.step == PLACE_STEP:
                # Placements: dozens of candidates to filter and key, the same whenever
                # the same plots are drawn at the same place in the tree.
                legal = s.legal_actions()
                memo = (s.drawn, tuple(legal))
                found = place_keys.get(memo)
                if found is None:
                    found = place_keys[memo] = keys(s, candidates(legal))
                cands, actions = found
            else:
                cands, actions = keys(s, candidates(s.legal_actions()))
                if node is root:
                    self._root_keys = (cands, actions)
            children = node.children
            if widen > 0:
                limit = 1.0 + widen * sqrt(node.visits)
            else:
                limit = 1e18
            known = len(children)
            if known < limit and known < len(cands):
                # Fewer children than both bounds: a new one is added here whatever the
                # values, so only the availabilities are counted.
                for a in cands:
                    child = children.get(a)
                    if child is not None:
                        child.avail += 1
                expand = True
            else:
                p = s.current
                best_child: Node | None = None
                best_action = -1
                best_value = -1e18
                available = 0
                for a in cands:
                    child = children.get(a)
                    if child is None:
                        continue
                    available += 1
                    child.avail += 1
                    n = child.visits
                    value = child.totals[p] / n + c * sqrt(log(child.avail) / n)
                    if value > best_value:
                        best_value, best_child, best_action = value, child, a
                expand = available < limit and available < len(cands)
            if expand:
                a = self._untried(
                    node, s, cands, len(path) <= self.lookahead, actions, mine_path
                )
                child = Node(players)
                children[a] = child
                prior = node.prior
                if prior is not None and a in prior:
                    k = self.prior
                    child.visits = k
                    child.totals = [k * x for x in prior[a]]
                action = a if actions is None else actions[a]
                s.apply(action)
                if open_path and OPEN_KIND[action & KIND_MASK] and s.current == seat and (
                    not s.ended
                ):
                    states[child] = s.copy()
                path.append(child)
                mine_only = mine_path
                break
            assert best_child is not None
            action = best_action if actions is None else actions[best_action]
            if open_path:
                public = states.get(best_child)
                if public is not None:
                    s = with_hidden(public, s, seat)
                else:
                    s.apply(action)
                    if OPEN_KIND[action & KIND_MASK] and s.current == seat and not s.ended:
                        states[best_child] = s.copy()
                    else:
                        open_path = False
            else:
                s.apply(action)
            if mine_path and (turn_ends[action & KIND_MASK] or s.current != seat or s.ended):
                mine_path = False
            node = best_child
            path.append(node)
        if self.depth and not s.ended and (not self.turns or turns > 1 or s.current == mover):
            self._rollout(s, s.current if turns == 1 else -1)
        if s.ended:
            values = s.returns()
        elif mine_only and self._mine is not None:
            values = self._mine(s)
        else:
            values = self._evaluate(s)
        if players == 2:
            v0, v1 = values
            for n in path:
                n.visits += 1
                totals = n.totals
                totals[0] += v0
                totals[1] += v1
        else:
            for n in path:
                n.visits += 1
                totals = n.totals
                for i in range(players):
                    totals[i] += values[i]

    def _untried(
        self, node: Node, s: GameState, cands: list[int], shallow: bool,
        actions: dict[int, int] | None = None, alone: bool = False,
    ) -> int:
        """The next action (tree key) to add below a node: the first untried one in its
        order (``alone``: see ``_lookahead_order``)."""
        order = node.order
        if order is None and shallow and s.current == self.seat:
            order = self._lookahead_order(node, s, cands, actions, alone)
        elif order is None:
            rand = self.rng.random
            scored = sorted(
                (-action_score(s, a if actions is None else actions[a]), rand(), a)
                for a in cands
            )
            order = node.order = [a for _v, _r, a in scored]
        children = node.children
        legal = set(cands)
        for a in order:
            if a not in children and a in legal:
                return a
        # Actions legal in this sample that the first one did not have (other cards drawn).
        fresh = [a for a in cands if a not in children]
        a = fresh[int(self.rng.random() * len(fresh))]
        order.append(a)
        return a

    def _rollout(self, s: GameState, mover: int = -1) -> None:
        """``depth`` decisions by the rollout policy (objectives always completed first).

        With ``mover`` set, the rollout stops when that seat's turn ends (the horizon).
        """
        rand = self.rng.random
        greedy = self.rollout == "greedy-lite"
        for _ in range(self.depth):
            legal = s.legal_actions()
            a = legal[0]
            if a & KIND_MASK != COMPLETE:
                n = len(legal)
                if n > 1 and legal[-1] == END and TURN_KIND[legal[-2] & KIND_MASK]:
                    n -= 1  # an action is left: do not end the turn (see ``candidates``)
                a = legal[int(rand() * n)]
                if greedy:
                    b = legal[int(rand() * n)]
                    if b != a and action_score(s, b) > action_score(s, a):
                        a = b
            s.apply(a)
            if s.ended or (mover >= 0 and s.current != mover):
                break


__all__ = ["MctsBot", "action_score", "candidates", "progress", "win_chances"]
