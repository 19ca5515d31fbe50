"""`arena check-bot GAME -- CMD ...`: a conformance run for a bot author."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from arena.checkbot import CheckOptions, CheckReport, check_bot
from arena.checkbot.checks import BOT_NAME
from arena.cli.options import (
    check_players,
    checked_rules,
    endpoint,
    move_ms_option,
    rules_option,
    sandbox_option,
    startup_ms_option,
    tcp_option,
)
from arena.cli.ui import console, make_dir
from arena.core.errors import ArenaError
from arena.games import REGISTRY
from arena.referee.referee import GRACE_MS
from arena.referee.sandbox import SandboxMode, SandboxPolicy
from arena.referee.spec import BotSpec, TimeControl
from arena.tournament.config import SEED_LIMIT, bot_problems, with_python

MARKS = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: "[dim]not run[/]"}
WARN_MARK = "[yellow]WARN[/]"


@click.command("check-bot")
@click.argument("game", type=click.Choice(REGISTRY.names()))
@click.argument("cmd", nargs=-1, required=True)
@click.option("--games", "-n", type=click.IntRange(min=1), default=3, show_default=True,
              help="Games to play in the one bot process.")
@click.option("--players", "-p", type=click.IntRange(min=1), default=None,
              help="Seats per game (default: 4 where the game allows).")
@click.option("--seed", type=click.IntRange(0, SEED_LIMIT - 1), default=1, show_default=True,
              help="Seed of the first game.")
@rules_option()
@move_ms_option()
@startup_ms_option()
@click.option("--grace-ms", type=click.IntRange(min=1), default=GRACE_MS, show_default=True,
              help="How long the bot may take to exit after shutdown (a run's referee waits "
                   "as long, then stops it).")
@tcp_option()
@click.option("--cwd", type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="Run the bot in this directory (default: none; sandboxed, the bot then "
                   "starts in its private /tmp, and the files its command names are found "
                   "from the current directory).")
@sandbox_option()
@click.option("--workdir", type=click.Path(path_type=Path, file_okay=False),
              help="Keep the bot's log (all it wrote to stdout and stderr) in "
                   "WORKDIR/logs/candidate.log (default: a temporary directory, removed).")
def check_bot_command(game: str, cmd: tuple[str, ...], games: int, players: int | None,
                      seed: int, rule_pairs: tuple[str, ...], move_ms: int, startup_ms: int,
                      grace_ms: int, tcp: bool, cwd: Path | None, sandbox: str,
                      workdir: Path | None) -> None:
    """Check that the bot started by CMD speaks the protocol well enough to compete.

    Put `--` before the command: `arena check-bot machiavelli -- node bot.js`. A stdio bot
    is given as `stdio:CMD`. Exit status 0 only when every check passes.

    \b
    Before the bot's second request it sends one unsolicited `error` (code `unexpected`) on
    purpose: a bot should log it and answer the request that follows. Each failure is reported
    once, by the check it concerns, with the hint for its cause; checks that an earlier
    failure makes meaningless (the process has ended) are "not run".

    \b
    The check "replays a game identically" plays the first game again (same seed, same
    opponents) and compares the bot's actions. A difference is only a WARNING and leaves the
    exit status alone: a bot whose search stops on the clock may vary. Otherwise seed every
    random choice from game_start.bot_seed (protocol/PROTOCOL.md).
    """
    info = REGISTRY.get(game).info
    if players is not None:  # a usage error (exit 2): it read "invalid rules", exit 1
        check_players(game, players, "--players")
    seats = players or max(info.min_players, min(4, info.max_players))  # as check_bot seats
    rules = checked_rules(game, seats, rule_pairs)  # the same: exit 1 is "a check failed"
    # a missing script is said before any check: sandboxed, it read as a file missing from
    # the bot's private /tmp, with advice to give --cwd
    if missing := bot_problems(BotSpec("bot", with_python(cmd), str(cwd) if cwd else None)):
        raise ArenaError(f"the bot's command: {'; '.join(missing)}")
    if workdir is not None:
        make_dir(workdir / "logs", f"cannot keep the bot's log in {workdir} (--workdir)")
    options = CheckOptions(
        game=game, cmd=with_python(cmd), games=games, players=players, seed=seed,
        rules=rules,
        time=TimeControl(move_ms=move_ms, bank_ms=0, startup_ms=startup_ms),
        endpoint=endpoint(tcp), cwd=str(cwd) if cwd else None, grace_ms=grace_ms,
        sandbox=SandboxPolicy(SandboxMode(sandbox)), workdir=workdir)
    report = check_bot(options)
    _render(report)
    if workdir is not None:
        console.print(f"the bot's log: {workdir / 'logs' / f'{BOT_NAME}.log'}",
                      highlight=False)
    if not report.passed:
        raise SystemExit(1)


def _render(report: CheckReport) -> None:
    table = Table(title="arena check-bot", title_justify="left")
    table.add_column("check")
    table.add_column("result")
    table.add_column("seen")
    for result in report.results:
        mark = WARN_MARK if result.warning else MARKS[result.ok]
        table.add_row(result.check.value, mark, result.detail)
    console.print(table)
    for result in report.results:
        if result.warning:
            console.print(f"[yellow]warning[/] ({result.check.value}): {result.hint}",
                          highlight=False)
        elif result.ok is False:
            console.print(f"[red]hint[/] ({result.check.value}): {result.hint}",
                          highlight=False)
    if not report.passed and report.log_tail:
        console.print("[dim]last lines of the bot's output:[/]")
        console.print(report.log_tail, highlight=False, markup=False)
    elif not report.passed:
        console.print("[dim]the bot wrote nothing on stderr (its log; stdout carries the "
                      "protocol)[/]" if report.stdio else
                      "[dim]the bot printed nothing (stdout and stderr go to its log)[/]")
    count = len(report.warnings)
    warned = f", with {count} warning{'s' if count > 1 else ''}" if count else ""
    console.print(f"[green]all checks passed[/]{warned}" if report.passed else
                  f"[red]some checks failed[/]{warned}")
