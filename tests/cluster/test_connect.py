"""The coordinator's side of a cluster going wrong (found in a walkthrough): a port that
accepts and never answers, a scheduler that goes away mid-run, a game's result lost with
the worker holding it. Each is one line or carries on; none hangs."""

from __future__ import annotations

import queue
import socket
import threading
from collections import deque
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from arena.core.errors import ArenaError
from arena.tournament import cluster
from arena.tournament.cluster import DaskExecutor
from arena.tournament.store import GameKey


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
    monkeypatch.setattr(cluster, "CONNECT_S", 1)
    monkeypatch.setattr(cluster, "HANDSHAKE_S", 1)
    with pytest.raises(ArenaError, match="did not answer as a Dask scheduler within 2 s"):
        cluster._connect(f"tcp://127.0.0.1:{silent_port}", 1)


def _executor() -> Any:
    executor: Any = DaskExecutor.__new__(DaskExecutor)
    executor.address, executor.inbox, executor.ready = "tcp://sched:8786", queue.Queue(), deque()
    executor.where, executor.playing, executor.futures = {}, {}, {}
    executor.jobs, executor.counted, executor.workerless_said = {}, 0.0, False
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

    def __init__(self) -> None:
        self.callbacks: list[Any] = []

    def add_done_callback(self, callback: Any) -> None:
        self.callbacks.append(callback)


def test_a_result_lost_with_its_worker_is_waited_for_again() -> None:
    executor, key, future = _executor(), GameKey(5, 0, 11), LostFuture()
    executor.futures[key] = future
    executor.where[key], executor.playing[3] = 3, key
    executor._result(key)  # the run goes on: no ArenaError
    [(kind, slot, said, line)] = list(executor.ready)
    assert (kind, slot, said) == ("retry", 3, key) and "plays it again" in line
    assert executor.playing == {} and key not in executor.where
    [callback] = future.callbacks  # its next finish is read as any game's
    callback(future)
    assert executor.inbox.get_nowait() == ("result", key)


def test_a_scheduler_without_workers_is_said_once(caplog: pytest.LogCaptureFixture) -> None:
    executor = _executor()
    executor.client = SimpleNamespace(status="running", nthreads=dict)
    executor.jobs, executor.counted = {GameKey(1, 0, 0): None}, -cluster.RECOUNT_S
    executor.workerless_said = False
    with caplog.at_level("WARNING", logger="arena"):
        executor._check_scheduler()
        executor.counted = -cluster.RECOUNT_S
        executor._check_scheduler()
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "has no workers yet" in said[0] and "dask worker" in said[0]
