"""The result of one game as the referee records it, and what tournaments store.

These values are the interface between `referee.run_game` and `tournament`: the
tournament layer reads nothing else about a game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from arena.core.faults import FaultKind as FaultKind  # its home before faults.py
from arena.core.game import Json, Termination


class ForfeitReason(StrEnum):
    """Why a seat was taken over by the autopilot and placed last (a closed set)."""

    MAX_FAULTS = "max_faults"
    CRASHED = "crashed"
    """The bot's process ended during the game."""
    NO_CONNECT = "no_connect"
    """The bot never completed the handshake."""
    DISCONNECTED = "disconnected"
    LIMIT = "limit"
    """The bot's processes hit a resource limit (memory, processes, CPU per game)."""


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault of one seat, with the decision it happened at and a precise reason."""

    seat: int
    kind: FaultKind
    detail: str
    decision: int

    def to_json(self) -> dict[str, Json]:
        """Return the fault as JSON-ready data."""
        return {"seat": self.seat, "kind": self.kind.value, "detail": self.detail,
                "decision": self.decision}


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """How one seat's bot fared in one game."""

    seat: int
    bot: str
    version: str
    placing: int
    score: int
    faults: int = 0
    timeouts: int = 0
    forfeit: ForfeitReason | None = None
    time_ms: float = 0.0

    def to_json(self) -> dict[str, Json]:
        """Return the seat record as JSON-ready data."""
        return {
            "seat": self.seat, "bot": self.bot, "version": self.version,
            "placing": self.placing, "score": self.score, "faults": self.faults,
            "timeouts": self.timeouts,
            "forfeit": self.forfeit.value if self.forfeit else None,
            "time_ms": round(self.time_ms, 3),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Json]) -> SeatRecord:
        """Rebuild a seat record from `to_json` data."""
        forfeit = data.get("forfeit")
        return cls(
            int(data["seat"]), str(data["bot"]), str(data["version"]), int(data["placing"]),
            int(data["score"]), int(data.get("faults", 0)), int(data.get("timeouts", 0)),
            ForfeitReason(forfeit) if forfeit else None, float(data.get("time_ms", 0.0)),
        )


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished (or aborted) game: everything standings and ratings are derived from."""

    game: str
    """Versioned game id, e.g. `machiavelli@1`."""
    rules: Mapping[str, Json]
    """The fully resolved rule options."""
    seed: int
    termination: Termination
    seats: tuple[SeatRecord, ...]
    decisions: int = 0
    faults: tuple[Fault, ...] = ()
    details: Mapping[str, Json] = field(default_factory=dict)
    replay: str | None = None

    def to_json(self) -> dict[str, Json]:
        """Return the record as JSON-ready data."""
        return {
            "game": self.game, "rules": dict(self.rules), "seed": self.seed,
            "termination": self.termination.value,
            "seats": [s.to_json() for s in self.seats], "decisions": self.decisions,
            "faults": [f.to_json() for f in self.faults], "details": dict(self.details),
            "replay": self.replay,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Json]) -> GameRecord:
        """Rebuild a record from `to_json` data."""
        return cls(
            str(data["game"]), dict(data["rules"]), int(data["seed"]),
            Termination(data["termination"]),
            tuple(SeatRecord.from_json(s) for s in data["seats"]),
            int(data.get("decisions", 0)),
            tuple(
                Fault(int(f["seat"]), FaultKind(f["kind"]), str(f["detail"]), int(f["decision"]))
                for f in data.get("faults", [])
            ),
            dict(data.get("details", {})), data.get("replay"),
        )
