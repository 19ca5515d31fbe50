"""Bot processes scale with the tables, not with the field: `max_bots` bounds the processes
alive at once, and the results are those of an unbounded run."""

from __future__ import annotations

import json
import logging
import sys
import threading
import uuid
from pathlib import Path

import pytest

from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from arena.referee.sandbox import SandboxMode, SandboxPolicy
from arena.tournament.config import load_config
from arena.tournament.runner import Runner
from tests.tournament.test_runner import pin_salt

ROOT = Path(__file__).resolve().parents[2]
RANDOM = ROOT / "sample_bots" / "python" / "random_bot.py"


def processes_with(marker: str) -> int:
    """Bot processes whose command line carries `marker` (bots only: the referee's command
    line does not)."""
    count = 0
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                count += 1
        except OSError:
            continue
    return count


class Sampler:
    """Counts the live bot processes of a run in a thread, as often as it can."""

    def __init__(self, marker: str) -> None:
        self.marker, self.peak, self.samples = marker, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, processes_with(self.marker))
            self.samples += 1

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def tournament(tmp_path: Path, marker: str, max_bots: int, bots: int = 6) -> Path:
    lines = [f"  - {{name: bot{i}, cmd: '{sys.executable} {RANDOM} --marker={marker}'}}"
             for i in range(bots)]
    path = tmp_path / f"bounded-{max_bots}.yaml"
    path.write_text("\n".join([
        "name: bounded", "game: machiavelli", "players_per_game: 2", "format: round-robin",
        "seed: 11", "sandbox: none", f"max_bots: {max_bots}", "bots:", *lines]) + "\n")
    return path


def run(path: Path, out: Path) -> str:
    """Run the file; return its games and standings, without the times (which vary)."""
    pin_salt(out)  # the same deals in both runs
    Runner(load_config(path), out, concurrency=1).run()
    results = json.loads((out / "results.json").read_text())
    games = [(g["key"], g["seed"], g["termination"],
              [{k: v for k, v in seat.items() if k != "time_ms"} for seat in g["seats"]])
             for g in results["games"]]
    return json.dumps([games, results["standings"]], sort_keys=True)


def test_live_bot_processes_stay_within_the_bound_and_results_do_not_change(
        tmp_path: Path) -> None:
    marker = f"bounded-{uuid.uuid4().hex}"
    with Sampler(marker) as bounded_sampler:
        bounded = run(tournament(tmp_path, marker, max_bots=2), tmp_path / "bounded")
    assert bounded_sampler.samples > 0
    assert bounded_sampler.peak <= 2  # one worker, max_bots 2: never more alive
    assert processes_with(marker) == 0
    unbounded = run(tournament(tmp_path, marker, max_bots=6), tmp_path / "unbounded")
    assert bounded == unbounded


def test_the_least_recently_used_bot_is_stopped_first(tmp_path: Path) -> None:
    bots = [BotSpec(name, (sys.executable, str(RANDOM))) for name in ("a", "b", "c")]
    with Referee(bots, TimeControl(move_ms=2000), FaultPolicy(), tmp_path, max_bots=2,
                 sandbox=SandboxPolicy(SandboxMode.NONE)) as referee:
        assert referee.live_bots() == []  # bounded: nothing starts before a game needs it
        referee.play("machiavelli", {}, 1, ["a", "b"])
        assert sorted(referee.live_bots()) == ["a", "b"]
        referee.play("machiavelli", {}, 2, ["b", "c"])  # a is the least recently used
        assert sorted(referee.live_bots()) == ["b", "c"]
        referee.play("machiavelli", {}, 3, ["c", "a"])  # now b is
        assert sorted(referee.live_bots()) == ["a", "c"]
    log = (tmp_path / "logs" / "a.log").read_text()
    assert log.count("starts (seats:") == 2  # one log file across its two processes


def test_the_next_games_bots_start_during_this_game_and_are_used(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "arena.referee.process")
    bots = [BotSpec(name, (sys.executable, str(RANDOM))) for name in ("a", "b", "c")]
    with Referee(bots, TimeControl(move_ms=2000), FaultPolicy(), tmp_path, max_bots=3,
                 sandbox=SandboxPolicy(SandboxMode.NONE)) as referee:
        referee.play("machiavelli", {}, 1, ["a", "b"], upcoming=["b", "c"])
        assert sorted(referee.live_bots()) == ["a", "b", "c"]  # c started ahead
        assert referee.waits.starts == 2 and referee.waits.seconds > 0  # a's and b's
        record = referee.play("machiavelli", {}, 2, ["b", "c"])
        assert referee.waits.starts == 3  # what was left of c's start, when its game came
    assert all(seat.forfeit is None for seat in record.seats)
    assert record.details.get("alarms") is None  # its early hello raised nothing
    starts = [r.getMessage() for r in caplog.records if "started pid" in r.getMessage()]
    assert sorted(m.split(":")[0] for m in starts) == ["a", "b", "c"]  # c started once
