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


def test_a_bots_cgroup_has_a_cpu_group_of_its_own() -> None:
    if os.geteuid() != 0 or limits._v1_parents() is None:
        pytest.skip("needs cgroup v1 hierarchies we may write (root)")
    cpu, acct = limits.CGROUP_ROOT / "cpu", limits.CGROUP_ROOT / "cpuacct"
    if not cpu.is_dir() or cpu.resolve() == acct.resolve():
        pytest.skip("no cpu hierarchy apart from cpuacct: the cpuacct group is the cpu one")
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
