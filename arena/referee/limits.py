"""Per-bot resource limits: a cgroup where the referee can make one, otherwise rlimits.

A cgroup (v1 controllers `memory`, `pids`, `cpuacct` and `cpu`, or a v2 subtree) holds every
process a bot starts, so the referee can limit them together, tell which limit a bot hit (the
kernel's OOM-kill and pids-max counters) and kill them all, setsid or not. Without one, the
rlimits set in the child before exec still bound each process (memory as RLIMIT_DATA,
processes as RLIMIT_NPROC for a non-root user, CPU as RLIMIT_CPU per process).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import resource
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

log = logging.getLogger("arena.referee.limits")

CGROUP_ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "cpuacct")
V1_SHARES = "cpu"
"""The v1 controller that shares the CPU out between groups, joined too where it is mounted
apart from cpuacct (`cpu,cpuacct` together: a bot's cpuacct group is its cpu group already).
Without a group of its own a bot's processes share the CPU with everyone's thread by thread
(the kernel's autogroups do not reach into a cgroup such as a container's): a bot spinning 16
processes between its turns slowed a neighbour's moves 1.8 s -> 44.6 s in one game on 2 cores.
In a group of its own, it weighs as one more busy neighbour whatever it starts."""
KILL_WAIT_S = 30.0
"""How long `Cgroup.kill_all` waits for killed processes to leave before it gives up and
says so: only a process stuck in the kernel (a hung file system) takes that long."""
_serial = itertools.count(1)
_swept = False
"""Whether this process has removed what dead ones left (`Cgroup.sweep`)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What one bot may use; the defaults are far beyond what a normal bot needs."""

    memory_mb: int = 1024
    """Memory of all the bot's processes together."""
    processes: int = 128
    """Processes and threads together (a JVM on 16 cores runs about 40 threads)."""
    open_files: int = 1024
    """Open file descriptors per process."""
    scratch_mb: int = 64
    """Size of the private writable /tmp (with the sandbox)."""
    cpu_s: int = 600
    """CPU seconds per game, a safety net beyond the clock (per process without a cgroup)."""

    def to_json(self) -> dict[str, int]:
        """Return the limits as JSON-ready data."""
        return {"memory_mb": self.memory_mb, "processes": self.processes,
                "open_files": self.open_files, "scratch_mb": self.scratch_mb,
                "cpu_s": self.cpu_s}


class Enforcer(StrEnum):
    """How the limits are enforced."""

    CGROUP_V1 = "cgroup-v1"
    CGROUP_V2 = "cgroup-v2"
    RLIMIT = "rlimit"


def _write(path: Path, value: str) -> None:
    with open(path, "w") as out:
        out.write(value)


def _v2_parent() -> Path | None:
    """Our own v2 cgroup, when the whole hierarchy is v2 and it lets us make children."""
    if not (CGROUP_ROOT / "cgroup.controllers").exists():
        return None
    try:
        line = next(ln for ln in Path("/proc/self/cgroup").read_text().splitlines()
                    if ln.startswith("0::"))
    except (OSError, StopIteration):
        return None
    own = CGROUP_ROOT / line[3:].lstrip("/")
    return own if os.access(own, os.W_OK) else None


def _v1_parents() -> dict[str, Path] | None:
    """The v1 hierarchies a bot's cgroup is made in: `V1_CONTROLLERS`, and `V1_SHARES` where
    it is a hierarchy of its own that we may write; None without the first."""
    parents = {c: CGROUP_ROOT / c for c in V1_CONTROLLERS}
    if not all(os.access(p, os.W_OK) for p in parents.values()):
        return None
    shares = CGROUP_ROOT / V1_SHARES
    with contextlib.suppress(OSError):
        if os.access(shares, os.W_OK) and shares.resolve() not in {
                p.resolve() for p in parents.values()}:
            parents[V1_SHARES] = shares
    return parents


def detect() -> tuple[Enforcer, str]:
    """Return how limits can be enforced here, and why not by a cgroup when they can't."""
    if _v1_parents() is not None:
        probe = _try_group(Enforcer.CGROUP_V1)
        if probe is None:
            return Enforcer.CGROUP_V1, ""
        return Enforcer.RLIMIT, probe
    if _v2_parent() is not None:
        probe = _try_group(Enforcer.CGROUP_V2)
        if probe is None:
            return Enforcer.CGROUP_V2, ""
        return Enforcer.RLIMIT, probe
    return Enforcer.RLIMIT, ("no writable cgroup hierarchy (cgroup v1 memory/pids/cpuacct or a "
                             "delegated v2 subtree); run as root or under a systemd delegate")


def _try_group(kind: Enforcer) -> str | None:
    try:
        group = Cgroup.create(kind, "probe", Limits())
    except OSError as exc:
        return f"cannot create a cgroup: {exc}"
    group.remove()
    return None


class Cgroup:
    """One bot's cgroup: its limits, its counters, and a kill of everything in it."""

    def __init__(self, kind: Enforcer, paths: Mapping[str, Path], limits: Limits) -> None:
        self.kind, self.paths, self.limits = kind, dict(paths), limits
        self._cpu_base = 0

    @classmethod
    def create(cls, kind: Enforcer, name: str, limits: Limits) -> Cgroup:
        """Make the cgroup and write its limits.

        Raises:
            OSError: the hierarchy refused (no permission, no controller).
        """
        global _swept
        if not _swept:  # once per process: what killed runs left
            _swept = True
            cls.sweep()
        leaf = f"arena-{os.getpid()}-{next(_serial)}-{_safe(name)}"
        if kind is Enforcer.CGROUP_V1:
            parents = _v1_parents() or {}
            paths = {c: parent / leaf for c, parent in parents.items()}
        else:
            parent = _v2_parent()
            if parent is None:
                raise OSError("no delegated cgroup v2 subtree")
            with contextlib.suppress(OSError):
                _write(parent / "cgroup.subtree_control", "+memory +pids +cpu")
            paths = {"v2": parent / leaf}
        shares = paths.pop(V1_SHARES, None)
        group = cls(kind, paths, limits)
        try:
            for path in paths.values():
                path.mkdir()
            group._configure()
        except OSError:
            group.remove()
            raise
        if shares is not None:  # a help, not a limit: without it the bot still runs
            try:
                shares.mkdir()
                group.paths[V1_SHARES] = shares
            except OSError as exc:
                log.warning("%s: no cpu cgroup (%s): its processes share the CPU one by one",
                            name, exc)
        return group

    @classmethod
    def left_by(cls, pid: int) -> list[Cgroup]:
        """The cgroups a process made for its bots (`arena-PID-*`): a worker that was killed
        leaves them behind (empty, as a rule: its sandboxes die with it), one per bot start,
        and a season of nightly runs made thousands."""
        return cls._found(f"arena-{pid}-*")

    @classmethod
    def sweep(cls) -> int:
        """Remove the empty cgroups of arena processes that no longer run (a run killed
        whole, coordinator and workers, cleans nothing up); return how many. A group with a
        process in it is left alone: it may be another pid namespace's."""
        removed = 0
        for group in cls._found("arena-*-*"):
            owner = next(iter(group.paths.values())).name.split("-")[1]
            if owner.isdigit() and not _runs(int(owner)) and not group.pids():
                group.remove()
                removed += 1
        return removed

    @classmethod
    def _found(cls, pattern: str) -> list[Cgroup]:
        parents = _v1_parents()
        kind = Enforcer.CGROUP_V1 if parents is not None else Enforcer.CGROUP_V2
        if parents is None:
            parent = _v2_parent()
            parents = {"v2": parent} if parent is not None else {}
        leaves = sorted({p.name for parent in parents.values() for p in parent.glob(pattern)})
        return [cls(kind, {c: parent / leaf for c, parent in parents.items()}, Limits())
                for leaf in leaves]

    def _configure(self) -> None:
        memory = str(self.limits.memory_mb << 20)
        if self.kind is Enforcer.CGROUP_V1:
            _write(self.paths["memory"] / "memory.limit_in_bytes", memory)
            with contextlib.suppress(OSError):  # absent without swap accounting
                _write(self.paths["memory"] / "memory.memsw.limit_in_bytes", memory)
            _write(self.paths["pids"] / "pids.max", str(self.limits.processes))
        else:
            _write(self.paths["v2"] / "memory.max", memory)
            with contextlib.suppress(OSError):
                _write(self.paths["v2"] / "memory.swap.max", "0")
            _write(self.paths["v2"] / "pids.max", str(self.limits.processes))

    def join(self) -> None:
        """Move the calling process into the cgroup (run in the child before exec)."""
        for controller, path in self.paths.items():
            if controller == V1_SHARES:
                with contextlib.suppress(OSError):  # a help, not a limit (`create`)
                    _write(path / "cgroup.procs", "0")
            else:
                _write(path / "cgroup.procs", "0")

    def pids(self) -> list[int]:
        """Return the processes now in the cgroup."""
        path = self.paths.get("pids", self.paths.get("v2"))
        try:
            return [int(p) for p in (path / "cgroup.procs").read_text().split()] if path else []
        except OSError:
            return []

    def cpu_ns(self) -> int:
        """CPU time used by the cgroup so far, in nanoseconds."""
        try:
            if self.kind is Enforcer.CGROUP_V1:
                return int((self.paths["cpuacct"] / "cpuacct.usage").read_text())
            stat = (self.paths["v2"] / "cpu.stat").read_text().split()
            return int(stat[stat.index("usage_usec") + 1]) * 1000
        except (OSError, ValueError):
            return 0

    def start_game(self) -> None:
        """Start counting CPU time for the per-game limit."""
        self._cpu_base = self.cpu_ns()

    def breach(self) -> str | None:
        """Return which limit the bot hit, as `limit: detail`, or None."""
        if self._counter("memory") > 0:
            return f"memory: over its {self.limits.memory_mb} MiB limit (OOM-killed)"
        if self._counter("pids") > 0:
            return f"processes: tried to run more than {self.limits.processes} processes/threads"
        used = (self.cpu_ns() - self._cpu_base) / 1e9
        if used > self.limits.cpu_s:
            return f"cpu: used {used:.0f} s of CPU in this game (limit {self.limits.cpu_s} s)"
        return None

    def _counter(self, what: str) -> int:
        if self.kind is Enforcer.CGROUP_V1:
            path, key = ((self.paths["memory"] / "memory.oom_control", "oom_kill")
                         if what == "memory" else (self.paths["pids"] / "pids.events", "max"))
        else:
            path = self.paths["v2"] / ("memory.events" if what == "memory" else "pids.events")
            key = "oom_kill" if what == "memory" else "max"
        try:
            for line in path.read_text().splitlines():
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def kill_all(self) -> None:
        """SIGKILL every process in the cgroup until none is left (a fork bomb included:
        pids.max bounds how many there can be, so this ends).

        A killed process leaves the cgroup only once it has run its exit, which on a busy
        machine can wait for a time slice: between rounds this sleeps (0.1 ms, doubling to
        20 ms) instead of spinning, which had given up after 1,000 rounds with a process
        still exiting (seen at 14 workers on 2 cores), leaving the cgroup behind."""
        if self.kind is Enforcer.CGROUP_V2:
            with contextlib.suppress(OSError):
                _write(self.paths["v2"] / "cgroup.kill", "1")
        pause, deadline = 1e-4, time.monotonic() + KILL_WAIT_S
        while pids := self.pids():
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                log.warning("processes %s left in cgroup %s %.0f s after SIGKILL", pids,
                            self.paths, KILL_WAIT_S)
                return
            time.sleep(pause)
            pause = min(2 * pause, 0.02)

    def remove(self) -> None:
        """Remove the (empty) cgroup directories."""
        for path in self.paths.values():
            with contextlib.suppress(OSError):
                path.rmdir()


def _runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40]


def set_rlimits(limits: Limits, enforcer: Enforcer) -> None:
    """Set the rlimits of the calling process (run in the child before exec).

    Always: open files, no core dumps. Without a cgroup also memory (RLIMIT_DATA, which
    counts what a process writes to, not the address space a JVM or Go runtime reserves),
    CPU per process, and processes for a non-root user (RLIMIT_NPROC does not bind root).
    """
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if enforcer is not Enforcer.RLIMIT:
        return
    memory = limits.memory_mb << 20
    resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
    if os.geteuid() != 0:
        # Counted per user: the referee's own processes count too, so add them.
        nproc = limits.processes + _user_processes()
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def _user_processes() -> int:
    """Processes and threads of this user now: RLIMIT_NPROC counts threads too."""
    uid = os.getuid()
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(entry / "task"))
    return count
