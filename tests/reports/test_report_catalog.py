"""The cards are known by the manifest's catalog, never by the engine; a folder written before
manifests carried it still reports, and says what it could not know."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

import reports
from arena.cli import main
from reports.balance import suggest_card_set
from reports.tables import card_set_text
from tests.reports.report_helpers import duel, kept


def edit_manifest(directory: Path, **changes: Any) -> Path:
    """Set (or, with None, delete) fields of ``directory``'s manifest."""
    path = directory / "manifest.json"
    manifest = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            manifest.pop(key, None)
        else:
            manifest[key] = value
    path.write_text(json.dumps(manifest))
    return directory


def card_row(directory: Path) -> tuple[reports.Tables, pd.DataFrame]:
    t = reports.load(directory)
    return t, reports.card_balance(t, replicates=50)["cards"].set_index("card")


def test_the_report_takes_points_and_conditions_from_the_catalog(tmp_path: Path) -> None:
    directory = duel(tmp_path / "run")
    catalog = json.loads((directory / "manifest.json").read_text())["catalog"]
    catalog[0] = {**catalog[0], "points": 7, "asks": "a pattern of this run"}
    assert catalog[0]["id"] == "plot-01" and catalog[0]["printed"] == 2
    edit_manifest(directory, catalog=catalog)
    t, cards = card_row(directory)
    assert kept(t.warnings) == []
    assert cards.loc["plot-01", "points"] == 7
    assert cards.loc["plot-01", "asks"] == "a pattern of this run"
    assert cards.loc["panda-01", "asks"] == "eat 2 green"
    assert "plot-01 2→7" in card_set_text(t)
    out = reports.write_report([directory], replicates=50)
    table = pd.read_csv(out / "cards.csv").set_index("card")
    assert table.loc["plot-01", "points"] == 7
    # The page shows the card table's essential columns; what a card asks is in the CSV and
    # in the HTML's details view.
    assert "a pattern of this run" in (out / "cards.csv").read_text()
    assert "a pattern of this run" in (out / "report.html").read_text()


def test_a_folder_without_catalog_takes_the_points_of_its_card_set(tmp_path: Path) -> None:
    directory = duel(tmp_path / "run")
    points = {f"{cat}-{i:02d}": 3 for cat in ("plot", "gardener", "panda") for i in range(1, 16)}
    edit_manifest(directory, catalog=None, card_set={
        "hash": "0123456789ab", "emperor": 2, "points": points | {"plot-01": 7},
        "removed": []})
    t, cards = card_row(directory)
    assert cards.loc["plot-01", "points"] == 7 and cards.loc["panda-01", "points"] == 3
    assert cards.loc["plot-01", "category"] == "plot" and cards.loc["plot-01", "asks"] == ""
    assert math.isnan(t.catalog.set_index("card").loc["plot-01", "printed"])
    assert any("no card catalog" in w and "card_set" in w for w in t.warnings)
    assert card_set_text(t).endswith("printed points not in the manifest")  # not claimed
    out = reports.write_report([directory], replicates=50)
    assert "no card catalog" in (out / "report.md").read_text()


def test_a_folder_without_catalog_nor_card_set_reports_without_points(
        tmp_path: Path) -> None:
    directory = edit_manifest(duel(tmp_path / "run"), catalog=None)
    t, cards = card_row(directory)
    assert [w for w in t.warnings if "neither card catalog nor card set" in w]
    # The cards seen in the games, counted; their points unknown rather than guessed.
    assert list(t.catalog["card"]) == ["plot-01", "panda-01"]
    assert (cards.loc["plot-01", "drawn"], cards.loc["plot-01", "completed"]) == (4, 3)
    assert cards.loc["plot-01", "category"] == "plot"
    assert cards["points"].isna().all() and cards["fair_value"].isna().all()
    out = reports.write_report([directory], replicates=50)
    assert "points are unknown" in (out / "report.md").read_text()
    assert (out / "cards.csv").is_file()
    with pytest.raises(reports.ReportError, match=r"not in its manifest\.json"):
        suggest_card_set(t, replicates=50)
    result = CliRunner().invoke(main, ["balance", "suggest", str(directory)])
    assert result.exit_code == 2 and "Traceback" not in result.output


@pytest.mark.parametrize(("catalog", "words"), [
    ({"plot-01": 2}, "not a list of cards"),
    ([{"id": "plot-01"}], "entry 1 is not"),
    ([{"id": "plot-01", "category": "plot", "points": -1}], "whose points is not"),
    ([{"id": "plot-01", "category": "plot"}] * 2, "lists a card twice"),
])
def test_a_bad_catalog_is_refused_in_one_sentence(tmp_path: Path, catalog: Any,
                                                  words: str) -> None:
    directory = edit_manifest(duel(tmp_path / "run"), catalog=catalog)
    with pytest.raises(reports.ReportError, match=words):
        reports.load(directory)
