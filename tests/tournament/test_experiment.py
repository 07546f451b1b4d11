"""The card experiment's schedule and its games: blocks of one deal, price arms, levels, the
intervention kept in every record and placed again by a replay."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import orjson
import pytest

from arena.engine import CATEGORIES, ENGINE
from arena.engine.components import CARD_INDEX
from arena.play.intervention import InterventionError, Placement, from_record
from arena.play.match import python_loop
from arena.play.registry import BotSpec, make_bot
from arena.play.seat import participant_seats
from arena.show.replay import RecordError, replay_record
from arena.tournament import RunSettings, run_tournament
from arena.tournament.experiment import CardExperiment, games_per_deal
from arena.tournament.native_games import NativeGames
from arena.tournament.runner import config_from_manifest
from arena.tournament.schedule import ScheduleError, TournamentConfig, make_schedule


def _config(design: CardExperiment, seed: int = 5, **fields: object) -> TournamentConfig:
    specs = tuple(BotSpec.parse(s) for s in (
        "random:complete=true,name=R", "random:complete=true,name=R#1",
        "random:name=Q", "random:name=Q#1"))
    return TournamentConfig(specs, games=1, seed=seed, experiment=design, **fields)  # type: ignore[arg-type]


def test_blocks_share_the_deal_and_differ_by_the_card_placed() -> None:
    design = CardExperiment(levels=((0, 1), (2, 3)), deals=3, categories=(0, 2),
                            priced=("plot-02", "panda-10"))
    config = _config(design)
    schedule = make_schedule(config)
    assert schedule.total == games_per_deal(config, design) * 3
    assert games_per_deal(config, design) == 2 * (15 + 2 + 15 + 2)
    blocks: dict[tuple[int, int, int], list] = {}
    for g in schedule.games:
        meta = g.meta()
        blocks.setdefault((meta["level"], g.pairing % 3, g.deal), []).append(g)
    for (level, k, deal), games in blocks.items():
        assert {g.seed for g in games} == {games[0].seed}  # one deal per block
        subject = deal % 2
        block = [g for g in games if g.cards is None]
        in_category = [c for c in CARD_INDEX if c.startswith(CATEGORIES[k])]
        for seat in (0, 1):  # every seat holds each card of the category once per deal
            held = [p.card for g in block for p in g.intervention if p.seat == seat]
            assert sorted(held) == in_category
        assert all(g.intervention[0] == Placement(g.meta()["placed"], seat=0) for g in block)
        assert all(g.intervention[0].card != g.intervention[1].card for g in block)
        priced = [g for g in games if g.cards is not None]
        assert all(g.intervention == (Placement(g.meta()["placed"], seat=subject),)
                   for g in priced)
        assert all(g.seats[subject] == (0, 2)[level] for g in games)
        assert Counter(g.meta()["placed"] for g in block) == Counter(in_category)
        for g in priced:
            card = CARD_INDEX[g.meta()["placed"]]
            assert g.cards.points[card] == g.meta()["price"] != config.cards.points[card]
    # Levels play the same deals; categories their own.
    seeds = {(g.meta()["level"], g.pairing % 3, g.deal): g.seed for g in schedule.games}
    assert seeds[(0, 0, 1)] == seeds[(1, 0, 1)] != seeds[(0, 2, 1)]
    # Deal by deal: the first games are all of deal 0.
    assert [g.deal for g in schedule.games] == sorted(g.deal for g in schedule.games)
    assert [g.index for g in schedule.games] == list(range(schedule.total))
    assert len({g.id for g in schedule.games}) == schedule.total


def test_prices_never_below_zero_and_each_once() -> None:
    design = CardExperiment(levels=((0, 1),), deals=1, offsets=(-3, -2, 3))
    config = _config(design)
    assert design.prices(config, CARD_INDEX["plot-01"]) == [0, 5]  # 2 points: 0, 0, 5
    assert design.prices(config, CARD_INDEX["gardener-13"]) == [5, 6, 11]


@pytest.mark.parametrize("bad, message", [
    ({"deals": 0}, "at least 1 deal"),
    ({"levels": ((0, 7),)}, "seats 2 participants"),
    ({"priced": ("plot-99",)}, "not an objective card"),
    ({"priced": ("gardener-01",), "categories": (0,)}, "not in a category"),
    ({"offsets": (0, 3)}, "other than 0"),
    ({"depth": 13}, "--depth must be"),
])
def test_bad_designs_are_one_sentence(bad: dict, message: str) -> None:
    fields = {"levels": ((0, 1),), "deals": 1, **bad}
    with pytest.raises(ScheduleError, match=message):
        _config(CardExperiment(**fields))


def test_games_carry_the_intervention_and_replay(tmp_path: Path) -> None:
    design = CardExperiment(levels=((0, 1),), deals=2, categories=(2,), priced=("panda-03",))
    config = _config(design)
    result = run_tournament(config, tmp_path / "x", settings=RunSettings(workers=1,
                                                                       progress="none"))
    assert result.finished and result.done == 2 * 17
    records = [json.loads(line) for line in (tmp_path / "x" / "games.jsonl").open()]
    for record in records:
        for place in record["intervention"]:  # each placed card is in its seat's deal
            assert place["card"] in record["drawn"][place["seat"]]
            assert record["cards"][3 * place["seat"] + 2]["card"] == place["card"]
        if record["arm"] == "price":
            assert record["intervention"] == [{"card": record["placed"],
                                               "seat": record["subject"]}]
        replay = replay_record(record)
        assert replay.ok, replay.problems
    priced = [r for r in records if r["arm"] == "price"]
    assert {r["price"] for r in priced} == {0, 6}
    assert all(r["card_set"]["changes"]["points"] == {"panda-03": r["price"]} for r in priced)
    # A study resumes from its manifest alone, as a tournament does.
    manifest = json.loads((tmp_path / "x" / "manifest.json").read_text())
    assert manifest["experiment"]["kind"] == "card-value"
    assert config_from_manifest(manifest) == config


def test_a_replay_refuses_a_damaged_intervention() -> None:
    with pytest.raises(InterventionError, match=r"intervention\[0\]\.card"):
        from_record({"intervention": [{"card": "plot-99", "seat": 0}]})
    with pytest.raises(InterventionError, match="exactly one"):
        from_record({"intervention": [{"card": "plot-01"}]})
    record = {"seats": ["a", "b"], "seed": 1, "moves": [],
              "intervention": [{"card": "plot-01", "seat": 5}]}
    with pytest.raises(RecordError, match="intervention: seat 5"):
        replay_record(record)


@pytest.mark.skipif(ENGINE != "native", reason="native batches")
def test_native_batches_play_an_experiment_as_the_python_loop_does() -> None:
    """A study's games between native bots play in native batches (``native_games.py``):
    each with its placements and, for a price arm, its own card set; the lines are the
    Python loop's, byte for byte but the measured seconds."""
    design = CardExperiment(levels=((0, 1), (2, 3)), deals=2, categories=(1, 2),
                            priced=("gardener-04", "panda-12"))
    config = _config(design, seed=9)
    schedule = make_schedule(config)
    games = NativeGames(schedule, participant_seats(config.participants), log_faults=False)
    assert all(games.plays(g) for g in schedule.games)
    lines: dict[int, str] = {}
    games.play(range(schedule.total), lambda done: lines.update(
        (index, line) for index, line, _ in done))
    assert sorted(lines) == list(range(schedule.total))
    seconds = re.compile(r'"seconds":\[[^\]]*\]')
    for game in schedule.games:
        bots = [make_bot(config.participants[p], game.seed, seat)
                for seat, p in enumerate(game.seats)]
        loop = python_loop(bots, game.seed, config.options, schedule.names(game), None, None,
                           (), game.meta(), None,
                           config.cards if game.cards is None else game.cards,
                           game.intervention)
        expected = orjson.dumps(loop.record).decode()
        assert seconds.sub("", lines[game.index]) == seconds.sub("", expected), game.id


@pytest.mark.skipif(ENGINE != "native", reason="native batches")
def test_a_worker_batches_only_what_the_one_table_sends_to_the_core() -> None:
    """A worker asks ``LOOP_REASONS`` (through ``batch_plays``), not a check of its own:
    an all-native game whose placement the core cannot read (a depth beyond 64 bits) is
    not batched; the same game with a depth the core reads is."""
    from dataclasses import replace

    from arena.play.intervention import Placement

    design = CardExperiment(levels=((0, 1),), deals=1, categories=(0,), priced=())
    config = _config(design, seed=9)
    schedule = make_schedule(config)
    games = NativeGames(schedule, participant_seats(config.participants), log_faults=False)
    game = schedule.games[0]
    assert games.plays(replace(game, intervention=(Placement("plot-01", depth=3),)))
    assert not games.plays(replace(game, intervention=(Placement("plot-01", depth=2**64),)))
    # A participant that is not native (a Python seat) keeps every game from the batch.
    python = NativeGames(schedule, [None] * len(config.participants), log_faults=False)
    assert not python.plays(game)


def test_keyed_deals_key_a_study_s_seeds_and_shifts() -> None:
    """A study with keyed deals (untrusted bots): its seeds are the keyed deals and the
    shifts (what the other seats are given) are keyed too, so the master seed tells a bot
    neither; without a key both are the public ones."""
    from dataclasses import replace

    from arena.play.seeds import deal_seed, keyed_deal_seed

    design = CardExperiment(levels=((0, 1),), deals=3, categories=(0,), priced=())
    public = make_schedule(_config(design))
    assert {g.seed for g in public.games} == {deal_seed(5, 0, d) for d in range(3)}
    key = bytes(range(32))
    keyed = make_schedule(replace(_config(design), deal_key=key))
    assert {g.seed for g in keyed.games} == {keyed_deal_seed(key, 5, 0, d) for d in range(3)}

    def others(schedule: object) -> list[str]:
        return [g.intervention[1].card for g in schedule.games]  # type: ignore[attr-defined]

    assert others(keyed) != others(public)
