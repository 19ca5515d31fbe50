"""`Cgroup.kill_all` waits for killed processes to leave, however long their exit waits for a
time slice: it once gave up after 1,000 rounds of spinning with a process still exiting (14
workers on 2 cores), and left the cgroup behind."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena.referee import limits
from arena.referee.limits import Cgroup, Enforcer, Limits


def test_kill_all_waits_for_a_slow_exit_instead_of_giving_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        ) -> None:
    (tmp_path / "cgroup.procs").write_text("4242\n")
    group = Cgroup(Enforcer.CGROUP_V1, {"pids": tmp_path}, Limits())
    killed: list[int] = []
    pauses: list[float] = []

    def kill(pid: int, signum: int) -> None:
        killed.append(pid)

    def pause(seconds: float) -> None:  # the process exits once it has had its turn
        pauses.append(seconds)
        if len(killed) >= 1500:  # more rounds than the old loop's 1,000
            (tmp_path / "cgroup.procs").write_text("")

    monkeypatch.setattr("arena.referee.limits.os.kill", kill)
    monkeypatch.setattr("arena.referee.limits.time",
                        SimpleNamespace(sleep=pause, monotonic=time.monotonic))
    with caplog.at_level(logging.WARNING, logger="arena.referee.limits"):
        group.kill_all()
    assert group.pids() == [] and set(killed) == {4242} and len(killed) == 1500
    assert not caplog.records
    assert pauses[0] < pauses[10] <= 0.02  # yields the CPU, more patiently as it goes


def test_kill_all_says_which_processes_it_could_not_kill(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        ) -> None:
    (tmp_path / "cgroup.procs").write_text("77\n")
    group = Cgroup(Enforcer.CGROUP_V1, {"pids": tmp_path}, Limits())
    clock = [0.0]

    def pause(seconds: float) -> None:
        clock[0] += seconds

    monkeypatch.setattr("arena.referee.limits.os.kill", lambda pid, signum: None)
    monkeypatch.setattr("arena.referee.limits.time",
                        SimpleNamespace(sleep=pause, monotonic=lambda: clock[0]))
    with caplog.at_level(logging.WARNING, logger="arena.referee.limits"):
        group.kill_all()
    assert clock[0] >= limits.KILL_WAIT_S
    assert ["[77] left in cgroup" in r.getMessage() for r in caplog.records] == [True]
