"""Ladder runs with worker processes and the fake referee: games, snapshots, a new version
scheduled first, the same choices from the same stored games, a cut round finished."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from arena.core.errors import ConfigError
from arena.games import REGISTRY
from arena.ladder import members, read
from arena.ladder.read import compute_table
from arena.ladder.run import Budget, LadderBusy, LadderRun, ladder_lock
from arena.ladder.store import LadderStore
from arena.tournament.pairing import RoundPlan
from arena.tournament.runner import Progress
from arena.tournament.secret import SALT_NAME
from arena.tournament.verify import verify_run
from tests.conditions import wait_until
from tests.ladder.conftest import MakeLadder, play
from tests.tournament.fakes import FakeReferee


def seatings(directory: Path) -> list[tuple[int, int, list[str]]]:
    """(round, table, entries by seat) of every stored game, in key order."""
    with closing(sqlite3.connect(directory / "results.sqlite")) as db:
        rows = db.execute("SELECT round, tbl, bot FROM seats ORDER BY round, tbl, seat")
        out: dict[tuple[int, int], list[str]] = {}
        for r, t, bot in rows:
            out.setdefault((r, t), []).append(bot)
    return [(r, t, bots) for (r, t), bots in out.items()]


def cut_round(directory: Path, tables: int) -> RoundPlan:
    """Record the next round without playing it: what a run killed before any game of its
    round leaves behind."""
    job = LadderRun(directory, Budget(games=0), concurrency=1, referee=FakeReferee)
    store = LadderStore.open(directory)
    try:
        plan = job._plan(store, store.active(), tables)
        store.store.add_round(plan)
    finally:
        store.close()
    return plan


def test_a_run_plays_its_games_in_rounds_and_stores_a_snapshot(
        make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=4, batch=4)
    result = play(directory, 10)
    assert (result.played, result.stored, result.resumed) == (10, 10, 0)
    assert sorted({r for r, _, _ in seatings(directory)}) == [1, 2, 3]
    table = read.standings(directory)
    assert (table.games, table.rated, table.runs) == (10, 10, 1)
    assert sum(r.games for r in table.rows) == 20
    assert all(r.rating is not None and r.interval is not None for r in table.rows)
    assert [r.rank for r in table.rows] == [1, 2, 3, 4]
    ratings = [r.rating or 0.0 for r in table.rows]
    assert ratings == sorted(ratings, reverse=True)
    points = read.history(directory)
    assert {(p.run, p.bot) for p in points} == {(1, f"bot{i}") for i in range(4)}
    assert len(list((directory / "replays").iterdir())) == 10


def test_the_trend_is_the_change_since_the_previous_run(make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=3)
    play(directory, 6)
    before = {r.bot: r.rating for r in read.standings(directory).rows}
    play(directory, 6)
    after = read.standings(directory)
    assert after.runs == 2
    for row in after.rows:
        assert row.trend == pytest.approx((row.rating or 0) - (before[row.bot] or 0))


def test_a_new_version_plays_first_its_predecessor_stops_and_history_stays(
        make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=4, batch=2)
    play(directory, 8)
    members.add(directory, "bot1", "builtin:random", version="v2", env={"STRENGTH": "9"})
    assert members.add(directory, "bot1", "builtin:random", version="v2").outcome.value == \
        "unchanged"
    play(directory, 6)
    later = [(r, t, bots) for r, t, bots in seatings(directory) if r > 4]
    assert "bot1@v2" in later[0][2], later
    assert not any("bot1@v1" in bots for _, _, bots in later)
    every = {f"{r.bot}@{r.version}": r for r in read.standings(directory, all_versions=True).rows}
    assert every["bot1@v1"].status == "superseded" and every["bot1@v1"].games > 0
    assert "bot1@v1" not in {f"{r.bot}@{r.version}" for r in read.standings(directory).rows}
    runs = {(p.run, p.version) for p in read.history(directory, "bot1")}
    assert runs == {(1, "v1"), (2, "v1"), (2, "v2")}


def test_the_same_stored_games_and_seed_make_the_same_choices(
        tmp_path: Path, make_ladder: MakeLadder) -> None:
    first = make_ladder(bots=5, name="a")
    second = make_ladder(bots=5, name="b")
    shutil.copy(first / SALT_NAME, second / SALT_NAME)
    for directory in (first, second):
        play(directory, 5)
        play(directory, 3)
    assert seatings(first) == seatings(second)
    assert [r for r, t, _ in seatings(first) if t == 0] == [1, 2, 3]


def test_a_round_cut_by_a_killed_run_is_finished_first(make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=5, batch=4)
    play(directory, 4)
    plan = cut_round(directory, 4)
    cut = play(directory, 3)
    assert (cut.played, cut.resumed) == (3, 3)
    assert [t for r, t, _ in seatings(directory) if r == 2] == [0, 1, 2]
    members.retire(directory, plan.tables[3].seatings[0][0].split("@")[0])
    rest = play(directory, 2)
    assert (rest.played, rest.resumed) == (2, 0), "the retired bot's table is dropped"
    assert [t for r, t, _ in seatings(directory) if r == 2] == [0, 1, 2]
    assert {r for r, _, _ in seatings(directory)} == {1, 2, 3}


def test_a_version_retired_or_superseded_during_a_run_plays_no_later_round(
        make_ladder: MakeLadder) -> None:
    # a bot retired (or replaced by a new version) while the nightly run played went on
    # being scheduled in every round until the run ended, up to its whole --minutes
    directory = make_ladder(bots=4, batch=2)
    changed: list[int] = []

    def member_acts(state: Progress) -> None:  # between the run's first game and its next
        if state.done >= 1 and not changed:
            changed.append(state.done)
            members.retire(directory, "bot0")
            members.add(directory, "bot1", "builtin:random", version="v2")

    result = LadderRun(directory, Budget(games=8), concurrency=1, referee=FakeReferee,
                       on_progress=member_acts).run()
    later = [bots for r, _, bots in seatings(directory) if r >= 2]
    assert later and result.played == 8
    assert not [b for bots in later for b in bots if b in ("bot0@v1", "bot1@v1", "bot1@v2")]
    assert result.dropped == ("bot0@v1 was retired while this run played: its later rounds "
                              "leave it out",
                              "bot1@v1 was superseded while this run played: its later "
                              "rounds leave it out")


def test_a_run_left_with_too_few_active_bots_plans_no_more_rounds(
        make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=2, batch=2)

    retired: list[int] = []

    def retire(state: Progress) -> None:
        if state.done >= 1 and not retired:
            retired.append(state.done)
            members.retire(directory, "bot0")

    result = LadderRun(directory, Budget(games=8), concurrency=1, referee=FakeReferee,
                       on_progress=retire).run()
    assert result.played == 2, "the round under way finishes"
    assert {r for r, _, _ in seatings(directory)} == {1}
    assert result.dropped[-1] == ("1 bot of this run is still active and a table needs 2: "
                                  "the run plans no more rounds")


def test_a_second_run_is_refused_while_one_holds_the_ladder(make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=2)
    with ladder_lock(directory, wait=False):
        with pytest.raises(LadderBusy, match=r"another `arena ladder run` is playing .*pid "):
            with ladder_lock(directory, wait=False):
                pass
    with ladder_lock(directory, wait=False):
        pass


def test_too_few_bots_is_one_clear_error(make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=1)
    with pytest.raises(ConfigError, match="1 active bot.* a table needs 2"):
        play(directory, 1)


def test_a_bot_whose_command_is_gone_is_left_out_with_a_line(
        tmp_path: Path, make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=2)
    script = tmp_path / "gone.py"
    script.write_text("")
    members.add(directory, "gone", f"python3 {script}")
    script.unlink()
    result = play(directory, 2)
    assert result.played == 2
    assert len(result.skipped) == 1 and "gone@" in result.skipped[0]
    assert "not found" in result.skipped[0]
    assert json.dumps(seatings(directory)).count("gone@") == 0


def test_the_stored_columns_give_the_table_a_rebuild_gives(make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=4, batch=3)
    play(directory, 6)
    cut_round(directory, 3)
    play(directory, 1)  # one game of the cut round: it is read from the seats
    store = LadderStore.open(directory)
    try:
        cached = store.cached_columns()
        assert cached.through == 2 and cached.games == 6
        fresh_table = compute_table(store, None)[0]
        assert sum(s.games for s in fresh_table) == 14
        store.db.execute("UPDATE fitcache SET data = x'00'")
        assert store.cached_columns().games == 6, "a damaged blob is rebuilt"
        store.db.execute("DELETE FROM fitcache")
        rebuilt = compute_table(store, None)[0]
    finally:
        store.close()
    assert [(s.entry, s.games, s.wins, s.placings) for s in rebuilt] == [
        (s.entry, s.games, s.wins, s.placings) for s in fresh_table]
    for a, b in zip(rebuilt, fresh_table, strict=True):
        assert a.rating == pytest.approx(b.rating, abs=1e-6)


def test_a_window_rates_the_most_recent_games_only(make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=3, extra="window: 10\n")
    play(directory, 16)
    table = read.standings(directory)
    assert (table.games, table.rated) == (16, 10)
    assert sum(r.games for r in table.rows) == 32, "counts cover every game"


def test_a_minutes_budget_stops_planning_when_time_is_up() -> None:
    budget = Budget(minutes=1)
    assert budget.left(0, time.monotonic()) > 1000
    assert budget.left(0, time.monotonic() - 61) == 0
    assert Budget(games=5).left(3, time.monotonic()) == 2


def test_wait_blocks_until_the_running_one_ends(make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=2)
    said: list[str] = []
    got: list[bool] = []

    def second() -> None:
        with ladder_lock(directory, wait=True, on_wait=said.append):
            got.append(True)

    with ladder_lock(directory, wait=False):
        waiter = threading.Thread(target=second)
        waiter.start()
        wait_until(lambda: said, "the second run says it waits")
        assert not got and "waiting for the run in progress" in said[0]
    waiter.join()
    assert got == [True]


@pytest.mark.parametrize(("old", "new", "key"), [
    ("game: machiavelli", "game: machiavelli-rummy", "game"),
    ("players_per_game: 2", "players_per_game: 3", "players_per_game")])
def test_a_changed_game_or_table_size_is_refused_in_one_line(
        make_ladder: MakeLadder, old: str, new: str, key: str) -> None:
    directory = make_ladder(bots=4)
    play(directory, 4)
    path = directory / "ladder.yaml"
    path.write_text(path.read_text().replace(old, new))
    for attempt in (lambda: play(directory, 4), lambda: read.standings(directory)):
        with pytest.raises(ConfigError) as info:
            attempt()
        message = str(info.value)
        assert message.startswith(f"{path}: the file says `{new}`, but this ladder's "
                                  f"database holds `{old}` "), message
        assert "\n" not in message
    path.write_text(path.read_text().replace(new, old))
    assert play(directory, 4).played == 4, "put back, the ladder plays on"


def test_a_ladder_from_before_the_stored_game_is_held_to_its_games(
        make_ladder: MakeLadder) -> None:
    """A ladder made before init stored its game: its stored games say what it plays."""
    directory = make_ladder(bots=4)
    play(directory, 4)
    with closing(sqlite3.connect(directory / "results.sqlite")) as db, db:
        db.execute("DELETE FROM meta WHERE key IN ('ladder_game', 'ladder_seats')")
    path = directory / "ladder.yaml"
    path.write_text(path.read_text().replace("players_per_game: 2", "players_per_game: 3"))
    with pytest.raises(ConfigError, match="`players_per_game: 2`"):
        play(directory, 4)


def test_arena_verify_checks_a_ladders_games_and_calls_it_a_ladder(
        make_ladder: MakeLadder) -> None:
    # it said "the run was begun under older tournament rules (1; this arena follows 5)"
    directory = make_ladder(bots=3)
    LadderRun(directory, Budget(games=3), concurrency=1).run()  # the real referee
    report = verify_run(directory, REGISTRY)
    assert report.games == 3 and not report.mismatches
    assert [n for n in report.notes if "ladder" in n] and \
        not [n for n in report.notes if "older tournament rules" in n], report.notes
