"""R12: the option table (``arena/data/options.json``) builds RuleOptions, its parsing
from text and from JSON, and every error sentence.

The sentences are written out in full here: the native core fills the same templates, and
these are the texts both must give."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

import pytest

from arena.engine import DEFAULTS, OPTION_NAMES, OptionError, RuleOptions
from arena.engine.options import (
    ERRORS,
    OPTION_SPECS,
    OPTIONS,
    TYPES,
    _load_table,
    _read_table,
    option_text,
)

#: For every option, texts it takes on a command line and the typed value of each.
GOOD_TEXT: dict[str, list[tuple[str, Any]]] = {
    "cloud_keep": [("true", True), ("false", False), ("yes", True), ("No", False), ("1", True),
                   ("0", False)],
    "cloud_when_empty": [("other_weather", "other_weather"),
                         ("move_improvement", "move_improvement")],
    "redraw_satisfied": [("none", "none"), ("plot_gardener", "plot_gardener"), ("all", "all")],
    "gardener_on_shoot": [("true", True), ("false", False), ("YES", True), ("0", False)],
    "bamboo_supply": [("unlimited", "unlimited"), ("limited", "limited")],
    "objectives_to_end": [("7", ((2, 7), (3, 7), (4, 7))), ("1", ((2, 1), (3, 1), (4, 1))),
                          ("2:5", ((2, 5), (3, 8), (4, 7))),
                          ("4:6,2:5", ((2, 5), (3, 8), (4, 6))),
                          ("2:10,3:11,4:12", ((2, 10), (3, 11), (4, 12)))],
    "emperor_points": [("0", 0), ("2", 2), ("+7", 7), ("12", 12)],
    "max_rounds": [("1", 1), ("60", 60), ("200", 200)],
}

#: For every option, a bad text and the sentence that refuses it.
BAD_TEXT: dict[str, list[tuple[str, str]]] = {
    "cloud_keep": [("maybe", "rule option cloud_keep must be true or false, not 'maybe'"),
                   ("", "rule option cloud_keep must be true or false, not ''")],
    "cloud_when_empty": [
        ("move", "rule option cloud_when_empty cannot be 'move' (valid values: other_weather, "
                 "move_improvement)")],
    "redraw_satisfied": [
        ("some", "rule option redraw_satisfied cannot be 'some' (valid values: none, "
                 "plot_gardener, all)"),
        ("None", "rule option redraw_satisfied cannot be 'None' (valid values: none, "
                 "plot_gardener, all)")],
    "gardener_on_shoot": [("2", "rule option gardener_on_shoot must be true or false, not '2'")],
    "bamboo_supply": [
        ("plenty", "rule option bamboo_supply cannot be 'plenty' (valid values: unlimited, "
                   "limited)")],
    "objectives_to_end": [
        (text, "rule option objectives_to_end must be N or 2:N,3:N,4:N, each N a whole number "
               f">= 1, not {text!r}")
        for text in ("0", "2:0", "5:3", "2:5,2:6", "2:x", "x", "2:", ":5", "2:5,", "2.5", "2:9;3:8")
    ],
    "emperor_points": [
        ("-1", "rule option emperor_points must be a whole number >= 0, not '-1'"),
        ("two", "rule option emperor_points must be a whole number >= 0, not 'two'"),
        ("2.0", "rule option emperor_points must be a whole number >= 0, not '2.0'")],
    "max_rounds": [
        ("0", "rule option max_rounds must be a whole number >= 1, not '0'"),
        ("1_000", "rule option max_rounds must be a whole number >= 1, not '1_000'"),
        ("", "rule option max_rounds must be a whole number >= 1, not ''")],
}

#: For every option, a bad JSON value and the sentence that refuses it.
BAD_JSON: dict[str, list[tuple[Any, str]]] = {
    "cloud_keep": [("true", 'rule option cloud_keep must be true or false, not "true"'),
                   (1, "rule option cloud_keep must be true or false, not 1")],
    "cloud_when_empty": [
        (None, "rule option cloud_when_empty cannot be null (valid values: other_weather, "
               "move_improvement)")],
    "redraw_satisfied": [
        ("some", 'rule option redraw_satisfied cannot be "some" (valid values: none, '
                 "plot_gardener, all)")],
    "gardener_on_shoot": [(None, "rule option gardener_on_shoot must be true or false, not null")],
    "bamboo_supply": [
        (["limited"], 'rule option bamboo_supply cannot be ["limited"] (valid values: '
                      "unlimited, limited)")],
    "objectives_to_end": [
        (value, "rule option objectives_to_end needs a whole number >= 1 for each of 2, 3 and 4 "
                f'players, e.g. {{"2":9,"3":8,"4":7}}, not {shown}')
        for value, shown in (
            ({"2": 9}, '{"2":9}'),
            ({"2": 9, "3": 8, "4": 0}, '{"2":9,"3":8,"4":0}'),
            ({"2": 9, "3": 8, "4": 7, "5": 6}, '{"2":9,"3":8,"4":7,"5":6}'),
            ({"2": 9, "3": 8, "4": True}, '{"2":9,"3":8,"4":true}'),
            ({"2": 9, "3": 8, "4": 7.5}, '{"2":9,"3":8,"4":7.5}'),
            ("2:9,3:8,4:7", '"2:9,3:8,4:7"'),
            (7, "7"),
        )
    ],
    "emperor_points": [
        (-1, "rule option emperor_points must be a whole number >= 0, not -1"),
        (True, "rule option emperor_points must be a whole number >= 0, not true"),
        (2.0, "rule option emperor_points must be a whole number >= 0, not 2.0"),
        ("2", 'rule option emperor_points must be a whole number >= 0, not "2"')],
    "max_rounds": [(0, "rule option max_rounds must be a whole number >= 1, not 0")],
}

VALID_OPTIONS = ("cloud_keep, cloud_when_empty, redraw_satisfied, gardener_on_shoot, "
                 "bamboo_supply, objectives_to_end, emperor_points, max_rounds")


def test_R12_every_option_is_covered_here() -> None:
    assert set(GOOD_TEXT) == set(BAD_TEXT) == set(BAD_JSON) == set(OPTION_NAMES)


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_R12_every_option_parses_from_text_and_from_json(name: str) -> None:
    spec = OPTION_SPECS[name]
    for text, value in GOOD_TEXT[name]:
        options = RuleOptions.from_pairs([f"{name}={text}"])
        assert getattr(options, name) == value, text
        # The same value from JSON, from the record's own form, and from its command-line text.
        as_json = json.loads(json.dumps(options.to_dict()))
        assert RuleOptions.from_dict({name: as_json[name]}) == options
        assert RuleOptions.from_dict(as_json) == options
        assert RuleOptions.from_pairs([f"{name}={option_text(name, value)}"]) == options
        assert RuleOptions(**{name: value}) == options
        assert hash(RuleOptions(**{name: value})) == hash(options)
        changed = options.to_dict(only_changed=True)
        assert changed == ({} if value == spec.default else {name: as_json[name]})


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_R12_every_bad_text_is_one_sentence_from_the_templates(name: str) -> None:
    for text, sentence in BAD_TEXT[name]:
        with pytest.raises(OptionError) as caught:
            RuleOptions.from_pairs([f"{name}={text}"])
        assert str(caught.value) == sentence


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_R12_every_bad_json_value_is_one_sentence_from_the_templates(name: str) -> None:
    for value, sentence in BAD_JSON[name]:
        with pytest.raises(OptionError) as caught:
            RuleOptions.from_dict({name: value})
        assert str(caught.value) == sentence
        # A value given to the constructor is refused with the same sentence.
        if not isinstance(value, dict):
            with pytest.raises(OptionError) as caught:
                RuleOptions(**{name: value})
            assert str(caught.value) == sentence


@pytest.mark.parametrize(("call", "sentence"), [
    (lambda: RuleOptions.from_pairs(["foo"]), "rule 'foo' is not of the form NAME=VALUE"),
    (lambda: RuleOptions.from_pairs(["=true"]), "rule '=true' is not of the form NAME=VALUE"),
    (lambda: RuleOptions.from_pairs(["speed=2"]),
     f"unknown rule option 'speed' (valid options: {VALID_OPTIONS})"),
    (lambda: RuleOptions.from_dict({"speed": 2}),
     f'unknown rule option "speed" (valid options: {VALID_OPTIONS})'),
    (lambda: RuleOptions.from_pairs(["max_rounds=8", " max_rounds = 9"]),
     "rule option max_rounds is given twice"),
    (lambda: RuleOptions.from_dict([["max_rounds", 8]]),  # type: ignore[arg-type]
     "options must be an object of rule option names to values"),
    (lambda: RuleOptions(objectives_to_end=((3, 8), (2, 9), (4, 7))),
     "rule option objectives_to_end needs a whole number >= 1 for each of 2, 3 and 4 players, "
     'e.g. {"2":9,"3":8,"4":7}, not [[3,8],[2,9],[4,7]]'),
    (lambda: RuleOptions(objectives_to_end=9),  # type: ignore[arg-type]
     "rule option objectives_to_end needs a whole number >= 1 for each of 2, 3 and 4 players, "
     'e.g. {"2":9,"3":8,"4":7}, not 9'),
])
def test_R12_the_sentences_of_no_one_option(call: Any, sentence: str) -> None:
    with pytest.raises(OptionError) as caught:
        call()
    assert str(caught.value) == sentence


def test_every_template_is_one_of_the_table_and_fills_known_fields() -> None:
    import string

    known = {"name", "given", "values", "names", "minimum", "maximum", "players", "pattern",
             "example"}
    assert set(ERRORS) == {"not_pair", "unknown", "twice", "not_object", "per_players_text",
                           "too_big", *TYPES}
    for key, template in ERRORS.items():
        used = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
        assert used <= known, key


def test_the_fields_of_RuleOptions_are_the_table() -> None:
    """Names, order, types and defaults: the import checks it, and so does this test."""
    assert [(f.name, f.type) for f in fields(RuleOptions)] == [
        (spec.name, TYPES[spec.type]) for spec in OPTIONS
    ]
    raw = {entry["name"]: entry["default"] for entry in _read_table()["options"]}
    assert DEFAULTS.to_dict() == raw == RuleOptions().to_dict()


@pytest.mark.parametrize(("change", "words"), [
    ({"type": "float"}, "type must be one of bool, choice, int, per_players"),
    ({"name": "two words"}, "the name must be an identifier"),
    ({"values": ["a"]}, "a int entry has exactly"),
    ({"minimum": "1"}, "minimum must be a whole number"),
    ({"default": 0}, "its default is refused: rule option max_rounds must be a whole number"),
    ({"rules": "R12"}, "rules must be a list of rule IDs"),
    ({"help": ""}, "help must say what the option changes"),
])
def test_a_bad_table_entry_stops_the_import(change: dict[str, Any], words: str) -> None:
    data = _read_table()
    entry = next(e for e in data["options"] if e["name"] == "max_rounds")
    entry.update(change)
    with pytest.raises(ValueError, match=words):
        _load_table(data)


def test_a_table_without_a_template_or_with_a_name_twice_is_refused() -> None:
    data = _read_table()
    del data["errors"]["twice"]
    with pytest.raises(ValueError, match="errors must be exactly"):
        _load_table(data)
    data = _read_table()
    data["options"].append(dict(data["options"][0]))
    with pytest.raises(ValueError, match="named twice"):
        _load_table(data)
