"""What the report shows of a ladder, through the ladder's read API (`arena.ladder.read`).

A ladder stores its games as a tournament does (each version plays as `BOT@VERSION`), so
the crosstable, the game list, the viewer and a page per version come from the same code
as a tournament's; this module adds the ladder's own table (every version, its status and
trend) and the rating history, one line per version, a new version marked where it starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.ladder import read
from arena.ladder.store import Row, Snapshot, Standings, entry_name
from arena.report.plots import Series
from arena.tournament.store import LADDER_NAME


@dataclass(frozen=True, slots=True)
class LadderData:
    """A ladder's table (every version) and its rating history."""

    table: Standings
    history: tuple[Snapshot, ...]

    def entry(self, row: Row) -> str:
        """The name the row's version plays under in the games (`BOT@VERSION`)."""
        return entry_name(row.bot, row.version)


def is_ladder(directory: Path) -> bool:
    """Whether `directory` holds a ladder (rather than a tournament run)."""
    return (directory / LADDER_NAME).is_file()


def load_ladder(directory: Path) -> LadderData:
    """Read a ladder's table and history.

    Raises:
        StoreError: no ladder database, or a damaged one.
        ConfigError: ladder.yaml does not load.
    """
    return LadderData(read.standings(directory, all_versions=True),
                      tuple(read.history(directory)))


def history_series(history: Sequence[Snapshot], bot: str | None = None) -> list[Series]:
    """The rating-history plot's lines: one per version (of `bot` only, if given), x the
    run number; a bot's later versions are marked where their line starts."""
    lines: dict[tuple[str, str], list[tuple[float, float, float | None]]] = {}
    for snap in history:
        if snap.rating is not None and (bot is None or snap.bot == bot):
            lines.setdefault((snap.bot, snap.version), []).append(
                (float(snap.run), snap.rating, snap.interval))
    first_of_bot: set[str] = set()
    out = []
    for (name, version), points in sorted(lines.items(), key=lambda i: (i[0][0], i[1][0][0])):
        marks = [(points[0][0], version)] if name in first_of_bot else []
        first_of_bot.add(name)
        out.append(Series(entry_name(name, version), points, marks))
    return out
