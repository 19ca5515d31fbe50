"""Making a ladder and changing its members: `init`, `add` (a bot or a new version), `retire`.

A new version becomes its bot's active entry and names the one it replaced; the old one
is `superseded`: never scheduled again, its games and rating history kept. Adding the
active version again changes nothing; adding an older version again makes it active again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import shlex
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from arena.core.errors import ConfigError, StoreError
from arena.core.game import Json
from arena.ladder.config import init_text, parse_ladder, played
from arena.ladder.store import ACTIVE, RETIRED, LadderStore, Version, reading
from arena.ladder.versions import content_version
from arena.referee.spec import BOT_NAME, BOT_NAME_RULE
from arena.tournament.secret import SALT_NAME, ensure_salt
from arena.tournament.store import DB_NAME, LADDER_NAME


class Added(StrEnum):
    """What `add` did."""

    ADDED = "added"
    """A new bot, or a new version of a bot (then the active one)."""
    UNCHANGED = "unchanged"
    """The bot's active version is already this one: nothing changed."""
    RESTORED = "restored"
    """An earlier version of the bot was made active again."""
    MOVED = "moved"
    """The same version (the same files) from another place: its command and folder are
    taken from this `add` (a club that moved its bots' folders)."""


@dataclass(frozen=True, slots=True)
class AddResult:
    """The outcome of `add`."""

    outcome: Added
    version: Version
    replaced: str | None
    """The entry that was active before (None: none was)."""


def init(directory: Path, *, game: str | None = None, players: int | None = None,
         rules: Mapping[str, Json] | None = None, config_text: str | None = None,
         source: str | None = None) -> Path:
    """Create a ladder in `directory` from a game (or a ladder.yaml's text, read from
    `source`, the name its problems carry); return the path of its ladder.yaml. Nothing
    is written when anything is wrong, and what a failed init wrote (a full disk) is
    removed again; ladder.yaml comes last, so a directory without it holds no ladder, and
    an init stopped half-way (killed) is finished by the next one.

    Raises:
        ConfigError: the settings are not valid (every problem), or `directory` is a file.
        StoreError: `directory` already holds a ladder or a tournament, or the disk is full
            (one line; nothing is left behind).
    """
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"{directory} is a file, not a directory")
    if (directory / LADDER_NAME).exists():
        raise StoreError(f"{directory} already holds a ladder ({directory / LADDER_NAME})")
    name = directory.resolve().name or "ladder"
    text = config_text if config_text is not None else init_text(
        name, game or "", players, rules or {})
    config = parse_ladder(text, source or str(directory / LADDER_NAME), directory.resolve())
    if _unfinished(directory):
        _remove_database(directory)
    try:
        with _undone_on_failure(directory):
            directory.mkdir(parents=True, exist_ok=True)
            store = LadderStore.create(directory, config.base.name)
            try:
                with reading(store.store.path):
                    store.save_identity(*played(config))
            finally:
                store.close()
            for sub in ("replays", "logs"):
                (directory / sub).mkdir(exist_ok=True)
            ensure_salt(directory)
            _write_whole(directory / LADDER_NAME, text)
    except (OSError, StoreError) as exc:
        if not _no_space(exc):
            if isinstance(exc, StoreError):
                raise
            raise StoreError(f"cannot create the ladder in {directory} ({exc})") from None
        raise StoreError(f"the disk is full: could not create the ladder in {directory} "
                         "(no space left on its device); nothing was left there: free some "
                         "space, then run `arena ladder init` again") from None
    return directory / LADDER_NAME


@contextlib.contextmanager
def _undone_on_failure(directory: Path) -> Iterator[None]:
    """Remove, when the body fails, what it made of a new ladder in `directory` (the
    files and folders that were not there before)."""
    made = [directory / n for n in (DB_NAME, "replays", "logs", SALT_NAME, LADDER_NAME)
            if not (directory / n).exists()]
    fresh = not directory.exists()
    try:
        yield
    except BaseException:
        for path in made:
            if path.name == DB_NAME:
                _remove_database(directory)
            with contextlib.suppress(OSError):
                if path.is_dir():
                    path.rmdir()  # empty: made just now
                else:
                    path.unlink(missing_ok=True)
        if fresh:
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise


def _unfinished(directory: Path) -> bool:
    """Whether `directory` holds what an init stopped half-way left: a results database
    that is empty, or a ladder's without a bot, a game or a run (and no ladder.yaml)."""
    path = directory / DB_NAME
    if not path.is_file():
        return False
    if path.stat().st_size == 0:
        return True
    try:
        store = LadderStore.open(directory, check=False)
    except StoreError:
        return False
    try:
        with reading(store.store.path):
            return not store.versions() and not store.game_count() \
                and not store.runs_finished()
    except StoreError:
        return False
    finally:
        store.close()


def _remove_database(directory: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            (directory / f"{DB_NAME}{suffix}").unlink(missing_ok=True)


def _write_whole(path: Path, text: str) -> None:
    """Write `path` under a temporary name, then rename it into place: it is there whole
    or not at all."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


def _no_space(exc: BaseException) -> bool:
    """Whether `exc` is a write that failed for lack of space (in whichever layer's words)."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    text = str(exc)
    return text.startswith("the disk is full") or os.strerror(errno.ENOSPC) in text


def add(directory: Path, bot: str, cmd: str | Sequence[str], *, cwd: Path | None = None,
        version: str | None = None, env: Mapping[str, str] | None = None) -> AddResult:
    """Register `bot` (or a new version of it); the version defaults to a content hash.

    Raises:
        ConfigError: a bad name, version, command or directory.
        StoreError: no ladder in `directory`.
    """
    argv = _argv(cmd)
    _check_name(bot, "bot name")
    if version is not None:
        _check_name(version, "version")
    home = (cwd or Path.cwd()).resolve()
    label = version or content_version(argv, home if cwd is not None else None)
    store = LadderStore.open(directory)
    try:
        with reading(store.store.path):
            return _add(store, bot, label, argv, home, env)
    finally:
        store.close()


def _add(store: LadderStore, bot: str, label: str, argv: tuple[str, ...], home: Path,
         env: Mapping[str, str] | None) -> AddResult:
    known = {v.version: v for v in store.versions(bot)}
    current = next((v for v in known.values() if v.status == ACTIVE), None)
    if label in known:
        found = known[label]
        if (found.cmd, found.cwd) != (argv, str(home)):
            store.relocate(found.bot, found.version, argv, str(home))
            found = dataclasses.replace(found, cmd=argv, cwd=str(home))
            if found.status == ACTIVE:
                return AddResult(Added.MOVED, found, found.entry)
        return _again(store, found, current)
    new = Version(bot, label, argv, str(home), dict(env or {}),
                  current.entry if current else None, time.time(), ACTIVE)
    store.register(new)
    return AddResult(Added.ADDED, new, current.entry if current else None)


def _again(store: LadderStore, found: Version, current: Version | None) -> AddResult:
    """`add` of a version registered before: nothing, or make it active again."""
    if found.status == ACTIVE:
        return AddResult(Added.UNCHANGED, found, found.entry)
    store.set_status(found.bot, found.version, ACTIVE)
    return AddResult(Added.RESTORED, found, current.entry if current else None)


def retire(directory: Path, bot: str) -> Version:
    """Stop scheduling `bot` (its games and history stay); return the retired version.

    Raises:
        ConfigError: `bot` has no active version.
    """
    store = LadderStore.open(directory)
    try:
        with reading(store.store.path):
            versions = store.versions(bot)
            current = next((v for v in versions if v.status == ACTIVE), None)
            retired = next((v for v in versions if v.status == RETIRED), None)
            if current is None and retired is not None:  # a script's second retire, say
                raise ConfigError(f"{bot!r} is already retired ({retired.entry}): no version "
                                  "of it is scheduled; `arena ladder add` makes it active "
                                  "again")
            if current is None:
                known = sorted({v.bot for v in store.active()})
                raise ConfigError(f"{bot!r} is not an active bot of this ladder (active: "
                                  f"{', '.join(known) or 'none'})")
            store.set_status(bot, current.version, RETIRED)
            return current
    finally:
        store.close()


def _argv(cmd: str | Sequence[str]) -> tuple[str, ...]:
    try:
        parts = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
    except ValueError as exc:
        raise ConfigError(f"--cmd {cmd!r} is not a valid command line ({exc})") from None
    if not parts:
        raise ConfigError("--cmd is empty: give the command that starts the bot")
    return tuple(parts)


def _check_name(value: str, what: str) -> None:
    if not BOT_NAME.match(value):
        raise ConfigError(f"{what} {value!r} must be {BOT_NAME_RULE}")
