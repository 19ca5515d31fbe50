"""Schedule properties over many (bots, seats, rounds, seeds), and one test per defect of
issue 11 with its reproducer: no schedule crashes, one table per bot per round, seats
balanced within one per table size."""

from __future__ import annotations

import itertools
import random
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cli import main
from arena.tournament import swiss
from arena.tournament.anchor import FIXED_FIELD
from arena.tournament.pairing import (
    History,
    RoundPlan,
    Table,
    gauntlet,
    round_robin,
    swiss_round,
)
from arena.tournament.placing import design_for
from arena.tournament.seating import balance


def names(n: int) -> list[str]:
    return [f"b{i:02d}" for i in range(n)]


def assert_once_per_round(plan: RoundPlan) -> None:
    seated = [b for t in plan.tables for b in t.bots]
    assert len(seated) == len(set(seated)), plan
    assert set(seated).isdisjoint(plan.byes)


def seat_spread(plans: list[RoundPlan]) -> int:
    """The largest difference, over bots and table sizes, between the seats a bot held
    most and least often at tables of that size."""
    counts: dict[tuple[str, int], Counter[int]] = defaultdict(Counter)
    for plan in plans:
        for table in plan.tables:
            for seating in table.seatings:
                for seat, bot in enumerate(seating):
                    counts[(bot, len(seating))][seat] += 1
    return max((max(c[s] for s in range(k)) - min(c[s] for s in range(k))
                for (_, k), c in counts.items()), default=0)


def test_issue_11_mixed_table_sizes_no_longer_crash(tmp_path: Path) -> None:
    # 13 bots at tables of 3 (or 2): seating.balance indexed a seat the table lacked
    file = tmp_path / "t.yaml"
    file.write_text("name: crash\ngame: machiavelli\nplayers_per_game: 3\nseed: 0\nbots:\n"
                    + "".join(f"  - {{name: {b}, cmd: 'builtin:random'}}\n"
                              for b in names(13)))
    result = CliRunner().invoke(main, ["run", str(file), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "crash: round-robin" in result.output


def test_balance_with_mixed_sizes_is_within_one_per_size() -> None:
    games = [["a", "b", "c"]] * 4 + [["a", "b"]] * 3 + [["c", "a"]] * 3
    games = [list(g) for g in games]
    balance(games)
    plan = RoundPlan(1, tuple(Table(i, (tuple(g),)) for i, g in enumerate(games)))
    assert seat_spread([plan]) <= 1


@given(st.integers(2, 40), st.integers(2, 8), st.integers(0, 6), st.integers(1, 3),
       st.integers(0, 3), st.integers(0, 10**6))
@settings(max_examples=150, deadline=None)
def test_round_robin_never_crashes_and_balances_seats(
        n: int, size: int, drop: int, repeats: int, rounds: int, seed: int) -> None:
    smallest = max(2, size - drop)
    plans = round_robin(names(n), size, smallest, repeats, seed, rounds or None)
    for plan in plans:
        assert_once_per_round(plan)
        assert all(smallest <= len(t.bots) <= size for t in plan.tables)
    assert seat_spread(plans) <= 1
    # tables per bot within one (byes forced by the table size rotate; docs/tournaments.md:
    # the table then ranks by points per game)
    tables = Counter(b for p in plans for t in p.tables for b in t.bots)
    if tables:
        assert max(tables.values()) - min(tables[b] for b in names(n)) <= 1


def meeting_spread(n: int, size: int, seed: int) -> tuple[int, int, int]:
    """(pairs never met, pairs met twice or more, sum of squared meetings) of the default
    round-robin design."""
    bots = names(n)
    history = History.of(round_robin(bots, size, size, 1, seed))
    met = [history.met(a, b) for a, b in itertools.combinations(bots, 2)]
    return met.count(0), sum(1 for m in met if m >= 2), sum(m * m for m in met)


def test_twelve_bots_at_tables_of_six_all_meet_as_evenly_as_three_rounds_allow() -> None:
    # issue 11: 8 pairs never met and 28 met twice or more; 162 is the least sum of squared
    # meetings of any 3 rounds of 2 tables of 6 (brute force over all of them)
    for seed in range(3):
        never, _, squares = meeting_spread(12, 6, seed)
        assert (never, squares) == (0, 162)


def test_thirteen_bots_at_tables_of_three_meet_more_evenly_than_before() -> None:
    # issue 11: 14 of 78 pairs never met, 8 met twice
    for seed in range(3):
        never, twice, _ = meeting_spread(13, 3, seed)
        assert never < 14 and twice < 8


@pytest.mark.parametrize("q", [3, 4, 5, 7, 8])
def test_a_field_of_q_squared_at_tables_of_q_meets_each_other_exactly_once(q: int) -> None:
    # issue 11: resolvable designs where they exist; the local search left 14 of 120 pairs
    # of 16 bots at tables of 4 unmet (and 14 twice) in one seed of three
    bots = names(q * q)
    for seed, rounds in ((1, None), (2, q + 1), (3, 2 * (q + 1) + 1)):
        if rounds is None and q == 3:
            rounds = q + 1  # 9 bots at tables of 3 play every 3-subset by default
        plans = round_robin(bots, q, q, 1, seed, rounds)
        assert len(plans) == (rounds or q + 1) and not any(p.byes for p in plans)
        met = History.of(plans).meetings
        count = len(plans) // (q + 1)
        low = [m for m in (met.get(p, 0) for p in itertools.combinations(bots, 2))]
        assert set(low) <= {count, count + 1}, (q, seed)
        if len(plans) % (q + 1) == 0:
            assert set(low) == {count}
        assert seat_spread(plans) <= 1


@given(st.integers(1, 4), st.integers(1, 12), st.integers(2, 6), st.integers(0, 4),
       st.integers(1, 3), st.integers(0, 10**6))
@settings(max_examples=80, deadline=None)
def test_gauntlet_never_crashes_and_balances_seats(
        c: int, f: int, size: int, drop: int, repeats: int, seed: int) -> None:
    smallest = max(2, size - drop)
    plans = gauntlet([f"c{i}" for i in range(c)], names(f), size, smallest, repeats, seed)
    for plan in plans:
        assert_once_per_round(plan)
    assert seat_spread(plans) <= 1


# Swiss -------------------------------------------------------------------------------

def matchings(bots: list[str]) -> list[list[tuple[str, str]]]:
    if not bots:
        return [[]]
    top, rest = bots[0], bots[1:]
    return [[(top, o), *m] for o in rest for m in matchings([b for b in rest if b != o])]


def must(history: History, bot: str) -> int | None:
    return swiss.seat_history(history.two_seat.get(bot, [])).must()


def best_levels(ranked: list[str], history: History) -> tuple[int, int, int, int]:
    """By brute force: the least (second byes, repeats, seat clashes, bye's distance from
    the bottom) any pairing of this round can have, in that order of importance."""
    options = [(b, [x for x in ranked if x != b]) for b in ranked] if len(ranked) % 2 \
        else [(None, list(ranked))]
    best = None
    for bye, playing in options:
        for pairs in matchings(playing):
            levels = (int(bye is not None and history.byes[bye] > 0),
                      sum(history.met(a, b) > 0 for a, b in pairs),
                      sum(must(history, a) is not None and must(history, a) == must(history, b)
                          for a, b in pairs),
                      0 if bye is None else len(ranked) - 1 - ranked.index(bye))
            best = levels if best is None or levels < best else best
    assert best is not None
    return best


def play_two_seat_swiss(n: int, rounds: int, seed: int, check: bool,
                        lookahead: bool = True) -> list[RoundPlan]:
    rng = random.Random(seed)
    bots = names(n)
    points: Counter[str] = Counter()
    plans: list[RoundPlan] = []
    for number in range(1, rounds + 1):
        ranked = sorted(bots, key=lambda b: (-points[b], b))
        history = History.of(plans)
        plan = swiss_round(number, ranked, history, 2, 2, 1, {b: points[b] for b in bots},
                           rounds - number + 1 if lookahead else 1)
        assert_once_per_round(plan)
        assert all(len(t.bots) == 2 for t in plan.tables)
        bye = plan.byes[0] if plan.byes else None
        got = (int(bye is not None and history.byes[bye] > 0),
               sum(history.met(*t.bots) > 0 for t in plan.tables),
               sum((must(history, t.bots[0]) == 1) + (must(history, t.bots[1]) == 0)
                   for t in plan.tables),
               0 if bye is None else n - 1 - ranked.index(bye))
        if check:
            assert got == best_levels(ranked, history), (number, plan)
        for table in plan.tables:
            points[rng.choice(table.bots)] += 1
        plans.append(plan)
    return plans


@given(st.integers(2, 9), st.integers(1, 10), st.integers(0, 10**6))
@settings(max_examples=60, deadline=None)
def test_two_seat_swiss_is_best_on_byes_repeats_seats_and_the_bye(
        n: int, rounds: int, seed: int) -> None:
    # each round: no second bye, then fewest repeats, then fewest seat clashes (a seat that
    # puts a bot two ahead or three running), then the bye lowest, against brute force;
    # a seat is given against a bot's need only at a clash no pairing could avoid
    play_two_seat_swiss(n, rounds, seed, check=True, lookahead=False)


@pytest.mark.parametrize(("n", "rounds"), [(16, 8), (20, 7), (40, 9)])
def test_two_seat_swiss_keeps_seats_within_one_and_no_three_running(n: int,
                                                                    rounds: int) -> None:
    # issue 11: |first - second| reached 3 and bots sat in one seat three games running.
    # Not a guarantee (avoiding a repeat can leave no pairing that keeps seats: then, as
    # the brute-force test above shows, a round breaks as few seat rules as it can; a
    # property search found such a case at 16 bots / 8 rounds), but in these 30 seeded
    # tournaments each, no bot ends two seats off or sits in one seat three times running
    for seed in range(30):
        history = History.of(play_two_seat_swiss(n, rounds, seed, check=False))
        for bot in names(n):
            seats = history.two_seat.get(bot, [])
            assert abs(seats.count(0) - seats.count(1)) <= 1, (seed, bot, seats)
            assert all(len(set(seats[i:i + 3])) == 2 for i in range(len(seats) - 2)), (
                seed, bot, seats)


@pytest.mark.parametrize(("n", "rounds", "seeds"), [(6, 5, 30), (10, 9, 30)])
def test_two_seat_swiss_never_repeats_to_the_last_round(n: int, rounds: int,
                                                        seeds: int) -> None:
    # issue 11: 4 of 30 tournaments of 6 bots / 5 rounds and of 10 / 9 repeated a pairing
    for seed in range(seeds):
        plans = play_two_seat_swiss(n, rounds, seed, check=False)
        met = History.of(plans).meetings
        assert max(met.values()) == 1, seed


def repeated_tables(plans: list[RoundPlan]) -> tuple[int, int]:
    """(tables holding a pair that had met at an earlier round, tables)."""
    seen: set[tuple[str, str]] = set()
    repeated = total = 0
    for plan in plans:
        pairs_of = [{(a, b) if a < b else (b, a) for a in t.bots for b in t.bots if a != b}
                    for t in plan.tables]
        repeated += sum(bool(p & seen) for p in pairs_of)
        total += len(pairs_of)
        for p in pairs_of:
            seen |= p
    return repeated, total


def play_table_swiss(n: int, size: int, rounds: int, seed: int,
                     spreads: list[int] | None = None) -> list[RoundPlan]:
    """A Swiss with simulated results (noisy strengths; places score k-1, ..., 0); each
    table's score spread (most points minus fewest before the round) from round 2 on is
    appended to `spreads`."""
    rng = random.Random(seed)
    bots = names(n)
    strength = {b: rng.gauss(0, 1) for b in bots}
    points: Counter[str] = Counter()
    plans: list[RoundPlan] = []
    for number in range(1, rounds + 1):
        ranked = sorted(bots, key=lambda b: (-points[b], b))
        plan = swiss_round(number, ranked, History.of(plans), size, size, 1,
                           {b: points[b] for b in bots}, rounds - number + 1)
        assert_once_per_round(plan)
        if spreads is not None and number > 1:
            spreads.extend(max(points[b] for b in t.bots) - min(points[b] for b in t.bots)
                           for t in plan.tables)
        for table in plan.tables:
            order = sorted(table.bots, key=lambda b: -(strength[b] + rng.gauss(0, 1)))
            for place, bot in enumerate(order):
                points[bot] += len(order) - 1 - place
        plans.append(plan)
    return plans


def swiss_against_design(n: int, size: int, rounds: int, seeds: int) -> tuple[int, int]:
    """Tables holding a repeated pair over `seeds` tournaments: (Swiss, round-robin design
    of as many rounds). Where the Swiss is anchored to a resolvable design (`anchor`), it
    repeats no more than the design in each tournament, not only summed over them."""
    per_seed = design_for(n, size) is not None and n <= FIXED_FIELD
    swiss_rep = rr_rep = 0
    for seed in range(seeds):
        a, b = repeated_tables(play_table_swiss(n, size, rounds, seed))
        c, d = repeated_tables(round_robin(names(n), size, size, 1, seed, rounds))
        assert b == d
        assert not per_seed or a <= c, seed
        swiss_rep, rr_rep = swiss_rep + a, rr_rep + c
    return swiss_rep, rr_rep


@pytest.mark.parametrize(("n", "size", "rounds", "seeds"),
                         [(64, 4, 9, 2), (16, 4, 5, 3), (10, 3, 4, 3), (15, 3, 7, 3),
                          (28, 4, 9, 2)])
def test_table_swiss_repeats_no_more_than_the_round_robin_design(n: int, size: int,
                                                                 rounds: int,
                                                                 seeds: int) -> None:
    # issue 11: at 33 bots / 4 seats / 7 rounds, 17.5% of Swiss tables held a repeated
    # pair against 9.5% for the round-robin design of as many games; after the first fix
    # still 3.3% against none at 64 / 4 / 9 (a 4 x 4 affine plane's field, 16 / 4 / 5,
    # and a tight 10 / 3 / 4 need the lookahead and the choice of byes), and 19 of 105
    # tables against none at 15 / 3 / 7 (the Kirkman design) before the anchor
    # (and 16-19 of 63 at 28 / 4 / 9, seeds 0-2, before its resolvable design was built)
    swiss_rep, rr_rep = swiss_against_design(n, size, rounds, seeds)
    assert swiss_rep <= rr_rep


def design_cases() -> list[tuple[int, int, int]]:
    """(bots, seats, rounds) around the rounds a design needs for each pair to meet once."""
    out: list[tuple[int, int, int]] = []
    for n in (7, 9, 10, 12, 13, 16, 17, 21):
        for size in (3, 4, 5, 6):
            if 2 * size <= n:
                full = -(-(n - 1) // (size - 1))
                out.extend((n, size, r) for r in sorted({max(2, full - 1), full, full + 1}))
    return [*out, (13, 3, 6), (20, 4, 5), (33, 4, 7), (15, 3, 7), (25, 5, 6), (27, 3, 13)]


@pytest.mark.slow
@pytest.mark.parametrize(("n", "size", "rounds"), design_cases())
def test_table_swiss_repeats_no_more_than_the_design_over_many_fields(n: int, size: int,
                                                                      rounds: int) -> None:
    # the property over many fields, 3 seeds each (13 / 3 / 6 was 18.3% against 15%),
    # per seed where the Swiss is anchored to a design
    swiss_rep, rr_rep = swiss_against_design(n, size, rounds, 3)
    assert swiss_rep <= rr_rep


def test_two_seat_swiss_in_blocks_keeps_the_guarantees() -> None:
    # above swiss.FULL_FIELD bots the field is matched in blocks of ranks: no repeat, no
    # second bye (seats only as well as each block's own bots allow)
    n = swiss.FULL_FIELD + 31
    plans = play_two_seat_swiss(n, 5, seed=11, check=False)
    history = History.of(plans)
    assert max(history.meetings.values()) == 1
    assert max(history.byes.values()) == 1


def test_a_fixed_schedule_answers_for_each_of_its_rounds() -> None:
    from arena.tournament.config import parse_config
    from arena.tournament.formats import RoundRobin
    from arena.tournament.pairing import History

    config = parse_config("name: t\ngame: machiavelli\nplayers_per_game: 3\nbots:\n" + "".join(
        f"  - {{name: b{i}, cmd: 'builtin:random'}}\n" for i in range(7)))
    schedule = RoundRobin(config)
    plans = schedule.fixed() or []
    assert plans
    for plan in plans:
        assert schedule.next_round(plan.round, [], {}, History.of([])) == plan


@pytest.mark.parametrize(("n", "size"), [(15, 3), (21, 3), (27, 3), (33, 3), (45, 3), (69, 3),
                                         (93, 3), (64, 4), (28, 4), (40, 4)])
def test_kirkman_and_affine_space_fields_meet_each_other_exactly_once(n: int,
                                                                       size: int) -> None:
    # issue 11: resolvable designs where they exist; before, the local search left 8-10
    # of the 105 pairs of 15 bots at tables of 3 unmet in the 7 rounds of Kirkman's
    # schoolgirls, 14-16 of the 210 of 21 bots. Each round a partition, each pair once,
    # seats as balanced as elsewhere (one field of each source of arena.tournament.kirkman:
    # stored base classes, 1-rotational, tripled, 3q; and arena.tournament.quadruples at
    # tables of 4: 33-41 of 378 pairs of 28 bots unmet, 63-69 of 780 of 40, seeds 0-2).
    bots = names(n)
    full = (n - 1) // (size - 1)
    for seed, rounds in ((0, None), (1, full), (2, 2 * full + 1)):
        plans = round_robin(bots, size, size, 1, seed, rounds)
        assert len(plans) == (rounds or full) and not any(p.byes for p in plans)
        for plan in plans:
            seated = [b for t in plan.tables for b in t.bots]
            assert sorted(seated) == sorted(bots) and {len(t.bots) for t in plan.tables} == {size}
        met = History.of(plans).meetings
        count = len(plans) // full
        low = [met.get(p, 0) for p in itertools.combinations(bots, 2)]
        assert set(low) <= {count, count + 1}, (n, seed)
        if len(plans) % full == 0:
            assert set(low) == {count}
        assert seat_spread(plans) <= 1
