"""A referee process for the interruption tests: seats a bot that sleeps on its first
request (it has a child of its own) and waits for the test to interrupt or kill it."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from arena.referee.sandbox import SandboxMode, SandboxPolicy

HERE = Path(__file__).resolve().parent
PLAIN = SandboxPolicy(SandboxMode.NONE)  # these bots report their pids from outside a sandbox


def main() -> None:
    pidfile, workdir = sys.argv[1], Path(sys.argv[2])
    bots = [BotSpec("sleeper", (sys.executable, str(HERE / "misbehave.py"), "sleep"),
                    env={"PIDFILE": pidfile}),
            BotSpec("other", ("builtin:random",))]
    with Referee(bots, TimeControl(move_ms=600_000), FaultPolicy(), workdir,
                 sandbox=PLAIN) as referee:
        print("playing", flush=True)
        referee.play("machiavelli", {}, 1, ["sleeper", "other"])


if __name__ == "__main__":
    main()
