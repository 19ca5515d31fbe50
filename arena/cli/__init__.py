"""The `arena` command line: thin click commands over the library.

Each command lives in its own module of this package and is added to `main` below.
Errors we raise on purpose (`ArenaError`) exit with status 1 and a clear message;
usage errors exit with status 2 (click's own); Ctrl-C exits with status 130 in every
command (128 + SIGINT, what a shell reports for an interrupted program). SIGTERM (a
scheduler's timeout, systemd stopping a service, `kill`) stops a command as Ctrl-C does:
its default action ended the process on the spot, with no word in the scheduler's log and
no results.json, standings or report for the games already stored.
"""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any

import click

from arena import __version__
from arena.core.errors import ArenaError

INTERRUPTED = 130


class ArenaGroup(click.Group):
    """A group that turns `ArenaError` into a clean error message (exit 1) and Ctrl-C into
    exit 130, and lists each command's whole first sentence (click would cut it at 80
    columns)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ArenaError as exc:
            raise click.ClickException(str(exc)) from exc
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(INTERRUPTED)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
@click.option("--log-level", default="WARNING", show_default=True,
              type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
              help="Logging verbosity (DEBUG shows every message sent and received).")
def main(log_level: str) -> None:
    """arena: run games and tournaments between bots written in any language.

    Bots talk JSON over ZeroMQ to a referee that enforces time limits and keeps
    each seat's hidden information hidden. Games: machiavelli (Citadels) and
    machiavelli-rummy.
    """
    from arena.cli.ui import setup_logging

    setup_logging(log_level.upper())
    if threading.current_thread() is threading.main_thread():  # the only thread that may
        signal.signal(signal.SIGTERM, _stop)


def _stop(signum: int, frame: object) -> None:
    """SIGTERM's handler: the clean stop each command already makes for Ctrl-C."""
    raise KeyboardInterrupt


def _add_commands() -> None:
    from arena.cli.games import games, simulate

    main.add_command(games)
    main.add_command(simulate)

    from arena.cli.run import run, standings

    main.add_command(run)
    main.add_command(standings)

    from arena.cli.verify import verify

    main.add_command(verify)

    from arena.cli.compare import compare

    main.add_command(compare)

    from arena.cli.play import play, replay

    main.add_command(play)
    main.add_command(replay)

    from arena.cli.check_bot import check_bot_command

    main.add_command(check_bot_command)

    from arena.cli.report import report, view

    main.add_command(report)
    main.add_command(view)

    from arena.cli.doctor import doctor

    main.add_command(doctor)

    from arena.cli.ladder import ladder

    main.add_command(ladder)


_add_commands()
logging.getLogger("arena").addHandler(logging.NullHandler())
