"""Writing the static report: pages from Jinja2 templates, assets, and the viewer's data.

The site opens from `file://` with no server and no network: assets are copied from this
package, plots are inline SVG, and each view of each game is a small script file that the
viewer page loads with a `<script src>` when it is asked for (`fetch()` does not work from
`file://`). A view's file holds only what that view may know (`arena.report.views`).
"""

from __future__ import annotations

import base64
import gzip
import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from arena import __version__
from arena.core.errors import ArenaError
from arena.core.game import Json
from arena.games import REGISTRY
from arena.ladder.store import entry_name
from arena.referee.replay import Replay, read_replay
from arena.referee.review import engine_for
from arena.report import plots, tables
from arena.report.catalogue import catalogue
from arena.report.data import GameEntry, RunData, slug
from arena.report.ladder import history_series
from arena.report.views import build_views
from arena.tournament.outputs import write_whole

ASSETS = ("report.css", "viewer.js", "games.js")
DATA = "data"
"""Where the views' script files go, one folder per game."""


@dataclass
class Built:
    """What a build wrote, and the games whose viewer data could not be made."""

    out: Path
    pages: int = 0
    views: int = 0
    reused: int = 0
    problems: list[str] = field(default_factory=list)

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


def build_report(run: RunData, out: Path) -> Built:
    """Write the report of a tournament run into `out` (created; pages replaced).

    Raises:
        ArenaError: `out` cannot be written.
    """
    try:
        return _build(run, out)
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise ArenaError(f"cannot write the report in {out}: {exc.strerror or exc}"
                         f"{where}") from None


def _build(run: RunData, out: Path) -> Built:
    out.mkdir(parents=True, exist_ok=True)
    copy_assets(out)
    built = Built(out)
    viewable = _write_all_views(run.games, out, built)
    pages = {row.bot: f"bots/{slug(row.bot, row.rank)}.html" for row in run.table.rows}
    env = environment()
    common: dict[str, Any] = {"run": run, "version": __version__, "pages": pages,
                              "viewable": viewable, "places": _places(run)}
    _page(env, out / "index.html", "index.html.j2", built, root="", **common,
          standings=tables.standing_rows(run.table, pages), ladder=_ladder_rows(run, pages),
          crosstable=tables.crosstable(run.table), plot=_main_plot(run))
    _page(env, out / "games.html", "games.html.j2", built, root="", **common)
    (out / "bots").mkdir(exist_ok=True)
    for row in run.table.rows:
        games = [g for g in run.games if g.seat_of(row.bot) is not None]
        _page(env, out / pages[row.bot], "bot.html.j2", built, root="../", **common, row=row,
              games=games, seats=tables.by_seat(row.bot, games, _places(run)),
              faults=tables.bot_faults(row.bot, games),
              plot=_bot_plot(run, row.bot))
    _page(env, out / "viewer.html", "viewer.html.j2", built, root="", title=run.name,
          back="index.html", games=True)
    listed = [{"key": g.key, "label": " | ".join(s.bot for s in g.seats)}
              for g in run.games if g.key in viewable]
    _write_script(out / DATA / "games.js", "arenaGames", json.dumps(listed, ensure_ascii=True))
    _write_script(out / DATA / "catalogue.js", "arenaCatalogue",
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


def _places(run: RunData) -> int:
    return max((len(g.seats) for g in run.games), default=0)


def _page(env: jinja2.Environment, path: Path, template: str, built: Built,
          **context: Any) -> None:
    write_whole(path, env.get_template(template).render(**context))
    built.pages += 1


def _write_all_views(games: Sequence[GameEntry], out: Path, built: Built) -> set[str]:
    """Write the view files of every game whose files are missing or older than its
    replay; return the keys of the games the viewer can show (the others are named in
    `built`: no replay, or one that does not re-simulate)."""
    viewable: set[str] = set()
    todo: list[tuple[str, str, str]] = []
    for game in games:
        if game.replay is None:
            built.problems.append(f"{game.key}: no replay file")
            continue
        folder = out / DATA / game.key
        stamp = folder / "public.js"
        if stamp.is_file() and stamp.stat().st_mtime >= game.replay.stat().st_mtime:
            built.reused += 1
            viewable.add(game.key)
        else:
            todo.append((game.key, str(game.replay), str(folder)))
    for (key, _, _), done in zip(todo, map(views_job, todo), strict=True):
        if isinstance(done, int):
            built.views += done
            viewable.add(key)
        else:
            built.problems.append(f"{key}: {done}")
    return viewable


def views_job(job: tuple[str, str, str]) -> int | str:
    """Write one game's view files (key, replay, folder); return how many, or why not."""
    _, replay, folder = job
    try:
        return write_game_views(read_replay(Path(replay)), Path(folder))
    except ArenaError as exc:
        return str(exc)


def write_game_views(replay: Replay, folder: Path) -> int:
    """Write one script file per view of a game into `folder`; return how many.

    Raises:
        ArenaError: the replay's game is unknown or the replay does not re-simulate.
    """
    views = build_views(replay, engine_for(replay, REGISTRY))
    folder.mkdir(parents=True, exist_ok=True)
    # the public view is written last: its file marks the folder complete (_write_all_views)
    for name in sorted(views, key=lambda v: v == "public"):
        _write_script(folder / f"{name}.js", "arenaView", json.dumps(name), pack(views[name]))
    return len(views)


def pack(data: Mapping[str, Json]) -> str:
    """Return a view as a JSON string literal holding its gzip-compressed JSON in base64.

    What it buys: a game's views shrink about tenfold (a 200-game run's viewer data from
    about 50 MB to 6), and the browser unpacks them itself (`DecompressionStream`), offline
    and from `file://`. `mtime=0` keeps a rebuilt report byte for byte the same. Level 6
    (zlib's default) instead of gzip's 9: half the compression time for 6% more bytes.
    """
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    packed = gzip.compress(raw, compresslevel=6, mtime=0)
    return json.dumps(base64.b64encode(packed).decode("ascii"))


def unpack(script: str) -> dict[str, Json]:
    """Return the view held in a view file's text (what the viewer reads; for tests)."""
    literal = script[script.rindex(",") + 1:script.rindex(")")]
    data = json.loads(gzip.decompress(base64.b64decode(json.loads(literal))))
    assert isinstance(data, dict)
    return data


def _write_script(path: Path, callback: str, *arguments: str) -> None:
    """Write `callback(arguments);` (each argument already a JavaScript literal)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, f"{callback}({','.join(arguments)});\n")


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
        _write_script(out / DATA / "catalogue.js", "arenaCatalogue",
                      json.dumps(catalogue(str(replay.header["game"])), ensure_ascii=True))
        page = out / "viewer.html"
        write_whole(page, environment().get_template("viewer.html.j2").render(
            root="", title=replay_file.name, back=None, games=False))
    except OSError as exc:
        raise ArenaError(f"cannot write the viewer in {out}: {exc.strerror or exc}") from None
    return page
