"""Machiavelli rule options (resolution and checks) and the initial deal.

Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Hashable, Mapping

from arena.core.game import Json, OptionSpec
from arena.core.options import raise_problems, resolve_options
from arena.core.rng import derive_seed, new_rng, shuffle

from .cards import (
    CAST_PRESETS,
    CHARACTER_BY_WIRE,
    CLASSIC_ONLY,
    DEFAULT_RANK9,
    IMPLEMENTED,
    IMPLEMENTED_DISTRICTS,
    PRESET_SIZE,
    PRESETS,
    TYPE,
    Character,
    DistrictType,
    deck_list,
    district_id,
)
from .classic import CLASSIC_TEXT, classic_options, dark_city_catalog, resolve_classic
from .editions import EDITIONS
from .state import State

GAME = "machiavelli"
MIN_PLAYERS, MAX_PLAYERS = 2, 8
RANDOM = "random"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("edition", "revised", "rules edition: revised (2016/2021 rules) or classic "
               "(Dutch 2000 / English 2002 rules: 8 characters, city of 8, 2-7 players)",
               tuple(EDITIONS)),
    OptionSpec("city_size", None,
               "districts for a complete city; null = 7, or 8 with 2-3 players"),
    OptionSpec("cast", "first-game",
               "named cast (one character per rank; its rank 9 only where 3 or 8 players "
               "need one; Emperor -> King with 2 players, Queen -> Tax Collector below 5), "
               "or random (drawn from the game's seed)", (*CAST_PRESETS, RANDOM)),
    OptionSpec("characters", None,
               "list of character ids, one per rank 1-8 (+ optional rank 9); "
               "null = the cast"),
    OptionSpec("districts", None,
               "list of unique district ids in the deck; null = the district_preset"),
    OptionSpec("district_preset", "first-game",
               "named set of 14 unique districts, or random (14 drawn from the game's seed)",
               (*PRESETS, RANDOM)),
    OptionSpec("max_rounds", 60, "safety bound (1-1000): the game is scored after this "
               "round"),
    *classic_options(),
)
MAX_ROUNDS_LIMIT = 1000
"""The largest `max_rounds`: a game is a few dozen rounds; more would only run longer."""


def resolve(players: int, rules: Mapping[str, Json]) -> dict[str, Json]:
    """Return the complete, explicit option set for `players` seats.

    `city_size`, `characters` and `districts` are resolved to concrete values, so a record
    never depends on defaults; under `cast: random` / `district_preset: random` the list
    stays null here and `new_state` draws it from the game's seed.

    Raises:
        ConfigError: every problem at once, naming the valid values.
    """
    key = (players, _frozen(rules))
    try:
        kept = _RESOLVED.get(key)
    except TypeError:  # a value that is not JSON (reported by `_resolve`, or kept out)
        return _resolve(players, rules)
    if kept is None:
        # a copy: the result may hold the caller's own lists, which the caller may change
        kept = _copied(_resolve(players, rules))
        if len(_RESOLVED) < _RESOLVED_MAX:
            _RESOLVED[key] = kept
    # and a copy for each caller, whose state's `rules` are its own
    return _copied(kept)


_RESOLVED: dict[tuple[int, Hashable], dict[str, Json]] = {}
"""Resolved option sets by player count and frozen rules: a tournament plays the same rules
game after game, and resolving them again (the cast's checks above all) took ~1% of a
4-player game's engine time. Rules that raise are not kept."""
_RESOLVED_MAX = 256
"""Enough for any tournament's rule sets; past it, rules are resolved without being kept."""


def _frozen(value: object) -> Hashable:
    """Return a hashable form of JSON-ready `value` that tells apart values that compare
    equal but resolve differently (True, 1 and 1.0; a list and a tuple)."""
    if isinstance(value, Mapping):
        return ("map", tuple(sorted((str(k), _frozen(v)) for k, v in value.items())))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_frozen(v) for v in value))
    return (type(value).__name__, value)


def _copied(resolved: dict[str, Json]) -> dict[str, Json]:
    return {name: _copy_json(value) if isinstance(value, _CONTAINERS) else value
            for name, value in resolved.items()}


_CONTAINERS = (list, dict)


def _copy_json(value: Json) -> Json:
    # the test before each call: the lists are mostly of strings (a call for each took
    # 60% of the copy's time)
    if isinstance(value, list):
        return [_copy_json(v) if isinstance(v, _CONTAINERS) else v for v in value]
    if isinstance(value, dict):
        return {k: _copy_json(v) if isinstance(v, _CONTAINERS) else v
                for k, v in value.items()}
    return value


def _resolve(players: int, rules: Mapping[str, Json]) -> dict[str, Json]:
    resolved, problems = resolve_options(GAME, OPTIONS, rules)
    if resolved["edition"] == "classic":
        resolve_classic(players, rules, resolved, problems)
        _max_rounds(resolved, problems)
        raise_problems(GAME, problems)
        return resolved
    for name in ("great_wall", "dark_city"):
        if resolved[name]:
            problems.append(f"option {name!r}: only for edition: classic")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        problems.append(f"{players} players: machiavelli is for {MIN_PLAYERS}-{MAX_PLAYERS}")
    resolved["city_size"] = _city_size(resolved.get("city_size"), players, problems)
    resolved["characters"] = _characters(resolved.get("characters"), str(resolved["cast"]),
                                         players, problems)
    resolved["districts"] = _districts(resolved.get("districts"),
                                       str(resolved["district_preset"]), problems)
    _max_rounds(resolved, problems)
    raise_problems(GAME, problems)
    return resolved


def _max_rounds(resolved: dict[str, Json], problems: list[str]) -> None:
    max_rounds = resolved["max_rounds"]
    if not isinstance(max_rounds, int) or not 1 <= max_rounds <= MAX_ROUNDS_LIMIT:
        problems.append(f"option 'max_rounds': {max_rounds!r} is not an integer from 1 to "
                        f"{MAX_ROUNDS_LIMIT}")


def _city_size(value: Json, players: int, problems: list[str]) -> Json:
    if value is None:
        return 8 if players <= 3 else 7
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        problems.append(f"option 'city_size': {value!r} is not a positive integer (or null)")
    return value


def preset_cast(name: str, players: int) -> list[Character]:
    """Return the cast preset `name` fitted to `players` (REFERENCE §1.2, RB2016 pp. 8-9):
    its rank 9 only with 3 or 8 players; Emperor -> King with 2; Queen -> Tax Collector
    below 5 (DECISIONS.md, "Casts")."""
    cast = [c for c in CAST_PRESETS[name] if c.rank < 9 or players in (3, 8)]
    swaps = {Character.EMPEROR: Character.KING} if players == 2 else {}
    if players < 5:
        swaps[Character.QUEEN] = DEFAULT_RANK9
    return [swaps.get(c, c) for c in cast]


def allowed(character: Character, players: int) -> bool:
    """Return whether `character` may be in a cast for `players` seats (§1.2)."""
    if character is Character.EMPEROR:
        return players > 2
    if character is Character.QUEEN:
        return players >= 5
    return character.rank < 9 or players > 2


def random_cast(players: int, rng: random.Random) -> list[Character]:
    """Draw a legal cast: one implemented character per rank 1-8, a rank 9 where 3 or 8
    players require one, and with a coin flip where it is optional (4-7 players)."""
    ranks = list(range(1, 9))
    if players in (3, 8) or (players > 3 and rng.random() < 0.5):
        ranks.append(9)
    return [rng.choice(_candidates(rank, players)) for rank in ranks]


@functools.cache
def _candidates(rank: int, players: int) -> tuple[Character, ...]:
    """The characters a random cast may draw at `rank`, in a fixed order. Cached: working
    them out again took two thirds of a random-cast game's setup (210 of 305 us)."""
    return tuple(sorted(c for c in IMPLEMENTED if c.rank == rank and allowed(c, players)))


def random_districts(rng: random.Random) -> list[str]:
    """Draw 14 of the implemented unique districts (§1.8 "Customization Rules")."""
    return sorted(rng.sample(sorted(IMPLEMENTED_DISTRICTS), PRESET_SIZE))


def _characters(value: Json, cast: str, players: int, problems: list[str]) -> Json:
    if value is None:
        if cast == RANDOM or cast not in CAST_PRESETS:
            return None  # drawn by `new_state`, or an unknown name already reported
        value = [c.wire for c in preset_cast(cast, players)]
        where = f"option 'cast': {cast!r} with {players} players"
    else:
        where = "option 'characters'"
    valid = ", ".join(CHARACTER_BY_WIRE)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"{where}: must be a list of character ids ({valid})")
        return value
    chosen: list[Character] = []
    for name in value:
        if name not in CHARACTER_BY_WIRE:
            problems.append(f"{where}: unknown character {name!r}; valid: {valid}")
        else:
            chosen.append(CHARACTER_BY_WIRE[name])
    _check_cast(where, chosen, players, problems)
    return [c.wire for c in sorted(chosen)]


def _check_cast(where: str, chosen: list[Character], players: int,
                problems: list[str]) -> None:
    by_rank: dict[int, list[str]] = {}
    for c in chosen:
        by_rank.setdefault(c.rank, []).append(c.wire)
    for rank, names in sorted(by_rank.items()):
        if len(names) > 1:
            problems.append(f"{where}: two characters of rank {rank}: "
                            f"{', '.join(names)} (one per rank)")
    missing = [str(r) for r in range(1, 9) if r not in by_rank]
    if missing:
        problems.append(f"{where}: no character of rank {', '.join(missing)} "
                        f"(ranks 1-8 are all needed)")
    if Character.QUEEN in chosen and players < 5:
        problems.append(f"{where}: the queen needs 5 or more players; "
                        "use artist or tax_collector")
    if Character.EMPEROR in chosen and players == 2:
        problems.append(f"{where}: the emperor is not used with 2 players; use king or "
                        "patrician")
    if 9 not in by_rank and players in (3, 8):
        problems.append(f"{where}: {players} players need a rank-9 character "
                        "(queen, artist or tax_collector)")
    if 9 in by_rank and players == 2:
        problems.append(f"{where}: 2 players use ranks 1-8 only")


def _districts(value: Json, preset: str, problems: list[str]) -> Json:
    if value is None:
        return list(PRESETS[preset]) if preset in PRESETS else None
    valid = ", ".join(sorted(IMPLEMENTED_DISTRICTS))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"option 'districts': must be a list of unique district ids ({valid})")
        return value
    ids: list[str] = []
    for name in value:
        ident = district_id(name)
        if ident is None or TYPE[ident] is not DistrictType.UNIQUE or ident in CLASSIC_ONLY:
            problems.append(f"option 'districts': {name!r} is not a unique district; "
                            f"valid: {valid}")
        elif ident in ids:
            problems.append(f"option 'districts': {name!r} is listed twice")
        else:
            ids.append(ident)
    return ids


EDITION_TEXT = {"revised": "R2016/2021: 27 characters (one per rank in a cast), 54 basic + "
                           "14 unique districts, a city of 7 (8 with 2-3 players)",
                "classic": CLASSIC_TEXT}


def catalog() -> dict[str, dict[str, str]]:
    """Return the editions, casts and district presets with what each holds (`arena games`)."""
    casts = {name: ", ".join(c.wire for c in cast)
             + ("  (rank 9 only with 3 or 8 players)" if name != "first-game" else "")
             for name, cast in CAST_PRESETS.items()}
    casts[RANDOM] = ("one random character per rank from the game's seed (those the player "
                     "count allows)")
    presets = {name: ", ".join(ids)
               for name, ids in PRESETS.items()}
    presets[RANDOM] = "14 unique districts drawn from the game's seed"
    return {"machiavelli editions": {e: EDITION_TEXT.get(e, "") for e in EDITIONS},
            "machiavelli casts (option cast)": casts,
            "machiavelli district presets (option district_preset)": presets,
            "machiavelli classic Dark City (option dark_city)": dark_city_catalog()}


def draw_random(players: int, resolved: dict[str, Json], seed: int) -> dict[str, Json]:
    """Return `resolved` with a random cast and district list drawn where they are null.

    The draws use their own generator derived from the seed, so the deal and the draft of
    a seed do not depend on whether its cast was drawn."""
    if resolved["characters"] is not None and resolved["districts"] is not None:
        return resolved
    rng = new_rng(derive_seed(seed, "machiavelli-cast"))
    drawn = dict(resolved)
    cast, districts = random_cast(players, rng), random_districts(rng)
    if drawn["characters"] is None:
        drawn["characters"] = [c.wire for c in cast]
    if drawn["districts"] is None:
        drawn["districts"] = districts
    return drawn


@functools.lru_cache(maxsize=256)
def _unshuffled(uniques: tuple[str, ...]) -> tuple[str, ...]:
    """The unshuffled deck of a game with these unique districts (`cards.deck_list`). Kept:
    building it again (a Counter of 68 cards) took ~2% of a 4-player game's setup-and-play
    engine time; the shuffle of a fresh list of it draws exactly as before."""
    return tuple(deck_list(uniques))


def new_state(players: int, rules: Mapping[str, Json], seed: int) -> State:
    """Deal a new game: shuffled deck, 4 cards and 2 gold each, a seeded crown.

    The state starts in the transient `round_start` phase; `rules.settle` runs the draft
    setup. Raises ConfigError as `resolve`.
    """
    resolved = draw_random(players, resolve(players, rules), seed)
    rng = new_rng(seed)
    deck = list(_unshuffled(tuple(resolved["districts"])))
    shuffle(rng, deck)
    hands = [deck[4 * seat:4 * seat + 4] for seat in range(players)]
    del deck[:4 * players]
    return State(
        players=players, rules=resolved, rng=rng,
        cast=[CHARACTER_BY_WIRE[c] for c in resolved["characters"]],
        crown=rng.randrange(players), gold=[2] * players, hands=hands,
        cities=[[] for _ in range(players)], beautified=[[] for _ in range(players)],
        deck=deck, chars=[[] for _ in range(players)],
    )
