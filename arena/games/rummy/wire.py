"""JSON Schemas of what `machiavelli-rummy` sends and accepts: observation, actions, events,
decisions (kind, context; `options` is always null). Card codes come from `cards.CODES`.

Exported to protocol/schemas/machiavelli-rummy.*.schema.json by `arena.protocol.schema`.
Imports only the standard library and `arena.core`.
"""

from __future__ import annotations

from arena.core.game import Json
from arena.core.wire_schema import BOOL, NAT, SEAT, array, closed, enum, nullable, tagged

from .cards import CODES

CARD = enum(CODES, "a card: rank A,2..10,J,Q,K then suit S,H,D,C; JK the joker")
CARDS = array(CARD)
TABLE = array(CARDS)

ACTIONS: dict[str, dict[str, Json]] = {"draw": {}, "play": {"table": TABLE}}
ACTION_DOCS = {"draw": "draw the top card of the stock (a pass when it is empty)",
               "play": "the complete new table"}

EVENTS: dict[str, tuple[dict[str, Json], str]] = {
    "play": ({"seat": SEAT, "cards": CARDS, "table": TABLE},
             "a play: the cards that came from the hand, and the new table"),
    "draw": ({"seat": SEAT, "card": CARD}, "a draw; `card` only for the drawer"),
    "pass": ({"seat": SEAT}, "a draw on an empty stock"),
    "game_end": ({"reason": enum(["won", "blocked"]), "winner": nullable(SEAT),
                  "penalties": array(NAT)}, "the game ended"),
}
"""Every event: its fields besides `type`, and when it happens (PROTOCOL.md §10.5)."""

CONTEXT: dict[str, Json] = {
    "stock": NAT, "on_draw": enum(["draw", "pass"]), "draw_when_able": BOOL,
    "max_jokers_per_meld": NAT, "must_open_from_hand": BOOL}
OBSERVATION: dict[str, Json] = {
    "seat": SEAT, "hand": CARDS, "table": TABLE, "hand_sizes": array(NAT), "stock": NAT,
    "to_move": nullable(SEAT), "dealer": SEAT, "turn": NAT, "passes": NAT,
    "opened": array(BOOL), "over": BOOL, "winner": nullable(SEAT)}


def schemas() -> dict[str, Json]:
    """The four schemas: `observation`, `action`, `event`, `decision`."""
    return {
        "observation": closed(OBSERVATION, "what one seat may know (a request's observation)"),
        "action": tagged("type", ACTIONS, ACTION_DOCS, "a machiavelli-rummy action"),
        "event": tagged("type", {k: fields for k, (fields, _) in EVENTS.items()},
                        {k: doc for k, (_, doc) in EVENTS.items()},
                        "a machiavelli-rummy event", {"draw": ("card",)}),
        "decision": tagged("kind", {"move": {"context": closed(CONTEXT),
                                             "options": {"type": "null"}}}, {},
                           "a machiavelli-rummy decision: a request's kind, context and "
                           "options"),
    }
