"""A bot that misbehaves in one way, chosen by argv[1], for the referee's process tests.

Writes its pid (and its child's, if any) to $PIDFILE so tests can check nothing survives.
Modes: never, exit, wrong_token, refused (a wrong token, then exits as told), crash, sleep,
garbage, shape, stale, malformed, illegal, oversize, flood, big_protocol (a hello stating
protocol 10**4000, then it waits).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

import zmq

from arena.client import connect
from arena.protocol import Action, Request, Shutdown, decode_referee, encode

MODE = sys.argv[1]


def note_pid(pid: int) -> None:
    with open(os.environ["PIDFILE"], "a") as out:
        out.write(f"{pid}\n")


def answer(request: Request) -> bytes:
    if MODE == "garbage":
        return b"\xff\xfe this is not json"
    if MODE == "shape":
        return b'{"type": "action", "action": {"no": "id"}}'
    if MODE == "stale":
        return encode(Action(id=request.id - 1 if request.id > 1 else 10**9, action=None))
    if MODE == "malformed":
        return encode(Action(id=request.id, action={"type": "no_such_action"}))
    if MODE == "illegal" and request.kind == "pick_character":
        absent = [c for c in request.observation["cast"]
                  if c not in request.context["characters"]]
        return encode(Action(id=request.id, action={"type": "pick_character",
                                                    "character": absent[0]}))
    if MODE == "oversize":
        return encode(Action(id=request.id, action="x" * (2 << 20)))
    assert request.options
    return encode(Action(id=request.id, action=random.choice(request.options)))


def main() -> None:
    note_pid(os.getpid())
    if MODE == "never":
        time.sleep(600)
    if MODE == "exit":
        sys.exit(3)
    if MODE in ("wrong_token", "refused"):
        os.environ["ARENA_TOKEN"] = "not-the-token"
        try:
            connect("liar", "0")
        except SystemExit as exc:
            print(exc, flush=True)
            if MODE == "refused":  # as PROTOCOL.md §3 asks of a bot refused its seat
                sys.exit(1)
        time.sleep(600)
    if MODE == "big_protocol":
        raw: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
        raw.connect(os.environ["ARENA_ENDPOINT"])
        raw.send(b'{"type":"hello","token":"%s","name":"big","protocol":1%s}' % (
            os.environ["ARENA_TOKEN"].encode(), b"0" * 4000))
        print(raw.recv()[:200], flush=True)  # its error
        time.sleep(600)
    if MODE == "sleep":
        note_pid(subprocess.Popen(["sleep", "600"]).pid)  # a child: killed with the group
    socket, _ = connect(MODE, "0")
    requests = 0
    while True:
        message = decode_referee(socket.recv())
        if isinstance(message, Shutdown):
            break
        if not isinstance(message, Request):
            continue
        requests += 1
        if MODE == "crash" and requests == 3:
            os._exit(7)
        if MODE == "sleep":
            time.sleep(600)
        if MODE == "flood":
            sys.stdout.write("flood " * 200_000)
            sys.stdout.flush()
        socket.send(answer(message))
    socket.close(linger=0)
    zmq.Context.instance().term()


if __name__ == "__main__":
    main()
