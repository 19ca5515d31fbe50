"""The engine contract (arena/core/game.py `Game`), checked for every registered game.

In the spirit of PettingZoo's `api_test` and OpenSpiel's random simulation test: every game
in the registry, under every option set its `GameInfo.options` declare (each finite choice
and each flipped flag, one at a time, then all `random` choices at once), at its smallest
and largest table, is played to the end by random legal actions from several seeds, and
every step is checked:

- the decision names a seat and a declared kind; everything sent is JSON;
- the random action round-trips through its wire form, is among the listed options, and
  validates; every listed option is legal; any parsed action that validates is listed; the
  default action (a faulty seat's) is legal and deterministic;
- malformed payloads are refused by `parse_action` (`MalformedAction`); another seat's
  action, actions of earlier decisions and odd field values are refused (`MalformedAction`
  or `IllegalAction`), and none of it changes the state (JSON identical; the state still
  evolves exactly as an untouched clone does);
- `to_json` -> JSON text -> `from_json` gives the same state, observations and future;
- what a seat cannot see (shuffled by the game's `HIDDEN` function) never changes its
  observation;
- `observation_view` equals `observation` (it may share the state's lists, not differ);
- events are well formed and visible to real seats only;
- observations, decisions (kind, context, options), actions and events match the game's
  own JSON Schemas (`Game.wire_schemas`, exported to protocol/schemas/);
- the outcome is a proper ranking; the game replays identically from its seed and wire
  actions; another seed deals another game.

A new game or option is picked up without touching this file, except that a new game
must add its `HIDDEN` function (a test says so). Quick by default; `-m slow` plays every
player count from more seeds and checks more steps.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from arena.core.errors import ConfigError, IllegalAction, MalformedAction
from arena.core.game import Decision, Event, GameInfo, Json, Outcome, Termination
from arena.core.registry import AnyGame
from arena.core.rng import derive_seed
from arena.games import REGISTRY
from arena.protocol.schema import GAME_PARTS
from tests.protocol.game_schemas import conforms, validator

from .machiavelli.test_hidden_info import reshuffle_hidden
from .rummy.test_conformance import reshuffled

Hide = Callable[[Any, int, random.Random], Any]

HIDDEN: dict[str, Hide] = {
    "machiavelli": reshuffle_hidden,
    "machiavelli-rummy": reshuffled,
}
"""Per game: a copy of the state with everything the seat cannot see shuffled (other hands,
the deck, face-down cards, the RNG). The seat's observation must not change."""

MAX_STEPS = 20_000
MALFORMED: tuple[Json, ...] = (None, 0, 1.5, True, "pass", [], [{"type": "x"}], {},
                               {"type": None}, {"type": 7}, {"type": "no_such_action"})
"""Payloads no game accepts as an action."""
ODD_VALUES: tuple[Json, ...] = (None, -1, 10**9, "no_such_id", {"x": 1}, [[None]], True)
"""Values put in an action's fields: each must be refused, or parse to a legal action."""


@dataclass(frozen=True)
class Depth:
    """How hard one case looks: seeds played, and every how many steps the costly checks
    (round trips, refusals, hidden information) run."""

    seeds: tuple[int, ...]
    every: int


QUICK = Depth((1, 2), 9)
THOROUGH = Depth(tuple(range(100, 110)), 2)


def option_sets(info: GameInfo) -> list[dict[str, Json]]:
    """The defaults, then each declared finite choice and each flipped flag, one at a time,
    then every option that offers `random` set to it at once (a random cast with a random
    district set, say)."""
    sets: list[dict[str, Json]] = [{}]
    for spec in info.options:
        if spec.choices is not None:
            values: tuple[Json, ...] = spec.choices
        elif isinstance(spec.default, bool):
            values = (not spec.default,)
        else:
            continue
        sets += [{spec.name: value} for value in values if value != spec.default]
    randoms = {spec.name: "random" for spec in info.options
               if spec.choices is not None and "random" in spec.choices}
    return sets + [randoms] if len(randoms) > 1 else sets


def playable(engine: AnyGame, rules: dict[str, Json]) -> list[int]:
    """The player counts for which the engine accepts `rules`."""
    counts = []
    for players in range(engine.info.min_players, engine.info.max_players + 1):
        try:
            engine.resolve_rules(players, rules)
        except ConfigError:
            continue
        counts.append(players)
    return counts


def completed(engine: AnyGame, rules: dict[str, Json]) -> dict[str, Json]:
    """`rules`, or (when they are playable only with another option) `rules` plus the first
    other single option that makes them playable; unchanged when nothing does."""
    if playable(engine, rules):
        return rules
    for other in option_sets(engine.info)[1:]:
        if set(other).isdisjoint(rules) and playable(engine, {**other, **rules}):
            return {**other, **rules}
    return rules


@dataclass(frozen=True)
class Case:
    game: str
    rules: dict[str, Json]

    def __str__(self) -> str:
        options = ",".join(f"{k}={v}" for k, v in self.rules.items()) or "defaults"
        return f"{self.game}[{options}]"


GAMES = REGISTRY.names()
"""The games registered when this module is collected (tests may register toy games later)."""
CASES = [Case(name, completed(REGISTRY.get(name), rules))
         for name in GAMES for rules in option_sets(REGISTRY.get(name).info)]


@dataclass
class Trace:
    """What one checked game produced, to compare with its replay."""

    wires: list[Json] = field(default_factory=list)
    events: list[tuple[str, Json, list[int] | None]] = field(default_factory=list)
    hidden_changed: int = 0
    refusals: int = 0


def event_record(event: Event, players: int) -> tuple[str, Json, list[int] | None]:
    """Return an event as comparable JSON."""
    wire = json.loads(json.dumps(event.to_wire(), sort_keys=True))
    return event.kind, wire, None if event.visible_to is None else sorted(event.visible_to)


def check_event(game: str, event: Event, players: int) -> None:
    assert isinstance(event.kind, str) and event.kind and event.to_wire()["type"] == event.kind
    if event.visible_to is not None:
        assert event.visible_to <= frozenset(range(players)), event
    conforms(game, "event", json.loads(json.dumps(event.to_wire())))


def snapshot(engine: AnyGame, state: Any) -> str:
    return json.dumps(engine.to_json(state), sort_keys=True)


def check_decision(engine: AnyGame, state: Any, decision: Decision, players: int,
                   thorough: bool) -> None:
    """The decision and observations: JSON, and (`thorough`) as the schemas say."""
    assert engine.outcome(state) is None, "an outcome while a decision is pending"
    assert 0 <= decision.seat < players
    assert decision.kind in engine.info.decision_kinds, decision.kind
    wire = json.loads(json.dumps(decision.to_wire()))
    name = engine.info.name
    for seat in range(players):
        observation = json.loads(json.dumps(engine.observation(state, seat)))
        assert engine.observation_view(state, seat) == observation
        if thorough and seat == decision.seat:
            conforms(name, "observation", observation)
    if thorough:
        conforms(name, "decision", {"kind": wire["kind"], "context": wire.get("context", {}),
                                    "options": wire.get("options")})


def chosen_action(engine: AnyGame, state: Any, decision: Decision,
                  policy: random.Random) -> tuple[Any, Json]:
    """The random action, checked through its wire form; returns it and its wire."""
    action = engine.random_action(state, decision.seat, policy)
    wire = json.loads(json.dumps(engine.action_to_wire(action)))
    parsed = engine.parse_action(decision, wire)
    assert engine.action_to_wire(parsed) == wire
    conforms(engine.info.name, "action", wire)
    if decision.options is not None:
        assert wire in decision.options, (wire, decision.options)
    engine.validate(state, decision.seat, parsed)
    return parsed, wire


def odd_payloads(wire: Json) -> Iterator[Json]:
    """The wire with each field in turn given an odd value, or with an extra field."""
    if not isinstance(wire, dict):
        return
    for key in wire:
        if key != "type":
            yield from ({**wire, key: value} for value in ODD_VALUES)
    yield {**wire, "no_such_field": 1}


def refuse_if_illegal(engine: AnyGame, state: Any, seat: int, decision: Decision,
                      payload: Json) -> bool:
    """Offer `payload` for `seat`: it must be refused unless it is legal for the deciding
    seat (then it must be a listed option). Return whether it was refused."""
    try:
        action = engine.parse_action(decision, payload)
    except MalformedAction:
        return True
    try:
        engine.validate(state, seat, action)
    except IllegalAction:
        with pytest.raises(IllegalAction):
            engine.apply(state, seat, action)
        return True
    assert seat == decision.seat, f"seat {seat} may play {payload} for seat {decision.seat}"
    if decision.options is not None:
        assert engine.action_to_wire(action) in decision.options, payload
    return False


def check_refusals(engine: AnyGame, state: Any, decision: Decision, wire: Json,
                   earlier: list[Json], players: int) -> int:
    """Offer bad actions; the state must not change. Return how many were refused."""
    before = snapshot(engine, state)
    for payload in MALFORMED:
        with pytest.raises(MalformedAction):
            engine.parse_action(decision, payload)
    refused = sum(refuse_if_illegal(engine, state, seat, decision, wire)
                  for seat in range(players) if seat != decision.seat)
    assert refused == players - 1, "another seat's action was accepted"
    for payload in (*odd_payloads(wire), *earlier):
        refused += refuse_if_illegal(engine, state, decision.seat, decision, payload)
    assert snapshot(engine, state) == before, "a refused action changed the state"
    assert engine.to_act(state) == decision
    return refused + len(MALFORMED)


def check_options(engine: AnyGame, state: Any, decision: Decision) -> None:
    """Every listed option is a legal action in canonical wire form; the default action
    (played for a faulty seat) is legal, listed, and the same on a copy of the state."""
    for option in decision.options or ():
        action = engine.parse_action(decision, option)
        assert engine.action_to_wire(action) == option
        engine.validate(state, decision.seat, action)
    default = engine.default_action(state, decision.seat)
    engine.validate(state, decision.seat, default)
    wire = engine.action_to_wire(default)
    assert wire == engine.action_to_wire(engine.default_action(engine.clone(state),
                                                               decision.seat))
    if decision.options is not None:
        assert wire in decision.options


def check_round_trip(engine: AnyGame, state: Any, players: int) -> Any:
    """`to_json` through JSON text and back; returns the rebuilt state."""
    data = engine.to_json(state)
    rebuilt = engine.from_json(json.loads(json.dumps(data)))
    assert engine.to_json(rebuilt) == data
    assert engine.to_act(rebuilt) == engine.to_act(state)
    for seat in range(players):
        assert engine.observation(rebuilt, seat) == engine.observation(state, seat)
    return rebuilt


def check_hidden(engine: AnyGame, state: Any, hide: Hide, seat: int,
                 rng: random.Random) -> bool:
    """Shuffle what `seat` cannot see: its observation must stay the same. Return whether
    the shuffle changed the state at all (a shuffle that never does proves nothing)."""
    other = hide(state, seat, rng)
    assert engine.observation(other, seat) == engine.observation(state, seat), (
        f"seat {seat}'s observation depends on something it cannot see")
    return snapshot(engine, other) != snapshot(engine, state)


def check_outcome(outcome: Outcome | None, players: int) -> None:
    assert outcome is not None, "no outcome once no decision is pending"
    assert isinstance(outcome.termination, Termination)
    assert len(outcome.placings) == len(outcome.scores) == players
    for placing in outcome.placings:  # standard competition ranking: 1, 1, 3
        assert placing == 1 + sum(p < placing for p in outcome.placings), outcome.placings
    assert Outcome.from_json(json.loads(json.dumps(outcome.to_json()))) == outcome


def apply_checked(engine: AnyGame, state: Any, decision: Decision, action: Any,
                  twins: list[Any], trace: Trace, players: int) -> None:
    """Apply the action to the state and to its twins (clones, rebuilt states): all must
    produce the same events and the same state."""
    events = engine.apply(state, decision.seat, action)
    for event in events:
        check_event(engine.info.name, event, players)
    records = [event_record(e, players) for e in events]
    trace.events += records
    for twin in twins:
        assert [event_record(e, players) for e in engine.apply(twin, decision.seat, action)
                ] == records
        assert snapshot(engine, twin) == snapshot(engine, state), "a twin evolved otherwise"


def play_checked(case: Case, players: int, seed: int, every: int) -> Trace:
    """Play one random game checking the contract; return its trace."""
    engine, hide = REGISTRY.get(case.game), HIDDEN[case.game]
    state = engine.new_game(players, case.rules, seed)
    policy, checker = random.Random(derive_seed(seed, "policy")), random.Random(seed)
    trace, earlier = Trace(), list[Json]()
    while (decision := engine.to_act(state)) is not None:
        assert len(trace.wires) < MAX_STEPS, "the game does not end"
        sampled = len(trace.wires) % every == 0
        check_decision(engine, state, decision, players, sampled)
        action, wire = chosen_action(engine, state, decision, policy)
        twins = []
        if sampled:
            twins = [engine.clone(state), check_round_trip(engine, state, players)]
            check_options(engine, state, decision)
            trace.refusals += check_refusals(engine, state, decision, wire, earlier, players)
            trace.hidden_changed += check_hidden(
                engine, state, hide, checker.randrange(players), checker)
        apply_checked(engine, state, decision, action, twins, trace, players)
        trace.wires.append(wire)
        earlier = [*(o for o in decision.options or () if o != wire), wire, *earlier][:12]
    check_outcome(engine.outcome(state), players)
    with pytest.raises(IllegalAction):
        engine.apply(state, 0, action)
    return trace


def replayed(case: Case, players: int, seed: int, wires: list[Json]) -> Trace:
    """Replay a game from its seed and wire actions alone."""
    engine = REGISTRY.get(case.game)
    state = engine.new_game(players, case.rules, seed)
    trace = Trace()
    for wire in wires:
        decision = engine.to_act(state)
        assert decision is not None, "the replay ended early"
        action = engine.parse_action(decision, wire)
        trace.events += [event_record(e, players) for e in
                         engine.apply(state, decision.seat, action)]
        trace.wires.append(wire)
    assert engine.to_act(state) is None, "the replay did not end"
    return trace


def check_case(case: Case, depth: Depth, counts: list[int]) -> None:
    engine = REGISTRY.get(case.game)
    assert counts, f"{case}: no player count accepts these rules"
    hidden_changed = refusals = 0
    for players in counts:
        for seed in depth.seeds:
            trace = play_checked(case, players, seed, depth.every)
            again = replayed(case, players, seed, trace.wires)
            assert again.events == trace.events, "the replay differs from the game"
            hidden_changed += trace.hidden_changed
            refusals += trace.refusals
        first = snapshot(engine, engine.new_game(players, case.rules, depth.seeds[0]))
        assert any(snapshot(engine, engine.new_game(players, case.rules, seed)) != first
                   for seed in range(depth.seeds[0] + 1, depth.seeds[0] + 4)), (
            "other seeds deal the same game")
    assert hidden_changed, f"{case}: HIDDEN[{case.game!r}] never changed a state"
    assert refusals


def test_every_game_says_how_to_hide_what_a_seat_cannot_see() -> None:
    missing = sorted(set(GAMES) - set(HIDDEN))
    assert not missing, (f"add a HIDDEN function for {missing} to this module: the "
                         "hidden-information part of the contract needs one")


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_its_wire_schemas(game: str) -> None:
    schemas = REGISTRY.get(game).wire_schemas()
    assert set(schemas) == set(GAME_PARTS)
    for part in GAME_PARTS:
        schema = validator(game, part).schema
        assert isinstance(schema, Mapping) and schema.get("description"), (game, part)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_contract(case: Case) -> None:
    counts = playable(REGISTRY.get(case.game), case.rules)
    check_case(case, QUICK, sorted({counts[0], counts[-1]}) if counts else [])


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=str)
def test_contract_thorough(case: Case) -> None:
    check_case(case, THOROUGH, playable(REGISTRY.get(case.game), case.rules))
