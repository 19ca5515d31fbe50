"""`ladder.yaml`: a ladder's game, rules, time control, sandbox and matchmaking settings.

The file takes a tournament file's keys (validated by the same loader, every problem at
once with its line) except the bots and the schedule, plus the ladder's own: `window`
(rate over the most recent games only) and `explore` (the share of tables drawn at
random across the whole field). Bots join with `arena ladder add`, never in this file.
The file may be edited between runs (a new time control applies to the next games), except
`game` and `players_per_game` (`FIXED`): the database keeps what the ladder plays, and a
file that says otherwise is refused (`check_fixed`).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from arena.core.errors import ConfigError
from arena.core.game import Json
from arena.core.words import count_of
from arena.referee.spec import BotSpec
from arena.tournament.config import (
    FileKind,
    TournamentConfig,
    decode_utf8,
    parse_config,
    with_python,
)
from arena.tournament.store import LADDER_NAME
from arena.tournament.yamlpos import LineDict, load

LADDER_ONLY = ("window", "explore", "batch")
KEYS = ("name", "game", "rules", "players_per_game", "time", "faults", "concurrency", "seed",
        "transport", "sandbox", "limits", "max_bots", "pin_workers", "bot_files", *LADDER_ONLY)
LADDER_FILE = FileKind(keys=KEYS, required=("game",), what="ladder file")
DEFAULT_EXPLORE = 0.1
DEFAULT_BATCH = 8
MAX_BATCH = 1000
MIN_WINDOW = 10


@dataclass(frozen=True, slots=True)
class LadderConfig:
    """A validated ladder.yaml: the tournament settings plus the ladder's own."""

    base: TournamentConfig
    """Game, rules, table size, time, faults, sandbox, concurrency and seed (no bots)."""
    window: int | None = None
    """Rate over the most recent `window` games only (None: all games)."""
    explore: float = DEFAULT_EXPLORE
    """The share of tables whose opponents are drawn at random from the whole field."""
    batch: int = DEFAULT_BATCH
    """Tables planned at once (a round): more keeps more workers busy, fewer plans from
    fresher ratings. The choices depend on it, never on the number of workers."""

    @property
    def seats(self) -> int:
        """Seats at every ladder table."""
        return self.base.table.size

    def tournament(self, bots: Sequence[BotSpec], directory: Path,
                   fingerprint: str) -> TournamentConfig:
        """The tournament settings the workers play a run's games with."""
        return replace(self.base, bots=tuple(bots), out=directory, fingerprint=fingerprint)


def load_ladder(directory: Path) -> LadderConfig:
    """Read DIR/ladder.yaml.

    Raises:
        ConfigError: the file is missing or unreadable, or every problem in it with its line.
    """
    path = directory / LADDER_NAME
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        raise _not_a_ladder(directory) from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    return parse_ladder(decode_utf8(data, str(path)), str(path), directory.resolve())


FIXED = ("game", "players_per_game")
"""The keys a ladder's life fixes: its games and ratings are of one game at one table size."""


def played(config: LadderConfig) -> tuple[str, int]:
    """The game (its id without the engine version) and the table size `config` plays."""
    return config.base.game.partition("@")[0], config.seats


def check_fixed(config: LadderConfig, stored: tuple[str, int] | None, directory: Path) -> None:
    """Refuse a ladder.yaml whose `game` or `players_per_game` is not the ladder's own.

    Raises:
        ConfigError: one line naming the file, the key, what the ladder plays and what the
            file says.
    """
    if stored is None:
        return
    for key, was, now in zip(FIXED, stored, played(config), strict=True):
        if was != now:
            raise ConfigError(
                f"{directory / LADDER_NAME}: the file says `{key}: {now}`, but this ladder's "
                f"database holds `{key}: {was}` (one ladder rates one game at one table "
                f"size): put `{key}: {was}` back, or start a new ladder with `arena ladder "
                "init`")


def require_ladder(directory: Path) -> None:
    """Check that `directory` holds a ladder (its ladder.yaml), before anything is opened.

    Raises:
        ConfigError: it does not (one line; a missing directory included).
    """
    if not (directory / LADDER_NAME).is_file():
        raise _not_a_ladder(directory)


def _not_a_ladder(directory: Path) -> ConfigError:
    return ConfigError(f"{directory} is not a ladder: {directory / LADDER_NAME} is missing "
                       "(create one with `arena ladder init`)")


def parse_ladder(text: str, source: str = "<string>", base: Path | None = None) -> LadderConfig:
    """Validate ladder YAML `text`.

    Raises:
        ConfigError: every problem found, each with its line.
    """
    problems: list[str] = []
    try:
        config = parse_config(text, source, base, kind=LADDER_FILE)
    except ConfigError as exc:
        problems.extend(exc.problems)
        config = None
    try:
        doc, _ = load(text)
    except yaml.YAMLError:
        doc = None
    own = _ladder_keys(doc, source, problems) if isinstance(doc, LineDict) else None
    if problems or config is None or own is None:
        raise ConfigError(f"{count_of(len(problems), 'problem')} in ladder file {source}:",
                          problems)
    return LadderConfig(config, *own)



def _ladder_keys(doc: LineDict, source: str,
                 problems: list[str]) -> tuple[int | None, float, int]:
    window = doc.get("window")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int)
                               or window < MIN_WINDOW):
        problems.append(f"{source}:{doc.line_of('window')}: 'window' must be an integer of at "
                        f"least {MIN_WINDOW} (games), not {window!r}")
        window = None
    explore = doc.get("explore", DEFAULT_EXPLORE)
    if isinstance(explore, bool) or not isinstance(explore, int | float) \
            or not math.isfinite(explore) or not 0 <= explore <= 1:
        problems.append(f"{source}:{doc.line_of('explore')}: 'explore' must be a number from "
                        f"0 to 1 (the share of tables drawn at random), not {explore!r}")
        explore = DEFAULT_EXPLORE
    batch = doc.get("batch", DEFAULT_BATCH)
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
        problems.append(f"{source}:{doc.line_of('batch')}: 'batch' must be an integer from 1 "
                        f"to {MAX_BATCH} (tables planned at once), not {batch!r}")
        batch = DEFAULT_BATCH
    return window, float(explore), batch


def init_text(name: str, game: str, players: int | None, rules: Mapping[str, Json]) -> str:
    """Return a fresh ladder.yaml for `arena ladder init` (a new random seed)."""
    body: dict[str, object] = {"name": name, "game": game}
    if players is not None:
        body["players_per_game"] = players
    if rules:
        body["rules"] = dict(rules)
    body.update({"time": {"move_ms": 1000, "bank_ms": 5000, "startup_ms": 10000},
                 "faults": {"max_faults": 3}, "seed": secrets.randbelow(2**31),
                 "explore": DEFAULT_EXPLORE, "batch": DEFAULT_BATCH})
    head = ("# An arena ladder (docs/ladder.md). Bots join with `arena ladder add`; edits here\n"
            "# apply to the games of the next run.\n")
    return head + yaml.safe_dump(body, sort_keys=False)


def expand_cmd(cmd: Sequence[str]) -> tuple[str, ...]:
    """A stored command as the workers run it (`{python}`, or a first word `python`: the
    interpreter running arena)."""
    return with_python(cmd)
