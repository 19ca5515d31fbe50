"""`arena compare`: is the candidate better than the base? Duplicate deals and an SPRT.

Exit status is the verdict, so that a script or CI job can branch on it: 0 H1 accepted (the
candidate is better), 1 H0 accepted (it is not), 2 inconclusive (`--max-games` reached).
Anything that prevents a verdict exits 3: an error arena explains in one line and a usage
error alike, so that no error can pass for a verdict (a typo in a bot command must not read
as "the patch is worse"). Ctrl-C exits 130 and `--resume` continues.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from arena.cli.options import (
    check_pinning,
    cluster_option,
    cwd_option,
    move_ms_option,
    parse_rules,
    pin_workers_option,
    rules_option,
    sandbox_option,
    startup_ms_option,
    tcp_option,
    with_cwds,
)
from arena.cli.play import parse_bot
from arena.cli.run import check_out
from arena.cli.ui import console, err_console, progress_echo, unless_stdout_gone
from arena.core.errors import ArenaError
from arena.core.words import count_of
from arena.games import REGISTRY
from arena.referee.sandbox import SandboxMode, SandboxPolicy
from arena.referee.spec import BotSpec, FaultPolicy, TimeControl
from arena.tournament.bundles import content_digest
from arena.tournament.compare import CompareSetup, fill_opponents
from arena.tournament.compare_run import CompareProgress, CompareRun
from arena.tournament.config import MAX_CONCURRENCY, SEED_LIMIT
from arena.tournament.runner import Interrupted, isolation_warning
from arena.tournament.sprt import Hypotheses, Status, Verdict
from arena.tournament.store import COMPARE_NAME

EXIT_CODES = {Verdict.H1: 0, Verdict.H0: 1, Verdict.INCONCLUSIVE: 2}
EXIT_ERROR = 3
"""An error or a usage error: no verdict."""
INTERRUPTED = 130
DEFAULT_MAX_GAMES = 20_000
_SAFE = re.compile(r"[^A-Za-z0-9_.+-]+")


class NoVerdict(click.ClickException):
    """An error that prevented a verdict (one line, exit `EXIT_ERROR`)."""

    exit_code = EXIT_ERROR


class VerdictCommand(click.Command):
    """A command whose exit status is a verdict: errors and usage errors exit `EXIT_ERROR`."""

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            exc.exit_code = EXIT_ERROR  # type: ignore[misc]  # click reads it per instance
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            exc.exit_code = EXIT_ERROR  # type: ignore[misc]
            raise
        except ArenaError as exc:
            raise NoVerdict(str(exc)) from exc


def _bot(text: str, option: str) -> BotSpec:
    try:
        return parse_bot(text)
    except click.BadParameter as exc:
        raise click.BadParameter(exc.message, param_hint=option) from None


def _opponent(text: str) -> BotSpec:
    """`NAME=CMD`, or a bare `builtin:NAME` (named `opp-NAME`)."""
    if "=" not in text and text.startswith("builtin:"):
        return BotSpec(f"opp-{text.removeprefix('builtin:')}", (text,))
    return _bot(text, "--opponents")


@click.command(cls=VerdictCommand,
               short_help="Is the candidate better than the base? Duplicate deals and an "
                          "SPRT (docs/compare.md).")
@click.argument("game", type=click.Choice(REGISTRY.names()))
@click.option("--candidate", required=True, metavar="NAME=CMD",
              help="The new version (`python x.py`, or builtin:random); NAME of ASCII "
                   "letters, digits, _ . + -, as for every bot.")
@click.option("--base", required=True, metavar="NAME=CMD",
              help="The version to beat.")
@click.option("--opponents", "--opponent", "opponents", multiple=True,
              metavar="NAME=CMD",
              help="An opponent for the other seats (repeatable; taken in turn to fill the "
                   "N - 1 seats); a bare builtin:NAME is named opp-NAME. Default with 3+ "
                   "players: builtin:random. With 2 players and none, the candidate plays "
                   "the base.")
@click.option("--players", "-p", type=click.IntRange(2, 8), default=2, show_default=True,
              help="Seats per game.")
@click.option("--elo0", type=float, default=0.0, show_default=True,
              help="H0: the Elo difference of a candidate that is not better.")
@click.option("--elo1", type=float, default=5.0, show_default=True,
              help="H1: the Elo difference of a candidate that is better.")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="The chance of accepting H1 when H0 holds.")
@click.option("--beta", type=float, default=0.05, show_default=True,
              help="The chance of accepting H0 when H1 holds.")
@click.option("--max-games", type=click.IntRange(2, 10_000_000), default=DEFAULT_MAX_GAMES,
              show_default=True, help="Stop here, inconclusive (two games a deal: an odd "
                                      "number is rounded down).")
@click.option("--concurrency", "-j", type=click.IntRange(1, MAX_CONCURRENCY), default=None,
              help="Worker processes (default: one per core).")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Output directory (default: runs/compare-CANDIDATE-vs-BASE).")
@click.option("--resume", is_flag=True, help="Continue an interrupted comparison in --out.")
@click.option("--seed", type=click.IntRange(0, SEED_LIMIT - 1), default=1, show_default=True,
              help="Seed of the deals (with the run's secret salt; docs/tournaments.md).")
@rules_option()
@move_ms_option()
@startup_ms_option()
@click.option("--max-faults", type=click.IntRange(min=1), default=3, show_default=True,
              help="Faults before a seat forfeits.")
@click.option("--report-every", type=click.IntRange(min=2), default=20, show_default=True,
              help="Print a progress line every this many counted games.")
@cwd_option()
@tcp_option()
@sandbox_option()
@cluster_option()
@pin_workers_option("")
def compare(game: str, candidate: str, base: str, opponents: tuple[str, ...], players: int,
            elo0: float, elo1: float, alpha: float, beta: float, max_games: int,
            concurrency: int | None, out: Path | None, resume: bool, seed: int,
            rule_pairs: tuple[str, ...], move_ms: int, startup_ms: int, max_faults: int,
            report_every: int, cwds: tuple[str, ...], tcp: bool, sandbox: str,
            cluster: str | None, pin_workers: bool) -> None:
    """Play duplicate deals of GAME until a sequential test says whether the candidate is
    better than the base (docs/compare.md).

    Each deal is played twice on one seed, with the candidate and then with the base in the
    same seat among the same opponents (with two seats and no opponents: candidate against
    base, both ways round), so that the luck of the deal cancels. Progress lines show the
    games counted, the LLR with its bounds, the Elo difference ± 95% and the LOS. After the
    verdict a warning names each bot that forfeited or faulted in the counted games (a
    forfeit is a loss, a fault a default move played for it), with its log.

    Exit status: 0 H1 accepted (better), 1 H0 accepted (not better), 2 inconclusive
    (--max-games reached), 3 an error or a usage error (no verdict), 130 interrupted
    (--resume continues).
    """
    check_pinning(pin_workers, cluster)
    setup = _setup(game, candidate, base, opponents, players, seed, rule_pairs,
                   (elo0, elo1, alpha, beta), TimeControl(move_ms=move_ms, startup_ms=startup_ms),
                   max_faults, tcp, sandbox, cwds)
    out = out or Path("runs") / _SAFE.sub("_", f"compare-{setup.candidate.name}-vs-"
                                               f"{setup.base.name}")
    check_out(out)
    # its bots' files: an edited bot starts another comparison, not a resumed one
    setup = replace(setup, files=tuple(content_digest(b, skip=[out]) for b in setup.bots))
    if (note := _same_bot(setup)) is not None:
        err_console.print(f"warning: {note}", highlight=False, markup=False)
    if (note := isolation_warning(setup.tournament(out, None))) is not None:
        err_console.print(f"[bold yellow]{note}[/]")
    lines = _ProgressLines(report_every, setup)
    run = CompareRun(setup, out, max_games=max_games, concurrency=concurrency, resume=resume,
                     on_progress=lines.update, cluster=cluster,
                     pin_workers=pin_workers)
    try:
        result = run.run()
    except Interrupted as exc:
        err_console.print(f"[yellow]{exc}[/]\nResume with the same command and --resume "
                          f"--out {out}")
        click.get_current_context().exit(INTERRUPTED)
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise ArenaError(f"cannot write the results in {out}: {exc.strerror or exc}"
                         f"{where}") from None
    with unless_stdout_gone():  # the verdict is the exit status, whatever stdout does
        lines.finish(result.status)
        for line in verdict_lines(setup, result.verdict, result.status):
            click.echo(line)
    for lost in result.forfeits:  # the verdict is not on its play alone
        cost = "each counts as a loss" if lost.total else \
            "the referee played a default action for each"
        err_console.print(f"warning: {lost.bot} {lost.words()}: {cost}, so the verdict is not "
                          f"on its play alone; {run.log_words(lost.bot)}",
                          highlight=False, markup=False)
    with unless_stdout_gone():
        console.print(f"Results in {out}/ ({COMPARE_NAME}, results.sqlite, results.json, "
                      "replays/)", highlight=False)
    click.get_current_context().exit(EXIT_CODES[result.verdict])


def _setup(game: str, candidate: str, base: str, opponents: tuple[str, ...], players: int,
           seed: int, rule_pairs: tuple[str, ...], sprt: tuple[float, float, float, float],
           time: TimeControl, max_faults: int, tcp: bool, sandbox: str,
           cwds: tuple[str, ...]) -> CompareSetup:
    engine = REGISTRY.get(game)
    if not engine.info.min_players <= players <= engine.info.max_players:
        raise click.BadParameter(f"{game} is played by {engine.info.min_players} to "
                                 f"{engine.info.max_players} players", param_hint="--players")
    rules = parse_rules(rule_pairs)
    engine.resolve_rules(players, rules)  # an unknown or bad option: one line, before games
    try:
        hypotheses = Hypotheses(*sprt)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--elo0/--elo1/--alpha/--beta") from None
    given = [_opponent(o) for o in opponents]
    if players > 2 and not given:
        given = [_opponent("builtin:random")]
    cand, bas, *given = with_cwds([_bot(candidate, "--candidate"), _bot(base, "--base"),
                                   *given], cwds)
    try:
        others = fill_opponents(given, players - 1) if given else ()
        return CompareSetup(game, players, cand, bas, others, rules, seed, hypotheses, time,
                            FaultPolicy(max_faults), "tcp" if tcp else "ipc",
                            SandboxPolicy(SandboxMode(sandbox)))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--candidate/--base/--opponents") \
            from None


class _ProgressLines:
    """A line every `every` counted games (and one when a run resumes)."""

    def __init__(self, every: int, setup: CompareSetup) -> None:
        self.every, self.setup = every, setup
        self.shown = -1

    def update(self, progress: CompareProgress) -> None:
        if self.shown < 0:
            self.shown = progress.games
            stored = f", {count_of(progress.resumed, 'game')} already stored" \
                if progress.resumed else ""
            progress_echo(f"{self.setup.name}: {self.setup.game}, {self.setup.players} "
                          f"players, {self.setup.pairing.value} deals, at most "
                          f"{progress.max_games} games{stored}")
            if progress.resumed:  # where it stands, not only at the next N games played
                progress_echo(progress_line(progress.status, self.setup.hypotheses))
        if progress.games - self.shown >= self.every:
            self.shown = progress.games
            progress_echo(progress_line(progress.status, self.setup.hypotheses))

    def finish(self, status: Status) -> None:
        """Print the last line, unless it is already shown."""
        if 2 * status.deals != self.shown:
            progress_echo(progress_line(status, self.setup.hypotheses))


def progress_line(status: Status, hypotheses: Hypotheses) -> str:
    """Return one line: games counted, LLR with its bounds, Elo ± 95%, LOS."""
    elo = "Elo not yet estimated" if math.isinf(status.elo_95) else \
        f"Elo {_shown(status.elo, 1):+.1f} ± {status.elo_95:.1f}"  # one deal: no interval
    return (f"games {2 * status.deals:>6} | LLR {_shown(status.llr, 2):6.2f} "
            f"({status.lower:.2f}, {status.upper:.2f}) [{hypotheses.elo0:g}, "
            f"{hypotheses.elo1:g}] | {elo} | LOS {100 * status.los:5.1f}%")


def _shown(value: float, digits: int) -> float:
    """`value` as it is shown to `digits` places, a zero without its sign: a tiny negative
    printed as "Elo -0.0" and "LLR -0.00"."""
    return round(value, digits) + 0.0


def verdict_lines(setup: CompareSetup, verdict: Verdict, status: Status) -> list[str]:
    """Return the verdict in words, and what the duplicate deals saved."""
    lines = [f"verdict: {setup.verdict_words(verdict, status.deals)}"]
    if status.variance_reduction is not None:
        lines.append(f"duplicate deals: a fresh deal for every game would have needed about "
                     f"{status.variance_reduction:.1f} times as many games for the same "
                     "precision")
    return lines


def _same_bot(setup: CompareSetup) -> str | None:
    """A warning when the candidate is the base: one command in one directory with one
    environment, on the same files (a new version's path forgotten); the comparison can
    only be inconclusive or find it no better, after hundreds of games. Not an error: an
    A/A run is how one measures what a comparison's noise looks like."""
    cand, base = setup.candidate, setup.base
    if (cand.cmd, cand.cwd, dict(cand.env)) != (base.cmd, base.cwd, dict(base.env)):
        return None
    if setup.files and setup.files[0] != setup.files[1]:
        return None
    return (f"the candidate ({cand.name}) and the base ({base.name}) are the same bot: one "
            f"command ({' '.join(cand.cmd)}) on the same files; the comparison can only find "
            "no difference")
