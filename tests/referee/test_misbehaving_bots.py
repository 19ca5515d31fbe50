"""Real misbehaving bot processes: each ends with the right fault or forfeit, the other seats'
game completes, and no process is left over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.core.game import Termination
from arena.core.record import FaultKind, ForfeitReason, GameRecord
from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from arena.referee.sandbox import SandboxMode, SandboxPolicy
from tests.conditions import PATIENCE_S, interruptible, wait_until

HERE = Path(__file__).resolve().parent
PLAIN = SandboxPolicy(SandboxMode.NONE)  # these bots report their pids from outside a sandbox
ROOT = HERE.parents[1]
MISBEHAVE = str(HERE / "bots" / "misbehave.py")
RANDOM = str(ROOT / "sample_bots" / "python" / "random_bot.py")
FAST = TimeControl(move_ms=1000, bank_ms=0, startup_ms=60_000)
"""Short enough for the tests that wait for timeouts, long enough that the well-behaved bots
never miss one on a busy machine."""
SHORT_MS = 5000
"""A startup limit the bad bot runs out (the test waits for all of it) and the good bot's
Python start never does, even on a busy machine."""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose (its parent reaps it)
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))


def pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def play(mode: str, tmp_path: Path, time_control: TimeControl = FAST,
         games: int = 1) -> list[GameRecord]:
    pidfile = tmp_path / "pids"
    bots = [BotSpec("bad", (sys.executable, MISBEHAVE, mode), env={"PIDFILE": str(pidfile)}),
            BotSpec("good", (sys.executable, RANDOM)), BotSpec("builtin", ("builtin:random",))]
    with Referee(bots, time_control, FaultPolicy(max_faults=3), tmp_path,
                 sandbox=PLAIN) as referee:
        records = [referee.play("machiavelli", {}, seed, ["bad", "good", "builtin"])
                   for seed in range(games)]
        versions = referee.versions()
    assert versions["good"] == "1.0"
    started = pids(pidfile)
    assert started, "the bad bot never ran"
    assert not [pid for pid in started if alive(pid)], "a bot process outlived the referee"
    for record in records:
        assert record.seats[1].forfeit is None and record.seats[1].faults == 0
        assert record.termination in (Termination.COMPLETED, Termination.FORFEIT)
    return records


def assert_forfeit(record: GameRecord, reason: ForfeitReason) -> None:
    assert record.seats[0].forfeit is reason
    assert record.seats[0].placing == 3
    assert record.termination is Termination.FORFEIT
    assert {s.placing for s in record.seats[1:]} <= {1, 2}


def test_never_connects(tmp_path: Path) -> None:
    [record] = play("never", tmp_path, TimeControl(move_ms=FAST.move_ms, startup_ms=SHORT_MS))
    assert_forfeit(record, ForfeitReason.NO_CONNECT)


def test_wrong_token_gets_no_seat(tmp_path: Path) -> None:
    [record] = play("wrong_token", tmp_path,
                    TimeControl(move_ms=FAST.move_ms, startup_ms=SHORT_MS))
    assert_forfeit(record, ForfeitReason.NO_CONNECT)
    assert "bad_token" in (tmp_path / "logs" / "bad.log").read_text() or \
        "unknown token" in (tmp_path / "logs" / "bad.log").read_text()


def test_exits_at_once_without_waiting_for_the_startup_limit(tmp_path: Path) -> None:
    # the startup limit is far beyond the patience for the game: waiting for it fails
    limit = TimeControl(move_ms=FAST.move_ms, startup_ms=int(4 * PATIENCE_S * 1000))
    records: list[GameRecord] = []
    game = threading.Thread(target=lambda: records.extend(play("exit", tmp_path, limit)),
                            daemon=True)
    game.start()
    wait_until(lambda: not game.is_alive(), "the game ended before the startup limit")
    [record] = records
    assert_forfeit(record, ForfeitReason.NO_CONNECT)


def test_crashes_mid_game_and_is_restarted_for_the_next(tmp_path: Path) -> None:
    first, second = play("crash", tmp_path, games=2)
    for record in (first, second):
        assert_forfeit(record, ForfeitReason.CRASHED)
        assert record.faults == ()
    assert len(pids(tmp_path / "pids")) == 2  # a fresh process for the second game


def test_sleeps_on_a_request(tmp_path: Path) -> None:
    [record] = play("sleep", tmp_path)
    assert_forfeit(record, ForfeitReason.MAX_FAULTS)
    assert [f.kind for f in record.faults] == [FaultKind.TIMEOUT] * 3
    assert record.seats[0].timeouts == 3
    assert len(pids(tmp_path / "pids")) == 2  # its child was killed with its group


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        ("garbage", FaultKind.NOT_JSON),
        ("shape", FaultKind.BAD_MESSAGE),
        ("stale", FaultKind.TIMEOUT),
        ("malformed", FaultKind.MALFORMED_ACTION),
        ("illegal", FaultKind.ILLEGAL_ACTION),
        ("oversize", FaultKind.OVERSIZE),
    ],
)
def test_bad_replies_fault_until_forfeit(mode: str, kind: FaultKind, tmp_path: Path) -> None:
    [record] = play(mode, tmp_path)
    assert_forfeit(record, ForfeitReason.MAX_FAULTS)
    assert [f.kind for f in record.faults] == [kind] * 3
    assert all(f.seat == 0 for f in record.faults)


def test_flooding_stdout_neither_blocks_nor_fills_the_disk(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    bots = [BotSpec("flood", (sys.executable, MISBEHAVE, "flood"), env={"PIDFILE": str(pidfile)}),
            BotSpec("good", (sys.executable, RANDOM))]
    with Referee(bots, FAST, FaultPolicy(), tmp_path, log_cap=64_000,
                 sandbox=PLAIN) as referee:
        record = referee.play("machiavelli", {}, 1, ["flood", "good"])
    assert record.termination is Termination.COMPLETED and record.faults == ()
    log = tmp_path / "logs" / "flood.log"
    assert 64_000 <= log.stat().st_size < 65_000  # ~1 MB per request was written
    assert "log capped" in log.read_text()
    assert not [pid for pid in pids(pidfile) if alive(pid)]


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT],
                         ids=["sigkill", "sigterm", "sigint"])
def test_no_bot_outlives_an_interrupted_or_killed_referee(signum: int, tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    host = subprocess.Popen([sys.executable, str(HERE / "bots" / "host.py"), str(pidfile),
                             str(tmp_path)], stdout=subprocess.PIPE, cwd=ROOT,
                            preexec_fn=interruptible)
    try:
        assert host.stdout is not None and host.stdout.readline() == b"playing\n"
        wait_until(lambda: len(pids(pidfile)) >= 2, "the bot and its child started")
        bot, child = pids(pidfile)
        assert alive(bot) and alive(child)
        host.send_signal(signum)
        host.wait(timeout=PATIENCE_S)
        wait_until(lambda: not alive(bot) and not alive(child), "the bot and its child ended")
    finally:
        host.kill()
        host.wait()
        host.stdout.close()  # type: ignore[union-attr]
