"""The table searches run with the cyclic collector off (`paused_gc.collector_paused`), and
leave it as they found it, whether they answer or stop at their bound."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from arena.games.rummy import solver
from arena.games.rummy.dp import OutOfBudget
from arena.games.rummy.paused_gc import collector_paused

from .test_bound import DOWNWARDS_HAND, DOWNWARDS_TABLE

# a late-game position of the bench's (bench/rummy.py, draw check) whose search, unpaused,
# grows its memo enough to start the collector over a dozen times
HEAVY_HAND = ["9C"]
HEAVY_TABLE = [
    ["AH", "AD", "AC"], ["KS", "KH", "KC"], ["JK", "KC", "AC"], ["QS", "QD", "QC"],
    ["QS", "KS", "AS"], ["JH", "JD", "JK"], ["10S", "10H", "10C"], ["9S", "9H", "9D", "9C"],
    ["8H", "8D", "8C"], ["7D", "8D", "9D", "10D", "JD", "QD"], ["6S", "6H", "6C"],
    ["6S", "7S", "8S"], ["4S", "4H", "4C"], ["4H", "5H", "6H", "7H", "8H", "9H"],
    ["4D", "5D", "6D"], ["2C", "3C", "4C", "5C", "6C"], ["AS", "2S", "3S"],
    ["AD", "2D", "3D", "4D", "5D", "6D"]]


@pytest.fixture
def passes() -> Iterator[list[int]]:
    """The collector's passes (their generations) while the test runs."""
    seen: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])
    gc.callbacks.append(count)
    try:
        yield seen
    finally:
        gc.callbacks.remove(count)


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_a_search_makes_no_collector_pass_and_the_collector_is_on_after(
        passes: list[int]) -> None:
    solver.required_play(HEAVY_HAND, HEAVY_TABLE, 1)
    assert passes == []
    assert gc.isenabled()


def test_the_same_search_unpaused_makes_passes(passes: list[int]) -> None:
    """The test above is not vacuous: without the pause, the search's allocations trigger
    the collector."""
    unpaused = solver.first_play.__wrapped__  # type: ignore[attr-defined]
    try:
        unpaused(HEAVY_HAND, HEAVY_TABLE, 1, node_limit=solver.CHECK_NODES)
    except OutOfBudget:
        pass  # the bound stopped it: the seat may draw
    assert len(passes) >= 3


def test_a_search_stopped_by_its_bound_turns_the_collector_back_on() -> None:
    with pytest.raises(OutOfBudget):
        solver.first_play(DOWNWARDS_HAND, DOWNWARDS_TABLE, 1, node_limit=10)
    assert gc.isenabled()


def test_a_caller_that_turned_the_collector_off_keeps_it_off() -> None:
    inside: list[bool] = []

    @collector_paused
    def search() -> None:
        inside.append(gc.isenabled())
    gc.disable()
    search()
    assert not gc.isenabled()
    gc.enable()
    search()
    assert inside == [False, False]
    assert gc.isenabled()
