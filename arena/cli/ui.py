"""Rich rendering shared by the commands: consoles, logging, tables.

rich is imported only by the `arena.cli` package.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

import click
from rich import box
from rich.console import Console
from rich.logging import RichHandler
from rich.table import Table

from arena.core.errors import ArenaError


class _StdoutConsole(Console):
    """rich's console on stdout, except that a print whose reader has gone raises
    BrokenPipeError, which `unless_stdout_gone` can catch, where rich exits with status 1
    (SystemExit); elsewhere click then exits with status 1 as rich did."""

    def on_broken_pipe(self) -> None:
        self.quiet = True  # as rich: what this console prints from now on goes nowhere
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


console = _StdoutConsole(soft_wrap=not sys.stdout.isatty())
err_console = Console(stderr=True, soft_wrap=not sys.stderr.isatty())
"""Where the output is no terminal (a file, a pipe, a cron log) a line printed is one line:
rich's 80 columns there broke a warning in two, and `grep` or `tail -1` caught half. On a
terminal rich wraps at word boundaries, as before."""


STDERR_HANDLER = "arena-stderr"
PLAIN_FORMAT = "%(asctime)s %(levelname)s %(message)s"
"""A log record on stderr that is no terminal (a pipe, a CI log, a file): one line each,
unwrapped, so that `grep` finds all of a warning (rich wraps at 80 columns there)."""


class _PlainStderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Plain lines on whatever sys.stderr is when a record comes (a test runner swaps it)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def setup_logging(level: str) -> None:
    """Send arena's log records to stderr: through rich on a terminal, else plain lines."""
    logger = logging.getLogger("arena")
    logger.setLevel(level)
    if any(h.get_name() == STDERR_HANDLER for h in logger.handlers):
        return
    handler: logging.Handler
    if err_console.is_terminal:
        handler = RichHandler(console=err_console, show_path=False)
    else:
        handler = _PlainStderr()
        handler.setFormatter(logging.Formatter(PLAIN_FORMAT, "%Y-%m-%d %H:%M:%S"))
    handler.set_name(STDERR_HANDLER)
    logger.addHandler(handler)


@contextlib.contextmanager
def logs_through(target: Console) -> Iterator[None]:
    """Print arena's log records through `target` meanwhile: the console a `Live` view draws
    on. rich writes whatever another console prints straight to the terminal, past the
    view's redirection of stderr, so a warning landed inside the view's lines and the next
    redraw erased it (found by an organiser watching a run)."""
    handlers = [h for h in logging.getLogger("arena").handlers if isinstance(h, RichHandler)]
    before = [h.console for h in handlers]
    for handler in handlers:
        handler.console = target
    try:
        yield
    finally:
        for handler, was in zip(handlers, before, strict=True):
            handler.console = was


Justify = Literal["left", "right"]
WRAPPED = ("bot", "version")
"""Columns that may wrap (folding a long name onto a second line); all others stay whole."""


def fitted_table(title: str, columns: Sequence[tuple[str, Justify]],
                 caption: str | None = None) -> Table:
    """Return a compact table (a rule under the header, no vertical lines) that fits 80
    columns: when it is too wide only the `WRAPPED` columns give way, by wrapping, so no
    name or number is ever cut short."""
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left",
                  box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    for name, justify in columns:
        if name in WRAPPED:
            table.add_column(name, justify=justify, overflow="fold")
        else:
            table.add_column(name, justify=justify, no_wrap=True)
    return table


def progress_echo(line: str) -> None:
    """Print a progress line; once stdout's reader has gone (`| head`, a log reader
    killed), go on without it (`unless_stdout_gone`). The run stopped at the next line
    (a ladder: status 1 and no word, its round unfinished; `arena run`: "cannot write the
    results ...: Broken pipe"): the games matter, not the lines (found by a scheduler's
    audit)."""
    with unless_stdout_gone():
        click.echo(line)


@contextlib.contextmanager
def unless_stdout_gone() -> Iterator[None]:
    """Print what the block prints; when stdout's reader has gone, skip the rest of the
    block's printing and go on, saying so once on stderr. Around each print a command
    does before work still to do: a reader gone after the last progress line made the
    final table's print end `arena run` with status 1, no word and no report (click exits
    so on a broken pipe)."""
    try:
        yield
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # later writes, and the flush at exit, pass
        os.close(devnull)
        click.echo("stdout was closed: the run goes on without printing there", err=True)


def make_dir(path: Path, what: str) -> None:
    """Create a folder (and its parents), or say in one line why it cannot be.

    Raises:
        ArenaError: `what`, and the system's reason.
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocker = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()),
                       None)
        if blocker is not None:  # "File exists" said nothing of which
            raise ArenaError(f"{what}: {blocker} is a file, not a folder") from None
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(path) else ""
        raise ArenaError(f"{what}: {exc.strerror or exc}{where}") from None
