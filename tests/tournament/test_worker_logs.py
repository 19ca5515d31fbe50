"""A local worker's log records reach the parent, which prints them at its `--log-level`,
each repeated warning about one bot a few times only (`arena.tournament.worker_logs`)."""

from __future__ import annotations

import csv
import logging
import os
import subprocess
import sys
import threading
import time
from multiprocessing import Pipe
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena.tournament.worker_logs import LEFT_OUT, SHOWN, PipeHandler, Sink
from arena.tournament.workers import Pool

FIELD = """\
name: logs
game: machiavelli
players_per_game: 4
format: round-robin
games_per_pairing: 2
seed: 3
bots:
  - {name: one, cmd: 'builtin:random'}
  - {name: two, cmd: 'builtin:random'}
  - {name: three, cmd: 'builtin:random'}
  - {name: four, cmd: 'builtin:random'}
  - {name: broken, cmd: "{python} -c 'import sys; sys.exit(3)'"}
"""
BROKEN_GAMES = 8  # the 4-subsets of 5 bots holding `broken`, twice each


def run_field(tmp_path: Path, *level: str, where: tuple[str, ...] = ("-j", "2")
              ) -> tuple[str, Path]:
    """`arena [LEVEL] run` the field above; its stderr and its output directory."""
    tmp_path.mkdir(exist_ok=True)
    file = tmp_path / "logs.yaml"
    file.write_text(FIELD)
    out = tmp_path / "out"
    env = {**os.environ, "ARENA_BUNDLE_CACHE": str(tmp_path / "cache")}  # for a cluster's
    done = subprocess.run(
        [sys.executable, "-m", "arena", *level, "run", str(file), *where, "-o", str(out),
         "--no-report"], capture_output=True, text=True, timeout=600, check=False, env=env)
    assert done.returncode == 0, done.stderr
    return done.stderr, out


def forfeits(out: Path) -> int:
    with (out / "standings.csv").open() as f:
        row = next(r for r in csv.DictReader(f) if r["bot"] == "broken")
    return int(row["forfeits"])


def test_a_bot_that_never_starts_is_named_a_few_times_not_once_a_game(
        tmp_path: Path) -> None:
    err, out = run_field(tmp_path)
    flat = " ".join(err.split())  # rich wraps long lines at the terminal's width
    assert flat.count("broken: exited with status 3 before its hello") >= 1
    assert flat.count("forfeits: no_connect") == SHOWN
    assert " ".join(LEFT_OUT.format(n=SHOWN).split()) in flat
    assert forfeits(out) == BROKEN_GAMES  # every one counted, only the printing is cut


def test_the_workers_follow_the_log_level(tmp_path: Path) -> None:
    quiet, out = run_field(tmp_path, "--log-level", "error")
    assert "forfeits: no_connect" not in quiet  # a warning, below the level asked for
    assert "exited with status 3 before its hello" in " ".join(quiet.split())  # an error
    assert forfeits(out) == BROKEN_GAMES
    loud, _ = run_field(tmp_path / "debug", "--log-level", "debug")
    flat = " ".join(loud.split())
    assert "broken: started pid" in flat  # the referee's info, from a worker
    assert flat.count("forfeits: no_connect") == BROKEN_GAMES  # all of it, as asked


def _record(level: int, msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("arena.referee.match", level, __file__, 1, msg, args, None)


def test_records_and_events_written_at_once_arrive_whole() -> None:
    """A record logged on another thread (a bot's log drainer) while the worker's main
    thread sends a game's result: each is written under `SEND_LOCK`, so neither cuts into
    the other (frames of 200 kB are written in pieces, a pipe holding 64 kB)."""
    from arena.tournament.workers import _send

    here, there = Pipe()
    handler = PipeHandler(there, 4)
    count, big = 20, "x" * 200_000
    records = [_record(logging.WARNING, "%s (seat %d) forfeits: %s", f"bot{i}", i, big)
               for i in range(count)]
    def log_all() -> None:
        for record in records:
            handler.handle(record)

    def send_all() -> None:
        for n in range(count):
            _send(there, ("done", 4, None, {"n": n, "pad": big}))

    logger = threading.Thread(target=log_all)
    sender = threading.Thread(target=send_all)
    logger.start()
    sender.start()
    got = [here.recv() for _ in range(2 * count)]  # a cut frame would not unpickle
    logger.join()
    sender.join()
    assert sorted(e[3]["n"] for e in got if e[0] == "done") == list(range(count))
    logs = [e[3] for e in got if e[0] == "log"]
    assert sorted(p[3] for p in logs) == sorted(r.getMessage() for r in records)
    assert {p[2] for p in logs} == {("%s (seat %d) forfeits: %s", f"bot{i}")
                                    for i in range(count)}


def test_the_sink_counts_each_kind_for_each_bot(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="arena")
    sink = Sink()
    template = "%s (seat %d) forfeits: %s"
    for seat in range(6):
        for bot in ("a", "b"):
            sink.log((logging.WARNING, "arena.referee.match", (template, bot),
                      f"{bot} (seat {seat}) forfeits: crashed"))
    sink.log((logging.ERROR, "arena.referee.referee", ("%s: %s", "a"), "a: gone"))
    messages = [r.getMessage() for r in caplog.records]
    assert [m for m in messages if m.startswith("a (")] == [
        "a (seat 0) forfeits: crashed", "a (seat 1) forfeits: crashed",
        "a (seat 2) forfeits: crashed" + LEFT_OUT.format(n=SHOWN)]
    assert len([m for m in messages if m.startswith("b (")]) == SHOWN
    assert "a: gone" in messages  # another kind about the same bot
    assert {r.levelname for r in caplog.records} == {"WARNING", "ERROR"}


def test_at_debug_level_the_sink_leaves_nothing_out(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="arena")
    sink = Sink()
    for seat in range(6):
        sink.log((logging.WARNING, "arena.referee.match", ("%s (seat %d)", "a"),
                  f"a (seat {seat})"))
    assert [r.getMessage() for r in caplog.records] == [f"a (seat {s})" for s in range(6)]


def test_stopping_workers_are_read_to_the_end(caplog: pytest.LogCaptureFixture) -> None:
    """A worker that logs more than a pipe holds on its way out is read until it closes
    its end, rather than left blocked on it until it is killed."""
    caplog.set_level(logging.WARNING, logger="arena")
    here, there = Pipe()
    lines = 400  # ~200 kB: several times what a pipe holds

    def stopping() -> None:
        for n in range(lines):
            there.send(("log", 0, None, (logging.WARNING, "arena.x", (f"kind {n}", ""),
                                         f"line {n} " + "y" * 500)))
        there.close()

    writer = threading.Thread(target=stopping)
    writer.start()
    pool: Any = SimpleNamespace(logs=Sink())
    Pool._drain(pool, [SimpleNamespace(conn=here)],  # type: ignore[list-item]
                time.monotonic() + 300)  # the pipe closing ends it; this only bounds a hang
    writer.join()
    assert len(caplog.records) == lines
    assert caplog.records[-1].getMessage().startswith(f"line {lines - 1} ")
