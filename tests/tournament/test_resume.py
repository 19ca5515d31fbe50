"""End to end through `arena run` in a subprocess, with the real referee and machiavelli:
a run killed with SIGKILL part-way and resumed equals an uninterrupted run; Ctrl-C stops
cleanly, leaves no worker behind and says how to resume, and so does SIGTERM."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from tests.conditions import PATIENCE_S, interruptible, wait_until

BOTS = ["builtin:random"] * 5 + ["builtin:default"] * 2
TOURNAMENT = """\
name: resume-check
game: machiavelli
players_per_game: 4
format: round-robin
games_per_pairing: 4
seed: 99
bots:
""" + "".join(f"  - {{name: bot{i}, cmd: '{cmd}'}}\n" for i, cmd in enumerate(BOTS))
GAMES = 35 * 4  # every 4-subset of 7 bots, 4 times
GATED_BOT = Path(__file__).resolve().parents[1] / "gated_bot.py"
READER_GOES = Path(__file__).resolve().parents[1] / "reader_goes.py"


def arena(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena", *args]


def stored(out: Path) -> int:
    try:
        with closing(sqlite3.connect(out / "results.sqlite", timeout=5)) as db:
            return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def outcome(out: Path) -> tuple[object, object]:
    results = json.loads((out / "results.json").read_text())
    games = [{k: v for k, v in g.items() if k != "replay"} for g in results["games"]]
    return games, results["standings"]


def start(file: Path, out: Path, capture: bool = True,
          workers: int = 2) -> subprocess.Popen[bytes]:
    pipe = subprocess.PIPE if capture else subprocess.DEVNULL
    return subprocess.Popen(arena("run", str(file), "--out", str(out), "-j", str(workers)),
                            stdout=pipe, stderr=pipe, preexec_fn=interruptible)


def wait_for(out: Path, games: int, process: subprocess.Popen[bytes]) -> None:
    def there() -> bool:
        assert process.poll() is None, process.returncode
        return stored(out) >= games

    wait_until(there, f"{games} games stored")


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def descendants(pid: int) -> list[int]:
    """Children, theirs, and so on: workers are children of a fork server, not of the run."""
    found = children(pid)
    for child in list(found):
        found.extend(descendants(child))
    return found


def workers_hold(out: Path) -> bool:
    """Whether some worker holds its shared lock on OUT/results.workers."""
    with open(out / "results.workers", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        return False


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(TOURNAMENT)
    whole = subprocess.run(arena("run", str(file), "--out", str(tmp_path / "whole"), "-j", "2"),
                           capture_output=True, timeout=300)
    assert whole.returncode == 0, whole.stderr.decode()
    assert stored(tmp_path / "whole") == GAMES

    cut = tmp_path / "cut"
    cut.mkdir()  # the same secret salt, so the same deals as the uninterrupted run
    shutil.copy(tmp_path / "whole" / "secret.salt", cut / "secret.salt")
    process = start(file, cut, capture=False)
    wait_for(cut, 20, process)
    workers = descendants(process.pid)
    assert workers_hold(cut)  # what a resumed run waits for
    process.send_signal(signal.SIGKILL)
    process.wait()
    # orphaned workers finish and commit their game, then see the parent gone
    wait_until(lambda: not [pid for pid in workers if alive(pid)], "the orphaned workers ended")
    partial = stored(cut)
    assert 20 <= partial < GAMES
    again = subprocess.run(arena("run", str(file), "--out", str(cut)), capture_output=True,
                           timeout=300)
    assert again.returncode == 1 and b"--resume" in again.stderr
    resumed = subprocess.run(arena("run", str(file), "--out", str(cut), "--resume", "-j", "2"),
                             capture_output=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr.decode()
    assert stored(cut) == GAMES
    with closing(sqlite3.connect(cut / "results.sqlite")) as db:
        assert db.execute("SELECT COUNT(DISTINCT round || ':' || tbl || ':' || repeat) "
                          "FROM games").fetchone()[0] == GAMES
    assert outcome(cut) == outcome(tmp_path / "whole")


# SIGTERM: a scheduler's timeout or `kill`; it ended the run on the spot, saying nothing
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path: Path, sig: int) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(TOURNAMENT)
    out = tmp_path / "out"
    process = start(file, out)
    wait_for(out, 5, process)
    workers = descendants(process.pid)
    assert workers
    process.send_signal(sig)
    _, err = process.communicate(timeout=PATIENCE_S)
    assert process.returncode == 130, err.decode()
    assert f"arena run {file} --resume --out {out}" in err.decode().replace("\n", "")
    wait_until(lambda: not [pid for pid in workers if alive(pid)], "the workers ended")
    assert 5 <= stored(out) < GAMES
    with closing(sqlite3.connect(out / "results.sqlite")) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    os.sync()


def release(gate: Path) -> None:
    """Open the FIFO `gate` for writing once the gated bot waits on it (its reader), which
    lets it go on; an open that would block is retried, so a bot that never waits fails
    the test instead of hanging it."""
    def opened() -> bool:
        try:
            os.close(os.open(gate, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # ENXIO: nobody reads it yet
            return False
        return True

    wait_until(opened, "the gated bot waiting at its gate")


def test_a_run_whose_stdout_closes_plays_on(tmp_path: Path) -> None:
    # `arena run ... | head -1`: it stopped with "cannot write the results in OUT: Broken
    # pipe", which sent the organiser to the disk
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    file = tmp_path / "t.yaml"
    file.write_text(TOURNAMENT.replace("bots:\n", "sandbox: none\nbots:\n") +
                    f"  - {{name: gated, cmd: '{sys.executable} {GATED_BOT}', "
                    f"env: {{GATE: '{gate}'}}}}\n")
    out = tmp_path / "out"
    process = start(file, out, workers=1)  # the gate waits in one worker's copy
    first = close_stdout_after_a_line(process, gate)
    assert first.endswith(b" games to play\n")
    assert stored(out) == 8 * 7 * 6 * 5 // 24 * 4  # every 4-subset of 8 bots, 4 times


def test_a_run_whose_stdout_closes_after_its_last_progress_line_writes_its_report(
        tmp_path: Path) -> None:
    # `arena run ... | head -n 141`: the reader goes between the last progress line and the
    # final table, whose print ended the run with status 1, no word and no report
    file = tmp_path / "t.yaml"
    file.write_text(TOURNAMENT)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(READER_GOES), f"[{GAMES}/{GAMES}]", "run",
                           str(file), "--out", str(out)], capture_output=True,
                          timeout=PATIENCE_S)
    assert done.returncode == 0, done.stderr.decode()
    assert b"stdout was closed: the run goes on without printing there" in done.stderr
    assert stored(out) == GAMES
    assert (out / "report" / "index.html").is_file()


def close_stdout_after_a_line(process: subprocess.Popen[bytes], gate: Path) -> bytes:
    """Read the run's first line, close its stdout, let its gated bot go on (a progress
    line then comes after the close), and check that the run went on to its end; return
    that first line."""
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()  # the reader goes
    release(gate)
    err = process.stderr.read()
    process.stderr.close()
    process.wait(timeout=PATIENCE_S)
    assert process.returncode == 0, err.decode()
    assert b"stdout was closed: the run goes on without printing there" in err
    return first
