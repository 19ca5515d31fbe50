"""The classic edition's options and their checks (REFERENCE §1.0-1.3, §1.9, §1.11.3;
DECISIONS.md "Classic edition").

Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from arena.core.game import Json, OptionSpec

from .cards import CHARACTER_BY_WIRE, CLASSIC_UNIQUE, GREAT_WALL, Character, district_id
from .editions import (
    CLASSIC,
    CLASSIC_CAST,
    DARK_CITY_DISTRICTS,
    DARK_CITY_DISTRICTS_UNVERIFIED,
    DARK_CITY_UNVERIFIED,
    DARK_CITY_VERIFIED,
)

CLASSIC_CITY_SIZE = 8
COPIES: dict[str, int] = {d.id: d.copies for d in CLASSIC_UNIQUE}
DUTCH_DECK: tuple[str, ...] = tuple(
    d.id for d in CLASSIC_UNIQUE if d.id != GREAT_WALL for _ in range(d.copies))
"""The purple cards of the Dutch 2000 deck (65 cards with the 54 basic ones): the Keep twice."""


CLASSIC_TEXT = ("Dutch 2000 / English 2002: the 8 base characters (dark_city: the verified Dark "
                "City ones), 54 basic + 11 purple districts (great_wall: 12), a city of 8, "
                "2-7 players (8 with a Dark City rank 9)")


def dark_city_catalog() -> dict[str, str]:
    """What `dark_city: true` offers and what it leaves out, for `arena games`."""
    return {
        "offered (classic text verified)": ", ".join(c.wire for c in DARK_CITY_VERIFIED),
        "offered districts (name them in districts)": ", ".join(DARK_CITY_DISTRICTS),
        "left out: characters (classic text not verified, or not implemented)":
            ", ".join(DARK_CITY_UNVERIFIED),
        "left out: districts (classic text not verified)":
            ", ".join(DARK_CITY_DISTRICTS_UNVERIFIED),
    }


def classic_options() -> tuple[OptionSpec, ...]:
    """The options that only the classic edition reads."""
    verified = ", ".join(c.wire for c in DARK_CITY_VERIFIED)
    return (
        OptionSpec("great_wall", False,
                   "classic only: add the Great Wall, as the English 2002 deck (66 cards) has; "
                   "the Dutch 2000 deck (65) has none"),
        OptionSpec("dark_city", False,
                   f"classic only: offer the Dark City characters whose classic text is "
                   f"verified, in place of a base character of the same rank: {verified} "
                   f"(the artist is rank 9: 8 players need it), and lets districts name "
                   f"{', '.join(DARK_CITY_DISTRICTS)}. Left out (classic text not verified, "
                   f"or not implemented): {', '.join(DARK_CITY_UNVERIFIED)}, and the other "
                   f"Dark City districts ({', '.join(DARK_CITY_DISTRICTS_UNVERIFIED)})"),
    )


def resolve_classic(players: int, rules: Mapping[str, Json], resolved: dict[str, Json],
                    problems: list[str]) -> None:
    """Resolve and check the options of a classic game in place, adding to `problems`."""
    dark = bool(resolved["dark_city"])
    most = CLASSIC.max_players + (1 if dark else 0)
    if not 2 <= players <= most:
        problems.append(f"{players} players: classic machiavelli is for 2-7 players "
                        f"(8 with dark_city: true and a rank-9 character)")
    if resolved["cast"] != "first-game":
        problems.append("option 'cast': the classic cast is the 8 base characters; "
                        "choose with 'characters'")
    if resolved["district_preset"] != "first-game":
        problems.append("option 'district_preset': the classic edition has one deck; "
                        "choose its purple districts with 'districts'")
    resolved["city_size"] = _city_size(resolved["city_size"], problems)
    resolved["characters"] = _characters(resolved["characters"], players, dark, problems)
    resolved["districts"] = _districts(resolved["districts"], bool(resolved["great_wall"]),
                                       dark, problems)


def _city_size(value: Json, problems: list[str]) -> Json:
    if value is None:
        return CLASSIC_CITY_SIZE
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        problems.append(f"option 'city_size': {value!r} is not a positive integer (or null)")
    return value


def _characters(value: Json, players: int, dark: bool, problems: list[str]) -> Json:
    allowed = (*CLASSIC_CAST, *(DARK_CITY_VERIFIED if dark else ()))
    if value is None:
        cast = list(CLASSIC_CAST)
        if players == 8 and dark:
            cast.append(Character.ARTIST)
        return [c.wire for c in cast]
    valid = ", ".join(c.wire for c in allowed)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"option 'characters': must be a list of character ids ({valid})")
        return value
    chosen: list[Character] = []
    for name in value:
        character = CHARACTER_BY_WIRE.get(name)
        if character in allowed:
            chosen.append(character)
        elif character is None:
            problems.append(f"option 'characters': unknown character {name!r}; valid: {valid}")
        else:
            problems.append(f"option 'characters': {name!r} is not a classic character "
                            f"{'' if dark else '(dark_city: true adds the verified ones) '}"
                            f"; valid: {valid}")
    ranks = Counter(c.rank for c in chosen)
    problems.extend(f"option 'characters': two characters of rank {rank} (one per rank)"
                    for rank, n in sorted(ranks.items()) if n > 1)
    missing = [str(r) for r in range(1, 9) if r not in ranks]
    if missing:
        problems.append(f"option 'characters': no character of rank {', '.join(missing)} "
                        f"(ranks 1-8 are all needed)")
    if 9 in ranks and players <= 3:
        problems.append("option 'characters': 2 and 3 players use ranks 1-8 only")
    if 9 not in ranks and players == 8:
        problems.append("option 'characters': 8 players need a rank-9 character")
    return [c.wire for c in sorted(chosen)]


def _districts(value: Json, great_wall: bool, dark: bool, problems: list[str]) -> Json:
    if value is None:
        return [*DUTCH_DECK, *((GREAT_WALL,) if great_wall else ())]
    copies = COPIES | (dict.fromkeys(DARK_CITY_DISTRICTS, 1) if dark else {})
    valid = ", ".join(copies)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"option 'districts': must be a list of classic purple district ids "
                        f"({valid})")
        return value
    ids: list[str] = []
    for name in value:
        ident = district_id(name)
        if ident in DARK_CITY_DISTRICTS and not dark:
            problems.append(f"option 'districts': {name!r} is a Dark City district "
                            "(dark_city: true offers it)")
        elif ident is None or ident not in copies:
            problems.append(f"option 'districts': {name!r} is not a classic purple district; "
                            f"valid: {valid}")
        elif ids.count(ident) >= copies[ident]:
            problems.append(f"option 'districts': {name!r} is listed more often than the "
                            f"deck has copies ({copies[ident]})")
        else:
            ids.append(ident)
    if great_wall and GREAT_WALL not in ids:
        ids.append(GREAT_WALL)
    return ids
