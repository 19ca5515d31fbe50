"""What one seat may know: THE ONLY place where hidden information is filtered.

Public: cities, gold, hand sizes, deck size, crown, face-up discards, the characters named by
the Assassin and the Thief, characters revealed this round and by whom, the tax token, the
acting seat. Private to the seat: its hand, its own characters, the characters offered to it
during the draft (while it chooses), and its own turn's pending cards. Never: other hands,
other seats' unrevealed characters, face-down discards, the deck order, the RNG.
Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.game import Json

from . import draft
from .cards import NAMES
from .state import Phase, State


def observation(state: State, seat: int) -> dict[str, Json]:
    """Return the observation of `seat` as plain JSON-ready data."""
    current = state.current_seat
    obs: dict[str, Json] = {
        "seat": seat,
        "players": state.players,
        "round": state.round,
        "phase": state.phase,
        "crown": state.crown,
        "city_size": state.rules["city_size"],
        "cast": list(state.rules["characters"]),
        "gold": list(state.gold),
        "hand_sizes": [len(h) for h in state.hands],
        "cities": [list(c) for c in state.cities],
        "beautified": [list(b) for b in state.beautified],
        "deck_size": len(state.deck),
        "tax_token": state.tax_token,
        "first_complete": state.first_complete,
        "faceup_discards": [NAMES[c] for c in state.faceup],
        "killed": NAMES[state.killed] if state.killed else None,
        "robbed": NAMES[state.robbed] if state.robbed else None,
        "revealed": [{"seat": s, "character": NAMES[c]} for s, c in state.revealed],
        "current": None if current is None or state.current_char is None else
        {"seat": current, "character": NAMES[state.current_char]},
        "hand": list(state.hands[seat]),
        "characters": [NAMES[c] for c in state.chars[seat]],
        "draft_pool": None,
        "turn": None,
    }
    if state.phase == Phase.DRAFT and draft.decision_seat(state)[0] == seat:
        obs["draft_pool"] = [NAMES[c] for c in sorted(state.pool)]
    if state.phase == Phase.TURN and current == seat:
        obs["turn"] = {
            "gathered": state.gathered,
            "builds_left": state.builds_left,
            "used": list(state.used),
            "pending": state.pending,
            "set_aside": list(state.aside),
        }
    return obs
