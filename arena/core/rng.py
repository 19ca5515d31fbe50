"""Seeds: derive child seeds from a root seed by string seeding.

`random.Random(str)` hashes the string with SHA-512 (version-2 seeding), so the result
is the same in every process; built-in `hash()` is salted per process and never used.
"""

from __future__ import annotations

import random

SEED_BITS = 63


def derive_seed(root: int | str, *labels: object) -> int:
    """Return a stable child seed for `root` and the given labels (round, table, ...)."""
    key = ":".join([str(root), *(str(label) for label in labels)])
    return random.Random(key).getrandbits(SEED_BITS)


def new_rng(seed: int) -> random.Random:
    """Return a private generator; engines never touch the global `random` module."""
    return random.Random(seed)


def rng_state_to_json(rng: random.Random) -> list[object]:
    """Return the generator state as JSON-ready data."""
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def rng_from_json(data: list[object]) -> random.Random:
    """Rebuild a generator saved by `rng_state_to_json`."""
    version, internal, gauss = data
    rng = random.Random()
    rng.setstate((version, tuple(internal), gauss))  # type: ignore[arg-type]
    return rng
