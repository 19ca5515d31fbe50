"""A bot version by content hash: an unchanged bot is never registered twice.

The hash covers the command line and the bot's files: its directory (`--cwd`, every file
under it except version-control and cache folders), else the files its command names
that exist (the program or its script). A built-in bot hashes its command alone.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from arena.core.errors import ConfigError

SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".mypy_cache",
                          ".pytest_cache", ".ruff_cache"})
"""Folders whose contents never make a new version (history, caches)."""
SKIPPED_SUFFIXES = (".pyc", ".pyo")
HASH_LENGTH = 8
"""Hex digits of the sha256 kept as the version (32 bits: versions of one bot only need
to differ from each other)."""
MAX_FILES = 100_000
"""A bot directory with more files is refused (a mistyped --cwd such as /)."""


def content_version(cmd: Sequence[str], cwd: Path | None) -> str:
    """Return the version of a bot: a hash of its command and its files.

    Raises:
        ConfigError: `cwd` is not a readable directory, or holds more than `MAX_FILES`.
    """
    digest = hashlib.sha256()
    for part in cmd:
        digest.update(b"cmd\0" + part.encode() + b"\0")
    for name, path in _files(cmd, cwd):
        digest.update(b"file\0" + name.encode() + b"\0")
        try:
            with path.open("rb") as handle:
                digest.update(hashlib.file_digest(handle, "sha256").digest())
        except OSError as exc:
            raise ConfigError(f"cannot read {path} to hash the bot: {exc.strerror}") from None
    return digest.hexdigest()[:HASH_LENGTH]


def _files(cmd: Sequence[str], cwd: Path | None) -> list[tuple[str, Path]]:
    """The files that make the bot, each with the name it is hashed under, sorted."""
    if cmd and cmd[0].startswith("builtin:"):
        return []
    if cwd is not None:
        if not cwd.is_dir():
            raise ConfigError(f"--cwd {cwd} is not a directory")
        found = sorted((path.relative_to(cwd).as_posix(), path) for path in _walk(cwd))
        if len(found) > MAX_FILES:
            raise ConfigError(f"--cwd {cwd} holds more than {MAX_FILES:,} files: point it at "
                              "the bot's own folder")
        return found
    named = []
    for part in cmd:
        path = Path(part.removeprefix("stdio:"))
        if path.is_file():
            named.append((part, path))
    return named


def _walk(root: Path) -> Iterator[Path]:
    count = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in files:
            if not name.endswith(SKIPPED_SUFFIXES):
                count += 1
                if count > MAX_FILES + 1:
                    return
                yield Path(folder, name)
