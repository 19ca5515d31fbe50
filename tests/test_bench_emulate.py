"""bench/emulate.py (`bench/tournament.py --emulate`) plays a run's games again worker by
worker; `make bench` is run by hand, not by the suite, so a change to the referee's or the
runner's seams it uses would break it silently. Two workers, one game per table: it must
play the games by one worker and by each worker, as the run and as the simulated dispatch
gave them out (every game once each time), each beside a baseline of one worker playing
them all, interleaved with it, and print its figures."""

from __future__ import annotations

import multiprocessing
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.referee.limits import Enforcer, detect
from tests.polyglot.starters import missing

ROOT = Path(__file__).resolve().parents[1]


def test_the_emulation_bench_plays_each_workers_games_and_one_workers() -> None:
    enforcer, why = detect()
    if enforcer is Enforcer.RLIMIT:  # the bench counts bots' CPU by their cgroups
        missing(f"no cgroup for bots: {why}")  # a failure when CI=true
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "tournament.py"), "--emulate",
                           "2", "1"], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("2 workers' games, each worker's played alone on one core, "
                               "interleaved with one worker playing them all (70 games")
    dispatches = ("the run's dispatch", r"equal workers' \(simulated\)",
                  r"workers \+-20% \(simulated\)")
    # each dispatch: one worker's baseline beside it, its line; the equal workers' bound
    rows = [lines[1:3], lines[3:5], lines[6:8]]
    for (base, many), dispatch in zip(rows, dispatches, strict=True):
        one = re.fullmatch(rf"  1 worker, beside {dispatch}: CPU per game +([\d.]+) ms "
                           r"\(workers ([\d.]+) \+ bots ([\d.]+)\), (\d+) bot processes", base)
        assert one and int(one[4]) == 8, done.stdout  # one worker holds all eight bots
        split(one)
        two = re.fullmatch(rf"  2 workers, {dispatch}: CPU per game +([\d.]+) ms = ([\d.]+) "
                           r"x 1 worker's \(goal <= 1.15; workers ([\d.]+) \+ bots "
                           r"([\d.]+)\), (\d+) bot processes; games per worker (\d+)-(\d+)",
                           many)
        assert two, done.stdout
        split(two, 1, 3, 4)
        # the ratio is against the baseline beside it: printed to 0.01, from two figures
        # each printed to 0.1 ms (each rounded by at most half a digit)
        many_ms, one_ms = float(two[1]), float(one[1])
        ratio = many_ms / one_ms
        slack = 0.005 + ratio * (0.05 / one_ms + 0.05 / many_ms) + 1e-9
        assert abs(float(two[2]) - ratio) <= slack
        assert int(two[5]) >= 8 + 4  # the second worker started at least a table's bots
        assert int(two[6]) + int(two[7]) == 70 and int(two[6]) > 0  # each game once
    bound = re.fullmatch(r"    speed-up at most x([\d.]+) \((\d+)% of linear; goal >= 80%\): "
                         r"([\d.]+) s of CPU a worker, shared evenly, against 1 worker's "
                         r"([\d.]+) s, a core each and nothing else shared \(cache, "
                         r"memory, clock\)", lines[5])
    assert bound, done.stdout  # under the equal workers' line
    share, whole = float(bound[3]), float(bound[4])
    # the bound is printed to 0.1, the two times to 0.01 s, each rounded half a digit
    slack = 0.05 + whole / share * (0.005 / whole + 0.005 / share) + 1e-9
    assert share < whole and abs(float(bound[1]) - whole / share) <= slack
    assert len(lines) == 8, done.stdout


def split(figures: re.Match[str], total: int = 1, workers: int = 2, bots: int = 3) -> None:
    """The CPU per game is the workers' and the bots' (each rounded to 0.1 ms), and the bots'
    is counted: a bot's CPU never reaches its worker's getrusage."""
    whole, own, theirs = (float(figures[n]) for n in (total, workers, bots))
    assert abs(own + theirs - whole) <= 0.15 + 1e-9 and theirs > 0


def test_a_worker_that_fails_ends_the_emulation_and_its_baseline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the baseline's process waits on its pipe between its parts: left alive after a
    # worker's failure, it would keep the bench (and this process) from ever exiting
    enforcer, why = detect()
    if enforcer is Enforcer.RLIMIT:
        missing(f"no cgroup for bots: {why}")
    monkeypatch.syspath_prepend(str(ROOT / "bench"))  # the workers import it too
    from emulate import Game, Setup, interleaved, queue_order
    from starts import _config

    config = _config(tmp_path, 1)
    setup = Setup(config.bots, config.time, config.faults, config.sandbox, config.bot_bound(),
                  config.game, dict(config.rules))
    games = queue_order(config)[:2]
    seed, seating, _ = games[0]
    broken: list[Game] = [(seed, ["nobody", *seating[1:]], [])]  # no such bot: it fails
    with pytest.raises(EOFError):
        interleaved(setup, games, [games[:1], broken], tmp_path / "e", 0)
    leftover = multiprocessing.active_children()
    for process in leftover:  # so that this fails here rather than hangs the suite's exit
        process.terminate()
        process.join()
    assert leftover == []
