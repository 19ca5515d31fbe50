"""Every starter bot, and the Python sample bots, play random casts and district sets
legally: `arena check-bot machiavelli -r cast=random -r district_preset=random` passes every
check (no fault: no illegal, malformed or late action) at every table size (2 players: no
rank 9; 3 and 8: rank 9 required; 5+: the Queen allowed), over deals chosen so that together
they bring every character and unique district the engine plays to the table. New
characters and districts reach these games as the engine plays them, so a bot that trips on
an id it does not know fails here."""

from __future__ import annotations

import functools
import itertools
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.games import REGISTRY
from arena.games.machiavelli import cards
from tests.polyglot.starters import STARTERS
from tests.polyglot.test_starters import built

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "python"
GAMES = 3
"""Games per check-bot run: it plays the seeds seed, seed + 1, ..."""
RULES = {"cast": "random", "district_preset": "random"}
TABLES = range(2, 9)
MAX_RUNS = 24

Run = tuple[int, int]
"""(players, seed of the run's first game)."""


def brought(run: Run) -> set[str]:
    """The characters and unique districts the deals of one run bring to the table."""
    players, seed = run
    engine = REGISTRY.get("machiavelli")
    ids: set[str] = set()
    for game in range(GAMES):
        state = engine.new_game(players, RULES, seed + game)
        ids.update(c.wire for c in state.cast)
        ids.update(state.rules["districts"])
    return ids


def wanted() -> set[str]:
    """Every character and unique district the engine plays (all, once it plays all)."""
    played = getattr(cards, "IMPLEMENTED", frozenset(cards.Character))
    unique = getattr(cards, "IMPLEMENTED_DISTRICTS", frozenset(d.id for d in cards.UNIQUE))
    return {c.wire for c in played} | set(unique)


@functools.cache
def runs() -> tuple[Run, ...]:
    """One run per table size, then (in seed order, at the tables where every character
    may appear) each run that brings something not yet seen, until all is seen."""
    chosen = [(players, 10 * players + 1) for players in TABLES]
    missing = wanted() - set().union(*map(brought, chosen))
    candidates = ((players, seed) for seed in itertools.count(100, GAMES)
                  for players in (8, 6, 5))
    while missing and len(chosen) < MAX_RUNS:
        run = next(candidates)
        if brought(run) & missing:
            chosen.append(run)
            missing -= brought(run)
    return tuple(chosen)


def check_bot(argv: tuple[str, ...], run: Run, tcp: bool = False) -> None:
    players, seed = run
    args = ["check-bot", "machiavelli", "--games", str(GAMES), "--players", str(players),
            "--seed", str(seed), *(f for k, v in RULES.items() for f in ("-r", f"{k}={v}")),
            "--move-ms", "20000", "--startup-ms", "60000",
            "--grace-ms", "20000", *(["--tcp"] if tcp else []),
            "--", *argv]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, f"{' '.join(args)}\n{result.output}"
    assert "all checks passed" in result.output, result.output


def test_the_runs_bring_every_character_and_district_to_the_table() -> None:
    seen = set().union(*map(brought, runs()))
    assert not wanted() - seen, f"not met in {MAX_RUNS} runs: {sorted(wanted() - seen)}"


@pytest.mark.parametrize("bot", ["random_bot.py", "greedy_bot.py"])
def test_python_bots_play_random_casts_and_districts(bot: str) -> None:
    for run in runs():
        check_bot((sys.executable, str(SAMPLES / bot)), run)


@pytest.mark.toolchain
@pytest.mark.parametrize("lang", list(STARTERS))
def test_starter_plays_random_casts_and_districts(lang: str) -> None:
    starter = built(lang)
    for run in runs():
        check_bot(starter.argv, run, starter.tcp)
