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
    """A character card; the value orders the cards for calling (one card per rank in a cast):
    three characters per rank, rank = (value + 2) // 3."""

    ASSASSIN = 1
    WITCH = 2
    MAGISTRATE = 3
    THIEF = 4
    SPY = 5
    BLACKMAILER = 6
    MAGICIAN = 7
    WIZARD = 8
    SEER = 9
    KING = 10
    EMPEROR = 11
    PATRICIAN = 12
    BISHOP = 13
    ABBOT = 14
    CARDINAL = 15
    MERCHANT = 16
    ALCHEMIST = 17
    TRADER = 18
    ARCHITECT = 19
    NAVIGATOR = 20
    SCHOLAR = 21
    WARLORD = 22
    DIPLOMAT = 23
    MARSHAL = 24
    QUEEN = 25
    ARTIST = 26
    TAX_COLLECTOR = 27

    @property
    def rank(self) -> int:
        """The printed rank (1-9)."""
        return (int(self) + 2) // 3

    @property
    def wire(self) -> str:
        """The id used on the wire and in state JSON."""
        return NAMES[self]


# wire ids indexed by value: `NAMES[c]` is much cheaper than `c.name` on the hot path
NAMES: tuple[str, ...] = ("", *(c.name.lower() for c in Character))
CHARACTER_BY_WIRE: dict[str, Character] = {c.wire: c for c in Character}
_C = Character
BASE_CAST: tuple[Character, ...] = (_C.ASSASSIN, _C.THIEF, _C.MAGICIAN, _C.KING, _C.BISHOP,
                                    _C.MERCHANT, _C.ARCHITECT, _C.WARLORD)
DEFAULT_RANK9 = Character.TAX_COLLECTOR
"""Rank 9 used when the player count requires one (3 or 8 players) and none is named:
the Queen is banned below 5 players, and one default for every count keeps things simple."""

IMPLEMENTED: frozenset[Character] = frozenset(Character)
"""The characters the engine plays: all 27 (random casts draw from these)."""

CAST_PRESETS: dict[str, tuple[Character, ...]] = {
    # RB2016 "Your first game" and "Preset options" (pp. 8-9); the rank 9 in parentheses there
    # is optional: setup.py adds it only where the player count requires one
    "first-game": (*BASE_CAST, DEFAULT_RANK9),
    "ambitious-aristocrats": (_C.MAGISTRATE, _C.THIEF, _C.WIZARD, _C.PATRICIAN, _C.BISHOP,
                              _C.TRADER, _C.ARCHITECT, _C.MARSHAL, _C.QUEEN),
    "cunning-agents": (_C.WITCH, _C.BLACKMAILER, _C.MAGICIAN, _C.EMPEROR, _C.ABBOT,
                       _C.ALCHEMIST, _C.ARCHITECT, _C.WARLORD, _C.TAX_COLLECTOR),
    "illustrious-emissaries": (_C.WITCH, _C.SPY, _C.SEER, _C.EMPEROR, _C.BISHOP, _C.MERCHANT,
                               _C.SCHOLAR, _C.DIPLOMAT, _C.ARTIST),
    "devious-dignitaries": (_C.MAGISTRATE, _C.BLACKMAILER, _C.WIZARD, _C.KING, _C.ABBOT,
                            _C.ALCHEMIST, _C.NAVIGATOR, _C.MARSHAL, _C.QUEEN),
    "tenacious-delegates": (_C.ASSASSIN, _C.SPY, _C.SEER, _C.KING, _C.CARDINAL, _C.TRADER,
                            _C.SCHOLAR, _C.DIPLOMAT, _C.ARTIST),
    "vicious-nobles": (_C.ASSASSIN, _C.THIEF, _C.MAGICIAN, _C.PATRICIAN, _C.CARDINAL,
                       _C.MERCHANT, _C.NAVIGATOR, _C.WARLORD, _C.TAX_COLLECTOR),
}
"""Named casts (RB2016), each one character per rank 1-9."""


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
    Character.PATRICIAN: DistrictType.NOBLE,
    Character.TRADER: DistrictType.TRADE,
    Character.MARSHAL: DistrictType.MILITARY,
    Character.DIPLOMAT: DistrictType.MILITARY,
    Character.EMPEROR: DistrictType.NOBLE,
    Character.CARDINAL: DistrictType.RELIGIOUS,
}
"""Characters that take 1 gold (or card) per district of a type (`collect_income`)."""
INCOME_CARDS = frozenset((Character.PATRICIAN, Character.CARDINAL))
INCOME_TYPE_OF = {**INCOME_TYPE, Character.ABBOT: DistrictType.RELIGIOUS}
"""The district type of every character with district income (the Abbot's is a mix of gold
and cards, offered as `abbot_income` options, so he is not in `INCOME_TYPE`)."""
"""Characters whose district income is cards, not gold."""


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


UNBUILDABLE = 99
"""The Secret Vault's cost, a sentinel: it cannot be built (`turn.can_place` refuses it)."""

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
    _d("Armory", _U, 3), _d("Basilica", _U, 4), _d("Capitol", _U, 5),
    _d("Dragon Gate", _U, 6, bonus=2), _d("Factory", _U, 5), _d("Framework", _U, 3),
    _d("Gold Mine", _U, 6), _d("Great Wall", _U, 6), _d("Haunted Quarter", _U, 2),
    _d("Imperial Treasury", _U, 5), _d("Ivory Tower", _U, 5), _d("Keep", _U, 3),
    _d("Laboratory", _U, 5), _d("Library", _U, 6), _d("Map Room", _U, 5),
    _d("Monument", _U, 4), _d("Museum", _U, 4), _d("Necropolis", _U, 5),
    _d("Observatory", _U, 4), _d("Park", _U, 6), _d("Poor House", _U, 4), _d("Quarry", _U, 5),
    _d("School of Magic", _U, 6), _d("Secret Vault", _U, UNBUILDABLE), _d("Smithy", _U, 5),
    _d("Stables", _U, 2), _d("Statue", _U, 3), _d("Theater", _U, 6),
    _d("Thieves' Den", _U, 6), _d("Wishing Well", _U, 5),
)
"""The 30 unique districts of the revised edition (REFERENCE §1.11.2)."""

CLASSIC_UNIQUE: tuple[District, ...] = (
    _d("Haunted City", _U, 2), _d("Keep", _U, 3, 2), _d("Laboratory", _U, 5),
    _d("Smithy", _U, 5), _d("Observatory", _U, 5), _d("Graveyard", _U, 5),
    _d("Library", _U, 6), _d("School of Magic", _U, 6), _d("University", _U, 6, bonus=2),
    _d("Dragon Gate", _U, 6, bonus=2), _d("Great Wall", _U, 6),
)
"""The classic purple districts as printed (REFERENCE §1.11.3): the Dutch 2000 deck has the
first ten (the Keep twice), the English 2002 deck adds the Great Wall. Where an id is also a
revised card, the revised record wins in `DISTRICTS`; `CLASSIC_COST` has the classic costs."""

# the classic cards first: a revised card of the same id replaces its record
DISTRICTS: dict[str, District] = {d.id: d for d in (*CLASSIC_UNIQUE, *BASIC, *UNIQUE)}
FIRST_GAME: tuple[str, ...] = (
    "dragon_gate", "factory", "haunted_quarter", "imperial_treasury", "keep", "laboratory",
    "library", "map_room", "quarry", "school_of_magic", "smithy", "statue", "thieves_den",
    "wishing_well")
IMPLEMENTED_DISTRICTS: frozenset[str] = frozenset(d.id for d in UNIQUE)
"""The unique districts the engine plays: all 30 (issue 12 added them in batches; options
naming one outside this set are refused)."""

PRESETS: dict[str, tuple[str, ...]] = {
    # RB2016 "Your first game" and "Preset options" (pp. 8-9), 14 unique districts each
    "first-game": FIRST_GAME,
    "ambitious-aristocrats": (
        "capitol", "factory", "framework", "great_wall", "haunted_quarter", "keep",
        "necropolis", "park", "poor_house", "quarry", "school_of_magic", "stables", "statue",
        "thieves_den"),
    "cunning-agents": (
        "armory", "basilica", "dragon_gate", "gold_mine", "keep", "monument", "museum",
        "necropolis", "park", "poor_house", "quarry", "secret_vault", "smithy", "theater"),
    "illustrious-emissaries": (
        "factory", "framework", "great_wall", "haunted_quarter", "ivory_tower", "keep",
        "library", "museum", "observatory", "park", "poor_house", "quarry", "school_of_magic",
        "smithy"),
    "devious-dignitaries": (
        "dragon_gate", "factory", "framework", "haunted_quarter", "laboratory", "necropolis",
        "park", "poor_house", "secret_vault", "smithy", "stables", "theater", "thieves_den",
        "wishing_well"),
    "tenacious-delegates": (
        "basilica", "capitol", "haunted_quarter", "imperial_treasury", "laboratory", "library",
        "map_room", "observatory", "school_of_magic", "secret_vault", "smithy", "stables",
        "statue", "wishing_well"),
    "vicious-nobles": (
        "armory", "basilica", "dragon_gate", "gold_mine", "imperial_treasury", "ivory_tower",
        "laboratory", "map_room", "monument", "museum", "school_of_magic", "statue",
        "thieves_den", "wishing_well"),
}
"""Named sets of unique districts (RB2016); the same names as `CAST_PRESETS`."""
PRESET_SIZE = 14

# ids of the unique districts whose effects the rules code asks about
ARMORY, BASILICA, CAPITOL, FRAMEWORK = "armory", "basilica", "capitol", "framework"
GOLD_MINE, GREAT_WALL, IVORY_TOWER, MONUMENT = "gold_mine", "great_wall", "ivory_tower", "monument"
MUSEUM, NECROPOLIS, OBSERVATORY, PARK = "museum", "necropolis", "observatory", "park"
POOR_HOUSE, SECRET_VAULT, STABLES, THEATER = "poor_house", "secret_vault", "stables", "theater"
DRAGON_GATE, FACTORY, HAUNTED_QUARTER = "dragon_gate", "factory", "haunted_quarter"
IMPERIAL_TREASURY, KEEP, LABORATORY, LIBRARY = "imperial_treasury", "keep", "laboratory", "library"
MAP_ROOM, QUARRY, SCHOOL_OF_MAGIC, SMITHY = "map_room", "quarry", "school_of_magic", "smithy"
STATUE, THIEVES_DEN, WISHING_WELL = "statue", "thieves_den", "wishing_well"

GRAVEYARD, HAUNTED_CITY, UNIVERSITY = "graveyard", "haunted_city", "university"  # classic
CLASSIC_ONLY = frozenset((GRAVEYARD, HAUNTED_CITY, UNIVERSITY))
"""Classic purple cards that no revised deck holds."""

COST: dict[str, int] = {d.id: d.cost for d in DISTRICTS.values()}
CLASSIC_COST: dict[str, int] = COST | {d.id: d.cost for d in CLASSIC_UNIQUE}
"""Build costs (and score values before bonuses) in the classic edition."""
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
