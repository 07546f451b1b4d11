"""Card-set files (issue 19): ``arena cards``, ``--cards`` on ``arena play``, records, replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.engine import DEFAULT_CARD_SET, RuleOptions
from arena.engine import card_files as cards
from arena.engine import components as comp

PANDA = [c.id for c in comp.CARDS if c.category == comp.PANDA_CARD]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def write(tmp_path: Path, data: Any, name: str = "set.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_help_has_examples() -> None:
    for command in (("cards",), ("play",)):
        code, out, _ = run(*command, "--help")
        assert code == 0 and "Example" in out and "--cards" in out


def test_cards_prints_every_card_and_the_emperor() -> None:
    code, out, _ = run("cards")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["id", "category", "pattern"]
    rows = {line.split()[0]: line for line in lines[1:-1]}
    assert len(rows) == len(comp.CARDS)
    assert rows["plot-01"].split()[-1] == "2" and "line: green green green" in rows["plot-01"]
    assert "eat 2 green" in rows["panda-01"]
    assert "of height" in rows["gardener-01"]
    assert lines[-1].startswith("Emperor: 2 points.")
    assert cards.summary(DEFAULT_CARD_SET, 2)["hash"] in lines[-1]


def test_cards_shows_a_files_changes(tmp_path: Path) -> None:
    path = write(tmp_path, {"name": "rich", "emperor": 5, "points": {"plot-01": 20},
                            "remove": ["panda-01"]})
    code, out, _ = run("cards", "--cards", str(path))
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()[1:-1]}
    assert rows["plot-01"].endswith("20 (printed 2)")
    assert rows["panda-01"].endswith("removed")
    assert rows["plot-02"].endswith(" 3")
    assert "Emperor: 5 points" in out and "'rich'" in out and "1 removed" in out


def test_template_round_trips_and_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "start.json"
    code, out, _ = run("cards", "--template", str(path))
    assert code == 0, out
    data = json.loads(path.read_text())
    assert data["emperor"] == 2 and len(data["points"]) == len(comp.CARDS)
    assert data["points"]["plot-03"] == 4 and data["remove"] == []
    choice = cards.load(path)
    assert choice.cards == DEFAULT_CARD_SET and choice.emperor == 2
    path.write_text("{}")
    code, _, err = run("cards", "--template", str(path))
    assert code == 2 and "exists" in err and path.read_text() == "{}"


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("not json", "is not JSON"),
        ("[1, 2]", "must be a JSON object"),
        ({"pionts": {}}, "unknown field 'pionts'"),
        ({"points": {"plot-99": 3}}, "points.plot-99"),
        ({"points": {"plot-01": -1}}, "points.plot-01 must be a whole number >= 0"),
        ({"points": {"plot-01": 2.5}}, "points.plot-01 must be a whole number >= 0"),
        ({"points": ["plot-01"]}, "points must be an object"),
        ({"remove": "plot-01"}, "remove must be a list"),
        ({"remove": ["plot-01", "plot-01"]}, "remove[1]: plot-01 is removed twice"),
        ({"remove": ["nothing"]}, "remove[0]"),
        ({"remove": PANDA}, "the panda deck keeps 0 cards"),
        ({"remove": PANDA[:14]}, "the panda deck keeps 1 card,"),
        ({"emperor": -2}, "emperor must be a whole number >= 0"),
        ({"emperor": True}, "emperor must be a whole number >= 0"),
        ({"name": 3}, "name must be a text"),
    ],
)
def test_a_bad_file_is_one_sentence_and_nothing_runs(
    tmp_path: Path, content: Any, words: str
) -> None:
    path = write(tmp_path, content)
    record = tmp_path / "game.json"
    code, out, err = run("play", "--bot", "random", "--bot", "random", "--seed", "1",
                         "--cards", str(path), "--record", str(record))
    assert code == 2, out
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
    assert str(path) in err
    assert out == "" and not record.exists()
    code, _, err2 = run("cards", "--cards", str(path))
    assert code == 2 and err2 == err


def test_a_deck_too_small_for_the_player_count_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, {"remove": PANDA[:12]})  # 3 panda cards: 2 or 3 seats only
    code, _, _ = run("play", "--bot", "random", "--bot", "random", "--bot", "random",
                     "--seed", "1", "--cards", str(path), "-q")
    assert code == 0
    code, out, err = run("play", *["--bot", "random"] * 4, "--seed", "1",
                         "--cards", str(path))
    assert code == 2 and "the panda deck keeps 3 cards" in err and "4-player" in err
    assert out == ""


def test_the_emperor_lives_in_one_place(tmp_path: Path) -> None:
    """The file's emperor sets the rule option emperor_points; both given must agree."""
    path = write(tmp_path, {"emperor": 4})
    assert cards.load(path).options(RuleOptions()).emperor_points == 4
    code, _, err = run("play", "--bot", "random", "--bot", "random", "--seed", "1",
                       "--cards", str(path), "--rule", "emperor_points=3")
    assert code == 2 and "give the Emperor's points in one place" in err
    code, _, _ = run("play", "--bot", "random", "--bot", "random", "--seed", "1", "-q",
                     "--cards", str(path), "--rule", "emperor_points=4")
    assert code == 0


def test_play_records_the_card_set_and_replay_uses_it(tmp_path: Path) -> None:
    content = {"name": "rich plots", "emperor": 3,
               "points": {"plot-01": 20, "plot-02": 3}, "remove": ["gardener-13"]}
    path = write(tmp_path, content)
    record_path = tmp_path / "game.json"
    code, out, err = run("play", "--bot", "greedy", "--bot", "random:complete=true",
                         "--seed", "4", "--cards", str(path), "--record", str(record_path))
    assert code == 0, err
    assert "card set rich plots (1 card(s) changed, 1 removed, Emperor 3)" in out
    record = json.loads(record_path.read_text())
    # plot-02 at its printed 3 is no change; the Emperor's 3 is the rule option too.
    assert record["card_set"]["changes"] == {"name": "rich plots", "emperor": 3,
                                             "points": {"plot-01": 20},
                                             "remove": ["gardener-13"]}
    assert record["options"]["emperor_points"] == 3
    choice = cards.load(path)
    assert record["card_set"]["hash"] == cards.summary(choice.cards, 3)["hash"]
    assert "gardener-13" not in {c["card"] for c in record["cards"]}
    # Scores are from the file's points (R13.3).
    points = dict(zip([c.id for c in comp.CARDS], choice.cards.points))
    for seat, done in enumerate(record["completed"]):
        emperor = 3 if record["emperor"] == seat else 0
        assert record["scores"][seat] == sum(points[c] for c in done) + emperor
    code, out, _ = run("replay", str(record_path))
    assert code == 0 and "history and result match" in out
    # The same moves under the printed set do not give the recorded result.
    plain = dict(record, card_set={"changes": {"emperor": 3}}, moves=record["moves"])
    plain_path = write(tmp_path, plain, "plain.json")
    code, _, err = run("replay", str(plain_path))
    assert code == 1 and "does not match" in err


def test_replay_refuses_an_edited_card_set(tmp_path: Path) -> None:
    path = write(tmp_path, {"points": {"plot-01": 20}})
    record_path = tmp_path / "game.json"
    assert run("play", "--bot", "random", "--bot", "random", "--seed", "2", "-q",
               "--cards", str(path), "--record", str(record_path))[0] == 0
    record = json.loads(record_path.read_text())
    record["card_set"]["changes"]["points"]["plot-01"] = 19
    edited = write(tmp_path, record, "edited.json")
    code, _, err = run("replay", str(edited))
    assert code == 2 and "card_set.hash" in err
    record["card_set"] = {"changes": {"points": {"plot-77": 1}}}
    code, _, err = run("replay", str(write(tmp_path, record, "edited2.json")))
    assert code == 2 and "plot-77" in err


def test_records_without_a_card_set_replay_with_the_printed_one(tmp_path: Path) -> None:
    record_path = tmp_path / "game.json"
    assert run("play", "--bot", "greedy", "--bot", "random", "--seed", "6", "-q",
               "--rule", "emperor_points=4", "--record", str(record_path))[0] == 0
    record = json.loads(record_path.read_text())
    assert record["card_set"]["changes"] == {"emperor": 4}
    del record["card_set"]  # a record written before card sets
    old = write(tmp_path, record, "old.json")
    code, out, _ = run("replay", str(old))
    assert code == 0 and "history and result match" in out


def test_summary_is_canonical() -> None:
    """Equal sets give equal hashes, whatever the file said (names, no-op changes)."""
    a = cards.parse({"name": "a", "points": {"plot-01": 2, "plot-15": 9}})
    b = cards.parse({"name": "b", "points": {"plot-15": 9}})
    assert cards.summary(a.cards, 2) == cards.summary(b.cards, 2)
    assert cards.summary(a.cards, 2)["hash"] != cards.summary(a.cards, 3)["hash"]
    assert cards.summary(DEFAULT_CARD_SET, 2)["hash"] != cards.summary(b.cards, 2)["hash"]
    removed = cards.parse({"remove": ["plot-15"]}).cards
    info = cards.summary(removed, 2)
    assert "plot-15" not in info["points"] and info["removed"] == ["plot-15"]
    assert len(info["hash"]) == 12 and int(info["hash"], 16) >= 0


def test_position_new_takes_a_card_set(tmp_path: Path) -> None:
    """`arena position --new --cards FILE`: the position carries the set, `legal` reads it."""
    path = write(tmp_path, {"points": {"plot-15": 7}, "remove": ["gardener-13"],
                            "emperor": 3})
    code, out, err = run("position", "--new", "--players", "3", "--seed", "7",
                         "--cards", str(path))
    assert code == 0, err
    data = json.loads(out)
    assert data["card_set"]["points"]["plot-15"] == 7
    assert data["card_set"]["remove"] == ["gardener-13"]
    assert data["options"]["emperor_points"] == 3
    start = tmp_path / "start.json"
    start.write_text(out)
    code, out, err = run("legal", str(start))
    assert code == 0 and out, err
    too_small = write(tmp_path, {"remove": PANDA[:12]}, "small.json")
    code, out, err = run("position", "--new", "--players", "4", "--cards", str(too_small))
    assert code == 2 and "4-player" in err and out == ""
