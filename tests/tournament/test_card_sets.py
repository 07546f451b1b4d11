"""``arena tournament --cards FILE`` (issue 19): the manifest and records carry the card set,
``--resume`` checks it, a bad file stops the run before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

from arena.engine import DEFAULT_CARD_SET
from arena.engine import card_files as cards
from arena.engine import components as comp
from arena.show.replay import replay_record
from tests.unsigned import unsign

from .conftest import FAST, read_records, run_cli

PAIR = ["--bot", "random", "--bot", "random:complete=true"]


def _file(tmp_path: Path, data: object, name: str = "set.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_manifest_and_records_carry_the_card_set(tmp_path: Path) -> None:
    content = {"name": "cheap pandas", "emperor": 4,
               "points": {f"panda-{i:02d}": 1 for i in range(1, 16)},
               "remove": ["plot-15", "gardener-13"]}
    path = _file(tmp_path, content)
    out = tmp_path / "run"
    result = run_cli([*PAIR, "--games", "2", "--seed", "3", "--quiet", "--workers", "2",
                      "--cards", str(path), "--out", str(out), *FAST])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    card_set = manifest["card_set"]
    assert card_set["emperor"] == 4 and manifest["options"]["emperor_points"] == 4
    assert card_set["removed"] == ["plot-15", "gardener-13"]
    assert len(card_set["points"]) == len(comp.CARDS) - 2
    assert card_set["points"]["panda-07"] == 1 and card_set["points"]["plot-01"] == 2
    assert len(card_set["hash"]) == 12
    assert card_set["changes"]["name"] == "cheap pandas"
    records = read_records(out)
    assert len(records) == 2
    for record in records:
        assert record["card_set"]["hash"] == card_set["hash"]
        assert record["card_set"]["changes"]["remove"] == ["plot-15", "gardener-13"]
        drawn = {c["card"] for c in record["cards"]}
        assert not drawn & {"plot-15", "gardener-13"}
        assert replay_record(record).ok
    # --resume DIR reads the card set back from the manifest.
    again = run_cli(["--resume", str(out), "--quiet"])
    assert again.exit_code == 0 and "Nothing left to play" in again.output


def test_the_manifest_carries_the_card_catalog(tmp_path: Path) -> None:
    """Every card in deck order, as the reports need it (they never read the engine)."""
    path = _file(tmp_path, {"points": {"plot-01": 7}, "remove": ["gardener-13"]})
    out = tmp_path / "run"
    result = run_cli([*PAIR, "--games", "2", "--seed", "3", "--quiet", "--cards", str(path),
                      "--out", str(out), *FAST])
    assert result.exit_code == 0, result.output
    catalog = json.loads((out / "manifest.json").read_text())["catalog"]
    assert [e["id"] for e in catalog] == [c.id for c in comp.CARDS]
    first = catalog[0]
    assert first == {"id": "plot-01", "category": "plot", "asks": "line: green green green",
                     "printed": 2, "points": 7, "removed": False}
    by_id = {e["id"]: e for e in catalog}
    assert by_id["gardener-13"]["removed"] and by_id["gardener-13"]["category"] == "gardener"
    assert by_id["panda-13"]["asks"] == by_id["panda-15"]["asks"] == \
        "eat 1 green + 1 yellow + 1 pink"
    assert all(e["points"] == e["printed"] for e in catalog if e["id"] != "plot-01")


def test_resume_adds_the_catalog_to_an_older_manifest(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run_cli([*PAIR, "--games", "2", "--seed", "4", "--quiet", "--out", str(out),
                    *FAST]).exit_code == 0
    manifest = json.loads((unsign(out) / "manifest.json").read_text())
    written = manifest.pop("catalog")
    (out / "manifest.json").write_text(json.dumps(manifest))
    result = run_cli(["--resume", str(out), "--quiet"])
    assert result.exit_code == 0 and "Nothing left to play" in result.output
    assert json.loads((out / "manifest.json").read_text())["catalog"] == written


def test_resume_refuses_another_card_set_naming_it(tmp_path: Path) -> None:
    first = _file(tmp_path, {"points": {"plot-15": 7}}, "a.json")
    other = _file(tmp_path, {"points": {"plot-15": 6}, "remove": ["panda-02"]}, "b.json")
    same = _file(tmp_path, {"name": "renamed", "points": {"plot-15": 7, "plot-01": 2}},
                 "c.json")
    out = tmp_path / "run"
    args = [*PAIR, "--games", "2", "--seed", "5", "--quiet", "--out", str(out), *FAST]
    assert run_cli([*args, "--cards", str(first)]).exit_code == 0
    result = run_cli([*args, "--cards", str(other), "--resume"])
    assert result.exit_code == 2
    assert "different card set" in result.stderr
    assert "plot-15 7, not 6" in result.stderr and "panda-02 3, not removed" in result.stderr
    # The same set under another name and with a no-op change is the same set.
    assert run_cli([*args, "--cards", str(same), "--resume"]).exit_code == 0
    # The printed set is another set too.
    plain = run_cli([*args, "--resume", "--cards", str(_file(tmp_path, {}, "d.json"))])
    assert plain.exit_code == 2 and "plot-15 7, not 5" in plain.stderr


def test_a_manifest_from_before_card_sets_resumes(tmp_path: Path) -> None:
    """Old manifests have no card_set (the printed cards) and their Emperor in options."""
    out = tmp_path / "run"
    args = [*PAIR, "--games", "4", "--seed", "6", "--quiet", "--out", str(out), *FAST,
            "--rule", "emperor_points=3"]
    assert run_cli(args).exit_code == 0
    manifest = json.loads((unsign(out) / "manifest.json").read_text())
    assert manifest["card_set"]["emperor"] == 3
    assert manifest["card_set"]["hash"] == cards.summary(DEFAULT_CARD_SET, 3)["hash"]
    del manifest["card_set"]
    manifest["finished"] = None
    (out / "manifest.json").write_text(json.dumps(manifest))
    lines = (out / "games.jsonl").read_text().splitlines(keepends=True)
    (out / "games.jsonl").write_text("".join(lines[:3]))
    result = run_cli(["--resume", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert len(read_records(out)) == 4
    result = run_cli([*args, "--resume"])
    assert result.exit_code == 0, result.output


def test_a_bad_card_file_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    panda = [c.id for c in comp.CARDS if c.category == comp.PANDA_CARD]
    for content, words in (({"points": {"plot-01": -3}}, "points.plot-01"),
                           ({"remove": panda[:12]}, "--cards: remove: the panda deck keeps 3"),
                           ({"emperor": 5}, "in one place")):
        path = _file(tmp_path, content)
        result = run_cli([*PAIR, "--bot", "random:name=third", "--players", "4",
                          "--cards", str(path), "--rule", "emperor_points=3",
                          "--out", str(out), "--quiet"])
        assert result.exit_code == 2, result.output
        assert words in result.stderr and result.stderr.count("\n") == 1
        assert not out.exists()
