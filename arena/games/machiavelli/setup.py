"""Machiavelli rule options (resolution and checks) and the initial deal.

Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from collections.abc import Mapping

from arena.core.game import Json, OptionSpec
from arena.core.options import raise_problems, resolve_options
from arena.core.rng import new_rng

from .cards import (
    BASE_CAST,
    CHARACTER_BY_WIRE,
    DEFAULT_RANK9,
    PRESETS,
    Character,
    deck_list,
    district_id,
)
from .state import State

GAME = "machiavelli"
MIN_PLAYERS, MAX_PLAYERS = 2, 8
EDITIONS = ("revised",)  # "classic" slots in here with its own cast, deck and tie-break

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("edition", "revised", "rules edition (R2016/2021 revised rules)", EDITIONS),
    OptionSpec("city_size", None,
               "districts for a complete city; null = 7, or 8 with 2-3 players"),
    OptionSpec("characters", None,
               "list of character ids, one per rank 1-8 (+ optional rank 9: queen, artist, "
               "tax_collector); null = the base 8, plus tax_collector with 3 or 8 players"),
    OptionSpec("districts", None,
               "list of unique district ids in the deck; null = the district_preset"),
    OptionSpec("district_preset", "first-game", "named set of 14 unique districts",
               tuple(PRESETS)),
    OptionSpec("max_rounds", 60, "safety bound (1-1000): the game is scored after this "
               "round"),
)
MAX_ROUNDS_LIMIT = 1000
"""The largest `max_rounds`: a game is a few dozen rounds; more would only run longer."""


def resolve(players: int, rules: Mapping[str, Json]) -> dict[str, Json]:
    """Return the complete, explicit option set for `players` seats.

    `city_size`, `characters` and `districts` are resolved to concrete values, so a record
    never depends on defaults.

    Raises:
        ConfigError: every problem at once, naming the valid values.
    """
    resolved, problems = resolve_options(GAME, OPTIONS, rules)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        problems.append(f"{players} players: machiavelli is for {MIN_PLAYERS}-{MAX_PLAYERS}")
    resolved["city_size"] = _city_size(resolved.get("city_size"), players, problems)
    resolved["characters"] = _characters(resolved.get("characters"), players, problems)
    resolved["districts"] = _districts(resolved.get("districts"),
                                       str(resolved["district_preset"]), problems)
    max_rounds = resolved["max_rounds"]
    if not isinstance(max_rounds, int) or not 1 <= max_rounds <= MAX_ROUNDS_LIMIT:
        problems.append(f"option 'max_rounds': {max_rounds!r} is not an integer from 1 to "
                        f"{MAX_ROUNDS_LIMIT}")
    raise_problems(GAME, problems)
    return resolved


def _city_size(value: Json, players: int, problems: list[str]) -> Json:
    if value is None:
        return 8 if players <= 3 else 7
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        problems.append(f"option 'city_size': {value!r} is not a positive integer (or null)")
    return value


def _characters(value: Json, players: int, problems: list[str]) -> Json:
    if value is None:
        cast = list(BASE_CAST)
        if players in (3, 8):
            cast.append(DEFAULT_RANK9)
        return [c.wire for c in cast]
    valid = ", ".join(CHARACTER_BY_WIRE)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"option 'characters': must be a list of character ids ({valid})")
        return value
    chosen: list[Character] = []
    for name in value:
        if name not in CHARACTER_BY_WIRE:
            problems.append(f"option 'characters': unknown character {name!r}; valid: {valid}")
        else:
            chosen.append(CHARACTER_BY_WIRE[name])
    by_rank: dict[int, list[str]] = {}
    for c in chosen:
        by_rank.setdefault(c.rank, []).append(c.wire)
    for rank, names in sorted(by_rank.items()):
        if len(names) > 1:
            problems.append(f"option 'characters': two characters of rank {rank}: "
                            f"{', '.join(names)} (one per rank)")
    missing = [str(r) for r in range(1, 9) if r not in by_rank]
    if missing:
        problems.append(f"option 'characters': no character of rank {', '.join(missing)} "
                        f"(ranks 1-8 are all needed)")
    if Character.QUEEN in chosen and players < 5:
        problems.append("option 'characters': the queen needs 5 or more players; "
                        "use artist or tax_collector")
    if 9 not in by_rank and players in (3, 8):
        problems.append(f"option 'characters': {players} players need a rank-9 character "
                        "(queen, artist or tax_collector)")
    if 9 in by_rank and players == 2:
        problems.append("option 'characters': 2 players use ranks 1-8 only")
    return [c.wire for c in sorted(chosen)]


def _districts(value: Json, preset: str, problems: list[str]) -> Json:
    if value is None:
        return list(PRESETS.get(preset, ()))
    valid = ", ".join(PRESETS["first-game"])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"option 'districts': must be a list of unique district ids ({valid})")
        return value
    ids: list[str] = []
    for name in value:
        ident = district_id(name)
        if ident is None or ident not in PRESETS["first-game"]:
            problems.append(f"option 'districts': {name!r} is not an implemented unique "
                            f"district; valid: {valid}")
        elif ident in ids:
            problems.append(f"option 'districts': {name!r} is listed twice")
        else:
            ids.append(ident)
    return ids


def new_state(players: int, rules: Mapping[str, Json], seed: int) -> State:
    """Deal a new game: shuffled deck, 4 cards and 2 gold each, a seeded crown.

    The state starts in the transient `round_start` phase; `rules.settle` runs the draft
    setup. Raises ConfigError as `resolve`.
    """
    resolved = resolve(players, rules)
    rng = new_rng(seed)
    deck = deck_list(list(resolved["districts"]))
    rng.shuffle(deck)
    hands = [deck[4 * seat:4 * seat + 4] for seat in range(players)]
    del deck[:4 * players]
    return State(
        players=players, rules=resolved, rng=rng,
        cast=[CHARACTER_BY_WIRE[c] for c in resolved["characters"]],
        crown=rng.randrange(players), gold=[2] * players, hands=hands,
        cities=[[] for _ in range(players)], beautified=[[] for _ in range(players)],
        deck=deck, chars=[[] for _ in range(players)],
    )
