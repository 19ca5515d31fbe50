"""Ratings from placings: the live view's online rating and the batch fits with intervals.

The live view's online rating is OpenSkill's Bayesian Plackett-Luce (`OnlineRating`). The
default batch fit models the whole placing (`arena.tournament.plackett`): no pairwise
approximation, and intervals from the sandwich covariance, calibrated in simulation at
k = 2, 4 and 8. `rating: bradley-terry` fits the pairwise model instead
(`arena.tournament.bradley_terry`), with the sandwich taken over tables.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from openskill.models import PlackettLuce, PlackettLuceRating

from arena.tournament import bradley_terry, plackett

ELO_SCALE = 400 / math.log(10)
"""Elo points per natural-log unit of Bradley-Terry strength."""

Placings = Sequence[tuple[str, int]]
"""One game: (bot, placing) per seat; placing 1 is first, equal placings are ties."""



def pairwise(game: Placings) -> list[tuple[str, str, float]]:
    """Return the pairwise results of one game as (a, b, a's score: 1, 0.5 or 0)."""
    out = []
    for (a, pa), (b, pb) in itertools.combinations(game, 2):
        out.append((a, b, 1.0 if pa < pb else 0.5 if pa == pb else 0.0))
    return out


class OnlineRating:
    """A Bayesian online rating for the live view: OpenSkill's Plackett-Luce model (Weng and
    Lin), each bot a normal belief about its strength, updated game by game with whole
    placings. Unlike fixed-K Elo its steps shrink as the belief narrows, so it converges
    and the order of games matters less (it still matters: the batch fit is the reference).
    No drift (tau = 0): a bot's strength is taken to be fixed during a tournament."""

    def __init__(self, initial: float = 1500) -> None:
        self.model = PlackettLuce(tau=0.0)
        self.initial = initial
        self.beliefs: dict[str, PlackettLuceRating] = {}
        self.seats = 0
        self.games = 0

    def rating(self, bot: str) -> float:
        """Return the current rating of `bot` on the Elo scale (its mean belief)."""
        belief = self.beliefs.get(bot)
        if belief is None:
            return self.initial
        # with settled beliefs a k-seat game's choices are logistic in mu / c with
        # c = sqrt(k) beta (OpenSkill's c sums over the table): mu / c is the strength the
        # batch fit and Elo's scale use, k the mean table size seen
        k = self.seats / self.games if self.games else 2.0
        scale = math.sqrt(k) * self.model.beta
        return self.initial + ELO_SCALE * (belief.mu - self.model.mu) / scale

    def update(self, game: Placings) -> None:
        """Apply one game's placings (ties allowed) to every seat at once."""
        if len(game) < 2:
            return
        teams = [[self.beliefs.get(bot) or self.model.rating(name=bot)] for bot, _ in game]
        rated = self.model.rate(teams, ranks=[float(p) for _, p in game])
        self.seats += len(game)
        self.games += 1
        for (bot, _), team in zip(game, rated, strict=True):
            self.beliefs[bot] = team[0]


@dataclass(frozen=True, slots=True)
class Rating:
    """A fitted rating with its standard error and 95% interval half-width (Elo points)."""

    bot: str
    elo: float
    se: float
    interval: float


@dataclass(frozen=True, slots=True)
class Fit:
    """The batch fit: ratings, the likelihood of superiority of each bot over each other bot
    it is connected to by games, and the connected groups of bots (components)."""

    ratings: dict[str, Rating]
    los: dict[str, dict[str, float]]
    iterations: int
    components: tuple[tuple[str, ...], ...] = ()
    """Bots linked by games, each group sorted, largest first; more than one group means
    that ratings of different groups cannot be compared (no LOS across them)."""


def fit(games: Iterable[Placings], anchor: float = 1500, prior: float = 1.0,
        tolerance: float = 1e-10, max_iterations: int = 100) -> Fit:
    """Fit Plackett-Luce strengths to placings by maximum likelihood; mean rating `anchor`.

    `prior` adds that many virtual draws between each bot and an average opponent, which
    keeps an unbeaten or winless bot finite; 0 gives the plain maximum likelihood. Ratings
    are on the Elo scale (at k = 2 the model is Elo's logistic); intervals are 95%, from
    the sandwich covariance (`arena.tournament.plackett`).
    """
    listed = [list(g) for g in games]
    bots = sorted({bot for game in listed for bot, _ in game})
    index = {b: i for i, b in enumerate(bots)}
    parts = plackett.blocks([[(index[b], p) for b, p in game] for game in listed])
    result = plackett.fit(parts, len(bots), prior, tolerance, max_iterations)
    return _rated(bots, listed, result, anchor)


def fit_pairwise(games: Iterable[Placings], anchor: float = 1500,
                 prior: float = 1.0) -> Fit:
    """`fit` with the pairwise Bradley-Terry model (`arena.tournament.bradley_terry`): each
    pair of seats at a table is a game; intervals from the sandwich over tables."""
    listed = [list(g) for g in games]
    bots = sorted({bot for game in listed for bot, _ in game})
    index = {b: i for i, b in enumerate(bots)}
    parts = bradley_terry.tables([[(index[b], p) for b, p in game] for game in listed])
    return _rated(bots, listed, bradley_terry.fit(parts, len(bots), prior), anchor)


def _rated(bots: list[str], listed: list[list[tuple[str, int]]], result: plackett.Result,
           anchor: float) -> Fit:
    """The fit's strengths as ratings with intervals, LOS within each connected group."""
    theta, cov = result.theta, result.cov
    ratings = {}
    for i, bot in enumerate(bots):
        se = ELO_SCALE * math.sqrt(max(float(cov[i, i]), 0.0))
        ratings[bot] = Rating(bot, anchor + ELO_SCALE * float(theta[i]), se, 1.959964 * se)
    groups = components(bots, listed)
    group_of = {b: g for g, members in enumerate(groups) for b in members}
    los = {a: {b: plackett.los(theta, cov, i, j) for j, b in enumerate(bots)
               if j != i and group_of[a] == group_of[b]} for i, a in enumerate(bots)}
    return Fit(ratings, los, result.iterations, groups)


def components(bots: Sequence[str], games: Iterable[Placings]) -> tuple[tuple[str, ...], ...]:
    """Return the groups of bots linked by games (union-find), largest first."""
    parent = {b: b for b in bots}

    def root(b: str) -> str:
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    for game in games:
        first = root(game[0][0]) if game else None
        for bot, _ in game[1:]:
            other = root(bot)
            if first is not None and other != first:
                parent[max(other, first)] = min(other, first)
                first = min(other, first)
    groups: dict[str, list[str]] = {}
    for b in bots:
        groups.setdefault(root(b), []).append(b)
    return tuple(sorted((tuple(sorted(g)) for g in groups.values()),
                        key=lambda g: (-len(g), g)))


class Rater(Protocol):
    """A batch rating system: the final table's ratings from all the games at once."""

    def fit(self, games: Sequence[Placings]) -> Fit:
        """Rate every bot of `games` (Elo scale, 95% intervals, LOS, components)."""


class OnlineRater(Protocol):
    """A rating updated game by game (the live view)."""

    def update(self, game: Placings) -> None:
        """Take one game's placings."""

    def rating(self, bot: str) -> float:
        """The bot's current rating on the Elo scale."""


class PlackettLuceRater:
    """`fit` as a `Rater`."""

    def __init__(self, prior: float = 1.0) -> None:
        self.prior = prior

    def fit(self, games: Sequence[Placings]) -> Fit:
        return fit(games, prior=self.prior)


class BradleyTerryRater:
    """`fit_pairwise` as a `Rater`."""

    def __init__(self, prior: float = 1.0) -> None:
        self.prior = prior

    def fit(self, games: Sequence[Placings]) -> Fit:
        return fit_pairwise(games, prior=self.prior)


RATERS: dict[str, Callable[[], Rater]] = {"plackett-luce": PlackettLuceRater,
                                          "bradley-terry": BradleyTerryRater}
"""Batch raters by name; adding one is its module and a line here."""
ONLINE_RATERS: dict[str, Callable[[], OnlineRater]] = {"openskill": OnlineRating}
"""Online raters by name."""
BATCH, ONLINE = "plackett-luce", "openskill"
"""The raters standings use."""
MODELS: dict[str, str] = {"plackett-luce": "Plackett-Luce fit of whole placings",
                          "bradley-terry": "Bradley-Terry fit of pairwise results",
                          "openskill": "OpenSkill online Plackett-Luce (mean belief)"}
"""What each rater's numbers are, in the words of the tables' captions and the report's
notes (every one is put on the Elo scale); a rater added above gets a line here."""
