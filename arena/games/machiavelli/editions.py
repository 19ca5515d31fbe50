"""The rules editions of `machiavelli` as data: what differs between the revised (2016/2021)
rules and the classic (Dutch 2000 / English 2002) rules lives in one `Edition` record each,
read by the rules modules, instead of edition tests scattered through the code.

Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .cards import BASE_CAST, CLASSIC_COST, COST, Character

REVISED_TIEBREAK, CLASSIC_TIEBREAK = "revealed_rank", "district_values_then_gold"


@dataclass(frozen=True, slots=True)
class Edition:
    """Everything a rules edition changes; the revised values are the defaults."""

    name: str
    costs: Mapping[str, int] = field(default_factory=lambda: COST)
    """Build cost of each district id (also its score value before bonuses)."""
    max_players: int = 8
    """The most players the edition allows with its base cast."""
    laboratory_gold: int = 2
    """Gold for the card discarded at the Laboratory."""
    architect_after_gather: bool = False
    """The Architect's +2 cards come after his action (classic card) rather than at once."""
    destroy_at_end: bool = False
    """The Warlord destroys at the end of his turn: after gathering, and it ends the turn."""
    great_wall_covers_itself: bool = True
    """The Great Wall's +1 applies to the Wall itself (revised card: "any district")."""
    haunted_not_last_round: bool = False
    """A Haunted City built in the last round counts only as unique for the five types."""
    library_observatory_keep: int = 3
    """Cards kept when gathering with both the Library and the Observatory (3 drawn)."""
    navigator_after_action: bool = False
    """The Navigator's 4 gold or 4 cards come after his action and are compulsory (classic,
    Faidutti FAQ) rather than optional at any time."""
    three_player_random_discard: bool = True
    """3 players: the revised draft discards one card at random after the first three picks;
    the classic draft passes the seven cards round twice instead."""
    tiebreak: str = REVISED_TIEBREAK
    """`revealed_rank`: the highest rank revealed in the last round; `district_values_then_gold`:
    district points alone, then gold (the 2010 FAQ)."""


REVISED = Edition("revised")
CLASSIC = Edition(
    "classic", costs=CLASSIC_COST, max_players=7, laboratory_gold=1,
    architect_after_gather=True, destroy_at_end=True, great_wall_covers_itself=False,
    haunted_not_last_round=True, library_observatory_keep=2, navigator_after_action=True,
    three_player_random_discard=False, tiebreak=CLASSIC_TIEBREAK,
)
EDITIONS: dict[str, Edition] = {e.name: e for e in (REVISED, CLASSIC)}


def edition_of(rules: Mapping[str, object]) -> Edition:
    """Return the edition record named by a resolved option set."""
    return EDITIONS[str(rules["edition"])]


CLASSIC_CAST: tuple[Character, ...] = BASE_CAST
DARK_CITY_VERIFIED: tuple[Character, ...] = (
    Character.WITCH, Character.ALCHEMIST, Character.NAVIGATOR, Character.ARTIST)
"""Dark City characters offered with `dark_city: true`: those whose classic text equals the
revised one (REFERENCE §1.10: Alchemist, Navigator, Artist "same") with the classic timing
verified (§1.4.2: the Alchemist refunds at the end of the turn; the Navigator's bonus comes
after his action and is compulsory), and the Witch, whose classic text is verified (§1.10,
Faidutti FAQ: after her action she names a character, compulsory; the bewitched player
takes only his action; she plays the rest of his turn with its power; the King still gets
the crown), which is the revised Witch's without its later spelled-out edge cases."""
DARK_CITY_UNVERIFIED: tuple[str, ...] = (
    "tax_collector", "wizard", "emperor", "abbot", "diplomat", "queen")
"""Dark City characters left out: REFERENCE §1.10 has their classic texts from secondary
sources only."""
DARK_CITY_DISTRICTS: tuple[str, ...] = ("museum",)
"""Dark City districts `dark_city: true` lets `districts` name: the Museum, whose classic text
(REFERENCE §1.11.4: on your turn put 1 hand card under it, +1 point per card at the end, cost
4) is the revised card's (§1.11.2 row 17, verified), read as it (once per turn; its cards
to the deck bottom when it is destroyed). DECISIONS.md "Classic edition"."""
DARK_CITY_DISTRICTS_UNVERIFIED: tuple[str, ...] = (
    "lighthouse", "armory", "imperial_treasury", "map_room", "wishing_well",
    "quarry", "poor_house", "bell_tower", "factory", "park", "hospital", "throne_room",
    "ball_room")
"""Dark City districts left out: REFERENCE §1.11.4 lists their classic texts from one
secondary source (a course project's card file, 13 of the 14 cards)."""
