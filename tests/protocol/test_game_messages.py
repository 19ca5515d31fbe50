"""Every message of real games, for every registered game and declared option choice, is
valid against the message schemas and the game's own (observation, decision, events,
actions): the referee's `run_game` plays the Python sample bots' strategies (random for
every game, greedy for machiavelli) over a scripted transport, and each frame is checked
as the bot receives it and as it answers."""

from __future__ import annotations

import importlib
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.client import Request, decode_message
from arena.core.game import Json
from arena.games import REGISTRY
from arena.protocol import Action, encode
from arena.protocol.messages import RefereeMessage
from arena.referee.match import run_game
from arena.referee.players import SeatPlayer
from arena.referee.spec import FaultPolicy, TimeControl
from arena.referee.transport import ScriptedReply, ScriptedTransport
from tests.engines.test_contract import CASES, Case, playable
from tests.protocol.game_schemas import conforms, message_conforms

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "python"
Strategy = Callable[[Request, random.Random], Json]


@pytest.fixture
def strategies(monkeypatch: pytest.MonkeyPatch) -> dict[str, Strategy]:
    """The sample bots' `act` functions (they import their helpers by name)."""
    monkeypatch.syspath_prepend(str(SAMPLES))
    greedy = importlib.import_module("greedy_bot").act
    return {"random": importlib.import_module("random_bot").act,
            "greedy": lambda request, rng: greedy(request)}


def check_received(game: str, message: dict[str, Any], seen: Counter[str]) -> None:
    message_conforms("referee_message", message)
    message_conforms(message["type"], message)
    seen[message["type"]] += 1
    for event in message.get("events", ()):
        conforms(game, "event", event)
        seen[f"event/{event['type']}"] += 1
    if message["type"] == "request":
        conforms(game, "observation", message["observation"])
        conforms(game, "decision", {key: message[key] for key in ("kind", "context", "options")})
        seen[f"request/{message['kind']}"] += 1


def scripted_bot(game: str, act: Strategy, seen: Counter[str]
                 ) -> Callable[[RefereeMessage], list[ScriptedReply]]:
    rng = random.Random(0)

    def reply(message: RefereeMessage) -> list[ScriptedReply]:
        frame = encode(message)
        check_received(game, json.loads(frame), seen)
        received = decode_message(frame)
        if not isinstance(received, Request):
            if hasattr(received, "bot_seed"):
                rng.seed(received.bot_seed)
            return []
        answer = json.loads(encode(Action(id=received.id, action=act(received, rng))))
        message_conforms("bot_message", answer)
        conforms(game, "action", answer["action"])
        seen["action"] += 1
        return [(1.0, json.dumps(answer).encode())]
    return reply


def play(case: Case, players: int, seed: int, act: Strategy) -> Counter[str]:
    """Play one game through the referee; return what was checked, by message kind."""
    seen: Counter[str] = Counter()
    transport = ScriptedTransport()
    names = [f"bot{seat}" for seat in range(players)]
    for name in names:
        transport.add(name.encode(), scripted_bot(case.game, act, seen))
    record = run_game(REGISTRY.get(case.game), case.rules, seed,
                      [SeatPlayer.remote(name, name.encode()) for name in names], transport,
                      TimeControl(move_ms=1000, bank_ms=1000), FaultPolicy(max_faults=1),
                      clock=transport.clock)
    assert record.faults == (), record.faults
    return seen


def tables(case: Case) -> Iterator[int]:
    """Smallest and largest table under the defaults; the largest under other options (the
    contract test plays both under every option)."""
    counts = playable(REGISTRY.get(case.game), case.rules)
    yield from sorted({counts[0] if not case.rules else counts[-1], counts[-1]})


@pytest.mark.parametrize("case", CASES, ids=str)
def test_every_message_of_random_play_matches_the_schemas(
        case: Case, strategies: dict[str, Strategy]) -> None:
    seen: Counter[str] = Counter()
    for players in tables(case):
        seen += play(case, players, 3, strategies["random"])
    assert seen["game_start"] and seen["game_over"] and seen["action"] == seen["request"]
    kinds = REGISTRY.get(case.game).info.decision_kinds
    assert any(f"request/{kind}" in seen for kind in kinds)


def test_greedy_machiavelli_messages_match_the_schemas(
        strategies: dict[str, Strategy]) -> None:
    seen: Counter[str] = Counter()
    for players in (2, 5, 8):
        seen += play(Case("machiavelli", {}), players, 4, strategies["greedy"])
    assert seen["request/turn"] and seen["event/built"]
