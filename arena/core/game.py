"""The engine contract every game implements, and the values that cross its boundary.

A game engine is a stateless object (`Game`) whose methods act on a mutable, engine-owned
state. Everything that leaves the engine (decisions, events, observations, outcomes) is an
immutable value or plain JSON-ready data. Must not import anything but the standard library
and `arena.core`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Protocol, TypeVar

Json = Any
"""A JSON-ready value (dict, list, str, int, float, bool or None), nested."""

S = TypeVar("S")
A = TypeVar("A")


class Termination(StrEnum):
    """How a game ended: a closed set recorded in every result."""

    COMPLETED = "completed"
    """The game ended by its own rules."""
    MAX_ROUNDS = "max_rounds"
    """The safety bound on rounds was reached; the game is scored as it stands."""
    BLOCKED = "blocked"
    """Nobody could make progress (rummy: empty stock and a full round without a play)."""
    FORFEIT = "forfeit"
    """The game ran to its end but at least one seat forfeited (set by the referee)."""
    ENGINE_ERROR = "engine_error"
    """Our bug: an engine raised something other than a `GameError`. Never a bot's fault."""
    ABORTED = "aborted"
    """The run was interrupted before the game ended."""


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One rule option of a game, with its default and, where finite, its valid values."""

    name: str
    default: Json
    doc: str
    choices: tuple[Json, ...] | None = None


@dataclass(frozen=True, slots=True)
class GameInfo:
    """The static description of a game."""

    name: str
    version: int
    title: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...] = ()
    decision_kinds: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """Versioned id, e.g. `machiavelli@1`: records store it, so old games replay or fail."""
        return f"{self.name}@{self.version}"


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must decide now, what kind of decision it is, and the legal options where few."""

    seat: int
    kind: str
    options: tuple[Json, ...] | None = None
    """Every legal action in wire form when the set is small; None when the action is free-form."""
    context: Mapping[str, Json] = field(default_factory=dict)
    """Facts specific to this decision (e.g. the cards drawn to choose from)."""

    def to_wire(self) -> dict[str, Json]:
        """Return the decision as JSON-ready data."""
        wire: dict[str, Json] = {"seat": self.seat, "kind": self.kind}
        if self.options is not None:
            wire["options"] = list(self.options)
        if self.context:
            wire["context"] = dict(self.context)
        return wire


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened; `visible_to` None means every seat may see it."""

    kind: str
    data: Mapping[str, Json] = field(default_factory=dict)
    visible_to: frozenset[int] | None = None

    def visible(self, seat: int) -> bool:
        """Return whether `seat` may see this event."""
        return self.visible_to is None or seat in self.visible_to

    def to_wire(self) -> dict[str, Json]:
        """Return the event as it is sent to a seat that may see it."""
        return {"type": self.kind, **self.data}


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: a placing per seat (1 is first, ties share), scores, termination."""

    termination: Termination
    placings: tuple[int, ...]
    scores: tuple[int, ...]
    details: Mapping[str, Json] = field(default_factory=dict)

    def to_json(self) -> dict[str, Json]:
        """Return the outcome as JSON-ready data."""
        return {
            "termination": self.termination.value,
            "placings": list(self.placings),
            "scores": list(self.scores),
            "details": dict(self.details),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Json]) -> Outcome:
        """Rebuild an outcome from `to_json` data."""
        return cls(
            Termination(data["termination"]),
            tuple(data["placings"]),
            tuple(data["scores"]),
            dict(data.get("details", {})),
        )


def placings_from_keys(keys: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """Rank seats by key, higher is better; equal keys share a place ("1, 1, 3")."""
    ordered = sorted(keys, reverse=True)
    return tuple(1 + ordered.index(key) for key in keys)


def with_forfeits(outcome: Outcome, forfeited: Mapping[int, int]) -> Outcome:
    """Place forfeited seats after every other seat, keeping the others' order.

    `forfeited` maps each forfeited seat to the decision at which it forfeited (0: before
    the first). Forfeited seats are ranked among themselves by that decision, an earlier
    forfeit placing worse, then by seat order (a lower seat places better); the rules'
    placings of the autopilot's play never rank them, so that a bot that never started
    cannot win a game that every seat forfeited.
    """
    if not forfeited:
        return outcome
    keys = [
        (0, forfeited[seat], -seat) if seat in forfeited else (1, -placing, 0)
        for seat, placing in enumerate(outcome.placings)
    ]
    return Outcome(
        Termination.FORFEIT
        if outcome.termination is Termination.COMPLETED
        else outcome.termination,
        placings_from_keys(keys),
        outcome.scores,
        {**outcome.details, "forfeited": sorted(forfeited)},
    )


class Game(Protocol[S, A]):
    """A deterministic game engine: the same seed and actions give the same game.

    Engines only detect bad actions (raising `IllegalAction` / `MalformedAction` and leaving
    the state byte-identical); what to do about them is the referee's policy.
    """

    info: ClassVar[GameInfo]

    def resolve_rules(self, players: int, rules: Mapping[str, Json]) -> dict[str, Json]:
        """Return the complete option set (defaults filled in) for this player count.

        Raises:
            ConfigError: an unknown option, a bad value or an unsupported player count;
                the message names the valid ones.
        """
        ...

    def new_game(self, players: int, rules: Mapping[str, Json], seed: int) -> S:
        """Set up a game; all randomness comes from `seed`, held in the state."""
        ...

    def to_act(self, state: S) -> Decision | None:
        """Return who must decide now and how, or None when the game is over."""
        ...

    def parse_action(self, decision: Decision, payload: Json) -> A:
        """Turn a wire payload into an action for `decision`.

        Raises:
            MalformedAction: the payload is not an action of this decision's kind.
        """
        ...

    def action_to_wire(self, action: A) -> Json:
        """Return the canonical wire form of an action."""
        ...

    def validate(self, state: S, seat: int, action: A) -> None:
        """Check an action against the rules without changing anything.

        Raises:
            IllegalAction: the action is not legal for `seat` now.
        """
        ...

    def apply(self, state: S, seat: int, action: A) -> list[Event]:
        """Validate then perform an action; all or nothing.

        Raises:
            IllegalAction: as `validate`; the state is unchanged.
        """
        ...

    def observation(self, state: S, seat: int) -> dict[str, Json]:
        """Return what `seat` may know now: the only place hidden information is filtered."""
        ...

    def observation_view(self, state: S, seat: int) -> dict[str, Json]:
        """Return `observation(state, seat)` for a caller that encodes it at once (the
        referee): equal to it, but it may share the state's own lists, so it holds only
        until the state next changes and must never be written to. A game whose
        observation has nothing to gain returns `observation` itself."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """Return the outcome once the game is over, else None."""
        ...

    def default_action(self, state: S, seat: int) -> A:
        """Return the action the referee plays for a seat that faulted (deterministic)."""
        ...

    def random_action(self, state: S, seat: int, rng: random.Random) -> A:
        """Return a uniformly chosen legal action for the deciding seat (autopilot, tests)."""
        ...

    def to_json(self, state: S) -> dict[str, Json]:
        """Return the whole state, RNG included, as JSON-ready data."""
        ...

    def from_json(self, data: Mapping[str, Json]) -> S:
        """Rebuild a state from `to_json` data (or a hand-written rule scenario)."""
        ...

    def clone(self, state: S) -> S:
        """Return an independent copy that evolves identically."""
        ...

    def wire_schemas(self) -> dict[str, Json]:
        """Return the JSON Schemas of this game's wire data, by name: `observation`,
        `action`, `event` and `decision` (a request's `kind`, `context` and `options`).

        Exported to protocol/schemas/ as `<game>.<name>.schema.json`; the contract test
        validates real play against them.
        """
        ...
