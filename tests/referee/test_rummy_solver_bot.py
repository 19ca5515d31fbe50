"""The rummy solver sample bot never plays an illegal move, under every rule option.

Played in-process: the bot's own `act` answers the referee's requests through a scripted
transport on a fake clock, so the games are the real referee's (encoding, validation,
fault records) with no processes and no timeouts. The bot's search budget is a third of
`move_ms` on the wall clock; a small `move_ms` makes it run out often, which is exactly
when the bot used to draw illegally under `draw_when_able: false`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.core.record import GameRecord
from arena.games.rummy import GAME
from arena.games.rummy.actions import Draw, Play
from arena.games.rummy.solver import required_play
from arena.games.rummy.strategy import solver_policy
from arena.protocol import Action, Request, encode
from arena.protocol.messages import RefereeMessage
from arena.referee.match import run_game
from arena.referee.players import SeatPlayer
from arena.referee.spec import FaultPolicy, TimeControl
from arena.referee.transport import ScriptedReply, ScriptedTransport
from tests.engines.rummy.helpers import scenario

BOT_PATH = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "rummy_solver_bot.py"
QUICK = TimeControl(move_ms=60)
"""A search budget of 20 ms (the bot's floor): the budgeted search gives up often."""


def _load_bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rummy_solver_bot", BOT_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BOT = _load_bot()


def _answers(act: Callable[[Request], Any]) -> Callable[[RefereeMessage], list[ScriptedReply]]:
    def reply(message: RefereeMessage) -> list[ScriptedReply]:
        if not isinstance(message, Request):
            return []
        return [(1.0, encode(Action(id=message.id, action=act(message))))]
    return reply


def _play(rules: dict[str, Any], seed: int, players: int = 2) -> GameRecord:
    transport = ScriptedTransport()
    seats = []
    for seat in range(players):
        peer = f"solver{seat}".encode()
        transport.add(peer, _answers(BOT.act))
        seats.append(SeatPlayer.remote(f"solver{seat}", peer))
    return run_game(GAME, rules, seed, seats, transport, QUICK, FaultPolicy(max_faults=1000),
                    clock=transport.clock)


# A position of a real game (draw_when_able false, bench/rummy.py's games): no cheap move,
# and the policy's budgeted rebuild search gives up (it needs 1,025 states of 1,000), yet a
# rebuild exists (the rules find it).
HAND = ["3S", "3S", "5S", "4D", "8D", "KD", "5C", "6C", "6C"]
TABLE = [["AD", "2D", "3D", "4D", "5D"], ["AC", "JK", "3C"], ["3H", "4H", "5H"],
         ["10H", "JH", "QH", "JK", "AH"]]


def test_the_budgeted_policy_alone_would_draw_here() -> None:
    assert isinstance(solver_policy(HAND, TABLE, 1, 71), Draw)
    assert required_play(HAND, TABLE, 1) is not None


def test_when_drawing_is_illegal_the_bot_finds_the_rebuild() -> None:
    state = scenario([HAND, ["AS"]], TABLE, draw_when_able=False)
    decision = GAME.to_act(state)
    assert decision is not None
    request = Request(id=1, kind=decision.kind, seat=0, observation=GAME.observation(state, 0),
                      events=[], options=None, context=dict(decision.context), move_ms=60,
                      bank_ms=0)
    action = GAME.parse_action(decision, BOT.act(request))
    assert isinstance(action, Play)
    GAME.validate(state, 0, action)  # raises IllegalAction for an illegal move


def test_when_drawing_is_legal_the_bot_may_draw() -> None:
    state = scenario([HAND, ["AS"]], TABLE)
    decision = GAME.to_act(state)
    assert decision is not None
    request = Request(id=1, kind=decision.kind, seat=0, observation=GAME.observation(state, 0),
                      events=[], options=None, context=dict(decision.context), move_ms=60,
                      bank_ms=0)
    GAME.validate(state, 0, GAME.parse_action(decision, BOT.act(request)))


QUICK_RULES = [
    {"draw_when_able": False},  # the strict game, every other option at its default
    {"hand_size": 5, "opening": "meld-from-hand", "max_jokers_per_meld": 2},
    {"draw_when_able": False, "hand_size": 5, "opening": "meld-from-hand", "jokers": 0},
]
"""Every option takes a non-default value at least once, in three quick games."""
RULES = [
    {},
    {"draw_when_able": False},
    {"jokers": 0},
    {"hand_size": 5},
    {"hand_size": 15},
    {"max_jokers_per_meld": 2},
    {"opening": "meld-from-hand"},
    {"max_jokers_per_meld": 2, "draw_when_able": False, "hand_size": 7},
    {"draw_when_able": False, "opening": "meld-from-hand", "max_jokers_per_meld": 3,
     "hand_size": 9},
    {"draw_when_able": False, "jokers": 0, "hand_size": 15},
]


def _rules_id(rules: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in rules.items()) or "defaults"


@pytest.mark.parametrize("rules", QUICK_RULES, ids=_rules_id)
def test_no_fault_under_each_rule_option(rules: dict[str, Any]) -> None:
    record = _play(rules, seed=3)
    assert record.faults == (), record.faults[0]


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULES, ids=_rules_id)
@pytest.mark.parametrize("players", [2, 4])
def test_no_fault_under_each_rule_option_over_many_seeds(rules: dict[str, Any],
                                                         players: int) -> None:
    for seed in range(6):
        record = _play(rules, seed, players)
        assert record.faults == (), (seed, record.faults[0])
