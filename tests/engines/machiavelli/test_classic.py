"""The classic edition (`edition: classic`): options, the draft for every player count,
random play under every invariant, hidden information, replay determinism, and
`arena simulate` for every allowed player count. Rules one by one: the `classic_*`
scenarios in tests/scenarios/machiavelli/."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.core.errors import ConfigError
from arena.core.game import Json
from arena.core.rng import derive_seed
from arena.games.machiavelli import GAME
from arena.games.machiavelli.cards import Character
from arena.games.machiavelli.classic import COPIES, DUTCH_DECK

from .helpers import check_all
from .test_conformance import play_checked
from .test_determinism import trace
from .test_hidden_info import check_swaps, reshuffle_hidden

BASE = ["assassin", "thief", "magician", "king", "bishop", "merchant", "architect", "warlord"]
CLASSIC: dict[str, Json] = {"edition": "classic"}
PLAYERS = (2, 3, 4, 5, 6, 7)


def random_rules(rng: random.Random) -> tuple[int, dict[str, Json]]:
    """A player count and a random legal classic option set (Great Wall, Dark City, a
    random purple deck, now and then the English 'shorter game' city of 7)."""
    players = rng.randint(2, 8)
    rules: dict[str, Json] = {"edition": "classic", "great_wall": rng.random() < 0.5}
    if players == 8 or rng.random() < 0.3:
        rules["dark_city"] = True
        cast = list(BASE)
        if rng.random() < 0.5:
            cast[0] = "witch"
        if rng.random() < 0.5:
            cast[5] = "alchemist"
        if rng.random() < 0.5:
            cast[6] = "navigator"
        if players == 8 or (4 <= players <= 7 and rng.random() < 0.5):
            cast.append("artist")
        rules["characters"] = cast
    if rng.random() < 0.5:
        pool = [d for d in COPIES for _ in range(COPIES[d])]
        rules["districts"] = rng.sample(pool, rng.randint(0, len(pool)))
    if rng.random() < 0.2:
        rules["city_size"] = 7
    return players, rules


@pytest.mark.parametrize("players", PLAYERS)
def test_random_classic_play_conforms(players: int) -> None:
    for seed in (1, 2):
        state = play_checked(players, seed, CLASSIC)
        outcome = GAME.outcome(state)
        assert outcome is not None
        assert len(outcome.details["tiebreak"]) == players
        assert all(len(pair) == 2 for pair in outcome.details["tiebreak"])


def test_random_option_sets_play_conform() -> None:
    rng = random.Random(12)
    for seed in range(6):
        players, rules = random_rules(rng)
        assert GAME.outcome(play_checked(players, seed, rules)) is not None


@pytest.mark.parametrize("players", (2, 4, 6))
def test_dark_city_museum_plays_and_hides_its_cards(players: int) -> None:
    rules: dict[str, Json] = {**CLASSIC, "dark_city": True,
                              "districts": ["museum", *DUTCH_DECK]}
    for seed in (1, 2, 3):
        assert "museum" in play_checked(players, seed, rules).rules["districts"]
    assert "turn/museum" in check_swaps(players, 4, random.Random(players), rules)


def test_eight_players_with_the_dark_city_artist() -> None:
    state = play_checked(8, 3, {**CLASSIC, "dark_city": True})
    assert Character.ARTIST in state.cast


@pytest.mark.parametrize("players", (2, 5))
def test_dark_city_alchemist_and_navigator_play(players: int) -> None:
    cast = [*BASE[:5], "alchemist", "navigator", "warlord"]
    for seed in (1, 2):
        state = play_checked(players, seed, {**CLASSIC, "dark_city": True, "characters": cast})
        assert {Character.ALCHEMIST, Character.NAVIGATOR} <= set(state.cast)


@pytest.mark.parametrize("players", (2, 3, 6))
def test_dark_city_witch_plays(players: int) -> None:
    rules = {**CLASSIC, "dark_city": True, "characters": ["witch", *BASE[1:]]}
    for seed in (1, 2):
        state = play_checked(players, seed, rules)
        assert Character.WITCH in state.cast and Character.ASSASSIN not in state.cast
    state, policy, resumed = GAME.new_game(players, rules, 3), random.Random(3), 0
    while (decision := GAME.to_act(state)) is not None:
        action = GAME.random_action(state, decision.seat, policy)
        events = GAME.apply(state, decision.seat, action)
        resumed += sum(1 for e in events if e.kind == "witch_resumed")
    assert resumed > 0


def test_resolution_is_concrete_and_stable() -> None:
    resolved = GAME.resolve_rules(4, CLASSIC)
    assert resolved["city_size"] == 8
    assert resolved["characters"] == BASE
    assert resolved["districts"] == list(DUTCH_DECK)
    assert len(DUTCH_DECK) == 11 and DUTCH_DECK.count("keep") == 2
    assert GAME.resolve_rules(4, resolved) == resolved
    wall = GAME.resolve_rules(3, {**CLASSIC, "great_wall": True})
    assert wall["districts"] == [*DUTCH_DECK, "great_wall"]
    eight = GAME.resolve_rules(8, {**CLASSIC, "dark_city": True})
    assert eight["characters"] == [*BASE, "artist"]


@pytest.mark.parametrize(
    ("players", "rules", "fragments"),
    [
        (8, {}, ["8 players", "dark_city: true"]),
        (1, {}, ["1 players", "2-7"]),
        (4, {"characters": [*BASE, "artist"]}, ["'artist' is not a classic character",
                                                 "dark_city: true adds"]),
        (5, {"characters": [*BASE[:7], "queen"], "dark_city": True},
         ["'queen' is not a classic character", "no character of rank 8"]),
        (3, {"characters": [*BASE, "artist"], "dark_city": True}, ["ranks 1-8 only"]),
        (4, {"characters": [*BASE[:6], "navigator", "warlord"]},
         ["'navigator' is not a classic character"]),
        (4, {"characters": [*BASE[:6], "scholar", "warlord"], "dark_city": True},
         ["'scholar' is not a classic character"]),
        (8, {"characters": BASE, "dark_city": True}, ["8 players need a rank-9"]),
        (4, {"district_preset": "other"}, ["not one of first-game"]),
        (4, {"districts": ["keep", "keep", "keep", "factory", "thieves_den"]},
         ["'keep' is listed more often than the deck has copies (2)",
          "'factory' is not a classic purple district",
          "'thieves_den' is not a classic purple district"]),
        (4, {"city_size": 0}, ["city_size"]),
        (4, {"districts": ["museum", "keep"]},
         ["'museum' is a Dark City district (dark_city: true offers it)"]),
        (4, {"districts": ["museum", "museum"], "dark_city": True},
         ["'museum' is listed more often than the deck has copies (1)"]),
    ],
)
def test_classic_option_errors_are_all_reported(players: int, rules: dict[str, Json],
                                                fragments: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        GAME.resolve_rules(players, {**CLASSIC, **rules})
    text = str(info.value)
    for fragment in fragments:
        assert fragment in text, text


@pytest.mark.parametrize(("players", "faceup", "left"),
                         [(4, 2, 5), (5, 1, 6), (6, 0, 7), (7, 0, 7)])
def test_classic_discards(players: int, faceup: int, left: int) -> None:
    """Seed 001: 4 -> 2, 5 -> 1, 3/6/7 -> 0 face up, one face down; never the King."""
    for seed in range(40):
        state = GAME.new_game(players, CLASSIC, seed)
        assert (len(state.faceup), len(state.facedown), len(state.pool)) == (faceup, 1, left)
        assert Character.KING not in state.faceup


@pytest.mark.parametrize("players", (2, 3))
def test_two_and_three_players_play_two_characters(players: int) -> None:
    state = GAME.new_game(players, CLASSIC, 4)
    while state.phase == "draft":
        decision = GAME.to_act(state)
        assert decision is not None
        GAME.apply(state, decision.seat, GAME.default_action(state, decision.seat))
    assert [len(c) for c in state.chars] == [2] * players
    assert len(state.facedown) == 8 - 2 * players


@pytest.mark.parametrize("players", (2, 4, 7))
def test_same_seed_same_classic_game(players: int) -> None:
    rules = {**CLASSIC, "great_wall": True}
    first = trace(players, 5, rules)
    assert first == trace(players, 5, rules)
    assert first != trace(players, 6, rules)


def check_hidden(players: int, seed: int, rules: dict[str, Json], every: int = 1) -> int:
    """Play a random game checking every invariant after every step and, every `every`
    steps, that a seat's observation ignores all it cannot see. Return the steps played."""
    state = GAME.new_game(players, rules, seed)
    policy = random.Random(derive_seed(seed, "policy"))
    shuffler = random.Random(derive_seed(seed, "shuffle"))
    steps = 0
    while (decision := GAME.to_act(state)) is not None:
        if steps % every == 0:
            seat = shuffler.randrange(players)
            shuffled = reshuffle_hidden(state, seat, shuffler)
            assert GAME.observation(shuffled, seat) == GAME.observation(state, seat)
        before = GAME.clone(state)
        events = GAME.apply(state, decision.seat,
                            GAME.random_action(state, decision.seat, policy))
        check_all(before, state, events)
        steps += 1
    return steps


@pytest.mark.parametrize("players", PLAYERS)
def test_classic_observation_ignores_what_the_seat_cannot_see(players: int) -> None:
    assert check_hidden(players, players, {**CLASSIC, "great_wall": True}) > 50


def test_classic_cards_sent_face_down_are_never_named_to_another_seat() -> None:
    rng = random.Random(1)
    covered: set[str] = set()
    for players, seed in ((2, 1), (3, 2), (4, 3), (5, 4), (7, 5), (4, 6)):
        covered |= check_swaps(players, seed, rng, CLASSIC)
    assert {"keep_card/keep_card", "turn/laboratory", "exchange_cards/done"} <= covered


def test_graveyard_decisions_occur_in_random_play() -> None:
    """Random play reaches the Graveyard's decision (another seat deciding mid-turn)."""
    kinds: set[str] = set()
    for seed in range(300):  # about one game in 30 reaches it
        state = GAME.new_game(3, {**CLASSIC, "districts": ["graveyard"]}, seed)
        policy = random.Random(seed)
        while (decision := GAME.to_act(state)) is not None:
            if decision.kind == "graveyard":
                kinds.add(decision.kind)
                assert decision.seat != state.current_seat
            GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))
        if kinds:
            break
    assert kinds == {"graveyard"}


@pytest.mark.parametrize("players", (*PLAYERS, 8))
def test_arena_simulate_classic(players: int) -> None:
    args = ["simulate", "machiavelli", "-p", str(players), "-n", "3", "--json",
            "-r", "edition=classic"]
    if players == 8:
        args += ["-r", "dark_city=true"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["games"] == 3 and sum(summary["terminations"].values()) == 3


def test_arena_simulate_refuses_eight_classic_players_without_dark_city() -> None:
    result = CliRunner().invoke(main, ["simulate", "machiavelli", "-p", "8", "-n", "1",
                                       "-r", "edition=classic"])
    assert result.exit_code != 0
    assert "classic machiavelli is for 2-7 players" in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_classic_soak_2000_games() -> None:
    """2,000 random classic games with random option sets: every invariant after every
    step, and the hidden-information property of observations every 5th step."""
    rng = random.Random(2000)
    for seed in range(2000):
        players, rules = random_rules(rng)
        check_hidden(players, seed, rules, every=5)


def test_arena_games_names_the_classic_edition_and_the_unverified_dark_city() -> None:
    result = CliRunner().invoke(main, ["games"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "classic" in text and "great_wall" in text and "dark_city" in text
    assert "left out: characters (classic text not verified, or not implemented)" in text
    for name in ("witch", "navigator", "bell_tower", "ball_room"):
        assert name in text


SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots" / "python"
DARK_CAST = ["witch", *BASE[1:5], "alchemist", "navigator", "warlord", "artist"]


@pytest.mark.parametrize("bot", ["random_bot.py", "greedy_bot.py"])
@pytest.mark.parametrize(("players", "rules"), [
    (3, ["-r", "great_wall=true"]),
    (7, ["-r", "dark_city=true", "-r", f"characters={json.dumps(DARK_CAST)}"]),
])
def test_python_sample_bots_pass_check_bot_in_classic_games(bot: str, players: int,
                                                            rules: list[str]) -> None:
    args = ["check-bot", "machiavelli", "--games", "2", "--players", str(players), "--seed", "5",
            "-r", "edition=classic", *rules, "--move-ms", "20000", "--startup-ms", "60000",
            "--grace-ms", "20000",
            "--", sys.executable, str(SAMPLES / bot)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "all checks passed" in result.output, result.output
