"""A referee process for one zoo game, for tests that must change the referee's own process
(its descriptor limit) or survive its death: plays `play_attack(MODE)` in RUNDIR and prints
what came of it as one JSON line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.security.zoo import found, leftover_cgroups, play_attack, survivors  # noqa: E402


def main() -> None:
    mode, run_dir = sys.argv[1], Path(sys.argv[2])
    outcome = play_attack(mode, run_dir)
    record = outcome.record
    print(json.dumps({
        "termination": record.termination.value,
        "forfeits": [seat.forfeit.value if seat.forfeit else None for seat in record.seats],
        "faults": [seat.faults + seat.timeouts for seat in record.seats],
        "details": record.details,
        "found": found(outcome, ""),
        "survivors": survivors(outcome.marker),
        "cgroups": [str(p) for p in leftover_cgroups()],
    }, default=str))


if __name__ == "__main__":
    main()
