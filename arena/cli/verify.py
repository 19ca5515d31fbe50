"""`arena verify`: re-simulate a run's replays and check them against its stored results."""

from __future__ import annotations

from pathlib import Path

import click

from arena.core.errors import ArenaError
from arena.games import REGISTRY
from arena.ladder.store import ADVICE as LADDER_ADVICE
from arena.report.ladder import is_ladder
from arena.tournament.store import RUN_ADVICE
from arena.tournament.verify import verify_run


@click.command()
@click.argument("directory", type=click.Path(path_type=Path, exists=True, file_okay=False))
def verify(directory: Path) -> None:
    """Check every game of the tournament run in DIRECTORY.

    Each replay is re-simulated with the engine and checked against its digest and the
    stored game (seed, seats and bots, placings, scores, termination, decisions); the
    standings are recomputed from the verified games and compared with results.json and
    standings.csv; replay files that no stored game references are reported. Prints one
    line per mismatch and exits with status 1 if there is any, else prints a summary.
    """
    report = verify_run(directory, REGISTRY,
                        LADDER_ADVICE if is_ladder(directory) else RUN_ADVICE)
    for line in report.mismatches:
        click.echo(line)
    for note in report.notes:
        click.echo(f"note: {note}", err=True)
    if not report.ok:
        raise ArenaError(report.summary(directory))
    click.echo(report.summary(directory))
