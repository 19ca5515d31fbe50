"""The report's tables as rows ready for the templates: standings, crosstable, per-bot figures.

Cell texts come from the same helpers as `arena standings` (`cross_cell`), so a pasted
Markdown table and the web page say the same thing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from arena.report.data import GameEntry
from arena.tournament.outputs import cross_cell
from arena.tournament.standings import Row, Standings


@dataclass(frozen=True, slots=True)
class Bar:
    """An interval drawn under a rating: positions in percent of the table's common scale."""

    left: float
    width: float
    mark: float


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One row of the standings with its interval bar."""

    row: Row
    page: str
    bar: Bar | None


def standing_rows(table: Standings, pages: dict[str, str]) -> list[StandingRow]:
    """Return the standings rows, each with its interval on one scale for the whole table."""
    bars = interval_bars([(r.fit_elo, r.interval) for r in table.rows])
    return [StandingRow(r, pages[r.bot], bar) for r, bar in zip(table.rows, bars, strict=True)]


def interval_bars(ratings: Sequence[tuple[float | None, float | None]]) -> list[Bar | None]:
    """Return each (rating, 95% half-width) as a bar on one scale for all of them (None
    where there is no rating)."""
    spans = [(r - (i or 0), r + (i or 0)) for r, i in ratings if r is not None]
    low = min((a for a, _ in spans), default=0.0)
    high = max((b for _, b in spans), default=1.0)
    scale = (high - low) or 1.0
    out: list[Bar | None] = []
    for rating, interval in ratings:
        if rating is None:
            out.append(None)
            continue
        half = interval or 0.0
        out.append(Bar(round((rating - half - low) / scale * 100, 2),
                       round(2 * half / scale * 100, 2),
                       round((rating - low) / scale * 100, 2)))
    return out


@dataclass(frozen=True, slots=True)
class CrossCell:
    """One crosstable cell: the text `arena standings --crosstable` prints, the share of
    points (None: never met, or the diagonal), and its background colour."""

    text: str
    share: float | None
    colour: str


def crosstable(table: Standings) -> list[tuple[Row, list[CrossCell]]]:
    """Return each bot's row of pairwise results against every bot, in table order."""
    order = [r.bot for r in table.rows]
    out = []
    for row in table.rows:
        cells = table.crosstable.get(row.bot, {})
        line = []
        for other in order:
            if other == row.bot:
                line.append(CrossCell("x", None, "transparent"))
                continue
            record = cells.get(other)
            share: float | None = None
            if record is not None:
                wins, draws, losses = record
                if wins + draws + losses:
                    share = (wins + draws / 2) / (wins + draws + losses)
            line.append(CrossCell(cross_cell(record), share, colour(share)))
        out.append((row, line))
    return out


def colour(share: float | None) -> str:
    """Return a background from red (lost every pairwise result) through pale yellow (even)
    to green (won every one); grey where the two never met."""
    if share is None:
        return "#eeeeee"
    return f"hsl({round(share * 120)}, 65%, {round(88 - 8 * abs(share - 0.5) * 2)}%)"


@dataclass(frozen=True, slots=True)
class SeatFigures:
    """How a bot placed from one seat position."""

    seat: int
    games: int
    placings: list[int]
    """Games finished at each placing, first place first."""
    mean: float


def by_seat(bot: str, games: Sequence[GameEntry], places: int) -> list[SeatFigures]:
    """Return the bot's placings from each seat position it played."""
    tally: dict[int, Counter[int]] = {}
    for game in games:
        seat = game.seat_of(bot)
        if seat is not None:
            tally.setdefault(seat.seat, Counter())[seat.placing] += 1
    out = []
    for position, counts in sorted(tally.items()):
        total = sum(counts.values())
        mean = sum(p * n for p, n in counts.items()) / total
        out.append(SeatFigures(position, total, [counts.get(p, 0) for p in range(1, places + 1)],
                               mean))
    return out


@dataclass(frozen=True, slots=True)
class BotFault:
    """One of a bot's faults (or its forfeit, `fault` None) in one game."""

    game: GameEntry
    seat: int
    kind: str
    detail: str
    decision: int | None


def bot_faults(bot: str, games: Sequence[GameEntry]) -> list[BotFault]:
    """Return the bot's faults with their reasons, and its forfeits, game by game."""
    out = []
    for game in games:
        seat = game.seat_of(bot)
        if seat is None:
            continue
        out += [BotFault(game, seat.seat, f.kind.value, f.detail, f.decision)
                for f in game.faults if f.seat == seat.seat]
        if seat.forfeit is not None:
            out.append(BotFault(game, seat.seat, "forfeit", seat.forfeit.value, None))
    return out
