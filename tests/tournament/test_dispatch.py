"""Home groups (`arena.tournament.dispatch`): every queued game is handed out once, workers
start few bots (simulated: no game played), and results never depend on the dispatch."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.tournament.dispatch import START_GAMES, Dispatcher, start_cost
from arena.tournament.runner import Job, Runner
from arena.tournament.store import GameKey
from tests.tournament import dispatch_sim
from tests.tournament.dispatch_sim import field_jobs, floor_starts, simulate
from tests.tournament.fakes import FakeReferee
from tests.tournament.test_runner import config, outcomes, pin_salt


def drain(dispatcher: Dispatcher, workers: int) -> dict[int, list[Job]]:
    """Hand out every queued game, workers asking in turn and holding what they played."""
    taken: dict[int, list[Job]] = {w: [] for w in range(workers)}
    held: dict[int, set[str]] = {w: set() for w in range(workers)}
    while True:
        asked = False
        for w in range(workers):
            job = dispatcher.take(w, held[w])
            if job is not None:
                asked = True
                taken[w].append(job)
                held[w] |= set(job.seating)
        if not asked:
            return taken


@pytest.mark.parametrize("workers", [1, 2, 3, 8, 14])
def test_every_queued_game_is_handed_out_exactly_once(workers: int) -> None:
    jobs = field_jobs(8, repeats=3)
    dispatcher = Dispatcher(workers)
    for job in jobs:
        dispatcher.add(job)
    taken = drain(dispatcher, workers)
    handed = [j for games in taken.values() for j in games]
    assert sorted(str(j.key) for j in handed) == sorted(str(j.key) for j in jobs)
    assert len(dispatcher) == 0
    assert all(taken.values())  # every worker gets a share of a batch this size


def test_a_worker_holding_every_bot_plays_the_queue_in_its_order() -> None:
    jobs = field_jobs(8, repeats=2)
    dispatcher = Dispatcher(1)
    for job in jobs:
        dispatcher.add(job)
    every = {f"bot{i:02d}" for i in range(8)}
    assert [dispatcher.take(0, every) for _ in jobs] == jobs


def test_a_game_to_play_again_comes_before_any_other() -> None:
    jobs = field_jobs(8, repeats=2)
    dispatcher = Dispatcher(2)
    for job in jobs:
        dispatcher.add(job)
    first = dispatcher.take(0, ())
    assert first is not None
    dispatcher.again_first(first)
    assert dispatcher.take(1, ()) == first


def test_a_worker_plays_its_own_group_before_it_takes_from_another() -> None:
    jobs = field_jobs(8, repeats=4)
    dispatcher = Dispatcher(4)
    for job in jobs:
        dispatcher.add(job)
    mine = [dispatcher.take(0, ()) for _ in range(len(jobs) // 4)]
    bots = {b for job in mine if job is not None for b in job.seating}
    assert len(bots) <= 7  # a quarter of the 70 tables fits in 7 of the 8 bots
    stolen = dispatcher.take(0, bots)  # its group is done: another's game
    assert stolen is not None and stolen not in mine


def test_a_later_batch_goes_to_the_workers_already_running_its_bots() -> None:
    # a Swiss round: tables of the next round whose bots a worker holds are its own
    dispatcher = Dispatcher(2)
    a, b = ("a", "b", "c", "d"), ("e", "f", "g", "h")
    for repeat in range(4):
        dispatcher.add(Job(GameKey(2, 0, repeat), a, repeat))
        dispatcher.add(Job(GameKey(2, 1, repeat), b, 10 + repeat))
    taken = [dispatcher.take(0, b), dispatcher.take(1, a)]
    assert [job.seating for job in taken if job is not None] == [b, a]


def test_groups_formed_together_follow_the_bots_each_worker_runs() -> None:
    # a Swiss round queued while every worker is idle: formed in turn, worker 0 (no bots)
    # would take the first table, a, whose bots worker 1 runs; swapped, each table goes to
    # the worker running its bots
    a, b = ("a", "b", "c", "d"), ("e", "f", "g", "h")
    for held in ({0: (), 1: a}, {0: b, 1: a}):
        dispatcher = Dispatcher(2)
        for repeat in range(4):
            dispatcher.add(Job(GameKey(2, 0, repeat), a, repeat))
            dispatcher.add(Job(GameKey(2, 1, repeat), b, 10 + repeat))
        dispatcher.form(held)
        assert list(dispatcher.groups[0]) == [frozenset(b)]
        assert list(dispatcher.groups[1]) == [frozenset(a)]


@pytest.mark.parametrize("repeats", [4, 16])
def test_simulated_starts_stay_within_one_bot_per_worker_of_the_floor(repeats: int) -> None:
    # the benchmark's field (8 bots, every 4-subset a table): a group holds its share of
    # the tables in at most one bot more than the fewest that can hold that many tables,
    # and a worker steals only at the end, from tables it mostly holds already
    jobs = field_jobs(8, repeats=repeats)
    for workers in (1, 2, 4, 8, 14):
        floor = floor_starts(8, 4, len(jobs), repeats, workers)
        groups = simulate(jobs, workers).starts
        assert floor <= groups <= floor + workers, (workers, groups, floor)
    # the dispatch it replaced did not: ~1.6 x the floor at 14 workers
    assert simulate(jobs, 14, "window").starts > 70 + 14


def test_simulated_starts_stay_within_one_bot_per_worker_of_the_floor_with_unequal_workers(
) -> None:
    # workers of unequal speed run out of games at different times: the fast ones even
    # the groups out early, while every group has tables they hold the bots of, and take
    # a share, not a game, from a group behind them, so a start is paid once
    jobs = field_jobs(8)
    floor = floor_starts(8, 4, len(jobs), 16, 14)
    for draw in range(1, 6):
        unequal = simulate(jobs, 14, spread=0.2, draw=draw)
        assert floor <= unequal.starts <= floor + 14, (draw, unequal)


def test_groups_formed_together_need_fewer_bots_than_formed_in_turn() -> None:
    jobs = field_jobs(8)
    together, in_turn = Dispatcher(14), Dispatcher(14)
    for job in jobs:
        together.add(job)
        in_turn.add(job)
    together.form({w: () for w in range(14)})
    for w in range(14):
        in_turn.form({w: ()})
    bots = [sum(len(frozenset().union(*group)) for group in d.groups.values())
            for d in (together, in_turn)]
    assert bots[0] < bots[1]
    assert [sum(len(jobs) for jobs in group.values()) for group in together.groups.values()
            ] == [80] * 14  # tables swapped between groups only for tables as long
    handed = [job for games in drain(together, 14).values() for job in games]
    assert sorted(str(j.key) for j in handed) == sorted(str(j.key) for j in jobs)


def four_games(table: tuple[str, ...], round_: int = 1) -> list[Job]:
    return [Job(GameKey(round_, 0, r), table, r) for r in range(4)]


def test_a_game_hinted_to_its_worker_is_never_taken_by_another() -> None:
    a = ("a", "b", "c", "d")
    for hinted in (True, False):
        dispatcher = Dispatcher(2)
        for job in four_games(a):
            dispatcher.add(job)
        first = dispatcher.take(0, ())  # worker 0's group: games 0 and 1 of the table
        hint = dispatcher.next_for(0, a) if hinted else None
        taken = [dispatcher.take(1, a), dispatcher.take(1, a)]  # its own two
        stolen = dispatcher.take(1, a)
        assert first is not None and [t.key.repeat for t in taken if t] == [2, 3]
        if hinted:
            assert hint is not None and hint.key.repeat == 1 and stolen is None
            assert dispatcher.take(0, a) == hint
        else:
            assert stolen is not None and stolen.key.repeat == 1


def test_a_worker_out_of_games_takes_a_share_of_a_group_not_one_game() -> None:
    dispatcher = Dispatcher(2)
    a, b = ("a", "b", "c", "d"), ("a", "b", "c", "e")
    for queued in [*four_games(a), *four_games(a, 2), *four_games(b, 3), *four_games(b, 4)]:
        dispatcher.add(queued)
    dispatcher.form({0: (), 1: ()})  # worker 0: table a's 8 games, worker 1: b's
    assert dispatcher.take(1, b) is not None
    while (job := dispatcher.take(0, a)) is not None and set(job.seating) == set(a):
        pass
    # worker 0 ran out: it started e for a share of b's games (7 left, 1 start: 3 of
    # them, the first played now), which it then plays from its own group
    assert job is not None and set(job.seating) == set(b)
    assert sum(len(j) for j in dispatcher.groups[0].values()) == 2
    assert sum(len(j) for j in dispatcher.groups[1].values()) == 4


def test_a_worker_out_of_games_pays_a_start_only_for_games_enough_to_repay_it() -> None:
    dispatcher = Dispatcher(2)
    a, b = ("a", "b", "c", "d"), ("a", "b", "c", "e")
    for queued in [*four_games(a), *four_games(b, 2)]:
        dispatcher.add(queued)
    dispatcher.form({0: (), 1: ()})  # worker 0: table a's 4 games, worker 1: b's
    assert dispatcher.take(1, b) is not None
    assert [dispatcher.take(0, a) is not None for _ in range(4)] == [True] * 4
    # b has 3 games left: a share of 1 (even, counting the start of e as a game), less
    # than the 2 games a start costs, so worker 0 waits; holding e it would take two
    assert dispatcher.take(0, a) is None
    assert dispatcher.take(0, b) is not None
    assert sum(len(j) for j in dispatcher.groups[0].values()) == 1


def test_a_worker_ahead_of_another_plays_its_games_that_need_no_start() -> None:
    dispatcher = Dispatcher(2)
    a, b = ("a", "b", "c", "d"), ("e", "f", "g", "h")
    for job in [*four_games(a), *four_games(b, 2)]:
        dispatcher.add(job)
    dispatcher.form({0: (), 1: ()})
    both = (*a, *b)
    got = [dispatcher.take(0, both) for _ in range(3)]
    # 4 against 4 left, then 3 against 4: even; at 2 against 4 it takes b's latest game
    assert [j.seating for j in got if j] == [a, a, b]
    assert got[2] is not None and got[2].key == GameKey(2, 0, 3)


def test_a_start_weighs_what_it_held_games_up_and_never_less_than_its_cpu() -> None:
    assert start_cost(0.0, 0, 0.0, 0) == START_GAMES  # nothing measured yet
    assert start_cost(10.0, 100, 0.5, 10) == START_GAMES  # a start shorter than a game
    assert start_cost(2.5, 100, 50.0, 20) == 100  # 2.5 s a start, 25 ms a game


def test_where_starts_hold_workers_up_many_games_a_worker_starts_bots_only_for_many(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # more workers than cores, pinned: a start holds its worker up ~100 games' time; with
    # that weight workers help each other only with games that need no start, which
    # starts fewer bots and ends sooner than a start weighed as 2 games
    jobs = field_jobs(8)
    floor = floor_starts(8, 4, len(jobs), 16, 14)
    measured = [simulate(jobs, 14, spread=0.2, draw=d, start_time=100) for d in (1, 2, 3)]
    monkeypatch.setattr(dispatch_sim, "start_cost", lambda *measures: START_GAMES)
    fixed = [simulate(jobs, 14, spread=0.2, draw=d, start_time=100) for d in (1, 2, 3)]
    for now, was in zip(measured, fixed, strict=True):
        assert floor <= now.starts <= floor + 14 and now.starts < was.starts
        assert now.makespan < was.makespan


@pytest.mark.parametrize("bots", [16, 33])
def test_simulated_starts_in_larger_fields_are_a_fraction_of_the_old_dispatch(
        bots: int) -> None:
    # max_bots (8) is below the field, so bots are stopped and started again: groups
    # keep each worker among few bots, where the old window scattered them
    jobs = field_jobs(bots)
    for workers in (2, 8, 14):
        groups, window = simulate(jobs, workers), simulate(jobs, workers, "window")
        assert groups.starts * 2 < window.starts, (workers, groups, window)
        assert groups.makespan <= window.makespan


class HoldingReferee(FakeReferee):
    """A fake referee that holds bots as the real one does (so workers report live bots
    and the dispatch follows them), at most twice the table size."""

    def __enter__(self) -> HoldingReferee:
        super().__enter__()
        self.held: list[str] = []
        return self

    def play(self, game: str, rules: Any, seed: int, seating: Sequence[str],
             replay: Path | None = None, upcoming: Sequence[str] = ()) -> Any:
        for name in (*seating, *upcoming):
            if name in self.held:
                self.held.remove(name)
            self.held.append(name)
        del self.held[:-2 * len(seating)]
        return super().play(game, rules, seed, seating, replay)

    def live_bots(self) -> list[str]:
        return list(self.held)


@pytest.mark.parametrize("fmt, extra", [("round-robin", "games_per_pairing: 2\n"),
                                        ("swiss", "rounds: 3\ngames_per_pairing: 2\n")])
def test_results_are_the_same_at_one_and_three_workers(tmp_path: Path, fmt: str,
                                                       extra: str) -> None:
    cfg = config(fmt, seats=4, bots=8, extra=extra)
    found = []
    for workers in (1, 3):
        out = tmp_path / str(workers)
        pin_salt(out)
        table = Runner(cfg, out, concurrency=workers, referee=HoldingReferee).run()
        results = json.loads((out / "results.json").read_text())
        found.append((sorted(outcomes(out, cfg), key=str), [r.to_json() for r in table.rows],
                      results["standings"]))
    assert found[0] == found[1]
    assert len(found[0][0]) == (70 * 2 if fmt == "round-robin" else 3 * 2 * 2)
