"""Resolvable designs at tables of 4 (issue 11): every design built is checked whole, the
stored base classes come from the search that the module names, and the round-robin
uses them."""

from __future__ import annotations

import inspect
import random

import pytest

from arena.tournament import quadruple_search, quadruples
from arena.tournament.designs import resolvable
from arena.tournament.quadruples import (
    SEARCHED_AS,
    STORED,
    developed,
    rounds_of,
    stored_tables,
)
from tests.tournament.designs import assert_resolvable


def test_28_and_40_are_built() -> None:
    # issue 11: before, only 16 and 64 (the affine plane and space) at tables of 4
    assert {28, 40} <= set(STORED) and rounds_of(16) is None


@pytest.mark.parametrize("v", sorted(STORED))
def test_each_design_built_is_resolvable_with_every_pair_once(v: int) -> None:
    rounds = rounds_of(v)
    assert rounds is not None
    assert_resolvable(v, 4, [list(one) for one in rounds])


def test_a_broken_base_class_is_caught_by_the_check() -> None:
    # the check must fail on a near miss: two points of the stored base class swapped
    tables = stored_tables(28)
    a, b = tables[1], tables[2]
    tables[1], tables[2] = (a[0], b[0], a[2], a[3]), (a[1], b[1], b[2], b[3])
    with pytest.raises(AssertionError):
        assert_resolvable(28, 4, developed(28, tables))


def assert_found_again(v: int) -> None:
    """Run from the stored seed (the search is seeded), the search finds the stored class,
    and the module stores what `python -m arena.tournament.quadruple_search` prints."""
    seed, _ = STORED[v]
    _, multiplier, steps = quadruple_search.parse(SEARCHED_AS.get(v, str(v)))
    found = quadruple_search.search(v, seed, steps, multiplier)
    assert found is not None and found == stored_tables(v)
    assert quadruple_search.entry(v, seed, found) in inspect.getsource(quadruples)


def test_the_stored_base_class_of_40_is_what_the_search_finds() -> None:
    assert_found_again(40)  # well under a second; the others are rerun by the slow test


@pytest.mark.slow
@pytest.mark.parametrize("v", sorted(STORED))
def test_every_stored_entry_is_what_the_search_finds(v: int) -> None:
    assert_found_again(v)  # 28: a few seconds


def test_the_search_refuses_a_v_with_no_such_design_or_a_useless_multiplier() -> None:
    with pytest.raises(ValueError, match="41 points"):
        quadruple_search.cells(41)
    with pytest.raises(ValueError, match="-1 among its powers mod 17"):
        quadruple_search.search(52, 0, 10, multiplier=4)  # 4 * 4 = -1 mod 17


def test_resolvable_gives_the_design_at_tables_of_4_only_and_leaves_rng_untouched() -> None:
    bots = [f"b{i:02d}" for i in range(28)]
    first, second = resolvable(bots, 4, random.Random(1)), resolvable(bots, 4, random.Random(2))
    assert first is not None and second is not None and first != second
    assert resolvable(bots, 3) is None and resolvable(bots, 7) is None
    untouched = random.Random(3)
    state = untouched.getstate()
    assert quadruples.quadruples(bots[:27], untouched) is None
    assert untouched.getstate() == state
