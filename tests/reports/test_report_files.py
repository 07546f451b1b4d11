"""Reading damaged or partial files, and the files write_report produces."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import reports
from reports import sections, synthetic
from tests.reports.report_helpers import card, duel, kept, record, write_run


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(reports.ReportError, match="does not exist"):
        reports.load(tmp_path / "nope")


def test_missing_manifest(tmp_path: Path) -> None:
    (tmp_path / "games.jsonl").write_text("")
    with pytest.raises(reports.ReportError, match=r"no manifest\.json"):
        reports.load(tmp_path)


@pytest.mark.parametrize(("text", "match"), [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "not a JSON object"),
    ('{"file_format": "something-else/2"}', "file_format"),
    ('{"participants": [{"spec": "random"}]}', "participants"),
])
def test_invalid_manifest(tmp_path: Path, text: str, match: str) -> None:
    (tmp_path / "manifest.json").write_text(text)
    with pytest.raises(reports.ReportError, match=match) as info:
        reports.load(tmp_path)
    assert "\n" not in str(info.value)  # one sentence for the console


def test_truncated_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    games = [record(0, 0, 0, ["A", "B"], [10, 5], [0]), record(0, 0, 1, ["B", "A"], [9, 5], [0])]
    cut = json.dumps(record(0, 1, 0, ["A", "B"], [1, 2], [1]))[:57]
    t = reports.load(write_run(tmp_path, games, ["A", "B"], tail=cut))
    assert len(t.games) == 2
    w = kept(t.warnings)
    assert len(w) == 1 and "line 3" in w[0] and "cut short" in w[0]


def test_bad_line_in_the_middle_is_an_error_naming_the_line(tmp_path: Path) -> None:
    good = [record(0, 0, 0, ["A", "B"], [10, 5], [0]), record(0, 0, 1, ["B", "A"], [9, 5], [0])]
    directory = write_run(tmp_path, good, ["A", "B"])
    lines = (directory / "games.jsonl").read_text().splitlines()
    (directory / "games.jsonl").write_text(lines[0] + "\n{oops\n" + lines[1] + "\n")
    with pytest.raises(reports.ReportError, match="Line 2 of") as info:
        reports.load(directory)
    assert "strict=False" in str(info.value)
    t = reports.load(directory, strict=False)
    assert len(t.games) == 2
    assert any("line 2" in w for w in t.warnings)


def test_a_json_line_that_is_not_a_record(tmp_path: Path) -> None:
    directory = write_run(tmp_path, [record(0, 0, 0, ["A", "B"], [10, 5], [0])], ["A", "B"],
                          tail='{"game": "x", "seats": ["A", "B"], "scores": [1]}\n'
                               + json.dumps(record(0, 0, 1, ["B", "A"], [9, 5], [0])) + "\n")
    with pytest.raises(reports.ReportError, match=r"Line 2 .*one score per seat"):
        reports.load(directory)


def test_empty_and_missing_games_file(tmp_path: Path) -> None:
    t = reports.load(write_run(tmp_path / "empty", [], ["A", "B"]))
    assert len(t.games) == 0 and len(t.seats) == 0 and kept(t.warnings) == []
    (tmp_path / "empty" / "games.jsonl").unlink()
    t = reports.load(tmp_path / "empty")
    assert len(t.games) == 0 and "no games.jsonl" in kept(t.warnings)[0]
    assert reports.summary_text(t) == "no games"


def test_duplicate_games_keep_the_last_record(tmp_path: Path) -> None:
    first = record(0, 0, 0, ["A", "B"], [10, 5], [0])
    again = record(0, 0, 0, ["A", "B"], [5, 10], [1])
    t = reports.load(write_run(tmp_path, [first, again], ["A", "B"]))
    assert len(t.games) == 1
    assert t.seats["win"].tolist() == [False, True]
    assert "more than once" in kept(t.warnings)[0]


def test_records_without_the_extra_fields(tmp_path: Path) -> None:
    """A record without the fields added to it later (cards, actions, weather, the ids,
    players, options): cards come from drawn/completed, deals from the game id."""
    rec = record(2, 5, 1, ["B", "A"], [10, 5], [0],
                 cards=[card("plot-01", 0, 0, 4), card("panda-02", 1, 0, None)])
    for extra in ("cards", "actions", "weather", "pairing", "deal", "rotation", "players",
                  "options"):
        del rec[extra]
    t = reports.load(write_run(tmp_path, [rec], ["A", "B"]))
    g = t.games.iloc[0]
    assert (g["pairing"], g["deal"], g["rotation"]) == (2, 5, 1)
    c = t.cards.set_index("card")
    assert bool(c.loc["plot-01", "completed"]) and not bool(c.loc["panda-02", "completed"])
    assert pd.isna(c.loc["plot-01", "rounds_to_complete"])
    assert t.seats["plot_points"].tolist() == [2.0, 0.0]


def check_self_contained(html: str) -> None:
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", html)
    assert "<link" not in html and "@import" not in html
    # One inline script (the column sorter), nothing loaded from elsewhere.
    assert html.count("<script") == 1 and "<script>" in html and "<script src" not in html
    sources = re.findall(r"""src=["']([^"']*)""", html)
    assert sources and all(s.startswith("data:image/png;base64,") for s in sources)


def test_write_report_writes_every_file(tmp_path: Path) -> None:
    directory = duel(tmp_path / "duel")
    out = reports.write_report([directory], replicates=100)
    assert out == directory / "report"
    for name in reports.FILES:
        assert (out / name).is_file(), name
        assert (out / name).stat().st_size > 0, name
    html = (out / "report.html").read_text()
    check_self_contained(html)
    assert html.count("<img") == 7
    md = (out / "report.md").read_text()
    assert "![Win rate per participant](win_rates.png)" in md
    # Four deals: the Wilson interval (0.562 [0.259, 0.826]) is computed, but the report
    # withholds it (fewer than 10 deals) and says how many games would carry it.
    raw = reports.standings(reports.load(directory)).set_index("participant")
    assert raw.loc["A", "win_rate_lo"] == pytest.approx(0.2591, abs=1e-3)
    assert raw.loc["A", "win_rate_hi"] == pytest.approx(0.8255, abs=1e-3)
    assert "0.562 (CI needs ~20 games)" in md and "0.562 [0.259" not in md
    standings = pd.read_csv(out / "standings.csv")
    assert standings["win_rate"].tolist() == [0.5625, 0.4375]
    assert standings["win_rate_lo"].isna().all()
    assert standings["win_rate_games_needed"].tolist() == [20, 20]
    summary = (out / "summary.txt").read_text().splitlines()
    # First who signed the run (this one: nobody), then the headline and the standings.
    assert summary[0].startswith("Not signed")
    assert summary[1].startswith("Best: A, 56.2%") and "How sure: not yet" in summary[3]
    assert summary[6].startswith("A")
    assert (out / "win_rates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_write_report_on_no_games(tmp_path: Path) -> None:
    directory = write_run(tmp_path / "none", [], ["A", "B"])
    out = reports.write_report([directory], out=tmp_path / "elsewhere")
    assert out == tmp_path / "elsewhere"
    for name in reports.FILES:
        assert (out / name).is_file(), name
    assert "**No games**" in (out / "report.md").read_text()
    check_self_contained((out / "report.html").read_text())


def test_write_report_with_errors_capped_games_and_four_players(tmp_path: Path) -> None:
    directory = synthetic.write_tournament(
        tmp_path / "four", participants=["w", "x", "y", "z", "v"], players=4, games=300,
        error_rate=0.05)
    t = reports.load(directory)
    assert t.games["error"].sum() > 0
    out = reports.write_report([t], replicates=100)
    assert {p.name for p in out.iterdir()} >= set(reports.FILES)
    ratings = pd.read_csv(out / "ratings.csv")
    assert {"mu", "sigma", "ordinal", "elo"} <= set(ratings.columns)
    errors = pd.read_csv(out / "errors.csv")
    assert len(errors) == int(t.games["error"].sum())
    paired = pd.read_csv(out / "paired.csv")
    assert {"0", "2", "4"} <= set(paired.columns)  # half-point bins up to 4 rotations


def test_compare_two_runs(tmp_path: Path) -> None:
    """Run 1: A wins 6 of 8; run 2 (another rule option): A wins 2 of 8."""
    def run(name: str, a_wins: int, options: dict[str, str]) -> Path:
        games = []
        for i in range(8):
            rot = i % 2
            seats = ["A", "B"] if rot == 0 else ["B", "A"]
            a_seat = seats.index("A")
            winner = a_seat if i < a_wins else 1 - a_seat
            games.append(record(0, i // 2, rot, seats, [10, 10], [winner], tiebreak="panda",
                                panda=[3, 3], cards=[card("plot-01", winner, 0, 4)]))
        return write_run(tmp_path / name, games, ["A", "B"], options=options)

    base = run("default", 6, {})
    other = run("redraw", 2, {"redraw_satisfied": "all"})
    out = reports.write_report([base, other], replicates=100)
    assert out == base / "report-compare"
    # Newcombe: Wilson(6/8) = [0.4093, 0.9285], Wilson(2/8) = [0.0715, 0.5907];
    # lo = -0.5 - sqrt((0.25 - 0.0715)² + (0.9285 - 0.75)²) = -0.7524,
    # hi = -0.5 + sqrt((0.5907 - 0.25)² + (0.75 - 0.4093)²) = -0.0182.
    runs = sections.Runs([reports.load(base), reports.load(other)], 100)
    raw = runs.get(sections.standings_compared)["standings"].set_index("participant").loc["A"]
    assert raw["Δwin_rate[redraw]_lo"] == pytest.approx(-0.7524, abs=1e-3)
    assert raw["Δwin_rate[redraw]_hi"] == pytest.approx(-0.0182, abs=1e-3)
    # ... which four deals do not carry: the report shows the difference, no interval and no
    # significance, and how many games would carry one.
    standings = pd.read_csv(out / "compare_standings.csv").set_index("participant")
    a = standings.loc["A"]
    assert a["win_rate[default]"] == 0.75 and a["win_rate[redraw]"] == 0.25
    assert a["Δwin_rate[redraw]"] == pytest.approx(-0.5)
    assert pd.isna(a["Δwin_rate[redraw]_lo"]) and pd.isna(a["Δwin_rate[redraw]_hi"])
    assert a["Δwin_rate[redraw]_games_needed"] == 20
    options = pd.read_csv(out / "options.csv")
    assert options["option"].tolist() == ["redraw_satisfied"]
    md = (out / "report.md").read_text()
    assert "No win rate difference is tested: too few deals" in md
    assert "A (redraw: -0.500)" not in md
    check_self_contained((out / "report.html").read_text())
    for name in ("compare_win_rates.png", "compare_cards.png", "compare_seats.png",
                 "compare_head_to_head.csv",
                 "compare_rounds.png", "compare_cards.csv", "compare_game_shape.csv"):
        assert (out / name).is_file(), name
    summary = (out / "summary.txt").read_text()
    assert "default" in summary and "redraw" in summary


def test_line_order_does_not_change_any_figure(tmp_path: Path) -> None:
    """Workers finish games in any order; the tables depend on the games only."""
    ordered = duel(tmp_path / "ordered")
    lines = (ordered / "games.jsonl").read_text().splitlines(keepends=True)
    shuffled = tmp_path / "shuffled"
    shuffled.mkdir()
    (shuffled / "manifest.json").write_text((ordered / "manifest.json").read_text())
    (shuffled / "games.jsonl").write_text("".join(lines[3:] + lines[:3][::-1]))
    a, b = reports.load(ordered), reports.load(shuffled)
    assert a.games["game"].tolist() == b.games["game"].tolist() == sorted(a.games["game"])
    pd.testing.assert_frame_equal(a.seats, b.seats)
    ra, rb = reports.ratings(a, replicates=200), reports.ratings(b, replicates=200)
    pd.testing.assert_frame_equal(ra["ratings"], rb["ratings"])
    pd.testing.assert_frame_equal(reports.paired(a), reports.paired(b))
    pd.testing.assert_frame_equal(reports.card_balance(a)["cards"],
                                  reports.card_balance(b)["cards"])


def test_single_game_records_are_not_duplicates(tmp_path: Path) -> None:
    games = [record(0, 0, 0, ["A", "B"], [10, 5], [0]), record(0, 0, 0, ["A", "B"], [5, 9], [1])]
    for g in games:
        g["game"] = "play"
        del g["pairing"], g["deal"], g["rotation"]
    games[1]["seed"] = 99
    t = reports.load(write_run(tmp_path, games, ["A", "B"]))
    assert len(t.games) == 2 and kept(t.warnings) == []
    assert t.games["deal_key"].nunique() == 2  # different seeds, different deals


def test_bad_records_name_their_line(tmp_path: Path) -> None:
    """Issue 21: strangers, a blamed seat that does not exist, absurd manifests, clashes."""
    good = record(0, 0, 0, ["A", "B"], [10, 5], [0])
    stranger = record(0, 1, 0, ["A", "Z"], [10, 5], [0])
    with pytest.raises(reports.ReportError, match=r"Line 2 .*'Z', who is not in manifest"):
        reports.load(write_run(tmp_path / "s", [good, stranger], ["A", "B"]))
    ghost = record(0, 1, 0, ["A", "B"], [10, 5], [0],
                   error={"seat": 7, "kind": "crash", "message": "x"})
    with pytest.raises(reports.ReportError, match=r"Line 2 .*blaming seat 7"):
        reports.load(write_run(tmp_path / "g", [good, ghost], ["A", "B"]))
    # Two tournaments' records in one file: the same id, another seed.
    other = dict(good, seed=12345)
    with pytest.raises(reports.ReportError, match=r"Lines 1 and 2 .*000-0000-0"):
        reports.load(write_run(tmp_path / "c", [good, other], ["A", "B"]))
    t = reports.load(tmp_path / "c", strict=False)
    assert len(t.games) == 2 and "new ids" in kept(t.warnings)[0]
    path = write_run(tmp_path / "m", [good], ["A", "B"])
    manifest = json.loads((path / "manifest.json").read_text())
    (path / "manifest.json").write_text(json.dumps(manifest | {"players": 1000000000}))
    with pytest.raises(reports.ReportError, match="'players': 1000000000"):
        reports.load(path)


def test_old_format_records_do_not_show_every_card_completed(tmp_path: Path) -> None:
    rec = record(0, 0, 0, ["A", "B"], [10, 5], [0], cards=[card("plot-01", 0, 0, 4)])
    del rec["cards"], rec["drawn"]
    t = reports.load(write_run(tmp_path, [rec], ["A", "B"]))
    assert len(t.cards) == 0 and "older format" in kept(t.warnings)[0]
    assert len(t.games) == 1


def test_names_are_escaped_and_csv_formulas_neutralised(tmp_path: Path) -> None:
    names = ["<b>x</b>", "=HYPERLINK(1)"]
    games = [record(0, 0, 0, names, [10, 5], [0]), record(0, 0, 1, names[::-1], [5, 10], [1])]
    out = reports.write_report([write_run(tmp_path / "r", games, names)], replicates=20)
    md = (out / "report.md").read_text()
    # Markdown escapes a tag with a backslash (no entity a terminal would show as "&lt;").
    assert "<b>x</b>" not in md and "\\<b>x\\</b>" in md and "&lt;" not in md
    standings = (out / "standings.csv").read_text()
    assert "'=HYPERLINK(1)" in standings and "\n=HYPERLINK" not in standings


def test_a_rating_clipped_at_the_bound_is_shown_as_such(tmp_path: Path) -> None:
    games = []
    for d in range(20):
        games += [record(0, d, 0, ["A", "B"], [10, 5], [0]),
                  record(0, d, 1, ["B", "A"], [5, 10], [1]),
                  record(1, d, 0, ["A", "C"], [10, 5], [0] if d % 3 else [1]),
                  record(1, d, 1, ["C", "A"], [5, 10], [1]),
                  record(2, d, 0, ["B", "C"], [10, 5], [1]),
                  record(2, d, 1, ["C", "B"], [5, 10], [0])]
    t = reports.load(write_run(tmp_path, games, ["A", "B", "C"]))
    st = reports.standings(t, reports.ratings(t, replicates=100)["ratings"])
    text = reports.summary_text(st)
    assert "< -999" in text  # B never won
    r = st.set_index("participant")
    assert r.loc["B", "elo_clipped"] and not r.loc["A", "elo_clipped"]
    for who in ("A", "C"):
        assert r.loc[who, "elo_lo"] <= r.loc[who, "elo"] <= r.loc[who, "elo_hi"]


def test_the_command_on_a_run_without_games_is_one_sentence(tmp_path: Path) -> None:
    """``arena report`` on a run that has not finished a game: one sentence, exit 2, and no
    report of empty tables (the library still writes one, for scripts)."""
    from click.testing import CliRunner

    from arena.cli import main

    directory = write_run(tmp_path / "empty", [], ["A", "B"])
    result = CliRunner().invoke(main, ["report", str(directory)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "no finished game yet" in result.output
    assert len([line for line in result.output.splitlines() if line.startswith("Error")]) == 1
    assert not (directory / "report").exists()


@pytest.mark.parametrize("games", [2, 8, 60])
def test_no_runtime_warning_reaches_the_terminal(tmp_path: Path, games: int) -> None:
    """Small runs (one deal, a few, some dozens) are where numpy meets 0/0: every such case
    is handled, so nothing but the command's own lines reaches stderr, and report.md has no
    "-0", no float noise and no HTML entity."""
    import subprocess
    import sys

    from reports import synthetic

    run = synthetic.write_tournament(tmp_path / "run", participants=["A", "B", "C"], players=2,
                                     games=games, seed=4, signed=True)
    done = subprocess.run([sys.executable, "-m", "arena", "report", str(run)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # The synthetic run is written without MACs: the command's notice of it is its own.
    own = "without MACs: its records are not authenticated"
    stderr = "\n".join(line for line in done.stderr.splitlines()
                       if own not in line and not line.startswith("  warnings.warn"))
    assert "Warning" not in stderr, done.stderr
    md = (run / "report" / "report.md").read_text()
    assert "&lt;" not in md and "&amp;" not in md
    assert not re.search(r"(?<![\w.])-0(\.0+)?(?![\d.])", md), "a -0 in report.md"
    assert not re.search(r"\de-1[0-9]", md), "float noise in report.md"
