"""Schedule properties over many (bots, seats, rounds, seeds), and one test per defect of
issue 11 with its reproducer: no schedule crashes, one table per bot per round, seats
balanced within one per table size."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cli import main
from arena.tournament.pairing import RoundPlan, Table, gauntlet, round_robin
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
