"""The stored seats as numpy columns, kept in the database between runs: what makes the
ladder's table cost the same at 100k games as at 1k.

Reading 400k seat rows out of SQLite into Python took seconds; the table needs them only
as three integer columns (game, entry, placing) and seven sums per entry. So after each
run the columns and sums of every *complete* round (those the beliefs include: no game is
ever added to them) are stored as one blob (`fitcache` table); a reader loads the blob
and reads only the seats of later rounds. The blob is derived data: when it is missing or
does not match the stored games it is rebuilt from the seats.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

Index = npt.NDArray[np.int64]
SeatRow = tuple[int, str, int, int, int, int, float]
"""(game number, entry, placing, faults, timeouts, forfeited 0/1, finished)."""
ROUND_SHIFT = 26
"""A game number is (round << 26) + (table << 6) + repeat (tables < 2**20, repeats < 64)."""
SUMS = ("games", "wins", "placings", "faults", "timeouts", "forfeits", "last")


def game_number(round_: int, table: int, repeat: int) -> int:
    """The number of a game in key order (what `SeatRow` carries)."""
    return (round_ << ROUND_SHIFT) + (table << 6) + repeat


@dataclass(frozen=True)
class Columns:
    """Seats in key order, as columns, with each entry's sums."""

    through: int = 0
    """The last round included (0: none)."""
    names: tuple[str, ...] = ()
    keys: Index = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    bots: Index = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Index into `names`, per seat."""
    places: Index = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sums: dict[str, list[float]] = field(default_factory=dict)
    """Per entry: games, wins (a shared first place is a fraction), placings, faults,
    timeouts, forfeits, last game (unix time)."""

    @property
    def games(self) -> int:
        """How many games the columns hold."""
        return int(np.count_nonzero(np.diff(self.keys))) + 1 if len(self.keys) else 0

    def extended(self, rows: Sequence[SeatRow], through: int) -> Columns:
        """These columns with `rows` (seats of later games, in key order) appended."""
        if not rows:
            return Columns(max(self.through, through), self.names, self.keys, self.bots,
                           self.places, self.sums)
        names = list(self.names)
        index = {n: i for i, n in enumerate(names)}
        for _, entry, *_ in rows:
            if entry not in index:
                index[entry] = len(names)
                names.append(entry)
        sums = {e: list(v) for e, v in self.sums.items()}
        _add_sums(sums, rows)
        keys = np.concatenate([self.keys, np.array([r[0] for r in rows], dtype=np.int64)])
        bots = np.concatenate([self.bots, np.array([index[r[1]] for r in rows],
                                                   dtype=np.int64)])
        places = np.concatenate([self.places, np.array([r[2] for r in rows], dtype=np.int64)])
        return Columns(max(self.through, through), tuple(names), keys, bots, places, sums)

    def to_bytes(self) -> bytes:
        """The columns as one blob (numpy's npz, the names and sums as JSON in it)."""
        buffer = io.BytesIO()
        meta = json.dumps({"through": self.through, "names": list(self.names),
                           "sums": self.sums})
        # uncompressed (zlib took a second at 100k games) but in small integer types
        np.savez(buffer, keys=self.keys, bots=self.bots.astype(np.int32),
                 places=self.places.astype(np.int16),
                 meta=np.frombuffer(meta.encode(), dtype=np.uint8))
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, blob: bytes) -> Columns:
        """Read `to_bytes`' blob.

        Raises:
            ValueError: it is not one (the caller rebuilds the columns).
        """
        try:
            with np.load(io.BytesIO(blob), allow_pickle=False) as data:
                meta = json.loads(bytes(data["meta"]).decode())
                return cls(int(meta["through"]), tuple(meta["names"]),
                           data["keys"].astype(np.int64), data["bots"].astype(np.int64),
                           data["places"].astype(np.int64),
                           {str(k): [float(x) for x in v] for k, v in meta["sums"].items()})
        except (OSError, KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"not a columns blob ({exc})") from exc


def _add_sums(sums: dict[str, list[float]], rows: Sequence[SeatRow]) -> None:
    winners: dict[int, int] = {}
    for key, _, placing, *_ in rows:
        if placing == 1:
            winners[key] = winners.get(key, 0) + 1
    for key, entry, placing, faults, timeouts, forfeit, finished in rows:
        row = sums.setdefault(entry, [0.0] * 6 + [0.0])
        row[0] += 1
        row[1] += 1 / winners[key] if placing == 1 else 0.0
        row[2] += placing
        row[3] += faults
        row[4] += timeouts
        row[5] += forfeit
        row[6] = max(row[6], finished)
