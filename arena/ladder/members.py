"""Making a ladder and changing its members: `init`, `add` (a bot or a new version), `retire`.

A new version becomes its bot's active entry and names the one it replaced; the old one
is `superseded`: never scheduled again, its games and rating history kept. Adding the
active version again changes nothing; adding an older version again makes it active again.
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from arena.core.errors import ConfigError, StoreError
from arena.core.game import Json
from arena.ladder.config import CONFIG_NAME, init_text, parse_ladder
from arena.ladder.store import ACTIVE, RETIRED, LadderStore, Version
from arena.ladder.versions import content_version
from arena.tournament.secret import ensure_salt

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}$")
"""Bot names and versions: what a tournament file allows for bot names."""


class Added(StrEnum):
    """What `add` did."""

    ADDED = "added"
    """A new bot, or a new version of a bot (then the active one)."""
    UNCHANGED = "unchanged"
    """The bot's active version is already this one: nothing changed."""
    RESTORED = "restored"
    """An earlier version of the bot was made active again."""


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
    is written when anything is wrong.

    Raises:
        ConfigError: the settings are not valid (every problem), or `directory` is a file.
        StoreError: `directory` already holds a ladder or a tournament.
    """
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"{directory} is a file, not a directory")
    if (directory / CONFIG_NAME).exists():
        raise StoreError(f"{directory} already holds a ladder ({directory / CONFIG_NAME})")
    name = directory.resolve().name or "ladder"
    text = config_text if config_text is not None else init_text(
        name, game or "", players, rules or {})
    config = parse_ladder(text, source or str(directory / CONFIG_NAME), directory.resolve())
    directory.mkdir(parents=True, exist_ok=True)
    store = LadderStore.create(directory, config.base.name)
    store.close()
    for sub in ("replays", "logs"):
        (directory / sub).mkdir(exist_ok=True)
    ensure_salt(directory)
    path = directory / CONFIG_NAME
    path.write_text(text)
    return path


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
        known = {v.version: v for v in store.versions(bot)}
        current = next((v for v in known.values() if v.status == ACTIVE), None)
        if label in known:
            return _again(store, known[label], current)
        new = Version(bot, label, argv, str(home), dict(env or {}),
                      current.entry if current else None, time.time(), ACTIVE)
        store.register(new)
        return AddResult(Added.ADDED, new, current.entry if current else None)
    finally:
        store.close()


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
        current = next((v for v in store.versions(bot) if v.status == ACTIVE), None)
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
    if not NAME.match(value):
        raise ConfigError(f"{what} {value!r} must be letters, digits, '_', '.', '+' or '-' "
                          "(no spaces, at most 100 characters)")
