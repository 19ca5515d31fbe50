"""`Cgroup.kill_all` waits for killed processes to leave, however long their exit waits for a
time slice: it once gave up after 1,000 rounds of spinning with a process still exiting (14
workers on 2 cores), and left the cgroup behind. `Cgroup.sweep` removes what dead runs left."""

from __future__ import annotations

import logging
import os
import subprocess
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


def test_sweep_removes_the_empty_cgroups_of_processes_gone_and_nothing_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a run killed whole (coordinator and workers) left one cgroup per bot start: the
    # suite alone left forty under /sys/fs/cgroup
    parents = {c: tmp_path / c for c in limits.V1_CONTROLLERS}
    monkeypatch.setattr(limits, "_v1_parents", lambda: parents)
    dead = _finished_pid()
    leaves = {"dead": f"arena-{dead}-1-bot", "dead_busy": f"arena-{dead}-2-bot",
              "alive": f"arena-{os.getpid()}-1-bot", "other": "unrelated"}
    for parent in parents.values():
        for leaf in leaves.values():
            (parent / leaf).mkdir(parents=True)
    # a process still in it: maybe another pid namespace's, so not ours to remove
    (parents["pids"] / leaves["dead_busy"] / "cgroup.procs").write_text("4242\n")
    assert Cgroup.sweep() == 1
    for parent in parents.values():
        assert sorted(p.name for p in parent.iterdir()) == sorted(
            leaves[k] for k in ("dead_busy", "alive", "other"))


def _finished_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid
