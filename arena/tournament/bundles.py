"""Bot bundles: a bot's own directories packed by the coordinator, unpacked on a worker.

A bot's own directories are those the sandbox gives it (`own_dirs`: its cwd and the
directories of the program files its command names). The coordinator packs them into one
tar whose bytes depend only on the files' paths, contents and executable bits, so its
SHA-256 names the bot's exact code: a worker keeps what it unpacked under that name and
asks for a bundle only when it holds no directory of that name (a changed bot has a new
name, an unchanged one is never sent twice to the same machine).

On the worker, the command and cwd are rewritten to the unpacked copy; the interpreter
that ran arena on the coordinator (`{python}`) becomes the worker's own.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import stat
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.core.errors import ConfigError
from arena.referee.sandbox import own_dirs
from arena.referee.spec import BotSpec
from arena.tournament.store import DB_NAME

MAX_BUNDLE_BYTES = 256 << 20
"""A bot's files above this size are refused as a bundle (`bot_files: shared` instead)."""
SKIPPED = frozenset({"__pycache__", ".git"})
"""Directory names never packed: caches that change without the bot changing."""
CACHE_ENV = "ARENA_BUNDLE_CACHE"
"""Where a worker keeps unpacked bundles (default: the temp directory's arena-bundles-UID)."""


PYTHON = -1
"""In a `Placed` argument: the interpreter running arena (on the worker, its own)."""
LITERAL = -2
"""In a `Placed` argument: the text as written."""


@dataclass(frozen=True, slots=True)
class Placed:
    """A bot's command and cwd relative to its bundle: what a worker needs besides the bytes.

    Each argument is (root index, path inside that root), or (`PYTHON`, "") or
    (`LITERAL`, text); the roots are unpacked as `0/`, `1/`, ... of the bundle.
    """

    digest: str
    args: tuple[tuple[int, str], ...]
    cwd: tuple[int, str]


@dataclass(frozen=True, slots=True)
class Bundle:
    """One bot's files: the tar's bytes, their hash, and how its command maps onto them."""

    bot: str
    data: bytes
    placed: Placed

    @property
    def digest(self) -> str:
        return self.placed.digest


def roots_of(spec: BotSpec, default_cwd: Path | None = None) -> tuple[str, ...]:
    """The bot's own directories, outermost only (a root inside another is packed once):
    those of the program files its command names, and its cwd unless that is
    `default_cwd` (the tournament file's directory, which holds much besides the bot)."""
    dirs = own_dirs(spec.cmd, spec.cwd)
    if spec.cwd and default_cwd is not None and \
            Path(spec.cwd).resolve() == default_cwd.resolve():
        dirs = dirs[1:]  # own_dirs lists the cwd first
    program = _program_dir(spec)
    if program is not None:
        dirs.append(program)
    kept: list[str] = []
    for d in sorted(set(dirs), key=len):
        if not any(_inside(d, k) for k in kept):
            kept.append(d)
    return tuple(kept)


def _refuse_loose_files(spec: BotSpec, default_cwd: Path | None) -> None:
    """Refuse a bot whose command names a file lying in the tournament file's directory:
    that directory is not packed (it holds much besides the bot, other bots' files among
    them, which the bot must not see), so the file would be missing on every worker and
    the bot forfeit all its games there.

    Raises:
        ConfigError: naming the file and what to do.
    """
    if default_cwd is None:
        return
    base, home = Path(spec.cwd or default_cwd), default_cwd.resolve()
    for arg in spec.cmd:
        name = arg.removeprefix("stdio:")
        if name.startswith("-") or not name:
            continue
        path = base / name
        if path.is_file() and path.resolve().parent == home:
            raise ConfigError(
                f"bot {spec.name!r}: {name} lies beside the tournament file, in {home}, "
                "which is not sent to the workers as a bundle (it holds much besides this "
                "bot): move the bot's files into a directory of their own (e.g. "
                f"{home / spec.name}/), or put them on a filesystem every worker shares and "
                "set `bot_files: shared`")


def _program_dir(spec: BotSpec) -> str | None:
    """The directory of a program named by a path (`./bots/c/bot`), which `own_dirs` counts
    as the bot's runtime rather than its own; None for a command found on the PATH."""
    head = spec.cmd[0].removeprefix("stdio:") if spec.cmd else ""
    if "/" not in head:
        return None
    path = Path(spec.cwd or os.getcwd(), head)
    if not path.is_file():
        return None
    real = path.resolve().parent
    runtime = (sys.prefix, sys.base_prefix, "/usr", "/bin", "/sbin", "/lib", "/opt", "/etc")
    return None if any(_inside(str(real), r) for r in runtime) else str(real)


def pack(spec: BotSpec, skip: Sequence[Path] = (),
         default_cwd: Path | None = None) -> Bundle | None:
    """Pack a bot's own directories (`roots_of`); None for a bot with none (a built-in, a
    system command). `skip` names directories never packed (the run's output directory).

    Raises:
        ConfigError: the files are larger than `MAX_BUNDLE_BYTES`, or one cannot be read.
    """
    if spec.builtin is not None:
        return None
    _refuse_loose_files(spec, default_cwd)
    roots = roots_of(spec, default_cwd)
    if not roots:
        return None
    buffer = io.BytesIO()
    skipped = [str(p.resolve()) for p in skip]
    total = 0
    try:
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for index, root in enumerate(roots):
                for path in _files(Path(root), skipped):
                    total += path.stat().st_size
                    if total > MAX_BUNDLE_BYTES:
                        raise ConfigError(
                            f"bot {spec.name!r}: its files in {', '.join(roots)} exceed "
                            f"{MAX_BUNDLE_BYTES >> 20} MiB, too large to send as a bundle; "
                            "put them on a filesystem every worker shares and set "
                            "`bot_files: shared`")
                    tar.addfile(*_entry(path, f"{index}/{path.relative_to(root)}"))
    except OSError as exc:
        raise ConfigError(f"bot {spec.name!r}: cannot pack {exc.filename}: "
                          f"{exc.strerror}") from None
    data = buffer.getvalue()
    return Bundle(spec.name, data, _placed(spec, hashlib.sha256(data).hexdigest(), roots))


def _placed(spec: BotSpec, digest: str, roots: tuple[str, ...]) -> Placed:
    """Map each argument that names an existing path inside a root (and the cwd) onto it."""
    base = Path(spec.cwd or os.getcwd())

    def where(value: str) -> tuple[int, str] | None:
        path = os.path.normpath(base / value)
        if not os.path.lexists(path):
            return None
        real = str(Path(path).resolve())
        for index, root in enumerate(roots):
            if _inside(real, root):
                return index, os.path.relpath(real, root)
        return None

    args = tuple((PYTHON, "") if arg == sys.executable else where(arg) or (LITERAL, arg)
                 for arg in spec.cmd)
    return Placed(digest, args, where(spec.cwd or str(base)) or (0, "."))


def content_digest(spec: BotSpec, skip: Sequence[Path] = ()) -> str:
    """A hash of the bot's own files (`roots_of`: their paths, bytes and executable bits),
    empty for a bot without (a built-in, a system command). Bounded as a bundle is: past
    `MAX_BUNDLE_BYTES` a file counts by its path and size only, so that a bot in a large
    directory is hashed in bounded time. `skip`: directories left out (a run's own output,
    which its games change).

    Raises:
        ConfigError: a file cannot be read.
    """
    if spec.builtin is not None:
        return ""
    digest, total = hashlib.sha256(), 0
    skipped = [str(p.resolve()) for p in skip]
    try:
        for index, root in enumerate(roots_of(spec)):
            for path in _files(Path(root), skipped):
                info = path.stat()
                total += info.st_size
                digest.update(f"{index}/{path.relative_to(root)}\0{info.st_size}\0"
                              f"{bool(info.st_mode & stat.S_IXUSR)}\0".encode())
                if total <= MAX_BUNDLE_BYTES:
                    with path.open("rb") as handle:
                        digest.update(hashlib.file_digest(handle, "sha256").digest())
    except OSError as exc:
        raise ConfigError(f"bot {spec.name!r}: cannot read {exc.filename} to hash its files: "
                          f"{exc.strerror or exc}") from None
    return digest.hexdigest()[:16]


def _files(root: Path, skipped: list[str]) -> Iterator[Path]:
    """The files under `root`, in a fixed order (the hash must not depend on the order a
    directory lists its entries). Links are followed, so that what they point to travels
    (on the worker, a link to outside the bundle would point nowhere); a link back to a
    directory above it (a cycle) is left out, and so is an arena run's directory (one that
    holds a results database: `arena compare`'s default `runs/` lies in the directory it
    starts from, often the bot's own, and each game would change the bot's files)."""
    for top, dirs, files in os.walk(root, followlinks=True, onerror=_unreadable):
        above = {os.path.realpath(p) for p in Path(top).parents if _inside(str(p), str(root))}
        if os.path.realpath(top) in above or DB_NAME in files:
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED
                         and str(Path(top, d).resolve()) not in skipped)
        for name in sorted(files):
            if os.path.isfile(Path(top, name)):  # a dangling link or a socket: nothing to send
                yield Path(top, name)


def _unreadable(exc: OSError) -> None:
    """A directory that cannot be listed: refused as an unreadable file is (`pack`), not
    left out of the bundle without a word (the bot would miss it on every worker)."""
    raise exc


def _entry(path: Path, name: str) -> tuple[tarfile.TarInfo, io.BytesIO]:
    """A tar entry that records only what the bot can tell: the path, the content and
    whether it is executable (no owner, no time)."""
    info = tarfile.TarInfo(name)
    data = path.read_bytes()
    info.size = len(data)
    info.mode = 0o755 if path.stat().st_mode & stat.S_IXUSR else 0o644
    return info, io.BytesIO(data)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def cache_dir() -> Path:
    """Where this machine keeps unpacked bundles, shared by its workers and runs."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    return Path(tempfile.gettempdir()) / f"arena-bundles-{os.getuid()}"


def unpacked(digest: str) -> Path | None:
    """The directory holding bundle `digest` on this machine, if it was unpacked here."""
    path = cache_dir() / digest
    return path if path.is_dir() else None


def unpack(digest: str, data: bytes) -> Path:
    """Unpack a bundle into the cache (atomically: a half-written bundle is never seen).

    Raises:
        ValueError: the bytes do not have the digest (corrupted on the way).
        OSError: the cache cannot be written.
    """
    if hashlib.sha256(data).hexdigest() != digest:
        raise ValueError(f"bundle {digest[:12]} arrived damaged (its hash differs)")
    target = cache_dir() / digest
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=target.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(staging, filter="data")
        with contextlib.suppress(OSError):
            # another worker of this machine may have unpacked it first: theirs stays
            staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not target.is_dir():  # else the worker would ask for it again and again
        raise OSError(f"could not unpack bundle {digest[:12]} into {target.parent}")
    return target


def place(spec: BotSpec, placed: Placed, home: Path) -> BotSpec:
    """Rewrite a bot to run from its bundle unpacked in `home`."""

    def path(index: int, text: str) -> str:
        if index == PYTHON:
            return sys.executable
        return text if index == LITERAL else str(home / str(index) / text)

    return replace(spec, cmd=tuple(path(*arg) for arg in placed.args),
                   cwd=path(*placed.cwd))
