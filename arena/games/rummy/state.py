"""The mutable state of one `machiavelli-rummy` game and its JSON form.

JSON form (also how a rule scenario is written as data):
`{"players": 2, "rules": {...resolved options...}, "hands": [["7H", ...], ...],
"stock": [... last is the top ...], "table": [["7H", "8H", "9H"], ...], "dealer": 0,
"to_move": 1, "turn": 0, "passes": 0, "opened": [false, false], "winner": null,
"over": false, "rng": [...]}`; `rng` may be omitted in a hand-written scenario (a fixed
generator is used). Imports only the standard library, `arena.core` and this package.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from arena.core.game import Json
from arena.core.rng import new_rng, rng_from_json, rng_state_to_json
from arena.games.rummy.cards import sorted_cards


@dataclass
class RummyState:
    """Everything about one game, hidden parts included; owned and mutated by the engine."""

    players: int
    rules: dict[str, Json]
    hands: list[list[str]]
    """Each seat's hand in display order."""
    stock: list[str]
    """Face-down stock; the last card is the top."""
    table: list[tuple[str, ...]]
    """The melds on the table, each in canonical order."""
    dealer: int
    to_move: int
    turn: int = 0
    """Moves made so far."""
    passes: int = 0
    """Moves in a row without a play since the stock ran out."""
    opened: list[bool] = field(default_factory=list)
    """Per seat: has it played yet (matters under `opening: meld-from-hand`)."""
    winner: int | None = None
    over: bool = False
    rng: random.Random = field(default_factory=lambda: new_rng(0))

    def to_json(self) -> dict[str, Json]:
        """Return the whole state, generator included, as JSON-ready data."""
        return {
            "players": self.players, "rules": dict(self.rules),
            "hands": [list(h) for h in self.hands], "stock": list(self.stock),
            "table": [list(m) for m in self.table], "dealer": self.dealer,
            "to_move": self.to_move, "turn": self.turn, "passes": self.passes,
            "opened": list(self.opened), "winner": self.winner, "over": self.over,
            "rng": rng_state_to_json(self.rng),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Json]) -> RummyState:
        """Rebuild a state from `to_json` data (hands are put in display order)."""
        players = int(data["players"])
        rng = data.get("rng")
        return cls(
            players=players, rules=dict(data["rules"]),
            hands=[sorted_cards(h) for h in data["hands"]], stock=list(data["stock"]),
            table=[tuple(m) for m in data["table"]], dealer=int(data["dealer"]),
            to_move=int(data["to_move"]), turn=int(data.get("turn", 0)),
            passes=int(data.get("passes", 0)),
            opened=[bool(o) for o in data.get("opened", [False] * players)],
            winner=data.get("winner"), over=bool(data.get("over", False)),
            rng=rng_from_json(rng) if rng is not None else new_rng(0),
        )

    def clone(self) -> RummyState:
        """Return an independent copy that evolves identically."""
        copy = random.Random()
        copy.setstate(self.rng.getstate())
        return RummyState(
            self.players, dict(self.rules), [list(h) for h in self.hands], list(self.stock),
            list(self.table), self.dealer, self.to_move, self.turn, self.passes,
            list(self.opened), self.winner, self.over, copy,
        )

    def table_cards(self) -> list[str]:
        """Return every card on the table."""
        return [code for meld in self.table for code in meld]
