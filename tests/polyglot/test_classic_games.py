"""Every starter bot, and the Python sample bots, play the classic edition legally:
`arena check-bot machiavelli -r edition=classic` passes every check (no illegal, malformed or
late action) with the classic draft of 2 and 3 players, the English deck's Great Wall, and
`dark_city: true` with the Dark City cards it offers (the Alchemist, the Navigator whose
classic bonus is compulsory, the Artist as the rank 9 of 8 players, the Museum). The classic
game asks what the revised one never does: a `graveyard` decision of a seat whose turn it is
not, and a turn without `end_turn` until the Navigator has navigated."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.games.machiavelli.classic import DUTCH_DECK
from tests.polyglot.starters import STARTERS
from tests.polyglot.test_starters import built

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "python"
GAMES = 3
DARK_CAST = ["assassin", "thief", "magician", "king", "bishop", "alchemist", "navigator",
             "warlord"]
RUNS: tuple[tuple[int, int, dict[str, object]], ...] = (
    # (players, first seed, rules): each game ends (a city of 8) or reaches max_rounds
    (2, 21, {"edition": "classic"}),
    (3, 31, {"edition": "classic", "great_wall": True}),
    (4, 41, {"edition": "classic", "dark_city": True, "districts": ["museum", *DUTCH_DECK]}),
    (5, 51, {"edition": "classic", "dark_city": True, "characters": DARK_CAST}),
    (8, 81, {"edition": "classic", "dark_city": True}),
)


def check_bot(argv: tuple[str, ...], players: int, seed: int, rules: dict[str, object],
              tcp: bool = False) -> None:
    args = ["check-bot", "machiavelli", "--games", str(GAMES), "--players", str(players),
            "--seed", str(seed),
            *(f for k, v in rules.items() for f in ("-r", f"{k}={json.dumps(v)}")),
            "--move-ms", "20000", "--startup-ms", "60000",
            "--grace-ms", "20000", *(["--tcp"] if tcp else []),
            "--", *argv]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, f"{' '.join(args)}\n{result.output}"
    assert "all checks passed" in result.output, result.output


def test_the_runs_bring_the_classic_decisions_to_the_table() -> None:
    """The deals and a random policy reach the Graveyard, the Museum, the Navigator and the
    Artist (so the bots above meet them too, whatever they choose, in most games)."""
    import random

    from arena.games import REGISTRY

    engine = REGISTRY.get("machiavelli")
    kinds: set[str] = set()
    characters: set[str] = set()
    actions: set[str] = set()
    for players, seed, rules in RUNS:
        for game in range(GAMES):
            state = engine.new_game(players, rules, seed + game)
            characters.update(c.wire for c in state.cast)
            policy = random.Random(game)
            while (decision := engine.to_act(state)) is not None:
                kinds.add(decision.kind)
                action = engine.random_action(state, decision.seat, policy)
                actions.add(action.type.value)
                engine.apply(state, decision.seat, action)
    assert {"graveyard", "discard_character", "exchange_cards"} <= kinds
    assert "museum" in actions
    assert {"alchemist", "navigator", "artist"} <= characters


@pytest.mark.parametrize("bot", ["random_bot.py", "greedy_bot.py"])
def test_python_bots_play_the_classic_edition(bot: str) -> None:
    for players, seed, rules in RUNS:
        check_bot((sys.executable, str(SAMPLES / bot)), players, seed, rules)


@pytest.mark.toolchain
@pytest.mark.parametrize("lang", list(STARTERS))
def test_starter_plays_the_classic_edition(lang: str) -> None:
    starter = built(lang)
    for players, seed, rules in RUNS:
        check_bot(starter.argv, players, seed, rules, starter.tcp)
