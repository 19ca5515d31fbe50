"""`arena run` (a tournament, with a live view) and `arena standings` (its table)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click
from rich.console import Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from arena.cli.ui import console, err_console
from arena.tournament.config import load_config, preflight
from arena.tournament.outputs import standings_csv, standings_from_store
from arena.tournament.pairing import table_sizes
from arena.tournament.runner import Interrupted, Runner, jobs_of, static_schedule
from arena.tournament.runner import Progress as RunProgress
from arena.tournament.standings import Standings

LIVE_TOP = 8


@click.command()
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--resume", is_flag=True, help="Continue an interrupted run in the same --out.")
@click.option("--concurrency", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: the file's `concurrency`, else one per core).")
@click.option("--out", "-o", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Output directory (default: the file's `out`, else runs/<name>).")
@click.option("--dry-run", is_flag=True, help="Print the schedule and the game count only.")
def run(file: Path, resume: bool, concurrency: int | None, out: Path | None,
        dry_run: bool) -> None:
    """Run the tournament described in FILE (YAML; see docs/tournaments.md)."""
    config = load_config(file)
    out = out or config.out
    if dry_run:
        _dry_run(config)
        return
    preflight(config)
    view = _LiveView()
    runner = Runner(config, out, concurrency=concurrency, resume=resume,
                    on_progress=view.update)
    view.runner = runner
    try:
        with Live(view.render(), console=console, refresh_per_second=4,
                  transient=True) as live:
            view.live = live
            table = runner.run()
    except Interrupted as exc:
        err_console.print(f"[yellow]{exc}[/]\nResume with: arena run {file} --resume "
                          f"--out {out}")
        sys.exit(130)
    console.print(render_table(table, f"{config.name}: final standings "
                                      f"({table.games} games)"))
    console.print(f"Results in {out}/ (results.sqlite, results.json, standings.csv, replays/)")


def _dry_run(config: object) -> None:
    from arena.tournament.config import TournamentConfig

    assert isinstance(config, TournamentConfig)
    plans = static_schedule(config)
    if plans is None:
        sizes, byes = table_sizes(len(config.bots), config.table.size, config.table.smallest)
        per_round = len(sizes)
        console.print(f"tables a round: {', '.join(map(str, sizes))} seats; byes: {byes}")
        console.print(f"{config.name}: swiss, {config.rounds} rounds; each round is paired "
                      f"from the standings after the previous one "
                      f"(about {per_round * config.games_per_pairing} games a round, "
                      f"{(config.rounds or 1) * per_round * config.games_per_pairing} in all)")
        return
    total = 0
    for plan in plans:
        jobs = jobs_of(plan, config.seed)
        total += len(jobs)
        rest = f"  byes: {', '.join(plan.byes)}" if plan.byes else ""
        console.print(f"[bold]round {plan.round}[/]{rest}")
        for job in jobs:
            console.print(f"  table {job.key.table} game {job.key.repeat}: "
                          f"{' | '.join(job.seating)}  (seed {job.seed})")
    console.print(f"{config.name}: {config.format.value}, {len(plans)} rounds, {total} games")


class _LiveView:
    """The live display: progress with ETA, running games, top of the table, faults."""

    def __init__(self) -> None:
        self.bar = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("ETA"), TimeRemainingColumn(), console=console)
        self.task = self.bar.add_task("games", total=None)
        self.runner: Runner | None = None
        self.live: Live | None = None
        self.state = RunProgress()
        self.last_table = 0.0
        self.table: Standings | None = None

    def update(self, state: RunProgress) -> None:
        self.state = state
        self.bar.update(self.task, total=state.total or None, completed=state.done)
        now = time.monotonic()
        if self.runner is not None and now - self.last_table > 0.5:
            self.table = self.runner.live_standings()
            self.last_table = now
        if self.live is not None:
            self.live.update(self.render())

    def render(self) -> Group:
        s = self.state
        running = ", ".join(str(k) for k in s.running.values()) or "-"
        info = (f"running: {running}\nfaults: {s.faults}  timeouts: {s.timeouts}  "
                f"crashes/forfeits: {s.crashes}"
                + (f"  (resumed with {s.resumed} games stored)" if s.resumed else ""))
        parts: list[object] = [self.bar, info]
        if self.table is not None:
            parts.append(render_table(self.table, "live top of the table", LIVE_TOP))
        return Group(*parts)  # type: ignore[arg-type]


def render_table(table: Standings, title: str, limit: int | None = None) -> Table:
    """Return the standings as a rich table."""
    out = Table(title=title, title_justify="left",
                caption="F/T/C: faults / timeouts / crashes and forfeits", caption_justify="left")
    for name, justify in (("#", "right"), ("bot", "left"), ("games", "right"),
                          ("points", "right"), ("Elo ± 95%", "right"), ("win %", "right"),
                          ("mean place", "right"), ("F/T/C", "right")):
        out.add_column(name, justify=justify, no_wrap=name != "bot")  # type: ignore[arg-type]
    for row in table.rows[:limit]:
        if row.fit_elo is not None and row.interval is not None:
            elo = f"{row.fit_elo:.0f} ± {row.interval:.0f}"
        else:
            elo = f"{row.elo:.0f}"
        out.add_row(str(row.rank), row.bot, str(row.games), f"{row.points:g}", elo,
                    f"{row.win_rate:.1%}" if row.win_rate is not None else "-",
                    f"{row.mean_placing:.2f}" if row.mean_placing is not None else "-",
                    f"{row.faults}/{row.timeouts}/{row.crashes}")
    return out


@click.command()
@click.argument("directory", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True, help="Output format.")
def standings(directory: Path, fmt: str) -> None:
    """Print the standings of a finished or running tournament in DIRECTORY."""
    settings, table = standings_from_store(directory)
    if fmt == "json":
        click.echo(json.dumps({"tournament": settings, **table.to_json()}, indent=1))
    elif fmt == "csv":
        click.echo(standings_csv(table), nl=False)
    else:
        console.print(render_table(table, f"{settings.get('name', directory)}: "
                                          f"{table.games} games"))
