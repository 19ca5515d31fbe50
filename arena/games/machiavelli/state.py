"""The mutable Machiavelli state, its clone and its JSON form.

The state is owned by the engine; everything in it is plain lists, ints and strings (plus
the game's `random.Random`), so that clone and observation are cheap. Characters are held as
`Character` values and written to JSON as their wire ids. Imports only the standard library
and `arena.core`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from arena.core.game import Decision, Json, Outcome
from arena.core.rng import rng_from_json, rng_state_to_json

from .actions import Action
from .cards import CHARACTER_BY_WIRE, Character


class Phase:
    """Values of `State.phase`. `round_start`, `call` and `round_end` are transient: the
    engine resolves them at once (`rules.settle`); a scenario may start from one."""

    ROUND_START = "round_start"
    DRAFT = "draft"
    THEATER = "theater"
    """The Theater's owner may swap a character card (the end of the selection phase)."""
    CALL = "call"
    TURN = "turn"
    ROUND_END = "round_end"
    OVER = "over"

    ALL = (ROUND_START, DRAFT, THEATER, CALL, TURN, ROUND_END, OVER)


class Pending:
    """Values of `State.pending`: a multi-step choice in progress during a turn."""

    KEEP = "keep_card"
    EXCHANGE = "exchange_cards"
    DEN = "thieves_den"
    GRAVEYARD = "graveyard"
    """Classic: the owner of the Graveyard decides whether to buy back the destroyed card
    (set aside); the deciding seat is not the current one."""
    STUDY = "study"
    TAKE = "take_card"
    WIZARD_BUILD = "wizard_build"
    GIVE = "give_card"
    ADVISOR = "advisor"
    WARRANT = "warrant"
    """The Magistrate decides whether to reveal his signed warrant (another seat's build)."""
    BRIBE = "bribe"
    """The threatened player, having gathered, pays the Blackmailer's bribe or refuses."""
    REVEAL_THREAT = "reveal_threat"
    """After a refusal the Blackmailer decides whether to reveal the threat (his seat)."""


class Spell:
    """Values of `State.spell`: the two turns the Witch restricts (REFERENCE §1.4.1, §1.8).

    The seat that acts (`current_seat`) and the character whose turn it is (`current_char`)
    differ when the Witch resumes: she acts with her own hand, gold and city as the
    bewitched character. `spell` is None then (her resumed turn is a full turn of that
    character); `State.bewitched` names the character, `witch_seat` her seat.
    """

    WITCH = "witch"
    """The Witch's own turn: gather, then bewitch a character; her turn then pauses."""
    BEWITCHED = "bewitched"
    """The bewitched character's holder: he gathers, and his turn ends at once."""
    THREATENED = "threatened"
    """Not the Witch's: the threatened player's turn until he has gathered (gather only);
    he then settles the threat (`Pending.BRIBE`) before anything else (§1.4.1)."""
    RESUMED = "resumed"
    """Not a value of `State.spell`: the decision context's name for the Witch's resumed
    turn (`spell` None, `current_char` the bewitched character)."""


@dataclass(slots=True)
class Legal:
    """The current decision with its legal actions (cached in `State.cache`).

    `checked` is an action already found legal for the deciding seat (by `validate`, or
    chosen from `actions` by the engine), so that `apply` need not look for it again.
    """

    decision: Decision
    actions: tuple[Action, ...]
    checked: Action | None = None


# slots: with more than 30 fields an instance __dict__ cannot share its keys with the class,
# so CPython does not specialize attribute access on it; slot access stays fast
@dataclass(slots=True)
class State:
    """Everything about one game. See docs/machiavelli.md for the JSON form of each field."""

    players: int
    rules: dict[str, Json]
    rng: random.Random
    cast: list[Character]
    crown: int
    gold: list[int]
    hands: list[list[str]]
    cities: list[list[str]]
    beautified: list[list[str]]
    deck: list[str]
    round: int = 0
    phase: str = Phase.ROUND_START
    chars: list[list[Character]] = field(default_factory=list)
    faceup: list[Character] = field(default_factory=list)
    facedown: list[Character] = field(default_factory=list)
    pool: list[Character] = field(default_factory=list)
    draft_index: int = 0
    killed: Character | None = None
    robbed: Character | None = None
    thief_seat: int | None = None
    bishop_seat: int | None = None
    revealed: list[tuple[int, Character]] = field(default_factory=list)
    calling: int = 0
    current_seat: int | None = None
    current_char: Character | None = None
    gathered: bool = False
    builds_left: int = 0
    used: list[str] = field(default_factory=list)
    pending: str | None = None
    aside: list[str] = field(default_factory=list)
    tax_token: int = 0
    haunted_round: int = 0
    """The round in which the Haunted City was last built (classic: not counted as another
    type if built in the last round); 0 when never."""
    build_paid: int = 0
    """Gold paid to build in the current turn (the Alchemist's refund)."""
    target: int | None = None
    """The seat whose hand the Wizard looks at (pending `take_card`)."""
    owed: list[int] = field(default_factory=list)
    """Seats the Seer still owes a card, in order (pending `give_card`)."""
    bewitched: Character | None = None
    """The character the Witch named this round (public: she names it aloud)."""
    witch_seat: int | None = None
    """The Witch's seat once she has bewitched (she resumes there)."""
    spell: str | None = None
    """`Spell.WITCH` or `Spell.BEWITCHED` during the turns the Witch restricts, else None."""
    magistrate: int | None = None
    """The seat that placed the warrants this round."""
    warrants: list[Character] = field(default_factory=list)
    """Characters under a face-down warrant still in force, by rank (public)."""
    signed: Character | None = None
    """SECRET of the Magistrate's seat: the signed warrant's character while it is in force
    (one of `warrants`); None once it is spent, revealed, or never placed."""
    blackmailer: int | None = None
    """The seat that placed the threats this round."""
    threats: list[Character] = field(default_factory=list)
    """Characters under a face-down threat not yet settled, by rank (public)."""
    flower: Character | None = None
    """SECRET of the Blackmailer's seat: the character under the flowered threat while it is
    unsettled (one of `threats`); None once settled or never placed."""
    warrant_build: list[Json] | None = None
    """[district, gold paid, the city's size before] of the build the Magistrate is deciding
    about (pending `warrant`)."""
    museum: list[str] = field(default_factory=list)
    """The cards face down under the Museum, wherever it stands (the deck holds one), in the
    order they were put there; only their number is public (DECISIONS.md, "Museum")."""
    first_complete: int | None = None
    termination: str | None = None
    cache: Legal | None = field(default=None, repr=False, compare=False)
    """The current decision and its legal actions, cached by `rules.legal`; never serialized.

    Invariant: None, or the `Legal` of this state exactly as it is now. Whatever changes the
    state clears it first (`rules.apply`, `rules.settle`; a test or scenario that edits fields
    by hand must set it to None too). `Legal.checked` only ever holds an action legal in that
    state, so a clone may share the object: the first change to either copy drops its
    reference, never the object's contents.
    """
    scored: Outcome | None = field(default=None, repr=False, compare=False)
    """The outcome scored when the game ended (`rules._finish`), kept so that
    `scoring.final_outcome` need not score the game again; never serialized. Never handed
    out itself (its `details` hold mutable lists and dicts): callers get a copy, ~2 us where
    scoring a 4-player game again took ~37 us. A clone may share it: the engine changes no
    state once it is over, and the object itself never leaves the engine."""


_CHAR_FIELDS = ("killed", "robbed", "current_char", "bewitched", "signed", "flower")
_CHAR_LIST_FIELDS = ("cast", "faceup", "facedown", "pool", "warrants", "threats")
_PLAIN = ("players", "crown", "round", "phase", "draft_index", "thief_seat", "bishop_seat",
          "calling", "current_seat", "gathered", "builds_left", "pending", "tax_token",
          "first_complete", "termination", "build_paid", "target", "witch_seat", "spell",
          "magistrate", "warrant_build", "blackmailer")
_ADDED: dict[str, Json] = {"build_paid": 0, "target": None, "owed": [], "bewitched": None,
                           "witch_seat": None, "spell": None, "magistrate": None,
                           "warrant_build": None, "signed": None, "warrants": [],
                           "museum": [], "blackmailer": None, "flower": None,
                           "threats": []}
"""Fields added after states were first stored, with the value an older state means."""
_LISTS = ("gold", "deck", "used", "aside", "owed", "museum")
_NESTED = ("hands", "cities", "beautified")


def clone(state: State) -> State:
    """Return an independent copy (the RNG included) that evolves identically."""
    rng = random.Random()
    rng.setstate(state.rng.getstate())
    return State(
        players=state.players, rules=state.rules, rng=rng, cast=list(state.cast),
        crown=state.crown, gold=list(state.gold), hands=[list(h) for h in state.hands],
        cities=[list(c) for c in state.cities],
        beautified=[list(b) for b in state.beautified], deck=list(state.deck),
        round=state.round, phase=state.phase, chars=[list(c) for c in state.chars],
        faceup=list(state.faceup), facedown=list(state.facedown), pool=list(state.pool),
        draft_index=state.draft_index, killed=state.killed, robbed=state.robbed,
        thief_seat=state.thief_seat, bishop_seat=state.bishop_seat,
        revealed=list(state.revealed), calling=state.calling,
        current_seat=state.current_seat, current_char=state.current_char,
        gathered=state.gathered, builds_left=state.builds_left, used=list(state.used),
        pending=state.pending, aside=list(state.aside), tax_token=state.tax_token,
        haunted_round=state.haunted_round,
        build_paid=state.build_paid, target=state.target, owed=list(state.owed),
        bewitched=state.bewitched, witch_seat=state.witch_seat, spell=state.spell,
        magistrate=state.magistrate, warrants=list(state.warrants), signed=state.signed,
        warrant_build=None if state.warrant_build is None else list(state.warrant_build),
        museum=list(state.museum),
        blackmailer=state.blackmailer, threats=list(state.threats), flower=state.flower,
        first_complete=state.first_complete, termination=state.termination,
        cache=state.cache, scored=state.scored,
    )


def to_json(state: State) -> dict[str, Json]:
    """Return the whole state as JSON-ready data (the rules, RNG state included)."""
    data: dict[str, Json] = {"rules": dict(state.rules)}
    for name in _PLAIN:
        data[name] = getattr(state, name)
    for name in _LISTS:
        data[name] = list(getattr(state, name))
    for name in _NESTED:
        data[name] = [list(x) for x in getattr(state, name)]
    for name in _CHAR_FIELDS:
        value = getattr(state, name)
        data[name] = None if value is None else value.wire
    for name in _CHAR_LIST_FIELDS:
        data[name] = [c.wire for c in getattr(state, name)]
    data["chars"] = [[c.wire for c in cs] for cs in state.chars]
    data["revealed"] = [[seat, c.wire] for seat, c in state.revealed]
    data["rng"] = rng_state_to_json(state.rng)
    data["haunted_round"] = state.haunted_round
    return data


def from_json(data: Mapping[str, Json]) -> State:
    """Rebuild a state from `to_json` data.

    Raises:
        KeyError / ValueError: a field is missing or holds an unknown character id.
    """
    def char(value: Json) -> Character | None:
        return None if value is None else CHARACTER_BY_WIRE[value]

    def chars(values: Json) -> list[Character]:
        return [CHARACTER_BY_WIRE[v] for v in values]

    state = State(
        players=data["players"], rules=dict(data["rules"]), rng=rng_from_json(data["rng"]),
        cast=chars(data["cast"]), crown=data["crown"], gold=list(data["gold"]),
        hands=[list(h) for h in data["hands"]], cities=[list(c) for c in data["cities"]],
        beautified=[list(b) for b in data["beautified"]], deck=list(data["deck"]),
    )
    for name in _PLAIN:
        setattr(state, name, data[name] if name in data or name not in _ADDED
                else _ADDED[name])
    for name in ("used", "aside", "owed", "museum"):
        setattr(state, name, list(data.get(name, [])))
    for name in _CHAR_FIELDS:
        setattr(state, name, char(data[name] if name in data or name not in _ADDED
                                  else _ADDED[name]))
    for name in ("faceup", "facedown", "pool", "warrants", "threats"):
        setattr(state, name, chars(data[name] if name in data else _ADDED[name]))
    state.chars = [chars(cs) for cs in data["chars"]]
    state.revealed = [(int(seat), CHARACTER_BY_WIRE[c]) for seat, c in data["revealed"]]
    # absent from states written before the classic edition: nobody had built it
    state.haunted_round = int(data.get("haunted_round", 0))
    return state
