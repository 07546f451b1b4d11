"""Issue 52: the head-to-head heat map's title fits its figure, whatever the names' length."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from reports import charts


def test_the_title_is_inside_the_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["a-rather-long-participant-name", "objective", "another-very-long-name-here"]
    matrix = pd.DataFrame([[float("nan"), 0.5, 1.0], [0.5, float("nan"), 1.0],
                           [0.0, 0.0, float("nan")]], columns=names)
    matrix.insert(0, "participant", names)
    kept: dict[str, Any] = {}
    real = charts._save

    def keep(fig: Any, path: Path) -> Path:
        kept["fig"] = fig
        return real(fig, path)

    monkeypatch.setattr(charts, "_save", keep)
    charts.head_to_head(matrix, tmp_path / "h.png")
    fig = kept["fig"]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    titles = [t for t in [fig._suptitle, *(ax.title for ax in fig.axes)]
              if t is not None and "Head to head" in t.get_text()]
    assert titles
    for t in titles:
        e = t.get_window_extent(renderer)
        assert e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1, (e, box)
        assert e.y1 <= box.y1 + 1
    # and it does not run into the colour bar: its right end is left of the bar's label
    bar = fig.axes[-1].get_window_extent(renderer)
    for t in titles:
        e = t.get_window_extent(renderer)
        assert not (e.x1 > bar.x0 and e.y0 < bar.y1), "the title overlaps the colour bar"
