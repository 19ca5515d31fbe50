"""Bot starts of a real run, worker by worker, and why each bot was started (issue 16).

The scaling benchmark's 8-bot round-robin (bench/scaling.py) played with `pin_workers`
and a referee that notes, in a file per worker, each game and each bot process it starts:
for the game it is about to play, ahead of the game it was hinted, or again (a bot that
had a process in this worker before: stopped for room, crashed, over a limit). Printed
per worker: games played, the bots of its home group (the groups the dispatch forms when
every worker is idle at the start, formed again here), bots started by reason, and those
beyond its home group; then the run's total against the simulated count (equal workers,
and workers of speeds within +-20% over 10 draws: `tests/tournament/dispatch_sim`).
Where the real count exceeds the simulated one, the rows say which workers and bots.

Run: `.venv/bin/python bench/tournament.py --starts [WORKERS [GAMES_PER_TABLE]]` (14 and
16: the issue's 1,120 games).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.referee import Referee
from arena.referee.roster import RosterBot
from arena.tournament.config import load_config
from arena.tournament.dispatch import Dispatcher
from arena.tournament.runner import Job, Runner, jobs_of, static_schedule

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the simulation is the tests'
from tests.tournament.dispatch_sim import field_jobs, simulate  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTES = "BENCH_STARTS_NOTES"
"""The environment variable naming the directory each worker's referee writes notes to."""


class NotingReferee(Referee):
    """A referee that writes a line for each game it plays and each bot it starts."""

    _why = "game"

    def _note(self, **fields: Any) -> None:
        with open(Path(os.environ[NOTES]) / f"{os.getpid()}.jsonl", "a") as notes:
            notes.write(json.dumps(fields) + "\n")

    def play(self, game: str, rules: Any, seed: int, seating: Sequence[str],
             replay: Path | None = None, **options: Any) -> Any:
        self._note(ev="play", label=replay.stem if replay else "", seating=list(seating),
                   seed=seed, upcoming=list(options.get("upcoming", ())))
        return super().play(game, rules, seed, seating, replay, **options)

    def _prestart(self, names: Sequence[str], keep: set[str]) -> None:
        self._why = "ahead"
        try:
            super()._prestart(names, keep)
        finally:
            self._why = "game"

    def _spawn(self, bot: RosterBot) -> bool:
        self._note(ev="spawn", bot=bot.spec.name, why="again" if bot.token else self._why)
        return super()._spawn(bot)


def _config(out: Path, games_per_pairing: int) -> Any:
    entries = "".join(
        f'  - {{name: {kind}-{i}, cmd: "{sys.executable} '
        f'{ROOT}/sample_bots/python/{kind}_bot.py"}}\n'
        for kind in ("random", "greedy") for i in range(4))
    path = out / "starts.yaml"
    path.write_text(f"""
name: starts
game: machiavelli
players_per_game: 4
format: round-robin
games_per_pairing: {games_per_pairing}
time: {{move_ms: 2000, bank_ms: 10000, startup_ms: 20000}}
seed: 16
pin_workers: true
bots:
""" + entries)
    return load_config(path)


def home_groups(config: Any, workers: int) -> dict[str, frozenset[str]]:
    """The bots of each worker's home group, keyed by the label of its first game (which
    names the worker in the notes): the dispatch of a run's start, formed again."""
    dispatcher = Dispatcher(workers)
    for job in queued_jobs(config):
        dispatcher.add(job)
    dispatcher.form({w: () for w in range(workers)})
    firsts = {w: dispatcher.take(w, ()) for w in range(workers)}
    return {str(job.key): frozenset(job.seating).union(*dispatcher.groups[w])
            for w, job in firsts.items() if job is not None}


def queued_jobs(config: Any) -> list[Job]:
    """The run's games in the order the runner queues them."""
    return [job for plan in static_schedule(config) or ()
            for job in jobs_of(plan, config.seed, None)]


def noted_run(out: Path, workers: int, games_per_pairing: int) -> Any:
    """Play the benchmark's run in `out/run` with referees noting into `out/notes` (a file
    per worker); return its configuration."""
    config = _config(out, games_per_pairing)
    (out / "notes").mkdir()
    os.environ[NOTES] = str(out / "notes")
    referee = functools.partial(NotingReferee, sandbox=config.sandbox, hide=(out / "run",),
                                announce=False, max_bots=config.bot_bound())
    Runner(config, out / "run", concurrency=workers, referee=referee).run()
    return config


def starts(workers: int = 14, games_per_pairing: int = 16) -> None:
    """Play the run and print its bot starts by worker and reason (module docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        config = noted_run(out, workers, games_per_pairing)
        homes = home_groups(config, workers)
        rows = [_row(path, homes) for path in sorted((out / "notes").glob("*.jsonl"))]
    total = sum(row[2] for row in rows)
    print(f"bot starts, {workers} workers pinned, {config.table.size}-seat round-robin of 8 "
          f"Python bots, {sum(row[0] for row in rows)} games:")
    for games, home, started, why, beyond in sorted(rows, key=lambda r: -r[0]):
        print(f"  {games:4d} games, home group {home} bots, started {started} ("
              + ", ".join(f"{n} {reason}" for reason, n in sorted(why.items()))
              + f"), beyond its home group: {', '.join(beyond) or 'none'}")
    jobs = field_jobs(8, repeats=games_per_pairing)
    unequal = [simulate(jobs, workers, spread=0.2, draw=d).starts for d in range(1, 11)]
    print(f"  in all {total} (home groups {sum(len(h) for h in homes.values())}); simulated "
          f"{simulate(jobs, workers).starts}, with speeds within +-20% "
          f"{min(unequal)}-{max(unequal)} (10 draws)")


def _row(path: Path, homes: dict[str, frozenset[str]]
         ) -> tuple[int, int, int, Counter[str], list[str]]:
    """One worker's games, home-group bots, starts, starts by reason, bots beyond home."""
    notes = [json.loads(line) for line in path.read_text().splitlines()]
    plays = [n for n in notes if n["ev"] == "play"]
    home = homes.get(plays[0]["label"], frozenset()) if plays else frozenset()
    spawned = [n for n in notes if n["ev"] == "spawn"]
    beyond = sorted({n["bot"] for n in spawned} - home)
    return (len(plays), len(home), len(spawned), Counter(n["why"] for n in spawned), beyond)
