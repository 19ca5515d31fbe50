"""Benchmark the machiavelli engine: 4-player random play on one core.

Prints the mean time per decision cycle (to_act + observation for the acting seat + validate +
apply, the random choice included), split by decision kind, and games per second. Figures
only, no asserts. The cycle is timed around those calls, decision by decision (two clock
reads each, included); the whole games' time per decision, which adds new_game, the outcome
and the loop's own steps spread over the game's decisions, is printed beside it (before
December 2026 this bench gave only that figure, as "the cycle").
The observation is taken as the referee takes it: `observation_view`, which shares the
state's lists because the referee encodes it at once; the fresh `observation` (a copy of
its own, for callers that keep it) is timed apart in the call-by-call split.

The machine is often shared and noisy, so the same run also times two baselines that do not
depend on the engine, and prints the cycle as a ratio of each; compare ratios across
machines (or across runs on a loaded machine), not microseconds:
- `bare loop`: the same loop shape (clock reads, a per-kind tally) calling a no-op function
  in place of each of the five engine calls;
- `json.dumps(obs)`: serializing the cycle's observation, the least a referee does with it.
Games/s is also given per second of CPU time the process got, which moves less with load.

Then the cycle call by call (to_act, observation_view, random_action, validate, apply), each
part in units of json.dumps(obs), to show which calls stand between the cycle and its goal
(<= 1.0 x json.dumps(obs), issue 16); and, apart, the fresh `observation` and parse_action of
the wire form of each action chosen (the referee's CPU per bot reply), outside the cycle.

Last, the same games with `cast: random` and `district_preset: random` (issue 12: the decision
cycle with random casts within 10% of the base cast's), printed as a ratio of the base cast's
cycle measured in the same run, the two interleaved game by game: a cold pass over the seeds,
which also builds each new cast's option tables (kept for the process's life), and a warm
pass over the same seeds, on which the goal is read.

Run: .venv/bin/python bench/engine.py [games]
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable

from arena.games.machiavelli import GAME

Tally = dict[str, list[float]]


def _noop(*_args: object) -> object:
    """Stands in for an engine call in the bare-loop baseline."""
    return None


class Totals:
    """What one run measured: per-kind cycle times and the run-wide sums."""

    def __init__(self) -> None:
        self.per_kind: Tally = defaultdict(lambda: [0.0, 0])
        self.cycles = 0
        self.wall = self.cpu = self.dumps = self.bare = 0.0


Rules = dict[str, object]
RANDOM_CASTS: Rules = {"cast": "random", "district_preset": "random"}


def play_one(seed: int, players: int, totals: Totals, rules: Rules | None = None) -> None:
    """Play one random game, adding its cycle times and json.dumps times to `totals`."""
    per_kind, clock = totals.per_kind, time.perf_counter
    state = GAME.new_game(players, rules or {}, seed)
    policy = random.Random(seed)
    while True:
        t0 = clock()
        decision = GAME.to_act(state)
        if decision is None:
            break
        obs = GAME.observation_view(state, decision.seat)
        t1 = clock()
        json.dumps(obs)  # where the referee encodes it: before apply changes what it shares
        t2 = clock()
        action = GAME.random_action(state, decision.seat, policy)
        GAME.validate(state, decision.seat, action)
        GAME.apply(state, decision.seat, action)
        t3 = clock()
        entry = per_kind[decision.kind]
        entry[0] += t1 - t0 + t3 - t2
        entry[1] += 1
        totals.cycles += 1
        totals.dumps += t2 - t1
    GAME.outcome(state)


def bare_loop(cycles: int, call: Callable[..., object] = _noop) -> float:
    """Return the seconds taken by `cycles` turns of the benchmark loop with no-op calls."""
    per_kind: Tally = defaultdict(lambda: [0.0, 0])
    clock = time.perf_counter
    start = clock()
    for _ in range(cycles):
        t0 = clock()
        decision = call(None)
        call(None, 0)
        t1 = clock()
        t2 = clock()
        call(None, 0, None)
        call(None, 0, decision)
        call(None, 0, decision)
        entry = per_kind["turn"]
        entry[0] += t1 - t0 + clock() - t2
        entry[1] += 1
    return clock() - start


def run(games: int, players: int) -> Totals:
    """Play `games` games, timing a bare loop of the same length after each one (so both
    see the same load on a shared machine)."""
    totals = Totals()
    for seed in range(games):
        before, wall, cpu = totals.cycles, time.perf_counter(), time.process_time()
        play_one(seed, players, totals)
        totals.cpu += time.process_time() - cpu
        totals.wall += time.perf_counter() - wall
        totals.bare += bare_loop(totals.cycles - before)
    # engine time = game time - json.dumps time; its CPU time is estimated with the share
    # of a core the process got over the run (< 1 when other processes compete)
    share = totals.cpu / totals.wall
    totals.wall -= totals.dumps
    totals.cpu = totals.wall * share
    return totals


def main(games: int = 300, players: int = 4) -> None:
    """Play `games` random games and print the timings with the baselines."""
    t = run(games, players)
    whole, bare, dumps = t.wall / t.cycles, t.bare / t.cycles, t.dumps / t.cycles
    cycle = sum(seconds for seconds, _ in t.per_kind.values()) / t.cycles
    print(f"machiavelli, {players} players, {games} random games on one core")
    print(f"  games/s:              {games / t.wall:8.1f}  "
          f"({games / t.cpu:.1f} per second of CPU time this process got)")
    print(f"  decisions per game:   {t.cycles / games:8.1f}")
    print(f"  mean us per cycle:    {1e6 * cycle:8.2f}  (whole games per decision, with "
          f"new_game, outcome and the loop: {1e6 * whole:.2f})")
    for kind, (seconds, count) in sorted(t.per_kind.items(), key=lambda kv: -kv[1][1]):
        print(f"  {kind:18s} {1e6 * seconds / count:8.2f} us  x {int(count)}")
    print("baselines timed alongside (compare these ratios across machines and loads):")
    print(f"  bare loop:            {1e6 * bare:8.2f} us per cycle; "
          f"cycle = {cycle / bare:5.1f} x bare loop")
    print(f"  json.dumps(obs):      {1e6 * dumps:8.2f} us per cycle; "
          f"cycle = {cycle / dumps:5.2f} x json.dumps(obs) (goal: <= 1.0); "
          f"whole games: {whole / dumps:.2f} x")


def compare_casts(games: int, players: int) -> None:
    """Time the base cast and random casts game by game (interleaved, so both see the same
    load) and print the cycle ratio: on the first pass over the seeds (cold) and on a second
    pass over the same seeds (warm). The first pass also pays for what the engine builds
    once per process and keeps: each new cast's option tables (the Magistrate's 168 warrant
    placements, the Blackmailer's threats) and the interned actions in them, which a
    tournament's worker pays in its first games only. The goal is read on the warm pass."""
    print(f"random casts and districts, {games} games each, interleaved with the base cast:")
    for label in ("cold", "warm"):
        base, drawn = Totals(), Totals()
        for seed in range(games):
            for totals, rules in ((base, None), (drawn, RANDOM_CASTS)):
                wall = time.perf_counter()
                play_one(seed, players, totals, rules)
                totals.wall += time.perf_counter() - wall
        cycle = {name: (t.wall - t.dumps) / t.cycles for name, t in (("base", base),
                                                                      ("random", drawn))}
        goal = "(goal: <= 1.10)" if label == "warm" else "(first pass: one-time tables)"
        print(f"  {label}: base cast {1e6 * cycle['base']:6.2f} us per cycle, random casts "
              f"{1e6 * cycle['random']:6.2f} us; {cycle['random'] / cycle['base']:5.2f} x the "
              f"base cast's {goal}")


CALLS = ("to_act", "observation_view", "random_action", "validate", "apply")


def split(games: int, players: int) -> None:
    """Time each call of the cycle on its own (a clock read around each, ~0.1 us apiece, so
    the parts add up to a little more than the cycle above) and print each part's mean in
    units of json.dumps(obs): what is left, call by call, against the goal. Apart: the
    fresh `observation` of the same seat, and parse_action."""
    spent, clock, cycles = dict.fromkeys((*CALLS, "dumps", "observation", "parse_action"),
                                         0.0), time.perf_counter, 0
    for seed in range(games):
        state = GAME.new_game(players, {}, seed)
        policy = random.Random(seed)
        while True:
            t0 = clock()
            decision = GAME.to_act(state)
            if decision is None:
                break
            t1 = clock()
            obs = GAME.observation_view(state, decision.seat)
            t2 = clock()
            json.dumps(obs)  # before apply changes what the view shares
            t3 = clock()
            GAME.observation(state, decision.seat)  # outside the cycle: the fresh copy
            t4 = clock()
            action = GAME.random_action(state, decision.seat, policy)
            t5 = clock()
            GAME.validate(state, decision.seat, action)
            t6 = clock()
            GAME.apply(state, decision.seat, action)
            t7 = clock()
            for name, seconds in zip((*CALLS, "dumps", "observation"),
                                     (t1 - t0, t2 - t1, t5 - t4, t6 - t5, t7 - t6, t3 - t2,
                                      t4 - t3), strict=True):
                spent[name] += seconds
            cycles += 1
            # outside the cycle: the referee's parse of the bot's reply to this decision
            wire = GAME.action_to_wire(action)
            t8 = clock()
            GAME.parse_action(decision, wire)
            spent["parse_action"] += clock() - t8
    dumps = spent["dumps"] / cycles
    parts = ", ".join(f"{name} {1e6 * spent[name] / cycles:.2f} us "
                      f"({spent[name] / cycles / dumps:.2f})" for name in CALLS)
    print(f"the cycle call by call, {games} games (in units of json.dumps(obs), "
          f"{1e6 * dumps:.2f} us):")
    print(f"  {parts}")
    print("  not in the cycle: " + ", ".join(
        f"{label} {1e6 * spent[name] / cycles:.2f} us ({spent[name] / cycles / dumps:.2f})"
        for name, label in (("observation", "observation (fresh: for callers that keep it)"),
                            ("parse_action", "parse_action (referee CPU per bot reply)"))))


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    main(count)
    split(min(count, 100), 4)
    compare_casts(count, 4)
