"""The replay page: one self-contained HTML file that steps through a recorded game.

The record is re-played from its seed and choices (``arena.show.replay``: every move checked), and
the position before each choice is drawn by the board renderer (``arena.show.svg``): the page holds
the drawings, not a second renderer in JavaScript, so what it shows is what ``arena show``
draws.  Boards that do not change between two choices (an ``end``, a completed card) are kept
once.  The page works offline: no script, font or style is fetched.

A step is one choice: the page shows the position the chooser saw, the events that led to it
(the previous choice and what chance did after it), the choice about to be made, every
seat's hand and objectives (a replay knows every hand), and the scores by round.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from arena.engine import GameState, event_text
from arena.engine.card_files import asks, changes, entries
from arena.show.card_svg import PAGE_STYLE, card_svg
from arena.show.replay import RecordError, read_records, replay_record
from arena.show.svg import (
    SEAT_COLOURS,
    drawn_text,
    frame_cells,
    garden_svg,
    legend_svg,
    reserve_text,
    seat_infos,
    view_box,
)
from arena.show.svg import turn_text as board_turn_text

#: The page's marks for a game stopped by a fault or by a player who quit.
STOPPED = {"crash": "crashed", "illegal": "made an illegal move", "timeout": "ran out of time",
           "abandoned": "quit"}


@dataclass
class Frame:
    """One step of the page: the position before a choice (or the end)."""

    board: int
    panel: int
    round: int
    scores: list[int]
    events: list[str]
    next: str


@dataclass
class Pages:
    """The drawings of a game, each kept once, and the steps that show them."""

    boards: list[str] = field(default_factory=list)
    panels: list[str] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    #: Every card a seat held or completed in the game, in the order first seen.
    cards: dict[str, None] = field(default_factory=dict)
    _board_index: dict[str, int] = field(default_factory=dict)
    _panel_index: dict[str, int] = field(default_factory=dict)

    def board(self, svg: str) -> int:
        return self._keep(svg, self.boards, self._board_index)

    def panel(self, text: str) -> int:
        return self._keep(text, self.panels, self._panel_index)

    @staticmethod
    def _keep(text: str, items: list[str], index: dict[str, int]) -> int:
        found = index.get(text)
        if found is None:
            found = index[text] = len(items)
            items.append(text)
        return found


def seat_label(seat: int, names: Sequence[str]) -> str:
    return f"{seat} {names[seat]}" if seat < len(names) else f"seat {seat}"


def event_html(line: str, names: Sequence[str]) -> str:
    """A history line as the page lists it: a choice with its seat's name, chance dimmed."""
    if line.startswith("*"):
        return f'<li class="chance">{escape(line[2:])}</li>'
    seat_text, _, text = line.partition(" ")
    seat = int(seat_text) if seat_text.isdigit() else 0
    colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    return (f'<li><span class="who" style="border-color:{colour}">'
            f'{escape(seat_label(seat, names))}</span> <code>{escape(text)}</code></li>')


#: A card set's cards by id: ``(category, catalog entry, points)`` (``cards.entries``).
CardTable = Mapping[str, tuple[str, Mapping[str, Any], int | None]]


def state_cards(state: GameState) -> dict[str, tuple[str, dict[str, Any], int | None]]:
    """The cards of the set a state is played with, by id (for a page drawn from a state
    alone; a record's page reads them from the record, :func:`record_cards`)."""
    return {entry["id"]: (category, entry, points) for category, entry, points
            in entries(changes(state.card_set, state.options.emperor_points))}


def record_cards(record: Mapping[str, Any]) -> dict[str, tuple[str, dict[str, Any], int | None]]:
    """The cards of the set a record was played with, by id, from the record alone: the
    printed catalog with its ``card_set.changes`` (points, removed cards, and the entries of
    cards it adds), so that the page draws a card a designer added as a printed one."""
    field = record.get("card_set")
    changed = field.get("changes") if isinstance(field, Mapping) else None
    return {entry["id"]: (category, entry, points) for category, entry, points
            in entries(changed if isinstance(changed, Mapping) else None)}


def card_asks(card_id: str, cards: CardTable | None = None) -> str:
    """What a card asks and is worth, in words (a chip's label): ``plot-02: line: green
    green green, 2 pts``; a hidden card (``panda?``) says only its category.  ``cards``:
    the set's cards (default: the printed ones)."""
    known = (cards if cards is not None else PRINTED_CARDS).get(card_id)
    if known is None:
        category = card_id.rstrip("?").strip()
        return f"a {category} objective, hidden" if card_id.endswith("?") else card_id
    category, entry, points = known
    return f"{card_id}: {asks(category, entry)}, {points} pts"


#: The printed set's cards by id (a chip's words when no set is given).
PRINTED_CARDS: CardTable = record_cards({})


def _chips(cards: Sequence[str], cls: str, table: CardTable) -> str:
    """Cards as chips: a known card names itself for the page's script, which shows its
    drawing when pointed at (the words stay its label); a hidden one says its category."""
    if not cards:
        return '<span class="none">none</span>'
    out = []
    for c in cards:
        kind = escape(c.split("-")[0].split(" ")[0])
        if c in table:
            out.append(f'<span class="chip {cls} {kind}" data-card="{escape(c)}" tabindex="0" '
                       f'aria-label="{escape(card_asks(c, table))}">{escape(c)}</span>')
        else:
            out.append(f'<span class="chip {cls} {kind}" '
                       f'title="{escape(card_asks(c, table))}">{escape(c)}</span>')
    return "".join(out)


def panel_html(state: GameState, names: Sequence[str], cards: CardTable | None = None) -> str:
    """The side table of one step: whose turn, and per seat its points, stock and cards
    (``cards``: the set's, by id; default: the state's)."""
    table = cards if cards is not None else state_cards(state)
    rows = [f'<p class="turn">{escape(board_turn_text(state))}</p>']
    drawn = drawn_text(state)
    if drawn:
        rows.append(f'<p class="drawn">choosing a plot from: {escape(drawn)}</p>')
    rows.append(f'<p class="reserve">{escape(reserve_text(state))}</p>')
    for info in seat_infos(state, names):
        mover = not state.ended and state.current == info.seat
        colour = SEAT_COLOURS[info.seat % len(SEAT_COLOURS)]
        crown = ' <span class="emperor">♛ Emperor</span>' if info.emperor else ""
        imps = info.improvements
        rows.append(
            f'<div class="seat{" mover" if mover else ""}" style="border-color:{colour}" '
            f'data-seat="{info.seat}"><div class="seat-head">'
            f'<b>{escape(seat_label(info.seat, names))}</b> '
            f'<span class="score">{info.score} pts</span>{crown}'
            f'{" <span class=tag>to play</span>" if mover else ""}</div>'
            f'<div class="stock">eaten {info.eaten[0]} green · {info.eaten[1]} yellow · '
            f'{info.eaten[2]} pink; stored {info.channels} channels, {imps[0]} W, {imps[1]} E, '
            f'{imps[2]} F</div>'
            f'<div class="cards"><span class="label">hand</span> '
            f'{_chips(info.hand, "held", table)}</div>'
            f'<div class="cards"><span class="label">done</span> '
            f'{_chips(info.completed, "done", table)}</div></div>')
    return "".join(rows)


def collect(record: dict[str, Any]) -> tuple[Pages, GameState]:
    """Re-play the record, drawing the position before each choice and at the end.

    Raises ``RecordError`` (one sentence) when the record does not re-play: a page of a game
    that did not happen as written would mislead.
    """
    names = [str(n) for n in record.get("seats", [])]
    states: list[tuple[GameState, int]] = []

    def before(state: GameState) -> None:
        states.append((state.copy(history=True), len(state.history or ())))

    result = replay_record(record, before=before)
    if result.problems:
        raise RecordError(f"game {record.get('game')} does not re-play as recorded: "
                          f"{result.problems[0]}")
    end = result.state
    history = end.history or []
    states.append((end, len(history)))
    # One extent for the whole game, so the board does not jump between steps.
    cells = frame_cells(s for s, _ in states)
    box = view_box(cells)
    pages = Pages()
    table = record_cards(record)
    seen = 0
    for i, (state, length) in enumerate(states):
        for info in seat_infos(state):
            pages.cards.update(dict.fromkeys((*info.hand, *info.completed)))
        lines = [event_text(e, end.card_set) for e in history[seen:length]]
        seen = length
        # the choice made here is the first entry after this state in the history
        following = event_text(history[length], end.card_set) if i + 1 < len(states) else ""
        pages.frames.append(Frame(
            pages.board(garden_svg(state, box=box)),
            pages.panel(panel_html(state, names, table)),
            state.round, state.scores(), [event_html(x, names) for x in lines],
            event_html(following, names) if following else ""))
    return pages, end


def result_text(record: dict[str, Any]) -> str:
    """The outcome in a line: winners and scores, or who stopped the game."""
    names = [str(n) for n in record.get("seats", [])]
    scores = record.get("scores") or []
    parts = [f"{seat_label(s, names)} {scores[s]}" for s in range(min(len(names), len(scores)))]
    winners = ", ".join(seat_label(w, names) for w in record.get("winners") or [])
    text = f"{' · '.join(parts)} — won by {winners or 'nobody'}"
    if record.get("tiebreak") == "panda":
        text += " (panda tie-break)"
    elif record.get("tiebreak") == "shared":
        text += " (shared)"
    error = record.get("error")
    if isinstance(error, dict) and isinstance(error.get("seat"), int):
        seat = error["seat"]
        how = STOPPED.get(str(error.get("kind")), str(error.get("kind")))
        text += f"; stopped: {seat_label(seat, names)} {how}"
    return text


def score_chart(frames: Sequence[Frame], names: Sequence[str]) -> str:
    """Each seat's score at the end of each round, as an SVG line chart with a marker the
    page moves to the step shown."""
    by_round: dict[int, list[int]] = {}
    for f in frames:
        by_round[f.round] = f.scores
    rounds = sorted(by_round)
    last = max(rounds) if rounds else 1
    top = max([1, *(s for scores in by_round.values() for s in scores)])
    w, h, left, bottom = 560.0, 190.0, 34.0, 24.0

    def x(r: float) -> float:
        return left + (w - left - 10) * (r - 1) / max(1, last - 1)

    def y(v: float) -> float:
        return 10 + (h - bottom - 10) * (1 - v / top)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {w:.0f} {h:.0f}" '
           'role="img" aria-label="scores by round">']
    step = max(1, round(top / 5 / 5) * 5) if top > 10 else 2
    for v in range(0, top + 1, step):
        out.append(f'<line x1="{left}" x2="{w - 10}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                   'stroke="#e3ded0"/>'
                   f'<text x="{left - 4}" y="{y(v) + 4:.1f}" text-anchor="end" '
                   f'class="axis">{v}</text>')
    for r in rounds:
        if r == 1 or r == last or r % 5 == 0:
            out.append(f'<text x="{x(r):.1f}" y="{h - 6:.0f}" text-anchor="middle" '
                       f'class="axis">{r}</text>')
    players = len(names)
    for seat in range(players):
        pts = " ".join(f"{x(r):.1f},{y(by_round[r][seat]):.1f}" for r in rounds
                       if seat < len(by_round[r]))
        colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2.2" points="{pts}"/>')
    out.append(f'<line id="round-marker" x1="{x(1):.1f}" x2="{x(1):.1f}" y1="8" '
               f'y2="{h - bottom:.0f}" stroke="#222" stroke-dasharray="3 3" '
               f'data-left="{left}" data-width="{w - left - 10}" data-last="{last}"/>')
    out.append("</svg>")
    key = "".join(
        f'<span class="key"><i style="background:{SEAT_COLOURS[s % 4]}"></i>'
        f'{escape(seat_label(s, names))}</span>' for s in range(players))
    return "".join(out) + f'<div class="keys">{key}</div>'


def gallery_html(involved: Iterable[str], cards: CardTable, end: GameState,
                 names: Sequence[str]) -> str:
    """The cards of the game drawn (``card_svg``), in catalog order, each saying who
    completed it or held it at the end; the chips' pop-ups show these drawings."""
    wanted = set(involved)
    where: dict[str, str] = {}
    for info in seat_infos(end, names):
        for card in info.completed:
            where[card] = f"completed by {seat_label(info.seat, names)}"
        for card in info.hand:
            where[card] = f"in the hand of {seat_label(info.seat, names)} at the end"
    out = []
    for card, (category, entry, points) in cards.items():
        if card not in wanted:
            continue
        out.append(f'<figure class="card-fig" id="card-{escape(card)}" '
                   f'data-card="{escape(card)}">{card_svg(category, entry, points, style=False)}'
                   f'<figcaption>{escape(where.get(card, ""))}</figcaption></figure>')
    return "".join(out) or '<p class="none">no objective card was dealt</p>'


def _static(name: str) -> str:
    """A file of the page (its style or its script), kept beside the code as package data."""
    return resources.files("arena.show").joinpath("static", name).read_text(encoding="utf-8")


def page(record: dict[str, Any], *, title: str | None = None) -> str:
    """The replay page of a game record, as HTML text."""
    pages, end = collect(record)
    names = [str(n) for n in record.get("seats", [])]
    game = record.get("game", "game")
    heading = title or f"Game {game}: {' vs '.join(names)}"
    facts = (f"seed {record.get('seed')} · {len(names)} players · "
             f"{record.get('rounds', '?')} rounds · {len(pages.frames) - 1} choices")
    data = {
        "boards": pages.boards,
        "panels": pages.panels,
        "frames": [{"b": f.board, "p": f.panel, "r": f.round, "e": f.events, "n": f.next}
                   for f in pages.frames],
    }
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{escape(heading)}</title><style>{_static('viewer.css')}{PAGE_STYLE}</style>"
        "</head><body>"
        f"<header><h1>{escape(heading)}</h1><p>{escape(result_text(record))}</p>"
        f"<p>{escape(facts)}</p></header>"
        '<div class="controls">'
        '<button id="first" title="first step (Home)">|◀</button>'
        '<button id="prev-round" title="previous round (↓)">◀◀</button>'
        '<button id="prev" title="previous step (←)">◀</button>'
        '<button id="play" title="play / pause (space)">▶ play</button>'
        '<button id="next-btn" title="next step (→)">▶</button>'
        '<button id="next-round" title="next round (↑)">▶▶</button>'
        '<button id="last" title="last step (End)">▶|</button>'
        '<input id="slider" type="range" min="0" value="0" aria-label="step">'
        '<span id="where"></span></div>'
        '<main><div class="column">'
        f'<section class="board-sec"><div id="board"></div>{legend_svg()}</section>'
        f'<section class="chart-sec"><h2>Scores by round</h2>'
        f'{score_chart(pages.frames, names)}</section></div>'
        '<div class="column"><section class="step-sec"><h2>This step</h2>'
        '<ul class="events" id="events"></ul><div id="next"></div></section>'
        '<section class="seats-sec"><h2>Seats</h2><div id="panel"></div></section>'
        '<section class="help">Keys: ← → a step, ↑ ↓ a round, Home / End, space plays. '
        'A step is one choice: the board as the chooser saw it, the events that led there '
        '(dimmed: chance), and the choice made next. Every hand is shown: a replay knows '
        'them all; point at a card to see it drawn (all are drawn at the foot of the page).'
        '</section></div></main>'
        '<section class="cards-sec"><h2>The cards of this game</h2><div class="gallery">'
        f'{gallery_html(pages.cards, record_cards(record), end, names)}</div></section>'
        '<div id="card-tip" role="tooltip" hidden></div>'
        f"<script>const DATA = {payload};</script>"
        f"<script>{_static('viewer.js')}</script></body></html>\n"
    )


def write_page(record: dict[str, Any], out: Path, *, title: str | None = None) -> Path:
    """Write the replay page of ``record`` at ``out``."""
    out.write_text(page(record, title=title), encoding="utf-8")
    return out


def _quiet(_: str) -> None:
    """Drops a note already given."""


def write_replays(run: Path, report: Path) -> tuple[int, list[str]]:
    """The replay pages a report links (its ``games_to_watch.csv``), from the run's records.

    Returns the number written and a sentence per game that could not be drawn; such a game
    still gets a page, saying why, so that no link of the report is dead.
    """
    import csv

    chosen = report / "games_to_watch.csv"
    if not chosen.is_file():
        return 0, []
    with chosen.open(encoding="utf-8", newline="") as f:
        wanted = {row["game"]: row["file"] for row in csv.DictReader(f)
                  if row.get("game") and row.get("file")}
    if not wanted:
        return 0, []
    # The report has re-played (or authenticated) the run's records and said what it could
    # not check: not twice.
    records = {str(r.get("game")): r for r in read_records(run, prove=False, note=_quiet)
               if str(r.get("game")) in wanted}
    problems = []
    for game, file in wanted.items():
        target = report / file
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_page(records[game], target)
        except (KeyError, RecordError) as exc:
            why = str(exc) if isinstance(exc, RecordError) else f"no game {game} in {run}"
            problems.append(why)
            target.write_text(f"<!DOCTYPE html><html lang=\"en\"><meta charset=\"utf-8\">"
                              f"<title>{escape(game)}</title><p>{escape(why)}</p></html>\n",
                              encoding="utf-8")
    return len(wanted), problems
