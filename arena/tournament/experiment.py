"""The schedule of a card experiment: the same deals played with a different card in one place.

``arena balance study`` asks what holding each objective card is worth by intervention, not
by observation (docs/balance.md).  Its games are laid out here, as a pure function of the
configuration, like a tournament's schedule (``schedule.py``), so the runner plays them with
its workers, resumes them and keeps every finished game:

- A **block** is one deal (a seed) and one category at one skill level: the deal is played
  once per card of the category in play, and in each game every seat holds a card of the
  category placed there (``GameState.place_card``) in place of the one it was dealt: seat 0
  the game's card, the other seats the cards a random shift of the deal away, so that each
  card is held once by each seat per deal, against opponents' cards that change from deal
  to deal.  Everything else, the die, the plots, the other cards and the bots' random
  streams, is the seed's, so the games of a block differ by the cards placed alone (common
  random numbers), and each card is compared with the others of its category on the same
  deal.  Every seat's result is an observation: a 2-player block gives each card two.
- **Price arms**: for the cards whose fair points are measured, the same deal again with the
  subject seat (``deal mod players``) holding the card at other prices (its points plus each
  of ``offsets``, never below 0), every other card at its points and every other seat
  holding the card it was dealt.
- **Levels**: each skill level (a line-up: the subject's participant, then its opponents)
  plays the same deals, so levels are compared on the same luck.
- The seeds are ``deal_seed(master, category, deal)``: independent blocks per category, the
  same across levels; the shifts are drawn from ``derive_seed("shift", master, category,
  deal)``, so they too are the same at every level.  A run with keyed deals (untrusted
  bots, docs/tournaments.md) keys both: the seeds as a tournament's deals, the shifts (which
  say what the opponents were given) by the same key.

With ``depth`` the card is put at that depth of its deck instead of in the seats' hands
(the card the next draw from that deck, or a later one, gives), one card per game.

Games are listed deal by deal (every level, category and arm of deal 0, then deal 1), so an
interrupted study holds whole blocks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from arena.engine import CATEGORIES, CardSet
from arena.play.intervention import Placement
from arena.play.seeds import derive_seed, keyed_deal_seed
from arena.tournament.schedule import ScheduledGame, ScheduleError, TournamentConfig

KIND = "card-value"
#: Price offsets of the fair-points arms by default: the card at its points - 3 and + 3.
OFFSETS = (-3, 3)


def shift_seed(config: Any, category: int, deal: int) -> int:
    """The seed of a deal's shifts (which card each other seat holds): public from the
    master seed, or keyed by the run's deal key."""
    if not config.deal_key:
        return derive_seed("shift", config.seed, category, deal)
    return keyed_deal_seed(config.deal_key, derive_seed("shift", config.seed), category, deal)


@dataclass(frozen=True)
class CardExperiment:
    """The layout of a card experiment (see the module docstring); ``to_dict`` is what the
    manifest keeps, ``from_dict`` reads it back for ``--resume`` and the reports."""

    #: Per skill level, participant indices: the subject first, then its opponents.
    levels: tuple[tuple[int, ...], ...]
    #: Blocks (deals) per level and category.
    deals: int
    #: Categories studied (indices in ``CATEGORIES``).
    categories: tuple[int, ...] = (0, 1, 2)
    #: Cards given price arms (ids); None: every card of the studied categories in play.
    priced: tuple[str, ...] | None = None
    offsets: tuple[int, ...] = OFFSETS
    #: None: the subject holds the card; a number: the card sits at that depth of its deck.
    depth: int | None = None
    #: Whose results measure a level: ``all`` seats (each level plays itself), or only the
    #: ``subject``'s (its opponents are another bot).
    observed: str = "all"
    _sets: dict[tuple[int, int], CardSet] = field(default_factory=dict, compare=False,
                                                  repr=False)

    def check(self, config: TournamentConfig) -> None:
        """Raise ScheduleError (one sentence) unless the configuration can play this."""
        if self.deals < 1:
            raise ScheduleError(f"an experiment needs at least 1 deal, not {self.deals}")
        if not self.levels:
            raise ScheduleError("an experiment needs at least one skill level (--bot)")
        for lineup in self.levels:
            if len(lineup) != config.players or not all(
                    0 <= p < len(config.participants) for p in lineup):
                raise ScheduleError(f"a level seats {config.players} participants of the "
                                    f"study, not {list(lineup)}")
        if not self.categories or any(k not in range(3) for k in self.categories):
            raise ScheduleError(f"categories must be among {', '.join(CATEGORIES)}")
        for card in self.priced or ():
            index = config.cards.index_of(card)
            if index is None:
                raise ScheduleError(f"{card!r} is not an objective card (`arena cards`)")
            if index in config.cards.removed:
                raise ScheduleError(f"{card} is removed from the study's card set")
            if config.cards.card(index).category not in self.categories:
                raise ScheduleError(f"{card} is not in a category the study plays")
        if self.observed not in ("all", "subject"):
            raise ScheduleError(f"observed must be all or subject, not {self.observed!r}")
        if any(not isinstance(o, int) or o == 0 for o in self.offsets):
            raise ScheduleError(f"price offsets must be whole numbers other than 0, not "
                                f"{list(self.offsets)}")
        if self.depth is not None:
            smallest = min(len(config.cards.decks[k]) for k in self.categories)
            if not 0 <= self.depth < smallest - config.players:
                raise ScheduleError(f"--depth must be 0..{smallest - config.players - 1} "
                                    f"(the decks keep {smallest - config.players} cards "
                                    "after the deal)")

    def priced_cards(self, config: TournamentConfig) -> list[int]:
        """Card indices that get price arms, in card order."""
        if self.priced is not None:
            return sorted(config.cards.index_of(c) for c in self.priced)  # type: ignore[type-var]
        return [c for k in self.categories for c in config.cards.decks[k]]

    def prices(self, config: TournamentConfig, card: int) -> list[int]:
        """The card's other prices: its points plus each offset, at least 0, each once."""
        base = config.cards.points[card]
        out: list[int] = []
        for offset in self.offsets:
            p = max(0, base + offset)
            if p != base and p not in out:
                out.append(p)
        return sorted(out)

    def card_set(self, config: TournamentConfig, card: int, price: int) -> CardSet:
        """The study's set with one card at another price (made once per card and price)."""
        key = (card, price)
        found = self._sets.get(key)
        if found is None:
            points = list(config.cards.points)
            points[card] = price
            label = f"{config.cards.name or 'study'}: {config.cards.card(card).id} at {price}"
            found = replace(config.cards, points=tuple(points), name=label)
            self._sets[key] = found
        return found

    def lineups(self, config: TournamentConfig) -> tuple[tuple[int, ...], ...]:
        return self.levels

    def games(self, config: TournamentConfig) -> list[ScheduledGame]:
        """Every game of the experiment, deal by deal (see the module docstring)."""
        self.check(config)
        players = config.players
        priced = set(self.priced_cards(config))
        games: list[ScheduledGame] = []
        for deal in range(self.deals):
            subject = deal % players
            for level, lineup in enumerate(self.levels):
                seats = tuple(lineup[(seat - subject) % players] for seat in range(players))
                for k in self.categories:
                    seed = config.deal_seed(k, deal)
                    arms: list[tuple[int, int | None]] = [(c, None) for c in config.cards.decks[k]]
                    arms += [(c, p) for c in config.cards.decks[k] if c in priced
                             for p in self.prices(config, c)]
                    deck = config.cards.decks[k]
                    shifts = [0, *random.Random(shift_seed(config, k, deal))
                              .sample(range(1, len(deck)), players - 1)]
                    for rotation, (card, price) in enumerate(arms):
                        card_id = config.cards.card(card).id
                        if self.depth is not None:
                            places = (Placement(card_id, depth=self.depth),)
                        elif price is None:  # a block game: every seat holds a placed card
                            at = deck.index(card)
                            places = tuple(Placement(config.cards.card(
                                deck[(at + shift) % len(deck)]).id,
                                                     seat=seat)
                                           for seat, shift in enumerate(shifts))
                        else:
                            places = (Placement(card_id, seat=subject),)
                        points = config.cards.points[card] if price is None else price
                        name = (f"x{level}-{CATEGORIES[k]}-{deal:04d}-{card_id}"
                                + ("" if price is None else f"@{price}"))
                        extra = (("level", level), ("category", CATEGORIES[k]),
                                 ("placed", card_id), ("price", points),
                                 ("arm", "block" if price is None else "price"),
                                 ("subject", subject))
                        games.append(ScheduledGame(
                            len(games), level * len(CATEGORIES) + k, deal, rotation, seed,
                            seats, places,
                            None if price is None else self.card_set(config, card, price),
                            name, extra))
        return games

    def to_dict(self) -> dict[str, Any]:
        return {"kind": KIND, "levels": [list(x) for x in self.levels], "deals": self.deals,
                "categories": [CATEGORIES[k] for k in self.categories],
                "priced": None if self.priced is None else list(self.priced),
                "offsets": list(self.offsets), "depth": self.depth, "observed": self.observed}

    @classmethod
    def from_dict(cls, data: Any) -> CardExperiment:
        """The experiment a manifest describes; ScheduleError names a bad field."""
        if not isinstance(data, dict) or data.get("kind") != KIND:
            raise ScheduleError(f"the manifest's experiment is not a {KIND} study")
        try:
            priced = data.get("priced")
            return cls(
                levels=tuple(tuple(int(p) for p in lineup) for lineup in data["levels"]),
                deals=int(data["deals"]),
                categories=tuple(CATEGORIES.index(c) for c in data["categories"]),
                priced=None if priced is None else tuple(str(c) for c in priced),
                offsets=tuple(int(o) for o in data["offsets"]),
                depth=None if data.get("depth") is None else int(data["depth"]),
                observed=str(data.get("observed", "all")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ScheduleError(f"the manifest's experiment is incomplete or damaged "
                                f"({exc!r})") from None


def games_per_deal(config: TournamentConfig, design: CardExperiment) -> int:
    """Games one deal costs across levels, categories and arms (for sizes and progress)."""
    priced = set(design.priced_cards(config))
    per_level = sum(len(config.cards.decks[k])
                    + sum(len(design.prices(config, c)) for c in config.cards.decks[k]
                          if c in priced)
                    for k in design.categories)
    return per_level * len(design.levels)
