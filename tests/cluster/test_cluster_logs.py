"""A cluster's games log at the coordinator, as a local run's workers do: at its
`--log-level`, each repeated warning about one bot a few times only."""

from __future__ import annotations

import re
from pathlib import Path

from arena.tournament.worker_logs import LEFT_OUT, SHOWN
from tests.tournament.test_worker_logs import BROKEN_GAMES, forfeits, run_field


def test_a_bot_that_never_starts_on_the_workers_is_named_at_the_coordinator(
        tmp_path: Path) -> None:
    err, out = run_field(tmp_path, where=("--cluster", "local:1"))
    flat = " ".join(err.split())
    # named with the worker it failed on: on several machines, the one to fix
    assert re.search(r"worker tcp://[0-9.:]+: broken: exited with status 3 before its hello",
                     flat), flat
    assert flat.count("forfeits: no_connect") == SHOWN
    assert " ".join(LEFT_OUT.format(n=SHOWN).split()) in flat
    assert forfeits(out) == BROKEN_GAMES
    quiet, out = run_field(tmp_path / "quiet", "--log-level", "error",
                           where=("--cluster", "local:1"))
    assert "forfeits: no_connect" not in quiet
    assert forfeits(out) == BROKEN_GAMES
