"""`pin_workers`: each local worker, and every bot it starts, runs on one core of its own
(cores in turn); the file's key is checked and changes no result."""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path

import pytest

from arena.tournament.config import load_config, parse_config
from arena.tournament.runner import Runner
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
    seen = [ast.literal_eval(line.split("cores: ", 1)[1])
            for log in sorted((out / "logs").glob("b*.log"))
            for line in log.read_text().splitlines() if line.startswith("cores: ")]
    results = json.loads((out / "results.json").read_text())
    games = [(g["key"], g["seed"], g["termination"],
              [{k: v for k, v in seat.items() if k != "time_ms"} for seat in g["seats"]])
             for g in results["games"]]
    return seen, json.dumps([games, results["standings"]], sort_keys=True)


@pytest.mark.skipif(len(CORES) < 2, reason="pinning is seen only with two cores or more")
def test_each_worker_and_its_bots_run_on_one_core(tmp_path: Path) -> None:
    pinned, pinned_results = cores_seen(True, tmp_path)
    floating, results = cores_seen(False, tmp_path)
    assert pinned and floating
    assert pinned_results == results
    assert all(len(cores) == 1 for cores in pinned)  # every bot process on one core
    assert {cores[0] for cores in pinned} <= {worker_core(0), worker_core(1)}
    assert all(cores == CORES for cores in floating)  # without the key: every core


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
