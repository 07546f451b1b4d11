"""The SVG of a position is checked against the position by parsing it: every plot with its
colour, irrigation, improvement and bamboo, every channel on the edge its two plots share,
the gardener and the panda inside their plots' hexes, every open space, every seat's score.

The geometry is read from the picture itself (the polygons' points), not from the renderer's
functions, so a channel drawn across a hex instead of on its edge fails."""

from __future__ import annotations

import itertools
import json
import random
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.engine import COLOURS, IMPROVEMENTS, GameState, PlayerView, grid, new_game, to_position
from arena.engine.components import POND_TILE
from arena.show.svg import board_svg

NS = "{http://www.w3.org/2000/svg}"


def random_states(players: int, seed: int, every: int = 37) -> list[GameState]:
    """States a random game goes through (every ``every`` choices, and its end)."""
    rng = random.Random(seed)
    state = new_game(players, seed)
    out = []
    n = 0
    while not state.ended:
        if n % every == 0:
            out.append(state.copy())
        state.apply(rng.choice(state.legal_actions()))
        n += 1
    out.append(state)
    return out


def points(text: str) -> list[tuple[float, float]]:
    return [tuple(map(float, p.split(","))) for p in text.split()]  # type: ignore[misc]


def inside(x: float, y: float, polygon: list[tuple[float, float]]) -> bool:
    """Whether a point is inside a convex polygon (on the same side of every edge)."""
    signs = set()
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1]):
        signs.add((x2 - x1) * (y - y1) - (y2 - y1) * (x - x1) > 0)
    return len(signs) == 1


def near(p: tuple[float, float], polygon: list[tuple[float, float]]) -> bool:
    return any(abs(p[0] - x) < 0.2 and abs(p[1] - y) < 0.2 for x, y in polygon)


def check(svg: str, board: GameState | PlayerView) -> None:
    root = ET.fromstring(svg)
    hexes: dict[str, list[tuple[float, float]]] = {}
    plots = {}
    for g in root.iter(NS + "g"):
        cls = g.get("class")
        if cls in ("plot", "pond"):
            polygon = g.find(NS + "polygon")
            assert polygon is not None
            hexes[g.get("data-cell")] = points(polygon.get("points"))  # type: ignore[index,arg-type]
            if cls == "plot":
                plots[g.get("data-cell")] = g
    expected = {grid.cell_text(c): code for c, code in board.tiles.items() if code != POND_TILE}
    assert set(plots) == set(expected)
    assert "0,0" in hexes
    for where, code in expected.items():
        g = plots[where]
        cell = grid.parse_cell(where)
        assert g.get("data-colour") == COLOURS[code >> 2]
        assert g.get("data-irrigated") == str(cell in board.irrigated).lower()
        improvement = board.improvement.get(cell, 0)
        assert g.get("data-improvement") == (IMPROVEMENTS[improvement] if improvement else "")
        sections = [r for r in g.iter(NS + "rect") if r.get("class") == "section"]
        assert len(sections) == board.bamboo[cell] == int(g.get("data-bamboo"))  # type: ignore[arg-type]
    channels = {}
    for line in root.iter(NS + "line"):
        if line.get("data-edge"):
            channels[line.get("data-edge")] = line
    assert set(channels) == {grid.edge_text(e) for e in board.channels}
    for edge, line in channels.items():
        ends = [(float(line.get("x1")), float(line.get("y1"))),  # type: ignore[arg-type]
                (float(line.get("x2")), float(line.get("y2")))]  # type: ignore[arg-type]
        for cell in edge.split("|"):
            assert all(near(p, hexes[cell]) for p in ends), (edge, cell)
    figures = {g.get("data-figure"): g for g in root.iter(NS + "g")
               if g.get("class") == "figure"}
    assert set(figures) == {"gardener", "panda"}
    for name, cell in (("gardener", board.gardener), ("panda", board.panda)):
        g = figures[name]
        assert g.get("data-cell") == grid.cell_text(cell)
        circles = [(float(c.get("cx")), float(c.get("cy")), float(c.get("r")))  # type: ignore[arg-type]
                   for c in g.iter(NS + "circle")]
        for x, y, _r in circles:
            assert inside(x, y, hexes[grid.cell_text(cell)]), name
    spaces = {p.get("data-cell") for p in root.iter(NS + "polygon")
              if p.get("class") == "space"}
    assert spaces == {grid.cell_text(c) for c in board.placement_spaces()}
    scores = {int(t.get("data-seat")): int(t.get("data-score"))  # type: ignore[arg-type]
              for t in root.iter(NS + "text") if t.get("data-seat") is not None}
    assert scores == dict(enumerate(board.scores()))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_svg_shows_every_plot_channel_and_figure_where_the_position_has_it(
        players: int) -> None:
    checked = 0
    for seed in range(3):
        for state in random_states(players, seed):
            check(board_svg(state, [f"bot {i}" for i in range(players)]), state)
            checked += 1
    assert checked > 20


def test_a_view_is_drawn_with_its_own_hand_and_the_others_by_category() -> None:
    state = random_states(3, 5)[3]
    view = PlayerView.of(state, 1)
    svg = board_svg(view)
    check(svg, view)
    from arena.engine import CARDS

    mine = [CARDS[c].id for c in state.hands[1]]
    theirs = [CARDS[c].id for c in state.hands[0] + state.hands[2]]
    assert all(card in svg for card in mine)
    assert not any(card in svg for card in theirs if card not in mine
                   and all(card not in [CARDS[c].id for c in done] for done in state.completed))


def test_a_drawing_with_improvements_on_tiles_and_tokens() -> None:
    """A game long enough to have printed improvements and tokens, checked at its end."""
    for seed in range(20):
        state = random_states(2, seed, every=10_000)[-1]
        printed = [c for c in state.improvement if state.tiles[c] & 3]
        tokens = state.token_improvements()
        if printed and tokens and state.channels:
            check(board_svg(state), state)
            return
    pytest.fail("no random game had printed and token improvements and channels")


def test_show_writes_svg_and_refuses_bad_files(tmp_path: Path) -> None:
    state = random_states(2, 1)[4]
    position = tmp_path / "p.json"
    position.write_text(json.dumps(to_position(state)))
    out = tmp_path / "p.svg"
    result = CliRunner().invoke(main, ["show", str(position), "--svg", str(out)])
    assert result.exit_code == 0, result.output
    check(out.read_text(), state)
    bad = tmp_path / "bad.json"
    for text in ("{", '{"format": "takenoko-position/9"}', "[]"):
        bad.write_text(text)
        result = CliRunner().invoke(main, ["show", str(bad), "--svg", str(out)])
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        assert len(result.stderr.strip().splitlines()) == 1
    result = CliRunner().invoke(main, ["show", str(tmp_path / "none.json")])
    assert result.exit_code == 2


def test_png_without_a_renderer_is_one_sentence(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    position = tmp_path / "p.json"
    position.write_text(json.dumps(to_position(new_game(2, 3))))
    monkeypatch.setenv("ARENA_CHROMIUM", str(tmp_path / "no-browser"))
    monkeypatch.setitem(sys.modules, "cairosvg", None)
    result = CliRunner().invoke(main, ["show", str(position), "--png", str(tmp_path / "p.png")])
    assert result.exit_code == 2
    assert "--png needs a headless browser or cairosvg" in result.stderr
    assert not (tmp_path / "p.png").exists()


def test_play_writes_a_frame_at_the_start_and_after_every_turn(tmp_path: Path) -> None:
    from arena.show.replay import replay_record

    frames, record = tmp_path / "frames", tmp_path / "game.json"
    result = CliRunner().invoke(main, ["play", "--bot", "greedy", "--bot", "random", "--seed",
                                       "4", "-q", "--frames", str(frames), "--record",
                                       str(record)])
    assert result.exit_code == 0, result.output
    written = sorted(frames.glob("turn-*.svg"))
    moves = [m for m in json.loads(record.read_text())["moves"] if not m.startswith("*")]
    turns = sum(1 for a, b in itertools.pairwise(moves) if a.split()[0] != b.split()[0]) + 1
    assert len(written) == turns + 1
    end = replay_record(json.loads(record.read_text())).state
    check(written[-1].read_text(), end)
    check(written[0].read_text(), new_game(2, 4))
