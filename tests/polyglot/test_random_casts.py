"""Every starter bot, and the Python sample bots, play random casts and district sets
legally: `arena check-bot machiavelli -r cast=random -r district_preset=random` passes every
check (no fault: no illegal, malformed or late action) over many seeds at every table size
that the random cast changes (2 players: no rank 9; 3 and 8: rank 9 required; 5+: the
Queen allowed). New characters and districts reach these games as the engine plays them, so
a bot that trips on an id it does not know fails here."""

from __future__ import annotations

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
RUNS = ((2, 11), (3, 23), (4, 31), (5, 37), (6, 43), (8, 51))
"""(players, seed of the first game): three games each (check-bot plays seeds seed,
seed + 1, ...), so eighteen deals per bot; together they bring every character and unique
district the engine plays to the table (a test below)."""
GAMES = 3
RULES = {"cast": "random", "district_preset": "random"}


def check_bot(argv: tuple[str, ...], players: int, seed: int, tcp: bool = False) -> None:
    args = ["check-bot", "machiavelli", "--games", str(GAMES), "--players", str(players),
            "--seed", str(seed), *(f for k, v in RULES.items() for f in ("-r", f"{k}={v}")),
            "--move-ms", "20000", "--startup-ms", "60000", *(["--tcp"] if tcp else []),
            "--", *argv]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, f"{' '.join(args)}\n{result.output}"
    assert "all checks passed" in result.output, result.output


def test_the_deals_bring_every_character_and_district_to_the_table() -> None:
    engine = REGISTRY.get("machiavelli")
    characters: set[cards.Character] = set()
    districts: set[str] = set()
    for players, seed in RUNS:
        for game in range(GAMES):
            state = engine.new_game(players, RULES, seed + game)
            characters.update(state.cast)
            districts.update(state.rules["districts"])
    # the engine's sets of what it plays so far; once it plays everything they may go
    played = getattr(cards, "IMPLEMENTED", frozenset(cards.Character))
    unique = getattr(cards, "IMPLEMENTED_DISTRICTS", frozenset(d.id for d in cards.UNIQUE))
    assert not played - characters, f"add runs: {sorted(c.wire for c in played - characters)}"
    assert not unique - districts, f"add runs: {sorted(unique - districts)}"


@pytest.mark.parametrize(("players", "seed"), RUNS)
@pytest.mark.parametrize("bot", ["random_bot.py", "greedy_bot.py"])
def test_python_bots_play_random_casts_and_districts(bot: str, players: int,
                                                     seed: int) -> None:
    check_bot((sys.executable, str(SAMPLES / bot)), players, seed)


@pytest.mark.toolchain
@pytest.mark.parametrize("lang", list(STARTERS))
def test_starter_plays_random_casts_and_districts(lang: str) -> None:
    starter = built(lang)
    for players, seed in RUNS:
        check_bot(starter.argv, players, seed, starter.tcp)
