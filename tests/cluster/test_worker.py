"""The worker side of the Dask executor without a cluster: a referee left idle by a
coordinator that is gone is closed, a busy or recent one is kept."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from arena.tournament import cluster_worker
from arena.tournament.cluster_worker import IDLE_S, _Seat, reap


class Recorder:
    """Stands in for a referee: records that it was closed."""

    def __init__(self) -> None:
        self.closed = False

    def __exit__(self, *exc: Any) -> None:
        self.closed = True


def seat(tmp_path: Path, name: str, used: float) -> _Seat:
    workdir = tmp_path / name / "thread-0"
    (workdir / "logs").mkdir(parents=True)
    return _Seat(Recorder(), workdir, threading.Lock(), 0, used)  # type: ignore[arg-type]


def test_only_idle_referees_are_reaped(tmp_path: Path, monkeypatch: Any) -> None:
    idle, recent, busy = (seat(tmp_path, n, u) for n, u in
                          (("idle", 0.0), ("recent", 500.0), ("busy", 0.0)))
    seats = {("idle", 1): idle, ("recent", 1): recent, ("busy", 1): busy}
    monkeypatch.setattr(cluster_worker, "_SEATS", dict(seats))
    with busy.lock:  # playing a game right now
        assert reap(now=IDLE_S + 1) == [("idle", 0)]
    assert idle.closed and idle.referee.closed  # type: ignore[attr-defined]
    assert not idle.workdir.exists()
    assert not recent.referee.closed and not busy.referee.closed  # type: ignore[attr-defined]
    assert set(cluster_worker._SEATS) == {("recent", 1), ("busy", 1)}


def test_closing_a_run_keeps_every_threads_logs(tmp_path: Path, monkeypatch: Any) -> None:
    """Found in a walkthrough: the run's directory, which holds every thread's, was removed
    after the first thread's referee closed, so the second's bot logs were lost."""
    run = tmp_path / "arena" / "tok"
    seats = {}
    for number in (0, 1):
        workdir = run / f"thread-{number}"
        (workdir / "logs").mkdir(parents=True)
        (workdir / "logs" / "bot.log").write_bytes(f"thread {number}\n".encode())
        seats[("tok", number)] = _Seat(Recorder(), workdir, threading.Lock(),  # type: ignore
                                       number, 0.0)
    monkeypatch.setattr(cluster_worker, "_SEATS", dict(seats))
    monkeypatch.setattr(cluster_worker, "_CLOSED", set())
    logs = cluster_worker.close_run("tok")
    assert logs == {"thread-0/bot.log": b"thread 0\n", "thread-1/bot.log": b"thread 1\n"}
    assert not run.exists()


def test_a_game_of_a_closed_run_starts_no_referee(tmp_path: Path, monkeypatch: Any) -> None:
    """A task still queued when the coordinator closed its run (Ctrl-C) would start bots
    nobody stops for IDLE_S."""
    import pytest

    from arena.core.errors import ArenaError

    monkeypatch.setattr(cluster_worker, "_SEATS", {})
    monkeypatch.setattr(cluster_worker, "_CLOSED", set())
    cluster_worker.close_run("gone")
    spec: Any = type("Spec", (), {"token": "gone"})()
    with pytest.raises(ArenaError, match="closed this run"):
        cluster_worker._seat(spec, tmp_path)
    assert cluster_worker._SEATS == {}


def test_a_run_closed_while_its_referee_starts_keeps_no_seat(tmp_path: Path,
                                                             monkeypatch: Any) -> None:
    """Found in review: close_run could come between the closed-run check and the new seat's
    insertion; the seat went in after the close, its bots alive for IDLE_S."""
    import pytest

    import arena.referee
    from arena.core.errors import ArenaError

    monkeypatch.setattr(cluster_worker, "_SEATS", {})
    monkeypatch.setattr(cluster_worker, "_CLOSED", set())
    closed: list[bool] = []

    class Starting(Recorder):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__()

        def __enter__(self) -> Starting:
            cluster_worker.close_run("late")  # the coordinator ends the run meanwhile
            return self

        def __exit__(self, *exc: Any) -> None:
            closed.append(True)

    monkeypatch.setattr(arena.referee, "Referee", Starting)
    spec: Any = type("Spec", (), {"token": "late", "bots": (), "placed": {}, "time": None,
                                  "faults": None, "tcp": False, "sandbox": None,
                                  "max_bots": 8})()
    with pytest.raises(ArenaError, match="closed this run"):
        cluster_worker._seat(spec, tmp_path)
    assert cluster_worker._SEATS == {} and closed == [True]
