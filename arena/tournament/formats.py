"""Tournament formats behind one `Schedule` protocol, registered by `Format`.

A format either fixes its whole schedule up front (round-robin, gauntlet) or pairs each
round from the standings after the earlier ones (Swiss). Adding a format is its pairing
module, a class here, a `Format` value and a line in `SCHEDULES`; the runner and
`arena run --dry-run` only speak to the protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from arena.tournament.config import Format, TournamentConfig
from arena.tournament.pairing import History, RoundPlan, gauntlet, round_robin, swiss_round


class Schedule(Protocol):
    """What the runner asks of a format."""

    def fixed(self) -> list[RoundPlan] | None:
        """The whole schedule, or None when rounds are paired one by one."""

    def next_round(self, number: int, ranked: Sequence[str], points: Mapping[str, float],
                   history: History) -> RoundPlan:
        """Pair round `number` from the ranking (best first, active bots only), the points
        behind it and the earlier rounds (formats with a fixed schedule never are asked)."""


class RoundRobin:
    """Every bot meets every other (`arena.tournament.pairing.round_robin`)."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config

    def fixed(self) -> list[RoundPlan] | None:
        c = self.config
        return round_robin([b.name for b in c.bots], c.table.size, c.table.smallest,
                           c.games_per_pairing, c.seed, c.rounds)

    def next_round(self, number: int, ranked: Sequence[str], points: Mapping[str, float],
                   history: History) -> RoundPlan:
        """Round `number` of the fixed schedule (it depends on no result)."""
        plans = self.fixed() or []
        return next(p for p in plans if p.round == number)


class Gauntlet(RoundRobin):
    """Each challenger against the field (`arena.tournament.pairing.gauntlet`)."""

    def fixed(self) -> list[RoundPlan] | None:
        c = self.config
        field = [b.name for b in c.bots if b.name not in c.challengers]
        return gauntlet(list(c.challengers), field, c.table.size, c.table.smallest,
                        c.games_per_pairing, c.seed)


class Swiss:
    """Rounds paired from the standings (`arena.tournament.pairing.swiss_round`)."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config

    def fixed(self) -> list[RoundPlan] | None:
        return None

    def next_round(self, number: int, ranked: Sequence[str], points: Mapping[str, float],
                   history: History) -> RoundPlan:
        c = self.config
        return swiss_round(number, ranked, history, c.table.size, c.table.smallest,
                           c.games_per_pairing, points, (c.rounds or 1) - number + 1)


SCHEDULES: dict[Format, Callable[[TournamentConfig], Schedule]] = {
    Format.ROUND_ROBIN: RoundRobin,
    Format.GAUNTLET: Gauntlet,
    Format.SWISS: Swiss,
}


def schedule_for(config: TournamentConfig) -> Schedule:
    """Return the schedule of a tournament's format."""
    return SCHEDULES[config.format](config)
