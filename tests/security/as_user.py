"""Run a few zoo attacks in this process (meant to run as an unprivileged user: no cgroups,
unprivileged bubblewrap) and print what came of each as one JSON line.

Usage: python tests/security/as_user.py RUN_DIR
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from arena.referee.limits import Limits  # noqa: E402
from tests.security.zoo import found, play_attack, survivors  # noqa: E402


def main() -> None:
    base = Path(sys.argv[1])
    results = {}
    for mode in ("thief", "setsid", "forkbomb", "writer", "fill"):  # run dirs beside pylib/
        run_dir = base / mode
        run_dir.mkdir()
        outcome = play_attack(mode, run_dir, limits=Limits(processes=32, scratch_mb=8))
        record = outcome.record
        results[mode] = {
            "uid": os.geteuid(),
            "isolation": record.details["isolation"],
            "honest": [(s.forfeit.value if s.forfeit else None, s.faults)
                       for s in record.seats[1:]],
            "found": found(outcome, ""),
            "survivors": survivors(outcome.marker),
        }
    print(json.dumps(results))


if __name__ == "__main__":
    main()
