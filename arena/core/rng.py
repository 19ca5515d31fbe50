"""Seeds: derive child seeds from a root seed by string seeding.

`random.Random(str)` hashes the string with SHA-512 (version-2 seeding), so the result
is the same in every process; built-in `hash()` is salted per process and never used.
"""

from __future__ import annotations

import random
from typing import TypeVar

SEED_BITS = 63
T = TypeVar("T")


def derive_seed(root: int | str, *labels: object) -> int:
    """Return a stable child seed for `root` and the given labels (round, table, ...)."""
    key = ":".join([str(root), *(str(label) for label in labels)])
    return random.Random(key).getrandbits(SEED_BITS)


def new_rng(seed: int) -> random.Random:
    """Return a private generator; engines never touch the global `random` module."""
    return random.Random(seed)


def shuffle(rng: random.Random, items: list[T]) -> None:
    """Shuffle `items` in place exactly as `rng.shuffle(items)` does: the same draws from
    `rng`, the same order after. CPython's shuffle calls `_randbelow` once per item; this is
    its loop with that call inlined, which halves the cost (timeit, 68 cards: 10.3 -> 5.4 us;
    8 characters: 1.4 -> 0.9 us): a machiavelli game's deck and its rounds' character
    shuffles. A subclass of `random.Random` may draw otherwise, so it gets its own shuffle."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        # `Random._randbelow_with_getrandbits(i + 1)`: k bits, drawn again while too large
        below = i + 1
        bits = below.bit_length()
        j = getrandbits(bits)
        while j >= below:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


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
