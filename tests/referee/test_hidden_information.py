"""Hidden information on the wire: each seat receives exactly what it may see."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from arena.games import REGISTRY
from arena.protocol import Action, GameOver, Request, encode
from arena.protocol.messages import RefereeMessage
from arena.referee.match import run_game
from arena.referee.players import SeatPlayer
from arena.referee.replay import ReplayWriter, read_replay
from arena.referee.review import resimulate
from arena.referee.transport import ScriptedReply, ScriptedTransport

GAME = REGISTRY.get("machiavelli")


def random_bot(seed: int) -> Any:
    rng = random.Random(seed)

    def reply(message: RefereeMessage) -> list[ScriptedReply]:
        if not isinstance(message, Request):
            return []
        return [(0.1, encode(Action(id=message.id, action=rng.choice(message.options or []))))]
    return reply


def lists_in(value: Any) -> list[list[Any]]:
    if isinstance(value, dict):
        return [item for v in value.values() for item in lists_in(v)]
    if isinstance(value, list):
        return [value, *(item for v in value for item in lists_in(v))]
    return []


@pytest.mark.parametrize(("players", "seed"), [(4, 1), (7, 2), (2, 3)])
def test_each_seat_gets_its_observation_and_only_events_it_may_see(
        players: int, seed: int, tmp_path: Path) -> None:
    transport = ScriptedTransport()
    for seat in range(players):
        transport.add(f"s{seat}".encode(), random_bot(seat))
    writer = ReplayWriter(tmp_path / "r.jsonl")
    run_game(GAME, {}, seed, [SeatPlayer.remote(f"s{i}", f"s{i}".encode())
                              for i in range(players)], transport, replay=writer,
             clock=transport.clock)
    writer.close()
    replay = read_replay(tmp_path / "r.jsonl")
    by_request = {m.id: m for _, m in transport.sent if isinstance(m, Request)}
    visible: list[list[Any]] = [[] for _ in range(players)]  # events owed to each seat
    for item in resimulate(replay, GAME):
        seat = int(item.step["seat"])
        request = by_request[int(item.step["request"])]
        assert request.seat == seat
        state = GAME.to_json(item.before)
        assert request.observation == GAME.observation(item.before, seat)
        assert request.events == visible[seat]
        visible[seat] = []
        _no_leak(request.observation, state, seat)
        for event in item.step["events"]:
            for other in range(players):
                if event["visible_to"] is None or other in event["visible_to"]:
                    visible[other].append(event["event"])
    for seat in range(players):
        over = [m for p, m in transport.sent if p == f"s{seat}".encode()
                and isinstance(m, GameOver)]
        assert over[0].events == visible[seat]


def _no_leak(observation: dict[str, Any], state: dict[str, Any], seat: int) -> None:
    assert observation["hand"] == state["hands"][seat]
    assert observation["characters"] == state["chars"][seat]
    public = {k: v for k, v in observation.items() if k not in ("hand", "characters")}
    found = lists_in(public)
    for other, hand in enumerate(state["hands"]):
        if other != seat and len(hand) >= 2 and hand != state["hands"][seat]:
            assert hand not in found, f"seat {other}'s hand is in seat {seat}'s observation"
    revealed = {r["character"] for r in observation["revealed"]}
    for other, chars in enumerate(state["chars"]):
        hidden = [c for c in chars if c not in revealed]
        if other != seat and hidden and observation["phase"] != "draft":
            assert hidden not in found
    assert "deck" not in observation and "rng" not in observation
