"""The "may this seat draw?" check (`required_play`, `draw_when_able: false`) is a
feasibility search: where it completes, its answer equals the full best-play search's, and
its bound only ever leaves a position unsettled (the seat may draw), never answers wrongly."""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.core.errors import IllegalAction
from arena.games.rummy import GAME, rules, solver
from arena.games.rummy.actions import Draw
from arena.games.rummy.dp import OutOfBudget
from arena.games.rummy.moves import simple_plays
from arena.games.rummy.solver import first_play, required_play, solve

from .brute import best_value, random_instance
from .helpers import scenario
from .test_solver import check_solution

Position = tuple[list[str], list[list[str]]]


@cache
def game_positions() -> tuple[Position, ...]:
    """Positions of seeded random games under `draw_when_able: false` where no cheap move
    exists (the only ones that need a search), the early and small tables first."""
    found: list[Position] = []
    for seed in range(6):
        players = 2 + seed % 2
        state = GAME.new_game(players, {"draw_when_able": False}, seed)
        rng = random.Random(seed)
        while GAME.to_act(state) is not None and state.turn < 60:
            seat = state.to_move
            hand, table = state.hands[seat], [list(m) for m in state.table]
            if table and not simple_plays(hand, table, 1):
                found.append((list(hand), table))
            GAME.apply(state, seat, GAME.random_action(state, seat, rng))
    found.sort(key=lambda p: sum(map(len, p[1])))
    return tuple(found[:60])


def test_the_game_positions_exercise_both_answers() -> None:
    answers = [solve(hand, table, 1) is None for hand, table in game_positions()]
    assert len(answers) >= 40 and 5 <= sum(answers) <= len(answers) - 5


@pytest.mark.parametrize("index", range(60))
def test_on_game_positions_the_feasibility_answer_is_the_full_searchs(index: int) -> None:
    positions = game_positions()
    if index >= len(positions):
        pytest.fail(f"only {len(positions)} positions were collected")
    hand, table = positions[index]
    best = solve(hand, table, 1)
    found = first_play(hand, table, 1)
    assert (found is None) == (best is None), (hand, table)
    if found is not None:
        check_solution(hand, table, found.table, 1)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), max_jokers=st.sampled_from([1, 2, 3]),
       keep_table=st.booleans())
def test_on_random_tables_the_feasibility_answer_is_the_brute_forces(
        seed: int, max_jokers: int, keep_table: bool) -> None:
    hand, table = random_instance(random.Random(seed), max_jokers)
    found = first_play(hand, table, max_jokers, keep_table=keep_table)
    best = solve(hand, table, max_jokers, keep_table=keep_table)
    assert (found is None) == (best is None)
    if not keep_table:
        expected = best_value(hand, [c for m in table for c in m], max_jokers)
        assert (found is None) == (expected == 0)
    if found is not None:
        check_solution(hand, table, found.table, max_jokers)
        if keep_table:
            assert list(found.table[:len(table)]) == [tuple(m) for m in table]


@settings(max_examples=60, deadline=None)
@given(index=st.integers(0, 59), limit=st.sampled_from([1, 20, 100, 400, 2000]))
def test_the_bound_never_changes_an_answer_where_the_search_completes(
        index: int, limit: int) -> None:
    positions = game_positions()
    hand, table = positions[index % len(positions)]
    exact = first_play(hand, table, 1)
    try:
        bounded = first_play(hand, table, 1, node_limit=limit)
    except OutOfBudget:
        return  # unsettled: the rules then let the seat draw (next test)
    assert (bounded is None) == (exact is None)


# a rebuild exists (3S and 6S split two runs), but no cheap move: only the search sees it
DEEP_HAND = ["3S", "6S", "KC"]
DEEP_TABLE = [["3H", "4H", "5H", "6H"], ["3D", "4D", "5D", "6D"], ["9S", "9C", "9H"]]


def test_a_draw_is_refused_when_the_search_finds_a_play() -> None:
    state = scenario([DEEP_HAND, ["AS"]], DEEP_TABLE, draw_when_able=False)
    assert not simple_plays(DEEP_HAND, DEEP_TABLE, 1)
    with pytest.raises(IllegalAction, match="may not draw while a play exists"):
        GAME.validate(state, 0, Draw())
    found = required_play(DEEP_HAND, DEEP_TABLE, 1)
    assert found is not None
    check_solution(DEEP_HAND, DEEP_TABLE, found.table, 1)


def test_the_referee_searches_a_position_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """An illegal draw is validated, then replaced by the default play; a built-in player's
    draw is chosen, then validated: each asks twice of one position, and one search may take
    ~0.2 s of the referee's time."""
    searches: list[int] = []

    def counted(*args: object, **kwargs: object) -> solver.Solution | None:
        searches.append(1)
        return required_play(*args, **kwargs)  # type: ignore[arg-type]

    rules._required_play.cache_clear()
    monkeypatch.setattr(rules, "required_play", counted)
    state = scenario([DEEP_HAND, ["AS"]], DEEP_TABLE, draw_when_able=False)
    with pytest.raises(IllegalAction):
        GAME.validate(state, 0, Draw())
    play = GAME.default_action(state, 0)
    GAME.validate(state, 0, play)
    assert len(searches) == 1
    stuck = scenario([["2C", "KD"], ["2S"]], DEEP_TABLE, draw_when_able=False)
    assert GAME.default_action(stuck, 0) == Draw()
    GAME.validate(stuck, 0, Draw())
    assert len(searches) == 2


def test_a_position_the_bound_cannot_settle_lets_the_seat_draw(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver, "CHECK_NODES", 1)
    rules._required_play.cache_clear()  # an earlier test's answer was found with the full bound
    with pytest.raises(OutOfBudget):
        first_play(DEEP_HAND, DEEP_TABLE, 1, node_limit=1)
    assert required_play(DEEP_HAND, DEEP_TABLE, 1) is None
    state = scenario([DEEP_HAND, ["AS"]], DEEP_TABLE, draw_when_able=False)
    GAME.validate(state, 0, Draw())
    assert GAME.default_action(state, 0) == Draw()
