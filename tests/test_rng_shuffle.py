"""`arena.core.rng.shuffle` draws exactly as `random.Random.shuffle`: games depend on it."""

from __future__ import annotations

import random

import pytest

from arena.core.rng import shuffle


@pytest.mark.parametrize("length", [0, 1, 2, 3, 7, 8, 9, 16, 17, 33, 68, 129])
def test_the_same_order_and_the_same_generator_after(length: int) -> None:
    for seed in range(30):
        ours, theirs = random.Random(seed), random.Random(seed)
        mine, reference = list(range(length)), list(range(length))
        for _ in range(3):  # again from where the generator was left
            shuffle(ours, mine)
            theirs.shuffle(reference)
            assert mine == reference
            assert ours.getstate() == theirs.getstate()


class _Halves(random.Random):
    """A generator whose own `random` makes `Random` draw integers without getrandbits."""

    def random(self) -> float:
        return super().random() / 2


def test_a_subclass_keeps_its_own_shuffle() -> None:
    ours, theirs = _Halves(5), _Halves(5)
    mine, reference = list(range(50)), list(range(50))
    shuffle(ours, mine)
    theirs.shuffle(reference)
    assert mine == reference
    plain = list(range(50))
    random.Random(5).shuffle(plain)
    assert mine != plain  # the subclass did draw otherwise: the test can tell
