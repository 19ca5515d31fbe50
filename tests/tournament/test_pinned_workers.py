"""`pin_workers`: each local worker, and every bot it starts, runs on one core of its own
(cores in turn); the file's key is checked and changes no result."""

from __future__ import annotations

import ast
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.core.record import GameRecord
from arena.referee.sandbox import SandboxMode, SandboxPolicy
from arena.referee.spec import BotSpec
from arena.tournament.compare import CompareSetup
from arena.tournament.compare_run import CompareRun
from arena.tournament.config import load_config, parse_config
from arena.tournament.runner import Runner
from arena.tournament.store import GameKey
from arena.tournament.workers import worker_core
from tests.tournament.fakes import toy_registry
from tests.tournament.test_config import GOOD, problems
from tests.tournament.test_runner import pin_salt

ROOT = Path(__file__).resolve().parents[2]
RANDOM = ROOT / "sample_bots" / "python" / "random_bot.py"
AFFINITY = Path(__file__).resolve().parent / "affinity_bot.py"
CORES = sorted(os.sched_getaffinity(0))


def cores_seen(pin: bool, tmp_path: Path) -> tuple[list[list[int]], str]:
    """Run a 3-bot round-robin with 2 workers; return the cores each bot process said it
    may use, and the run's results."""
    bots = "".join(f"  - {{name: b{i}, cmd: '{sys.executable} {AFFINITY} {RANDOM}'}}\n"
                   for i in range(3))
    path = tmp_path / f"pin-{pin}.yaml"
    path.write_text(f"name: pinned\ngame: machiavelli\nplayers_per_game: 2\n"
                    f"format: round-robin\ngames_per_pairing: 2\nseed: 5\n"
                    f"pin_workers: {'true' if pin else 'false'}\nbots:\n{bots}")
    out = tmp_path / f"out-{pin}"
    pin_salt(out)
    Runner(load_config(path), out, concurrency=2).run()
    results = json.loads((out / "results.json").read_text())
    games = [(g["key"], g["seed"], g["termination"],
              [{k: v for k, v in seat.items() if k != "time_ms"} for seat in g["seats"]])
             for g in results["games"]]
    return logged_cores(out / "logs"), json.dumps([games, results["standings"]],
                                                  sort_keys=True)


def logged_cores(logs: Path) -> list[list[int]]:
    """The cores each `affinity_bot.py` process in `logs` said it may use."""
    return [ast.literal_eval(line.split("cores: ", 1)[1])
            for log in sorted(logs.glob("*.log"))
            for line in log.read_text().splitlines() if line.startswith("cores: ")]


def outcome(games: Iterable[tuple[GameKey, GameRecord]]) -> str:
    """What a run decided, game by game: all but the time each seat took."""
    rows = sorted(((key.round, key.table, key.repeat), record.seed, record.termination.value,
                   [{k: v for k, v in seat.to_json().items() if k != "time_ms"}
                    for seat in record.seats]) for key, record in games)
    return json.dumps(rows, sort_keys=True)


def check_pinned(pinned: list[list[int]], floating: list[list[int]], workers: int) -> None:
    """Every bot of the pinned run ran on its worker's one core; the others on any."""
    assert pinned and floating
    assert all(len(cores) == 1 for cores in pinned)
    assert {cores[0] for cores in pinned} <= {worker_core(i) for i in range(workers)}
    assert all(cores == CORES for cores in floating)


@pytest.mark.skipif(len(CORES) < 2, reason="pinning is seen only with two cores or more")
def test_each_worker_and_its_bots_run_on_one_core(tmp_path: Path) -> None:
    pinned, pinned_results = cores_seen(True, tmp_path)
    floating, results = cores_seen(False, tmp_path)
    assert pinned_results == results
    check_pinned(pinned, floating, workers=2)


def test_workers_take_the_cores_in_turn() -> None:
    assert [worker_core(i) for i in range(2 * len(CORES))] == CORES + CORES


def test_the_key_is_checked_and_not_in_the_fingerprint() -> None:
    assert any("'pin_workers' must be true or false, not 3" in p and p.startswith("t.yaml:12:")
               for p in problems(GOOD.replace("seed: 7", "seed: 7\npin_workers: 3")))
    base = parse_config(GOOD, "t.yaml", Path("/tmp"), toy_registry())
    pinned = parse_config(GOOD + "pin_workers: true\n", "t.yaml", Path("/tmp"),
                          toy_registry())
    assert not base.pin_workers and pinned.pin_workers
    assert base.fingerprint == pinned.fingerprint


def compared(pin: bool, tmp_path: Path) -> tuple[list[list[int]], str]:
    """Run an 8-game comparison of two Python bots with 2 workers; return the cores each
    bot process said it may use, and the games with the test's verdict."""
    bot = (sys.executable, str(AFFINITY), str(RANDOM))
    setup = CompareSetup("machiavelli", 2, BotSpec("cand", bot), BotSpec("base", bot),
                         seed=5, sandbox=SandboxPolicy(SandboxMode.NONE))
    out = tmp_path / f"compare-{pin}"
    pin_salt(out)
    run = CompareRun(setup, out, max_games=8, concurrency=2, pin_workers=pin)
    result = run.run()
    return logged_cores(out / "logs"), outcome(run.records.items()) + repr(result.status)


@pytest.mark.skipif(len(CORES) < 2, reason="pinning is seen only with two cores or more")
def test_a_pinned_comparison_runs_each_bot_on_one_core_to_the_same_games(
        tmp_path: Path) -> None:
    pinned, pinned_results = compared(True, tmp_path)
    floating, results = compared(False, tmp_path)
    assert pinned_results == results
    check_pinned(pinned, floating, workers=2)


@pytest.mark.parametrize("command", [
    ["compare", "machiavelli", "--candidate", "builtin:random", "--base",
     "builtin:default"],
    ["run", str(ROOT / "tournaments" / "demo.yaml")],
])
def test_pinning_with_a_dask_cluster_is_refused_in_one_line(command: list[str]) -> None:
    result = CliRunner().invoke(main, [*command, "--pin-workers", "--cluster", "local:2"])
    assert result.exit_code != 0 and "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if "--pin-workers" in line]
    assert lines and "Dask cluster local:2" in lines[0]
