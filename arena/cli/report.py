"""`arena report` (a run's static HTML report, or its tables in Markdown) and `arena view`
(the replay viewer on one replay file)."""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)

from arena.cli.browser import open_graphical
from arena.cli.ladder import print_standings
from arena.cli.ui import console, err_console
from arena.core.words import count_of
from arena.report.data import RunData, load_run
from arena.report.site import Built, build_report, build_viewer
from arena.tournament.outputs import markdown_crosstable, markdown_standings
from arena.tournament.standings import Standings


@click.command(short_help="Write the HTML report of the tournament run in DIRECTORY.")
@click.argument("directory", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--out", "-o", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Where to write the site (default: DIRECTORY/report).")
@click.option("--format", "fmt", type=click.Choice(["html", "md"]), default="html",
              show_default=True,
              help="html: the static site; md: the standings and the crosstable as Markdown "
                   "tables on stdout (for a forum post or a CI summary).")
@click.option("--open", "open_", is_flag=True,
              help="Open the report in a graphical web browser, and print its file:// "
                   "address (or that none could be opened: then open that address "
                   "elsewhere). A text browser (lynx, w3m, links) is never started.")
def report(directory: Path, out: Path | None, fmt: str, open_: bool) -> None:
    """Write a static report of the tournament in DIRECTORY: standings with rating
    intervals, the crosstable, a page per bot, the game list and a replay viewer.

    The site works from file:// with no network (everything it needs is in it); open
    OUT/index.html. Running it again replaces the pages and reuses the viewer data of
    games whose replay has not changed.
    """
    run = load_run(directory)
    if fmt == "md":
        if run.ladder is not None:
            # ranked by rating, as its standings and the HTML report are (run.table, the
            # tournament view of its games, ranks by points: another order)
            print_standings(directory, "md", all_versions=True)
            return
        click.echo(markdown_report(run.name, run.table), nl=False)
        return
    started = time.monotonic()
    built = build_with_progress(run, out or directory / "report")
    report_done(built, time.monotonic() - started)
    if open_:
        open_page(built.index)


def markdown_report(name: str, table: Standings) -> str:
    """Return the standings and the crosstable as Markdown, each under a heading."""
    parts = [f"## {name}: standings ({count_of(table.games, 'game')})\n\n"]
    parts.append(markdown_standings(table))
    parts.append("\n## Crosstable\n\n")
    parts.append(markdown_crosstable(table))
    return "".join(parts)


def build_with_progress(run: RunData, out: Path) -> Built:
    """Build the report, with a progress bar (on a terminal) or about ten plain lines (in a
    pipe or a log) while it makes the views of games that have none yet."""
    progress = _ViewProgress()
    try:
        return build_report(run, out, progress.update)
    finally:
        progress.close()


class _ViewProgress:
    """Shown only once a build has views to make (a report whose games all have their
    views, as at the end of `arena run`, prints nothing but its summary)."""

    def __init__(self) -> None:
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        self.shown = 0

    def update(self, done: int, total: int) -> None:
        if not err_console.is_terminal:
            if done == 1 or done == total or done - self.shown >= max(1, total // 10):
                self.shown = done
                err_console.print(f"report: viewer data {done}/{total} games", highlight=False)
            return
        if self.bar is None:
            self.bar = Progress(TextColumn("report: viewer data"), BarColumn(),
                                MofNCompleteColumn(), TextColumn("games"),
                                TimeRemainingColumn(), console=err_console, transient=True)
            self.bar.start()
            self.task = self.bar.add_task("views", total=total)
        assert self.task is not None
        self.bar.update(self.task, completed=done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def report_done(built: Built, seconds: float) -> None:
    """Print where the report is, and each game it could not make a viewer for."""
    for problem in built.problems:
        err_console.print(f"[yellow]warning: no viewer for {problem}[/]")
    # the path whole on its own line, never folded, however long (it is copied into a
    # browser), the figures below it: together they ran past 80 columns and broke mid-figure
    console.print(f"Report: {built.index}", soft_wrap=True, markup=False, highlight=False)
    console.print(f"  {built.pages} pages; {views_summary(built)}; {seconds:.1f} s")


def views_summary(built: Built) -> str:
    """Where the games' views came from. Views the run's workers made as they played were
    counted as "reused", which read as if the report had found nothing to do from an
    earlier one; each source is named, in games (a view file is one view of one game)."""
    parts = [f"{built.made} made now ({built.views} files)" if built.made else "",
             f"{built.by_workers} made by the workers that played them"
             if built.by_workers else "",
             f"{built.reused} reused from an earlier report" if built.reused else "",
             f"{built.earlier} made by an earlier arena version" if built.earlier else ""]
    shown = [p for p in parts if p]
    return f"game views: {', '.join(shown)}" if shown else "no game views"


def open_page(page: Path, query: str = "") -> None:
    """Open `page` in a graphical web browser and say so with its address, or say that none
    could be opened: on a machine with no browser (a server over ssh) `webbrowser` opens
    nothing and says nothing, and the user is left waiting for a window; where its only
    browsers are text browsers, it started one in this terminal (`arena.cli.browser`).
    The whole file:// address is what they copy into a browser elsewhere (the path
    printed before may be relative)."""
    url = page.resolve().as_uri() + query
    result = open_graphical(url)
    if result.opened:
        said = "Opened in a web browser: "
    elif result.skipped:
        said = (f"No graphical web browser found here (not opened in "
                f"{' or '.join(result.skipped)}, which would take over this terminal); open ")
    else:
        said = "No web browser could be opened here; open "
    console.print(said + url, soft_wrap=True, markup=False, highlight=False)


@click.command(short_help="Write the replay viewer for FILE (a replay .jsonl) and open it.")
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--out", "-o", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Where to write the viewer (default: NAME-view in the current directory, "
                   "NAME being FILE's name without .jsonl; never beside the replay, where "
                   "`arena verify` would take it for a planted file).")
@click.option("--no-open", is_flag=True, help="Only write the viewer; open no browser.")
def view(file: Path, out: Path | None, no_open: bool) -> None:
    """Write a replay viewer for FILE and open it in a web browser.

    Step through the game event by event (buttons, or the arrow keys, space to play and
    pause, PageUp/PageDown a round) in the public view or as one seat saw it. Each view's
    data holds only what that view may know.
    """
    target = out or Path(f"{file.stem}-view")
    page = build_viewer(file, target)
    console.print(f"Viewer: {page}")
    if not no_open:
        open_page(page, "?view=public")
