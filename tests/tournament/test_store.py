"""The results store (SQLite, WAL) and standings derived from it."""

from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import closing
from pathlib import Path

import pytest

from arena.core.errors import StoreError
from arena.core.game import Termination
from arena.core.record import ForfeitReason, GameRecord, SeatRecord
from arena.tournament.pairing import round_robin
from arena.tournament.standings import PointsRule, compute
from arena.tournament.store import DB_NAME, GameKey, Store, StoredGame
from tests.conditions import wait_until


def record(seed: int, *seats: tuple[str, int]) -> GameRecord:
    return GameRecord("toy@1", {}, seed, Termination.COMPLETED, tuple(
        SeatRecord(i, bot, "1", placing, 10 - placing) for i, (bot, placing) in enumerate(seats)))


def test_games_and_rounds_survive_reopening(tmp_path: Path) -> None:
    store = Store.open(tmp_path, "abc", "t", create=True)
    plan = round_robin(["a", "b", "c"], 2, 2, 1, seed=1)[0]
    store.add_round(plan)
    assert store.add_game(GameKey(1, 0, 0), record(5, ("a", 1), ("b", 2)))
    assert not store.add_game(GameKey(1, 0, 0), record(5, ("a", 2), ("b", 1)))  # not doubled
    store.close()
    again = Store.open(tmp_path, "abc")
    assert again.rounds() == [plan]
    [game] = again.games()
    assert game.key == GameKey(1, 0, 0) and game.record == record(5, ("a", 1), ("b", 2))
    assert again.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    seats = again.db.execute("SELECT bot, placing FROM seats ORDER BY seat").fetchall()
    assert seats == [("a", 1), ("b", 2)]


def test_another_tournament_is_refused_without_touching_games(tmp_path: Path) -> None:
    store = Store.open(tmp_path, "abc", "first", create=True)
    store.add_game(GameKey(1, 0, 0), record(5, ("a", 1), ("b", 2)))
    store.close()
    with pytest.raises(StoreError, match="another tournament file.*'first'"):
        Store.open(tmp_path, "xyz", "second", create=True)
    assert len(Store.open(tmp_path, "abc").games()) == 1


def test_a_damaged_or_foreign_file_gives_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="not a usable results database"):
        Store.open(tmp_path, "abc", create=True)
    assert (tmp_path / DB_NAME).read_bytes().startswith(b"this is not sqlite")
    other = tmp_path / "other"
    other.mkdir()
    sqlite3.connect(other / DB_NAME).execute("CREATE TABLE x (y)").connection.commit()
    with pytest.raises(StoreError, match="not an arena results database"):
        Store.open(other, "abc")
    with pytest.raises(StoreError, match="no results database"):
        Store.open(tmp_path / "missing", None)


def _stored_run(directory: Path) -> None:
    store = Store.open(directory, "abc", "t", create=True)
    store.add_round(round_robin(["a", "b", "c"], 2, 2, 1, seed=1)[0])
    store.add_game(GameKey(1, 0, 0), record(5, ("a", 1), ("b", 2)))
    store.close()


def _edit(directory: Path, statement: str) -> None:
    with closing(sqlite3.connect(directory / DB_NAME)) as db:
        db.execute(statement)
        db.commit()


@pytest.mark.parametrize(("statement", "words"), [
    ("DROP TABLE meta", "its meta table .* is gone"),
    ("DROP TABLE seats", "its table seats is gone"),
    ("DROP TABLE rounds", "its table rounds is gone"),
])
def test_a_database_missing_a_table_is_damaged_not_new(tmp_path: Path, statement: str,
                                                        words: str) -> None:
    """Found by an audit: without its meta table any tournament file resumed into the
    run's games (its fingerprint unchecked); without another table, a traceback."""
    _stored_run(tmp_path)
    _edit(tmp_path, statement)
    for create in (True, False):
        with pytest.raises(StoreError, match=words):
            Store.open(tmp_path, "another tournament's", create=create)
    with closing(sqlite3.connect(tmp_path / DB_NAME)) as db:  # nothing was written
        assert "meta" not in statement or not db.execute(
            "SELECT name FROM sqlite_master WHERE name = 'meta'").fetchall()
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1 or \
            "games" in statement


def test_an_edited_pairing_is_one_line(tmp_path: Path) -> None:
    _stored_run(tmp_path)
    _edit(tmp_path, "UPDATE rounds SET pairing = '{bad'")
    store = Store.open(tmp_path, "abc")
    with pytest.raises(StoreError, match="the stored pairing of round 1 is not valid"):
        store.rounds()
    store.close()


def test_resuming_an_empty_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_bytes(b"")
    with pytest.raises(StoreError, match="holds no run to resume"):
        Store.open(tmp_path, "abc", "t", create=True, existing=True)
    assert (tmp_path / DB_NAME).read_bytes() == b""
    Store.open(tmp_path, "abc", "t", create=True).close()  # a fresh run may start there


def test_a_second_run_is_locked_out(tmp_path: Path) -> None:
    first = Store.open(tmp_path, "abc", create=True)
    first.lock()
    second = Store.open(tmp_path, "abc")
    # named by its pid, which the waiting one's open once erased (a truncating open)
    with pytest.raises(StoreError, match=rf"in use by another arena command \(pid "
                                         rf"{os.getpid()}: a run, a comparison or a ladder"):
        second.lock()
    with pytest.raises(StoreError, match=rf"\(pid {os.getpid()}: "):
        second.lock()
    first.close()
    second.lock()
    second.close()


def test_a_run_waits_for_the_workers_of_a_killed_run(tmp_path: Path) -> None:
    """A worker outlives a run killed with SIGKILL until it has committed its game: the
    next run's lock waits for it, and says why, instead of playing that game too."""
    orphan = Store.open(tmp_path, "abc", create=True)
    orphan.hold_as_worker()
    said, locked = threading.Event(), threading.Event()

    def resume() -> None:
        store = Store.open(tmp_path, "abc")
        store.lock(waiting=said.set)
        locked.set()
        store.close()

    thread = threading.Thread(target=resume)
    thread.start()
    wait_until(said.is_set, "the run saying it waits")
    assert not locked.is_set()  # blocked in flock until the orphan lets go
    orphan.close()
    thread.join()
    assert locked.is_set()
    fresh = Store.open(tmp_path, "abc")
    fresh.lock(waiting=lambda: pytest.fail("no worker is left, nothing to wait for"))
    fresh.close()


def test_a_locked_database_gives_a_clear_error(tmp_path: Path) -> None:
    store = Store.open(tmp_path, "abc", create=True)
    blocker = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    store.db.execute("PRAGMA busy_timeout = 50")
    with pytest.raises(StoreError, match="locked"):
        store.add_game(GameKey(1, 0, 0), record(1, ("a", 1), ("b", 2)))
    blocker.execute("ROLLBACK")
    assert store.add_game(GameKey(1, 0, 0), record(1, ("a", 1), ("b", 2)))


def test_points_share_ties_and_byes_default_to_a_mean_seat() -> None:
    rule = PointsRule()
    assert rule.game([1, 2, 3, 4]) == [3, 2, 1, 0]
    assert rule.game([1, 1, 3, 4]) == [2.5, 2.5, 1, 0]
    assert rule.bye_points(4) == 1.5
    custom = PointsRule((3, 1), bye=2)
    assert custom.game([2, 1, 3]) == [1, 3, 0] and custom.bye_points(3) == 2


def test_standings_are_derived_in_schedule_order() -> None:
    games = [
        StoredGame(GameKey(1, 0, 0), record(1, ("a", 1), ("b", 2))),
        StoredGame(GameKey(1, 1, 0), record(2, ("c", 1), ("d", 2))),
        StoredGame(GameKey(2, 0, 0), record(3, ("a", 1), ("c", 2))),
        StoredGame(GameKey(2, 1, 0), record(4, ("b", 1), ("d", 1))),
    ]
    crashed = GameRecord("toy@1", {}, 9, Termination.FORFEIT, (
        SeatRecord(0, "d", "1", 2, 0, faults=3, timeouts=2, forfeit=ForfeitReason.CRASHED),
        SeatRecord(1, "c", "1", 1, 5)))
    games.append(StoredGame(GameKey(3, 0, 0), crashed))
    table = compute("abcd", games, [], PointsRule(), 2)
    assert table == compute("abcd", list(reversed(games)), [], PointsRule(), 2)
    rows = {r.bot: r for r in table.rows}
    # a round-robin ranks by points per game: a 2 in 2, c 2 in 3, b 0.5 in 2, d 0.5 in 3
    assert [r.bot for r in table.rows] == ["a", "c", "b", "d"]
    # by total points (a Swiss), a and c both have 2; c met stronger opponents (Buchholz 3
    # against 2.5)
    totals = compute("abcd", games, [], PointsRule(), 2, swiss_byes=True)
    assert [r.bot for r in totals.rows] == ["c", "a", "d", "b"]
    assert rows["a"].points == 2 and rows["b"].points == 0.5 and rows["d"].points == 0.5
    assert rows["a"].buchholz == rows["b"].points + rows["c"].points
    assert rows["d"].forfeits == 1 and rows["d"].faults == 3 and rows["d"].timeouts == 2
    assert rows["a"].win_rate == 1 and rows["b"].mean_placing == 1.5
    assert rows["a"].fit_elo is not None and rows["a"].fit_elo > rows["d"].fit_elo  # type: ignore[operator]


def test_a_full_disk_at_the_start_is_called_a_full_disk(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by an audit: a disk too full to create the database was called a damaged one."""
    def full(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Store, "_setup", full)
    with pytest.raises(StoreError, match="^the disk is full: could not write .*results.sqlite"):
        Store.open(tmp_path, "abc", "t", create=True)


def test_a_damaged_page_is_said_on_one_line(tmp_path: Path) -> None:
    from arena.tournament.store import _explain

    error = sqlite3.DatabaseError("*** in database main ***\nPage 3: btreeInitPage() "
                                  "returns error code 11")
    text = str(_explain(tmp_path / DB_NAME, error))
    assert "\n" not in text
    assert "*** in database main ***; Page 3: btreeInitPage() returns error code 11" in text


def test_two_runs_creating_one_database_find_each_other(tmp_path: Path) -> None:
    """The second of two runs started into one new directory at once looked before the
    first had made the tables: it clashed on meta's rows ('not a usable results database')
    instead of finding the first run (and its lock)."""
    first = Store.open(tmp_path, "abc", "t", create=True)
    late = Store(tmp_path / DB_NAME, sqlite3.connect(tmp_path / DB_NAME, timeout=5.0,
                                                     isolation_level=None))
    late._create("abc", "t")  # as the second run does, having seen no tables
    assert late.meta("fingerprint") == "abc" and late.meta("name") == "t"
    first.lock()
    with pytest.raises(StoreError, match="in use by another"):
        late.lock()
    first.close()
    late.close()
