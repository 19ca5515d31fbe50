"""`arena ladder`: a standing league (init, add, retire, list, run, standings, history)."""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import click

from arena.cli.options import (
    check_pinning,
    cluster_option,
    parse_rules,
    pin_workers_option,
    rules_option,
    sandbox_option,
)
from arena.cli.run import report_hook, write_report
from arena.cli.ui import console, err_console, fitted_table, progress_echo, unless_stdout_gone
from arena.core.errors import ConfigError
from arena.core.record import ForfeitReason
from arena.core.words import count_of, plural
from arena.ladder import members, read
from arena.ladder.config import expand_cmd, require_ladder
from arena.ladder.run import Budget, LadderBusy, LadderRun, ladder_lock
from arena.ladder.store import ACTIVE, Row, Snapshot
from arena.referee.spec import BotSpec
from arena.tournament.config import MAX_CONCURRENCY, bot_problems
from arena.tournament.outputs import markdown, rating_texts
from arena.tournament.runner import Progress

BUSY = 75
"""Exit status of a run that found another one playing (EX_TEMPFAIL: try again later)."""
LADDER_DIR = click.Path(path_type=Path)
"""A ladder directory: whether it is one is checked by each command (`_ladder`), so that
"not a ladder", a missing directory included, is one line and exit status 1, not click's
usage error (2)."""
FORMATS = click.Choice(["table", "json", "csv", "md"])


@click.group(short_help="A standing league: bots join, update and leave while it runs.")
def ladder() -> None:
    """A standing league that bots join, update and leave while it keeps running.

    A ladder directory holds ladder.yaml, one SQLite database, replays and logs. A
    scheduled `arena ladder run` plays more games, chosen to learn the most; see
    docs/ladder.md.
    """


@ladder.command(short_help="Create a ladder directory.")
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False))
@click.option("--game", "-g", default=None, help="The game (see `arena games`).")
@click.option("--players", "-p", type=click.IntRange(min=2), default=None,
              help="Seats at every table (default: the game's smallest table, 2 if allowed).")
@rules_option()
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False,
                                                         exists=True), default=None,
              help="Start from this ladder.yaml instead (see tournaments/ladder.example.yaml).")
def init(directory: Path, game: str | None, players: int | None, rule_pairs: tuple[str, ...],
         config_file: Path | None) -> None:
    """Create a ladder in DIRECTORY for GAME (or from a ladder.yaml with --config)."""
    if (game is None) == (config_file is None):
        raise click.UsageError("give either --game or --config")
    if config_file is not None and (players is not None or rule_pairs):
        raise click.UsageError("--players and --rules go with --game; --config's file sets them")
    text = None
    if config_file is not None:
        try:
            text = config_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read {config_file}: {exc}") from None
    path = members.init(directory, game=game, players=players, rules=parse_rules(rule_pairs),
                        config_text=text, source=str(config_file) if config_file else None)
    console.print(f"Ladder created in {directory}/ (settings: {path}). Add bots with: "
                  f"arena ladder add {directory} NAME --cmd CMD")


@ladder.command(short_help="Register a bot, or a new version of it.")
@click.argument("directory", type=LADDER_DIR)
@click.argument("name")
@click.option("--cmd", required=True, help="The command that starts the bot ({python}: "
                                           "the interpreter running arena).")
@click.option("--cwd", type=click.Path(path_type=Path, file_okay=False, exists=True),
              default=None, help="The bot's folder: it runs there, and every file in it makes "
                                 "the version hash (default: the current directory, and the "
                                 "hash covers the files --cmd names).")
@click.option("--version", "version", default=None,
              help="A version label (default: a content hash of the bot's files).")
def add(directory: Path, name: str, cmd: str, cwd: Path | None, version: str | None) -> None:
    """Register bot NAME in the ladder in DIRECTORY, or a new version of it.

    A new version becomes the active one and is scheduled first; the one it replaces
    stops being scheduled but keeps its games and history. An unchanged bot is not
    registered again.
    """
    require_ladder(directory)
    result = members.add(directory, name, cmd, cwd=cwd, version=version)
    entry = result.version.entry
    if result.outcome is members.Added.UNCHANGED:
        console.print(f"{entry} is already the active version: nothing changed")
    elif result.outcome is members.Added.MOVED:
        console.print(f"{entry} is the active version, its files unchanged: it now runs "
                      f"{' '.join(result.version.cmd)!r} in {result.version.cwd}")
    elif result.outcome is members.Added.RESTORED:
        console.print(f"{entry} is active again (replacing {result.replaced})"
                      if result.replaced else f"{entry} is active again (it was retired)")
    elif result.replaced:
        console.print(f"{entry} added; it replaces {result.replaced}, which keeps its games "
                      "and is no longer scheduled")
    else:
        console.print(f"{entry} added")
    found = result.version
    spec = BotSpec(entry, expand_cmd(found.cmd), found.cwd, found.env)
    for problem in bot_problems(spec):  # said now, not first in the night's run
        err_console.print(f"warning: {entry} cannot start as it stands: {problem} (each run "
                          "leaves it out until it can)", highlight=False, markup=False)


@ladder.command(short_help="Stop scheduling a bot (its games and history stay).")
@click.argument("directory", type=LADDER_DIR)
@click.argument("name")
def retire(directory: Path, name: str) -> None:
    """Retire bot NAME: no more games; its games and rating history stay."""
    require_ladder(directory)
    version = members.retire(directory, name)
    console.print(f"{version.entry} retired: it keeps its games and history")


@ladder.command(name="list", short_help="List the bots and their versions.")
@click.argument("directory", type=LADDER_DIR)
@click.option("--all", "all_versions", is_flag=True,
              help="Also list superseded and retired versions.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True, help="Output format (json and csv: for scripts).")
def list_(directory: Path, all_versions: bool, fmt: str) -> None:
    """List the bots of the ladder in DIRECTORY (active versions; --all for every one)."""
    _readable(directory)
    listed = [v for v in read.versions(directory) if all_versions or v.status == "active"]
    rows: list[dict[str, object]] = [
        {"bot": v.bot, "version": v.version, "entry": v.entry, "status": v.status,
         "added": v.added, "replaces": v.previous, "cmd": " ".join(v.cmd), "cwd": v.cwd}
        for v in listed]
    if fmt == "json":
        click.echo(json.dumps({"versions": rows}, indent=1))
        return
    if fmt == "csv":
        click.echo(_csv(rows, LIST_COLUMNS), nl=False)
        return
    table = fitted_table(f"{directory}: {count_of(len(listed), 'version')}",
                         [("bot", "left"), ("version", "left"), ("status", "left"),
                          ("added", "left"), ("replaces", "left"), ("command", "left")])
    for v in listed:
        table.add_row(v.bot, v.version, v.status, _date(v.added),
                      (v.previous or "-").partition("@")[2] or "-", " ".join(v.cmd))
    console.print(table)


@ladder.command(short_help="Play more games (cron-safe), then store a rating snapshot.")
@click.argument("directory", type=LADDER_DIR)
@click.option("--games", "-n", type=click.IntRange(min=1), default=None,
              help="Games to play (default: one round, the file's `batch`).")
@click.option("--minutes", "-m", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Play rounds for this long instead (the round under way finishes).")
@click.option("--wait", is_flag=True,
              help="If another run is playing, wait for it instead of exiting.")
@click.option("--concurrency", "-j", type=click.IntRange(1, MAX_CONCURRENCY), default=None,
              help="Worker processes (default: ladder.yaml's `concurrency`, else one per core).")
@sandbox_option(default=None)
@cluster_option()
@pin_workers_option(" (ladder.yaml's `pin_workers`)")
@click.option("--no-report", is_flag=True,
              help="Do not refresh the HTML report (DIRECTORY/report) after the run.")
def run(directory: Path, games: int | None, minutes: float | None, wait: bool,
        concurrency: int | None, sandbox: str | None, cluster: str | None,
        pin_workers: bool, no_report: bool) -> None:
    """Play more games in the ladder in DIRECTORY and exit; meant for cron or a timer.

    A second run while one plays exits at once with status 75 (or waits with --wait). A
    run stopped at any point (even SIGKILL) keeps every stored game; the next run
    finishes the round it left and goes on.

    Exit status: 0 the games were played (a bot left out or forfeiting is a warning
    line); 1 an error, in one line; 2 a usage error; 75 another run is playing; 130
    stopped by SIGTERM or Ctrl-C.
    """
    if games is not None and minutes is not None:
        raise click.UsageError("give --games or --minutes, not both")
    check_pinning(pin_workers, cluster)
    require_ladder(directory)
    lines = _Lines()
    locked = False
    job: LadderRun | None = None
    try:
        with ladder_lock(directory, wait, on_wait=lambda line: click.echo(line, err=True)):
            locked = True
            job = LadderRun(directory, Budget(games, minutes), concurrency=concurrency,
                            on_progress=lines.update, sandbox=sandbox, cluster=cluster,
                            after_store=None if no_report else report_hook(directory),
                            pin_workers=pin_workers)
            if games is None and minutes is None:
                job.budget = Budget(games=job.config.batch)
            if (note := job.isolation_note()) is not None:
                err_console.print(f"[bold yellow]{note}[/]")
            result = job.run()
    except LadderBusy as exc:
        click.echo(str(exc), err=True)
        sys.exit(BUSY)
    except KeyboardInterrupt:
        stored = lines.done if job is None or job.stored is None else job.stored
        click.echo(f"interrupted: {count_of(stored, 'game')} of this run "
                   f"{plural('is', stored)} stored; the next run "
                   "finishes the round it left" if locked else
                   "interrupted while waiting for the other run: this one played nothing",
                   err=True)
        sys.exit(130)
    for bot, why in sorted(lines.absent.items()):
        if bot not in lines.present:  # it took a share of the night's games and played none
            err_console.print(f"warning: {bot} never connected in this run: its "
                              f"{_forfeited(lines.seated[bot])} ({why}); see "
                              f"{directory / 'logs' / (bot + '.log')}", highlight=False,
                              markup=False)
    resumed = f" ({result.resumed} finishing a stopped run's round)" if result.resumed else ""
    with unless_stdout_gone():  # the report is still to come
        for line in result.dropped:
            console.print(line, highlight=False, markup=False)
        console.print(f"run {result.run}: {count_of(result.played, 'game')} played{resumed}; "
                      f"{result.stored} in the ladder")
        print_standings(directory, "table", all_versions=False, limit=10)
    if not no_report:
        write_report(directory)


def _forfeited(games: int) -> str:
    """`its 1 game was a forfeit`, `its 3 games were forfeits`: what a bot that never
    connected lost."""
    lost = "was a forfeit" if games == 1 else "were forfeits"
    return f"{count_of(games, 'game')} {lost}"


class _Lines:
    """One plain line per stored game."""

    def __init__(self) -> None:
        self.done = 0
        self.seated: Counter[str] = Counter()
        self.absent: dict[str, str] = {}
        """Each bot that forfeited a game of this run without connecting: why, last."""
        self.present: set[str] = set()

    def update(self, state: Progress) -> None:
        if state.done == self.done or state.last is None:
            return
        self.done = state.done
        record = state.last
        forfeits = record.details.get("forfeits", {})
        for seat in record.seats:
            self.seated[seat.bot] += 1
            if seat.forfeit is ForfeitReason.NO_CONNECT:
                self.absent[seat.bot] = str(forfeits.get(str(seat.seat), "no_connect"))
            else:
                self.present.add(seat.bot)
        order = ", ".join(f"{s.placing} {s.bot}" for s in sorted(record.seats,
                                                                key=lambda s: s.placing))
        total = f"/{state.total}" if state.total else ""
        label = Path(record.replay).stem if record.replay else "game"
        progress_echo(f"[{state.done}{total}] {label}: {order} | faults {state.faults}, "
                      f"timeouts {state.timeouts}, forfeits {state.forfeits}")


@ladder.command(short_help="Print the ladder's table.")
@click.argument("directory", type=LADDER_DIR)
@click.option("--format", "fmt", type=FORMATS, default="table", show_default=True,
              help="Output format (md: a Markdown table).")
@click.option("--all", "all_versions", is_flag=True,
              help="Also show superseded and retired versions (marked so).")
def standings(directory: Path, fmt: str, all_versions: bool) -> None:
    """Print the table of the ladder in DIRECTORY: rating with its 95% interval (the batch
    fit), games, win rate, mean placing, faults, last game and the trend since the
    previous run."""
    _readable(directory)
    print_standings(directory, fmt, all_versions)


def _readable(directory: Path) -> None:
    """Check that `directory` holds a ladder, and warn in one line when its database is
    damaged (a read answers from the pages it needs, which may be whole)."""
    require_ladder(directory)
    if (damage := read.damage(directory)) is not None:
        click.echo(f"warning: {damage}", err=True)  # one line whatever the width


LIST_COLUMNS = ("bot", "version", "entry", "status", "added", "replaces", "cmd", "cwd")
COLUMNS = ("rank", "bot", "version", "status", "rating", "interval", "games", "win_rate",
           "mean_placing", "faults", "timeouts", "forfeits", "last_played", "trend")


def print_standings(directory: Path, fmt: str, all_versions: bool,
                     limit: int | None = None) -> None:
    table = read.standings(directory, all_versions)
    rows = list(table.rows)
    if fmt == "json":
        click.echo(json.dumps({"games": table.games, "rated": table.rated, "runs": table.runs,
                               "standings": [r.to_json() for r in rows]}, indent=1))
    elif fmt == "csv":
        click.echo(_csv([r.to_json() for r in rows], COLUMNS), nl=False)
    else:
        shown = rows[:limit]
        ratings = rating_texts([(r.rating, r.interval) for r in shown])
        text = [_cells(r, rating) for r, rating in zip(shown, ratings, strict=True)]
        header = ["#", "bot", "rating ±95%", "games", "win%", "place", "F/T/X", "last game",
                  "trend"]
        if fmt == "md":
            click.echo(markdown([header, *text], [h not in ("bot", "last game")
                                                  for h in header]), nl=False)
            return
        out = fitted_table(f"{directory}: {count_of(table.games, 'game')}, "
                           f"{count_of(table.runs, 'run')}",
                           [(h, "left" if h in ("bot", "last game") else "right")
                            for h in header],
                           caption="bot@version; place: mean placing; F/T/X: faults, "
                                   "timeouts, forfeits; trend: since the previous run")
        for cells in text:
            out.add_row(*cells)
        console.print(out)


def _cells(row: Row, rating: str) -> list[str]:
    """A row's cells; a version no longer scheduled (`--all`) says so beside its name, as
    json, csv and the HTML report do in their status column."""
    name = f"{row.bot}@{row.version}" + ("" if row.status == ACTIVE else f" ({row.status})")
    return [str(row.rank), name, rating, str(row.games),
            "-" if row.win_rate is None else f"{row.win_rate:.0%}",
            "-" if row.mean_placing is None else f"{row.mean_placing:.2f}",
            f"{row.faults}/{row.timeouts}/{row.forfeits}", _date(row.last_played, short=True),
            "-" if row.trend is None else f"{row.trend:+.0f}"]


@ladder.command(short_help="Print each bot's rating after every run.")
@click.argument("directory", type=LADDER_DIR)
@click.argument("name", required=False)
@click.option("--format", "fmt", type=FORMATS, default="table", show_default=True,
              help="Output format (json: the points of the rating-history plot).")
def history(directory: Path, name: str | None, fmt: str) -> None:
    """Print the rating of every version (of bot NAME) after each run of the ladder in
    DIRECTORY, oldest first."""
    _readable(directory)
    points = read.history(directory, name)
    if name is not None and not points and not any(v.bot == name
                                                   for v in read.versions(directory)):
        raise ConfigError(f"{name!r} is not a bot of this ladder")
    data = [_point(p) for p in points]
    if fmt == "json":
        click.echo(json.dumps({"history": data}, indent=1))
    elif fmt == "csv":
        click.echo(_csv(data, ("run", "taken", "bot", "version", "rating", "interval",
                               "games")), nl=False)
    else:
        header = ["run", "date", "bot", "version", "rating ±95%", "games"]
        text = [[str(p.run), _date(p.taken), p.bot, p.version, _rating(p), str(p.games)]
                for p in points]
        if fmt == "md":
            numeric = ("run", "rating ±95%", "games")  # right-aligned, as in the table
            click.echo(markdown([header, *text], [h in numeric for h in header]), nl=False)
            return
        out = fitted_table(f"{directory}: rating history", [
            (h, "right" if h in ("run", "rating ±95%", "games") else "left") for h in header])
        for cells in text:
            out.add_row(*cells)
        console.print(out)


def _point(p: Snapshot) -> dict[str, object]:
    return {"run": p.run, "taken": round(p.taken, 3), "bot": p.bot, "version": p.version,
            "rating": None if p.rating is None else round(p.rating, 1),
            "interval": None if p.interval is None else round(p.interval, 1),
            "games": p.games}


def _rating(p: Snapshot) -> str:
    if p.rating is None:
        return "-"
    return f"{p.rating:.0f}" + (f" ± {p.interval:.0f}" if p.interval is not None else "")


def _csv(rows: Sequence[dict[str, object]], columns: Sequence[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _date(stamp: float | None, short: bool = False) -> str:
    if stamp is None:
        return "-"
    return time.strftime("%m-%d %H:%M" if short else "%Y-%m-%d %H:%M", time.localtime(stamp))

