"""A bot broken on purpose, one way per MODE, for `arena check-bot` tests.

Modes: wrong-id (answers with another id), dies-on-error (exits on an `error`),
ignores-shutdown (keeps running), bad-token (wrong hello token), one-game (exits after
its first game_over), unseeded (picks at random from a generator that ignores bot_seed),
seeded-once (one generator seeded once per process, not per game), seeded (a generator seeded
from bot_seed at every game_start), good (always the first option), late (answers its fifth
request well after the deadline, once), late-second (the same with its second request, the
one that follows check-bot's injected error), aborts (killed by SIGABRT at its fifth request, as
by a failed C++ assertion), illegal (every action is one the rules refuse), exits-midgame
(exits with status 0 at its fifth request), twice (sends its fifth action twice), not-json
(its fifth answer is a debugging line, not JSON), string-id (answers with the id as a JSON
string). bad-token exits with status 1 on the error that refuses its hello, as PROTOCOL.md
asks.
"""

from __future__ import annotations

import json
import os
import random
import resource
import sys
import time

import zmq

RANDOM_MODES = ("unseeded", "seeded-once", "seeded")
FIFTH = 5


def main(mode: str) -> int:
    socket = zmq.Context().socket(zmq.DEALER)
    socket.connect(os.environ["ARENA_ENDPOINT"])
    token = "not-the-token" if mode == "bad-token" else os.environ["ARENA_TOKEN"]
    socket.send_json({"type": "hello", "token": token, "name": mode, "protocol": 1})
    # seeded from the OS, or once per process: either way a replayed game goes another way
    rng = random.Random() if mode == "unseeded" else random.Random(7)
    requests = 0
    while True:
        message = json.loads(socket.recv())
        kind = message["type"]
        if kind == "game_start" and mode == "seeded":
            rng = random.Random(message["bot_seed"])
        elif kind == "request":
            requests += 1
            answer = message["id"] + 1000 if mode == "wrong-id" else \
                str(message["id"]) if mode == "string-id" else message["id"]
            options = message["options"]
            pick = options[0] if mode not in RANDOM_MODES else rng.choice(options)
            if (requests, mode) in ((FIFTH, "late"), (2, "late-second")):
                # surely late: three times the deadline
                time.sleep(3 * (message["move_ms"] + message["bank_ms"]) / 1000)
            elif requests == FIFTH and mode == "aborts":
                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file
                os.abort()
            elif mode == "illegal":
                pick = {"type": "no_such_action"}
            elif (requests, mode) == (FIFTH, "exits-midgame"):
                return 0
            elif (requests, mode) == (FIFTH, "not-json"):
                socket.send(b"DEBUG: thinking about request 5")
            socket.send_json({"type": "action", "id": answer, "action": pick})
            if (requests, mode) == (FIFTH, "twice"):
                socket.send_json({"type": "action", "id": answer, "action": pick})
        elif kind == "error" and mode == "dies-on-error":
            return 3
        elif kind == "error" and mode == "bad-token":  # before welcome: no seat
            print(f"refused: {message['code']}: {message['detail']}", file=sys.stderr)
            return 1
        elif kind == "game_over" and mode == "one-game":
            return 0
        elif kind == "shutdown":
            if mode == "ignores-shutdown":
                time.sleep(60)
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
