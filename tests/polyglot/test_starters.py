"""Every starter bot builds, passes its own tests against protocol/examples, plays both games
through the referee without a fault, and passes `arena check-bot` with no warning (its random
choices are seeded from `game_start.bot_seed`, so a replayed game is the same)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.checkbot import CheckId, CheckOptions, check_bot
from arena.core.game import Termination
from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from tests.polyglot.starters import STARTERS, Starter, make, require

pytestmark = pytest.mark.toolchain

TIME = TimeControl(move_ms=2000, bank_ms=0, startup_ms=20000)
_built: set[str] = set()


def built(lang: str) -> Starter:
    """The starter, its toolchain checked and its build done (once per session)."""
    starter = STARTERS[lang]
    require(starter)
    if starter.make and lang not in _built:
        make(f"bot-{lang}")
        _built.add(lang)
    return starter


@pytest.mark.parametrize("lang", [s.lang for s in STARTERS.values() if s.make])
def test_own_tests_against_the_examples(lang: str) -> None:
    built(lang)
    make(f"bot-test-{lang}")


@pytest.mark.parametrize("lang", list(STARTERS))
@pytest.mark.parametrize("game", ["machiavelli", "machiavelli-rummy"])
def test_plays_a_game_without_fault(lang: str, game: str, tmp_path: Path) -> None:
    starter = built(lang)
    bots = [BotSpec(lang, starter.argv), BotSpec("r1", ("builtin:random",)),
            BotSpec("r2", ("builtin:random",))]
    endpoint = "tcp://127.0.0.1:0" if starter.tcp else None
    with Referee(bots, TIME, FaultPolicy(), tmp_path, endpoint=endpoint) as referee:
        record = referee.play(game, {}, 7, [lang, "r1", "r2"])
    seat = record.seats[0]
    log = (tmp_path / "logs" / f"{lang}.log")
    output = log.read_text(errors="replace") if log.exists() else ""
    assert record.termination is not Termination.ENGINE_ERROR
    assert seat.forfeit is None, output
    assert record.faults == (), output
    assert seat.version == "1.0.0"
    assert record.decisions > 0 and seat.time_ms > 0


@pytest.mark.parametrize("lang", list(STARTERS))
def test_passes_check_bot(lang: str) -> None:
    starter = built(lang)
    report = check_bot(CheckOptions(
        "machiavelli", starter.argv, games=2, time=TIME, grace_ms=20_000,
        endpoint="tcp://127.0.0.1:0" if starter.tcp else None))
    failures = [f"{r.check.value}: {r.detail}" for r in report.results if r.ok is not True]
    assert report.passed, f"{failures}\n{report.log_tail}"
    # seeded from game_start.bot_seed: the replayed game is the same, with no warning
    reproducible = next(r for r in report.results if r.check is CheckId.REPRODUCIBLE)
    assert reproducible.ok is True and report.warnings == (), failures


@pytest.mark.parametrize(("ci", "outcome"), [("true", pytest.fail.Exception),
                                            ("", pytest.skip.Exception)])
def test_a_missing_toolchain_fails_under_ci(ci: str, outcome: type[BaseException],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", ci)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(outcome, match="needs node, npm on PATH"):
        require(STARTERS["javascript"])
