"""Writing the static report: pages from Jinja2 templates, assets, and the viewer's data.

The site opens from `file://` with no server and no network: assets are copied from this
package, plots are inline SVG, and each view of each game is a small script file that the
viewer page loads with a `<script src>` when it is asked for (`fetch()` does not work from
`file://`). A view's file holds only what that view may know (`arena.report.views`).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from arena import __version__
from arena.core.errors import ArenaError
from arena.ladder.store import entry_name
from arena.referee.replay import read_replay
from arena.report import plots, tables
from arena.report.catalogue import catalogue
from arena.report.data import GameEntry, RunData, slug
from arena.report.gamelist import LIST_FILE, PAGE_ROWS, list_data, list_script, listing
from arena.report.ladder import history_series
from arena.report.settingtable import setting_rows
from arena.report.viewdata import (
    DATA,
    WORKER,
    copy_views,
    ensure_views,
    maker,
    write_game_views,
    write_script,
)
from arena.tournament.outputs import write_whole
from arena.tournament.ratings import MODELS

ASSETS = ("report.css", "viewer.js", "games.js")
ViewProgress = Callable[[int, int], None]
"""Told (games made so far, games to make) after each game whose views a build makes."""


@dataclass
class Built:
    """What a build wrote, and the games whose viewer data could not be made."""

    out: Path
    pages: int = 0
    views: int = 0
    """View files this build wrote."""
    made: int = 0
    """Games whose views this build made."""
    by_workers: int = 0
    """Games whose views the workers that played them made, found current (or copied)."""
    reused: int = 0
    """Games whose views an earlier report made, found current (or copied)."""
    earlier: int = 0
    """Games whose current views were made by an arena whose stamps did not say who."""
    problems: list[str] = field(default_factory=list)

    def found(self, made_by: str) -> None:
        """Count a game whose current views were there already, made by `made_by`."""
        if made_by == WORKER:
            self.by_workers += 1
        elif made_by:
            self.reused += 1
        else:
            self.earlier += 1

    @property
    def index(self) -> Path:
        """The page to open."""
        return self.out / "index.html"


def environment() -> jinja2.Environment:
    """Return the template environment (templates ship in this package)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("arena.report", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    env.filters["pct"] = lambda v: "-" if v is None else f"{v:.0%}"
    env.filters["num"] = lambda v, d=0: "-" if v is None else f"{v:.{d}f}"
    env.filters["tojs"] = lambda v: json.dumps(v, ensure_ascii=True)
    return env


def copy_assets(out: Path) -> None:
    """Copy the stylesheet and scripts into `out/assets`."""
    target = out / "assets"
    target.mkdir(parents=True, exist_ok=True)
    folder = resources.files("arena.report") / "assets"
    for name in ASSETS:
        (target / name).write_bytes((folder / name).read_bytes())


def build_report(run: RunData, out: Path, on_view: ViewProgress | None = None,
                 page_rows: int = PAGE_ROWS) -> Built:
    """Write the report of a tournament run into `out` (created; pages replaced), telling
    `on_view` of each game whose views it has to make; the game lists show `page_rows`
    games a page (`arena.report.gamelist`).

    Raises:
        ArenaError: `out` cannot be written.
    """
    try:
        return _build(run, out, on_view or (lambda done, total: None), page_rows)
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise ArenaError(f"cannot write the report in {out}: {exc.strerror or exc}"
                         f"{where}") from None


def _build(run: RunData, out: Path, on_view: ViewProgress, page_rows: int) -> Built:
    out.mkdir(parents=True, exist_ok=True)
    copy_assets(out)
    built = Built(out)
    viewable = _write_all_views(run.games, out, built, on_view,
                                run.directory / "report" / DATA)
    pages = {row.bot: f"bots/{slug(row.bot, row.rank)}.html" for row in run.table.rows}
    env = environment()
    common: dict[str, Any] = {"run": run, "version": __version__, "pages": pages,
                              "viewable": viewable, "places": _places(run)}
    _page(env, out / "index.html", "index.html.j2", built, root="", **common,
          standings=tables.standing_rows(run.table, pages), ladder=_ladder_rows(run, pages),
          crosstable=tables.crosstable(run.table), plot=_main_plot(run),
          settings=setting_rows(run.settings, run.environment, run.played),
          rating_model=None if run.table.model is None
          else MODELS.get(run.table.model, run.table.model))
    # a ladder's organiser looks for last night's games first
    newest = run.ladder is not None
    _page(env, out / "games.html", "games.html.j2", built, root="", **common,
          listing=listing(run.games, page_rows, newest))
    (out / DATA).mkdir(exist_ok=True)
    write_whole(out / DATA / LIST_FILE, list_script(list_data(run.games, pages, viewable)))
    # the viewer's own list of every game, which reports before list.js wrote
    (out / DATA / "games.js").unlink(missing_ok=True)
    (out / "bots").mkdir(exist_ok=True)
    by_bot = _games_by_bot(run.games)
    for row in run.table.rows:
        games = by_bot.get(row.bot, [])
        _page(env, out / pages[row.bot], "bot.html.j2", built, root="../", **common, row=row,
              listing=listing(games, page_rows, newest, row.bot),
              seats=tables.by_seat(row.bot, games, _places(run)),
              faults=_first_faults(tables.bot_faults(row.bot, games), newest, page_rows),
              plot=_bot_plot(run, row.bot))
    _page(env, out / "viewer.html", "viewer.html.j2", built, root="", title=run.name,
          back="index.html", games=True)
    write_script(out / DATA / "catalogue.js", "arenaCatalogue",
                  json.dumps(catalogue(run.game_id), ensure_ascii=True))
    return built


def _ladder_rows(run: RunData, pages: Mapping[str, str]) -> list[dict[str, Any]]:
    """The ladder's table for the index: each row with its page and interval bar."""
    if run.ladder is None:
        return []
    rows = run.ladder.table.rows
    bars = tables.interval_bars([(r.rating, r.interval) for r in rows])
    return [{"row": r, "bar": bar, "page": pages.get(run.ladder.entry(r))}
            for r, bar in zip(rows, bars, strict=True)]


def _main_plot(run: RunData) -> str | None:
    if run.ladder is not None:
        return plots.history_chart(history_series(run.ladder.history), "ladder run")
    return plots.ratings_chart(run.table)


def _bot_plot(run: RunData, entry: str) -> str | None:
    """A ladder version's page plots its bot's history, every version of it."""
    if run.ladder is None:
        return None
    bot = next((s.bot for s in run.ladder.history if entry_name(s.bot, s.version) == entry),
               None)
    return None if bot is None else plots.history_chart(
        history_series(run.ladder.history, bot), "ladder run")


def _first_faults(faults: list[tables.BotFault], newest_first: bool,
            rows: int) -> tuple[list[tables.BotFault], int]:
    """The faults a bot's page lists (the first `rows`, in the game list's order), and how
    many it has in all: a bot that times out now and then over a season has thousands."""
    ordered = faults[::-1] if newest_first else faults
    return ordered[:rows], len(faults)


def _games_by_bot(games: Sequence[GameEntry]) -> dict[str, list[GameEntry]]:
    """Each bot's games in play order (one pass, where a pass per bot cost O(bots x games))."""
    out: dict[str, list[GameEntry]] = {}
    for game in games:
        for bot in dict.fromkeys(s.bot for s in game.seats):
            out.setdefault(bot, []).append(game)
    return out


def _places(run: RunData) -> int:
    return max((len(g.seats) for g in run.games), default=0)


def _page(env: jinja2.Environment, path: Path, template: str, built: Built,
          **context: Any) -> None:
    write_whole(path, env.get_template(template).render(**context))
    built.pages += 1


def _write_all_views(games: Sequence[GameEntry], out: Path, built: Built,
                     on_view: ViewProgress, made: Path) -> set[str]:
    """Make the views of every game whose views are missing or stale (`viewdata`), telling
    `on_view` after each, or copy them from `made` (the run's own report data) when they
    are current there; return the keys of the games the viewer can show (the others are
    named in `built`: no replay, or one that does not re-simulate)."""
    viewable: set[str] = set()
    todo: list[GameEntry] = []
    for game in games:
        if game.replay is None:
            built.problems.append(f"{game.key}: no replay file")
            continue
        found = maker(out / DATA / game.key, game.replay)
        if found is None:
            found = copy_views(made / game.key, out / DATA / game.key, game.replay)
        if found is None:
            todo.append(game)
        else:
            built.found(found)
            viewable.add(game.key)
    for done, game in enumerate(todo, start=1):
        assert game.replay is not None
        try:
            built.views += ensure_views(game.replay, out / DATA / game.key)
            built.made += 1
            viewable.add(game.key)
        except ArenaError as exc:
            built.problems.append(f"{game.key}: {exc}")
        on_view(done, len(todo))
    return viewable


def build_viewer(replay_file: Path, out: Path) -> Path:
    """Write a viewer for one replay file into `out`; return the page to open.

    Raises:
        ArenaError: the replay cannot be read or re-simulated, or `out` cannot be written.
    """
    replay = read_replay(replay_file)
    try:
        out.mkdir(parents=True, exist_ok=True)
        copy_assets(out)
        folder = out / DATA / "game"
        if folder.exists():
            shutil.rmtree(folder)
        write_game_views(replay, folder)
        write_script(out / DATA / "catalogue.js", "arenaCatalogue",
                      json.dumps(catalogue(str(replay.header["game"])), ensure_ascii=True))
        page = out / "viewer.html"
        write_whole(page, environment().get_template("viewer.html.j2").render(
            root="", title=replay_file.name, back=None, games=False))
    except OSError as exc:
        raise ArenaError(f"cannot write the viewer in {out}: {exc.strerror or exc}") from None
    return page
