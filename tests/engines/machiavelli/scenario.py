"""Run a machiavelli rule scenario written as data (format: docs/machiavelli.md).

A scenario is a YAML or JSON file: a starting state (a seed plus overrides of `to_json`
fields, or a full state), a list of actions by seat, and what must follow (events, errors,
state fields, decisions, the outcome).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from arena.core.errors import GameError, IllegalAction, MalformedAction
from arena.core.game import Event
from arena.games.machiavelli import GAME
from arena.games.machiavelli.cards import deck_composition
from arena.games.machiavelli.rules import settle
from arena.games.machiavelli.state import Phase, State

from .helpers import check_all

ERRORS: dict[str, type[GameError]] = {"IllegalAction": IllegalAction,
                                      "MalformedAction": MalformedAction}
SCENARIO_KEYS = {"description", "source", "players", "seed", "rules", "setup", "state",
                 "setup_events", "steps", "expect"}
STEP_KEYS = {"seat", "action", "error", "match", "events", "events_exclude", "state",
             "decision", "options_include", "options_exclude", "note"}


class ScenarioError(AssertionError):
    """A scenario's expectation failed (or the scenario itself is malformed)."""


def load(path: Path) -> dict[str, Any]:
    """Read a scenario file (YAML or JSON; YAML is a superset of JSON)."""
    data = yaml.safe_load(path.read_text())
    if not isinstance(data, dict):
        raise ScenarioError(f"{path.name}: a scenario is a mapping")
    unknown = set(data) - SCENARIO_KEYS
    if unknown:
        raise ScenarioError(f"{path.name}: unknown keys {sorted(unknown)}; valid: "
                            f"{sorted(SCENARIO_KEYS)}")
    return data


def build_state(scenario: dict[str, Any]) -> tuple[State, list[Event]]:
    """Return the starting state and the events of settling it."""
    if "state" in scenario:
        state = GAME.from_json(scenario["state"])
        return state, settle(state)
    base = GAME.new_game(scenario.get("players", 4), scenario.get("rules", {}),
                         scenario.get("seed", 1))
    data = GAME.to_json(base)
    setup = dict(scenario.get("setup", {}))
    deck_top = setup.pop("deck_top", [])
    unknown = set(setup) - set(data)
    if unknown:
        raise ScenarioError(f"setup: unknown state fields {sorted(unknown)}; valid: "
                            f"{sorted(data)}")
    if "phase" in setup and setup["phase"] != Phase.DRAFT:
        # leave the dealt draft behind unless the scenario says where characters are
        for name in ("faceup", "facedown", "pool"):
            data[name] = []
    order = data["deck"] + [card for hand in data["hands"] for card in hand]
    data.update(setup)
    if "phase" in setup and "facedown" not in setup:
        # characters nobody holds lie face-down, so every character has exactly one place
        held = {c for cs in data["chars"] for c in cs} | set(data["faceup"]) | set(data["pool"])
        data["facedown"] = [c for c in data["cast"] if c not in held]
    if "deck" not in setup:
        data["deck"] = _rebuild_deck(data, deck_top, order)
    state = GAME.from_json(data)
    return state, settle(state)


def _rebuild_deck(data: dict[str, Any], deck_top: list[str], order: list[str]) -> list[str]:
    """The deck minus the cards the setup placed, keeping its order, `deck_top` on top."""
    remaining = deck_composition(list(data["rules"]["districts"]))
    placed = Counter(data["aside"]) + Counter(deck_top) + Counter(data["museum"])
    for group in ("hands", "cities"):
        for cards in data[group]:
            placed.update(cards)
    short = placed - remaining
    if short:
        raise ScenarioError(f"setup places more copies than the deck holds: {dict(short)}")
    remaining -= placed
    deck = list(deck_top)
    for card in order:
        if remaining[card] > 0:
            remaining[card] -= 1
            deck.append(card)
    deck.extend(remaining.elements())
    return deck


def matches(pattern: dict[str, Any], event: Event) -> bool:
    """Return whether every key of `pattern` equals the event's (wire form + visible_to)."""
    wire = event.to_wire()
    for key, value in pattern.items():
        if key == "visible_to":
            seen = None if event.visible_to is None else sorted(event.visible_to)
            if seen != value:
                return False
        elif wire.get(key, _MISSING) != value:
            return False
    return True


_MISSING = object()


def check_events(where: str, patterns: list[dict[str, Any]], events: list[Event]) -> None:
    """Each pattern must match an event, in order (other events may come between)."""
    index = 0
    for pattern in patterns:
        while index < len(events) and not matches(pattern, events[index]):
            index += 1
        if index == len(events):
            shown = "\n  ".join(str(e.to_wire()) for e in events)
            raise ScenarioError(f"{where}: no event matching {pattern} (in order) among:\n  "
                                f"{shown}")
        index += 1


def lookup(data: Any, path: str) -> Any:
    """Follow a dotted path ("gold.1", "cities.0", "deck.-1", "facedown.length")."""
    for part in path.split("."):
        if part == "length" and isinstance(data, list):
            data = len(data)
        else:
            data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def check_state(where: str, expected: dict[str, Any], state: State) -> None:
    """Compare dotted-path fields of `GAME.to_json(state)` with expected values."""
    data = GAME.to_json(state)
    for path, value in expected.items():
        actual = lookup(data, path)
        if actual != value:
            raise ScenarioError(f"{where}: state {path} is {actual!r}, expected {value!r}")


def check_decision(where: str, step: dict[str, Any], state: State) -> None:
    """Check the decision now due against `decision`, `options_include/exclude`."""
    decision = GAME.to_act(state)
    wire = decision.to_wire() if decision else None
    if "decision" in step:
        expected = step["decision"]
        if expected is None or wire is None:
            if expected != wire:
                raise ScenarioError(f"{where}: decision is {wire}, expected {expected}")
        else:
            for key, value in expected.items():
                if wire.get(key) != value:
                    raise ScenarioError(f"{where}: decision {key} is {wire.get(key)!r}, "
                                        f"expected {value!r}")
    options = wire.get("options", []) if wire else []
    for option in step.get("options_include", []):
        if option not in options:
            raise ScenarioError(f"{where}: option {option} missing from {options}")
    for option in step.get("options_exclude", []):
        if option in options:
            raise ScenarioError(f"{where}: option {option} should not be offered")


def run_step(where: str, step: dict[str, Any], state: State) -> None:
    """Play one step and check its expectations (the state is changed in place)."""
    unknown = set(step) - STEP_KEYS
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {sorted(unknown)}; valid: {sorted(STEP_KEYS)}")
    if "action" in step:
        _act(where, step, state)
    if "state" in step:
        check_state(where, step["state"], state)
    check_decision(where, step, state)


def _act(where: str, step: dict[str, Any], state: State) -> None:
    decision = GAME.to_act(state)
    if decision is None:
        raise ScenarioError(f"{where}: the game is over, no action can be played")
    seat = step.get("seat", decision.seat)
    before, snapshot = GAME.clone(state), GAME.to_json(state)
    try:
        payload = step["action"]
        action = (GAME.default_action(state, seat) if payload == "default"
                  else GAME.parse_action(decision, payload))
        events = GAME.apply(state, seat, action)
    except GameError as exc:
        expected = ERRORS.get(step.get("error", ""))
        if expected is None or not isinstance(exc, expected):
            raise ScenarioError(f"{where}: unexpected {type(exc).__name__}: {exc}") from exc
        if step.get("match", "") not in str(exc):
            raise ScenarioError(f"{where}: error {exc} does not contain {step['match']!r}") \
                from exc
        if GAME.to_json(state) != snapshot:
            raise ScenarioError(f"{where}: a rejected action changed the state") from exc
        return
    if "error" in step:
        raise ScenarioError(f"{where}: expected {step['error']}, the action was accepted")
    check_all(before, state, events)
    check_events(where, step.get("events", []), events)
    for pattern in step.get("events_exclude", []):
        hit = [e.to_wire() for e in events if matches(pattern, e)]
        if hit:
            raise ScenarioError(f"{where}: unexpected event(s) {hit}")


def run(path: Path) -> None:
    """Run a whole scenario file; raises ScenarioError on the first failed expectation."""
    scenario = load(path)
    state, events = build_state(scenario)
    check_events(f"{path.name} setup", scenario.get("setup_events", []), events)
    for number, step in enumerate(scenario.get("steps", []), 1):
        run_step(f"{path.name} step {number}", step, state)
    expect = scenario.get("expect", {})
    if "state" in expect:
        check_state(f"{path.name} end", expect["state"], state)
    if "outcome" in expect:
        outcome = GAME.outcome(state)
        if outcome is None:
            raise ScenarioError(f"{path.name} end: the game is not over")
        actual = outcome.to_json()
        for key, value in expect["outcome"].items():
            got = lookup(actual, key)
            if got != value:
                raise ScenarioError(f"{path.name} end: outcome {key} is {got!r}, "
                                    f"expected {value!r}")
