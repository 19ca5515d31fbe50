"""Games with bots that play at random replay identically for the same seed: the referee
sends each seat a `bot_seed` derived from the game seed, the Python client seeds the bot's
generator from it at every `game_start`, and built-ins draw from seeded generators too."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from arena.client import Bot, Request, _FunctionBot, start_game
from arena.core.rng import derive_seed
from arena.protocol import GameStart
from arena.protocol.messages import BOT_SEED_MAX
from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from arena.referee.match import bot_seed

ROOT = Path(__file__).resolve().parents[2]
RANDOM = (sys.executable, str(ROOT / "sample_bots" / "python" / "random_bot.py"))
SEATING = ["r0", "r1", "r2", "builtin"]


def game(path: Path) -> tuple[list[Any], dict[str, Any]]:
    """Return the decisions of a replay without their timings, and its outcome line."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    decisions = [{k: v for k, v in line.items() if k not in ("time_ms", "request")}
                 for line in lines if line["type"] == "decision"]
    outcome = lines[-1]
    assert outcome["type"] == "outcome"
    return decisions, {k: v for k, v in outcome.items() if k != "record"}


def play(tmp_path: Path, name: str, seeds: list[int]) -> Path:
    """Play `seeds` in a row with the same bot processes; return the last game's replay."""
    bots = [*(BotSpec(f"r{i}", RANDOM) for i in range(3)), BotSpec("builtin", ("builtin:random",))]
    replay = tmp_path / f"{name}.jsonl"
    with Referee(bots, TimeControl(move_ms=3000), FaultPolicy(), tmp_path / name) as referee:
        for seed in seeds:
            record = referee.play("machiavelli", {}, seed, SEATING, replay)
            assert record.faults == ()
    return replay


def test_same_seed_same_game_with_process_random_bots(tmp_path: Path) -> None:
    # The first referee's bots have played another game before: per-game seeding makes the
    # history of a bot process irrelevant, which is what `--resume` needs.
    first = game(play(tmp_path, "after-another", [3, 11]))
    again = game(play(tmp_path, "alone", [11]))
    assert first == again
    sources = {d["source"] for d in first[0]}
    assert sources == {"bot", "builtin"}

    other = game(play(tmp_path, "other-seed", [12]))
    assert [d["action"] for d in other[0]] != [d["action"] for d in first[0]]


def test_bot_seed_is_per_seat_in_range_and_apart_from_the_autopilot() -> None:
    seeds = [bot_seed(99, seat) for seat in range(8)]
    assert len(set(seeds)) == 8
    assert all(0 <= s <= BOT_SEED_MAX for s in seeds)
    assert seeds == [bot_seed(99, seat) for seat in range(8)]
    assert bot_seed(100, 0) != seeds[0]
    autopilot = derive_seed(99, "autopilot", 0)
    assert seeds[0] not in (autopilot, autopilot >> 10)


def start(seed: int) -> GameStart:
    return GameStart(game="g@1", rules={}, seat=0, players=["a"], move_ms=1, bank_ms=0,
                     max_faults=3, bot_seed=seed)


REQUEST = Request(id=1, kind="k", seat=0, observation={}, events=[], options=list(range(100)),
                  context={}, move_ms=1, bank_ms=0)


def test_client_seeds_the_strategy_and_global_random_from_bot_seed() -> None:
    def draws(rng: random.Random) -> list[int]:
        return [rng.randrange(1000) for _ in range(5)]

    bot = _FunctionBot(lambda request, rng: draws(rng))
    start_game(bot, start(5))
    first = bot.act(REQUEST)
    global_first = random.random()
    start_game(bot, start(6))
    assert bot.act(REQUEST) != first
    start_game(bot, start(5))
    assert bot.act(REQUEST) == first == draws(random.Random(5))
    assert random.random() == global_first

    one_argument = _FunctionBot(lambda request: request.id)
    start_game(one_argument, start(5))
    assert one_argument.act(REQUEST) == 1


def test_a_bot_subclass_gets_a_fresh_rng_each_game() -> None:
    class Picker(Bot):
        def act(self, request: Request) -> Any:
            return self.rng.choice(request.options or [])

    bot = Picker()
    start_game(bot, start(7))
    first = [bot.act(REQUEST) for _ in range(5)]
    start_game(bot, start(7))
    assert [bot.act(REQUEST) for _ in range(5)] == first
