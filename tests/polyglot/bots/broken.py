"""A bot broken on purpose, one way per MODE, for `arena check-bot` tests.

Modes: wrong-id (answers with another id), dies-on-error (exits on an `error`),
ignores-shutdown (keeps running), bad-token (wrong hello token), one-game (exits after
its first game_over), good (none of these).
"""

from __future__ import annotations

import json
import os
import sys
import time

import zmq


def main(mode: str) -> int:
    socket = zmq.Context().socket(zmq.DEALER)
    socket.connect(os.environ["ARENA_ENDPOINT"])
    token = "not-the-token" if mode == "bad-token" else os.environ["ARENA_TOKEN"]
    socket.send_json({"type": "hello", "token": token, "name": mode, "protocol": 1})
    while True:
        message = json.loads(socket.recv())
        kind = message["type"]
        if kind == "request":
            answer = message["id"] + 1000 if mode == "wrong-id" else message["id"]
            socket.send_json({"type": "action", "id": answer, "action": message["options"][0]})
        elif kind == "error" and mode == "dies-on-error":
            return 3
        elif kind == "game_over" and mode == "one-game":
            return 0
        elif kind == "shutdown":
            if mode == "ignores-shutdown":
                time.sleep(60)
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
