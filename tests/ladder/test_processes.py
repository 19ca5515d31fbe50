"""`arena ladder run` as a cron job would start it, with the real referee and bots: two
runs started together play no game twice; a run killed with SIGKILL leaves nothing
running and the next run loses and doubles nothing; SIGTERM stops a run cleanly."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from arena.ladder import members
from arena.ladder.run import ladder_lock
from arena.tournament.store import file_digest
from tests.conditions import PATIENCE_S, interruptible, wait_until
from tests.tournament.test_resume import (
    GATED_BOT,
    READER_GOES,
    alive,
    close_stdout_after_a_line,
    descendants,
)

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random_bot.py"


def arena(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena", *args]


def ladder(tmp_path: Path) -> Path:
    directory = tmp_path / "ladder"
    members.init(directory, config_text="game: machiavelli\nplayers_per_game: 2\nseed: 5\n"
                                        "batch: 4\nsandbox: none\n")
    for i in range(3):
        members.add(directory, f"random{i}", "builtin:random", version="v1")
    members.add(directory, "python", f"{sys.executable} {RANDOM_BOT}", version="v1")
    return directory


def start(directory: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(arena("ladder", "run", str(directory), "-j", "2", *args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=interruptible)


def rows(directory: Path, query: str) -> list[tuple[object, ...]]:
    try:
        with closing(sqlite3.connect(directory / "results.sqlite", timeout=5)) as db:
            return db.execute(query).fetchall()
    except sqlite3.OperationalError:
        return []


def stored(directory: Path) -> int:
    found = rows(directory, "SELECT COUNT(*) FROM games")
    return int(str(found[0][0])) if found else 0


def check_whole(directory: Path) -> None:
    """Every stored game has all its seats and its untouched replay; no stray replay."""
    games = rows(directory, "SELECT round, tbl, repeat, replay, digest FROM games")
    seats = rows(directory, "SELECT COUNT(*) FROM seats")[0][0]
    assert seats == 2 * len(games)
    for _, _, _, replay, digest in games:
        assert file_digest(Path(str(replay))) == digest
    names = {f"r{r}-t{t}-g{g}.jsonl" for r, t, g, _, _ in games}
    assert {p.name for p in (directory / "replays").iterdir()} == names


def test_two_runs_started_together_play_no_game_twice(tmp_path: Path) -> None:
    directory = ladder(tmp_path)
    first, second = start(directory, "--games", "24"), start(directory, "--games", "24")
    outputs = [p.communicate(timeout=PATIENCE_S) for p in (first, second)]
    codes = sorted(p.returncode for p in (first, second))
    assert codes == [0, 75], outputs
    busy = next(err for (_, err), p in zip(outputs, (first, second), strict=True)
                if p.returncode == 75).decode()
    assert "another `arena ladder run` is playing" in busy and "pid" in busy
    assert stored(directory) == 24
    check_whole(directory)


def test_sigkill_mid_run_then_a_new_run_loses_and_doubles_nothing(tmp_path: Path) -> None:
    directory = ladder(tmp_path)
    process = start(directory, "--games", "400")

    def playing() -> bool:
        assert process.poll() is None, process.communicate()
        return stored(directory) >= 6 and len(descendants(process.pid)) >= 2

    wait_until(playing, "6 games stored")
    family = descendants(process.pid)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    wait_until(lambda: not [pid for pid in family if alive(pid)], "nothing left running")
    cut = stored(directory)
    check_whole(directory)
    again = subprocess.run(arena("ladder", "run", str(directory), "-j", "2", "--games", "6"),
                           capture_output=True, timeout=PATIENCE_S)
    assert again.returncode == 0, again.stderr.decode()
    assert stored(directory) == cut + 6
    check_whole(directory)
    keys = rows(directory, "SELECT round, tbl FROM games")
    assert len(set(keys)) == len(keys)
    last = max(int(str(r)) for r, _ in keys)
    planned = rows(directory, "SELECT round FROM rounds")
    assert max(int(str(r[0])) for r in planned) == last


HANGING_BOT = """\
import signal
from arena.client import run
def act(request):
    signal.pause()  # never answers: only a stop ends its game
run(act, name="hangs", version="1")
"""


def test_sigkill_mid_game_stops_the_orphaned_workers_without_committing(
        tmp_path: Path) -> None:
    # the fork server outlived the run while a worker held its keep-alive pipe, so the
    # workers' parent-death signal never came and each played its game out, then committed
    directory = tmp_path / "ladder"
    members.init(directory, config_text="game: machiavelli\nplayers_per_game: 2\nseed: 5\n"
                                        "sandbox: none\ntime: {move_ms: 3600000}\n")
    bot = tmp_path / "hangs.py"
    bot.write_text(HANGING_BOT)
    members.add(directory, "hangs", f"{sys.executable} {bot}", version="v1")
    members.add(directory, "random", "builtin:random", version="v1")
    process = start(directory, "--games", "2")

    def waiting_on_the_bot() -> bool:
        assert process.poll() is None, process.communicate()
        return any("starts" in log.read_text() for log in directory.glob("logs/hangs*.log"))

    wait_until(waiting_on_the_bot, "a game waiting on the hanging bot")
    family = descendants(process.pid)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    wait_until(lambda: not [pid for pid in family if alive(pid)], "nothing left running")
    assert stored(directory) == 0
    assert not list((directory / "replays").glob("*.jsonl"))


def test_sigterm_stops_a_run_cleanly(tmp_path: Path) -> None:
    directory = ladder(tmp_path)
    process = start(directory, "--games", "400")
    wait_until(lambda: stored(directory) >= 3 and len(descendants(process.pid)) >= 2,
               "3 games stored")
    family = descendants(process.pid)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=PATIENCE_S)
    assert process.returncode == 130, err.decode()
    assert "the next run finishes the round it left" in err.decode()
    wait_until(lambda: not [pid for pid in family if alive(pid)], "nothing left running")
    check_whole(directory)


def test_a_waiting_run_stopped_says_it_played_nothing(tmp_path: Path) -> None:
    # it said "0 game(s) of this run are stored; the next run finishes the round it left"
    directory = ladder(tmp_path)
    with ladder_lock(directory, wait=False):
        process = start(directory, "--games", "2", "--wait")
        assert process.stderr is not None
        assert b"waiting for the run in progress" in process.stderr.readline()
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=PATIENCE_S)
    assert process.returncode == 130
    assert err.decode().strip().endswith("interrupted while waiting for the other run: "
                                         "this one played nothing")
    assert stored(directory) == 0


def test_a_run_whose_stdout_closes_plays_on(tmp_path: Path) -> None:
    # `arena ladder run ... | head -1`: it stopped with status 1 and no word, its round
    # unfinished, at the first progress line after the reader had gone
    # two bots: every game is the gated bot's, whose second waits for the test
    directory = tmp_path / "ladder"
    members.init(directory, config_text="game: machiavelli\nplayers_per_game: 2\nseed: 5\n"
                                        "sandbox: none\n")
    members.add(directory, "random", "builtin:random", version="v1")
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    members.add(directory, "gated", f"{sys.executable} {GATED_BOT}", version="v1",
                env={"GATE": str(gate), "GATE_GAME": "2"})
    process = start(directory, "--games", "6", "--no-report", "-j", "1")  # one gated copy
    assert close_stdout_after_a_line(process, gate).startswith(b"[1/6]")
    assert stored(directory) == 6
    check_whole(directory)


def test_a_run_whose_stdout_closes_after_its_last_progress_line_writes_its_report(
        tmp_path: Path) -> None:
    # the reader goes between the last progress line and the run's summary, whose print
    # ended the run with status 1, no word and no report
    directory = ladder(tmp_path)
    done = subprocess.run([sys.executable, str(READER_GOES), "[4/4]", "ladder", "run",
                           str(directory), "--games", "4", "-j", "1"], capture_output=True,
                          timeout=PATIENCE_S)
    assert done.returncode == 0, done.stderr.decode()
    assert b"stdout was closed: the run goes on without printing there" in done.stderr
    assert stored(directory) == 4
    assert (directory / "report" / "index.html").is_file()
