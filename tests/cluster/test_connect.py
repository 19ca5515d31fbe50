"""The coordinator's side of a cluster going wrong (found in a walkthrough): a port that
accepts and never answers, a scheduler that goes away mid-run, a game's result lost with
the worker holding it. Each is one line or carries on; none hangs."""

from __future__ import annotations

import queue
import socket
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena import __version__
from arena.core.errors import ArenaError
from arena.tournament import cluster, cluster_connect
from arena.tournament.cluster import DaskExecutor
from arena.tournament.store import GameKey
from tests.conditions import PATIENCE_S

DEMO = Path(__file__).resolve().parents[2] / "tournaments" / "demo.yaml"


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never says a word (a dashboard's, say)."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def test_a_port_that_never_answers_is_one_line(silent_port: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster_connect, "CONNECT_S", 1)
    monkeypatch.setattr(cluster_connect, "HANDSHAKE_S", 1)
    # this Dask waits on the handshake for ever ("did not answer ... within 2 s"); one that
    # bounds it would say it timed out: either way one line, and no hang
    with pytest.raises(ArenaError, match=f"^cannot reach the Dask scheduler at "
                                         f"tcp://127.0.0.1:{silent_port}: "):
        cluster_connect.connect(f"tcp://127.0.0.1:{silent_port}", 1)


def _executor() -> Any:
    executor: Any = DaskExecutor.__new__(DaskExecutor)
    executor.address, executor.inbox, executor.ready = "tcp://sched:8786", queue.Queue(), deque()
    executor.where, executor.playing, executor.futures = {}, {}, {}
    executor.jobs, executor.counted, executor.workerless_said = {}, 0.0, False
    executor.probed, executor.lost, executor.checked = 0.0, set(), set()
    return executor


def test_a_scheduler_gone_for_good_ends_the_run_in_one_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "POLL_S", 0.01)
    executor = _executor()
    executor.client = SimpleNamespace(status="running")
    assert executor.next_event() is None  # nothing yet: the run waits
    executor.client.status = "closed"  # Dask's client gave up reconnecting
    with pytest.raises(ArenaError, match="lost the Dask scheduler at tcp://sched:8786 .*"
                                         "--resume"):
        executor.next_event()


class LostFuture:
    """A game's future whose result went with its worker: the scheduler runs it again."""

    status = "lost"

    def add_done_callback(self, callback: Any) -> None:
        callback(self)  # as Dask does while a future is lost: at once

    def exception(self) -> BaseException:
        return RuntimeError("the replay failed too")


def test_a_result_lost_with_its_worker_is_said_once_and_read_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found in review: a done-callback re-added to a lost future fired at once, and the
    game was reported lost ~19,000 times a second until it was played again."""
    monkeypatch.setattr(cluster, "POLL_S", 0.01)
    executor, key, future = _executor(), GameKey(5, 0, 11), LostFuture()
    executor.futures[key] = future
    executor.where[key], executor.playing[3] = 3, key
    executor.client = SimpleNamespace(status="running")
    executor.inbox.put(("result", key))
    kind, slot, said, line = executor.next_event()
    assert (kind, slot, said) == ("retry", 3, key) and "plays it again" in line
    assert executor.playing == {} and key not in executor.where
    for status in ("lost", "lost", "pending"):  # played again meanwhile: nothing to say
        future.status = status
        assert executor.next_event() is None and executor.inbox.empty()
    future.status = "error"  # its next outcome is read as any game's
    with pytest.raises(ArenaError, match="game r5-t0-g11 failed on the cluster: "
                                         "RuntimeError: the replay failed too"):
        executor.next_event()
    assert executor.lost == set()


def test_while_the_client_reconnects_the_run_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found in review: the worker count was asked for while Dask's client reconnected,
    which blocked and then raised an OSError the command took for a write failure."""
    executor = _executor()

    def asked() -> dict[str, int]:
        raise AssertionError("asked the scheduler while reconnecting")

    executor.client = SimpleNamespace(status="connecting", nthreads=asked)
    executor.jobs = {GameKey(1, 0, 0): None}
    executor._check_scheduler()  # neither raises nor asks
    executor.client.status = "running"

    def gone() -> dict[str, int]:
        raise ConnectionResetError(104, "Connection reset by peer")

    executor.client.nthreads = gone
    assert executor._threads() is None  # not an OSError out of the run


def test_workers_joining_later_get_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found in review: the room (games on the cluster at once) was counted again only when
    full, which it never was once a game had finished: a run started before its workers
    kept 3 games in flight."""
    executor = _executor()
    threads: dict[str, int] = {}
    executor.client = SimpleNamespace(status="running", nthreads=lambda: threads,
                                      run=lambda *args, workers, on_error: {
                                          w: __version__ for w in workers})
    executor.queue, executor.room, executor.counted = deque(range(100)), 0, -100.0
    sent: list[object] = []

    def submit(job: object, data: object) -> None:
        sent.append(job)
        executor.futures[job] = None

    monkeypatch.setattr(executor, "_submit", submit)
    executor._fill()
    assert executor.room == cluster.AHEAD and len(sent) == cluster.AHEAD
    threads.update({"w1": 4, "w2": 4})  # two workers join
    executor.futures.pop(sent[0])  # a game done
    executor.counted = -100.0  # RECOUNT_S later
    executor._fill()
    assert executor.room == cluster.AHEAD * 8 and len(executor.futures) == cluster.AHEAD * 8


def test_a_scheduler_without_workers_is_said_once(caplog: pytest.LogCaptureFixture) -> None:
    executor = _executor()
    executor.client = SimpleNamespace(status="running", nthreads=dict)
    executor.jobs, executor.probed = {GameKey(1, 0, 0): None}, -cluster.RECOUNT_S
    with caplog.at_level("WARNING", logger="arena"):
        executor._check_scheduler()
        executor.probed = -cluster.RECOUNT_S
        executor._check_scheduler()
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "has no workers now" in said[0] and "dask worker" in said[0]


def test_a_workers_address_given_for_the_schedulers_is_one_line_and_ends_at_once(
        tmp_path: Path) -> None:
    # the address copied from `dask worker`'s "Start worker at:": Dask's TypeError, then
    # the half-made client, kept in its traceback, made the process wait 40 s at its exit
    # and print "Exception ignored in: <function Client.__del__ ...>" after arena's line
    import distributed

    with distributed.LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
            dashboard_address=":0") as local:
        worker = next(iter(local.scheduler_info["workers"]))
        done = subprocess.run([sys.executable, "-m", "arena", "run", str(DEMO), "--out",
                               str(tmp_path / "out"), "--cluster", worker],
                              capture_output=True, text=True, timeout=PATIENCE_S)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines == [f"Error: cannot reach the Dask scheduler at {worker}: that is a Dask "
                     "worker's address, not the scheduler's (the one each `dask worker` was "
                     "started with; 8786 by default)"], done.stderr


def test_a_resumed_runs_worker_logs_follow_the_first_parts(tmp_path: Path) -> None:
    # a resumed run's worker of the same address and thread overwrote the interrupted
    # part's bot logs; a local run's grow
    executor = _executor()
    executor.runner = SimpleNamespace(out=tmp_path)
    executor._keep_logs({"tcp://w:1": {"thread-0/bot.log": b"first part\n"}})
    executor._keep_logs({"tcp://w:1": {"thread-0/bot.log": b"resumed\n"}})
    assert (tmp_path / "logs" / "tcp_w_1" / "thread-0" / "bot.log").read_bytes() == \
        b"first part\nresumed\n"


def test_a_worker_that_played_and_has_no_logs_to_give_is_named(
        caplog: pytest.LogCaptureFixture) -> None:
    executor = _executor()
    executor.token = "t"
    executor.numbers = {("tcp://kept:1", 0): 0, ("tcp://failed:1", 0): 1,
                        ("tcp://killed:1", 0): 2}
    answers = {"tcp://kept:1": {"thread-0/bot.log": b"x"},
               "tcp://failed:1": OSError("disk gone"), "tcp://idle:1": {}}
    client = SimpleNamespace(run=lambda *args, **kwargs: answers)
    assert executor._collect_logs(client) == {"tcp://kept:1": {"thread-0/bot.log": b"x"},
                                              "tcp://idle:1": {}}
    assert [r.getMessage() for r in caplog.records] == [
        "the bots' logs of worker tcp://failed:1 are lost: disk gone",
        "the bots' logs of worker tcp://killed:1 are lost: the worker is gone, and its bots "
        "with it"]


def test_a_worker_without_this_arena_stops_the_run_in_one_line() -> None:
    # Dask's own check leaves arena out: a worker without it stopped on each game it was
    # given, and the run waited for ever, saying that the scheduler had no workers
    executor = _executor()
    answers: dict[str, object] = {"tcp://a:1": __version__}
    executor.client = SimpleNamespace(run=lambda *args, workers, on_error: {
        w: answers[w] for w in workers})
    executor._check_arena(["tcp://a:1"])
    assert executor.checked == {"tcp://a:1"}
    answers["tcp://b:1"] = ModuleNotFoundError("No module named 'arena'")
    with pytest.raises(ArenaError, match=r"^worker tcp://b:1 cannot play arena's games: "
                                         r"arena is not installed there \(No module named "):
        executor._check_arena(["tcp://b:1"])
    answers["tcp://c:1"] = "0.0.1"
    with pytest.raises(ArenaError, match=f"^worker tcp://c:1 runs arena 0.0.1, this machine "
                                         f"{__version__}: "):
        executor._check_arena(["tcp://c:1"])
    answers["tcp://d:1"] = OSError("gone while asked")
    executor._check_arena(["tcp://d:1"])  # asked again at the next count
    assert executor.checked == {"tcp://a:1"}


def test_a_tls_file_that_is_not_there_is_named(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/cluster.md's example gave relative paths: from another directory Dask said only
    # "[Errno 2] No such file or directory", whichever file it was
    import dask

    (tmp_path / "ca.pem").write_text("")
    monkeypatch.chdir(tmp_path)
    with dask.config.set({"distributed.comm.tls.ca-file": "ca.pem",
                          "distributed.comm.tls.client.cert": "node.pem"}):
        with pytest.raises(ArenaError, match=(
                r"^cannot reach the Dask scheduler at tls://127.0.0.1:1: the setting "
                r"distributed.comm.tls.client.cert names node.pem, which is not a file \(a "
                f"relative path is read from {tmp_path}, where arena runs; ")):
            cluster_connect.connect("tls://127.0.0.1:1", 1)


def test_a_bundle_goes_once_to_a_machine_whose_workers_all_lack_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the workers of one machine share its cache, and at a run's start each lacked each
    # bundle: a machine of 7 workers was sent a 149 MB bot 7 times (organiser's audit)
    executor = _executor()
    executor.sending, executor.held = {}, {}
    executor.bundles = {"d1": SimpleNamespace(data=b"bytes")}
    games = [GameKey(1, t, 0) for t in range(4)]
    executor.jobs = {key: key for key in games}
    sent: list[tuple[object, dict[str, bytes]]] = []
    monkeypatch.setattr(executor, "_submit", lambda job, data: sent.append((job, data)))
    a, b, c, other = games
    executor._send(a, ("d1",), "10.0.0.7")
    executor._send(b, ("d1",), "10.0.0.7")  # its worker asked while a's bytes were on the way
    executor._send(c, ("d1",), "10.0.0.7")
    executor._send(other, ("d1",), "10.0.0.8")  # another machine: a cache of its own
    assert sent == [(a, {"d1": b"bytes"}), (other, {"d1": b"bytes"})]
    executor._delivered(a)  # a's outcome came: the bundle is in 10.0.0.7's cache
    assert sent[2:] == [(b, {}), (c, {})]
    assert executor.held == {} and list(executor.sending) == [other]
