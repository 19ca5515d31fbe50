"""The run of `arena compare`: deals played in the tournament's worker pool until the
sequential test decides, every game committed to the tournament store as it ends.

The test takes the deals in deal order, never in completion order: deal d counts once deals
1..d all have both games, and the test stops at the first deal whose LLR crosses a bound.
The verdict is then a function of the seeds alone, the same with one worker or sixteen, and
`--resume` after a kill reaches the same verdict after the same deal. Deals are handed out a
few ahead of the test, so games finished after the verdict are stored but not counted.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.core.errors import ArenaError, ConfigError, StoreError
from arena.core.game import Json
from arena.core.record import GameRecord
from arena.core.words import count_of
from arena.referee.roster import cause_in_log
from arena.tournament.compare import (
    BASE_GAME,
    CANDIDATE_GAME,
    CompareSetup,
    deal_plan,
    deal_result,
    deal_seed,
)
from arena.tournament.config import preflight
from arena.tournament.executor import Executor, open_executor
from arena.tournament.filediff import summary
from arena.tournament.outputs import write_outputs
from arena.tournament.pairing import RoundPlan
from arena.tournament.runner import Interrupted, Job, RefereeFactory, Runner, orphans_waited
from arena.tournament.secret import ensure_salt, read_salt
from arena.tournament.sprt import Sequential, Status, Verdict
from arena.tournament.standings import PointsRule, compute
from arena.tournament.store import COMPARE_NAME, DB_NAME, SCORED, GameKey, Store, StoredGame
from arena.tournament.workers import DiskFull, disk_full

BROKEN_SHARE = 0.9
"""A bot (compared or an opponent) that forfeits at least this share of its counted games
(with at least `BROKEN_GAMES` counted) is broken, not worse: the run stops without a
verdict (exit 3), so that a CI job never reads a crash on start as "the patch is worse"."""
BROKEN_GAMES = 4
AHEAD = 2
"""Deals handed out beyond the test's position, per worker (enough to keep workers busy
when one game runs long, few enough that little is played after the verdict)."""


@dataclass
class CompareProgress:
    """What the progress lines show; updated as games end."""

    status: Status
    max_games: int
    stored: int = 0
    resumed: int = 0
    running: dict[int, GameKey] = field(default_factory=dict)
    faults: int = 0
    forfeits: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def games(self) -> int:
        """Games the test has counted (two per deal)."""
        return 2 * self.status.deals


@dataclass(frozen=True, slots=True)
class Forfeits:
    """A bot's forfeits among the counted games, by reason, and its faults there, by kind."""

    bot: str
    games: int
    """Its counted games."""
    reasons: Mapping[str, int]
    faults: Mapping[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """Its forfeited games."""
        return sum(self.reasons.values())

    def words(self) -> str:
        """`forfeited 2 of its 4 games (max_faults 2; its faults: timeout 6)`, or without a
        forfeit `made 3 faults in its 40 games (illegal_action 3)`."""
        def listed(counts: Mapping[str, int]) -> str:
            return ", ".join(f"{k} {n}" for k, n in Counter(counts).most_common())
        games = count_of(self.games, "game")
        if not self.total:
            return (f"made {count_of(sum(self.faults.values()), 'fault')} in its {games} "
                    f"({listed(self.faults)})")
        faults = f"; its faults: {listed(self.faults)}" if self.faults else ""
        return f"forfeited {self.total} of its {games} ({listed(self.reasons)}{faults})"

    def to_json(self) -> dict[str, Json]:
        """Return the counts as JSON-ready data."""
        return {"games": self.games, "forfeits": self.total, "reasons": dict(self.reasons),
                "faults": dict(self.faults)}


@dataclass(frozen=True, slots=True)
class CompareResult:
    """How a comparison ended."""

    verdict: Verdict
    status: Status
    stored: int
    """Games in the database (some may have ended after the verdict and not count)."""
    forfeits: tuple[Forfeits, ...] = ()
    """The bots that forfeited some of the counted games (each such game is a loss) or
    faulted in them (the referee played a default action for each fault): a verdict on a bot
    that crashes now and then is not one on its play alone."""


class CompareRun:
    """Plays one comparison into one output directory."""

    def __init__(self, setup: CompareSetup, out: Path, *, max_games: int,
                 concurrency: int | None = None, resume: bool = False,
                 referee: RefereeFactory | None = None,
                 on_progress: Callable[[CompareProgress], None] | None = None,
                 cluster: str | None = None, pin_workers: bool = False) -> None:
        """`pin_workers`: each local worker and its bots on one core (changes no result)."""
        self.setup, self.out, self.resume = setup, out, resume
        self.max_deals = max(1, max_games // 2)
        self.concurrency = concurrency or os.cpu_count() or 1
        config = replace(setup.tournament(out, self.concurrency), pin_workers=pin_workers)
        # the tournament runner lends its worker pool its bots, referee and directory
        self.runner = Runner(config, out,
                             concurrency=self.concurrency, referee=referee, cluster=cluster)
        self.test = Sequential(setup.hypotheses, setup.pairing)
        self.progress = CompareProgress(self.test.status(), 2 * self.max_deals)
        self.on_progress = on_progress or (lambda progress: None)
        self.records: dict[GameKey, GameRecord] = {}
        self.plans: dict[int, RoundPlan] = {}
        self.salt: str | None = None
        self.handed = 0
        """The last deal handed to the pool."""
        self.seated: Counter[str] = Counter()
        """Each bot's games among the counted ones."""
        self.lost: dict[str, Counter[str]] = {bot.name: Counter() for bot in setup.bots}
        """Each bot's forfeits in the counted games, by reason (`_check_broken`): an
        opponent's too, since one that cannot play makes every deal a tie, and the run
        played on to --max-games for nothing (found by a bot author's audit)."""
        self.faulted: dict[str, Counter[str]] = {bot.name: Counter() for bot in setup.bots}
        """Each bot's faults in the counted games, by kind: what a `max_faults` was."""

    def run(self) -> CompareResult:
        """Play until the test decides or `max_games` are counted; write the report.

        Raises:
            ConfigError: a bot's program is missing (before any game starts).
            StoreError: the directory holds another run, or no run to resume, or a damaged
                database.
            ArenaError: a game failed in a worker, or killed its worker too often.
            DiskFull: a write failed for lack of space; committed games are kept.
            Interrupted: Ctrl-C; committed games are kept.
        """
        try:
            preflight(self.runner.config)
        except ConfigError as exc:  # its lines name a tournament file's lines: not here
            raise ConfigError("cannot start the bots:",
                              [p.split(": ", 1)[-1] for p in exc.problems]) from None
        try:
            return self._run()
        except (OSError, sqlite3.OperationalError) as exc:
            full = disk_full(exc, self.out)
            if full is None:
                raise
            raise DiskFull(f"{full}; the games committed so far are kept in {self.out}: free "
                           "some space, then run again with --resume") from None

    def _run(self) -> CompareResult:
        store = self._open()
        try:
            self.records = {g.key: g.record for g in store.games()}
            self.plans = {p.round: p for p in store.rounds()}
            self.progress.stored = self.progress.resumed = len(self.records)
            self._advance()
            if not self._done():
                try:
                    with open_executor(self.runner, store) as pool:
                        self._play(store, pool)
                except KeyboardInterrupt:
                    stored = count_of(len(self.records), "game")
                    raise Interrupted(f"interrupted: {stored} stored in {store.path}") from None
                # workers finish the game they hold before they stop: read back all there is
                self.records = {g.key: g.record for g in store.games()}
            result = CompareResult(self.test.verdict or Verdict.INCONCLUSIVE,
                                   self.test.status(), len(self.records), self.forfeits())
            self._write(store, result)
            return result
        finally:
            store.close()

    def _open(self) -> Store:
        db = self.out / DB_NAME
        if self.resume and not db.is_file():
            raise StoreError(f"{self.out} holds no comparison to resume; drop --resume to "
                             "start one")
        if db.is_file():
            _check_same(self.out, self.setup)
        for sub in ("replays", "logs"):
            (self.out / sub).mkdir(parents=True, exist_ok=True)
        store = Store.open(self.out, self.setup.fingerprint, self.setup.name, create=True)
        try:
            store.lock(waiting=orphans_waited)
            held = len(store.keys())
            if store.meta(SCORED) is None:
                store.set_meta(SCORED, self.setup.scored())
            if held and not self.resume:
                raise StoreError(f"{self.out} already holds {count_of(held, 'game')} of this "
                                 "comparison: add --resume to continue it, or pick another "
                                 "--out")
            store.set_meta("settings", self.setup.settings())
            self.salt = read_salt(self.out) if held else ensure_salt(self.out)
        except BaseException:
            store.close()
            raise
        return store

    def _done(self) -> bool:
        return self.test.verdict is not None or self.test.sample.n >= self.max_deals

    def _advance(self, report: bool = False) -> None:
        """Count every deal that is next in order and complete (until the verdict); with
        `report`, tell `on_progress` after each, so that a line every N games comes at N,
        2N, ... whatever the workers (with two, several deals were often counted at once:
        lines at 20, 42, 46)."""
        while not self._done():
            deal = self.test.sample.n + 1
            cand, base = (self.records.get(GameKey(deal, 0, r))
                          for r in (CANDIDATE_GAME, BASE_GAME))
            if cand is None or base is None:
                break
            self.test.add(*deal_result(self.setup, deal, cand, base))
            self._check_broken([cand, base])  # at each deal: where it stops is the seeds'
            if report:
                self.progress.status = self.test.status()
                self.on_progress(self.progress)
        self.progress.status = self.test.status()

    def _check_broken(self, deal: list[GameRecord]) -> None:
        """Count the two games of a deal just counted, and stop when a bot (the candidate,
        the base or an opponent) has forfeited (nearly) every counted game of its own.

        Raises:
            ArenaError: which bot, how many of its games, and why (its forfeits' reasons,
                its faults' kinds, its log and the line of it that says why).
        """
        for record in deal:
            bots = {s.seat: s.bot for s in record.seats}
            for seat in (s for s in record.seats if s.bot in self.lost):
                self.seated[seat.bot] += 1
                if seat.forfeit is not None:
                    self.lost[seat.bot][seat.forfeit.value] += 1
            for fault in record.faults:
                if bots.get(fault.seat) in self.faulted:
                    self.faulted[bots[fault.seat]][fault.kind.value] += 1
        if 2 * self.test.sample.n < BROKEN_GAMES:
            return
        for lost in self.forfeits():
            if lost.total and lost.total >= BROKEN_SHARE * lost.games:
                raise ArenaError(f"no verdict: {lost.bot} {lost.words()}: a bot that cannot "
                                 f"play is broken, not worse; {self.log_words(lost.bot)}; "
                                 "try `arena check-bot`, then compare into a new --out")

    def forfeits(self) -> tuple[Forfeits, ...]:
        """The bots with forfeits or faults among the counted games, in the order of the
        bots."""
        return tuple(Forfeits(bot, self.seated[bot], dict(lost), dict(self.faulted[bot]))
                     for bot, lost in self.lost.items()
                     if (lost or self.faulted[bot]) and self.seated[bot])

    def log_words(self, bot: str) -> str:
        """Where the bot's log is, and the line of its end that says why it stopped
        (`its log out/logs/v2.log ends: KeyError: 'x'`); a run on a cluster keeps one log
        per worker, in a folder of its own."""
        path = self.out / "logs" / f"{bot}.log"
        if not path.is_file():
            return f"see its logs in {self.out / 'logs'}"
        said = cause_in_log(path)
        return f"its log {path}" + (f" ends: {said}" if said else "")

    def _play(self, store: Store, pool: Executor) -> None:
        self._hand_out(store, pool)
        while not self._done():
            event = pool.next_event()
            if event is None:
                continue
            kind, worker, key, payload = event
            if kind == "start" and key is not None:
                self.progress.running[worker] = key
            elif kind == "done" and key is not None:
                self.progress.running.pop(worker, None)
                self._finished(key, GameRecord.from_json(payload))
                self._advance(report=True)
                self._hand_out(store, pool)
            elif kind == "retry":
                self.progress.running.pop(worker, None)
            self.on_progress(self.progress)

    def _hand_out(self, store: Store, pool: Executor) -> None:
        """Hand out deals up to `AHEAD` per worker beyond the test's position."""
        last = min(self.max_deals, self.test.sample.n + AHEAD * self.concurrency)
        while self.handed < last:
            self.handed += 1
            plan = self._plan(store, self.handed)
            for repeat, seating in enumerate(plan.tables[0].seatings):
                key = GameKey(self.handed, 0, repeat)
                if key not in self.records:
                    pool.submit(Job(key, seating, deal_seed(self.setup.seed, self.salt, key)))

    def _plan(self, store: Store, deal: int) -> RoundPlan:
        plan = deal_plan(self.setup, deal)
        stored = self.plans.get(deal)
        if stored is None:
            store.add_round(plan)
            self.plans[deal] = plan
        elif stored != plan:
            raise StoreError(f"deal {deal} was recorded with other seats than this comparison "
                             "gives it: the database does not match these bots")
        return plan

    def _finished(self, key: GameKey, record: GameRecord) -> None:
        self.records[key] = record
        self.progress.stored += 1
        for seat in record.seats:
            self.progress.faults += seat.faults
            self.progress.forfeits += 1 if seat.forfeit is not None else 0

    def _write(self, store: Store, result: CompareResult) -> None:
        games = [StoredGame(k, r) for k, r in sorted(
            self.records.items(), key=lambda kr: (kr[0].round, kr[0].table, kr[0].repeat))]
        rounds = sorted(self.plans.values(), key=lambda p: p.round)
        settings = self.setup.settings()
        table = compute([b.name for b in self.setup.bots], games, rounds, PointsRule(),
                        self.setup.players, False, True, self.setup.seed)
        write_outputs(self.out, settings, table, games, rounds)
        report = report_json(self.setup, result, self.records)
        (self.out / COMPARE_NAME).write_text(json.dumps(report, indent=1) + "\n")


def report_json(setup: CompareSetup, result: CompareResult,
                records: dict[GameKey, GameRecord]) -> dict[str, Json]:
    """Return the verdict, the figures and every counted deal as JSON-ready data."""
    status = result.status
    deals: list[Json] = []
    for deal in range(1, status.deals + 1):
        cand, base = (records[GameKey(deal, 0, r)] for r in (CANDIDATE_GAME, BASE_GAME))
        c, b = deal_result(setup, deal, cand, base)
        deals.append({"deal": deal, "seed": cand.seed, "candidate_score": c,
                      "base_score": b, "pair_score": (1 + c - b) / 2})
    return {"compare": setup.settings(), "verdict": result.verdict.value,
            "summary": setup.verdict_words(result.verdict, status.deals),
            "games": 2 * status.deals, "deals": status.deals, "stored_games": result.stored,
            "llr": status.llr, "bounds": [status.lower, status.upper], "elo": status.elo,
            "elo_95": status.elo_95 if status.elo_95 != float("inf") else None,
            "los": status.los, "variance_reduction": status.variance_reduction,
            "forfeits": {f.bot: f.to_json() for f in result.forfeits},
            "deal_results": deals}


def _check_same(out: Path, setup: CompareSetup) -> None:
    """Refuse a directory that holds another run, naming it (nothing is changed)."""
    store = Store.open(out, None)
    try:
        stored, name, before = store.meta("fingerprint"), store.meta("name"), store.scored()
    finally:
        store.close()
    if stored == setup.fingerprint:
        return
    changed = summary(before, setup.scored()) if before and "candidate" in before else ""
    what = (f"; what differs: {changed}" if changed else ": a comparison resumes only with "
            "the same game, bots (their commands and their files), players, rules, seed, "
            "time control, --max-faults and SPRT bounds")
    raise StoreError(f"{out} holds another run ({name!r}){what}; its games were left "
                     "untouched: use another --out")

