"""What one seat may know: THE ONLY place where hidden information is filtered.

Public: cities, gold, hand sizes, deck size, crown, face-up discards, the characters named by
the Assassin, the Thief and the Witch, characters revealed this round and by whom, the tax
token, the acting seat and the character it plays (the Witch's seat, resumed, plays the
bewitched character), the characters under a face-down warrant or threat, how many cards
lie under the Museum. Private to the seat: its hand, its own characters, the characters
offered to it during the draft (while it chooses), its own turn's pending cards, and which of
its warrants is signed or which of its threats bears the flower. Never: other hands, other
seats' unrevealed characters, face-down discards, the cards under the Museum (not even for
its owner: DECISIONS.md "Museum"), the deck order, the RNG.
`observation_view` is that filter; `observation` is the same call with `fresh` (nothing in
it shared), for callers that keep it.
Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.game import Json

from . import draft
from .cards import NAMES, Character
from .state import Phase, State

_DRAFT, _TURN = Phase.DRAFT, Phase.TURN  # globals: cached lookups, unlike class attributes


# every key in wire order, valued None: the view copies it (one C call that reuses the key
# table) and stores the values that are not None, cheaper than building a 23-key dict
_TEMPLATE: dict[str, Json] = dict.fromkeys((
    "seat", "players", "round", "phase", "crown", "city_size", "cast", "gold", "hand_sizes",
    "cities", "beautified", "deck_size", "tax_token", "first_complete", "faceup_discards",
    "killed", "robbed", "bewitched", "revealed", "current", "hand", "characters", "draft_pool",
    "turn", "warrants", "signed_warrant", "threats", "flower", "museum"))


class _SeatCharacters(dict[tuple[int, Character], dict[str, Json]]):
    """The wire form `{"seat": s, "character": c}` of each (seat, character) pair, made on
    first use and shared by the views (read-only there): for the revealed characters and
    the current one, a lookup instead of new dicts (~0.3 us per view, bench/engine.py)."""

    def __missing__(self, key: tuple[int, Character]) -> dict[str, Json]:
        wire = self[key] = {"seat": key[0], "character": NAMES[key[1]]}
        return wire


class _Names(dict[tuple[Character, ...], list[str]]):
    """The wire ids of each tuple of characters (face-up discards, a seat's characters,
    warrants, threats), made on first use and shared by the views (read-only there): a
    lookup instead of naming them again (~0.17 us per list)."""

    def __missing__(self, key: tuple[Character, ...]) -> list[str]:
        names = self[key] = list(map(NAMES.__getitem__, key))
        return names


_SEAT_CHARACTER, _NAMES = _SeatCharacters(), _Names()


def observation_view(state: State, seat: int, *, fresh: bool = False) -> dict[str, Json]:
    """Return the observation of `seat`. By default a view: it shares the state's own lists
    where it holds them (the cast, gold, cities, beautified districts, the seat's hand, its
    turn's used and set-aside lists), the cached decision's pool names and the wire forms of
    characters in `_SEAT_CHARACTER` and `_NAMES`, for a caller that encodes it before the
    state next changes and never writes to it (the referee): about 40% cheaper
    (bench/engine.py). `fresh`: every list and dict in it is its own (`observation`)."""
    current, character = state.current_seat, state.current_char
    killed, robbed, phase, revealed = state.killed, state.robbed, state.phase, state.revealed
    obs = _TEMPLATE.copy()
    obs["seat"] = seat
    obs["players"] = state.players
    obs["round"] = state.round
    obs["phase"] = phase
    obs["crown"] = state.crown
    obs["city_size"] = state.rules["city_size"]
    obs["cast"] = list(state.rules["characters"]) if fresh else state.rules["characters"]
    obs["gold"] = state.gold.copy() if fresh else state.gold
    obs["hand_sizes"] = list(map(len, state.hands))
    obs["cities"] = list(map(list, state.cities)) if fresh else state.cities
    obs["beautified"] = list(map(list, state.beautified)) if fresh else state.beautified
    obs["deck_size"] = len(state.deck)
    obs["tax_token"] = state.tax_token
    obs["first_complete"] = state.first_complete
    faceup = _NAMES[tuple(state.faceup)]
    obs["faceup_discards"] = faceup.copy() if fresh else faceup
    obs["museum"] = len(state.museum)  # face down: their number only, for every seat
    if killed:
        obs["killed"] = NAMES[killed]
    if robbed:
        obs["robbed"] = NAMES[robbed]
    if state.bewitched:
        obs["bewitched"] = NAMES[state.bewitched]  # named aloud by the Witch
    obs["revealed"] = (list(map(dict, map(_SEAT_CHARACTER.__getitem__, revealed))) if fresh
                       else list(map(_SEAT_CHARACTER.__getitem__, revealed)))
    if current is not None and character is not None:
        obs["current"] = (dict(_SEAT_CHARACTER[current, character]) if fresh
                          else _SEAT_CHARACTER[current, character])
    warrants = state.warrants
    obs["warrants"] = _NAMES[tuple(warrants)].copy() if fresh else _NAMES[tuple(warrants)]
    if warrants and state.magistrate == seat and state.signed is not None:
        obs["signed_warrant"] = NAMES[state.signed]  # the Magistrate's secret: his seat only
    threats = state.threats
    obs["threats"] = _NAMES[tuple(threats)].copy() if fresh else _NAMES[tuple(threats)]
    if threats and state.blackmailer == seat and state.flower is not None:
        obs["flower"] = NAMES[state.flower]  # the Blackmailer's secret: his seat only
    obs["hand"] = state.hands[seat].copy() if fresh else state.hands[seat]
    characters = _NAMES[tuple(state.chars[seat])]
    obs["characters"] = characters.copy() if fresh else characters
    if phase == _TURN:
        if current == seat:
            used, aside = (state.used.copy(), state.aside.copy()) if fresh else (
                state.used, state.aside)
            obs["turn"] = {"gathered": state.gathered, "builds_left": state.builds_left,
                           "used": used, "pending": state.pending, "set_aside": aside}
    elif phase == _DRAFT:
        # the cached decision names the drafting seat and the pool's names in rank order
        # (cheaper than sorting and naming the pool again)
        cached = state.cache
        if cached is not None:
            if cached.decision.seat == seat:
                pool = cached.decision.context["characters"]
                obs["draft_pool"] = list(pool) if fresh else pool
        elif draft.decision_seat(state)[0] == seat:
            obs["draft_pool"] = list(map(NAMES.__getitem__, sorted(state.pool)))
    return obs


def observation(state: State, seat: int) -> dict[str, Json]:
    """Return the observation of `seat` as plain JSON-ready data of its own: what a caller
    does to it reaches neither the state nor another observation."""
    return observation_view(state, seat, fresh=True)
