"""The report's game lists (games.html and each bot's page) at any size.

Written as HTML, a game's row takes about 700 bytes: a ladder of 100,000 games made a
games.html of some 70 MB and bot pages of tens of MB. So every game is written once, in a
compact data file shared by all the lists (`data/list.js`: a few dozen bytes a game, bots,
terminations and forfeit reasons named by their index), and `assets/games.js` draws the
rows a page at a time, applying the filters over every game. The page itself holds only its
first page of rows as HTML, the same rows the script draws, so that a page opened without
JavaScript still shows them (a note says how many there are in all).

A row of the data file, for a game of n seats:
`[round, table, repeat, termination, faults, viewable, bot, placing, score (n times)]`,
seats in seat order, followed, only where a seat forfeited, by `[seat, reason, ...]`.
The game's key is `r<round>-t<table>-g<repeat>` (`GameKey`), so it is not stored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.core.game import Json
from arena.report.data import GameEntry

PAGE_ROWS = 100
"""Rows a list shows a page at a time (and writes as HTML for its first page)."""
LIST_FILE = "list.js"
"""The data file in the report's data folder."""
CALLBACK = "arenaList"


@dataclass(frozen=True, slots=True)
class Listing:
    """One game list on a page, as its template writes it."""

    rows: Sequence[GameEntry]
    """The games of the first page, as HTML (what a page shows without JavaScript)."""
    total: int
    """The games the list holds (all of the run's, or the bot's)."""
    page_rows: int
    newest_first: bool
    rounds: Sequence[int]
    terminations: Sequence[str]
    """The rounds and terminations of the list's games (its filters' choices)."""
    bot: str = ""
    """The bot whose games the list holds; empty for every game."""


def listing(games: Sequence[GameEntry], page_rows: int, newest_first: bool,
            bot: str = "") -> Listing:
    """Return the list of `games` (in play order) with its first page in its order."""
    first = games[::-1][:page_rows] if newest_first else games[:page_rows]
    return Listing(first, len(games), page_rows, newest_first,
                   sorted({g.round for g in games}), sorted({g.termination for g in games}),
                   bot)


def list_data(games: Sequence[GameEntry], pages: Mapping[str, str],
              viewable: set[str]) -> dict[str, Json]:
    """Return every game as the data file holds it (the module's docstring says how)."""
    bots: dict[str, int] = {}
    terms: dict[str, int] = {}
    reasons: dict[str, int] = {}
    rows: list[Json] = []
    for game in games:
        row: list[Json] = [game.round, game.table, game.repeat,
                           _index(terms, game.termination), len(game.faults),
                           int(game.key in viewable)]
        forfeits: list[Json] = []
        for seat in sorted(game.seats, key=lambda s: s.seat):
            row += [_index(bots, seat.bot), seat.placing, seat.score]
            if seat.forfeit is not None:
                forfeits += [seat.seat, _index(reasons, seat.forfeit.value)]
        if forfeits:
            row.append(forfeits)
        rows.append(row)
    return {"bots": [[name, pages.get(name)] for name in bots],
            "terminations": list(terms), "forfeits": list(reasons), "rows": rows}


def list_script(data: Mapping[str, Json]) -> str:
    """Return the data file's text: `arenaList(JSON.parse('...'));`. A string handed to
    JSON.parse loads faster than the same data as a script literal (the parser has less to
    do); ASCII-only JSON holds no line break, so only backslashes and quotes are escaped."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    quoted = text.replace("\\", "\\\\").replace("'", "\\'")
    return f"{CALLBACK}(JSON.parse('{quoted}'));\n"


def _index(names: dict[str, int], name: str) -> int:
    return names.setdefault(name, len(names))
