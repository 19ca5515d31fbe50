"""One sandbox per bot: the only place that knows how a bot is isolated.

With bubblewrap a bot gets new PID, mount, IPC, UTS, user and (unless it needs tcp)
network namespaces; the system, its runtime and its own directory read-only; a private
size-limited /tmp as scratch and home; its own endpoint directory mounted at /run/arena;
nothing of the run directory, the other bots or any other process; no capabilities; and it
dies with the referee. `sandbox: none` runs bots as plain processes (trusted bots, or a
machine without bubblewrap), which `auto` falls back to loudly.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import arena
from arena.core.errors import ConfigError
from arena.referee.limits import Enforcer, Limits, detect

log = logging.getLogger("arena.referee.sandbox")

ENDPOINT_DIR = "/run/arena"
"""Where a sandboxed bot finds its endpoint directory."""
SYSTEM_DIRS = ("/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
MASKED_FILES = ("/etc/shadow", "/etc/gshadow", "/etc/sudoers")
"""Masked wherever they are readable: by the bot's mapped owner (root) otherwise."""
MASKED_TREE = "/etc"
"""Where every entry that not everyone may read is masked too (`_unreadable`)."""
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "JAVA_HOME", "GOMAXPROCS")
"""The only variables of the referee's environment a sandboxed bot sees."""
SANDBOX_UID = 65534
_PROC_READ_ONLY = ("--ro-bind", "/proc/sys", "/proc/sys",
                   "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
                   "--ro-bind-try", "/proc/fs", "/proc/fs")
"""The machine's settings in /proc, read-only. The bot's uid is the organiser's outside,
and for root a sysctl asks nothing more: writable, `kernel.core_pattern` set to a pipe
into the bot's /tmp ran the bot's program as the host's root at its next crash, and
/proc/sysrq-trigger reboots the machine. bubblewrap covers these only where its own
access() check says it may write them, which for a directory of mode r-x it does not.
The host's /proc/sys is what is bound: the global settings are the same in every
namespace, and the network ones the bot reads are the host's (it has no network)."""


class SandboxMode(StrEnum):
    """`sandbox:` in a tournament file, `--sandbox` on the command line."""

    AUTO = "auto"
    """bubblewrap where it works here, otherwise none (said loudly, once per run)."""
    BWRAP = "bwrap"
    """bubblewrap or refuse to run."""
    NONE = "none"
    """Plain processes: for trusted bots and machines without bubblewrap."""


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """What the organiser asked for: a mode and the per-bot limits."""

    mode: SandboxMode = SandboxMode.AUTO
    limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True, slots=True)
class Isolation:
    """What is in force for a run: recorded with every game."""

    bwrap: str | None
    """The bubblewrap executable, or None when bots run unsandboxed."""
    enforcer: Enforcer
    limits: Limits
    why_not: str = ""
    """Why the sandbox or a cgroup is missing, when one is."""

    @property
    def mode(self) -> str:
        """`bwrap` or `none`."""
        return "bwrap" if self.bwrap else "none"

    def to_json(self) -> dict[str, object]:
        """Return what a game record stores about isolation."""
        return {"sandbox": self.mode, "limits_by": self.enforcer.value,
                "limits": self.limits.to_json()}


@functools.cache
def probe_bwrap() -> tuple[str | None, str]:
    """Return (path, "") when bubblewrap can make a sandbox here, else (None, why not)."""
    path = shutil.which("bwrap")
    if path is None:
        return None, "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    try:
        done = subprocess.run(
            [path, "--unshare-all", "--unshare-user", "--die-with-parent", "--ro-bind", "/",
             "/", "--proc", "/proc", "--dev", "/dev", "--", "true"],
            capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bubblewrap did not run: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().splitlines()
        hint = " (unprivileged user namespaces are disabled: kernel.unprivileged_userns_clone" \
               "=0 or a user.max_user_namespaces of 0)" if os.geteuid() != 0 else ""
        return None, f"bubblewrap cannot make a sandbox here: {why[-1] if why else '?'}{hint}"
    return path, ""


@functools.cache
def _enforcer() -> tuple[Enforcer, str]:
    return detect()


def resolve(policy: SandboxPolicy) -> Isolation:
    """Decide what a run gets from what the organiser asked for and what this machine gives.

    Raises:
        ConfigError: `bwrap` was asked for and is not available (with the reason).
    """
    enforcer, cgroup_why = _enforcer()
    if policy.mode is SandboxMode.NONE:
        return Isolation(None, enforcer, policy.limits, "sandbox: none was asked for")
    path, why = probe_bwrap()
    if path is None:
        if policy.mode is SandboxMode.BWRAP:
            raise ConfigError(f"sandbox: bwrap was asked for, but {why}")
        return Isolation(None, enforcer, policy.limits, why)
    return Isolation(path, enforcer, policy.limits, cgroup_why)


def warning(isolation: Isolation) -> str | None:
    """The loud line a run prints once when bots are not isolated as they could be."""
    if isolation.bwrap is None and isolation.why_not != "sandbox: none was asked for":
        return (f"WARNING: bots run WITHOUT a sandbox: {isolation.why_not}. A hostile bot can "
                "read other bots' tokens and the run directory; see docs/security.md")
    return None


@dataclass(frozen=True, slots=True)
class Launch:
    """How to start one bot: argv, environment and working directory for Popen."""

    argv: list[str]
    """Everything the program is given; `spawn` says how it is given."""
    env: dict[str, str]
    cwd: str | None
    sandboxed: bool = False
    """`argv` is bubblewrap's: its options, `--`, then the bot's command."""

    @contextlib.contextmanager
    def spawn(self) -> Iterator[tuple[list[str], tuple[int, ...]]]:
        """Yield the command line and the descriptors Popen passes (`pass_fds`).

        bubblewrap's options go on a descriptor (`--args`), not on its command line: its
        copy is the bot's pid 1, whose /proc/1/cmdline any bot reads, and there the options
        named every host path bound or masked (the run's endpoint directory, the other
        bots' directories, the runtime's). bubblewrap closes it once read."""
        if not self.sandboxed:
            yield self.argv, ()
            return
        end = self.argv.index("--")
        data = b"".join(os.fsencode(arg) + b"\0" for arg in self.argv[1:end])
        fd = os.memfd_create("bwrap-args", os.MFD_CLOEXEC)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.lseek(fd, 0, os.SEEK_SET)
            yield [self.argv[0], "--args", str(fd), *self.argv[end:]], (fd,)
        finally:
            os.close(fd)


def plain_launch(argv: Sequence[str], env: Mapping[str, str], cwd: str | None) -> Launch:
    """A bot without the sandbox: the referee's environment plus the bot's."""
    return Launch(list(argv), {**os.environ, **env}, cwd)


def bwrap_launch(bwrap: str, argv: Sequence[str], env: Mapping[str, str], cwd: str | None,
                 *, endpoint_dir: str | None, hide: Iterable[str], network: bool,
                 limits: Limits) -> Launch:
    """A bot inside bubblewrap (see the module docstring for what it sees)."""
    argv = _absolute_all(argv, cwd)
    own = _own_dirs(argv, cwd)
    binds = _runtime_dirs(argv, env) + own
    args = [bwrap, "--unshare-all", "--unshare-user", "--uid", str(SANDBOX_UID), "--gid",
            str(SANDBOX_UID), "--disable-userns", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--hostname", "arena-bot"]
    if network:
        args.append("--share-net")
    for top in SYSTEM_DIRS:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    args += _mask_args()
    scratch = str(limits.scratch_mb << 20)
    # /dev/shm is the second writable place (POSIX shared memory, multiprocessing's locks):
    # bounded as /tmp is; / and /dev, tmpfs of bubblewrap's, are made read-only below, since
    # without a cgroup nothing would bound what a bot wrote there (a tmpfs is not its memory)
    args += ["--proc", "/proc", *_PROC_READ_ONLY, "--dev", "/dev", "--size", scratch,
             "--tmpfs", "/tmp", "--size", scratch, "--tmpfs", "/dev/shm"]
    for path in _outermost(binds):
        args += ["--ro-bind", path, path]
    masked = [path for path in sorted(set(hide)) if any(_inside(path, b) for b in binds)]
    for path in masked:
        # another bot's directory or the run directory: empty and read-only (writable, it
        # was an unbounded scratch beside /tmp). Masked even when the bot's own directory
        # lies in it: left open then, a bot given `./data`, a link to the run directory,
        # read the salt (and so every deal), the database and the other bots' logs
        args += ["--tmpfs", path]
    for path in _outermost(o for o in own if any(_inside(o, m) and o != m for m in masked)):
        args += ["--ro-bind", path, path]  # its own inside a masked one: that alone, bound
        # while the tmpfs is writable (bubblewrap makes the mount point there)
    for path in masked:
        args += ["--remount-ro", path]
    if endpoint_dir is not None:
        args += ["--ro-bind", endpoint_dir, ENDPOINT_DIR]
    args += ["--remount-ro", "/dev", "--remount-ro", "/",
             "--chdir", str(Path(cwd).resolve()) if cwd else "/tmp", "--"]
    clean = {k: os.environ[k] for k in KEPT_ENV if k in os.environ}
    clean.update({"HOME": "/tmp", "TMPDIR": "/tmp", **env})
    return Launch(args + argv, clean, None, sandboxed=True)


def shared_caches() -> None:
    """Fill what this module caches per process (the bubblewrap probe, the cgroup probe,
    the masks of /etc): ~6.5 ms of CPU, and a fork server that calls this once spares each
    worker forked from it its own."""
    probe_bwrap()
    _enforcer()
    _mask_args()


@functools.cache
def _mask_args() -> tuple[str, ...]:
    """bubblewrap's arguments that mask `MASKED_FILES` and `_unreadable()` (a file by
    /dev/null, a directory by an empty read-only tmpfs): the same for every bot, so made
    once per process."""
    masked = {(p, False) for p in MASKED_FILES if os.path.exists(p)} | set(_unreadable())
    args: list[str] = []
    for path, is_dir in sorted(masked):
        args += ["--tmpfs", path, "--remount-ro", path] if is_dir else \
            ["--ro-bind", "/dev/null", path]
    return tuple(args)


@functools.cache
def _unreadable(top: str = MASKED_TREE) -> tuple[tuple[str, bool], ...]:
    """The entries under `top` that not everyone may read (a directory: list or enter), with
    whether each is a directory; none below one listed.

    Why: the bot runs as uid 65534 of its own user namespace, which is the organiser's uid
    outside; for an organiser who is root it holds root's rights on the system's files, so
    it could read /etc/shadow-, /etc/ssl/private's keys, a database's pg_hba.conf. Masked,
    the system looks to it as it does to any user. /etc only: the rest of the system holds
    no secrets as a rule, and walking /usr costs seconds (/etc: ~1,200 entries, 2-4 ms, once
    per process)."""
    found: list[tuple[str, bool]] = []
    stack = [top]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    mode = entry.stat(follow_symlinks=False).st_mode
                except OSError:
                    continue
                is_dir = stat.S_ISDIR(mode)
                if stat.S_ISLNK(mode):
                    continue  # the bot sees what it points to, masked there or not
                if not mode & stat.S_IROTH or (is_dir and not mode & stat.S_IXOTH):
                    found.append((entry.path, is_dir))
                elif is_dir:
                    stack.append(entry.path)
    return tuple(found)


def hidden_own(own: Iterable[str], run: Iterable[str]) -> str | None:
    """The first of a bot's own directories that is, or lies in, one of the run's (given
    through a link, as its cwd, or by a bot kept inside a ladder's directory): the bot
    would read the salt, the database or the other bots' logs, and is not started."""
    dirs = list(run)
    return next((o for o in sorted(own) if any(_inside(o, d) for d in dirs)), None)


def own_dirs(argv: Sequence[str], cwd: str | None) -> list[str]:
    """The directories a bot is given as its own: its cwd and those of its program files."""
    return _own_dirs(_absolute_all(argv, cwd), cwd)


def _own_dirs(argv: Sequence[str], cwd: str | None) -> list[str]:
    dirs = [str(Path(cwd).resolve())] if cwd else []
    runtime = _runtime_dirs(argv[:1], {})
    for arg in argv:
        path = Path(arg)
        if not (path.is_absolute() and os.path.exists(path)):  # False, not an error, on EACCES
            continue
        real = str(path.resolve() if os.path.isdir(path) else path.resolve().parent)
        # an argument naming / (`bot.py /`) would give the bot the whole machine, and
        # bubblewrap could not even make /run/arena on it: the bot starts without it
        if real != "/" and not _system(real) and not any(_inside(real, r) for r in runtime):
            dirs.append(real)
    return dirs


def _runtime_dirs(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """The interpreter or runtime a bot needs, read-only: arena's Python (the client library
    and the stdio bridge), the bot's own PYTHONPATH, and the installation of the bot's
    program when outside /usr."""
    dirs = [sys.prefix, sys.base_prefix, str(Path(arena.__file__).resolve().parent),
            *(p for p in env.get("PYTHONPATH", "").split(os.pathsep) if os.path.isabs(p))]
    program = shutil.which(argv[0], path=env.get("PATH", os.environ.get("PATH")))
    if program is not None:
        venv = _venv_root(os.path.abspath(program))
        if venv is not None:  # the bot's own virtual environment, as well as its base
            dirs.append(venv)
        real = Path(program).resolve()
        if not _system(str(real)):
            dirs.append(str(real.parent.parent if real.parent.name == "bin" else real.parent))
    return [d for d in dirs if not _system(d)]


def _absolute_all(argv: Sequence[str], cwd: str | None) -> list[str]:
    """`_absolute` of each argument. Without a `cwd`, an argument after the program that is
    the bare name of a file in the current directory (`node bot.js`) is a path too: the
    sandbox then starts the bot in its private /tmp, where the name would find nothing. Not
    a directory's name (`python -m package` names a module), nor the program (looked up in
    PATH)."""
    base = Path(cwd or os.getcwd())
    return [_absolute(f"./{arg}" if cwd is None and n > 0 and "/" not in arg
                      and not arg.startswith("-") and os.path.isfile(base / arg) else arg, base)
            for n, arg in enumerate(argv)]


def _absolute(arg: str, base: Path) -> str:
    """A path argument that names a file becomes the path the sandbox shows it at: absolute
    (the sandbox's working directory may differ), without `..`, and with symbolic links
    resolved, since the sandbox binds a bot's directory where it really is (given as
    `/bots/current/bot.py` with `current` a link, or as `/bots/x/../bot.py`, the path
    does not exist inside). Other arguments are left alone.

    Kept unresolved: a virtual environment's interpreter (Python finds its environment,
    pyvenv.cfg, from the path it was started by, and `.venv/bin/python` resolved is the
    base interpreter, without the environment's packages) and a path in the system
    directories, which the sandbox shows whole (a program may read its name)."""
    if arg.startswith("-") or ("/" not in arg and not arg.startswith(".")):
        return arg
    path = base / arg  # an absolute `arg` stays itself
    if not os.path.exists(path):
        return arg
    full = os.path.abspath(path)
    return full if _system(full) or _venv_root(full) is not None else str(path.resolve())


def _venv_root(path: str) -> str | None:
    """The virtual environment whose interpreter `path` is (`ROOT/bin/python`, with a
    `ROOT/pyvenv.cfg`), or None."""
    root = os.path.dirname(os.path.dirname(path))
    return root if os.path.isfile(os.path.join(root, "pyvenv.cfg")) else None


def _system(path: str) -> bool:
    return any(_inside(path, top) for top in SYSTEM_DIRS)


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _outermost(paths: Iterable[str]) -> list[str]:
    kept: list[str] = []
    for path in sorted({os.path.normpath(p) for p in paths if os.path.isdir(p)}):
        if not any(_inside(path, k) for k in kept):
            kept.append(path)
    return kept
