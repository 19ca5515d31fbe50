"""A ladder's errors: a damaged database is refused before any game, a full disk is said to
be one, an init that fails leaves nothing behind, and every line's advice is something
`arena ladder` can do (no `--out`, no `--resume`: the next run goes on by itself)."""

from __future__ import annotations

import errno
import os
import random
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.core.errors import ArenaError, StoreError
from arena.ladder import members
from arena.ladder.run import Budget, LadderRun
from arena.ladder.store import LadderStore
from arena.tournament import store as tournament_store
from tests.ladder.conftest import MakeLadder, play
from tests.tournament.fakes import AlwaysDiesReferee, FakeReferee, FullDiskReferee

VICTIM = "r1-t1-g0"
"""The ladder game the failing referees below fail on (round 1 has 4 tables)."""


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def damage(directory: Path) -> None:
    """Overwrite two pages that hold stored games' records with noise, as a bad disk
    sector would: the file opens, and reads that need only the versions, the snapshot and
    the count of games (an index) still answer."""
    path = directory / "results.sqlite"
    with closing(sqlite3.connect(path)) as db:
        size = db.execute("PRAGMA page_size").fetchone()[0]
        leaves = [row[0] for row in db.execute(
            "SELECT pageno FROM dbstat WHERE name = 'games' AND pagetype = 'leaf' "
            "ORDER BY pageno")]
    assert len(leaves) > 4
    with path.open("r+b") as handle:
        handle.seek((leaves[len(leaves) // 2] - 1) * size)
        handle.write(random.Random(1).randbytes(2 * size))


@pytest.fixture
def damaged(make_ladder: MakeLadder) -> Path:
    directory = make_ladder(bots=6, batch=50)
    play(directory, 400)
    assert not (directory / "results.sqlite-wal").exists()  # all of it is in the file
    damage(directory)
    return directory


def test_a_damaged_database_plays_no_game_and_is_one_line(runner: CliRunner,
                                                          damaged: Path) -> None:
    replays = sorted((damaged / "replays").iterdir())
    result = runner.invoke(main, ["ladder", "run", str(damaged), "--games", "2", "-j", "1",
                                  "--no-report"])
    assert result.exit_code == 1, result.output
    [line] = lines(result.output)
    assert f"{damaged / 'results.sqlite'} is damaged (" in line
    assert "--out" not in line and "restore it from a backup" in line
    assert sorted((damaged / "replays").iterdir()) == replays, "no game was played"


@pytest.mark.parametrize("command", [["standings"], ["list"], ["history"]])
def test_the_readers_warn_in_one_line_that_the_database_is_damaged(
        runner: CliRunner, damaged: Path, command: list[str]) -> None:
    result = runner.invoke(main, ["ladder", *command, str(damaged)])
    [warning] = [line for line in lines(result.output) if "damaged" in line]
    assert warning.startswith(f"warning: {damaged / 'results.sqlite'} is damaged (")
    assert "--out" not in warning


def test_a_whole_database_gets_no_warning(runner: CliRunner, make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=2)
    play(directory, 2)
    result = runner.invoke(main, ["ladder", "standings", str(directory)])
    assert result.exit_code == 0 and "warning" not in result.output, result.output


class KillsItsWorker(AlwaysDiesReferee):
    """Its worker process is killed (SIGKILL) in game VICTIM, every time."""

    victim = VICTIM


class FillsTheDisk(FullDiskReferee):
    """The disk fills up while game VICTIM's replay is written."""

    victim = VICTIM


@pytest.mark.parametrize(("referee", "start"), [
    (KillsItsWorker, f"game {VICTIM} "), (FillsTheDisk, "the disk is full: could not write")],
    ids=["worker deaths", "full disk"])
def test_a_stopped_run_says_the_next_run_goes_on_not_resume(
        make_ladder: MakeLadder, referee: type[FakeReferee], start: str) -> None:
    directory = make_ladder(bots=4)
    with pytest.raises(ArenaError) as info:
        LadderRun(directory, Budget(games=4), concurrency=1, referee=referee).run()
    message = str(info.value)
    assert message.startswith(start) and "\n" not in message, message
    assert "--resume" not in message
    assert message.endswith("once that is fixed, the next `arena ladder run` goes on from "
                            "there")
    again = play(directory, 4)
    assert again.resumed >= 1, "the next run finishes the round first"
    assert VICTIM in {p.stem for p in (directory / "replays").iterdir()}


def test_a_missing_salt_says_what_a_ladder_can_do(make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=2)
    play(directory, 2)
    (directory / "secret.salt").unlink()
    with pytest.raises(StoreError) as info:
        play(directory, 2)
    message = str(info.value)
    assert message.startswith(f"{directory / 'secret.salt'} is missing: ")
    assert "--out" not in message and "restore it from a backup" in message


def full(*args: object, **kwargs: object) -> None:
    raise sqlite3.OperationalError("database or disk is full")


def test_add_on_a_full_disk_is_one_line(runner: CliRunner, make_ladder: MakeLadder,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    directory = make_ladder(bots=1)
    monkeypatch.setattr(LadderStore, "register", full)
    result = runner.invoke(main, ["ladder", "add", str(directory), "late", "--cmd",
                                  "builtin:random"])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    [line] = lines(result.output)
    assert line.startswith("Error: the disk is full: could not write ")
    assert "--resume" not in line


def io_error(*args: object, **kwargs: object) -> None:
    """What SQLite raises when it cannot grow the -shm file beside the database."""
    exc = sqlite3.OperationalError("disk I/O error")
    exc.sqlite_errorcode = 4874  # SQLITE_IOERR_SHMSIZE
    raise exc


@pytest.mark.parametrize("command", [["standings"], ["retire", "bot0"]])
def test_an_io_error_on_a_full_disk_says_the_disk_is_full(
        runner: CliRunner, make_ladder: MakeLadder, monkeypatch: pytest.MonkeyPatch,
        command: list[str]) -> None:
    directory = make_ladder(bots=2)
    monkeypatch.setattr(tournament_store, "_space_left", lambda path: 0)
    monkeypatch.setattr(LadderStore, "versions", io_error)
    result = runner.invoke(main, ["ladder", command[0], str(directory), *command[1:]])
    assert result.exit_code == 1, result.output
    [line] = lines(result.output)
    assert line.startswith("Error: the disk is full: ") and "not a usable" not in line
    assert "move it aside" not in line


def test_an_io_error_with_space_left_is_not_a_full_disk(make_ladder: MakeLadder,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    directory = make_ladder(bots=2)
    monkeypatch.setattr(LadderStore, "versions", io_error)
    with pytest.raises(StoreError, match="is not a usable results database"):
        members.retire(directory, "bot0")


def test_init_on_a_full_disk_leaves_nothing_and_a_later_init_works(
        runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = tmp_path / "club"

    def no_space(out: Path) -> str:
        raise StoreError(f"cannot write {out / 'secret.salt'} ([Errno 28] "
                         f"{os.strerror(errno.ENOSPC)})")

    monkeypatch.setattr(members, "ensure_salt", no_space)
    args = ["ladder", "init", str(directory), "--game", "machiavelli"]
    failed = runner.invoke(main, args)
    assert failed.exit_code == 1, failed.output
    [line] = lines(failed.output)
    assert line.startswith(f"Error: the disk is full: could not create the ladder in "
                           f"{directory} ")
    assert not directory.exists(), "nothing half-made is left"
    monkeypatch.undo()
    assert runner.invoke(main, args).exit_code == 0
    assert runner.invoke(main, ["ladder", "standings", str(directory)]).exit_code == 0


def test_init_finishes_what_an_init_stopped_half_way_left(runner: CliRunner,
                                                          tmp_path: Path) -> None:
    directory = tmp_path / "club"
    directory.mkdir()
    (directory / "results.sqlite").write_bytes(b"")  # killed as the database was made
    result = runner.invoke(main, ["ladder", "init", str(directory), "--game", "machiavelli"])
    assert result.exit_code == 0, result.output
    assert runner.invoke(main, ["ladder", "add", str(directory), "a", "--cmd",
                                "builtin:random"]).exit_code == 0


def test_init_never_replaces_a_database_that_holds_bots(make_ladder: MakeLadder) -> None:
    directory = make_ladder(bots=1)
    (directory / "ladder.yaml").unlink()
    with pytest.raises(StoreError, match="already holds a results database"):
        members.init(directory, game="machiavelli")
    assert [v.bot for v in LadderStore.open(directory).versions()] == ["bot0"]


@pytest.mark.parametrize("command", ["report", "verify"])
def test_arena_report_and_verify_on_a_ladder_give_the_ladders_advice(
        runner: CliRunner, make_ladder: MakeLadder, monkeypatch: pytest.MonkeyPatch,
        command: str) -> None:
    # they ended "(with --resume if it holds games)" on a full disk, and verify "move it
    # aside or pick another --out" for a damaged file: options a ladder does not have
    directory = make_ladder(bots=2)
    play(directory, 2)
    monkeypatch.setattr(tournament_store, "_space_left", lambda path: 0)
    monkeypatch.setattr(tournament_store.Store, "_setup", io_error)  # as it opens the file
    result = runner.invoke(main, [command, str(directory)])
    assert result.exit_code == 1, result.output
    [line] = lines(result.output)
    assert line.startswith("Error: the disk is full: ") and "--resume" not in line, line
    assert "arena ladder run" in line
