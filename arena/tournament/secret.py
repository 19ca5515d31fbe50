"""The run's secret salt: game seeds that a published tournament file does not reveal.

A tournament file's `seed` is public: it is in the YAML, in results.json, and it fixes the
public schedule (round-robin and gauntlet seating; Swiss pairs from results alone). Each
game's seed derives from that seed *and* 256 random bits generated when a run starts and
kept in OUT/secret.salt, readable by the organiser alone (mode 0600). Knowing the YAML is
then not enough to compute any deal. The salt is written nowhere else: not in the database,
results.json, replays or logs (replays keep each game's own seed, which reveals nothing
about the others).

`--resume` reads the salt back, so a resumed run plays the same games as an uninterrupted
one; a salt file copied into a fresh output directory before the run replays the same deals.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from pathlib import Path

from arena.core.errors import StoreError
from arena.core.rng import derive_seed
from arena.tournament.store import GameKey

SALT_NAME = "secret.salt"
_SALT = re.compile(r"[0-9a-f]{64}")


def game_seed(seed: int, salt: str | None, key: GameKey) -> int:
    """Return the seed of one game; `salt` None is the public derivation of runs whose
    database predates salts (and only those)."""
    if salt is None:
        return derive_seed(seed, key.round, key.table, key.repeat)
    return derive_seed(seed, "salt", salt, key.round, key.table, key.repeat)


def read_salt(out: Path, private: bool = True) -> str:
    """Return the salt of the run in `out`.

    Raises:
        StoreError: the file is missing, malformed, or (`private`) readable by someone else
            (one line).
    """
    path = out / SALT_NAME
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise StoreError(f"{path} is missing: this run's game seeds cannot be derived "
                         "without it (restore it from a backup, or start a new run in "
                         "another --out)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"{path} cannot be read ({exc})") from None
    if not _SALT.fullmatch(text):
        raise StoreError(f"{path} is malformed (64 lowercase hex digits expected): restore "
                         "it from a backup, or start a new run in another --out")
    if private and (problem := salt_exposed(out)):
        raise StoreError(problem)
    return text


def salt_exposed(out: Path) -> str | None:
    """Say why the salt in `out` is not private to this user (None: it is, or is absent)."""
    path = out / SALT_NAME
    try:
        info = path.stat()
    except OSError:
        return None
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO) or info.st_uid != os.getuid():
        return (f"{path} must belong to you and be readable by you alone "
                f"(mode {stat.S_IMODE(info.st_mode):04o}): chmod 600 it")
    return None


def ensure_salt(out: Path) -> str:
    """Return the salt in `out`, creating it (atomically, mode 0600) when there is none.

    Raises:
        StoreError: an existing file is unusable, or the new one cannot be written.
    """
    path = out / SALT_NAME
    if not path.exists():
        _create(path, secrets.token_hex(32))
    return read_salt(out)


def _create(path: Path, salt: str) -> None:
    # written whole under a temporary name, then linked into place: a crash never leaves
    # a half-written salt, and a concurrent creator's salt is never replaced
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, f"{salt}\n".encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    except OSError as exc:
        raise StoreError(f"cannot write {path} ({exc})") from None
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()
