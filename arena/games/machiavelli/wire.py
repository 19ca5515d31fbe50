"""JSON Schemas of what `machiavelli` sends and accepts: observation, actions, events,
decisions (kind, context and options). Built from the engine's own tables (character and
district ids, action fields, decision kinds), so a new id needs nothing here; a new event,
observation field or context field does (the contract test fails until it is added).

Exported to protocol/schemas/machiavelli.*.schema.json by `arena.protocol.schema`.
Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.game import Json, Termination
from arena.core.wire_schema import BOOL, INT, NAT, SEAT, STR, array, closed, enum, nullable, tagged

from .actions import _FIELDS, ALLOWED, MAX_DECOYS, RESOURCES, ActionType, Kind
from .cards import CHARACTER_BY_WIRE, DISTRICTS, DistrictType
from .state import Pending

CHARACTER = enum(CHARACTER_BY_WIRE, "a character id")
DISTRICT = enum(DISTRICTS, "a district id")
CHARACTERS, CARDS = array(CHARACTER), array(DISTRICT)
GOLD = array(closed({"seat": SEAT, "delta": INT}))
"""Every event that changes gold lists each seat's change."""

_FIELD_SCHEMA: dict[str, Json] = {"character": CHARACTER, "district": DISTRICT, "seat": SEAT,
                                  "resource": enum(RESOURCES),
                                  "district_type": enum(t.value for t in DistrictType),
                                  "give": DISTRICT, "amount": NAT,
                                  "decoys": {**CHARACTERS, "maxItems": MAX_DECOYS}}


def _action_fields(action_type: ActionType) -> dict[str, Json]:
    return {name: _FIELD_SCHEMA[name] for name in _FIELDS.get(action_type, ())}


def action_schema(types: frozenset[ActionType] | None = None) -> dict[str, Json]:
    """The actions of the given types (all when None)."""
    chosen = [t for t in ActionType if types is None or t in types]
    return tagged("type", {t.value: _action_fields(t) for t in chosen}, {},
                  "a machiavelli action")


_SEAT_EVENT = {"seat": SEAT}
_SEAT_CHARACTER = {"seat": SEAT, "character": CHARACTER}
_AMOUNT = {"seat": SEAT, "amount": NAT, "gold": GOLD}
_DRAWN = {"seat": SEAT, "cards": CARDS}

EVENTS: dict[str, tuple[dict[str, Json], str]] = {
    "round_started": ({"round": NAT, "crown": SEAT}, "a new round"),
    "rank4_reshuffled": ({}, "a rank-4 card drawn face up went back"),
    "characters_discarded": ({"faceup": CHARACTERS, "facedown": NAT},
                             "draft discards: face-up ids, face-down count"),
    "facedown_offered": (_SEAT_EVENT, "the last seat takes the face-down card"),
    "characters_offered": ({"seat": SEAT, "characters": CHARACTERS,
                            "step": enum(["pick", "discard"])},
                           "private: the characters a seat must choose from"),
    "character_picked": (_SEAT_EVENT, "a seat picked (which: own_pick)"),
    "own_pick": (_SEAT_CHARACTER, "private: your pick"),
    "character_discarded": (_SEAT_EVENT, "2 players: a seat discarded face down"),
    "own_discard": (_SEAT_CHARACTER, "private: your face-down discard"),
    "character_called": ({"character": CHARACTER, "seat": nullable(SEAT), "killed": BOOL},
                         "the calling order reached a character (seat null: nobody)"),
    "robbed": ({"seat": SEAT, "thief": SEAT, "amount": NAT, "gold": GOLD},
               "the robbed character was revealed"),
    "crown_taken": ({"seat": SEAT, "heir": BOOL}, "the crown moved"),
    "bonus_gold": ({**_SEAT_CHARACTER, "amount": NAT, "gold": GOLD},
                   "gold without a choice (Merchant, Queen)"),
    "bonus_cards": ({**_SEAT_CHARACTER, "count": NAT}, "cards without a choice (Architect)"),
    "drew_cards": (_DRAWN, "private: the cards you drew"),
    "gathered_gold": (_AMOUNT, "gather_gold"),
    "gathered_cards": ({"seat": SEAT, "count": NAT}, "gather_cards"),
    "kept_card": ({"seat": SEAT, "returned": NAT}, "keep_card"),
    "own_kept": ({"seat": SEAT, "district": DISTRICT, "returned": CARDS},
                 "private: the card you kept and those returned"),
    "income": ({**_SEAT_CHARACTER, "amount": NAT, "gold": GOLD}, "collect_income"),
    "built": ({"seat": SEAT, "district": DISTRICT, "cost": NAT, "cards_paid": NAT,
               "gold": GOLD}, "a district was built"),
    "own_paid": ({"seat": SEAT, "district": DISTRICT, "cards": CARDS},
                 "private: the hand cards you paid with"),
    "tax_paid": (_AMOUNT, "gold into the tax token"),
    "tax_taken": (_AMOUNT, "take_tax"),
    "city_completed": ({"seat": SEAT, "first": BOOL}, "a city reached city_size"),
    "character_killed": (_SEAT_CHARACTER, "the Assassin named a character"),
    "character_robbed": (_SEAT_CHARACTER, "the Thief named a character"),
    "hands_swapped": ({"seat": SEAT, "target": SEAT, "gave": NAT, "received": NAT},
                      "Magician swap"),
    "hand_received": (_DRAWN, "private: the hand you received"),
    "cards_exchanged": ({"seat": SEAT, "discarded": NAT, "drawn": NAT}, "Magician exchange"),
    "destroyed": ({"seat": SEAT, "target": SEAT, "district": DISTRICT, "price": NAT,
                   "gold": GOLD}, "Warlord"),
    "graveyard_used": ({"seat": SEAT, "district": DISTRICT, "gold": GOLD},
                       "classic Graveyard: the owner bought the destroyed card back"),
    "graveyard_declined": ({"seat": SEAT, "district": DISTRICT},
                           "classic Graveyard: the owner let it go to the deck bottom"),
    "beautified": ({"seat": SEAT, "district": DISTRICT, "gold": GOLD}, "Artist"),
    "laboratory_used": (_AMOUNT, "Laboratory"),
    "smithy_used": ({"seat": SEAT, "count": NAT, "gold": GOLD}, "Smithy"),
    "income_cards": ({**_SEAT_CHARACTER, "count": NAT}, "collect_income paid in cards"),
    "studied": ({"seat": SEAT, "count": NAT}, "the Scholar drew cards to keep one"),
    "seized": ({"seat": SEAT, "target": SEAT, "district": DISTRICT, "price": NAT,
                "gold": GOLD}, "Marshal"),
    "poor_house": (_AMOUNT, "Poor House at the end of a turn"),
    "park": ({"seat": SEAT, "count": NAT}, "Park at the end of a turn"),
    "refund": ({**_SEAT_CHARACTER, "amount": NAT, "gold": GOLD}, "the Alchemist's refund"),
    "hand_seen": ({"seat": SEAT, "target": SEAT, "cards": CARDS},
                  "private: the hand the Spy looked at"),
    "spied": ({"seat": SEAT, "target": SEAT, "district_type": enum(t.value for t in
                                                                    DistrictType),
               "matches": NAT, "drawn": NAT, "gold": GOLD}, "Spy"),
    "hand_looked_at": ({"seat": SEAT, "target": SEAT}, "the Wizard looks at a hand"),
    "card_taken": ({"seat": SEAT, "target": SEAT}, "the Wizard took a card"),
    "card_lost": ({"seat": SEAT, "district": DISTRICT, "by": SEAT},
                  "private: the card the Wizard or the Seer took from you"),
    "card_gained": ({"seat": SEAT, "district": DISTRICT, "target": SEAT},
                    "private: the card the Seer took from a seat"),
    "cards_foreseen": ({"seat": SEAT, "targets": array(SEAT)},
                       "the Seer took a card from each of these seats"),
    "card_given": ({"seat": SEAT, "target": SEAT}, "the Seer gave a card"),
    "card_received": ({"seat": SEAT, "district": DISTRICT, "by": SEAT},
                      "private: the card the Seer gave you"),
    "armory_used": ({"seat": SEAT, "target": SEAT, "district": DISTRICT},
                    "the Armory destroyed itself and a district"),
    "framework_used": ({"seat": SEAT, "district": DISTRICT},
                       "the Framework was destroyed to build the district"),
    "necropolis_sacrifice": ({"seat": SEAT, "district": DISTRICT},
                             "a district destroyed to build the Necropolis"),
    "districts_traded": ({"seat": SEAT, "target": SEAT, "district": DISTRICT,
                          "give": DISTRICT, "price": NAT, "gold": GOLD}, "Diplomat"),
    "richest_paid": ({"seat": SEAT, "target": SEAT, "gold": GOLD},
                     "the richest player gave the Abbot 1 gold"),
    "crown_given": ({"seat": SEAT, "target": SEAT, "advisor": BOOL},
                    "the Emperor (or a killed Emperor's advisor) moved the crown"),
    "emperor_took": ({"seat": SEAT, "target": SEAT, "resource": enum(["gold", "cards"]),
                      "amount": NAT, "gold": GOLD}, "the Emperor's gold or random card"),
    "character_revealed": (_SEAT_CHARACTER, "a killed Emperor's holder reveals himself"),
    "cardinal_took": (_AMOUNT | {"target": SEAT}, "the Cardinal took the gold he lacked"),
    "bewitched": (_SEAT_CHARACTER, "the Witch named a character; her turn pauses"),
    "witch_resumed": (_SEAT_CHARACTER, "the bewitched holder's turn ended: the Witch "
                                        "plays the rest of it as that character"),
    "warrants_placed": ({"seat": SEAT, "characters": CHARACTERS},
                        "the Magistrate laid his warrants face down on these characters"),
    "own_warrant": (_SEAT_CHARACTER, "private: the character your signed warrant is on"),
    "warrant_passed": ({"seat": SEAT, "target": SEAT, "character": CHARACTER,
                        "district": DISTRICT},
                       "the Magistrate did not reveal a warrant at this build"),
    "confiscated": ({"seat": SEAT, "target": SEAT, "character": CHARACTER,
                     "district": DISTRICT, "refund": NAT, "gold": GOLD},
                    "the Magistrate revealed the signed warrant and took the district"),
    "museum_filled": ({"seat": SEAT, "count": NAT},
                      "a hand card went face down under the Museum (count: now under it)"),
    "own_museum": ({"seat": SEAT, "district": DISTRICT},
                   "private: the card you put under the Museum"),
    "museum_emptied": ({"seat": SEAT, "count": NAT},
                       "the Museum left the city: its cards went to the deck bottom"),
    "theater_swapped": ({"seat": SEAT, "target": SEAT},
                        "the Theater's owner swapped a character card with the target"),
    "own_swap": ({"seat": SEAT, "gave": CHARACTER, "received": CHARACTER, "other": SEAT},
                 "private: the character card you gave and the one you received (Theater)"),
    "theater_declined": (_SEAT_EVENT, "the Theater's owner kept his character cards"),
    "threats_placed": ({"seat": SEAT, "characters": CHARACTERS},
                       "the Blackmailer laid his threats face down on these characters"),
    "own_threat": (_SEAT_CHARACTER, "private: the character your flowered threat is on"),
    "bribe_paid": ({"seat": SEAT, "target": SEAT, "character": CHARACTER, "amount": NAT,
                    "gold": GOLD}, "a threatened player paid the bribe (half his gold)"),
    "bribe_refused": ({"seat": SEAT, "target": SEAT, "character": CHARACTER},
                      "a threatened player refused the bribe"),
    "threat_revealed": ({"seat": SEAT, "target": SEAT, "character": CHARACTER, "flower": BOOL,
                         "amount": NAT, "gold": GOLD},
                        "the Blackmailer showed the threat (the flower: all the gold)"),
    "threat_not_revealed": ({"seat": SEAT, "target": SEAT, "character": CHARACTER},
                            "the Blackmailer left a refused threat face down"),
    "turn_ended": (_SEAT_CHARACTER, "a character's turn ended"),
    "round_ended": ({"round": NAT}, "the round ended"),
    "game_ended": ({"termination": enum(t.value for t in Termination),
                    "scores": array(INT), "placings": array({"type": "integer", "minimum": 1})},
                   "the game ended"),
}
"""Every event: its fields besides `type`, and when it happens (PROTOCOL.md §9.5)."""

SPELL = enum(["witch", "bewitched", "resumed", "threatened"])
"""The optional context field `spell` of every turn decision the Witch touches (and of a
threatened player's turn before he gathers)."""
_TURN_CONTEXT = {"character": CHARACTER, "gathered": BOOL, "builds_left": NAT, "spell": SPELL}
CONTEXTS: dict[Kind, dict[str, Json]] = {
    Kind.PICK_CHARACTER: {"characters": CHARACTERS},
    Kind.DISCARD_CHARACTER: {"characters": CHARACTERS},
    Kind.TURN: _TURN_CONTEXT,
    Kind.KEEP_CARD: {**_TURN_CONTEXT, "drawn": CARDS},
    Kind.EXCHANGE_CARDS: {**_TURN_CONTEXT, "set_aside": CARDS},
    Kind.THIEVES_DEN: {**_TURN_CONTEXT, "cards_paid": CARDS, "gold_due": NAT},
    Kind.TAKE_CARD: {**_TURN_CONTEXT, "target": SEAT, "hand": CARDS},
    Kind.WIZARD_BUILD: {**_TURN_CONTEXT, "taken": DISTRICT},
    Kind.GIVE_CARD: {**_TURN_CONTEXT, "owed": array(SEAT)},
    Kind.ADVISOR: {**_TURN_CONTEXT, "crown": SEAT},
    Kind.GRAVEYARD: {"district": DISTRICT, "price": NAT},
    Kind.WARRANT: {"builder": SEAT, "character": CHARACTER, "district": DISTRICT, "paid": NAT},
    Kind.THEATER: {"characters": CHARACTERS},
    Kind.BRIBE: {**_TURN_CONTEXT, "blackmailer": SEAT, "bribe": NAT},
    Kind.REVEAL_THREAT: {"target": SEAT, "character": CHARACTER},
}
"""Every decision kind's `context` (PROTOCOL.md §9.3)."""

_REVEALED = closed({"seat": SEAT, "character": CHARACTER})
_TURN = closed({"gathered": BOOL, "builds_left": NAT, "used": array(STR),
                "pending": nullable(enum([*(k.value for k in Kind), Pending.STUDY])),
                "set_aside": CARDS})
OBSERVATION: dict[str, Json] = {
    "seat": SEAT, "players": NAT, "round": NAT,
    "phase": enum(["draft", "theater", "turn", "over"]),
    "crown": SEAT, "city_size": NAT, "cast": CHARACTERS, "gold": array(NAT),
    "hand_sizes": array(NAT), "cities": array(CARDS), "beautified": array(CARDS),
    "deck_size": NAT, "tax_token": NAT, "first_complete": nullable(SEAT),
    "faceup_discards": CHARACTERS, "killed": nullable(CHARACTER), "robbed": nullable(CHARACTER),
    "bewitched": nullable(CHARACTER),
    "revealed": array(_REVEALED), "current": nullable(_REVEALED), "hand": CARDS,
    "characters": CHARACTERS, "draft_pool": nullable(CHARACTERS), "turn": nullable(_TURN),
    "warrants": CHARACTERS, "signed_warrant": nullable(CHARACTER),
    "museum": NAT,
    "threats": CHARACTERS, "flower": nullable(CHARACTER),
}
"""Every observation field (PROTOCOL.md §9.4)."""


def decision_schema() -> dict[str, Json]:
    """A request's `kind`, `context` and `options` (every machiavelli request lists them)."""
    variants = {kind.value: {"context": closed(CONTEXTS[kind], optional=("spell",)),
                             "options": array(action_schema(ALLOWED[kind]))}
                for kind in Kind}
    return tagged("kind", variants, {}, "a machiavelli decision: a request's kind, context "
                                        "and options")


def schemas() -> dict[str, Json]:
    """The four schemas: `observation`, `action`, `event`, `decision`."""
    return {
        "observation": closed(OBSERVATION, "what one seat may know (a request's observation)"),
        "action": action_schema(),
        "event": tagged("type", {k: fields for k, (fields, _) in EVENTS.items()},
                        {k: doc for k, (_, doc) in EVENTS.items()},
                        "a machiavelli event (as sent in a request's or game_over's events)"),
        "decision": decision_schema(),
    }
