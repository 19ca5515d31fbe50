"""The runner with worker processes and an injected fake referee: games stored once,
standings derived, outputs written, resume plays only what is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.core.errors import StoreError
from arena.tournament.config import TournamentConfig, parse_config
from arena.tournament.runner import Progress, Runner, static_schedule
from arena.tournament.store import Store
from tests.tournament.fakes import FakeReferee, toy_registry


def config(fmt: str = "round-robin", extra: str = "", bots: int = 5,
           seats: int = 2) -> TournamentConfig:
    lines = [f"  - {{name: bot{i}, cmd: 'builtin:random', env: {{STRENGTH: '{1 + i}'}}}}"
             for i in range(bots)]
    text = (f"name: t\ngame: toy\nformat: {fmt}\nplayers_per_game: {seats}\nseed: 11\n"
            f"{extra}bots:\n" + "\n".join(lines) + "\n")
    return parse_config(text, "t.yaml", Path("/tmp"), toy_registry())


def run(cfg: TournamentConfig, out: Path, resume: bool = False, concurrency: int = 2,
        seen: list[Progress] | None = None) -> list[dict[str, object]]:
    runner = Runner(cfg, out, concurrency=concurrency, resume=resume, referee=FakeReferee,
                    on_progress=(seen.append if seen is not None else None))
    table = runner.run()
    return [row.to_json() for row in table.rows]


def test_round_robin_runs_every_game_once(tmp_path: Path) -> None:
    cfg = config(extra="games_per_pairing: 2\n")
    seen: list[Progress] = []
    rows = run(cfg, tmp_path, seen=seen)
    store = Store.open(tmp_path, cfg.fingerprint)
    games = store.games()
    assert len(games) == 5 * 4 == seen[-1].total == seen[-1].done
    assert len({g.key for g in games}) == len(games)
    assert len(store.rounds()) == len(static_schedule(cfg) or [])
    assert sum(r["games"] for r in rows) == 2 * len(games)  # type: ignore[misc]
    assert rows[0]["bot"] == "bot4"  # the strongest fake bot
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["standings"] == rows and len(results["games"]) == 20
    assert (tmp_path / "standings.csv").read_text().splitlines()[0].startswith("rank,bot,")
    assert len(list((tmp_path / "replays").glob("*.jsonl"))) == 20


def test_results_do_not_depend_on_concurrency(tmp_path: Path) -> None:
    cfg = config("round-robin", seats=3, bots=6, extra="games_per_pairing: 3\n")
    one = run(cfg, tmp_path / "one", concurrency=1)
    two = run(cfg, tmp_path / "two", concurrency=2)
    assert one == two


def test_swiss_records_each_round_and_resume_is_idempotent(tmp_path: Path) -> None:
    cfg = config("swiss", extra="rounds: 4\n", bots=7)
    rows = run(cfg, tmp_path)
    store = Store.open(tmp_path, cfg.fingerprint)
    plans = store.rounds()
    assert [p.round for p in plans] == [1, 2, 3, 4]
    assert all(len(p.byes) == 1 for p in plans)
    assert len({p.byes[0] for p in plans}) == 4
    count = len(store.games())
    store.close()
    assert run(cfg, tmp_path, resume=True) == rows
    assert len(Store.open(tmp_path, cfg.fingerprint).games()) == count == 4 * 3


def test_a_used_directory_needs_resume_and_the_same_file(tmp_path: Path) -> None:
    cfg = config()
    run(cfg, tmp_path)
    with pytest.raises(StoreError, match="--resume"):
        run(cfg, tmp_path)
    with pytest.raises(StoreError, match="another tournament file"):
        run(config(extra="games_per_pairing: 2\n"), tmp_path, resume=True)


class _BuggyReferee(FakeReferee):
    """Plays two games, then fails the way an engine bug would."""

    played = 0

    def play(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
        type(self).played += 1
        if type(self).played > 2:
            raise RuntimeError("boom")
        return super().play(*args, **kwargs)  # type: ignore[arg-type]


def test_an_unexpected_worker_error_is_one_line_with_its_traceback_in_a_file(
        tmp_path: Path) -> None:
    from arena.core.errors import ArenaError

    cfg = config()
    runner = Runner(cfg, tmp_path, concurrency=1, referee=_BuggyReferee)
    with pytest.raises(ArenaError) as info:
        runner.run()
    message = str(info.value)
    assert "RuntimeError: boom (traceback in " in message
    assert "Traceback" not in message
    log = tmp_path / "logs" / "worker-0" / "error.log"
    assert "RuntimeError: boom" in log.read_text()
    assert len(Store.open(tmp_path, cfg.fingerprint).games()) == 2  # committed games kept
