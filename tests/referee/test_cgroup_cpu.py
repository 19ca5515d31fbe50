"""A bot's processes share the CPU as one group, however many it starts: where the v1 `cpu`
controller is a hierarchy of its own, a bot's cgroup is made there too.

Without it the kernel shared the CPU thread by thread (its autogroups do not reach into a
cgroup, such as a container's): a bot spinning 16 processes between its turns, within
every limit, slowed a neighbour's moves from 1.8 s to 44.6 s in one game on 2 cores."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.referee import limits
from arena.referee.limits import Cgroup, Enforcer, Limits
from tests.polyglot.starters import missing


def test_a_bots_cgroup_has_a_cpu_group_of_its_own() -> None:
    if os.geteuid() != 0 or limits._v1_parents() is None:
        missing("needs cgroup v1 hierarchies we may write (root)")
    cpu, acct = limits.CGROUP_ROOT / "cpu", limits.CGROUP_ROOT / "cpuacct"
    if not cpu.is_dir() or cpu.resolve() == acct.resolve():
        missing("no cpu hierarchy apart from cpuacct: the cpuacct group is the cpu one")
    group = Cgroup.create(Enforcer.CGROUP_V1, "cpu-share", Limits())
    child = None
    try:
        child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                                 stdin=subprocess.PIPE, preexec_fn=group.join)
        lines = Path(f"/proc/{child.pid}/cgroup").read_text().splitlines()
        leaf = group.paths["memory"].name
        shares = [line for line in lines if "cpu" in line.split(":")[1].split(",")]
        assert shares and all(line.endswith(f"/{leaf}") for line in shares), lines
    finally:
        if child is not None:
            child.kill()
            child.wait()
            assert child.stdin is not None
            child.stdin.close()
        group.kill_all()
        group.remove()
    assert not any(path.exists() for path in group.paths.values())


def test_a_cpu_group_that_cannot_be_made_leaves_the_bot_its_limits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the cpu group shares the CPU out; the bot's limits are the others': without it, a
    # bot must still start with them rather than fall back to rlimits
    parents = {c: tmp_path / c for c in (*limits.V1_CONTROLLERS, limits.V1_SHARES)}
    for parent in parents.values():
        parent.mkdir()
    refused, mkdir = parents[limits.V1_SHARES], Path.mkdir

    def refusing(self: Path, mode: int = 0o777, parents_too: bool = False,
                 exist_ok: bool = False) -> None:
        if self.parent == refused:
            raise PermissionError(13, "refused", str(self))
        mkdir(self, mode, parents_too, exist_ok)

    monkeypatch.setattr(limits, "_v1_parents", lambda: parents)
    monkeypatch.setattr(Path, "mkdir", refusing)
    group = Cgroup.create(Enforcer.CGROUP_V1, "no-shares", Limits())
    assert set(group.paths) == set(limits.V1_CONTROLLERS)
    group.remove()
