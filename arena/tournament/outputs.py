"""Files a tournament leaves beside its database: results.json and standings.csv.

Both are derived from the stored games; `arena standings` rebuilds the same table from the
database alone (using the settings recorded in it).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from arena.core.game import Json
from arena.tournament.pairing import RoundPlan
from arena.tournament.ratings import MODELS, ONLINE
from arena.tournament.settings import Settings
from arena.tournament.standings import Standings
from arena.tournament.store import RUN_ADVICE, Advice, Store, StoredGame

CSV_COLUMNS = ("rank", "bot", "games", "points", "score", "byes", "buchholz", "sb", "elo",
               "fit_elo", "interval", "los_next", "win_rate", "mean_placing", "faults",
               "timeouts", "forfeits")


def results_json(settings: Mapping[str, Json], table: Standings,
                 games: Sequence[StoredGame], rounds: Sequence[RoundPlan]) -> dict[str, Json]:
    """Return the whole tournament outcome as JSON-ready data."""
    return {
        "tournament": dict(settings),
        **table.to_json(),
        "rounds": [p.to_json() for p in rounds],
        "games": [{"key": str(g.key), "round": g.key.round, "table": g.key.table,
                   "repeat": g.key.repeat, "seed": g.record.seed,
                   "termination": g.record.termination.value,
                   "seats": [{"bot": s.bot, "placing": s.placing, "score": s.score}
                             for s in g.record.seats],
                   "replay": g.record.replay} for g in games],
    }


def standings_csv(table: Standings) -> str:
    """Return the table as CSV text."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    for row in table.rows:
        writer.writerow(row.to_json())
    return buffer.getvalue()


def write_outputs(out: Path, settings: Mapping[str, Json], table: Standings,
                  games: Sequence[StoredGame], rounds: Sequence[RoundPlan]) -> None:
    """Write DIR/results.json and DIR/standings.csv."""
    ordered = sorted(games, key=lambda g: (g.key.round, g.key.table, g.key.repeat))
    write_whole(out / "results.json",
                 json.dumps(results_json(settings, table, ordered, rounds), indent=1) + "\n")
    write_whole(out / "standings.csv", standings_csv(table))


def write_whole(path: Path, text: str) -> None:
    """Write `path` whole or not at all: a full disk leaves the previous file (or none),
    never a cut-off one."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(text)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def standings_from_store(directory: Path) -> tuple[dict[str, Json], Standings]:
    """Rebuild the standings of a finished or running tournament from its database.

    Raises:
        StoreError: no usable database in `directory`.
    """
    settings, games, table = read_run(directory)
    return settings, table


def read_run(directory: Path, advice: Advice = RUN_ADVICE
             ) -> tuple[dict[str, Json], list[StoredGame], Standings]:
    """A tournament directory's stored settings, its games, and the standings they give
    (`advice`: what an error tells the user to do, a ladder's own for a ladder).

    Raises:
        StoreError: no usable database in `directory`.
    """
    store = Store.open(directory, None, advice=advice)
    try:
        raw = json.loads(store.meta("settings") or "{}")
        games, rounds = store.games(), store.rounds()
    finally:
        store.close()
    settings: dict[str, Json] = raw if isinstance(raw, dict) else {}
    return settings, games, Settings.from_json(settings, games).standings(games, rounds)


def cross_cell(record: tuple[int, int, int] | None) -> str:
    """One crosstable cell: points (a draw is half) out of the pairwise results, or '.'."""
    if record is None:
        return "."
    wins, draws, losses = record
    return f"{wins + draws / 2:g}/{wins + draws + losses}"


def crosstable_rows(table: Standings) -> list[list[str]]:
    """The crosstable as text rows: a header (#, bot, then each rank), then per bot in table
    order its result against every other bot (a pairwise result per opponent per game)."""
    order = [row.bot for row in table.rows]
    out = [["#", "bot", *[str(i) for i in range(1, len(order) + 1)]]]
    for rank, bot in enumerate(order, start=1):
        cells = table.crosstable.get(bot, {})
        out.append([str(rank), bot, *["x" if other == bot else cross_cell(cells.get(other))
                                      for other in order]])
    return out


def crosstable_csv(table: Standings) -> str:
    """Return the crosstable as CSV text."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(crosstable_rows(table))
    return buffer.getvalue()


def markdown(rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    """Return rows (the first one the header) as a Markdown table."""
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
    rule = "|" + "|".join("---:" if r else ":---" for r in right) + "|"
    return "\n".join([line(rows[0]), rule, *(line(r) for r in rows[1:])]) + "\n"


def markdown_standings(table: Standings) -> str:
    """The standings as a Markdown table with its caption below, a line a bullet: a table
    pasted into a club's page says which model its ratings come from, as the terminal's does."""
    rows = standings_rows(table)
    caption = "".join(f"- {line}\n" for line in standings_caption(table).splitlines())
    return markdown(rows, [c != "bot" for c in rows[0]]) + "\n" + caption


def markdown_crosstable(table: Standings) -> str:
    """The crosstable as a Markdown table."""
    rows = crosstable_rows(table)
    return markdown(rows, [c != "bot" for c in rows[0]])


def standings_rows(table: Standings) -> list[list[str]]:
    """The table as text rows (header first), as `arena standings` prints it: the columns
    its ranking rests on included (points per game where the games per bot differ;
    Buchholz, byes and forfeit wins in a Swiss)."""
    # win% stays in the CSV and JSON: the LOS column took its place within 80 columns
    extra, fitted = _ranking_columns(table), table.fit is not None
    # "Elo ±95%" headed the online rating too (no interval, no LOS): the header says only
    # what every cell holds, the caption which model (`standings_caption`)
    out = [["#", "bot", "games", "points", *extra, "rating ±95%" if fitted else "rating",
            *(["LOS"] if fitted else []), "place", "F/T/X"]]
    for row, rating in zip(table.rows, _rating_cells(table, fitted), strict=True):
        cells = {"pts/game": f"{row.points / row.games:.2f}" if row.games else "-",
                 "Buch.": f"{row.buchholz:g}", "byes": str(row.byes),
                 "fw": str(row.forfeit_wins)}
        los = [f"{row.los_next:.0%}" if row.los_next is not None else "-"] if fitted else []
        out.append([str(row.rank), row.bot + (" (withdrawn)" if row.withdrawn else ""),
                    str(row.games), f"{row.points:g}", *(cells[c] for c in extra),
                    rating, *los,
                    f"{row.mean_placing:.2f}" if row.mean_placing is not None else "-",
                    f"{row.faults}/{row.timeouts}/{row.forfeits}"])
    return out


def rating_texts(pairs: Sequence[tuple[float | None, float | None]]) -> list[str]:
    """Each (rating, interval) as a cell: "-" without a rating, the rating alone without an
    interval; padded to the column's widest, so that a right-justified column lines up its
    ± signs (it put "1892 ± 85" one place right of "2003 ± 124")."""
    texts = [(None if r is None else f"{r:.0f}", None if i is None else f"{i:.0f}")
             for r, i in pairs]
    rw = max((len(r) for r, _ in texts if r is not None), default=0)
    iw = max((len(i) for r, i in texts if r is not None and i is not None), default=0)
    return ["-" if r is None else f"{r:>{rw}} ± {i:>{iw}}" if i is not None
            else f"{r:>{rw}}" + " " * (iw + 3 if iw else 0) for r, i in texts]


def _rating_cells(table: Standings, fitted: bool) -> list[str]:
    """The fit's rating with its interval in a fitted table (a bot the fit did not rate,
    with no game, gets "-", never the online rating beside the fit's), else the online
    rating."""
    if not fitted:
        return [f"{row.elo:.0f}" for row in table.rows]
    return rating_texts([(None, None) if row.fit_elo is None or row.interval is None
                         else (row.fit_elo, row.interval) for row in table.rows])


def _ranking_columns(table: Standings) -> list[str]:
    if not table.swiss:
        return ["pts/game"] if len({r.games for r in table.rows}) > 1 else []
    return ["Buch.", *(["byes"] if any(r.byes for r in table.rows) else []),
            *(["fw"] if any(r.forfeit_wins for r in table.rows) else [])]


def standings_caption(table: Standings) -> str:
    """What the table's columns mean and how it is ranked (one line each)."""
    columns = _ranking_columns(table)
    ranking = ("ranked by points, then Buch. (Buchholz: the points of every opponent met), "
               "then Sonneborn-Berger" if table.swiss else
               "ranked by points per game: the bots played different numbers of games"
               if columns else "")
    notes = [ranking, "byes: rounds sat out (scored)" if "byes" in columns else "",
             "fw: paired games an opponent withdrew from, scored as won" if "fw" in columns
             else "", "place: mean placing; F/T/X: faults, timeouts, forfeits",
             *rating_caption(table)]
    return "\n".join(n for n in notes if n)


def rating_caption(table: Standings) -> list[str]:
    """What the rating column holds: the batch fit's estimate with its interval and the LOS
    from that fit, or (no fit: the live view) the online rating's mean alone."""
    if table.model is None:
        return [f"rating: {MODELS[ONLINE]}, Elo scale;",
                "no interval or LOS until the final table's fit"]
    return [f"rating: {MODELS.get(table.model, table.model)}, Elo scale, ±95%",
            "LOS: likelihood of superiority over the next row"]
