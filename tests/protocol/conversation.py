"""Produce the annotated example conversation of PROTOCOL.md: a complete 2-player game of
`machiavelli` with `city_size: 1` (one round), with both sides' messages in order.

`python -m tests.protocol.conversation` rewrites `protocol/examples/conversation.jsonl`; a
test checks that the committed file is what the referee produces today.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import msgspec

from arena.games import REGISTRY
from arena.protocol import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    Action,
    Hello,
    Request,
    Shutdown,
    Welcome,
    encode,
)
from arena.protocol.messages import RefereeMessage
from arena.referee.match import run_game
from arena.referee.players import SeatPlayer
from arena.referee.spec import FaultPolicy, TimeControl
from arena.referee.transport import ScriptedReply, ScriptedTransport

ROOT = Path(__file__).resolve().parents[2]
PATH = ROOT / "protocol" / "examples" / "conversation.jsonl"
NAMES = ("alice", "bob")


def conversation() -> list[dict[str, object]]:
    """Play the game and return every message as {"from", "to", "message"}."""
    lines: list[dict[str, object]] = []
    transport = ScriptedTransport()
    rngs = [random.Random(seat) for seat in range(2)]
    blundered = [False]

    def bot(seat: int) -> object:
        def reply(message: RefereeMessage) -> list[ScriptedReply]:
            lines.append({"from": "referee", "to": NAMES[seat],
                          "message": msgspec.to_builtins(message)})
            if not isinstance(message, Request):
                return []
            action = rngs[seat].choice(message.options or [None])
            if seat == 1 and message.kind == "turn" and not blundered[0]:
                blundered[0] = True  # one illegal move, to show an error and a fault
                action = {"type": "build", "district": "palace"}
            answer = Action(id=message.id, action=action)
            lines.append({"from": NAMES[seat], "to": "referee",
                          "message": msgspec.to_builtins(answer)})
            return [(5.0, encode(answer))]
        return reply

    for seat, name in enumerate(NAMES):
        lines.append({"from": name, "to": "referee", "message": msgspec.to_builtins(
            Hello(token="<ARENA_TOKEN>", name=name, version="1.0", protocol=PROTOCOL_VERSION))})
        lines.append({"from": "referee", "to": name, "message": msgspec.to_builtins(
            Welcome(protocol=PROTOCOL_VERSION, name=name, max_message_bytes=MAX_MESSAGE_BYTES,
                    referee="arena 0.1.0"))})
        transport.add(name.encode(), bot(seat))  # type: ignore[arg-type]
    players = [SeatPlayer.remote(name, name.encode(), "1.0") for name in NAMES]
    run_game(REGISTRY.get("machiavelli"), {"city_size": 1}, 6, players, transport,
             TimeControl(move_ms=1000, bank_ms=2000), FaultPolicy(max_faults=3),
             clock=transport.clock)
    for name in NAMES:
        lines.append({"from": "referee", "to": name,
                      "message": msgspec.to_builtins(Shutdown(reason="done"))})
    return lines


def render() -> str:
    """Return the conversation as JSON lines."""
    return "".join(json.dumps(line) + "\n" for line in conversation())


NOTES = {
    "hello": "The bot speaks first. The token proves that this referee started it.",
    "welcome": "Handshake done: the bot has a seat in the games that follow.",
    "game_start": "A game begins: game id, resolved rules, this bot's seat, the bots by seat, "
                  "the time control.",
    "request/pick_character": "A decision. `options` lists every legal action: echo one back "
                              "with the same `id`. The observation is shown once, in full.",
    "request/discard_character": "Two players: after a pick, discard one face down.",
    "request/turn": "The seat's character was called: one `turn` request per action "
                    "until `end_turn`.",
    "request/keep_card": "After `gather_cards`: keep one of `context.drawn`.",
    "error": "The action was refused: a fault (1 of 3). The referee played the default "
             "(the first option) for this bot and the game goes on.",
    "game_over": "The game ended: placings (1 is first) and scores, with the events this seat "
                 "had not yet seen.",
    "shutdown": "No more games: exit now (the process group is killed after a grace period).",
}


def markdown() -> str:
    """Return the conversation as an annotated block for PROTOCOL.md (observations elided
    after the first)."""
    out: list[str] = []
    seen: set[str] = set()
    for line in conversation():
        message = dict(line["message"])  # type: ignore[call-overload]
        key = message["type"] + (f"/{message['kind']}" if message["type"] == "request" else "")
        if key in NOTES and key not in seen:
            out.append(f"// {NOTES[key]}")
        if message["type"] == "request" and "request/pick_character" in seen:
            message["observation"] = "..."
        seen.add(key)
        arrow = "->" if line["from"] == "referee" else "<-"
        who = line["to"] if line["from"] == "referee" else line["from"]
        out.append(f"{arrow} {who:5} {json.dumps(message)}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    PATH.write_text(render())
    if "--markdown" in sys.argv:
        print(markdown())
    print(f"wrote {PATH}")
