"""The k-seat Swiss anchored to a resolvable design: no repeated meeting in any tournament
where the round-robin design has none (issue 11), and what happens when the field changes."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from arena.tournament import anchor
from arena.tournament.anchor import anchored_round
from arena.tournament.designs import resolvable
from arena.tournament.grouping import Cost, counter_met
from arena.tournament.pairing import History, RoundPlan, round_robin, swiss_round
from arena.tournament.placing import (
    Placing,
    by_isomorphism,
    class_profile,
    design_for,
    embed,
    meeting_profile,
)
from arena.tournament.store import Store
from tests.tournament.test_changes import cut_after, resume
from tests.tournament.test_runner import config, run
from tests.tournament.test_schedules import (
    assert_once_per_round,
    names,
    play_table_swiss,
    repeated_tables,
)

ANCHORED = [(9, 3, 4), (15, 3, 7), (16, 4, 5), (25, 5, 6), (21, 3, 10)]
"""(bots, seats, rounds): fields with a perfect resolvable design, all its rounds played."""


@pytest.mark.parametrize(("n", "size", "rounds"), ANCHORED)
def test_an_anchored_swiss_never_repeats_a_meeting_in_any_tournament(n: int, size: int,
                                                                     rounds: int) -> None:
    # before: 15 / 3 / 7 repeated at 19 of 105 tables over 3 seeds, the design at none
    for seed in range(3):
        plans = play_table_swiss(n, size, rounds, seed)
        design = round_robin(names(n), size, size, 1, seed, rounds)
        assert repeated_tables(plans)[0] == 0 == repeated_tables(design)[0], seed


def test_every_pair_meets_exactly_once_when_the_swiss_plays_all_the_design_rounds() -> None:
    plans = play_table_swiss(15, 3, 7, seed=4)
    met = History.of(plans).meetings
    assert len(met) == 15 * 14 // 2 and set(met.values()) == {1}


def relabelled(n: int, size: int, seed: int) -> list[list[list[str]]]:
    design = resolvable(names(n), size, random.Random(seed))
    assert design is not None
    return design


@pytest.mark.parametrize(("n", "size"), [(9, 3), (15, 3), (16, 4), (25, 5), (27, 3)])
def test_the_rounds_of_any_relabelled_design_fit_it(n: int, size: int) -> None:
    design = design_for(n, size)
    assert design is not None
    rounds = relabelled(n, size, seed=n)
    for count in (1, 2, len(rounds)):
        rng = random.Random(count)
        played = rng.sample(rounds, count)
        placing = embed(design, played)
        assert placing is not None
        assert sorted(placing.point.values()) == list(range(n))
        for tables, kind in zip(played, placing.kind, strict=True):
            blocks = {design.block[kind][placing.point[b]] for b in tables[0]}
            assert len(blocks) == 1  # the table is one block of its round's class
            assert all(len({design.block[kind][placing.point[b]] for b in t}) == 1
                       for t in tables)
        assert len(set(placing.kind)) == count


def test_rounds_that_repeat_a_meeting_never_fit() -> None:
    design = design_for(9, 3)
    assert design is not None
    first = [["a", "b", "c"], ["d", "e", "f"], ["g", "h", "i"]]
    again = [["a", "b", "d"], ["c", "e", "g"], ["f", "h", "i"]]
    assert embed(design, [first, again]) is None
    other = [["a", "d", "g"], ["b", "e", "h"], ["c", "f", "i"]]
    assert embed(design, [first, other]) is not None


def test_a_failed_search_stops_at_its_budget() -> None:
    # a 15-bot field of three rounds, the third a repeat: the search gives up, and
    # gives up at once with a budget of one assignment
    design = design_for(15, 3)
    assert design is not None
    rounds = relabelled(15, 3, seed=1)
    bad = [rounds[0], rounds[1], rounds[0]]
    assert embed(design, bad) is None
    assert embed(design, rounds[:3], budget=1) is None
    assert embed(design, rounds[:3]) is not None


def anchored(ranked: list[str], plans: list[RoundPlan],
             candidates: tuple[list[list[str]], ...] = ()) -> list[list[str]] | None:
    history = History.of(plans)
    met = counter_met(history.meetings)
    cost = Cost(met, {b: i for i, b in enumerate(ranked)})
    return anchored_round(ranked, history.tables, cost, met, random.Random(0), candidates)


def test_the_anchor_holds_only_where_a_design_covers_the_rounds() -> None:
    bots = names(15)
    plans = play_table_swiss(15, 3, 7, seed=0)
    assert anchored(bots, plans[:2]) is not None
    assert anchored(bots, plans[:6]) is not None  # the design's last round
    assert anchored(bots, plans) is None  # all 7 played: every pair has met
    assert anchored(bots, []) is None  # round 1: any grouping is a class of the design
    bigger = names(18)
    assert anchored(bigger, play_table_swiss(18, 3, 2, seed=0)) is None  # no design
    # the Kirkman system of 63 is beyond the search (anchor.TRIPLES_FIELD): round 1 fixes
    # its placing (anchor.fixed_round)
    assert design_for(63, 3) is not None
    assert anchored(names(63), play_table_swiss(63, 3, 2, seed=0)) is not None


def test_a_swiss_longer_than_the_design_repeats_only_after_its_rounds() -> None:
    # 9 bots at tables of 3, 6 rounds: the affine plane has 4; rounds 5 and 6 repeat at
    # every table (everyone has met everyone), as the design's own rounds 5 and 6 do
    plans = play_table_swiss(9, 3, 6, seed=1)
    assert repeated_tables(plans[:4])[0] == 0
    assert repeated_tables(plans) == repeated_tables(round_robin(names(9), 3, 3, 1, 1, 6))


def test_a_field_change_drops_the_anchor_and_the_swiss_goes_on() -> None:
    # 16 bots at tables of 4 (the affine plane of order 4): after round 2 one bot
    # withdraws and another enters; the field has a design's size again, but its rounds
    # are not partitions of it, so the anchor is dropped and the Swiss pairs as unanchored
    plans = play_table_swiss(16, 4, 2, seed=3)
    field = [b for b in names(16) if b != "b03"] + ["late"]
    assert anchored(field, plans) is None
    plan = swiss_round(3, field, History.of(plans), 4, 4, 1, None, 3)
    assert_once_per_round(plan)
    assert {b for t in plan.tables for b in t.bots} == set(field)
    # a withdrawal alone (15 bots at tables of 4 or 3) has no design at all
    short = [b for b in names(16) if b != "b03"]
    assert anchored(short, plans) is None
    assert_once_per_round(swiss_round(3, short, History.of(plans), 4, 3, 1, None, 3))


def test_the_unanchored_round_is_played_when_it_fits_and_not_when_it_does_not() -> None:
    # round 2 of 9 bots at tables of 3: grouping the three winners, the three seconds and
    # the three thirds keeps the design completable; it is played
    first = [["b0", "b1", "b2"], ["b3", "b4", "b5"], ["b6", "b7", "b8"]]
    plan = RoundPlan.from_json({"round": 1, "byes": [], "tables": [[t] for t in first]})
    ranked = ["b0", "b3", "b6", "b1", "b4", "b7", "b2", "b5", "b8"]
    ideal = [["b0", "b3", "b6"], ["b1", "b4", "b7"], ["b2", "b5", "b8"]]
    assert anchored(ranked, [plan], (ideal,)) == ideal
    # a candidate that repeats round 1's meetings is never played, however close in rank
    cheap = [["b0", "b1", "b2"], ["b3", "b4", "b5"], ["b6", "b7", "b8"]]
    tables = anchored(sorted(ranked), [plan], (cheap,))
    assert tables is not None and tables != cheap
    assert repeated_tables([plan, RoundPlan.from_json(
        {"round": 2, "byes": [], "tables": [[t] for t in tables]})])[0] == 0


def test_an_anchored_round_is_the_same_every_time_it_is_paired() -> None:
    # a resumed Swiss recomputes each round from the stored ones: it must pair identically
    plans = play_table_swiss(15, 3, 4, seed=2)
    points = Counter({b: i % 5 for i, b in enumerate(names(15))})
    ranked = sorted(names(15), key=lambda b: (-points[b], b))
    first = swiss_round(5, ranked, History.of(plans), 3, 3, 1, dict(points), 3)
    again = swiss_round(5, ranked, History.of(plans), 3, 3, 1, dict(points), 3)
    assert first == again
    assert repeated_tables([*plans, first])[0] == 0


def test_fields_above_the_search_take_the_placing_round_1_fixes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(anchor, "TRIPLES_FIELD", 8)
    monkeypatch.setattr(anchor, "ANCHOR_FIELD", 15)
    for n, size in ((9, 3), (15, 3), (16, 4)):
        plans = play_table_swiss(n, size, (n - 1) // (size - 1), seed=1)
        # unanchored, 15 / 3 / 7 repeats at about one table in six (docs/tournaments.md)
        assert repeated_tables(plans)[0] == 0, n
        design = design_for(n, size)
        assert design is not None
        first = sorted(sorted(t.bots) for t in plans[0].tables)
        at = {p: b for t, block in zip(first, design.members[0], strict=True)
              for b, p in zip(t, block, strict=True)}
        classes = {frozenset(frozenset(at[p] for p in block) for block in blocks)
                   for blocks in design.members}
        assert all(frozenset(frozenset(t.bots) for t in plan.tables) in classes
                   for plan in plans)
    assert anchored(names(9), play_table_swiss(9, 3, 2, seed=0)) is not None
    monkeypatch.setattr(anchor, "FIXED_FIELD", 8)
    assert anchored(names(9), play_table_swiss(9, 3, 2, seed=0)) is None


def test_round_1_placing_takes_the_kirkman_system_of_63_through_all_its_rounds() -> None:
    # the search could not place its rounds again (68 of 651 tables repeated, 20 s a round)
    assert repeated_tables(play_table_swiss(63, 3, 31, seed=0))[0] == 0


def test_a_hint_leads_the_search_to_its_placing_where_that_fits() -> None:
    design = design_for(9, 3)
    assert design is not None
    rounds = relabelled(9, 3, seed=5)
    found = embed(design, rounds[:2])
    assert found is not None
    again = embed(design, rounds[:2], Placing(found.point, ()))
    assert again is not None and again.point == found.point


def stored_rounds(out: Path) -> list[RoundPlan]:
    store = Store.open(out, None)
    try:
        return store.rounds()
    finally:
        store.close()


def test_a_resumed_anchored_swiss_pairs_as_an_uninterrupted_one(tmp_path: Path) -> None:
    # 9 bots at tables of 3, all 4 rounds of the affine plane: stopped after round 2 and
    # resumed, the run pairs rounds 3 and 4 from the stored rounds exactly as before
    cfg = config("swiss", extra="rounds: 4\n", bots=9, seats=3)
    rows = run(cfg, tmp_path / "one", concurrency=1)
    run(cfg, tmp_path / "two", concurrency=1)
    cut_after(tmp_path / "two", 2)
    resume(cfg, tmp_path / "two")
    assert stored_rounds(tmp_path / "two") == stored_rounds(tmp_path / "one")
    assert run(cfg, tmp_path / "two", resume=True) == rows
    assert repeated_tables(stored_rounds(tmp_path / "one"))[0] == 0
    assert set(History.of(stored_rounds(tmp_path / "one")).meetings.values()) == {1}


def test_a_withdrawal_from_an_anchored_swiss_goes_on_unanchored(tmp_path: Path) -> None:
    cfg = config("swiss", extra="rounds: 4\n", bots=9, seats=3)
    run(cfg, tmp_path, concurrency=1)
    cut_after(tmp_path, 2)
    resume(cfg, tmp_path, withdraw=("bot4",))
    plans = stored_rounds(tmp_path)
    assert [p.round for p in plans] == [1, 2, 3, 4]
    eight = {f"bot{i}" for i in range(9)} - {"bot4"}
    for plan in plans[2:]:  # eight bots: tables of 3, 3 and 2 (the toy game's least)
        assert_once_per_round(plan)
        assert sorted(len(t.bots) for t in plan.tables) == [2, 3, 3] and not plan.byes
        assert {b for t in plan.tables for b in t.bots} == eight


@pytest.mark.parametrize(("n", "size", "count"), [(15, 3, 2), (15, 3, 5), (16, 4, 3),
                                                  (27, 3, 3)])
def test_the_isomorphism_fallback_places_whole_rounds_of_a_relabelled_design(
        n: int, size: int, count: int) -> None:
    design = design_for(n, size)
    assert design is not None
    played = random.Random(count).sample(relabelled(n, size, seed=count), count)
    placing = by_isomorphism(design, played)
    assert placing is not None and sorted(placing.point.values()) == list(range(n))
    for tables, kind in zip(played, placing.kind, strict=True):
        assert all(len({design.block[kind][placing.point[b]] for b in t}) == 1
                   for t in tables)
    # a partial round is not whole: the fallback does not place it
    assert by_isomorphism(design, [*played[:1], played[1][:1]]) is None


def crossing(first: list[list[str]], second: list[list[str]]) -> tuple[object, object]:
    def parts(tables: list[list[str]]) -> dict[str, int]:
        return {b: i for i, t in enumerate(tables) for b in t}

    return meeting_profile(first, parts(second)), meeting_profile(second, parts(first))


def test_rounds_that_cross_unlike_any_two_classes_never_fit() -> None:
    # the crossing of two rounds is kept by any relabelling: two classes of a relabelled
    # Kirkman system cross as two of its classes do; a second round without a repeat that
    # crosses the first otherwise fits no placing
    profiles = {class_profile(15, 3, c, e) for c in range(7) for e in range(7) if c != e}
    rounds = relabelled(15, 3, seed=0)
    assert crossing(rounds[0], rounds[3]) in profiles
    rng = random.Random(1)
    first = rounds[0]
    met = {frozenset((a, b)) for t in first for a in t for b in t if a != b}
    while True:
        order = names(15)
        rng.shuffle(order)
        second = [order[i:i + 3] for i in range(0, 15, 3)]
        if any(frozenset((a, b)) in met for t in second for a in t for b in t if a != b):
            continue
        if crossing(first, second) not in profiles:
            break
    design = design_for(15, 3)
    assert design is not None
    assert embed(design, [first, second]) is None
