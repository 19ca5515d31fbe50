"""Fault details quote the bot's action (and the engine's example) as JSON, not Python reprs:
a bot author can parse them, and paste them back as an action."""

from __future__ import annotations

import json
import random

import pytest

from arena.core.errors import IllegalAction, MalformedAction
from arena.core.game import Json
from arena.games.machiavelli import GAME as MACHIAVELLI
from arena.games.machiavelli.cards import DISTRICTS
from arena.games.machiavelli.state import State
from arena.games.rummy import GAME as RUMMY
from arena.games.rummy.actions import Draw, Play
from arena.protocol import Action, Error, Request, encode
from arena.protocol.messages import RefereeMessage
from arena.referee.match import run_game
from arena.referee.players import SeatPlayer
from arena.referee.spec import FaultPolicy, TimeControl
from arena.referee.transport import ScriptedReply, ScriptedTransport

from .rummy.helpers import scenario


def _json_at(text: str, start: int = 0) -> Json:
    """Parse the JSON value that begins at `start` in `text` (the rest is prose)."""
    value, _ = json.JSONDecoder().raw_decode(text, start)
    return value


def _an_illegal_build(observation: dict[str, Json]) -> dict[str, Json]:
    """A build of a district the seat does not hold: well formed, against the rules."""
    hand = set(observation["hand"])
    return {"type": "build", "district": next(d for d in DISTRICTS if d not in hand)}


def _a_turn(seed: int) -> tuple[State, int]:
    state = MACHIAVELLI.new_game(4, MACHIAVELLI.resolve_rules(4, {}), seed)
    rng = random.Random(seed)
    while (decision := MACHIAVELLI.to_act(state)) is not None and decision.kind != "turn":
        MACHIAVELLI.apply(state, decision.seat, MACHIAVELLI.random_action(state, decision.seat,
                                                                          rng))
    assert decision is not None
    return state, decision.seat


def test_machiavelli_illegal_action_detail_starts_with_the_action_as_json() -> None:
    state, seat = _a_turn(3)
    decision = MACHIAVELLI.to_act(state)
    assert decision is not None
    wire = _an_illegal_build(MACHIAVELLI.observation(state, seat))
    with pytest.raises(IllegalAction) as caught:
        MACHIAVELLI.apply(state, seat, MACHIAVELLI.parse_action(decision, wire))
    detail = str(caught.value)
    assert _json_at(detail) == wire
    assert "'" not in detail.split(" is not legal")[0]


@pytest.mark.parametrize(("payload", "quoted"), [
    ({"type": "fly"}, "fly"), ({"type": "build", "district": "Manor"}, "Manor"),
    ({"type": "kill", "character": ["pope"]}, ["pope"]),
])
def test_machiavelli_malformed_details_quote_json(payload: dict[str, Json], quoted: Json) -> None:
    state, seat = _a_turn(3)
    decision = MACHIAVELLI.to_act(state)
    assert decision is not None
    with pytest.raises(MalformedAction) as caught:
        MACHIAVELLI.parse_action(decision, payload)
    detail = str(caught.value)
    assert json.dumps(quoted, separators=(",", ":")) in detail


def test_rummy_draw_refusal_gives_a_legal_play_as_json() -> None:
    state = scenario([["10H", "KD"], ["2C"]], [["7H", "8H", "9H"], ["QS", "QD", "QC"]],
                     draw_when_able=False)
    with pytest.raises(IllegalAction) as caught:
        RUMMY.validate(state, 0, Draw())
    detail = str(caught.value)
    example = _json_at(detail, detail.index("e.g. ") + len("e.g. "))
    assert example["type"] == "play"
    decision = RUMMY.to_act(state)
    assert decision is not None
    action = RUMMY.parse_action(decision, example)
    assert isinstance(action, Play)
    RUMMY.validate(state, 0, action)  # the example is itself a legal move


def test_rummy_malformed_details_quote_json() -> None:
    decision = RUMMY.to_act(scenario([["KD"], ["2C"]], []))
    assert decision is not None
    with pytest.raises(MalformedAction) as caught:
        RUMMY.parse_action(decision, {"type": "play", "table": [["7H", "XX"]], "x": 1,
                                      "y": 2})
    assert 'unknown fields ["x","y"]; allowed: ["table","type"]' in str(caught.value)


def test_the_error_on_the_wire_carries_the_illegal_action_as_json() -> None:
    sent: list[dict[str, Json]] = []

    def bot(message: RefereeMessage) -> list[ScriptedReply]:
        if not isinstance(message, Request):
            return []
        action = message.options[0] if message.options else None
        if message.kind == "turn":
            action = _an_illegal_build(message.observation)
            sent.append(action)
        return [(1.0, encode(Action(id=message.id, action=action)))]

    transport = ScriptedTransport()
    transport.add(b"bot", bot)
    players = [SeatPlayer.remote("bot", b"bot"), *(SeatPlayer(f"r{i}", builtin="random")
                                                  for i in range(3))]
    record = run_game(MACHIAVELLI, {}, 5, players, transport, TimeControl(move_ms=100),
                      FaultPolicy(max_faults=1), clock=transport.clock)
    errors = [m for p, m in transport.sent if p == b"bot" and isinstance(m, Error)]
    illegal = [e for e in errors if e.code.value == "illegal_action"]
    assert len(illegal) == 1 and record.faults[0].detail == illegal[0].detail
    assert _json_at(illegal[0].detail) == sent[0]
    wire = json.loads(encode(illegal[0]))
    assert _json_at(wire["detail"]) == sent[0]


