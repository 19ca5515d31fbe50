"""Withdrawals and late entries, recorded in the run's settings.

`arena run FILE --resume --withdraw BOT`: the bot's stored games stay; it plays no more (its
unplayed games, including those of a round already paired, are not played); a Swiss pairs
the later rounds without it. `arena run FILE --resume --enter BOT`, Swiss only: BOT is added
to FILE, and joins from the next round with no points. Each is recorded in the settings
(`withdrawn`, `entered`: the bot and the last round paired before it), so that a later
resume, `arena standings` and `arena verify` see the same tournament.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from arena.core.errors import ArenaError, StoreError
from arena.tournament.config import Format, TournamentConfig
from arena.tournament.settings import Change, Settings
from arena.tournament.store import DB_NAME, Store


def stored_settings(store: Store) -> Settings | None:
    """The settings a run recorded, if any."""
    text = store.meta("settings")
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return Settings.from_json(data) if isinstance(data, dict) else None


def entered(out: Path) -> set[str]:
    """The bots recorded as entering the run in `out` late (none when there is no run)."""
    if not (out / DB_NAME).is_file():
        return set()
    try:
        store = Store.open(out, None)
    except StoreError:
        return set()  # opening it again for the run reports what is wrong
    try:
        settings = stored_settings(store)
    finally:
        store.close()
    return {c.bot for c in settings.entered} if settings is not None else set()


def check_entries(config: TournamentConfig, enter: Sequence[str]) -> None:
    """Refuse late entries the file cannot take, before the database is opened.

    Raises:
        ArenaError: the tournament is not a Swiss, or a bot is not in the file.
    """
    names = {b.name for b in config.bots}
    for bot in enter:
        if config.format is not Format.SWISS:
            raise ArenaError(f"--enter {bot}: only a Swiss takes a bot between rounds "
                             f"(this is a {config.format.value})")
        if bot not in names:
            raise ArenaError(f"--enter {bot}: add the bot to {config.source} first")


def apply(config: TournamentConfig, store: Store, withdraw: Sequence[str],
          enter: Sequence[str]) -> Settings:
    """Return the run's settings: the file's, with the recorded changes and the new ones.

    Raises:
        ArenaError: a bot to withdraw is unknown or already withdrawn; a bot to enter is
            in the run already (see also `check_entries`).
    """
    settings = Settings.of(config)
    before = stored_settings(store)
    if before is not None:  # the rules it was begun under stay until it finishes
        settings = replace(settings, withdrawn=before.withdrawn, entered=before.entered,
                           rules=before.rules)
        missing = [c for c in before.entered if c.bot not in settings.bots]
        if missing:  # else the pairing of the rounds it played in would read as forged
            raise ArenaError(f"bot {missing[0].bot} entered this run after round "
                             f"{missing[0].after_round} (--enter) but is not in {config.source}: "
                             "resume with the file that has it")
    if not withdraw and not enter:
        return settings
    played = set(before.bots) if before is not None else set()
    last = max((p.round for p in store.rounds()), default=0)
    gone = {c.bot for c in settings.withdrawn}
    for bot in withdraw:
        if bot not in settings.bots:
            raise ArenaError(f"--withdraw {bot}: no bot of that name in {config.source}")
        if bot in gone:
            raise ArenaError(f"--withdraw {bot}: it withdrew already")
    for bot in enter:
        if bot in played:
            raise ArenaError(f"--enter {bot}: it is in the run already")
    return settings.with_change([Change(b, last) for b in dict.fromkeys(withdraw)],
                                [Change(b, last) for b in dict.fromkeys(enter)])
