"""The runner with worker processes and an injected fake referee: games stored once,
standings derived, outputs written, resume plays only what is missing."""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import sqlite3
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.core.errors import ArenaError, StoreError
from arena.core.game import Json
from arena.core.record import GameRecord
from arena.referee.limits import Cgroup, Enforcer, detect
from arena.tournament.config import TournamentConfig, parse_config
from arena.tournament.runner import Job, Progress, Runner, static_schedule
from arena.tournament.store import GameKey, Store, StoredGame
from arena.tournament.workers import DiskFull, Pool
from tests.conditions import wait_until
from tests.polyglot.starters import missing
from tests.tournament.fakes import (
    VICTIM,
    AlwaysDiesReferee,
    BigReplayReferee,
    DiesOnceReferee,
    EnvironReferee,
    FakeReferee,
    FullDatabaseReferee,
    FullDiskReferee,
    OrphaningReferee,
    toy_registry,
)


def config(fmt: str = "round-robin", extra: str = "", bots: int = 5,
           seats: int = 2) -> TournamentConfig:
    lines = [f"  - {{name: bot{i}, cmd: 'builtin:random', env: {{STRENGTH: '{1 + i}'}}}}"
             for i in range(bots)]
    text = (f"name: t\ngame: toy\nformat: {fmt}\nplayers_per_game: {seats}\nseed: 11\n"
            f"{extra}bots:\n" + "\n".join(lines) + "\n")
    return parse_config(text, "t.yaml", Path("/tmp"), toy_registry())


def pin_salt(out: Path) -> None:
    """Give a run a known secret salt (as copying one in would), so its games are known."""
    out.mkdir(parents=True, exist_ok=True)
    salt = out / "secret.salt"
    if not salt.exists():
        os.close(os.open(salt, os.O_WRONLY | os.O_CREAT, 0o600))
        salt.write_text("5a17" * 16 + "\n")


def run(cfg: TournamentConfig, out: Path, resume: bool = False, concurrency: int = 2,
        seen: list[Progress] | None = None) -> list[dict[str, object]]:
    pin_salt(out)
    runner = Runner(cfg, out, concurrency=concurrency, resume=resume, referee=FakeReferee,
                    on_progress=(seen.append if seen is not None else None))
    table = runner.run()
    return [row.to_json() for row in table.rows]


def test_round_robin_runs_every_game_once(tmp_path: Path) -> None:
    cfg = config(extra="games_per_pairing: 2\n")
    seen: list[Progress] = []
    rows = run(cfg, tmp_path, seen=seen)
    store = Store.open(tmp_path, cfg.fingerprint)
    games = store.games()
    assert len(games) == 5 * 4 == seen[-1].total == seen[-1].done
    assert len({g.key for g in games}) == len(games)
    assert len(store.rounds()) == len(static_schedule(cfg) or [])
    assert sum(r["games"] for r in rows) == 2 * len(games)  # type: ignore[misc]
    assert rows[0]["bot"] == "bot4"  # the strongest fake bot
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["standings"] == rows and len(results["games"]) == 20
    assert (tmp_path / "standings.csv").read_text().splitlines()[0].startswith("rank,bot,")
    assert len(list((tmp_path / "replays").glob("*.jsonl"))) == 20


def test_workers_see_the_environment_of_their_run(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # workers fork from a server process started once: each run must still hand its
    # workers (and so their bots) the environment as it is when the run starts
    cfg = config(extra="games_per_pairing: 1\n")
    for mark in ("first", "second"):
        monkeypatch.setenv("ARENA_TEST_MARK", mark)
        out = tmp_path / mark
        pin_salt(out)
        Runner(cfg, out, concurrency=2, referee=EnvironReferee).run()
        seen = {p.read_text() for p in (out / "replays").glob("*.jsonl")}
        assert seen == {mark + "\n"}


def test_results_do_not_depend_on_concurrency(tmp_path: Path) -> None:
    cfg = config("round-robin", seats=3, bots=6, extra="games_per_pairing: 3\n")
    one = run(cfg, tmp_path / "one", concurrency=1)
    two = run(cfg, tmp_path / "two", concurrency=2)
    assert one == two


def test_swiss_records_each_round_and_resume_is_idempotent(tmp_path: Path) -> None:
    cfg = config("swiss", extra="rounds: 4\n", bots=7)
    rows = run(cfg, tmp_path)
    store = Store.open(tmp_path, cfg.fingerprint)
    plans = store.rounds()
    assert [p.round for p in plans] == [1, 2, 3, 4]
    assert all(len(p.byes) == 1 for p in plans)
    assert len({p.byes[0] for p in plans}) == 4
    count = len(store.games())
    store.close()
    assert run(cfg, tmp_path, resume=True) == rows
    assert len(Store.open(tmp_path, cfg.fingerprint).games()) == count == 4 * 3


def test_a_used_directory_needs_resume_and_the_same_file(tmp_path: Path) -> None:
    cfg = config()
    run(cfg, tmp_path)
    with pytest.raises(StoreError, match="--resume"):
        run(cfg, tmp_path)
    with pytest.raises(StoreError, match="another tournament file"):
        run(config(extra="games_per_pairing: 2\n"), tmp_path, resume=True)


class _BuggyReferee(FakeReferee):
    """Plays two games, then fails the way an engine bug would."""

    played = 0

    def play(self, game: str, rules: Mapping[str, Json], seed: int, seating: Sequence[str],
             replay: Path | None = None) -> GameRecord:
        type(self).played += 1
        if type(self).played > 2:
            raise RuntimeError("boom")
        return super().play(game, rules, seed, seating, replay)


def test_an_unexpected_worker_error_is_one_line_with_its_traceback_in_a_file(
        tmp_path: Path) -> None:
    cfg = config()
    runner = Runner(cfg, tmp_path, concurrency=1, referee=_BuggyReferee)
    with pytest.raises(ArenaError) as info:
        runner.run()
    message = str(info.value)
    assert "RuntimeError: boom (traceback in " in message
    assert "Traceback" not in message
    log = tmp_path / "logs" / "worker-0" / "error.log"
    assert "RuntimeError: boom" in log.read_text()
    assert len(Store.open(tmp_path, cfg.fingerprint).games()) == 2  # committed games kept


class _LongErrorReferee(FakeReferee):
    """Fails its first game with a message far larger than a pipe's buffer."""

    def play(self, game: str, rules: Mapping[str, Json], seed: int, seating: Sequence[str],
             replay: Path | None = None) -> GameRecord:
        raise ArenaError("engine trouble: " + "x" * 1_000_000 + " END")


def test_a_worker_error_longer_than_a_pipe_buffer_arrives_whole(tmp_path: Path) -> None:
    # the old worker queued its error on a feeder thread and exited without waiting: the
    # parent got a cut-off message (and waited forever for the rest) or "worker died"
    runner = Runner(config(), tmp_path, concurrency=1, referee=_LongErrorReferee)
    with pytest.raises(ArenaError) as info:
        runner.run()
    message = str(info.value)
    assert message.startswith("game r1-t") and message.endswith(" END")
    assert "died" not in message


class _FailsAtOnce(FakeReferee):
    def play(self, game: str, rules: Mapping[str, Json], seed: int, seating: Sequence[str],
             replay: Path | None = None) -> GameRecord:
        raise RuntimeError("boom")


def test_an_error_is_read_even_when_its_worker_exited_before_the_parent_looked(
        tmp_path: Path) -> None:
    cfg = config()
    runner = Runner(cfg, tmp_path, concurrency=1, referee=_FailsAtOnce)
    Store.open(tmp_path, cfg.fingerprint, create=True).close()
    job = Job(GameKey(1, 0, 0), ("bot0", "bot1"), 7)
    with Pool(runner, lambda key: None) as pool:
        pool.submit(job)
        pool.dispatch()
        worker = pool.workers[0].process
        wait_until(lambda: worker.exitcode is not None, "the worker exited")  # before a read
        with pytest.raises(ArenaError, match=r"failed in worker 0: RuntimeError: boom"):
            while True:
                pool.next_event()


def stored_games(out: Path, cfg: TournamentConfig) -> list[StoredGame]:
    store = Store.open(out, cfg.fingerprint)
    try:
        return store.games()
    finally:
        store.close()


def outcomes(out: Path, cfg: TournamentConfig) -> list[tuple[str, object]]:
    """Every stored game and its record, less the replay path (which names the directory)."""
    return [(str(g.key), {k: v for k, v in g.record.to_json().items() if k != "replay"})
            for g in stored_games(out, cfg)]


def test_a_worker_that_dies_is_replaced_and_its_game_played_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cfg = config(extra="games_per_pairing: 2\n")
    whole = run(cfg, tmp_path / "whole")
    pin_salt(tmp_path / "out")
    runner = Runner(cfg, tmp_path / "out", concurrency=2, referee=DiesOnceReferee)
    with caplog.at_level(logging.WARNING, logger="arena"):
        rows = [row.to_json() for row in runner.run().rows]
    assert (tmp_path / "out" / "died-once").exists()  # it did die
    assert rows == whole
    games = stored_games(tmp_path / "out", cfg)
    assert len(games) == 20
    assert outcomes(tmp_path / "out", cfg) == outcomes(tmp_path / "whole", cfg)
    assert runner.progress.done == 20
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert re.fullmatch(rf"worker \d exited with status 3 while playing game {VICTIM}; a new "
                        r"worker plays it again from the start \(try 2 of 3\)", warning)
    replay = tmp_path / "out" / "replays" / f"{VICTIM}.jsonl"
    assert json.loads(replay.read_text())["seating"]  # whole again, not the cut-off one


def test_a_dead_workers_cgroups_are_emptied_and_removed(tmp_path: Path) -> None:
    # its bots' sandboxes die with it, but their cgroups stayed, one per bot start: a
    # season of nightly runs left thousands under /sys/fs/cgroup
    if detect()[0] is Enforcer.RLIMIT:
        missing("no cgroup to leave behind here")
    cfg = config(extra="games_per_pairing: 2\n")
    runner = Runner(cfg, tmp_path, concurrency=2, referee=OrphaningReferee)
    runner.run()
    worker, sleeper = map(int, (tmp_path / "orphan").read_text().split())
    assert Cgroup.left_by(worker) == []
    wait_until(lambda: not alive(sleeper), "the sleeper in the dead worker's cgroup killed")


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its reaper does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_game_that_keeps_killing_its_worker_stops_the_run(tmp_path: Path) -> None:
    cfg = config(extra="games_per_pairing: 2\n")
    runner = Runner(cfg, tmp_path, concurrency=2, referee=AlwaysDiesReferee)
    with pytest.raises(ArenaError) as info:
        runner.run()
    message = str(info.value)
    assert "\n" not in message
    assert re.match(rf"game {VICTIM} \(bot\d, bot\d\) killed its worker 3 times \(the last was "
                    r"killed by SIGKILL\); the run stops here; .* --resume$", message)
    assert not (tmp_path / "replays" / f"{VICTIM}.jsonl").exists()
    assert VICTIM not in {str(g.key) for g in stored_games(tmp_path, cfg)}


@pytest.mark.parametrize("referee", [FullDiskReferee, FullDatabaseReferee],
                         ids=["replay", "database"])
def test_a_full_disk_in_a_worker_is_one_line_and_resume_goes_on(
        tmp_path: Path, referee: type[FakeReferee]) -> None:
    cfg = config(extra="games_per_pairing: 2\n")
    whole = run(cfg, tmp_path / "whole")
    out = tmp_path / "out"
    pin_salt(out)
    with pytest.raises(DiskFull) as info:
        Runner(cfg, out, concurrency=1, referee=referee).run()
    message = str(info.value)
    assert "\n" not in message
    assert re.fullmatch(rf"the disk is full: could not (write .*{VICTIM}\.jsonl|commit to "
                        rf".*results\.sqlite) while playing game {VICTIM} \(.*\); the games "
                        r"committed so far are kept: once that is fixed, run again with "
                        r"--resume", message)
    assert not (out / "replays" / f"{VICTIM}.jsonl").exists()  # no cut-off replay is left
    with closing(sqlite3.connect(out / "results.sqlite")) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    kept = stored_games(out, cfg)
    assert kept and VICTIM not in {str(g.key) for g in kept}
    assert run(cfg, out, resume=True) == whole  # once there is room
    assert outcomes(out, cfg) == outcomes(tmp_path / "whole", cfg)


def test_a_full_disk_while_writing_the_results_files_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = config()
    whole = run(cfg, tmp_path / "whole")

    def full(out: Path, *args: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(out / "results.json"))

    monkeypatch.setattr("arena.tournament.runner.write_outputs", full)
    with pytest.raises(DiskFull, match=r"^the disk is full: could not write .*results\.json "
                                       r"\(No space left on device\); the games committed so "
                                       r"far are kept in .*: free some space, then run again "
                                       r"with --resume$"):
        run(cfg, tmp_path / "out")
    monkeypatch.undo()
    assert len(stored_games(tmp_path / "out", cfg)) == 10
    assert run(cfg, tmp_path / "out", resume=True) == whole
    assert (tmp_path / "out" / "standings.csv").exists()


def test_resume_where_no_run_is_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    out = tmp_path / "nothing-here"
    with pytest.raises(StoreError, match=r"nothing-here holds no run of 't' to resume; drop "
                                         r"--resume to start one"):
        Runner(config(), out, resume=True, referee=FakeReferee).run()
    assert not out.exists()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KB tmpfs (root only; under CI=true, where we run as root, a failure to mount
    fails the test rather than skipping it)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        missing("a real full disk needs root to mount a small tmpfs")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        missing(f"cannot mount a small tmpfs: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def test_a_really_full_disk_stops_the_run_cleanly_and_resume_goes_on(
        small_disk: Path, tmp_path: Path) -> None:
    cfg = config(extra="games_per_pairing: 2\n")
    whole = run(cfg, tmp_path / "whole")
    out = small_disk / "run"
    pin_salt(out)
    with pytest.raises(DiskFull) as info:
        # one worker: which write fills the disk is then the same every time (with two,
        # both could fill it on their first game, and no game would be stored)
        Runner(cfg, out, concurrency=1, referee=BigReplayReferee).run()
    message = str(info.value)
    assert message.startswith("the disk is full") and "\n" not in message
    with closing(sqlite3.connect(f"file:{out / 'results.sqlite'}?mode=ro", uri=True)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = {str(g.key) for g in stored_games(out, cfg)}
    assert 0 < len(stored) < 20
    # every replay left is a stored game's: no cut-off one
    assert {p.stem for p in (out / "replays").iterdir()} <= stored
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    assert run(cfg, out, resume=True) == whole  # once there is room
    assert outcomes(out, cfg) == outcomes(tmp_path / "whole", cfg)


def test_arena_run_resume_where_no_run_is_says_so_in_one_line(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text("name: small\ngame: machiavelli\nplayers_per_game: 2\nbots:\n"
                    "  - {name: a, cmd: 'builtin:random'}\n  - {name: b, cmd: 'builtin:random'}\n")
    out = tmp_path / "empty"
    result = CliRunner().invoke(main, ["run", str(file), "--resume", "--out", str(out)])
    assert result.exit_code == 1
    assert result.output.strip() == (f"Error: {out} holds no run of 'small' to resume; drop "
                                     "--resume to start one")
    assert not out.exists()


def test_an_interrupt_before_the_first_game_says_so(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while the executor starts (a cluster coming up): no '0 of ? games'."""
    import contextlib

    from arena.tournament import runner as runner_module
    from arena.tournament.runner import Interrupted

    @contextlib.contextmanager
    def starting(*args: object) -> Iterator[None]:
        raise KeyboardInterrupt
        yield

    monkeypatch.setattr(runner_module, "open_executor", starting)
    pin_salt(tmp_path)
    with pytest.raises(Interrupted, match=r"^interrupted before this run.s first game: 0 "
                                          r"games stored in .*results.sqlite$"):
        Runner(config(), tmp_path, referee=FakeReferee).run()


def test_a_stored_game_no_round_pairs_is_refused_not_counted(tmp_path: Path) -> None:
    """Found by an audit: a game row added by hand (round 9 of a 5-round run) was counted
    in the standings on --resume."""
    cfg = config()
    run(cfg, tmp_path)
    with closing(sqlite3.connect(tmp_path / "results.sqlite")) as db:
        db.execute("INSERT INTO games SELECT 9, tbl, repeat, seed, game, termination, "
                   "decisions, faults, replay, record, finished, digest FROM games "
                   "ORDER BY round, tbl, repeat LIMIT 1")  # r1-t0-g0, whoever finished first
        db.commit()
        held = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    with pytest.raises(StoreError, match=r"holds game r9-t0-g0, which no round of this run "
                                         r"pairs"):
        run(cfg, tmp_path, resume=True)
    with closing(sqlite3.connect(tmp_path / "results.sqlite")) as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == held


def test_resume_with_an_edited_file_names_what_it_changed(tmp_path: Path) -> None:
    """Found by an organiser who fixed a member's bot mid-evening: two fingerprints told him
    only that the file differed, not where."""
    cfg = config()
    run(cfg, tmp_path)
    edited = config(extra="games_per_pairing: 2\n")
    edited = replace(edited, scored={**(edited.scored or {}), "bots": [
        {**b, "env": {"STRENGTH": "9"}} if b["name"] == "bot2" else b
        for b in (edited.scored or {})["bots"]] + [{"name": "zed", "cmd": "builtin:random"}]})
    edited = replace(edited, fingerprint="0" * 16)
    with pytest.raises(StoreError) as caught:
        run(edited, tmp_path, resume=True)
    text = str(caught.value)
    assert "another tournament file" in text and "\n" not in text
    assert "What this file changes: bot zed: added; bot bot2: env.STRENGTH: \"3\" -> \"9\"; " \
           "games_per_pairing: (none) -> 2" in text, text


def test_the_differences_of_two_files() -> None:
    from arena.tournament.filediff import differences, summary

    before = {"time": {"move_ms": 200}, "bots": [{"name": "a", "cmd": "x"}, {"name": "b"}]}
    now = {"time": {"move_ms": 300}, "bots": [{"name": "a", "cmd": "y"}], "seed": 3}
    assert differences(before, now) == [
        "bot b: removed", 'bot a: cmd: "x" -> "y"', "seed: (none) -> 3", "time.move_ms: 200 -> 300"]
    assert differences(before, before) == []
    many = {"k": {f"x{i}": i for i in range(8)}}
    assert summary({"k": {}}, many).endswith("k.x4: (none) -> 4 and 3 more")
