"""The states a search of the rank DP (`dp.RankDP`) may spend: its node budget, deadline and
race turns (`Race`), counted by one comparison per state.

Imports only the standard library and this package.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

DEADLINE_EVERY = 512
"""States between two looks at the clock (reading it costs more than a state's test)."""
UNLIMITED = 1 << 62


class OutOfBudget(Exception):
    """The search passed its node budget or its deadline."""


class TurnOver(Exception):
    """A search passed the states of its turn (see `dp.RankDP._race`)."""


@dataclass(slots=True)
class Race:
    """Where `RankDP._race` stands: whose turn it is and when the turn ends (in states)."""

    floor: int | None
    need: int
    """What the bound-led search asks to beat."""
    budget: int
    end: int
    profiling: bool = True
    """The full programme's turn (else the bound-led search's)."""

    def next_turn(self, nodes: int) -> None:
        """Pass the turn on at `nodes` states: the bound-led search gets an eighth of the
        full programme's turn (it settles a table at once or not at all), and the budget
        doubles after each round."""
        if self.profiling:
            self.end = nodes + self.budget // 8
        else:
            self.budget *= 2
            self.end = nodes + self.budget
        self.profiling = not self.profiling


class Budget:
    """The states a search has spent (`nodes`) and may spend: past `turn_limit` a turn of
    the race ends (`TurnOver`), past `node_limit` or `deadline` the search (`OutOfBudget`).

    Each state adds one to `nodes` and compares it with `stop`, the first count at which
    one of the limits needs a look (`passed`): one comparison a state where three tests
    and a call cost ~4% of a late-game table's check.
    """

    def __init__(self, node_limit: int | None, deadline: float | None) -> None:
        self.nodes = 0
        self.stop = UNLIMITED
        self._turn_limit: int | None = None
        self._node_limit = node_limit
        self._deadline = deadline
        self._rearm()

    @property
    def turn_limit(self) -> int | None:
        return self._turn_limit

    @turn_limit.setter
    def turn_limit(self, limit: int | None) -> None:
        self._turn_limit = limit
        self._rearm()

    @property
    def node_limit(self) -> int | None:
        return self._node_limit

    @node_limit.setter
    def node_limit(self, limit: int | None) -> None:
        self._node_limit = limit
        self._rearm()

    @property
    def deadline(self) -> float | None:
        return self._deadline

    @deadline.setter
    def deadline(self, deadline: float | None) -> None:
        self._deadline = deadline
        self._rearm()

    def _rearm(self) -> None:
        """Set `stop`: the least count past which a limit may be passed."""
        stop = UNLIMITED
        if self._turn_limit is not None:
            stop = min(stop, self._turn_limit)
        if self._node_limit is not None:
            stop = min(stop, self._node_limit)
        if self._deadline is not None:  # the clock is read at each multiple of 512
            stop = min(stop, (self.nodes // DEADLINE_EVERY + 1) * DEADLINE_EVERY - 1)
        self.stop = stop

    def passed(self) -> None:
        """Called once `nodes` passes `stop`: raise for the limit passed, if any."""
        nodes = self.nodes
        if self._turn_limit is not None and nodes > self._turn_limit:
            raise TurnOver
        if self._node_limit is not None and nodes > self._node_limit:
            raise OutOfBudget
        if self._deadline is not None and nodes % DEADLINE_EVERY == 0 \
                and time.perf_counter() > self._deadline:
            raise OutOfBudget
        self._rearm()
