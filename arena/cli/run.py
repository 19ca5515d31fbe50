"""`arena run` (a tournament, with a live view) and `arena standings` (its table)."""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import click
from rich.console import Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from arena.cli.options import check_pinning, cluster_option, pin_workers_option, sandbox_option
from arena.cli.ui import (
    console,
    err_console,
    fitted_table,
    logs_through,
    progress_echo,
    unless_stdout_gone,
)
from arena.core.errors import ArenaError
from arena.core.words import count_of
from arena.referee.sandbox import SandboxMode, SandboxPolicy
from arena.tournament.config import MAX_CONCURRENCY, TournamentConfig, load_config, preflight
from arena.tournament.isolation import MAX_BOTS
from arena.tournament.outputs import (
    crosstable_csv,
    crosstable_rows,
    markdown_crosstable,
    markdown_standings,
    standings_caption,
    standings_csv,
    standings_from_store,
    standings_rows,
)
from arena.tournament.pairing import table_sizes
from arena.tournament.runner import (
    AfterStore,
    Interrupted,
    Runner,
    isolation_warning,
    jobs_of,
    static_schedule,
)
from arena.tournament.runner import Progress as RunProgress
from arena.tournament.sharing import shared_folders
from arena.tournament.standings import Standings
from arena.tournament.verify import replay_warnings

LIVE_TOP = 8
REFRESH_S = 0.25
"""How often the live view is redrawn (rich's refresh: 4 a second), and so the most often
its table is recomputed and its text rebuilt: more often, the work is never seen."""
TABLE_SHARE = 40
"""A table that takes long to recompute is recomputed after at least this many times what
it took, so it takes at most 1/41 of the coordinator's time (a large field's, late: the
1,120-game benchmark's ~0.05 s, every ~2 s). The share matters beyond the CPU: while the
coordinator recomputes, no worker that finishes a game gets its next one."""
PROGRESS_LINES = 100
"""About how many progress lines a run prints when the output is not a terminal."""


@click.command(short_help="Run a tournament file (YAML; see docs/tournaments.md).")
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--resume", is_flag=True, help="Continue an interrupted run in the same --out.")
@click.option("--concurrency", "-j", type=click.IntRange(1, MAX_CONCURRENCY), default=None,
              help="Worker processes (default: the file's `concurrency`, else one per core).")
@click.option("--out", "-o", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Output directory, relative to the current directory (default: the "
                   "file's `out`, relative to the file, else runs/<name>).")
@click.option("--dry-run", is_flag=True, help="Print the schedule and the game count, check "
                                               "that every bot's command is there, and play "
                                               "nothing.")
@click.option("--withdraw", "withdraw", multiple=True, metavar="BOT",
              help="With --resume: BOT plays no more games (its stored games stay; in a "
                   "Swiss its opponents in a round already paired score a forfeit win and "
                   "the next rounds are paired without it). Recorded in the run. "
                   "Repeatable.")
@click.option("--enter", "enter", multiple=True, metavar="BOT",
              help="With --resume, Swiss only: BOT, added to FILE, joins from the next "
                   "round with no points for the rounds before. Recorded in the run. "
                   "Repeatable.")
@sandbox_option(default=None)
@cluster_option()
@click.option("--max-bots", type=click.IntRange(min=1, max=MAX_BOTS), default=None,
              help="Bot processes alive at once per worker (default: the file's `max_bots`, "
                   "else twice the table size); bots start when a game needs them and the "
                   "least recently used stop first.")
@pin_workers_option(" (the file's `pin_workers`)")
@click.option("--no-report", is_flag=True,
              help="Do not write the HTML report (OUT/report) at the end; `arena report OUT` "
                   "writes it later.")
def run(file: Path, resume: bool, concurrency: int | None, out: Path | None,
        dry_run: bool, withdraw: tuple[str, ...], enter: tuple[str, ...],
        sandbox: str | None, cluster: str | None, max_bots: int | None,
        pin_workers: bool, no_report: bool) -> None:
    """Run the tournament described in FILE (YAML; see docs/tournaments.md).

    On a terminal a live view shows the progress, the running games and the top of the
    table; in a pipe or a CI log a plain line reports the progress as games finish.
    Ctrl-C exits with status 130; `--resume` continues.
    """
    if (withdraw or enter) and not resume:
        raise click.UsageError("--withdraw and --enter change a run under way: add --resume")
    config = load_config(file, commands=True)  # every problem at once, its commands too
    address = cluster if cluster is not None else config.cluster
    check_pinning(pin_workers, address)
    out = out or config.out
    config = with_options(config, sandbox, max_bots, pin_workers)
    note = checked(config, out)  # a dry run fails as the run would, before its schedule
    for warning in config.warnings:  # what the file asks for in vain, dry run or not
        err_console.print(f"warning: {warning}", highlight=False, markup=False)
    if dry_run:
        if address is not None:  # and what a cluster refuses: bundles, a host name
            from arena.tournament.cluster import preflight as cluster_preflight

            cluster_preflight(config, address, out)
        if note is not None:
            err_console.print(f"[bold yellow]{note}[/]")
        for line in shared_folders(config.bots):
            err_console.print(f"note: {line}", highlight=False, markup=False)
        # what the run checks against OUT's run: --resume, --withdraw, --enter, games there
        held = Runner(config, out, resume=resume, withdraw=withdraw, enter=enter).check_store()
        if held is not None:
            err_console.print(f"note: {held}", highlight=False, markup=False)
        _dry_run(config)
        return
    if note is not None:
        err_console.print(f"[bold yellow]{note}[/]")
    elif config.sandbox.mode is not SandboxMode.NONE:  # sandboxed (auto too): say it first
        for line in shared_folders(config.bots):
            err_console.print(f"warning: {line}", highlight=False, markup=False)
    view = _LiveView() if live_view_wanted() else None
    lines = _ProgressLines()
    runner = Runner(config, out, concurrency=concurrency, resume=resume, withdraw=withdraw,
                    enter=enter, on_progress=lines.update if view is None else view.update,
                    cluster=cluster, checked=True)  # `checked` looked the commands up
    if not no_report:
        runner.after_store = report_hook(out)
    try:
        if view is None:
            table = runner.run()
        else:
            view.runner = runner
            with Live(view.render(), console=console, refresh_per_second=4,
                      transient=True) as live, logs_through(console):
                view.live = live
                table = runner.run()
    except Interrupted as exc:
        again = f" --cluster {cluster}" if cluster else ""  # the file's own, if any, stays
        err_console.print(f"[yellow]{exc}[/]\nResume with: arena run {file} --resume "
                          f"--out {out}{again}")
        sys.exit(130)
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise ArenaError(f"cannot write the results in {out}: {exc.strerror or exc}"
                         f"{where}") from None
    with unless_stdout_gone():  # the report is still to come
        console.print(render_table(table, f"{config.name}: final standings "
                                          f"({count_of(table.games, 'game')})"))
    for warning in table.warnings():
        err_console.print(f"[yellow]warning: {warning}[/]")
    with unless_stdout_gone():
        console.print(f"Results in {out}/ (results.sqlite, results.json, standings.csv, "
                      "replays/)")
    if not no_report:
        write_report(out)


def with_options(config: TournamentConfig, sandbox: str | None, max_bots: int | None,
                 pin_workers: bool) -> TournamentConfig:
    """The file's settings with the command line's (`--sandbox`, `--max-bots`,
    `--pin-workers`) in their place.

    Raises:
        click.BadParameter: `--max-bots` is below the table size.
    """
    if sandbox is not None:
        config = replace(config, sandbox=SandboxPolicy(SandboxMode(sandbox),
                                                       config.sandbox.limits))
    if max_bots is not None:
        if max_bots < config.table.size:
            raise click.BadParameter(f"{max_bots} is less than the table size "
                                     f"({config.table.size}): a game needs all its bots",
                                     param_hint="--max-bots")
        config = replace(config, max_bots=max_bots)
    return replace(config, pin_workers=True) if pin_workers else config


def checked(config: TournamentConfig, out: Path) -> str | None:
    """Make every check a run makes before its first game (a dry run too, so that it
    fails as the run would): the bots' commands, the output directory, the sandbox asked
    for. Return the warning to print when bots will run without a sandbox. The run's
    `Runner` is told (`checked`), so that it does not look every command up again.

    Raises:
        ArenaError: every problem of each check that fails, in one message: a bot's
            missing script and an unwritable output directory took two runs to learn.
    """
    failed: list[str] = []
    warning = None
    try:
        preflight(config)
    except ArenaError as exc:
        failed.append(str(exc))
    try:
        check_out(out)
    except ArenaError as exc:
        failed.append(str(exc))
    try:
        warning = isolation_warning(config)
    except ArenaError as exc:
        failed.append(str(exc))
    if failed:
        raise ArenaError("\n".join(failed))
    return warning


def report_hook(out: Path) -> AfterStore:
    """What each worker does on a game once it is stored when the run ends with a report:
    make the game's viewer data there, so the report at the end writes its pages only."""
    from arena.report.viewdata import ViewsHook

    return ViewsHook(out / "report")


def write_report(out: Path) -> None:
    """Write the run's HTML report; a failure is a warning (the results are stored)."""
    from arena.cli.report import build_with_progress, report_done
    from arena.report.data import load_run

    started = time.monotonic()
    try:
        built = build_with_progress(load_run(out), out / "report")
    except ArenaError as exc:
        err_console.print(f"[yellow]warning: no report: {exc} (the results are stored; "
                          f"`arena report {out}` tries again)[/]")
        return
    with unless_stdout_gone():  # the run's work is done: its status stays 0
        report_done(built, time.monotonic() - started)


def live_view_wanted() -> bool:
    """Whether to draw the live view: on a terminal only (a pipe or a log gets lines)."""
    return console.is_terminal


def check_out(out: Path) -> None:
    """Refuse an output directory that cannot be created or written, creating nothing.

    Raises:
        ArenaError: `out` (or its nearest existing parent) is not a writable directory.
    """
    target = out
    try:
        while not target.exists() and target != target.parent:
            target = target.parent
        usable = target.is_dir()
    except OSError as exc:
        raise ArenaError(f"output directory {out}: {exc.strerror}") from None
    if not usable:
        raise ArenaError(f"output directory {out}: {target} is not a directory")
    if not os.access(target, os.W_OK | os.X_OK):
        raise ArenaError(f"output directory {out}: {target} is not writable")


def _dry_run(config: TournamentConfig) -> None:
    plans = static_schedule(config)
    if plans is None:
        sizes, byes = table_sizes(len(config.bots), config.table.size, config.table.smallest)
        per_round = len(sizes)
        console.print(f"tables a round: {', '.join(map(str, sizes))} seats; byes: {byes}")
        a_round = per_round * config.games_per_pairing
        rounds = config.rounds or 1
        console.print(f"{config.name}: swiss, {count_of(rounds, 'round')}; each round is "
                      f"paired from the standings after the previous one (about "
                      f"{count_of(a_round, 'game')} a round, {rounds * a_round} in all)")
        return
    total = 0
    for plan in plans:
        jobs = jobs_of(plan, config.seed, None)
        total += len(jobs)
        rest = f"  byes: {', '.join(plan.byes)}" if plan.byes else ""
        console.print(f"[bold]round {plan.round}[/]{rest}")
        for job in jobs:
            console.print(f"  table {job.key.table} game {job.key.repeat}: "
                          f"{' | '.join(job.seating)}")
    console.print("game seeds: secret, from the seed and a salt drawn when the run starts")
    console.print(f"{config.name}: {config.format.value}, {count_of(len(plans), 'round')}, "
                  f"{count_of(total, 'game')}")


class _LiveView:
    """The live display: progress with ETA, running games, top of the table, faults.

    Why throttled: the table is recomputed from every stored game (the online rating
    depends on their order), ~0.03 ms a game, and the coordinator that does it is also
    the one handing games to the workers. Recomputed and redrawn at every event, 8-bot
    benchmark on 2 cores, 2 workers: 8.6 s of the coordinator's CPU for 560 games against
    0.8 s in a pipe, and the run took 13.1 s against 6.5; at 14 workers the coordinator
    would have played at most a few dozen games a second. Now at most every `REFRESH_S`.
    `clock` is for the tests.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.bar = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("ETA"), TimeRemainingColumn(), console=console)
        self.task = self.bar.add_task("games", total=None)
        self.based = False
        self.runner: Runner | None = None
        self.live: Live | None = None
        self.state = RunProgress()
        self.table: Standings | None = None
        self.table_done = -1
        self.clock = clock
        self.drawn_at = -math.inf
        self.table_at = -math.inf
        self.table_cost = 0.0

    def update(self, state: RunProgress) -> None:
        self.state = state
        if not self.based:  # from the games stored before: rich's ETA takes a jump of
            # the count (a resumed run's stored games at once) for speed, and said 3 s
            self.bar.reset(self.task, total=state.total or None, completed=state.done)
            self.based = True
        self.bar.update(self.task, total=state.total or None, completed=state.done)
        now = self.clock()
        if now - self.drawn_at < REFRESH_S:
            return  # rich redraws the bar (and its ETA) by itself meanwhile
        if self.runner is not None and state.done != self.table_done \
                and now - self.table_at >= TABLE_SHARE * self.table_cost:
            self.table = self.runner.live_standings()
            self.table_done = state.done
            self.table_at = self.clock()
            self.table_cost = self.table_at - now
        self.drawn_at = now
        if self.live is not None:
            self.live.update(self.render())

    def render(self) -> Group:
        s = self.state
        running = ", ".join(str(k) for k in s.running.values()) or "-"
        info = (f"running: {running}\nfaults: {s.faults}  timeouts: {s.timeouts}  "
                f"forfeits: {s.forfeits}  bot processes: {s.bots_alive}"
                + (f"  bot bundles sent: {len(s.bundles)}" if s.bundles else "")
                + (f"  (resumed with {count_of(s.resumed, 'game')} stored)" if s.resumed
                   else ""))
        parts: list[object] = [self.bar, info]
        if self.table is not None:
            parts.append(render_table(self.table, "live top of the table", LIVE_TOP))
        return Group(*parts)  # type: ignore[arg-type]


class _ProgressLines:
    """Progress for a pipe or a CI log: a plain line as games finish (about
    `PROGRESS_LINES` in a whole run), each with the counts, the faults and an ETA."""

    def __init__(self) -> None:
        self.seen = -1
        self.shown = 0

    def update(self, state: RunProgress) -> None:
        if self.seen < 0:
            stored = f", {state.resumed} already stored" if state.resumed else ""
            progress_echo(f"{count_of(state.total, 'game')} to play{stored}")
            self.shown = state.done
        if state.done == self.seen or state.last is None:
            self.seen = state.done
            return
        self.seen = state.done
        step = max(1, state.total // PROGRESS_LINES)
        if state.done - self.shown < step and state.done < state.total:
            return
        self.shown = state.done
        progress_echo(progress_line(state))


def progress_line(state: RunProgress) -> str:
    """Return one plain line: games done, the last game's placings, faults, time and ETA."""
    record = state.last
    assert record is not None
    label = Path(record.replay).stem if record.replay else "game"
    order = ", ".join(f"{s.placing} {s.bot}" for s in sorted(record.seats,
                                                            key=lambda s: s.placing))
    elapsed = time.monotonic() - state.started
    played = state.done - state.resumed
    eta = elapsed / played * (state.total - state.done) if played else 0.0
    return (f"[{state.done}/{state.total}] {label}: {order} | faults {state.faults}, "
            f"timeouts {state.timeouts}, forfeits {state.forfeits} | bot processes "
            f"{state.bots_alive} | {_clock(elapsed)} "
            f"elapsed, ETA {_clock(eta)}")


def _clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def render_table(table: Standings, title: str, limit: int | None = None) -> Table:
    """Return the standings as a table that fits 80 columns (long bot names wrap)."""
    header, *rows = standings_rows(table)
    out = fitted_table(title, [(h, "left" if h == "bot" else "right") for h in header],
                       caption=standings_caption(table))
    for cells in rows[:limit]:
        out.add_row(*cells)
    return out


def render_crosstable(table: Standings) -> Table:
    """Return the crosstable: each bot's points out of its pairwise results per opponent."""
    header, *rows = crosstable_rows(table)
    out = fitted_table("crosstable", [(h, "left" if h == "bot" else "right") for h in header],
                       caption="points/pairwise results against the bot of that rank (a "
                               "better placing at the same table wins, an equal one draws)")
    for cells in rows:
        out.add_row(*cells)
    return out


@click.command(short_help="Print the standings of the tournament run in DIRECTORY.")
@click.argument("directory", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "md"]),
              default="table", show_default=True,
              help="Output format (md: Markdown tables).")
@click.option("--crosstable", is_flag=True,
              help="Print the crosstable (points out of the pairwise results of each pair) "
                   "instead of the standings; json always holds both.")
def standings(directory: Path, fmt: str, crosstable: bool) -> None:
    """Print the standings of a finished or running tournament in DIRECTORY.

    Each row shows the batch rating with its 95% interval and the likelihood that the bot
    is stronger than the next one (LOS). Warns on stderr about each game whose replay is
    missing or no longer matches the digest stored with it (`arena verify DIRECTORY`
    checks everything), and when the bots form groups that never met.
    """
    settings, table = standings_from_store(directory)
    for warning in [*replay_warnings(directory), *table.warnings()]:
        click.echo(f"warning: {warning}", err=True)
    if fmt == "json":
        click.echo(json.dumps({"tournament": settings, **table.to_json()}, indent=1))
    elif fmt == "csv":
        click.echo(crosstable_csv(table) if crosstable else standings_csv(table), nl=False)
    elif fmt == "md":
        text = markdown_crosstable(table) if crosstable else markdown_standings(table)
        click.echo(text, nl=False)
    elif crosstable:
        console.print(render_crosstable(table))
    else:
        console.print(render_table(table, f"{settings.get('name', directory)}: "
                                          f"{count_of(table.games, 'game')}"))
