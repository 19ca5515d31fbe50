"""Options shared by several commands, defined once so their names and help agree."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import click

from arena.core.errors import ConfigError
from arena.games import REGISTRY
from arena.referee.sandbox import SandboxMode
from arena.referee.spec import LOOPBACK_TCP, BotSpec

F = TypeVar("F", bound=Callable[..., Any])


def parse_rules(pairs: tuple[str, ...]) -> dict[str, Any]:
    """Parse `key=value` pairs; values are read as JSON when they parse, else as strings."""
    rules: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{pair!r} is not key=value", param_hint="--rules")
        try:
            rules[key] = json.loads(raw)
        except json.JSONDecodeError:
            rules[key] = raw
    return rules


def checked_rules(game: str, players: int, pairs: tuple[str, ...]) -> dict[str, Any]:
    """Parse `--rules` pairs and check them against GAME for `players` seats.

    Raises:
        click.BadParameter: every problem, in one line (a usage error: `check-bot` exits 1
            for a bot that fails, and 'invalid rules' with that status read as one).
    """
    rules = parse_rules(pairs)
    try:
        REGISTRY.get(game).resolve_rules(players, rules)
    except ConfigError as exc:
        raise click.BadParameter("; ".join(exc.problems), param_hint="--rules") from None
    return rules


def check_players(game: str, players: int, option: str) -> None:
    """Refuse a number of seats GAME is not played by, as a usage error naming `option`.

    Raises:
        click.BadParameter: `machiavelli is played by 2 to 8 players` (`1 --bot given`).
    """
    info = REGISTRY.get(game).info
    if not info.min_players <= players <= info.max_players:
        given = f"; {players} --bot given" if option == "--bot" else ""
        raise click.BadParameter(f"{game} is played by {info.min_players} to "
                                 f"{info.max_players} players{given}", param_hint=option)


def rules_option(help_text: str = "A rule option (repeatable).") -> Callable[[F], F]:
    """`--rules/-r KEY=VALUE`, repeatable, passed as `rule_pairs`."""
    return click.option("--rules", "-r", "rule_pairs", multiple=True, metavar="KEY=VALUE",
                        help=help_text)


def move_ms_option() -> Callable[[F], F]:
    """`--move-ms`: the per-move time limit."""
    return click.option("--move-ms", type=click.IntRange(min=1), default=1000,
                        show_default=True, help="Per-move time limit.")


def startup_ms_option() -> Callable[[F], F]:
    """`--startup-ms`: the handshake limit."""
    return click.option("--startup-ms", type=click.IntRange(min=1), default=10000,
                        show_default=True, help="Time for a bot to start and say hello.")


def tcp_option() -> Callable[[F], F]:
    """`--tcp`: bind loopback tcp instead of ipc."""
    return click.option("--tcp", is_flag=True,
                        help="Bind tcp on 127.0.0.1 instead of ipc (for JeroMQ bots, which "
                             "cannot reach ipc).")


def endpoint(tcp: bool) -> str | None:
    """Return the referee endpoint for `--tcp` (None: ipc in a private directory)."""
    return LOOPBACK_TCP if tcp else None


def sandbox_option(default: str | None = SandboxMode.AUTO.value) -> Callable[[F], F]:
    """`--sandbox auto|bwrap|none`: how bot processes are isolated (docs/security.md)."""
    where = "the file's `sandbox:`, else auto" if default is None else default
    return click.option("--sandbox", type=click.Choice([m.value for m in SandboxMode]),
                        default=default,
                        help="Isolate each bot: bwrap (bubblewrap, or refuse to run), auto "
                             "(bwrap where this machine allows it, else none, said loudly) "
                             f"or none (trusted bots). Default: {where}. See `arena doctor`.")


def cluster_option() -> Callable[[F], F]:
    """`--cluster ADDRESS`: play the games on a Dask cluster (docs/cluster.md)."""

    def check(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        from arena.tournament.clusterconf import cluster_problem

        if value is not None and (problem := cluster_problem(value)) is not None:
            raise click.BadParameter(problem)
        return value

    return click.option("--cluster", metavar="ADDRESS", default=None, callback=check,
                        help="Play the games as tasks on the Dask cluster whose scheduler is "
                             "at ADDRESS (tcp://HOST:8786, tls://HOST:8786), or on a new "
                             "local one of N worker processes with local:N. Results are "
                             "the same as a local run's. See docs/cluster.md.")


def pin_workers_option(where: str) -> Callable[[F], F]:
    """`--pin-workers`: each local worker, and the bots it starts, on one core of its own
    (`arena.tournament.workers.worker_core`; docs/tournaments.md). `where` names what the
    flag overrides, if anything (the file's key)."""
    return click.option("--pin-workers", is_flag=True,
                        help="Run each worker, and the bots it starts, on one core of its "
                             f"own{where}: less CPU per game and more games/s where workers "
                             "are at most the cores; a bot then has one core for its "
                             "threads. Local workers only: refused with --cluster.")


def check_pinning(pin_workers: bool, cluster: str | None) -> None:
    """Refuse `--pin-workers` where the games go to a Dask cluster: its workers are started
    by `dask worker` (or Dask's local cluster), not by arena, so there is nothing to pin.

    Raises:
        click.UsageError: both are asked for.
    """
    if pin_workers and cluster is not None:
        raise click.UsageError(f"--pin-workers pins the local workers; the games of this run "
                               f"go to the Dask cluster {cluster}, whose worker processes "
                               "Dask starts, not arena: drop one of the two (pin a Dask "
                               "worker with taskset when you start it)")


def cwd_option() -> Callable[[F], F]:
    """`--cwd NAME=DIR`: the directory one bot runs in, as a tournament file's `cwd`."""
    return click.option(
        "--cwd", "cwds", multiple=True, metavar="NAME=DIR",
        help="Run the bot NAME in DIR (repeatable), as a tournament file's `cwd`: the "
             "files its command names are found from there, and sandboxed it may read DIR "
             "(without it, it starts in its private /tmp and opens files relative to its "
             "program).")


def with_cwds(bots: Sequence[BotSpec], pairs: Sequence[str]) -> list[BotSpec]:
    """`bots`, each named in a `--cwd NAME=DIR` given its directory (made absolute, so that
    a resume from elsewhere runs the same bot)."""
    by_name, named = {b.name: b for b in bots}, {}
    for text in pairs:
        name, sep, where = (part.strip() for part in text.partition("="))
        if not sep or not name or not where:
            raise click.BadParameter(f"{text!r} is not NAME=DIR", param_hint="--cwd")
        if name not in by_name:
            raise click.BadParameter(f"{text!r}: no bot is named {name!r} (the bots: "
                                     f"{', '.join(by_name)})", param_hint="--cwd")
        if by_name[name].builtin is not None:
            raise click.BadParameter(f"{text!r}: {name} is a built-in bot, which runs inside "
                                     "the referee, in no directory", param_hint="--cwd")
        path = Path(where).expanduser()
        if not path.is_dir():
            raise click.BadParameter(f"{text!r}: {where} is not a directory",
                                     param_hint="--cwd")
        named[name] = str(path.resolve())
    return [replace(b, cwd=named[b.name]) if b.name in named else b for b in bots]
