"""Reading a replay back: re-simulation with the engine, mismatch checks, and each seat's view.

A replay holds the seed, the resolved rules and every action, so the engine reproduces the
game; `check_replay` says where a recorded game and its re-simulation differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from arena.core.errors import ArenaError, GameError
from arena.core.game import Decision, Event, Game, Json, with_forfeits
from arena.core.registry import Registry
from arena.referee.replay import Replay


@dataclass(frozen=True, slots=True)
class Replayed:
    """One recorded decision, re-simulated: the state before it and the events it made."""

    step: dict[str, Json]
    decision: Decision | None
    before: Any
    """A copy of the state before the decision."""
    after: Any
    """The live state after it (changed by the next step: read it before iterating on)."""
    events: list[Event]


def _wire_events(events: list[Event]) -> list[Json]:
    wire = [{"event": e.to_wire(),
             "visible_to": None if e.visible_to is None else sorted(e.visible_to)}
            for e in events]
    return list(json.loads(json.dumps(wire)))


def engine_for(replay: Replay, registry: Registry) -> Game[Any, Any]:
    """Return the engine of the exact game version the replay was recorded with.

    Raises:
        ConfigError: that game or version is not registered.
    """
    return registry.get(str(replay.header["game"]))


def resimulate(replay: Replay, game: Game[Any, Any], *,
               copies: bool = True) -> Iterator[Replayed]:
    """Yield every recorded decision, applying its action to a fresh game.

    `copies=False` leaves `before` None: a caller that reads only `after` skips a clone of
    the state per decision (about a quarter of a report's re-simulation).

    Raises:
        ArenaError: a recorded action cannot be applied (names the decision).
    """
    header = replay.header
    state = game.new_game(int(header["players"]), header["rules"], int(header["seed"]))
    for step in replay.steps:
        decision = game.to_act(state)
        before = game.clone(state) if copies else None
        events: list[Event] = []
        if decision is not None:
            try:
                action = game.parse_action(decision, step["action"])
                events = game.apply(state, int(step["seat"]), action)
            except GameError as exc:
                raise ArenaError(f"decision {step['n']}: recorded action "
                                 f"{json.dumps(step['action'], sort_keys=True)} does not "
                                 f"apply: {exc}") from exc
        yield Replayed(step, decision, before, state, events)


def check_replay(replay: Replay, registry: Registry) -> list[str]:
    """Re-simulate a replay and return every mismatch found (empty when it checks out)."""
    game = engine_for(replay, registry)
    header = replay.header
    problems: list[str] = []
    final: Any = None
    try:
        for item in resimulate(replay, game):
            problems += _check_step(item)
            if item.decision is None:
                return problems
            final = item.after
    except ArenaError as exc:
        return [*problems, str(exc)]
    if final is None:
        final = game.new_game(int(header["players"]), header["rules"], int(header["seed"]))
    return problems + _check_end(replay, game, final)


def _check_step(item: Replayed) -> list[str]:
    n, step = item.step["n"], item.step
    if item.decision is None:
        return [f"decision {n}: the game was already over"]
    problems = []
    if (item.decision.seat, item.decision.kind) != (step["seat"], step["kind"]):
        problems.append(f"decision {n}: recorded seat {step['seat']} {step['kind']!r}, "
                        f"engine asks seat {item.decision.seat} {item.decision.kind!r}")
    if _wire_events(item.events) != step["events"]:
        problems.append(f"decision {n}: events differ")
    return problems


def _check_end(replay: Replay, game: Game[Any, Any], final: Any) -> list[str]:
    if replay.outcome is None:
        return ["the replay has no outcome line (game interrupted?)"]
    if replay.outcome["termination"] == "engine_error":
        return []
    outcome = game.outcome(final)
    if game.to_act(final) is not None or outcome is None:
        return ["the engine says the game is not over after the last recorded decision"]
    outcome = with_forfeits(outcome, {int(f["seat"]): int(f["decision"])
                                       for f in replay.forfeits})
    engine = (list(outcome.placings), list(outcome.scores))
    recorded = (replay.outcome["placings"], replay.outcome["scores"])
    if engine != recorded:
        return [f"outcome differs: recorded placings/scores {recorded}, engine {engine}"]
    return []


def seat_view(replay: Replay, game: Game[Any, Any], seat: int | None) -> Iterator[dict[str, Json]]:
    """Yield the game as `seat` saw it (None: as the referee saw it).

    One item per decision: the observation when the seat itself decided, its action, and
    the events it could see.
    """
    for item in resimulate(replay, game):
        step = item.step
        own = seat is None or step["seat"] == seat
        events = [e["event"] for e in step["events"]
                  if seat is None or e["visible_to"] is None or seat in e["visible_to"]]
        view: dict[str, Json] = {"n": step["n"], "seat": step["seat"], "kind": step["kind"],
                                 "events": events}
        if own:
            view["action"] = step["action"]
            view["source"] = step["source"]
            view["fault"] = step["fault"]
            if seat is not None:
                view["observation"] = game.observation(item.before, seat)
        yield view
