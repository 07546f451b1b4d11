"""The pictures fit where they are shown and say what they mean (issue 42): the board SVG
scales to its container, seat colours cannot be taken for plot colours, and a card chip in
the replay page says what the card asks."""

from __future__ import annotations

import colorsys
import itertools
import random
import re
import xml.etree.ElementTree as ET

from arena.engine import CARDS, new_game
from arena.show.browser import _size
from arena.show.svg import BAMBOO, DRY, FILL, SEAT_COLOURS, board_svg
from arena.show.viewer import card_asks, panel_html


def _hsv(colour: str) -> tuple[float, float, float]:
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hsv(r, g, b)


def test_the_board_scales_to_its_container() -> None:
    state = new_game(3, 5)
    rng = random.Random(5)
    for _ in range(60):
        state.apply(rng.choice(state.legal_actions()))
    svg = board_svg(state)
    root = ET.fromstring(svg)
    assert root.get("width") == "100%" and root.get("height") is None
    _x, _y, w, h = (float(v) for v in root.get("viewBox", "").split())
    natural = re.search(r"max-width:(\d+)px", root.get("style", ""))
    assert natural and int(natural[1]) == round(w * 1.4)
    # a renderer that needs pixels still gets the natural size
    assert _size(svg) == (round(w * 1.4), round(h * 1.4))


def test_seat_colours_are_not_plot_colours() -> None:
    plots = [*FILL.values(), *DRY.values(), *BAMBOO.values()]
    for seat in SEAT_COLOURS:
        hs, ss, _vs = _hsv(seat)
        for plot in plots:
            hp, _sp, _vp = _hsv(plot)
            hue = min(abs(hs - hp), 1 - abs(hs - hp)) * 360
            # a grey-blue seat may share a hue; a saturated one must stand 25° away
            assert hue >= 25 or ss < 0.35, (seat, plot, hue)
    for a, b in itertools.combinations(SEAT_COLOURS, 2):
        assert sum(abs(int(a[i:i + 2], 16) - int(b[i:i + 2], 16)) for i in (1, 3, 5)) > 120


def test_a_card_chip_says_what_the_card_asks() -> None:
    state = new_game(2, 3)
    page = panel_html(state, ["a", "b"])
    # a chip names its card for the page's pop-up (its drawing) and says it in words
    chips = re.findall(r'class="chip [^"]*" data-card="([^"]*)" tabindex="0" '
                       r'aria-label="([^"]*)">([^<]*)<', page)
    assert len(chips) == 6
    for card, label, text in chips:
        assert card == text and label.startswith(f"{card}: ") and label.endswith(" pts")
    index = next(i for i, c in enumerate(CARDS) if c.id == "panda-03")
    assert card_asks("panda-03") == f"panda-03: eat {' + '.join(_eats(index))}, " \
                                     f"{CARDS[index].points} pts"
    table = {"panda-03": ("panda", {"id": "panda-03", "eat": {"green": 2}}, 9)}
    assert card_asks("panda-03", table) == "panda-03: eat 2 green, 9 pts"
    assert card_asks("panda?") == "a panda objective, hidden"


def _eats(index: int) -> list[str]:
    colours = ("green", "yellow", "pink")
    return [f"{n} {colours[k]}" for k, n in enumerate(CARDS[index].eat) if n]
