"""The sample bots: the greedy bot clearly beats the random bot, over real processes."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "python"


def test_greedy_beats_random_over_a_few_dozen_games(tmp_path: Path) -> None:
    bots = [BotSpec("greedy", (sys.executable, str(SAMPLES / "greedy_bot.py"))),
            *(BotSpec(f"random{i}", (sys.executable, str(SAMPLES / "random_bot.py")))
              for i in range(3))]
    wins = games = 0
    with Referee(bots, TimeControl(move_ms=2000), FaultPolicy(), tmp_path) as referee:
        for seed in range(24):
            seating = ["greedy", "random0"] if seed % 2 else ["random0", "greedy"]
            if seed >= 16:  # four players, greedy in every seat in turn
                seating = ["random0", "random1", "random2"]
                seating.insert(seed % 4, "greedy")
            record = referee.play("machiavelli", {}, seed, seating)
            assert record.faults == ()
            greedy = next(s for s in record.seats if s.bot == "greedy")
            wins += greedy.placing == 1
            games += 1
    assert wins >= 0.7 * games, f"greedy won {wins} of {games}"
