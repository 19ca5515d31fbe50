"""In-process self-play with the seeded random policy: `arena simulate`, tests, benchmarks.

No I/O: the caller renders the summary.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.core.game import Game, Json, Outcome
from arena.core.rng import derive_seed, new_rng


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One self-play game: its outcome and how many decisions it took."""

    seed: int
    outcome: Outcome
    decisions: int


def play_random(
    game: Game[Any, Any], players: int, rules: Mapping[str, Json], seed: int
) -> PlayedGame:
    """Play one game to its end, every seat choosing uniformly among legal actions.

    The policy's generator is derived from the game seed, so the game is reproducible.
    """
    state = game.new_game(players, rules, seed)
    policy = new_rng(derive_seed(seed, "policy"))
    decisions = 0
    while (decision := game.to_act(state)) is not None:
        action = game.random_action(state, decision.seat, policy)
        game.apply(state, decision.seat, action)
        decisions += 1
    outcome = game.outcome(state)
    if outcome is None:
        raise RuntimeError(f"{game.info.id}: to_act() is None but there is no outcome")
    return PlayedGame(seed, outcome, decisions)


@dataclass
class Summary:
    """Aggregate figures over many self-play games."""

    game: str
    players: int
    games: int = 0
    decisions: int = 0
    seconds: float = 0.0
    rounds: list[int] = field(default_factory=list)
    winning_scores: Counter[int] = field(default_factory=Counter)
    terminations: Counter[str] = field(default_factory=Counter)
    wins_by_seat: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Json]:
        """Return the summary as JSON-ready data (timings included)."""
        return {
            "game": self.game, "players": self.players, "games": self.games,
            "decisions": self.decisions, "seconds": round(self.seconds, 4),
            "games_per_second": round(self.games / self.seconds, 2) if self.seconds else None,
            "decisions_per_second": round(self.decisions / self.seconds, 1)
            if self.seconds else None,
            "mean_rounds": round(sum(self.rounds) / len(self.rounds), 3) if self.rounds else None,
            "winning_scores": {str(k): v for k, v in sorted(self.winning_scores.items())},
            "terminations": dict(sorted(self.terminations.items())),
            "win_rate_by_seat": [round(w / self.games, 4) if self.games else 0.0
                                 for w in self.wins_by_seat],
        }


def simulate(
    game: Game[Any, Any], players: int, games: int, seed: int, rules: Mapping[str, Json]
) -> Summary:
    """Play `games` self-play games with seeds derived from `seed`."""
    summary = Summary(game.info.id, players, wins_by_seat=[0.0] * players)
    start = time.perf_counter()
    for index in range(games):
        played = play_random(game, players, rules, derive_seed(seed, "game", index))
        _add(summary, played.outcome)
        summary.decisions += played.decisions
    summary.seconds = time.perf_counter() - start
    return summary


def _add(summary: Summary, outcome: Outcome) -> None:
    summary.games += 1
    summary.terminations[outcome.termination.value] += 1
    rounds = outcome.details.get("rounds")
    if isinstance(rounds, int):
        summary.rounds.append(rounds)
    winners = [seat for seat, place in enumerate(outcome.placings) if place == 1]
    for seat in winners:
        summary.wins_by_seat[seat] += 1 / len(winners)
    summary.winning_scores[max(outcome.scores)] += 1
