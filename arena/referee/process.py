"""Bot processes: spawn confined, capture output to a capped log, stop for good.

A bot runs in its own session, inside its sandbox (`sandbox.py`) when there is one, in its
own cgroup when the referee can make one (`limits.py`), and with PR_SET_PDEATHSIG so that
it dies with the referee even when the referee is SIGKILLed. Stopping a bot kills its
process group, everything in its cgroup and its PID namespace, so nothing it started
survives, setsid or not. Its stdout and stderr go through a pipe drained by a thread that
writes at most `log_cap` bytes to the log and discards the rest: a flooding bot neither
blocks nor fills the disk; it has no other way to the log (no descriptor of the referee's
is inherited, and in the sandbox it cannot see the referee's /proc).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.referee.botlog import BotLog, drain
from arena.referee.limits import Cgroup, Enforcer, Limits, set_rlimits
from arena.referee.sandbox import Isolation, Launch, bwrap_launch, plain_launch

log = logging.getLogger("arena.referee.process")

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
_LIVE: set[BotProcess] = set()
_FORKING = [0]
"""Bot processes being started now (fork to exec): see `exit_when_safe`."""
_EXIT_DUE: list[int] = []
"""The status `exit_when_safe` put off until the start in progress ends."""


def exit_when_safe(status: int) -> None:
    """Exit (SystemExit(status)) now, or, while a bot process is being started, as soon as
    the start ends. For a signal handler: Python runs it between any two bytecodes, and
    in the fork's after-fork hooks (logging's, for one) the SystemExit it raised was
    printed as "Exception ignored" and lost, so the worker went on (a run stopped on an
    error, its workers SIGTERMed while one started a bot)."""
    if _FORKING[0]:
        _EXIT_DUE.append(status)
        return
    raise SystemExit(status)


@contextlib.contextmanager
def _forking() -> Iterator[None]:
    _FORKING[0] += 1
    try:
        yield
    finally:
        _FORKING[0] -= 1


def _exit_if_due() -> None:
    """The exit `exit_when_safe` put off, once the new process is ours to stop."""
    if _EXIT_DUE and not _FORKING[0]:
        raise SystemExit(_EXIT_DUE.pop())
"""Every process not yet stopped, killed at interpreter exit whatever happened."""

_WATCHDOG_CODE = """
import os, signal, sys
groups = set()
cgroups = set()
for line in sys.stdin:
    word = line.strip()
    if word.startswith("cg-"):
        cgroups.discard(word[3:])
    elif word.startswith("cg+"):
        cgroups.add(word[3:])
    elif word.startswith("-"):
        groups.discard(int(word[1:]))
    elif word:
        groups.add(int(word))
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
for path in cgroups:
    for _ in range(100):
        try:
            pids = open(path + "/cgroup.procs").read().split()
        except OSError:
            break
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
"""
_watchdog: subprocess.Popen[bytes] | None = None


def _watch(line: str) -> None:
    """Tell the watchdog about a process group (`123`) or a cgroup (`cg+PATH`), or that it
    is gone (`-123`, `cg-PATH`).

    The watchdog is a tiny process that kills every group and cgroup it still knows of when
    the referee's end of its pipe closes, that is when the referee exits or is killed (even
    by SIGKILL): the parent-death signal reaches a bot, the watchdog also reaches its
    children, and a cgroup holds the ones that called setsid.
    """
    global _watchdog
    if _watchdog is None or _watchdog.poll() is not None:
        if _watchdog is not None and _watchdog.stdin is not None:
            _watchdog.stdin.close()
        try:
            _watchdog = subprocess.Popen([sys.executable, "-I", "-S", "-c", _WATCHDOG_CODE],
                                         stdin=subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            log.warning("cannot start the process watchdog (%s); bots may outlive a killed "
                        "referee", exc)
            return
    assert _watchdog.stdin is not None
    try:
        _watchdog.stdin.write(f"{line}\n".encode())
        _watchdog.stdin.flush()
    except OSError:
        log.warning("the process watchdog is gone; bots may outlive a killed referee")


@atexit.register  # registered before _kill_leftovers, so it runs after the bots are reaped
def _release_watchdog() -> None:
    """At a normal exit, close the watchdog's pipe (it kills whatever it still knows of, as
    on any exit) and reap it, instead of leaving a running child to the interpreter's
    teardown (which warned "subprocess ... is still running")."""
    if _watchdog is None or _watchdog.stdin is None:
        return
    with contextlib.suppress(OSError):
        _watchdog.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        _watchdog.wait(timeout=10)  # it exits on end of file; a bound only against a hang


def _child_setup(parent: int, cgroup: Cgroup | None, limits: Limits | None,
                 enforcer: Enforcer) -> Callable[[], None]:
    def setup() -> None:  # runs in the child between fork and exec
        if _LIBC is not None:
            _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:  # the referee died before prctl took effect
                os._exit(1)
        if cgroup is not None:
            cgroup.join()
        if limits is not None:
            set_rlimits(limits, enforcer)
    return setup


def become_subreaper() -> None:
    """Make this process adopt its orphaned descendants (Linux), so that a bot's grandchild
    that escaped its process group is still ours to find and kill (see `kill_orphans`)."""
    if _LIBC is not None:
        _LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1)


def _process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, start time) of every process we can see."""
    table: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                table[int(entry.name)] = (int(fields[1]), fields[19])
            except (OSError, IndexError, ValueError):
                continue
    return table


def descendants(root: int) -> dict[int, str]:
    """The processes below `root` now: pid -> start time (to tell a reused pid)."""
    table = _process_table()
    found: dict[int, str] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, start) in table.items():
            if ppid == parent and pid not in found:
                found[pid] = start
                frontier.append(pid)
    return found


def _kill_seen(seen: dict[int, str]) -> None:
    """SIGKILL (and reap, when the subreaper made them ours) the processes still alive with
    the start time they were seen with."""
    if not seen:  # a sandboxed bot, or one in a cgroup: nothing was tracked by pid
        # The scan below reads every process's stat: its cost grows with the processes on
        # the machine, so with the worker count (each worker's bots are processes). With
        # `Referee._owned`, 11.0-11.2 -> 4.9-5.6 ms of a referee's CPU per bot started and
        # stopped, about 160 processes on the machine.
        return
    table = _process_table()
    for pid, start in seen.items():
        if table.get(pid, (0, ""))[1] == start:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    for pid in seen:
        with contextlib.suppress(OSError):
            os.waitpid(pid, os.WNOHANG)


def describe_exit(status: int | None, sandboxed: bool = False) -> str:
    """Say how a process ended: `exited with status 1`, `killed by SIGABRT`."""
    if status is None:
        return "still running"
    number = -status if status < 0 else status - 128 if sandboxed and status > 128 else 0
    if number > 0:
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exited with status {status}"


@dataclass(frozen=True, slots=True)
class Confinement:
    """How one bot is isolated: the run's isolation plus what belongs to this bot."""

    isolation: Isolation
    endpoint_dir: str | None = None
    """The bot's private endpoint directory, mounted into its sandbox alone."""
    hide: tuple[str, ...] = ()
    """Directories the bot must not see (the run directory, other bots' directories)."""
    network: bool = False


class BotProcess:
    """One running bot process and the thread draining its output."""

    def __init__(self, name: str, cmd: Sequence[str], env: Mapping[str, str], cwd: str | None,
                 log_path: Path, log_cap: int, confinement: Confinement | None = None) -> None:
        """Start the process, confined as `confinement` says (plain when None).

        Raises:
            OSError: the command cannot be started (not found, not executable, bad cwd).
        """
        self.name = name
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self.sandboxed = confinement is not None and confinement.isolation.bwrap is not None
        self._seen: dict[int, str] = {}
        launch = _launch(cmd, env, cwd, confinement)
        self._log = BotLog(log_path, log_cap)  # first: a log that cannot open starts nothing
        self.cgroup = _cgroup(name, confinement)
        limits = confinement.isolation.limits if confinement is not None else None
        enforcer = confinement.isolation.enforcer if confinement else Enforcer.RLIMIT
        try:
            with _forking(), launch.spawn() as (argv, fds):
                self._proc = subprocess.Popen(
                    argv, cwd=launch.cwd, env=launch.env, stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                    pass_fds=fds,
                    preexec_fn=_child_setup(os.getpid(), self.cgroup, limits,
                                            Enforcer.RLIMIT if self.cgroup is None and limits
                                            else enforcer))
        except BaseException:
            self._log.close()
            if self.cgroup is not None:
                self.cgroup.remove()
            raise
        assert self._proc.stdout is not None
        self._stopping = threading.Event()
        self._drainer = threading.Thread(target=drain, args=(self._proc.stdout, self._log,
                                                             self._stopping),
                                         name=f"log-{name}", daemon=True)
        self._drainer.start()
        _LIVE.add(self)
        _watch(str(self._proc.pid))
        if self.cgroup is not None:
            for path in self.cgroup.paths.values():
                _watch(f"cg+{path}")
        log.info("%s: started pid %d: %s", name, self._proc.pid, " ".join(cmd))
        _exit_if_due()  # a SIGTERM came during the fork: now, the process among _LIVE

    @property
    def pid(self) -> int:
        """The process id (also its process group id)."""
        return self._proc.pid

    def alive(self) -> bool:
        """Return whether the process is still running."""
        return self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        """The exit status once it ended (negative: killed by that signal)."""
        return self._proc.poll()

    def wait(self, seconds: float) -> bool:
        """Wait for the process to end; return whether it did."""
        try:
            self._proc.wait(timeout=max(0.0, seconds))
        except subprocess.TimeoutExpired:
            return False
        return True

    def signal_group(self, signum: int) -> None:
        """Send a signal to the whole process group (children included)."""
        try:
            os.killpg(self._proc.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass  # the group is already gone

    @property
    def tracked(self) -> bool:
        """Whether its descendants must be tracked by pid: neither a PID namespace nor a
        cgroup holds them."""
        return not self.sandboxed and self.cgroup is None

    def track(self) -> None:
        """Remember the bot's descendants now, so that one that escapes its group by
        setsid is still killed at the end (called periodically when `tracked`)."""
        if self.alive():
            self._seen.update(descendants(self._proc.pid))

    def note(self, text: str) -> None:
        """Write a line of the referee's into the bot's log (e.g. which game starts)."""
        stamp = time.strftime("%H:%M:%S")
        self._log.write(f"[arena {stamp}] {text}\n".encode())

    def describe(self) -> str:
        """How the process ended (`exited with status 1`, `killed by SIGKILL`)."""
        return describe_exit(self._proc.poll(), self.sandboxed)

    def breach(self) -> str | None:
        """The resource limit the bot hit (`memory: ...`), or None (always None without a
        cgroup: rlimits make the bot's own call fail instead)."""
        return self.cgroup.breach() if self.cgroup is not None else None

    def reap(self) -> None:
        """Kill what is left (group, cgroup), collect the exit status, close the log."""
        if self.tracked:
            self.track()
        self.signal_group(signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill_all()
        self._proc.wait()
        _kill_seen(self._seen)
        self._stopping.set()  # a drainer held back past the log's cap takes the rest now
        self._drainer.join(timeout=2.0)
        if self in _LIVE:
            _LIVE.discard(self)
            _watch(f"-{self._proc.pid}")
            if self.cgroup is not None:
                self.cgroup.remove()
                for path in self.cgroup.paths.values():
                    _watch(f"cg-{path}")
        log.info("%s: pid %d ended with status %s", self.name, self._proc.pid,
                 self._proc.returncode)


def stop_all(processes: Sequence[BotProcess], grace_s: float) -> None:
    """Stop processes together: wait `grace_s` for them to exit, then SIGTERM, then SIGKILL.

    The caller has already sent them `shutdown`.
    """
    for step in (None, signal.SIGTERM):
        if step is not None:
            for proc in processes:
                if proc.alive():
                    proc.signal_group(step)
        deadline = time.monotonic() + grace_s
        for proc in processes:
            proc.wait(deadline - time.monotonic())
    for proc in processes:
        proc.reap()


def _launch(cmd: Sequence[str], env: Mapping[str, str], cwd: str | None,
            confinement: Confinement | None) -> Launch:
    if confinement is None or confinement.isolation.bwrap is None:
        return plain_launch(cmd, env, cwd)
    return bwrap_launch(confinement.isolation.bwrap, cmd, env, cwd,
                        endpoint_dir=confinement.endpoint_dir, hide=confinement.hide,
                        network=confinement.network, limits=confinement.isolation.limits)


def _cgroup(name: str, confinement: Confinement | None) -> Cgroup | None:
    if confinement is None or confinement.isolation.enforcer is Enforcer.RLIMIT:
        return None
    try:
        return Cgroup.create(confinement.isolation.enforcer, name,
                             confinement.isolation.limits)
    except OSError as exc:
        log.warning("%s: no cgroup (%s); its limits are rlimits only", name, exc)
        return None


@atexit.register
def _kill_leftovers() -> None:
    for proc in list(_LIVE):
        proc.reap()
