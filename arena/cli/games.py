"""`arena games` and `arena simulate`."""

from __future__ import annotations

import json

import click
from rich.table import Table

from arena.cli.options import parse_rules, rules_option
from arena.cli.ui import console
from arena.core.simulate import Summary
from arena.core.simulate import simulate as run_simulation
from arena.core.words import count_of
from arena.games import REGISTRY


@click.command()
def games() -> None:
    """List the registered games, their player counts, rule options and named presets."""
    for info in REGISTRY.infos():
        table = Table(title=f"{info.name}  ({info.title}, id {info.id}, "
                            f"{info.min_players}-{info.max_players} players)",
                      title_justify="left")
        table.add_column("option")
        table.add_column("default")
        table.add_column("valid values")
        table.add_column("meaning")
        for option in info.options:
            choices = ", ".join(map(str, option.choices)) if option.choices else ""
            table.add_row(option.name, json.dumps(option.default), choices, option.doc)
        console.print(table)
        _print_catalog(REGISTRY.get(info.name))


def _print_catalog(engine: object) -> None:
    """Print the named option values a game describes (Machiavelli: editions, casts and
    district presets) through its optional `catalog()` method."""
    catalog = getattr(engine, "catalog", None)
    if catalog is None:
        return
    for title, rows in catalog().items():
        table = Table(title=title, title_justify="left")
        table.add_column("name")
        table.add_column("what it holds")
        for name, text in rows.items():
            table.add_row(name, text)
        console.print(table)


@click.command()
@click.argument("game", type=click.Choice(REGISTRY.names()))
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Seats per game.")
@click.option("--games", "-n", "count", type=click.IntRange(min=1), default=100,
              show_default=True, help="Number of games.")
@click.option("--seed", type=int, default=1, show_default=True, help="Root seed.")
@rules_option("A rule option (repeatable), e.g. -r city_size=8.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def simulate(game: str, players: int, count: int, seed: int, rule_pairs: tuple[str, ...],
             as_json: bool) -> None:
    """Play GAME in-process with the seeded random policy and print statistics.

    The same seed gives the same results (timings aside).
    """
    engine = REGISTRY.get(game)
    rules = parse_rules(rule_pairs)
    engine.resolve_rules(players, rules)  # fail on bad options before playing
    summary = run_simulation(engine, players, count, seed, rules)
    if as_json:
        click.echo(json.dumps(summary.to_json(), indent=2))
    else:
        _render(summary)


def _render(summary: Summary) -> None:
    data = summary.to_json()
    games = count_of(summary.games, "game")
    head = Table(title=f"{summary.game}: {games}, {summary.players} players",
                 title_justify="left", show_header=False)
    head.add_row("games/s", str(data["games_per_second"]))
    head.add_row("decisions/s", str(data["decisions_per_second"]))
    head.add_row("mean rounds", str(data["mean_rounds"]))
    head.add_row("terminations", ", ".join(f"{k}: {v}" for k, v in data["terminations"].items()))
    console.print(head)
    seats = Table(title="win rate by seat", title_justify="left")
    for seat in range(summary.players):
        seats.add_column(f"seat {seat}", justify="right")
    seats.add_row(*(f"{w:.1%}" for w in data["win_rate_by_seat"]))
    console.print(seats)
    scores = Table(title="winning score distribution", title_justify="left")
    scores.add_column("score", justify="right")
    scores.add_column("games", justify="right")
    for score, n in data["winning_scores"].items():
        scores.add_row(score, str(n))
    console.print(scores)

