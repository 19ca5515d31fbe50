"""Benchmark machiavelli-rummy: validation, the table solver, random play, solver vs random.

Prints figures only, no asserts:
- validation time of a play on a 64-card table (target well under 1 ms);
- solver time on a fixed seeded set of mid-game positions (median and worst; the target
  median is under 50 ms), with how many searches finished (proven optimal);
- the referee's "may this seat draw?" check (`required_play`, `draw_when_able: false`) on
  positions from real games (solver and random seats), where no cheap move exists: its
  p50/p90/p99/max in CPU and wall time (goal p99 <= 50 ms, max <= 200 ms) and how many
  positions its bound left unsettled, against the check of before (the whole hand in one
  search, no card by card: `check_whole_hand`), timed on the same positions in turn, and
  how many answers differ where both settled (0, or a bug);
- the exact going-out search (all cards required) on the same games' positions: its
  distribution and how often the solver policy's bound would stop it, the policy's (the
  table and its mirror by turns) against the search upwards only, with and without the
  dead-state test (each stopped at 50,000 states), and the policy's as it runs, stopped
  at its bound of 1,500 states;
- in-process games/s of 2- and 4-player random play;
- the solver bot's results against the random policy (in-process, seats rotated): 2 and
  4 players.
Run: .venv/bin/python bench/rummy.py [positions] [duel_games] [check_games]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from args import positive  # bench/args.py

from arena.core.simulate import simulate
from arena.games.rummy import GAME
from arena.games.rummy.actions import Play, RummyAction
from arena.games.rummy.cards import CARD_TYPES, INDEX
from arena.games.rummy.dp import OutOfBudget, RankDP
from arena.games.rummy.moves import simple_plays
from arena.games.rummy.solver import (
    CARD_BY_CARD,
    CHECK_NODES,
    aces_high,
    first_play,
    race_mirrored,
    solve,
)
from arena.games.rummy.state import RummyState
from arena.games.rummy.strategy import OUT_NODES, OUT_TURN, going_out, solver_policy

Position = tuple[list[str], list[list[str]]]

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def big_table() -> list[list[str]]:
    """Return a 64-card table: each suit as three runs, plus groups of 2, 3 and 4."""
    table = []
    for suit in "SHDC":
        cards = [r + suit for r in RANKS]
        table += [cards[0:4], cards[4:8], cards[8:13]]
    table += [[r + s for s in "SHDC"] for r in ("2", "3", "4")]
    return table


def bench_validation() -> None:
    table = big_table()
    state = GAME.from_json({"players": 2, "rules": GAME.resolve_rules(2, {}),
                            "hands": [["JK", "5S"], ["2C"]], "stock": ["9D"],
                            "table": table, "dealer": 1, "to_move": 0})
    new = [list(m) for m in table]
    new[2] = [*new[2], "JK"]
    action = Play(tuple(tuple(m) for m in reversed(new)))
    times = []
    for _ in range(2000):
        start = time.perf_counter()
        GAME.validate(state, 0, action)
        times.append(time.perf_counter() - start)
    cards = sum(len(m) for m in new)
    print(f"validate a play on a {cards}-card table ({len(new)} melds): "
          f"median {statistics.median(times) * 1e6:.0f} us, worst {max(times) * 1e6:.0f} us")


def positions(count: int) -> list[RummyState]:
    """Return mid-game positions (turns 20-60) of seeded 2- and 3-player random games."""
    found: list[RummyState] = []
    seed = 0
    while len(found) < count:
        players = 2 + seed % 2
        state = GAME.new_game(players, {}, seed)
        rng = random.Random(seed)
        target = 20 + (seed * 7) % 41
        while GAME.to_act(state) is not None and state.turn < target:
            GAME.apply(state, state.to_move, GAME.random_action(state, state.to_move, rng))
        if not state.over:
            found.append(state)
        seed += 1
    return found


def bench_solver(count: int, limit: float = 2.0) -> None:
    times, finished, sizes, states = [], 0, [], []
    for state in positions(count):
        hand = state.hands[state.to_move]
        start = time.perf_counter()
        found = solve(hand, state.table, 1, time_limit=limit)
        times.append(time.perf_counter() - start)
        finished += found is None or found.optimal
        sizes.append(len(state.table_cards()))
        if found is not None and found.optimal:
            states.append(found.nodes)
    print(f"solver on {count} mid-game positions (table {min(sizes)}-{max(sizes)} cards, "
          f"time bound {limit:.1f} s): median {statistics.median(times) * 1e3:.1f} ms, "
          f"worst {max(times) * 1e3:.0f} ms, finished {finished}/{count} "
          "(a search stopped by the bound may still have found nothing); states searched "
          f"by the finished plays: median {statistics.median(states or [0]):.0f}, "
          f"most {max(states or [0])} (the load-free figure)")


def game_positions(games: int) -> tuple[list[Position], list[Position]]:
    """Play seeded `draw_when_able: false` games, solver seats against random ones; return
    (positions without a cheap move, every position), hand and table of the seat to move."""
    searched: list[Position] = []
    every: list[Position] = []
    for seed in range(games):
        players = 2 + seed % 3
        state = GAME.new_game(players, {"draw_when_able": False}, seed)
        rng = random.Random(seed)
        while (decision := GAME.to_act(state)) is not None:
            seat = decision.seat
            position = (list(state.hands[seat]), [list(m) for m in state.table])
            every.append(position)
            if not simple_plays(*position, 1):
                searched.append(position)
            action = solver_move(state, seat) if (seed + seat) % 2 == 0 \
                else GAME.random_action(state, seat, rng)
            if not isinstance(action, Play):
                action = GAME.default_action(state, seat)
            GAME.apply(state, seat, action)
    return searched, every


def timed(call: Callable[[], object]) -> tuple[float, float]:
    """Return the CPU and wall milliseconds of one call (CPU time moves less with the
    shared machine's load; wall time is what a bot's clock sees)."""
    cpu, wall = time.process_time(), time.perf_counter()
    call()
    return 1e3 * (time.process_time() - cpu), 1e3 * (time.perf_counter() - wall)


def spread(times: list[float]) -> str:
    ordered = sorted(times)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
    return f"p50 {at(0.5):.1f} ms, p90 {at(0.9):.1f}, p99 {at(0.99):.1f}, max {ordered[-1]:.0f}"


def p99(times: list[float]) -> float:
    return max(1e-9, sorted(times)[int(0.99 * len(times))])


def _counts(cards: list[str]) -> list[int]:
    pool = [0] * CARD_TYPES
    for code in cards:
        pool[INDEX[code]] += 1
    return pool


def check_whole_hand(hand: list[str], table: list[list[str]]) -> bool | None:
    """The check as it was before the card-by-card search (`check`): cheap moves, then one
    feasibility search of the whole hand, the table and its mirror by turns (of 4,000
    states then, upwards first), within CHECK_NODES states. None: unsettled."""
    if simple_plays(hand, table, 1, limit=1):
        return True
    try:
        return race_mirrored([c for m in table for c in m], hand, 1, CHECK_NODES,
                             turn=4_000) is not None
    except OutOfBudget:
        return None


def bench_draw_check(searched: list[Position]) -> None:
    """The rules' check is `required_play`: `first_play` bounded at CHECK_NODES states.
    Before and after alternate position by position, so that both see the same load."""
    after: list[bool | None] = []
    before: list[bool | None] = []
    new, old = [], []

    def check(hand: list[str], table: list[list[str]]) -> None:
        try:
            after.append(first_play(hand, table, 1, node_limit=CHECK_NODES) is not None)
        except OutOfBudget:
            after.append(None)
    for p in searched:
        new.append(timed(lambda p=p: check(*p)))  # type: ignore[misc]
        old.append(timed(lambda p=p: before.append(check_whole_hand(*p))))  # type: ignore[misc]
    print(f"draw check (draw_when_able: false) on {len(searched)} real-game positions "
          f"without a cheap move, bound {CHECK_NODES} states (goal p99 <= 50 ms, max <= "
          "200 ms):")
    for name, figures, answers in (
            (f"card by card up to {CARD_BY_CARD} cards (after)", new, after),
            ("the whole hand (before)", old, before)):
        cpu = sorted(c for c, _ in figures)
        goals = "met" if p99(cpu) <= 50 and cpu[-1] <= 200 else "not met"
        print(f"  {name}: CPU {spread(cpu)}; wall {spread([w for _, w in figures])}; "
              f"unsettled (the bound hit, the seat may draw): {answers.count(None)}; "
              f"goals {goals}")
    differ = sum(a is not None and b is not None and a != b for a, b in zip(after, before,
                                                                           strict=True))
    print(f"  answers that differ where both settled: {differ}; p99 CPU ratio, after / "
          f"before: {p99([c for c, _ in new]) / p99([c for c, _ in old]):.2f} (lower is better)")


GOING_OUT_CAP = 50_000
"""States after which the bench stops a going-out search (a bound in states, not seconds,
so that the machine's load cannot cut a search short)."""


def one_way(bound: bool) -> Callable[[list[str], list[list[str]]], int | None]:
    """The going-out search upwards only (with or without the dead-state test): returns
    its states, None past GOING_OUT_CAP."""
    def run(cards: list[str], table: list[list[str]]) -> int | None:
        search = RankDP(_counts(cards), [0] * CARD_TYPES, 1, GOING_OUT_CAP)
        if not bound:
            search.suit_bound = None
        try:
            search.solve()
        except OutOfBudget:
            return None
        return search.nodes
    return run


def both_ways(cards: list[str], table: list[list[str]]) -> int | None:
    """The policy's going-out search (the table and its mirror by turns, the mirror first
    on high aces); its states are the states of both searches."""
    searches: list[RankDP] = []
    init = RankDP.__init__

    def recorded(self: RankDP, *args: Any, **kwargs: Any) -> None:  # stands in for __init__
        init(self, *args, **kwargs)
        searches.append(self)
    # patched on the class to reach the two searches `race_mirrored` makes: no seam
    # hands them out
    RankDP.__init__ = recorded  # type: ignore[method-assign]
    try:
        race_mirrored(cards, [], 1, GOING_OUT_CAP, turn=OUT_TURN,
                      downwards_first=aces_high(table))
    except OutOfBudget:
        return None
    finally:
        RankDP.__init__ = init  # type: ignore[method-assign]
    return sum(search.nodes for search in searches)


def _time_all(search: Callable[[list[str], list[list[str]]], int | None],
              sample: list[Position]) -> tuple[list[int | None], list[tuple[float, float]]]:
    states: list[int | None] = []
    runs = []
    for hand, table in sample:
        cards = [c for meld in table for c in meld] + hand
        runs.append(timed(lambda cards=cards, table=table:  # type: ignore[misc]
                          states.append(search(cards, table))))
    return states, runs


def bench_going_out(every: list[Position]) -> None:
    sample = every[::max(1, len(every) // 400)]
    print(f"exact going-out search (every card required) on {len(sample)} real-game "
          f"positions, stopped at {GOING_OUT_CAP} states; the solver policy bounds it at "
          f"{OUT_NODES} states:")
    p99s = []
    for name, search in (("the table and its mirror by turns (the policy's)", both_ways),
                         ("upwards only, dead-state test", one_way(True)),
                         ("upwards only, no dead-state test (before)", one_way(False))):
        states, runs = _time_all(search, sample)
        cpu = [c for c, _ in runs]
        over = sum(n is None or n > OUT_NODES for n in states)
        print(f"  {name}: CPU {spread(cpu)}; wall {spread([w for _, w in runs])}; "
              f"past {OUT_NODES} states (the policy's bound): {over}; past "
              f"{GOING_OUT_CAP}: {states.count(None)}")
        p99s.append(p99(cpu))
    print(f"  p99 CPU ratio, the policy's / before: {p99s[0] / p99s[2]:.2f} (lower is better)")
    bench_going_out_bounded(sample)


def bench_going_out_bounded(sample: list[Position]) -> None:
    """The search as the solver policy runs it, stopped at its bound (`going_out`): what a
    solver bot pays a turn, held to the draw check's goals."""
    runs = [timed(lambda hand=hand, table=table: going_out(hand, table, 1))  # type: ignore[misc]
            for hand, table in sample]
    cpu = sorted(c for c, _ in runs)
    goals = "met" if p99(cpu) <= 50 and cpu[-1] <= 200 else "not met"
    print(f"  the policy's, stopped at its bound of {OUT_NODES} states (`going_out`): CPU "
          f"{spread(cpu)}; wall {spread([w for _, w in runs])}; goals (p99 <= 50 ms, max "
          f"<= 200 ms, as the draw check's) {goals}")


def bench_random_play() -> None:
    for players, games in ((2, 30), (4, 30)):
        summary = simulate(GAME, players, games, 1, {})
        data = summary.to_json()
        print(f"random play, {players} players: {data['games_per_second']} games/s, "
              f"{data['decisions_per_second']} decisions/s")


def solver_move(state: RummyState, seat: int) -> RummyAction:
    return solver_policy(state.hands[seat], state.table, 1, len(state.stock))


def duel(players: int, games: int) -> float:
    """Return the policy's wins (shared first places as shares), seats rotated, seeded."""
    wins = 0.0
    for index in range(games):
        state = GAME.new_game(players, {}, 1000 + index)
        solver_seat = index % players
        rng = random.Random(index)
        while (decision := GAME.to_act(state)) is not None:
            seat = decision.seat
            action = solver_move(state, seat) if seat == solver_seat \
                else GAME.random_action(state, seat, rng)
            GAME.apply(state, seat, action)
        outcome = GAME.outcome(state)
        assert outcome is not None
        if outcome.placings[solver_seat] == 1:
            wins += 1 / outcome.placings.count(1)
    return wins


def bench_duel(games: int) -> None:
    for players, count in ((2, games), (4, max(4, games // 2))):
        start = time.perf_counter()
        wins = duel(players, count)
        print(f"solver bot vs random policy, {count} {players}-player games: solver wins "
              f"{wins:.1f}/{count} ({wins / count:.0%}; fair share {1 / players:.0%}), "
              f"{time.perf_counter() - start:.0f} s")


def main(count: int = 30, duel: int = 24, check_games: int = 12) -> None:
    """Print every figure."""
    bench_validation()
    bench_solver(count)
    searched, every = game_positions(check_games)
    bench_draw_check(searched)
    bench_going_out(every)
    bench_random_play()
    bench_duel(duel)


def _options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", nargs="?", type=positive, default=30,
                        help="solver positions (default 30)")
    parser.add_argument("duel", nargs="?", type=positive, default=24,
                        help="games of the bots' duel (default 24)")
    parser.add_argument("check_games", nargs="?", type=positive, default=12,
                        help="games whose positions the draw check is timed on (default 12)")
    return parser.parse_args()


if __name__ == "__main__":
    _given = _options()
    main(_given.count, _given.duel, _given.check_games)
