"""Card-set files (``--cards FILE``): the objective cards a designer wants to try, as data.

A file is a JSON object; every field is optional::

    {"name": "plot-15 at 5", "emperor": 3, "points": {"plot-15": 5}, "remove": ["gardener-13"]}

``points`` changes the points of any objective card by id, ``remove`` takes cards out of
their decks, ``emperor`` sets the Emperor's points.  The Emperor's points live in one place,
the rule option ``emperor_points`` (R12): ``emperor`` in a file sets that option, so old
records and manifests, which carry the option, keep their meaning; a file and a ``--rule
emperor_points=N`` that disagree are refused.

A bad file is refused before anything runs, with one sentence naming the field, because a
typo that silently fell back to the printed card would corrupt a balance study.  The engine
gets a :class:`arena.engine.CardSet` (no file reading happens in ``arena/engine``).

What runs carry: a manifest's ``card_set`` is the resolved set (:func:`summary`: every card
in play with its points, the removed cards, the Emperor's points, and a 12-hex-digit hash of
those) and its ``catalog`` describes every card (:func:`catalog`), so that a report needs
nothing but the run's files; a game record's is ``{"hash", "changes"}`` (:func:`record_field`:
what differs from the printed set, in this file format), from which ``arena replay`` rebuilds
the set.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.engine import DEFAULT_CARD_SET, ENGINE, ArenaError, CardSet, OptionError, RuleOptions
from arena.engine.components import (
    CATEGORIES,
    COLOURS,
    DATA,
    EMPEROR_POINTS,
    PRINTED_CARDS,
    PRINTED_INDEX,
)
from arena.engine.options import DEFAULTS

FILE_FIELDS = ("name", "emperor", "points", "remove", "add")
#: The smallest game: a deck must deal one card to each of its seats (R2.3).
MIN_PLAYERS = 2


class CardFileError(ArenaError):
    """A card-set file (or a record's or manifest's card set) that cannot be used."""


@dataclass(frozen=True)
class CardChoice:
    """A card set as a file gives it: the engine's set, and the Emperor's points if given."""

    cards: CardSet = DEFAULT_CARD_SET
    emperor: int | None = None
    #: Where it came from, to begin error sentences (``card file x.json``).
    source: str = field(default="card set", compare=False)

    def added_ids(self) -> list[str]:
        """The ids of the cards the set adds (``add``), in their order."""
        return [card.id for card in self.cards.added]

    @property
    def name(self) -> str:
        return self.cards.name

    def options(self, options: RuleOptions, *, rule_given: bool = False) -> RuleOptions:
        """``options`` with this file's Emperor's points; a ``--rule emperor_points`` given
        too (``rule_given``) must say the same."""
        if self.emperor is None or self.emperor == options.emperor_points:
            return options
        if rule_given or options.emperor_points != DEFAULTS.emperor_points:
            raise CardFileError(
                f"the card set's emperor is {self.emperor} but the rule option emperor_points "
                f"is {options.emperor_points}; give the Emperor's points in one place"
            )
        return replace(options, emperor_points=self.emperor)

    def check_deal(self, players: int) -> None:
        """Refuse a set whose decks cannot deal a ``players``-seat game (R2.3)."""
        problem = self.cards.deal_problem(players)
        if problem:
            raise CardFileError(f"{self.source}: remove: {problem}")


DEFAULT_CHOICE = CardChoice()


def parse(data: Any, where: str = "card set", *, playable: bool = True,
          path: str | Path | None = None) -> CardChoice:
    """A card set from the JSON of a file (or a record's ``changes``); ``where`` starts the
    error sentence (``card file x.json``).  ``playable``: refuse a set that adds cards when
    the native engine is in use, which does not play them yet (``arena cards`` lists and
    draws them on either engine: ``playable=False``); ``path``, the file's, makes that
    sentence give the very command that lists them."""
    if not isinstance(data, dict):
        raise CardFileError(f"{where} must be a JSON object with the fields "
                            f"{', '.join(FILE_FIELDS)} (each optional)")
    for key in data:
        if key not in FILE_FIELDS:
            raise CardFileError(f"{where}: unknown field {key!r} "
                                f"(valid: {', '.join(FILE_FIELDS)})")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise CardFileError(f"{where}: name must be a text, not {name!r}")
    emperor = data.get("emperor")
    if emperor is not None and (isinstance(emperor, bool) or not isinstance(emperor, int)
                                or emperor < 0):
        raise CardFileError(f"{where}: emperor must be a whole number >= 0, not {emperor!r}")
    points = data.get("points", {})
    if not isinstance(points, dict):
        raise CardFileError(f"{where}: points must be an object of card ids to points, "
                            f'e.g. {{"plot-15": 5}}, not {points!r}')
    remove = data.get("remove", [])
    if not isinstance(remove, list):
        raise CardFileError(f'{where}: remove must be a list of card ids, e.g. ["gardener-13"], '
                            f"not {remove!r}")
    add = None
    if data.get("add") is not None:
        from arena.engine.card_defs import CardDefinitionError, check

        try:
            add = check(data["add"], set(PRINTED), where)
        except CardDefinitionError as exc:
            raise CardFileError(str(exc)) from None
    try:
        cards = CardSet.from_changes(points, remove, name, add)
    except OptionError as exc:
        raise CardFileError(f"{where}: {exc}") from None
    problem = cards.deal_problem(MIN_PLAYERS)
    if problem:
        raise CardFileError(f"{where}: remove: {problem}")
    choice = CardChoice(cards, emperor, where)
    if playable and choice.added_ids() and ENGINE == "native":
        from arena.engine.native import native_problem

        problem = native_problem(cards)
        if problem:
            raise CardFileError(f"{where}: {problem}")
    return choice


def load(path: str | Path, *, playable: bool = True) -> CardChoice:
    """A card-set file; CardFileError (one sentence) when it cannot be read or is bad."""
    where = f"card file {path}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CardFileError(f"cannot read {where}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CardFileError(f"{where} is not text (not UTF-8)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CardFileError(f"{where} is not JSON: {exc.msg} (line {exc.lineno})") from None
    return parse(data, where, playable=playable, path=path)


def card_choice(path: str | Path | None, players: int | None = None, *,
                playable: bool = True) -> CardChoice:
    """What ``--cards FILE`` gives every command: the file read and checked (for ``players``
    seats when given), or the printed set when the option is left out."""
    if path is None:
        return DEFAULT_CHOICE
    choice = load(path, playable=playable)
    if players is not None:
        choice.check_deal(players)
    return choice


def template(cards: CardSet = DEFAULT_CARD_SET, emperor: int = EMPEROR_POINTS) -> dict[str, Any]:
    """A whole file: every card's points (a starting point to edit), and its removed cards."""
    out: dict[str, Any] = {
        "name": cards.name or "printed",
        "emperor": emperor,
        "points": {cards.card(c).id: p for c, p in enumerate(cards.points)},
        "remove": [cards.card(c).id for c in sorted(cards.removed)],
    }
    added = cards.changes().get("add")
    if added:  # the added cards stay in the file to edit
        out["add"] = added
    return out


# ------------------------------------------------------------------ what runs carry


def summary(cards: CardSet, emperor: int) -> dict[str, Any]:
    """The resolved set as a manifest carries it: ``hash``, ``emperor``, ``points`` of every
    card in play, ``removed``.  Equal sets give equal summaries, whatever their files said."""
    resolved: dict[str, Any] = {
        "emperor": emperor,
        "points": {cards.card(c).id: cards.points[c] for deck in cards.decks for c in deck},
        "removed": [cards.card(c).id for c in sorted(cards.removed)],
    }
    added = cards.changes().get("add")
    if added:  # the definitions are part of what is played (absent: the hash of old runs)
        resolved["added"] = added
    text = json.dumps(resolved, sort_keys=True, separators=(",", ":"))
    return {"hash": hashlib.sha256(text.encode()).hexdigest()[:12], **resolved}


def catalog(cards: CardSet) -> list[dict[str, Any]]:
    """The manifest's ``catalog``: every objective card in deck order, as the reports need it
    (they read the run's files, never the engine): ``id``, ``category``, ``asks`` (its
    condition in words, equal for copies of one card), ``printed`` points, ``points`` in
    this run and whether it was ``removed``."""
    out = []
    for index, points in enumerate(cards.points):
        card = cards.card(index)
        what = condition(cards, index)
        out.append({"id": card.id, "category": card.category_name, "asks": what,
                    "printed": card.points, "points": points,
                    "removed": index in cards.removed})
    return out


def changes(cards: CardSet, emperor: int) -> dict[str, Any]:
    """What differs from the printed set, in the file format (``{}`` for the printed set)."""
    out: dict[str, Any] = {}
    if cards.name:
        out["name"] = cards.name
    if emperor != EMPEROR_POINTS:
        out["emperor"] = emperor
    out.update(cards.changes())
    return out


def record_field(state: Any) -> dict[str, Any]:
    """A game record's ``card_set``: the hash of the resolved set and its changes."""
    emperor = state.options.emperor_points
    return {"hash": summary(state.card_set, emperor)["hash"],
            "changes": changes(state.card_set, emperor)}


def from_record(record: dict[str, Any], options: RuleOptions) -> CardSet:
    """The card set a record was played with (a record written before card sets: the
    printed one); its changes must agree with the record's rule options and hash."""
    field = record.get("card_set")
    if field is None:
        return DEFAULT_CARD_SET
    if not isinstance(field, dict) or not isinstance(field.get("changes", {}), dict):
        raise CardFileError("the record's card_set must be an object with hash and changes")
    choice = parse(field.get("changes", {}), "the record's card_set.changes")
    emperor = choice.emperor if choice.emperor is not None else EMPEROR_POINTS
    if emperor != options.emperor_points:
        raise CardFileError(f"the record's card_set gives the Emperor {emperor} points but its "
                            f"options give {options.emperor_points}")
    want = field.get("hash")
    have = summary(choice.cards, emperor)["hash"]
    if want is not None and want != have:
        raise CardFileError(f"the record's card_set.hash {want!r} is not the hash of its "
                            f"changes ({have!r}): the record was edited")
    return choice.cards


def from_manifest(data: Any, options: RuleOptions) -> CardChoice:
    """The card set of a manifest's ``card_set`` (absent: the printed set, with the
    manifest's Emperor)."""
    if data is None:
        return DEFAULT_CHOICE
    if not isinstance(data, dict):
        raise CardFileError("the manifest's card_set must be an object")
    if "changes" in data:
        return parse(data["changes"], "the manifest's card_set.changes")
    points = data.get("points", {})
    removed = data.get("removed", [])
    if not isinstance(points, dict) or not isinstance(removed, list):
        raise CardFileError("the manifest's card_set needs points (object) and removed (list)")
    return parse({"points": points, "remove": removed, "emperor": options.emperor_points},
                 "the manifest's card_set")


def difference(have: dict[str, Any] | None, want: dict[str, Any]) -> str:
    """The cards (and Emperor) on which two summaries differ, named: for ``--resume``."""
    have = have or {}
    parts = []
    if have.get("emperor") != want.get("emperor"):
        parts.append(f"emperor {have.get('emperor')}, not {want.get('emperor')}")
    a, b = have.get("points") or {}, want.get("points") or {}
    if have.get("added") != want.get("added"):
        parts.append("the added cards' definitions differ")
    for card in dict.fromkeys([*PRINTED_INDEX, *a, *b]):
        x, y = a.get(card), b.get(card)
        if x != y:
            parts.append(f"{card} {'removed' if x is None else x}, not "
                         f"{'removed' if y is None else y}")
    shown = "; ".join(parts[:6]) + ("; ..." if len(parts) > 6 else "")
    return f"hash {have.get('hash')}, not {want.get('hash')}" + (f": {shown}" if shown else "")


# ------------------------------------------------------------------ the table


def condition(cards: CardSet, index: int) -> str:
    """What a card of the set ``cards`` asks, in words: a plot pattern, shoots to grow,
    sections to eat (a card the set adds, in its own entry's words)."""
    if index >= PRINTED_CARDS:
        category, text = cards.added_entries[index - PRINTED_CARDS]
        return asks(category, json.loads(text))
    return asks(*PRINTED[cards.card(index).id])


def asks(category: str, entry: Mapping[str, Any]) -> str:
    """What a catalog entry asks, in words (a printed card's or an added one's):
    ``line: green green green``, ``1 green shoot of height 4, fertilizer``, ``eat 2 green``."""
    if category == "plot":
        cells = [cell["colour"] + (f"/{cell['improvement']}" if cell.get("improvement", "none")
                                   != "none" else "") for cell in entry["cells"]]
        return f"{entry.get('shape', 'pattern')}: " + " ".join(cells)
    if category == "gardener":
        shoots = entry["shoots"]
        improvement = entry.get("improvement", "any")
        kind = ("any improvement" if improvement == "any"
                else "no improvement" if improvement == "none" else improvement)
        return (f"{shoots} {entry['colour']} shoot{'s' if shoots > 1 else ''} of height "
                f"{entry['height']}, {kind}")
    eat = [f"{entry['eat'][colour]} {colour}" for colour in COLOURS if entry["eat"].get(colour)]
    return "eat " + " + ".join(eat)


#: The printed catalog (``components.json``): each objective card's entry by id, with its
#: category.  A card whose id is not here was added by a card set.
PRINTED: dict[str, tuple[str, dict[str, Any]]] = {
    entry["id"]: (category, entry)
    for category in CATEGORIES for entry in DATA["objectives"][category]
}


def entries(changes: Mapping[str, Any] | None = None) -> list[tuple[str, dict[str, Any],
                                                                    int | None]]:
    """Every objective card of a set as ``(category, catalog entry, points)``: what the card
    sheet and the replay page draw (``arena.show.card_svg``), so a card added by a set draws as a
    printed one does.  ``changes`` is the set in the file format, already checked (a record's
    ``card_set.changes``, or :func:`changes` of a parsed set): the printed catalog with its
    ``points`` and ``remove`` (points ``None``: out of its deck), then the entries it ``add``s
    by category.  In deck order, each category's added cards after its printed ones."""
    changes = changes or {}
    points = changes.get("points") or {}
    removed = set(changes.get("remove") or ())
    added = changes.get("add") or {}
    out: list[tuple[str, dict[str, Any], int | None]] = []
    for category in CATEGORIES:
        for entry in [*DATA["objectives"][category], *added.get(category, ())]:
            card = entry["id"]
            out.append((category, entry,
                        None if card in removed else points.get(card, entry["points"])))
    return out


def added_entries(cards: CardSet) -> dict[str, tuple[str, dict[str, Any]]]:
    """The catalog entries of the cards a set adds, by id, with their category (what
    :func:`asks` words)."""
    out = {}
    for category, text in cards.added_entries:
        entry = json.loads(text)
        out[entry["id"]] = (category, entry)
    return out


def table_rows(cards: CardSet) -> list[tuple[str, str, str, str]]:
    """``(id, category, pattern or condition, points)`` per card, the added ones after the
    printed ones; points say what changed."""
    rows = []
    added = added_entries(cards)
    for index, points in enumerate(cards.points):
        card = cards.card(index)
        mark = " (added)" if card.id in added else ""
        if index in cards.removed:
            text = "removed" + mark
        elif points != card.points:
            text = f"{points} ({'added at' if mark else 'printed'} {card.points})"
        else:
            text = f"{points}{mark}"
        what = condition(cards, index)
        rows.append((card.id, CATEGORIES[card.category], what, text))
    return rows
