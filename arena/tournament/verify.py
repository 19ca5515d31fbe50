"""`arena verify`: re-simulate every replay of a run and check it against what is stored.

A replay is checked in three ways. Its bytes against the sha256 digest stored when the game
was committed. Its play against the engine (`arena.referee.review.check_replay`: every
decision, every event, the final placings and scores). And its content against the
stored game: seed (and that the seed is the one the tournament seed and the run's secret
salt give for that game), game and rules, seats and bots (and the recorded pairing),
placings, scores, termination and decision count, in the games row, the seats rows and the
stored record alike. The standings are then recomputed from the verified games and
compared with results.json and standings.csv. Replay files that no stored game references
are reported as well. Each mismatch is one line naming the game (or file) and what
differs.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.core.errors import ArenaError, StoreError
from arena.core.game import Json, Termination
from arena.core.record import GameRecord, SeatRecord
from arena.core.registry import Registry
from arena.core.words import count_of, plural
from arena.referee.replay import Replay, read_replay
from arena.referee.review import check_replay
from arena.tournament.compare import FORMAT as COMPARE
from arena.tournament.compare import deal_seed
from arena.tournament.outputs import results_json, standings_csv
from arena.tournament.pairing import RoundPlan
from arena.tournament.secret import game_seed, read_salt, salt_exposed
from arena.tournament.settings import RULES, Settings
from arena.tournament.standings import Standings
from arena.tournament.store import (
    LADDER_NAME,
    PUBLIC,
    RUN_ADVICE,
    Advice,
    GameRow,
    Store,
    StoredGame,
)

REPLAYS = "replays"


@dataclass
class Report:
    """What `verify_run` found: mismatches (each one line) and notes (not failures)."""

    games: int = 0
    decisions: int = 0
    mismatches: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    compared: list[str] = field(default_factory=list)
    """The derived files the recomputed standings were compared with."""

    @property
    def ok(self) -> bool:
        """True when nothing mismatched."""
        return not self.mismatches

    def summary(self, directory: Path) -> str:
        """Return the one-line verdict."""
        files = f"; standings match {' and '.join(self.compared)}" if self.compared else ""
        if self.ok:
            return (f"{directory}: {count_of(self.games, 'game')} verified, "
                    f"{count_of(self.decisions, 'decision')} re-simulated, no mismatch{files}")
        return (f"{directory}: {count_of(len(self.mismatches), 'mismatch')} in "
                f"{count_of(self.games, 'game')}")


@dataclass(frozen=True, slots=True)
class _Run:
    """What the checks need from the database and the run directory."""

    directory: Path
    rows: list[GameRow]
    rounds: dict[int, RoundPlan]
    settings: dict[str, Json]
    salt: str | None
    salt_known: bool


def verify_run(directory: Path, registry: Registry, advice: Advice = RUN_ADVICE) -> Report:
    """Check every stored game of the run in `directory` against its replay and the engine
    (`advice`: what a database error tells the user to do, a ladder's own for a ladder).

    Raises:
        StoreError: no usable results database in `directory`.
    """
    report = Report()
    run = _load(directory, report, advice)
    report.games = len(run.rows)
    verified: list[StoredGame] = []
    for row in run.rows:
        record = _check_game(run, row, registry, report)
        if record is not None:
            verified.append(StoredGame(row.key, record))
    rules = Settings.from_json(run.settings).rules
    if Store.in_use(directory):  # a game in play has its replay, not yet its row
        report.notes.append("the run is still going: its stored games are verified; replay "
                            "files of games in play and the standings files are not checked")
        return report
    _check_unreferenced(run, report)
    if (directory / LADDER_NAME).exists():  # no results.json: a rating, kept in the database
        report.notes.append("a ladder: its games are verified; its standings are ratings "
                            f"(`arena ladder standings {directory}`), with no results.json "
                            "or standings.csv to compare")
    elif rules != RULES:  # its results.json was ranked by other rules (fewer keys, too)
        report.notes.append(
            f"results.json and standings.csv not compared: the run was begun under older "
            f"tournament rules ({rules}; this arena follows {RULES}); `arena standings "
            f"{directory}` ranks its verified games by today's")
    elif len(verified) == len(run.rows):  # a missing game would make every row differ
        table = _standings(run, verified)
        _check_results_json(run, table, verified, report)
        _check_standings_csv(run, table, report)
    else:
        report.notes.append("standings not compared: not every game could be verified")
    return report


def replay_warnings(directory: Path) -> list[str]:
    """Return one line per stored game whose replay is missing, differs from its digest, or
    ends with an outcome other than the stored result (a cheap check, without the engine).

    Raises:
        StoreError: no usable results database in `directory`.
    """
    store = Store.open(directory, None)
    try:
        rows = store.game_rows()
    finally:
        store.close()
    warnings = []
    for row in rows:
        path = _replay_path(directory, row)
        shown = _shown(directory, path)
        try:
            data = _replay_bytes(path)
        except OSError as exc:
            warnings.append(f"{row.key}: replay {shown} {exc.strerror}")
            continue
        if row.digest is not None and hashlib.sha256(data).hexdigest() != row.digest:
            warnings.append(f"{row.key}: replay {shown} does not match the digest stored "
                            "with the game (changed after it was committed)")
            continue
        differs = _last_outcome_differs(data, row)
        if differs:
            warnings.append(f"{row.key}: the stored result differs from the outcome in "
                            f"replay {shown} ({differs})")
    return warnings


def _replay_bytes(path: Path) -> bytes:
    """Read a replay the game wrote: a regular file, never a link or a FIFO planted there.

    Raises:
        OSError: `strerror` says why not, as the rest of a sentence.
    """
    if not path.exists() and not path.is_symlink():
        raise OSError(0, "is missing")
    if path.is_symlink() or not path.is_file():
        raise OSError(0, "is not a regular file")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise OSError(0, f"cannot be read ({exc.strerror})") from None


def _last_outcome_differs(data: bytes, row: GameRow) -> str | None:
    """Say how the stored record differs from the record on the replay's last line (a
    replay without one is left to `arena verify`: a truncated file fails its digest)."""
    try:
        line = json.loads(data.rstrip().rsplit(b"\n", 1)[-1])
        written = GameRecord.from_json(line["record"])
    except (ValueError, KeyError, TypeError, RecursionError):  # nested past json's depth
        return None
    if row.record is None:
        return f"the stored record does not parse: {row.error}"
    problems = _differ(written, row.record)
    return "; ".join(problems) if problems else None


# loading -------------------------------------------------------------------------------


def _load(directory: Path, report: Report, advice: Advice) -> _Run:
    store = Store.open(directory, None, advice=advice)
    try:
        rows, rounds = store.game_rows(), store.rounds()
        settings = json.loads(store.meta("settings") or "{}")
        seeds = store.seeds
    finally:
        store.close()
    salt, known = None, True
    if seeds == PUBLIC:
        report.notes.append("this run predates secret salts: its game seeds derive from the "
                            "tournament seed alone")
    elif rows:
        try:
            # seeds are checked whoever can read the salt: its mode is a note, not a result
            salt = read_salt(directory, private=False)
            if exposed := salt_exposed(directory):
                report.notes.append(f"secret.salt: {exposed}")
        except StoreError as exc:
            report.mismatches.append(f"secret.salt: {exc} (game seeds not checked)")
            known = False
    undigested = sum(1 for r in rows if r.digest is None)
    if undigested:
        report.notes.append(f"{count_of(undigested, 'game')} {plural('was', undigested)} stored "
                            "without a replay digest "
                            "(before digests): their replays are checked by re-simulation")
    return _Run(directory, rows, {p.round: p for p in rounds}, settings, salt, known)


def _replay_path(directory: Path, row: GameRow) -> Path:
    name = Path(str(row.columns["replay"])).name if row.columns["replay"] else None
    return directory / REPLAYS / (name or f"{row.key}.jsonl")


def _shown(directory: Path, path: Path) -> str:
    return str(path.relative_to(directory)) if path.is_relative_to(directory) else str(path)


# one game ------------------------------------------------------------------------------


def _check_game(run: _Run, row: GameRow, registry: Registry,
                report: Report) -> GameRecord | None:
    """Check one game; return its verified record (None when its replay is unusable)."""
    problems: list[str] = []
    path = _replay_path(run.directory, row)
    if path.name != f"{row.key}.jsonl":
        problems.append(f"stored replay path {row.columns['replay']!r} is not this game's "
                        f"({row.key}.jsonl)")
    replay = _read(run.directory, row, path, problems)
    truth = None
    if replay is not None:
        try:
            simulated = check_replay(replay, registry)
        except ArenaError as exc:
            simulated = [str(exc)]
        except (KeyError, IndexError, TypeError, ValueError) as exc:  # a line of wrong shape
            simulated = [f"the replay is not valid ({type(exc).__name__}: {exc})"]
        problems += [f"re-simulation: {p}" for p in simulated]
        report.decisions += len(replay.steps)
        truth = _truth(replay, problems) if not simulated else None
    if truth is not None:
        problems += _compare_stored(truth, row)
        problems += _check_schedule(run, row, truth)
    if row.error is not None:
        problems.append(f"the stored record does not parse ({row.error})")
    report.mismatches += [f"{row.key}: {p}" for p in problems]
    return truth


def _read(directory: Path, row: GameRow, path: Path, problems: list[str]) -> Replay | None:
    shown = _shown(directory, path)
    try:
        data = _replay_bytes(path)
    except OSError as exc:
        problems.append(f"replay {shown} {exc.strerror}")
        return None
    if row.digest is not None and hashlib.sha256(data).hexdigest() != row.digest:
        problems.append(f"replay {shown} differs from the digest stored with the game")
    try:
        return read_replay(path)
    except (ArenaError, OSError, UnicodeDecodeError) as exc:
        problems.append(f"replay {shown} cannot be read ({exc})")
        return None


def _truth(replay: Replay, problems: list[str]) -> GameRecord | None:
    """Return the game as the replay and the engine establish it.

    Placings, scores and termination come from the outcome line (which `check_replay` has
    just compared with the engine); bots from the header; what only the referee knows
    (faults, forfeits, time used) from the record in the outcome line.
    """
    header, outcome, written = replay.header, replay.outcome, replay.record
    if outcome is None or written is None:
        problems.append("the replay has no outcome line")
        return None
    try:
        bots = {int(b["seat"]): b for b in header["bots"]}
        placings, scores = list(outcome["placings"]), list(outcome["scores"])
        seats = tuple(
            SeatRecord(s.seat, str(bots[s.seat]["name"]), str(bots[s.seat]["version"]),
                       int(placings[s.seat]), int(scores[s.seat]), s.faults, s.timeouts,
                       s.forfeit, s.time_ms)
            for s in written.seats)
        truth = GameRecord(str(header["game"]), dict(header["rules"]), int(header["seed"]),
                           Termination(outcome["termination"]), seats, len(replay.steps),
                           written.faults, written.details, written.replay)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        problems.append(f"the replay's header or outcome is not valid ({exc!r})")
        return None
    if len(seats) != int(header["players"]) or len(seats) != len(bots):
        problems.append("the replay's header and outcome disagree on the seats")
    problems += [f"the replay's outcome line: {p}" for p in _differ(truth, written)]
    return truth


def _compare_stored(truth: GameRecord, row: GameRow) -> list[str]:
    problems = [f"stored record: {p}" for p in _differ(truth, row.record)] \
        if row.record is not None else []
    columns = row.columns
    for name, value in (("seed", truth.seed), ("game", truth.game),
                        ("termination", truth.termination.value),
                        ("decisions", truth.decisions)):
        if columns[name] != value:
            problems.append(f"games row: {name} {columns[name]!r}, replay {value!r}")
    problems += [f"seats rows: {p}" for p in _differ_seats(truth.seats, row.seats)]
    return problems


def _differ(truth: GameRecord, stored: GameRecord) -> list[str]:
    """Return what `stored` says differently from `truth`, one item per field."""
    problems = []
    for name in ("seed", "game", "termination", "decisions"):
        mine, theirs = getattr(truth, name), getattr(stored, name)
        if mine != theirs:
            problems.append(f"{name} {_plain(theirs)!r}, replay {_plain(mine)!r}")
    if dict(truth.rules) != dict(stored.rules):
        problems.append("rules differ from the replay's")
    return problems + _differ_seats(truth.seats, stored.seats)


def _differ_seats(truth: Sequence[SeatRecord], stored: Sequence[SeatRecord]) -> list[str]:
    if len(truth) != len(stored):
        return [f"{len(stored)} seats, replay {len(truth)}"]
    problems = []
    for mine, theirs in zip(truth, stored, strict=True):
        for name in ("seat", "bot", "version", "placing", "score"):
            if getattr(mine, name) != getattr(theirs, name):
                problems.append(f"seat {mine.seat} {name} {getattr(theirs, name)!r}, "
                                f"replay {getattr(mine, name)!r}")
    return problems


def _plain(value: object) -> object:
    return value.value if isinstance(value, Termination) else value


def _check_schedule(run: _Run, row: GameRow, truth: GameRecord) -> list[str]:
    """The game must be one the recorded pairing scheduled, with the seed it was due."""
    problems = []
    seating = tuple(s.bot for s in truth.seats)
    plan = run.rounds.get(row.key.round)
    tables = plan.tables if plan is not None else ()
    if not 0 <= row.key.table < len(tables) or not \
            0 <= row.key.repeat < len(tables[row.key.table].seatings):
        problems.append("no such game in the recorded pairing")
    elif tables[row.key.table].seatings[row.key.repeat] != seating:
        expected = " | ".join(tables[row.key.table].seatings[row.key.repeat])
        problems.append(f"seats {' | '.join(seating)}, the recorded pairing has {expected}")
    if run.salt_known and "seed" in run.settings:
        seed = int(str(run.settings["seed"]))
        # both games of an `arena compare` deal are dealt alike: that is the comparison
        due = (deal_seed(seed, run.salt, row.key) if run.settings.get("format") == COMPARE
               else game_seed(seed, run.salt, row.key))
        if truth.seed != due:
            problems.append(f"seed {truth.seed} is not the one this run's tournament seed and "
                            "secret salt give this game")
    return problems


# the run as a whole --------------------------------------------------------------------


def _check_unreferenced(run: _Run, report: Report) -> None:
    folder = run.directory / REPLAYS
    if not folder.is_dir():
        return
    referenced = {_replay_path(run.directory, row).name for row in run.rows}
    for path in sorted(folder.iterdir()):
        if path.name not in referenced:
            report.mismatches.append(
                f"{REPLAYS}/{path.name}: no stored game references this file (planted, or "
                "left by a game an interruption cut off)")


def _standings(run: _Run, games: Sequence[StoredGame]) -> Standings:
    return Settings.from_json(run.settings, games).standings(
        games, sorted(run.rounds.values(), key=lambda p: p.round))


DESCRIPTIVE = ("rating_models",)
"""results.json keys that describe the others, derived from the settings alone: a file
written before they were added lacks them, and its results are as good."""


def _check_results_json(run: _Run, table: Standings, games: Sequence[StoredGame],
                        report: Report) -> None:
    path = run.directory / "results.json"
    if not path.is_file():
        return
    report.compared.append("results.json")
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(found, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        report.mismatches.append(f"results.json: cannot be read ({exc})")
        return
    ordered = sorted(games, key=lambda g: (g.key.round, g.key.table, g.key.repeat))
    expected = json.loads(json.dumps(results_json(run.settings, table, ordered,
                                                  sorted(run.rounds.values(),
                                                         key=lambda p: p.round))))
    lines = _differ_rows("results.json", expected.get("standings"),
                         _old_names(found.get("standings")), "bot")
    lines += _differ_rows("results.json", _without_paths(expected.get("games")),
                          _without_paths(found.get("games")), "key")
    for key in sorted(set(expected) | set(found)):
        if key in ("standings", "games") or (key in DESCRIPTIVE and key not in found):
            continue
        if expected.get(key) != found.get(key):
            lines.append(f"results.json: {key!r} differs from what the verified games give")
    report.mismatches += lines


def _without_paths(games: object) -> object:
    # the replay path is where the run wrote it (relative to its working directory)
    if not isinstance(games, list):
        return games
    return [{k: v for k, v in g.items() if k != "replay"} if isinstance(g, dict) else g
            for g in games]


def _differ_rows(where: str, expected: object, found: object, by: str) -> list[str]:
    """Compare two lists of JSON objects keyed by `by`, one line per differing field."""
    if not isinstance(expected, list) or not isinstance(found, list) or not all(
            isinstance(r, dict) and by in r for r in [*expected, *found]):
        return [] if expected == found else [f"{where}: rows keyed by {by!r} expected"]
    mine = {str(r[by]): r for r in expected}
    theirs = {str(r[by]): r for r in found}
    lines = [f"{where}: {name} is missing" for name in mine if name not in theirs]
    lines += [f"{where}: {name} is not among the verified games' rows"
              for name in theirs if name not in mine]
    for name in (n for n in mine if n in theirs):
        lines += [f"{where}: {name} {k} {theirs[name].get(k)!r}, verified games give "
                  f"{mine[name].get(k)!r}" for k in _keys(mine[name], theirs[name])
                  if mine[name].get(k) != theirs[name].get(k)]
    return lines


def _keys(*rows: Mapping[str, object]) -> list[str]:
    return sorted({k for row in rows for k in row})


def _check_standings_csv(run: _Run, table: Standings, report: Report) -> None:
    path = run.directory / "standings.csv"
    if not path.is_file():
        return
    report.compared.append("standings.csv")
    try:
        found = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    except (OSError, ValueError, csv.Error) as exc:
        report.mismatches.append(f"standings.csv: cannot be read ({exc})")
        return
    expected = list(csv.DictReader(io.StringIO(standings_csv(table))))
    report.mismatches += _differ_rows("standings.csv", expected, _old_names(found), "bot")


def _old_names(rows: object) -> object:
    """Standings rows written before forfeits were called so: `crashes` is `forfeits`."""
    if not isinstance(rows, list):
        return rows
    return [{("forfeits" if k == "crashes" else k): v for k, v in r.items()}
            if isinstance(r, dict) else r for r in rows]
