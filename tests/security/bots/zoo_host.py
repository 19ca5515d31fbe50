"""A referee process for the SIGKILL test: seats a sandboxed bot that starts a setsid
grandchild and then hangs on its first request, and waits to be killed."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl  # noqa: E402
from arena.referee.sandbox import SandboxMode, SandboxPolicy  # noqa: E402

HOSTILE = str(Path(__file__).resolve().parent / "hostile.py")


def main() -> None:
    marker, workdir = sys.argv[1], Path(sys.argv[2])
    bots = [BotSpec("attacker", (sys.executable, HOSTILE, "setsid_hang"),
                    env={"ZOO_MARKER": marker}),
            BotSpec("other", ("builtin:random",))]
    with Referee(bots, TimeControl(move_ms=600_000), FaultPolicy(), workdir,
                 sandbox=SandboxPolicy(SandboxMode.BWRAP)) as referee:
        print("playing", flush=True)
        referee.play("machiavelli", {}, 1, ["attacker", "other"])


if __name__ == "__main__":
    main()
