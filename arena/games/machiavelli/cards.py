"""Machiavelli cards: characters (in calling order) and districts with the deck composition.

Pure data. Imports only the standard library.
Wire names: characters and districts travel as lower-case snake_case ids ("tax_collector",
"thieves_den"); `display` gives the printed name.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import IntEnum, StrEnum


class Character(IntEnum):
    """A character card; the value orders the cards for calling (one card per rank in a cast)."""

    ASSASSIN = 1
    THIEF = 2
    MAGICIAN = 3
    KING = 4
    BISHOP = 5
    MERCHANT = 6
    ARCHITECT = 7
    WARLORD = 8
    QUEEN = 9
    ARTIST = 10
    TAX_COLLECTOR = 11

    @property
    def rank(self) -> int:
        """The printed rank (1-9): the three rank-9 characters share rank 9."""
        return min(int(self), 9)

    @property
    def wire(self) -> str:
        """The id used on the wire and in state JSON."""
        return NAMES[self]


# wire ids indexed by value: `NAMES[c]` is much cheaper than `c.name` on the hot path
NAMES: tuple[str, ...] = ("", *(c.name.lower() for c in Character))
CHARACTER_BY_WIRE: dict[str, Character] = {c.wire: c for c in Character}
BASE_CAST: tuple[Character, ...] = tuple(Character(rank) for rank in range(1, 9))
DEFAULT_RANK9 = Character.TAX_COLLECTOR
"""Rank 9 used when the player count requires one (3 or 8 players) and none is named:
the Queen is banned below 5 players, and one default for every count keeps things simple."""


class DistrictType(StrEnum):
    """A district's type (colour)."""

    NOBLE = "noble"
    RELIGIOUS = "religious"
    TRADE = "trade"
    MILITARY = "military"
    UNIQUE = "unique"


INCOME_TYPE: dict[Character, DistrictType] = {
    Character.KING: DistrictType.NOBLE,
    Character.BISHOP: DistrictType.RELIGIOUS,
    Character.MERCHANT: DistrictType.TRADE,
    Character.WARLORD: DistrictType.MILITARY,
}
"""Characters that take 1 gold per district of a type (the `collect_income` action)."""


@dataclass(frozen=True, slots=True)
class District:
    """A district card: id, printed name, type, cost and copies in the deck."""

    id: str
    display: str
    type: DistrictType
    cost: int
    copies: int = 1
    bonus: int = 0
    """Points scored on top of the cost that need no condition (Dragon Gate)."""


def _d(display: str, kind: DistrictType, cost: int, copies: int = 1, bonus: int = 0) -> District:
    ident = display.lower().replace("'", "").replace(" ", "_")
    return District(ident, display, kind, cost, copies, bonus)


_N, _R, _T, _M, _U = (DistrictType.NOBLE, DistrictType.RELIGIOUS, DistrictType.TRADE,
                      DistrictType.MILITARY, DistrictType.UNIQUE)

BASIC: tuple[District, ...] = (
    _d("Manor", _N, 3, 5), _d("Castle", _N, 4, 4), _d("Palace", _N, 5, 3),
    _d("Temple", _R, 1, 3), _d("Church", _R, 2, 3), _d("Monastery", _R, 3, 3),
    _d("Cathedral", _R, 5, 2),
    _d("Tavern", _T, 1, 5), _d("Market", _T, 2, 4), _d("Trading Post", _T, 2, 3),
    _d("Docks", _T, 3, 3), _d("Harbor", _T, 4, 3), _d("Town Hall", _T, 5, 2),
    _d("Watchtower", _M, 1, 3), _d("Prison", _M, 2, 3), _d("Barracks", _M, 3, 3),
    _d("Fortress", _M, 5, 2),
)
"""The 54 basic districts (R2016 names and copy counts)."""

UNIQUE: tuple[District, ...] = (
    _d("Dragon Gate", _U, 6, bonus=2), _d("Factory", _U, 5), _d("Haunted Quarter", _U, 2),
    _d("Imperial Treasury", _U, 5), _d("Keep", _U, 3), _d("Laboratory", _U, 5),
    _d("Library", _U, 6), _d("Map Room", _U, 5), _d("Quarry", _U, 5),
    _d("School of Magic", _U, 6), _d("Smithy", _U, 5), _d("Statue", _U, 3),
    _d("Thieves' Den", _U, 6), _d("Wishing Well", _U, 5),
)
"""The implemented unique districts: exactly the `first-game` preset."""

DISTRICTS: dict[str, District] = {d.id: d for d in (*BASIC, *UNIQUE)}
PRESETS: dict[str, tuple[str, ...]] = {"first-game": tuple(d.id for d in UNIQUE)}

# ids of the unique districts whose effects the rules code asks about
DRAGON_GATE, FACTORY, HAUNTED_QUARTER = "dragon_gate", "factory", "haunted_quarter"
IMPERIAL_TREASURY, KEEP, LABORATORY, LIBRARY = "imperial_treasury", "keep", "laboratory", "library"
MAP_ROOM, QUARRY, SCHOOL_OF_MAGIC, SMITHY = "map_room", "quarry", "school_of_magic", "smithy"
STATUE, THIEVES_DEN, WISHING_WELL = "statue", "thieves_den", "wishing_well"

COST: dict[str, int] = {d.id: d.cost for d in DISTRICTS.values()}
TYPE: dict[str, DistrictType] = {d.id: d.type for d in DISTRICTS.values()}


def district_id(name: str) -> str | None:
    """Return the id for an id or a printed name ("Thieves' Den"), or None if unknown."""
    ident = name.strip().lower().replace("'", "").replace(" ", "_").replace("-", "_")
    return ident if ident in DISTRICTS else None


def deck_composition(uniques: tuple[str, ...] | list[str]) -> Counter[str]:
    """Return the multiset of district ids in a game using the given unique districts."""
    deck: Counter[str] = Counter({d.id: d.copies for d in BASIC})
    deck.update(uniques)
    return deck


def deck_list(uniques: tuple[str, ...] | list[str]) -> list[str]:
    """Return the unshuffled deck (every copy) in a fixed order."""
    return [ident for ident, n in deck_composition(uniques).items() for _ in range(n)]
