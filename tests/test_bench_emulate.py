"""bench/emulate.py (`bench/tournament.py --emulate`) plays a run's games again worker by
worker; `make bench` is run by hand, not by the suite, so a change to the referee's or the
runner's seams it uses would break it silently. Two workers, one game per table: it must
play the games by one worker and by each worker, as the run and as the simulated dispatch
gave them out (every game once each time), and print its figures."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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
    assert lines[0].startswith("2 workers' games, each worker's played alone on one core "
                               "(70 games")
    one = re.fullmatch(r"  1 worker:  CPU per game +([\d.]+) ms \(workers ([\d.]+) \+ bots "
                       r"([\d.]+)\), (\d+) bot processes", lines[1])
    assert one and int(one[4]) == 8, done.stdout  # one worker holds all eight bots
    split(one)
    dispatches = ("the run's dispatch", r"equal workers' \(simulated\)",
                  r"workers \+-20% \(simulated\)")
    bound = re.fullmatch(r"    speed-up at most x([\d.]+) \((\d+)% of linear; goal >= 80%\): "
                         r"([\d.]+) s of CPU a worker, shared evenly, against 1 worker's "
                         r"([\d.]+) s, a core each and nothing else shared \(cache, "
                         r"memory, clock\)", lines[4])
    assert bound, done.stdout  # under the equal workers' line
    share, whole = float(bound[3]), float(bound[4])
    # the bound is printed to 0.1, the two times to 0.01 s, each rounded half a digit
    slack = 0.05 + whole / share * (0.005 / whole + 0.005 / share) + 1e-9
    assert share < whole and abs(float(bound[1]) - whole / share) <= slack
    for line, dispatch in zip([*lines[2:4], lines[5]], dispatches, strict=True):
        two = re.fullmatch(rf"  2 workers, {dispatch}: CPU per game +([\d.]+) ms = [\d.]+ x "
                           r"1 worker's \(goal <= 1.15; workers ([\d.]+) \+ bots ([\d.]+)\), "
                           r"(\d+) bot processes; games per worker (\d+)-(\d+)", line)
        assert two, done.stdout
        split(two)
        assert int(two[4]) >= 8 + 4  # the second worker started at least a table's bots
        assert int(two[5]) + int(two[6]) == 70 and int(two[5]) > 0  # each game once


def split(figures: re.Match[str]) -> None:
    """The CPU per game is the workers' and the bots' (each rounded to 0.1 ms), and the bots'
    is counted: a bot's CPU never reaches its worker's getrusage."""
    total, workers, bots = (float(figures[n]) for n in (1, 2, 3))
    assert abs(workers + bots - total) <= 0.15 + 1e-9 and bots > 0
