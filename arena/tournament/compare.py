"""`arena compare`: the schedule of duplicate deals, and what one deal says about two bots.

A deal is one seed played twice: with the candidate, then with the base, in the same seat,
against the same opponents in the same seats (`Pairing.REPLACEMENT`); with two seats and no
opponents, the candidate against the base and then the seats swapped
(`Pairing.HEAD_TO_HEAD`). Deal `d` is round `d` of the store, one table, repeat 0 the
candidate's game and repeat 1 the base's; both games get the seed of repeat 0, so that
`arena verify` can check that the two games of a deal were dealt alike. The tested seat
rotates with the deal, so that seat advantage cancels too. Pure: no I/O here; the run is in
`arena.tournament.compare_run`, the statistics in `arena.tournament.sprt`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.core.game import Json
from arena.core.record import GameRecord
from arena.referee.sandbox import SandboxPolicy
from arena.referee.spec import BotSpec, FaultPolicy, TimeControl
from arena.tournament.config import Format, TableSize, TournamentConfig
from arena.tournament.pairing import RoundPlan, Table
from arena.tournament.secret import game_seed
from arena.tournament.settings import RULES
from arena.tournament.sprt import Hypotheses, Pairing, Verdict
from arena.tournament.store import GameKey

FORMAT = "compare"
"""The `format` of a comparison's stored settings (what `arena verify` looks for)."""
CANDIDATE_GAME, BASE_GAME = 0, 1
"""The repeat of each deal's two games."""


@dataclass(frozen=True, slots=True)
class CompareSetup:
    """Everything that decides a comparison's games and its verdict."""

    game: str
    players: int
    candidate: BotSpec
    base: BotSpec
    opponents: tuple[BotSpec, ...] = ()
    """One per seat the two bots do not hold: N - 1 of them, or none for head-to-head."""
    rules: Mapping[str, Json] = field(default_factory=dict)
    seed: int = 1
    hypotheses: Hypotheses = Hypotheses()
    time: TimeControl = TimeControl()
    faults: FaultPolicy = FaultPolicy()
    transport: str = "ipc"
    sandbox: SandboxPolicy = SandboxPolicy()
    files: tuple[str, ...] = ()
    """Each bot's `content_digest`, in `bots` order, where known: a comparison resumes only
    with the same files (a bot edited between the two parts had its games mixed in)."""

    def __post_init__(self) -> None:
        if len(self.opponents) != (0 if self.pairing is Pairing.HEAD_TO_HEAD
                                   else self.players - 1):
            raise ValueError(f"{self.players} seats need {self.players - 1} opponents, "
                             f"not {len(self.opponents)}")
        names = [b.name for b in self.bots]
        if len(set(names)) != len(names):
            raise ValueError(f"bot names must differ: {', '.join(names)}")

    @property
    def pairing(self) -> Pairing:
        """Head-to-head with two seats and no opponents, else replacement."""
        if self.players == 2 and not self.opponents:
            return Pairing.HEAD_TO_HEAD
        return Pairing.REPLACEMENT

    @property
    def bots(self) -> tuple[BotSpec, ...]:
        """Every bot of the comparison: candidate, base, then the opponents."""
        return (self.candidate, self.base, *self.opponents)

    @property
    def name(self) -> str:
        """What the run is called."""
        return f"compare {self.candidate.name} vs {self.base.name}"

    @property
    def fingerprint(self) -> str:
        """A hash of what decides the games and the verdict: a database belongs to one."""
        hyp = self.hypotheses
        raw = {"format": FORMAT, "game": self.game, "players": self.players,
               "rules": dict(self.rules), "seed": self.seed,
               "bots": [[b.name, list(b.cmd), b.cwd, dict(b.env), b.restart.value]
                        for b in self.bots],
               "time": [self.time.move_ms, self.time.bank_ms, self.time.startup_ms],
               "max_faults": self.faults.max_faults,
               "sprt": [hyp.elo0, hyp.elo1, hyp.alpha, hyp.beta]}
        if self.files:
            raw["files"] = list(self.files)
        return hashlib.sha256(json.dumps(raw, sort_keys=True).encode()).hexdigest()[:16]

    def scored(self) -> dict[str, Json]:
        """What `fingerprint` hashes, keyed as the command line says it (`time.move_ms`,
        `bot base: cmd`): stored with the results, so that a resume with other settings is
        told which differ (`filediff`). Not the hashed form itself, which keeps the
        fingerprints of comparisons begun before it was stored."""
        hyp, files = self.hypotheses, self.files or ("",) * len(self.bots)
        return {"game": self.game, "players": self.players, "rules": dict(self.rules),
                "seed": self.seed, "candidate": self.candidate.name, "base": self.base.name,
                "bots": [{"name": b.name, "cmd": list(b.cmd), "cwd": b.cwd, "env": dict(b.env),
                          "restart": b.restart.value, "files": digest or None}
                         for b, digest in zip(self.bots, files, strict=True)],
                "time": {"move_ms": self.time.move_ms, "bank_ms": self.time.bank_ms,
                         "startup_ms": self.time.startup_ms},
                "max_faults": self.faults.max_faults,
                "sprt": {"elo0": hyp.elo0, "elo1": hyp.elo1, "alpha": hyp.alpha,
                         "beta": hyp.beta}}

    def settings(self) -> dict[str, Json]:
        """Return the settings stored with the results (`arena standings` and `arena verify`
        read `format`, `bots`, `table_size` and `seed`)."""
        hyp = self.hypotheses
        return {"name": self.name, "game": self.game, "format": FORMAT,
                "bots": [b.name for b in self.bots], "points": None, "bye_points": None,
                "table_size": self.players, "seed": self.seed, "rounds": None,
                "rules": RULES,
                "compare": {"candidate": self.candidate.name, "base": self.base.name,
                            "opponents": [b.name for b in self.opponents],
                            "pairing": self.pairing.value, "rules": dict(self.rules),
                            "elo0": hyp.elo0, "elo1": hyp.elo1, "alpha": hyp.alpha,
                            "beta": hyp.beta}}

    def verdict_words(self, verdict: Verdict, deals: int) -> str:
        """The verdict in words, as the command ends with it and the report leads with it."""
        cand, base, hyp = self.candidate.name, self.base.name, self.hypotheses
        if verdict is Verdict.H1:
            return (f"H1 accepted: {cand} is better than {base} (Elo difference >= "
                    f"{hyp.elo1:g} rather than {hyp.elo0:g})")
        if verdict is Verdict.H0:
            # "<=": "Elo difference 0 rather than 100" read as "the same" for a bot 600 worse
            return (f"H0 accepted: {cand} is not better than {base} (Elo difference <= "
                    f"{hyp.elo0:g} rather than >= {hyp.elo1:g})")
        return (f"inconclusive after {2 * deals} games: neither bound reached (raise "
                "--max-games, or widen the bounds)")

    def tournament(self, out: Path, concurrency: int | None) -> TournamentConfig:
        """Return the tournament config the worker pool runs these bots with."""
        return TournamentConfig(
            name=self.name, game=self.game, rules=dict(self.rules),
            table=TableSize(self.players, self.players), format=Format.ROUND_ROBIN,
            rounds=None, games_per_pairing=2, time=self.time, faults=self.faults,
            concurrency=concurrency, seed=self.seed, out=out, bots=self.bots,
            fingerprint=self.fingerprint, source="the command line",
            transport=self.transport, sandbox=self.sandbox)


def fill_opponents(given: Sequence[BotSpec], seats: int) -> tuple[BotSpec, ...]:
    """Return `seats` opponents: the given ones in turn, each seat's copy named NAME-2,
    NAME-3, ... (the first free number, so that a name given twice, as a bare
    `builtin:random` given twice is, or given beside its copy's, is never used twice).

    A bot process plays one seat, so an opponent that sits in two seats runs twice.

    Raises:
        ValueError: no opponent given, or more than there are seats.
    """
    if not given or len(given) > seats:
        raise ValueError(f"give 1 to {seats} opponents for {seats} seats, not {len(given)}")
    out: list[BotSpec] = []
    for index in range(seats):
        spec = given[index % len(given)]
        taken = {b.name for b in out} | {b.name for b in given[index + 1:]
                                           if b.name != spec.name}
        name, copy = spec.name, 1
        while name in taken:
            copy += 1
            name = f"{spec.name}-{copy}"
        out.append(spec if name == spec.name else replace(spec, name=name))
    return tuple(out)


def tested_seat(setup: CompareSetup, deal: int) -> int:
    """Return the seat where the candidate (then the base) sits in deal `deal` (from 1)."""
    return 0 if setup.pairing is Pairing.HEAD_TO_HEAD else (deal - 1) % setup.players


def deal_plan(setup: CompareSetup, deal: int) -> RoundPlan:
    """Return deal `deal` (from 1) as a round of one table: the candidate's seating, then
    the base's."""
    cand, base = setup.candidate.name, setup.base.name
    seatings: tuple[tuple[str, ...], ...]
    if setup.pairing is Pairing.HEAD_TO_HEAD:
        seatings = ((cand, base), (base, cand))
    else:
        shift = tested_seat(setup, deal)
        others = [o.name for o in setup.opponents]
        seatings = tuple(tuple([bot, *others][(seat - shift) % setup.players]
                               for seat in range(setup.players)) for bot in (cand, base))
    return RoundPlan(deal, (Table(0, seatings),))


def deal_seed(seed: int, salt: str | None, key: GameKey) -> int:
    """Return the seed of a comparison's game: both games of a deal get the same."""
    return game_seed(seed, salt, GameKey(key.round, key.table, CANDIDATE_GAME))


def seat_score(record: GameRecord, seat: int) -> float:
    """Return the share of the other seats that `seat` finished ahead of (a tie counts half)."""
    mine = next(s.placing for s in record.seats if s.seat == seat)
    others = [s.placing for s in record.seats if s.seat != seat]
    ahead = sum(1.0 if p > mine else 0.5 if p == mine else 0.0 for p in others)
    return ahead / len(others)


def deal_result(setup: CompareSetup, deal: int, candidate: GameRecord,
                base: GameRecord) -> tuple[float, float]:
    """Return (c, b): the candidate's score in its game and the base's in its game."""
    if setup.pairing is Pairing.HEAD_TO_HEAD:
        return seat_score(candidate, 0), seat_score(base, 0)
    seat = tested_seat(setup, deal)
    return seat_score(candidate, seat), seat_score(base, seat)
