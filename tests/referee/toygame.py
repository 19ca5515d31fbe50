"""A tiny game implementing the engine contract, for referee tests: "race to 10".

Each seat holds a hidden hand of cards worth 1-3; on its turn a seat plays one card, scores
its value and draws a new card (seen only by itself). The first seat to reach `target` ends
the game. `free` sends no options (free-form decisions); `crash_at` makes `apply` raise a
non-game exception at that turn (an engine bug).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from arena.core.errors import ConfigError, IllegalAction, MalformedAction
from arena.core.game import (
    Decision,
    Event,
    GameInfo,
    Json,
    OptionSpec,
    Outcome,
    Termination,
    placings_from_keys,
)
from arena.core.options import raise_problems, resolve_options
from arena.core.rng import rng_from_json, rng_state_to_json
from arena.core.wire_schema import NAT, SEAT, array, closed, enum, nullable, tagged


@dataclass
class RaceState:
    hands: list[list[int]]
    deck: list[int]
    scores: list[int]
    turn: int
    rules: dict[str, Json]
    rng: random.Random


class Race:
    info: ClassVar[GameInfo] = GameInfo(
        "race", 1, "Race to 10", 2, 4,
        (OptionSpec("target", 10, "points to win"), OptionSpec("hand", 3, "hand size"),
         OptionSpec("free", False, "send no options"),
         OptionSpec("crash_at", 0, "turn at which apply raises (0: never)")),
        ("play",))

    def resolve_rules(self, players: int, rules: Mapping[str, Json]) -> dict[str, Json]:
        resolved, problems = resolve_options("race", self.info.options, rules)
        if not 2 <= players <= 4:
            problems.append(f"race needs 2-4 players, not {players}")
        raise_problems("race", problems)
        return resolved

    def new_game(self, players: int, rules: Mapping[str, Json], seed: int) -> RaceState:
        resolved = self.resolve_rules(players, rules)
        rng = random.Random(seed)
        deck = [1, 2, 3] * 20
        rng.shuffle(deck)
        hands = [sorted(deck.pop() for _ in range(resolved["hand"])) for _ in range(players)]
        return RaceState(hands, deck, [0] * players, 0, resolved, rng)

    def _over(self, state: RaceState) -> bool:
        return max(state.scores) >= state.rules["target"] or state.turn >= 200

    def to_act(self, state: RaceState) -> Decision | None:
        if self._over(state):
            return None
        seat = state.turn % len(state.hands)
        options = None if state.rules["free"] else tuple(
            {"card": c} for c in sorted(set(state.hands[seat])))
        return Decision(seat, "play", options, {"turn": state.turn})

    def parse_action(self, decision: Decision, payload: Json) -> int:
        if not isinstance(payload, dict) or not isinstance(payload.get("card"), int):
            raise MalformedAction(f"a play is {{'card': int}}, not {payload!r}")
        return int(payload["card"])

    def action_to_wire(self, action: int) -> Json:
        return {"card": action}

    def validate(self, state: RaceState, seat: int, action: int) -> None:
        decision = self.to_act(state)
        if decision is None or decision.seat != seat:
            raise IllegalAction(f"seat {seat} is not to act")
        if action not in state.hands[seat]:
            raise IllegalAction(f"card {action} is not in hand")

    def apply(self, state: RaceState, seat: int, action: int) -> list[Event]:
        self.validate(state, seat, action)
        if state.rules["crash_at"] and state.turn + 1 == state.rules["crash_at"]:
            raise RuntimeError("toy engine bug")
        state.hands[seat].remove(action)
        state.scores[seat] += action
        state.turn += 1
        events = [Event("played", {"seat": seat, "card": action})]
        if state.deck:
            card = state.deck.pop()
            state.hands[seat].append(card)
            state.hands[seat].sort()
            events.append(Event("drew", {"seat": seat, "card": card}, frozenset({seat})))
        return events

    def observation(self, state: RaceState, seat: int) -> dict[str, Json]:
        return {"hand": list(state.hands[seat]), "scores": list(state.scores),
                "hand_sizes": [len(h) for h in state.hands], "deck": len(state.deck),
                "turn": state.turn}

    def observation_view(self, state: RaceState, seat: int) -> dict[str, Json]:
        return self.observation(state, seat)

    def outcome(self, state: RaceState) -> Outcome | None:
        if not self._over(state):
            return None
        return Outcome(Termination.COMPLETED, placings_from_keys([(s,) for s in state.scores]),
                       tuple(state.scores), {"turns": state.turn})

    def default_action(self, state: RaceState, seat: int) -> int:
        return min(state.hands[seat])

    def random_action(self, state: RaceState, seat: int, rng: random.Random) -> int:
        return rng.choice(state.hands[seat])

    def to_json(self, state: RaceState) -> dict[str, Json]:
        return {"hands": state.hands, "deck": state.deck, "scores": state.scores,
                "turn": state.turn, "rules": state.rules, "rng": rng_state_to_json(state.rng)}

    def from_json(self, data: Mapping[str, Json]) -> RaceState:
        return RaceState([list(h) for h in data["hands"]], list(data["deck"]),
                         list(data["scores"]), int(data["turn"]), dict(data["rules"]),
                         rng_from_json(data["rng"]))

    def clone(self, state: RaceState) -> RaceState:
        return self.from_json(self.to_json(state))

    def wire_schemas(self) -> dict[str, Json]:
        card = enum([1, 2, 3], "a card's value")
        seat_card = {"seat": SEAT, "card": card}
        return {
            "observation": closed({"hand": array(card), "scores": array(NAT),
                                   "hand_sizes": array(NAT), "deck": NAT, "turn": NAT},
                                  "what one seat may know"),
            "action": closed({"card": card}, "the card to play"),
            "event": tagged("type", {"played": seat_card, "drew": seat_card},
                            {"played": "a seat played a card", "drew": "a seat drew a card"},
                            "a race event"),
            "decision": tagged("kind", {"play": {"context": closed({"turn": NAT}),
                                                 "options": nullable(array(closed(
                                                     {"card": card})))}},
                               {"play": "play one card from the hand"},
                               "a race decision: a request's kind, context and options"),
        }


GAME = Race()


def register() -> None:
    """Register the toy game in the global registry (once), for Referee and CLI tests."""
    from arena.core.registry import REGISTRY

    try:
        REGISTRY.get("race")
    except ConfigError:
        REGISTRY.register(GAME)


