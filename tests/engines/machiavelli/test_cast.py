"""Options `cast` and `district_preset`: the rulebook's presets fitted to the player count,
and `random` (a legal selection drawn from the game's seed)."""

from __future__ import annotations

import random

import pytest

from arena.core.errors import ConfigError
from arena.core.game import Json
from arena.games.machiavelli import GAME
from arena.games.machiavelli.cards import (
    CAST_PRESETS,
    CHARACTER_BY_WIRE,
    IMPLEMENTED,
    IMPLEMENTED_DISTRICTS,
    PRESETS,
    Character,
)
from arena.games.machiavelli.setup import allowed, preset_cast


def ranks(names: list[str]) -> list[int]:
    return [CHARACTER_BY_WIRE[n].rank for n in names]


@pytest.mark.parametrize("players", range(2, 9))
def test_first_game_cast_is_the_base_eight_plus_a_required_rank9(players: int) -> None:
    cast = GAME.resolve_rules(players, {"cast": "first-game"})["characters"]
    expected = ["assassin", "thief", "magician", "king", "bishop", "merchant", "architect",
                "warlord"]
    assert cast == expected + (["tax_collector"] if players in (3, 8) else [])


@pytest.mark.parametrize("name", sorted(CAST_PRESETS))
@pytest.mark.parametrize("players", range(2, 9))
def test_presets_fit_every_player_count(name: str, players: int) -> None:
    cast = preset_cast(name, players)
    assert [c.rank for c in cast] == list(range(1, 10 if players in (3, 8) else 9))
    if players == 2:
        assert Character.EMPEROR not in cast
    if players < 5:
        assert Character.QUEEN not in cast
    preset = CAST_PRESETS[name]
    for character in cast:  # only the two substitutions of the rulebook's notes
        assert character in preset or (character, preset[character.rank - 1]) in (
            (Character.KING, Character.EMPEROR), (Character.TAX_COLLECTOR, Character.QUEEN))


def test_named_district_presets_are_the_rulebooks() -> None:
    assert set(PRESETS) == set(CAST_PRESETS)
    assert PRESETS["vicious-nobles"][:3] == ("armory", "basilica", "dragon_gate")
    assert all(len(set(ids)) == 14 for ids in PRESETS.values())


def test_every_cast_preset_is_playable_now_that_every_character_is() -> None:
    # the Magistrate and the Blackmailer were the last (issue 12): no preset is held back
    assert IMPLEMENTED == frozenset(Character)
    for name, cast in CAST_PRESETS.items():
        resolved = GAME.resolve_rules(8, {"cast": name})  # with its rank 9
        assert resolved["characters"] == [c.wire for c in sorted(cast)]


@pytest.mark.parametrize("players", range(2, 9))
def test_random_cast_and_districts_are_legal_and_seeded(players: int) -> None:
    rules = {"cast": "random", "district_preset": "random"}
    resolved = GAME.resolve_rules(players, rules)
    assert resolved["characters"] is None and resolved["districts"] is None
    casts = set()
    for seed in range(30):
        state = GAME.new_game(players, rules, seed)
        names = state.rules["characters"]
        assert isinstance(names, list) and isinstance(state.rules["districts"], list)
        # the drawn lists pass the same checks as a list given by hand, and resolve to themselves
        assert GAME.resolve_rules(players, state.rules) == state.rules
        assert set(state.rules["districts"]) <= IMPLEMENTED_DISTRICTS
        assert len(state.rules["districts"]) == 14
        assert 9 in ranks(names) if players in (3, 8) else True
        assert 9 not in ranks(names) if players == 2 else True
        assert GAME.new_game(players, rules, seed).rules == state.rules
        casts.add(tuple(names))
    possible = 1  # casts the implemented characters allow (rank 9 counted when required)
    for rank in range(1, 9 if players not in (3, 8) else 10):
        possible *= sum(1 for c in IMPLEMENTED if c.rank == rank and allowed(c, players))
    assert len(casts) >= min(possible, 5)


def test_random_cast_leaves_the_deal_of_the_seed_alone() -> None:
    plain, drawn = GAME.new_game(4, {}, 9), GAME.new_game(4, {"cast": "random"}, 9)
    assert plain.crown == drawn.crown and plain.hands == drawn.hands


def test_an_explicit_list_wins_over_the_preset() -> None:
    resolved = GAME.resolve_rules(4, {"cast": "random", "districts": ["keep"]})
    assert resolved["districts"] == ["keep"]
    with pytest.raises(ConfigError, match="not one of"):
        GAME.resolve_rules(4, {"cast": "everyone"})


@pytest.mark.parametrize("players", range(2, 9))
def test_simulate_plays_random_casts_for_every_player_count(players: int) -> None:
    import json

    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, ["simulate", "machiavelli", "-p", str(players), "-n", "3",
                                       "-r", "cast=random", "-r", "district_preset=random",
                                       "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["games"] == 3 and sum(summary["terminations"].values()) == 3


def test_arena_games_lists_editions_casts_and_presets() -> None:
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, ["games"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    for name in ("machiavelli editions", "revised", *CAST_PRESETS, "random",
                 "tenacious-delegates", "cardinal"):
        assert name in result.output, name


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_named_district_preset_is_playable(name: str) -> None:
    # the Museum and the Theater completed the rulebook's presets (issue 12)
    assert GAME.resolve_rules(4, {"district_preset": name})["districts"] == list(PRESETS[name])
    listed = GAME.catalog()["machiavelli district presets (option district_preset)"][name]
    assert "*" not in listed and listed.split(", ") == list(PRESETS[name])
    play_to_end(4, {"district_preset": name}, 7)


@pytest.mark.parametrize("players", (2, 3, 5, 8))
def test_the_witchs_preset_plays(players: int) -> None:
    """Illustrious Emissaries (Witch, Spy, Seer, Emperor, ...) became playable with the
    Witch: it is offered, resolves for every table and plays to the end."""
    rules = {"cast": "illustrious-emissaries"}
    cast = GAME.resolve_rules(players, rules)["characters"]
    assert isinstance(cast, list) and cast[0] == "witch"
    play_to_end(players, rules, players)


def play_to_end(players: int, rules: dict[str, Json], seed: int) -> None:
    """Play a random game of `rules` to its end."""
    state, policy = GAME.new_game(players, rules, seed), random.Random(seed)
    while (decision := GAME.to_act(state)) is not None:
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))
    assert GAME.outcome(state) is not None
