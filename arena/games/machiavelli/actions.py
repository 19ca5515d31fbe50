"""Machiavelli actions: one frozen value type, its wire form, and parsing from the wire.

Every action is `{"type": ...}` plus at most the fields `character`, `district`, `seat`,
`resource`, `district_type`, `give`, `amount` and `decoys`.
Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from operator import attrgetter
from typing import Any, NoReturn

from arena.core.errors import MalformedAction
from arena.core.game import Json
from arena.core.words import plural

from .cards import CHARACTER_BY_WIRE, DISTRICTS, Character, DistrictType


class Kind(StrEnum):
    """Decision kinds (`Decision.kind`)."""

    PICK_CHARACTER = "pick_character"
    DISCARD_CHARACTER = "discard_character"
    TURN = "turn"
    KEEP_CARD = "keep_card"
    EXCHANGE_CARDS = "exchange_cards"
    THIEVES_DEN = "thieves_den"
    GRAVEYARD = "graveyard"
    TAKE_CARD = "take_card"
    WIZARD_BUILD = "wizard_build"
    GIVE_CARD = "give_card"
    ADVISOR = "advisor"
    WARRANT = "warrant"
    THEATER = "theater"
    BRIBE = "bribe"
    REVEAL_THREAT = "reveal_threat"


class ActionType(StrEnum):
    """The `type` of an action on the wire."""

    PICK_CHARACTER = "pick_character"
    DISCARD_CHARACTER = "discard_character"
    GATHER_GOLD = "gather_gold"
    GATHER_CARDS = "gather_cards"
    KEEP_CARD = "keep_card"
    BUILD = "build"
    PAY_WITH_CARDS = "pay_with_cards"
    PAY_CARD = "pay_card"
    COLLECT_INCOME = "collect_income"
    KILL = "kill"
    ROB = "rob"
    SWAP_HANDS = "swap_hands"
    EXCHANGE_CARDS = "exchange_cards"
    DISCARD_CARD = "discard_card"
    DESTROY = "destroy"
    BEAUTIFY = "beautify"
    TAKE_TAX = "take_tax"
    LABORATORY = "laboratory"
    SMITHY = "smithy"
    NAVIGATE = "navigate"
    STUDY = "study"
    SEIZE = "seize"
    SPY = "spy"
    LOOK = "look"
    TAKE_CARD = "take_card"
    FORESEE = "foresee"
    GIVE_CARD = "give_card"
    ARMORY = "armory"
    FRAMEWORK = "framework"
    NECROPOLIS = "necropolis"
    TRADE_DISTRICTS = "trade_districts"
    ABBOT_INCOME = "abbot_income"
    TAKE_FROM_RICHEST = "take_from_richest"
    GIVE_CROWN = "give_crown"
    ADVISE = "advise"
    CARDINAL_BUILD = "cardinal_build"
    BEWITCH = "bewitch"
    PLACE_WARRANTS = "place_warrants"
    CONFISCATE = "confiscate"
    MUSEUM = "museum"
    THEATER = "theater"
    THREATEN = "threaten"
    PAY_BRIBE = "pay_bribe"
    REFUSE_BRIBE = "refuse_bribe"
    REVEAL_THREAT = "reveal_threat"
    DONE = "done"
    END_TURN = "end_turn"


T = ActionType
_FIELDS: dict[ActionType, tuple[str, ...]] = {
    T.PICK_CHARACTER: ("character",), T.DISCARD_CHARACTER: ("character",),
    T.KILL: ("character",), T.ROB: ("character",), T.BEWITCH: ("character",),
    T.KEEP_CARD: ("district",), T.BUILD: ("district",), T.PAY_CARD: ("district",),
    T.DISCARD_CARD: ("district",), T.BEAUTIFY: ("district",), T.LABORATORY: ("district",),
    T.PAY_WITH_CARDS: ("district",),
    T.SWAP_HANDS: ("seat",), T.DESTROY: ("seat", "district"),
    T.NAVIGATE: ("resource",), T.SEIZE: ("seat", "district"),
    T.SPY: ("seat", "district_type"), T.LOOK: ("seat",), T.TAKE_CARD: ("district",),
    T.GIVE_CARD: ("seat", "district"), T.ARMORY: ("seat", "district"),
    T.FRAMEWORK: ("district",), T.NECROPOLIS: ("district",),
    T.TRADE_DISTRICTS: ("seat", "district", "give"), T.ABBOT_INCOME: ("amount",),
    T.TAKE_FROM_RICHEST: ("seat",), T.GIVE_CROWN: ("seat", "resource"), T.ADVISE: ("seat",),
    T.CARDINAL_BUILD: ("seat", "district"), T.PLACE_WARRANTS: ("character", "decoys"),
    T.MUSEUM: ("district",), T.THEATER: ("seat", "character"),
    T.THREATEN: ("character", "decoys"),
}
RESOURCES = ("gold", "cards")
"""Values of the `resource` field (the Navigator's choice)."""

ALLOWED: dict[Kind, frozenset[ActionType]] = {
    Kind.PICK_CHARACTER: frozenset({T.PICK_CHARACTER}),
    Kind.DISCARD_CHARACTER: frozenset({T.DISCARD_CHARACTER}),
    Kind.KEEP_CARD: frozenset({T.KEEP_CARD}),
    Kind.EXCHANGE_CARDS: frozenset({T.DISCARD_CARD, T.DONE}),
    Kind.THIEVES_DEN: frozenset({T.PAY_CARD, T.DONE}),
    Kind.GRAVEYARD: frozenset({T.KEEP_CARD, T.DONE}),
    Kind.TURN: frozenset({
        T.GATHER_GOLD, T.GATHER_CARDS, T.BUILD, T.PAY_WITH_CARDS, T.COLLECT_INCOME, T.KILL,
        T.ROB, T.SWAP_HANDS, T.EXCHANGE_CARDS, T.DESTROY, T.BEAUTIFY, T.TAKE_TAX,
        T.LABORATORY, T.SMITHY, T.NAVIGATE, T.STUDY, T.SEIZE, T.SPY, T.LOOK, T.FORESEE,
        T.ARMORY, T.FRAMEWORK, T.NECROPOLIS, T.TRADE_DISTRICTS, T.ABBOT_INCOME,
        T.TAKE_FROM_RICHEST, T.GIVE_CROWN, T.CARDINAL_BUILD, T.BEWITCH, T.PLACE_WARRANTS, T.MUSEUM,
        T.THREATEN, T.END_TURN,
    }),
    Kind.TAKE_CARD: frozenset({T.TAKE_CARD}),
    Kind.WIZARD_BUILD: frozenset({T.DONE, T.BUILD}),
    Kind.GIVE_CARD: frozenset({T.GIVE_CARD}),
    Kind.ADVISOR: frozenset({T.ADVISE}),
    Kind.WARRANT: frozenset({T.DONE, T.CONFISCATE}),
    Kind.THEATER: frozenset({T.THEATER, T.DONE}),
    Kind.BRIBE: frozenset({T.PAY_BRIBE, T.REFUSE_BRIBE}),
    Kind.REVEAL_THREAT: frozenset({T.DONE, T.REVEAL_THREAT}),
}


@dataclass(frozen=True, slots=True)
class Action:
    """A Machiavelli action; which optional fields are set depends on `type`."""

    type: ActionType
    character: Character | None = None
    district: str | None = None
    seat: int | None = None
    resource: str | None = None
    district_type: str | None = None
    give: str | None = None
    amount: int | None = None
    decoys: tuple[Character, ...] | None = None
    """The unmarked characters of a marker placement (the Magistrate's unsigned warrants,
    the Blackmailer's threat without the flower), in rank order; `character` names the real
    one."""

    interned_wire: dict[str, Json] | None = field(default=None, compare=False, repr=False)
    """The wire form, set once by `make` on the one shared action (None on an action built
    by hand): every decision that offers the action shares it, so it is read-only."""

    def to_wire(self) -> dict[str, Json]:
        """Return the canonical wire form (a JSON object with a `type`)."""
        wire: dict[str, Json] = {"type": self.type.value}
        if self.character is not None:
            wire["character"] = self.character.wire
        if self.seat is not None:
            wire["seat"] = self.seat
        if self.district is not None:
            wire["district"] = self.district
        if self.resource is not None:
            wire["resource"] = self.resource
        if self.district_type is not None:
            wire["district_type"] = self.district_type
        if self.give is not None:
            wire["give"] = self.give
        if self.amount is not None:
            wire["amount"] = self.amount
        if self.decoys is not None:
            wire["decoys"] = [c.wire for c in self.decoys]
        return wire


_INTERNED: dict[tuple[ActionType, Character | None, str | None, int | None, str | None,
                      str | None, str | None, int | None, tuple[Character, ...] | None],
                Action] = {}


def make(action_type: ActionType, character: Character | None = None,
         district: str | None = None, seat: int | None = None,
         resource: str | None = None, district_type: str | None = None,
         give: str | None = None, amount: int | None = None,
         decoys: tuple[Character, ...] | None = None) -> Action:
    """Return the one shared `Action` with these fields (cheap on the hot path)."""
    key = (action_type, character, district, seat, resource, district_type, give, amount,
           decoys)
    action = _INTERNED.get(key)
    if action is None:
        action = _INTERNED[key] = Action(action_type, character, district, seat, resource,
                                         district_type, give, amount, decoys)
        # frozen: the one write, before anyone else holds the action
        object.__setattr__(action, "interned_wire", action.to_wire())
    return action


def _known(action_type: ActionType, character: Character | None = None,
           district: str | None = None, seat: int | None = None,
           resource: str | None = None, district_type: str | None = None,
           give: str | None = None, amount: int | None = None,
           decoys: tuple[Character, ...] | None = None) -> Action:
    """The shared action with these fields where the engine made one (every legal action is
    made by `make`), else a new one that is not kept. What a bot sends is never interned:
    each action it made up (a seat of 4,300 digits, a list of 100,000 decoys: 2.5 MB) stayed
    in the worker's memory for its life, three per game."""
    key = (action_type, character, district, seat, resource, district_type, give, amount,
           decoys)
    action = _INTERNED.get(key)
    return action if action is not None else Action(*key)


_INTERNED_WIRE = attrgetter("interned_wire")


def shared_wires(actions: tuple[Action, ...]) -> tuple[dict[str, Json], ...]:
    """Return the shared wire form of each action (made by `make`; read-only): a C attribute
    getter mapped over them, half the cost of an `id`-keyed table (bench/engine.py, to_act)."""
    return tuple(map(_INTERNED_WIRE, actions))


class ActionTable(dict[Any, Action]):
    """The interned actions of one type keyed by their one argument (a character, a district
    id, a seat, or a (seat, district) pair), filled on first use: a hit costs one dict
    lookup instead of a call to `make`."""

    def __init__(self, action_type: ActionType, *fields: str) -> None:
        super().__init__()
        self.action_type, self.fields = action_type, fields

    def __missing__(self, key: Any) -> Action:
        values = dict(zip(self.fields, key if len(self.fields) > 1 else (key,), strict=True))
        action = self[key] = make(self.action_type, **values)
        return action


def wire_text(value: Json) -> str:
    """Return `value` as compact JSON: fault details quote the wire, which a bot author can
    read, parse and paste back (a Python repr such as `{'type': 'build'}` is not JSON)."""
    return json.dumps(value, separators=(",", ":"), default=repr)


# the parser's lookups, by wire string: a dict hit where an Enum call (`ActionType(raw)`,
# `Kind(kind)`) costs a Python-level lookup, and the keys an action may carry as one set
_TYPE_BY_WIRE: dict[str, ActionType] = {t.value: t for t in ActionType}
_ALLOWED_BY_KIND: dict[str, frozenset[ActionType]] = {k.value: v for k, v in ALLOWED.items()}
_KEYS: dict[ActionType, frozenset[str]] = {
    t: frozenset(("type", *_FIELDS.get(t, ()))) for t in ActionType}


def parse(kind: str, payload: Json) -> Action:
    """Parse a wire payload as an action allowed for a decision of `kind`.

    Raises:
        MalformedAction: not an object, unknown type, a type not allowed for this decision,
            a missing or extra field, or a field of the wrong type or an unknown id.
    """
    if not isinstance(payload, dict):
        raise MalformedAction(f"action must be a JSON object, got {type(payload).__name__}")
    allowed = _ALLOWED_BY_KIND.get(kind)
    if allowed is None:
        raise MalformedAction(f"unknown decision kind {wire_text(kind)}")
    raw_type = payload.get("type")
    action_type = _TYPE_BY_WIRE.get(raw_type) if isinstance(raw_type, str) else None
    if action_type is None or action_type not in allowed:
        # the kind's every type, not the legal ones: those are the request's options
        takes = ", ".join(sorted(t.value for t in allowed))
        what = (f"unknown action type {wire_text(raw_type)}" if action_type is None else
                f"action type {wire_text(action_type.value)} is not allowed for a "
                f"{wire_text(kind)} decision")
        raise MalformedAction(f"{what}; a {wire_text(kind)} decision takes the types "
                              f"{takes} (the request's options are the actions legal now)")
    keys = _KEYS[action_type]
    if len(payload) != len(keys) or payload.keys() != keys:
        _wrong_fields(payload, action_type, keys)
    fields = _FIELDS.get(action_type, ())
    if not fields:
        return make(action_type)
    return _known(
        action_type,
        _character(payload, action_type) if "character" in fields else None,
        _district(payload, action_type) if "district" in fields else None,
        _seat(payload, action_type) if "seat" in fields else None,
        _resource(payload, action_type) if "resource" in fields else None,
        _district_type(payload, action_type) if "district_type" in fields else None,
        _district(payload, action_type, "give") if "give" in fields else None,
        _seat(payload, action_type, "amount") if "amount" in fields else None,
        _decoys(payload, action_type) if "decoys" in fields else None,
    )


def _wrong_fields(payload: dict[str, Json], action_type: ActionType,
                  keys: frozenset[str]) -> NoReturn:
    """Raise for the fields `payload` has that `action_type` does not, or lacks."""
    extra = sorted(payload.keys() - keys)
    if extra:
        # quoted as JSON: a key is the bot's text, and may carry a terminal's escapes
        raise MalformedAction(f"{action_type.value}: unexpected "
                              f"{plural('field', len(extra))} "
                              f"{', '.join(map(wire_text, extra))}")
    missing = [f for f in _FIELDS.get(action_type, ()) if f not in payload]
    raise MalformedAction(f"{action_type.value}: missing {plural('field', len(missing))} "
                          f"{', '.join(missing)}")


MAX_DECOYS = 8
"""The most decoys a marker placement can name (the Magistrate's are 2, the Blackmailer's 1):
the other characters of a cast of 9. A longer list is malformed."""


def _decoys(payload: dict[str, Json], action_type: ActionType) -> tuple[Character, ...]:
    """A list of character ids, put in rank order (the order a bot sends is not part of the
    choice)."""
    value = payload["decoys"]
    if not isinstance(value, list):
        raise MalformedAction(f"{action_type.value}: decoys {wire_text(value)} is not a list "
                              "of character ids")
    if len(value) > MAX_DECOYS:  # before the walk: a 1 MiB frame holds 100,000 of them
        raise MalformedAction(f"{action_type.value}: decoys holds {len(value)} character ids, "
                              f"at most {MAX_DECOYS}")
    return tuple(sorted(_character({"character": v}, action_type) for v in value))


def _district_type(payload: dict[str, Json], action_type: ActionType) -> str:
    return _one_of(payload, "district_type", [t.value for t in DistrictType], action_type)


def _resource(payload: dict[str, Json], action_type: ActionType) -> str:
    return _one_of(payload, "resource", RESOURCES, action_type)


def _one_of(payload: dict[str, Json], key: str, valid: Sequence[str],
            action_type: ActionType) -> str:
    value = payload[key]
    if value not in valid:
        raise MalformedAction(f"{action_type.value}: {key} {wire_text(value)} is not one of "
                              f"{', '.join(valid)}")
    return str(value)


def _character(payload: dict[str, Json], action_type: ActionType) -> Character:
    value = payload["character"]
    if not isinstance(value, str) or value not in CHARACTER_BY_WIRE:
        valid = ", ".join(CHARACTER_BY_WIRE)
        raise MalformedAction(f"{action_type.value}: unknown character {wire_text(value)}; "
                              f"valid: {valid}")
    return CHARACTER_BY_WIRE[value]


def _district(payload: dict[str, Json], action_type: ActionType,
              field: str = "district") -> str:
    value = payload[field]
    if not isinstance(value, str) or value not in DISTRICTS:
        raise MalformedAction(f"{action_type.value}: unknown district {wire_text(value)} "
                              '(districts are ids such as "manor", "thieves_den")')
    return value


def _seat(payload: dict[str, Json], action_type: ActionType, field: str = "seat") -> int:
    # the range is checked by validation (an absent seat is illegal, not malformed)
    value = payload[field]
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        what = "a seat number" if field == "seat" else "a count (an integer >= 0)"
        raise MalformedAction(f"{action_type.value}: {field} {wire_text(value)} is not {what}")
    return value
