"""The Dask executor on LocalClusters: the same standings as a local run, byte for byte; a
worker killed mid-game and the run still the same; bot bundles sent only when a bot
changes. Small clusters and few games (CI has two cores)."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import distributed
import pytest

from arena.tournament.bundles import pack
from arena.tournament.config import load_config
from arena.tournament.runner import Job, Progress, Runner
from tests.conditions import wait_until
from tests.tournament.test_runner import pin_salt

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's workers start with an empty bundle cache (inherited by the workers)."""
    monkeypatch.setenv("ARENA_BUNDLE_CACHE", str(tmp_path / "cache"))


def standings(path: Path) -> bytes:
    return (path / "standings.csv").read_bytes()


def test_demo_on_a_local_cluster_equals_the_local_run(tmp_path: Path) -> None:
    config = load_config(ROOT / "tournaments" / "demo.yaml")
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    for out in (local, cluster):
        pin_salt(out)
    Runner(config, local, concurrency=1).run()
    seen: list[Progress] = []
    Runner(config, cluster, cluster="local:2", on_progress=seen.append).run()
    assert standings(cluster) == standings(local)
    assert seen[-1].done == seen[-1].total == 20
    assert seen[-1].bundles, "the demo's Python bots reach the workers as bundles"
    replays = sorted(p.name for p in (cluster / "replays").iterdir())
    assert len(replays) == 20
    # the coordinator wrote each replay and its digest: the run verifies like a local one
    from arena.games import REGISTRY
    from arena.tournament.verify import verify_run

    report = verify_run(cluster, REGISTRY)
    assert report.ok and report.games == 20


def pause_file(tmp_path: Path) -> Path:
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copy(HERE / "pause_bot.py", bots / "pause_bot.py")
    shutil.copy(ROOT / "sample_bots" / "python" / "random_bot.py", bots / "random_bot.py")
    path = tmp_path / "pause.yaml"
    path.write_text(
        "name: pause\ngame: machiavelli\nplayers_per_game: 2\nformat: round-robin\n"
        "games_per_pairing: 2\nseed: 7\nsandbox: none\n"
        "time: {move_ms: 600000, startup_ms: 60000}\n"
        "bots:\n"
        "  - {name: pause, cmd: '{python} bots/pause_bot.py'}\n"
        "  - {name: rand, cmd: '{python} bots/random_bot.py'}\n"
        "  - {name: built, cmd: 'builtin:random'}\n")
    return path


def test_a_worker_killed_mid_game_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    file = pause_file(tmp_path)
    config = load_config(file)
    marker = tmp_path / "paused"
    monkeypatch.setenv("PAUSE_MARKER", str(marker))
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    for out in (local, cluster):
        pin_salt(out)
    marker.write_text("the local run never pauses\n")
    Runner(config, local, concurrency=1).run()
    marker.unlink()

    runner = Runner(config, cluster, cluster="local:2")
    killed: list[str] = []

    def kill_the_paused_worker() -> None:
        wait_until(marker.exists, "the pausing bot holds a game")
        label, pid = marker.read_text().split()
        # the coordinator has heard that the game started before its worker goes
        wait_until(lambda: label in {str(k) for k in runner.progress.running.values()},
                   f"game {label} shown as running")
        assert int(pid) != os.getpid()
        os.kill(int(pid), signal.SIGKILL)
        killed.append(label)

    killer = threading.Thread(target=kill_the_paused_worker, daemon=True)
    killer.start()
    with caplog.at_level(logging.WARNING, logger="arena.tournament.runner"):
        runner.run()
    killer.join()
    assert killed, "the worker was killed"
    assert standings(cluster) == standings(local)
    retries = [r.getMessage() for r in caplog.records if "plays it again" in r.getMessage()]
    assert retries and killed[0] in retries[0]


@pytest.fixture
def one_worker(own_cache: None) -> Iterator[str]:
    """A LocalCluster of one worker whose bundle cache is this test's own, kept across runs."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0",
                                  silence_logs=logging.ERROR) as cluster:
        yield str(cluster.scheduler_address)


def test_bundles_are_sent_again_only_when_a_bot_changes(tmp_path: Path, one_worker: str) -> None:
    file = pause_file(tmp_path)
    (tmp_path / "bots" / "pause_bot.py").unlink()
    text = file.read_text().replace("pause_bot.py", "random_bot.py")
    file.write_text(text.replace("  - {name: built", "  - {name: other, cmd: "
                                 "'{python} other/random_bot.py'}\n  - {name: built"))
    (tmp_path / "other").mkdir()
    shutil.copy(ROOT / "sample_bots" / "python" / "random_bot.py", tmp_path / "other")

    def run(out: str) -> list[str]:
        seen: list[Progress] = []
        Runner(load_config(file), tmp_path / out, cluster=one_worker,
               on_progress=seen.append).run()
        return seen[-1].bundles

    config = load_config(file)
    digests = {name: pack(config.bot(name), default_cwd=tmp_path)
               for name in ("pause", "rand", "other")}
    first = run("first")
    assert sorted(first) == sorted({b.digest for b in digests.values() if b is not None})
    assert run("second") == [], "an unchanged bot is not sent again"
    with open(tmp_path / "other" / "random_bot.py", "a") as f:
        f.write("# a new version\n")
    changed = pack(load_config(file).bot("other"), default_cwd=tmp_path)
    assert changed is not None and changed.digest not in first
    assert run("third") == [changed.digest], "only the changed bot is sent"



def test_a_ladder_run_on_a_cluster_stores_what_a_local_run_stores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.ladder import members, read
    from arena.ladder.run import Budget, LadderRun
    from arena.tournament.cluster import DaskExecutor

    on_cluster: list[str] = []
    submit = DaskExecutor.submit

    def spy(self: DaskExecutor, job: Job) -> None:
        on_cluster.append(str(job.key))
        submit(self, job)

    monkeypatch.setattr(DaskExecutor, "submit", spy)

    local = tmp_path / "local"
    members.init(local, config_text="name: club\ngame: machiavelli\nplayers_per_game: 2\n"
                                    "seed: 7\nbatch: 3\n")
    for i in range(3):
        members.add(local, f"bot{i}", "builtin:random", version="v1")
    cluster = tmp_path / "cluster"
    shutil.copytree(local, cluster)  # the same salt: the same deals
    LadderRun(local, Budget(games=6), concurrency=1).run()
    result = LadderRun(cluster, Budget(games=6), cluster="local:1").run()
    assert (result.played, result.stored) == (6, 6) and len(on_cluster) == 6

    def table(directory: Path) -> list[dict[str, object]]:
        # everything but the time of the last game
        return [{k: v for k, v in row.to_json().items() if k != "last_played"}
                for row in read.standings(directory).rows]

    assert table(cluster) == table(local)


def test_a_comparison_on_a_cluster_counts_the_same_deals(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    args = ["compare", "machiavelli", "--candidate",
            f"c={sys.executable} {ROOT / 'sample_bots' / 'python' / 'greedy_bot.py'}",
            "--base", "b=builtin:random", "--max-games", "6"]
    reports = []
    for out, extra in (("local", ["-j", "1"]), ("cluster", ["--cluster", "local:1"])):
        pin_salt(tmp_path / out)
        result = CliRunner().invoke(main, [*args, *extra, "--out", str(tmp_path / out)])
        assert result.exit_code == 2, result.output  # 6 games decide nothing
        reports.append(json.loads((tmp_path / out / "compare.json").read_text()))
    assert reports[1]["deal_results"] == reports[0]["deal_results"]
    assert reports[1]["llr"] == reports[0]["llr"]


def test_a_game_that_kills_every_worker_stops_the_run_in_one_line(tmp_path: Path) -> None:
    import dask

    from arena.core.errors import ArenaError

    (tmp_path / "bots").mkdir()
    shutil.copy(HERE / "killer_bot.py", tmp_path / "bots" / "killer_bot.py")
    file = tmp_path / "killer.yaml"
    file.write_text("name: killer\ngame: machiavelli\nplayers_per_game: 2\nsandbox: none\n"
                    "bots:\n  - {name: killer, cmd: '{python} bots/killer_bot.py'}\n"
                    "  - {name: built, cmd: 'builtin:random'}\n")
    # the scheduler of a LocalCluster lives in this process: one retry is enough here
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            pytest.raises(ArenaError) as caught:
        Runner(load_config(file), tmp_path / "out", cluster="local:1").run()
    text = str(caught.value)
    assert re.search(r"game r1-t0-g0 killed every worker that played it \(2 workers, the "
                     r"last tcp://[0-9.:]+\); ", text), text  # not Dask's paragraph
    assert "run again with --resume" in text and "\n" not in text


def test_a_run_stopped_on_one_executor_resumes_on_the_other(tmp_path: Path) -> None:
    from arena.tournament.runner import Interrupted

    file = tmp_path / "t.yaml"
    file.write_text("name: t\ngame: machiavelli\nplayers_per_game: 4\ngames_per_pairing: 2\n"
                    "seed: 5\nbots:\n" + "".join(f"  - {{name: b{i}, cmd: 'builtin:random'}}\n"
                                                for i in range(5)))
    config = load_config(file)
    whole = tmp_path / "whole"
    pin_salt(whole)
    Runner(config, whole, concurrency=1).run()

    def stop_after(games: int) -> Callable[[Progress], None]:
        def check(progress: Progress) -> None:
            if progress.done >= games:
                raise KeyboardInterrupt
        return check

    for first, then in ((None, "local:1"), ("local:1", None)):
        out = tmp_path / f"from-{first or 'local'}"
        pin_salt(out)
        with pytest.raises(Interrupted):
            Runner(config, out, concurrency=1, cluster=first, on_progress=stop_after(3)).run()
        with closing(sqlite3.connect(out / "results.sqlite")) as db:
            assert 3 <= db.execute("SELECT COUNT(*) FROM games").fetchone()[0] < 10
        Runner(config, out, concurrency=1, cluster=then, resume=True).run()
        assert standings(out) == standings(whole)


def _threads_blocking_sigint() -> list[bool]:
    """Whether each thread of this process has SIGINT blocked (/proc: its SigBlk mask)."""
    blocked = []
    for status in Path("/proc/self/task").glob("*/status"):
        mask = next(line for line in status.read_text().splitlines()
                    if line.startswith("SigBlk:"))
        blocked.append(bool(int(mask.split()[1], 16) & 1 << (signal.SIGINT - 1)))
    return blocked


def test_a_local_clusters_workers_leave_ctrl_c_to_the_coordinator() -> None:
    """Ctrl-C at a terminal reaches every process of its group: every thread of a
    LocalCluster's workers has it blocked (else each printed a traceback), and the
    coordinator still gets it."""
    from arena.tournament.cluster_connect import connect

    client, cluster = connect("local:1", 1)
    try:
        (worker,) = client.run(_threads_blocking_sigint).values()
        assert worker and all(worker)
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        client.close()
        cluster.close()
