"""The schedule: pairings, seat rotations, game ids and seeds, all computed up front."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.engine import RuleOptions
from arena.play.registry import BotSpec
from arena.play.seeds import bot_seed, deal_seed, derive_seed
from arena.tournament.schedule import (
    ScheduleError,
    SprtParams,
    TournamentConfig,
    against_copies,
    balanced_lineups,
    make_schedule,
    pairings,
)


def config(n: int = 2, **kwargs: object) -> TournamentConfig:
    specs = tuple(BotSpec.parse(f"random:name=P{i}") for i in range(n))
    return TournamentConfig(specs, **kwargs)  # type: ignore[arg-type]


def test_seeds_are_stable_across_processes_and_versions() -> None:
    # A fixed value: changing the derivation would silently change every tournament.
    assert derive_seed("deal", 1, 0, 0) == derive_seed("deal", 1, 0, 0)
    assert derive_seed("deal", 1, 0, 0) == 6729284057250090040
    assert derive_seed("deal", 1, 0, 1) != derive_seed("deal", 1, 0, 0)
    assert 0 <= bot_seed(123, 1, "P0") < 2**63
    assert bot_seed(123, 0, "P0") != bot_seed(123, 1, "P0") != bot_seed(123, 1, "P1")


def test_seeds_are_the_derivation_docs_tournaments_md_spells_out() -> None:
    """The values another implementation checks itself against (docs/tournaments.md): the
    parts as text joined by U+001F, BLAKE2b with an 8-byte digest, big-endian, shifted by 1."""
    import hashlib

    def by_hand(text: str) -> int:
        digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
        return int.from_bytes(digest, "big") >> 1

    assert deal_seed(1, 0, 0) == by_hand("deal\x1f1\x1f0\x1f0") == 6729284057250090040
    assert bot_seed(7, 0, "greedy") == by_hand("bot\x1f7\x1f0\x1fgreedy") == 6546394872698250891
    assert bot_seed(7, 1, "random:complete=true") == 4596341331609484975
    assert bot_seed(-3, 2, "é") == by_hand("bot\x1f-3\x1f2\x1fé") == 6682915463800261682
    schedule = make_schedule(config(2, seed=1))
    assert schedule.games[0].seed == deal_seed(1, 0, 0)


def test_keyed_deal_seeds_are_the_hmac_docs_tournaments_md_spells_out() -> None:
    """Keyed deals: HMAC-SHA256 under the deal key of the same text, 8 bytes, shifted by 1."""
    import hashlib
    import hmac
    from dataclasses import replace

    from arena.play.seeds import deal_key_check, keyed_deal_seed

    key = bytes(32)
    digest = hmac.new(key, b"deal\x1f1\x1f0\x1f0", hashlib.sha256).digest()[:8]
    assert keyed_deal_seed(key, 1, 0, 0) == int.from_bytes(digest, "big") >> 1 \
        == 345656363264544594
    assert deal_key_check(key) == "88fd42d71693"
    keyed = make_schedule(replace(config(2, seed=1), deal_key=key))
    assert keyed.games[0].seed == 345656363264544594 != deal_seed(1, 0, 0)
    assert make_schedule(replace(config(2, seed=1), deal_key=b"")).games[0].seed \
        == deal_seed(1, 0, 0)  # b"": public deals on purpose


def test_games_are_rounded_up_to_whole_rotations_and_ids_follow_the_record_format() -> None:
    schedule = make_schedule(config(2, games=5, players=2, seed=9))
    assert schedule.deals == 3 and schedule.total == 6
    ids = [g.id for g in schedule.games]
    assert ids == ["000-0000-0", "000-0000-1", "000-0001-0", "000-0001-1",
                   "000-0002-0", "000-0002-1"]
    for game in schedule.games:
        assert game.meta() == {"game": game.id, "pairing": 0, "deal": game.deal,
                               "rotation": game.rotation}
    # Both rotations of a deal share its seed; the seats are swapped.
    first, second = schedule.games[:2]
    assert first.seed == second.seed and first.seats == (0, 1) and second.seats == (1, 0)
    assert len({g.seed for g in schedule.games}) == 3


def test_round_robin_plays_every_combination() -> None:
    assert pairings(4, 2, "round-robin") == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert pairings(4, 3, "round-robin") == [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
    schedule = make_schedule(config(4, games=4, players=3))
    assert schedule.total == 4 * 3 * 2  # 4 pairings, 2 deals, 3 rotations


def test_gauntlet_plays_the_first_against_each_other() -> None:
    assert pairings(4, 2, "gauntlet") == [(0, 1), (0, 2), (0, 3)]
    assert pairings(3, 3, "gauntlet") == [(0, 0, 1), (0, 1, 1), (0, 0, 2), (0, 2, 2)]


def test_copies_fill_the_table_evenly_and_every_participant_plays_every_seat() -> None:
    assert balanced_lineups([0, 1], 4) == [(0, 0, 1, 1)]
    assert balanced_lineups([0, 1], 3) == [(0, 0, 1), (0, 1, 1)]
    assert balanced_lineups([0, 1, 2], 4) == [(0, 0, 1, 2), (0, 1, 1, 2), (0, 1, 2, 2)]
    for n, players in ((2, 4), (4, 4)):
        schedule = make_schedule(config(n, games=players, players=players))
        seat_counts: Counter[tuple[int, int]] = Counter()
        for game in schedule.games:
            # The rotations of one deal are all different seatings.
            assert len(game.seats) == players
            for seat, who in enumerate(game.seats):
                seat_counts[(who, seat)] += 1
        # Each participant sits in each seat equally often over the whole schedule.
        per_seat = {who: {seat_counts[(who, s)] for s in range(players)} for who in range(n)}
        assert all(len(counts) == 1 for counts in per_seat.values()), per_seat
        total = {who: sum(seat_counts[(who, s)] for s in range(players)) for who in range(n)}
        assert len(set(total.values())) == 1, total
        for deal in range(schedule.deals):
            seatings = [g.seats for g in schedule.games if g.deal == deal and g.pairing == 0]
            assert len(set(seatings)) == players


def test_order_is_deal_major_and_indices_are_positions() -> None:
    schedule = make_schedule(config(3, games=4))
    assert [g.index for g in schedule.games] == list(range(schedule.total))
    assert [g.deal for g in schedule.games] == sorted(g.deal for g in schedule.games)


def test_schedule_is_a_pure_function_of_the_config() -> None:
    a = make_schedule(config(3, games=6, seed=4, options=RuleOptions(max_rounds=8)))
    b = make_schedule(config(3, games=6, seed=4, options=RuleOptions(max_rounds=8)))
    assert a.games == b.games
    c = make_schedule(config(3, games=6, seed=5))
    assert [g.seed for g in a.games] != [g.seed for g in c.games]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 5}, "--players"),
        ({"games": 0}, "--games"),
        ({"format": "swiss"}, "--format"),
        ({"move_time": 0.0}, "--move-time"),
    ],
)
def test_bad_configurations_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        config(2, **kwargs)


def test_duplicate_names_and_sprt_misuse_are_refused() -> None:
    twice = (BotSpec.parse("random"), BotSpec.parse("random"))
    with pytest.raises(ScheduleError, match="named 'random'"):
        TournamentConfig(twice)
    with pytest.raises(ScheduleError, match="--sprt needs exactly two"):
        config(3, sprt=SprtParams(0, 20))
    with pytest.raises(ScheduleError, match="--sprt needs exactly two"):
        config(2, players=3, sprt=SprtParams(0, 20))
    with pytest.raises(ScheduleError, match="elo0 < elo1"):
        SprtParams.parse("elo0=10,elo1=5")
    with pytest.raises(ScheduleError, match="elo1"):
        SprtParams.parse("elo0=0")
    with pytest.raises(ScheduleError, match="elo0 is given twice"):
        SprtParams.parse("elo0=1,elo0=2,elo1=20")
    assert SprtParams.parse("elo0=0,elo1=20,alpha=0.1") == SprtParams(0, 20, 0.1, 0.05)


def test_against_copies_names_the_copies_and_keeps_the_subject_apart() -> None:
    config = against_copies(BotSpec.parse("mcts:c=0.1"), BotSpec.parse("objective"), 4,
                            games=6, seed=3)
    assert config.names == ["mcts:c=0.1", "objective#1", "objective#2", "objective#3"]
    assert (config.players, config.games, config.seed) == (4, 6, 3)
    # The same spec on both sides: the subject is renamed, the copies still tell apart.
    same = against_copies(BotSpec.parse("greedy"), BotSpec.parse("greedy"))
    assert same.names == ["greedy (A)", "greedy#1"]


def test_uneven_seats_are_refused() -> None:
    """3 participants at 4 seats would give one of them two seats in every game."""
    for n, players in ((3, 4), (2, 3)):
        with pytest.raises(ScheduleError, match=f"--players {players} with {n} participants"):
            config(n, players=players)
