"""`arena play` (one game between bots) and `arena replay` (a recorded game, per seat)."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from arena.cli.options import (
    check_players,
    checked_rules,
    cwd_option,
    endpoint,
    move_ms_option,
    rules_option,
    sandbox_option,
    startup_ms_option,
    tcp_option,
    with_cwds,
)
from arena.cli.ui import console, err_console, fitted_table, make_dir
from arena.core.errors import ArenaError
from arena.core.record import ForfeitReason, GameRecord
from arena.core.words import count_of
from arena.games import REGISTRY
from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from arena.referee.replay import Step, read_replay
from arena.referee.review import check_replay, engine_for, seat_view
from arena.referee.roster import log_tail, printable
from arena.referee.sandbox import SandboxMode, SandboxPolicy
from arena.referee.spec import BOT_NAME, BOT_NAME_RULE
from arena.tournament.config import SEED_LIMIT, bot_problems, with_python


def parse_bot(text: str) -> BotSpec:
    """Parse `NAME=CMD`; a leading `python`, and `{python}` anywhere (as in a tournament
    file), mean the Python running arena.

    Raises:
        click.BadParameter: not NAME=CMD, a name that cannot name a file, or a command that
            does not split into words.
    """
    name, sep, command = text.partition("=")
    if not sep or not name.strip() or not command.strip():
        raise click.BadParameter(f"{text!r} is not NAME=CMD", param_hint="--bot")
    if not BOT_NAME.match(name.strip()):
        raise click.BadParameter(f"bot name {name.strip()!r} must be {BOT_NAME_RULE} (it "
                                 "names the bot's log file)", param_hint="--bot")
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise click.BadParameter(f"{text!r}: {exc}", param_hint="--bot") from None
    return BotSpec(name.strip(), with_python(argv))


def _seats_line(header: Mapping[str, Any]) -> str:
    """`machiavelli@1, seed 7: seat 0 alice, seat 1 bob`: who sat where, before the steps."""
    bots = header.get("bots")
    seats = ", ".join(f"seat {b.get('seat')} {printable(str(b.get('name')))}"
                      + (f"@{printable(str(b['version']))}" if b.get("version") else "")
                      for b in bots if isinstance(b, dict)) if isinstance(bots, list) else ""
    return f"{header.get('game')}, seed {header.get('seed')}: {seats or 'seats unknown'}"


def _show_step(step: Step) -> None:
    line = f"[dim]{step.n:4d}[/] seat {step.seat} {step.kind}: {json.dumps(step.action)}"
    if step.source != "bot" and step.source != "builtin":
        line += f" [yellow]({step.source})[/]"
    if step.fault is not None:
        line += f" [red]fault {step.fault.kind.value}: {step.fault.detail}[/]"
    console.print(line, highlight=False)
    for event in step.events:
        if event.visible_to is None:
            console.print(f"       {json.dumps(event.to_wire())}", highlight=False, style="dim")


def _render(record: GameRecord) -> None:
    table = fitted_table(f"{record.game}  seed {record.seed}  {record.termination.value}  "
                         f"{record.decisions} decisions",
                         [("seat", "right"), ("bot", "left"), ("version", "left"),
                          ("place", "right"), ("score", "right"), ("F/T", "right"),
                          ("forfeit", "left"), ("ms", "right")],
                         caption="F/T: faults / timeouts; ms: time used")
    for s in sorted(record.seats, key=lambda s: (s.placing, s.seat)):
        table.add_row(str(s.seat), s.bot, s.version, str(s.placing), str(s.score),
                      f"{s.faults}/{s.timeouts}", s.forfeit.value if s.forfeit else "",
                      f"{s.time_ms:.1f}")
    console.print(table)
    for fault in record.faults:
        console.print(f"fault: seat {fault.seat} at decision {fault.decision}: "
                      f"{fault.kind.value}: {fault.detail}", highlight=False)


@click.command(short_help="Play one game between bots and print the placings.")
@click.argument("game", type=click.Choice(REGISTRY.names()))
@click.option("--bot", "-b", "bots", multiple=True, required=True, metavar="NAME=CMD",
              help="A bot per seat, in seat order: NAME (ASCII letters, digits, _ . + -) "
                   "and a command (`python x.py`; `{python}` is "
                   "this Python), `stdio:CMD` for a bot speaking JSON lines on stdin/stdout "
                   "(PROTOCOL.md §12), or builtin:random.")
@click.option("--seed", type=click.IntRange(0, SEED_LIMIT - 1), default=1, show_default=True,
              help="Game seed (0 to 2**63 - 1).")
@rules_option()
@move_ms_option()
@click.option("--bank-ms", type=click.IntRange(min=0), default=0, show_default=True,
              help="Time bank per game (time over the move limit comes from it).")
@startup_ms_option()
@click.option("--max-faults", type=click.IntRange(min=1), default=3, show_default=True,
              help="Faults before a seat forfeits.")
@click.option("--replay", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the replay (JSONL) here.")
@click.option("--workdir", type=click.Path(path_type=Path, file_okay=False),
              help="Keep bot logs in WORKDIR/logs (default: a temporary directory).")
@cwd_option()
@tcp_option()
@sandbox_option()
@click.option("-v", "--verbose", is_flag=True, help="Show every decision and public event.")
def play(game: str, bots: tuple[str, ...], seed: int, rule_pairs: tuple[str, ...],
         move_ms: int, bank_ms: int, startup_ms: int, max_faults: int, replay: Path | None,
         workdir: Path | None, cwds: tuple[str, ...], tcp: bool, sandbox: str,
         verbose: bool) -> None:
    """Play one game of GAME between bots, one --bot per seat, and print the placings.

    Exit status: 0 when every bot played its game to the end, 3 when a bot could not
    start, crashed, hit a limit or forfeited (the game was still played and recorded),
    1 for an error, 2 for a usage error, 130 when interrupted.
    """
    # usage errors (exit 2), not "invalid rules" (exit 1): a count of --bot, a bad --rules
    specs = with_cwds([parse_bot(text) for text in bots], cwds)
    check_players(game, len(specs), "--bot")
    rules = checked_rules(game, len(specs), rule_pairs)
    # before the game, as `arena run` does: sandboxed, a missing script was reported as a
    # file missing from the bot's private /tmp, with advice about its working directory
    if missing := [f"bot {s.name!r}: {p}" for s in specs for p in bot_problems(s)]:
        raise ArenaError("; ".join(missing))
    time = TimeControl(move_ms=move_ms, bank_ms=bank_ms, startup_ms=startup_ms)
    if replay is not None:  # before the game, not after it
        make_dir(replay.parent, f"cannot write the replay {replay}")
    with tempfile.TemporaryDirectory(prefix="arena-play-") as scratch:
        run_dir = workdir or Path(scratch)
        # the bots' logs: a folder that cannot be made read as the bot's command not found
        make_dir(run_dir / "logs", f"cannot keep the bots' logs in {run_dir} (--workdir)")
        # written in the run directory, which no bot sees, and moved when the game is over:
        # hiding the replay's own folder refused every bot run from the folder it is in
        written = run_dir / "replays" / replay.name if replay else None
        try:
            with Referee(specs, time, FaultPolicy(max_faults), run_dir,
                         endpoint=endpoint(tcp),
                         sandbox=SandboxPolicy(SandboxMode(sandbox))) as referee:
                # a label names the game in each bot's log and its game_start (PROTOCOL.md)
                record = referee.play(game, rules, seed, [s.name for s in specs], written,
                                      on_step=_show_step if verbose else None,
                                      label=replay.stem if replay else f"play-seed-{seed}")
        finally:
            if replay is not None and written is not None and written.exists():
                _move(written, replay)
        _render(record)
        if replay is not None:
            console.print(f"replay: {replay}", highlight=False)
        # here, while a temporary folder still holds the logs: the bots are stopped
        troubled = _report_trouble(record, run_dir / "logs", kept=workdir is not None)
    if troubled:
        sys.exit(3)


def _move(written: Path, replay: Path) -> None:
    """Move the finished replay where it was asked for, or say in one line why not.

    Raises:
        ArenaError: the replay cannot be written there, and why.
    """
    try:
        shutil.move(written, replay)
    except OSError as exc:
        raise ArenaError(f"cannot write the replay {replay}: {exc.strerror or exc}") from None


GONE = (ForfeitReason.CRASHED, ForfeitReason.LIMIT)
"""Forfeits whose cause the bot's own output tells (its traceback, a MemoryError)."""


def _report_trouble(record: GameRecord, logs: Path, kept: bool) -> bool:
    """Print each forfeit with its reason (a bot that died in the game: the end of its log,
    which a temporary folder would take with it, and where it is kept), and each alarm;
    return whether there was any."""
    names = {str(s.seat): s.bot for s in record.seats}
    forfeits = record.details.get("forfeits") or {}
    alarms = record.details.get("alarms") or []
    gone = {str(s.seat) for s in record.seats if s.forfeit in GONE}
    for seat, why in sorted(forfeits.items()):
        name = names.get(seat, seat)
        err_console.print(f"[yellow]{name} (seat {seat}) forfeited: {why}[/]",
                          highlight=False)
        if seat in gone:
            log = logs / f"{name}.log"
            where = f"its log: {log}" if kept else "--workdir DIR keeps its log"
            said = log_tail(log)
            err_console.print(f"  the end of its output ({where}):{said}" if said else
                              f"  it printed nothing ({where})", highlight=False, markup=False)
    for alarm in alarms:
        err_console.print(f"[bold red]ALARM against {alarm['bot']}: {alarm['kind']}: "
                          f"{alarm['detail']}[/]", highlight=False)
    return bool(forfeits or alarms)


@click.command(short_help="Show a recorded game, as one seat saw it, or check it.")
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--seat", type=int, default=None, help="Show the game as this seat saw it.")
@click.option("--check", is_flag=True, help="Re-simulate with the engine and report mismatches.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per decision.")
def replay(file: Path, seat: int | None, check: bool, as_json: bool) -> None:
    """Show a recorded game as the referee (or one seat) saw it, or check it."""
    recorded = read_replay(file)
    game = engine_for(recorded, REGISTRY)
    players = int(recorded.header["players"])
    if seat is not None and not 0 <= seat < players:
        raise click.BadParameter(f"{seat} is not a seat of this {players}-player game",
                                 param_hint="--seat")
    if check:
        problems = check_replay(recorded, REGISTRY)
        if problems:
            raise ArenaError(f"{file}: {count_of(len(problems), 'mismatch')}:\n"
                             + "\n".join(problems))
        console.print(f"{file}: {len(recorded.steps)} decisions re-simulated, no mismatch",
                      highlight=False)
        return
    if not as_json:
        console.print(_seats_line(recorded.header), highlight=False, markup=False)
    for view in seat_view(recorded, game, seat):
        if as_json:
            click.echo(json.dumps(view))
            continue
        action = f" -> {json.dumps(view['action'])}" if "action" in view else ""
        console.print(f"{view['n']:4d} seat {view['seat']} {view['kind']}{action}",
                      highlight=False)
        for event in view["events"]:
            console.print(f"       {json.dumps(event)}", highlight=False, style="dim")
    if recorded.outcome is not None and not as_json:
        console.print(f"outcome: {recorded.outcome['termination']}, placings "
                      f"{recorded.outcome['placings']}, scores {recorded.outcome['scores']}",
                      highlight=False)
