"""The fast path's generator is CPython's random.Random, draw for draw (architecture.md,
"The fast path": one dice stream on both engines)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from escaramuza.rules.core import mt
from escaramuza.rules.core.dice import RandomRoller

SEEDS = [0, 1, 2, 7, 123456789, 2**32 - 1, 2**32, 2**40 + 5, 2**63 - 1]


def seeded(seed: int) -> np.ndarray:
    state = mt.new_state()
    mt.seed_int(state, seed)
    return state


@pytest.mark.parametrize("seed", SEEDS)
def test_seeding_an_int_gives_random_randoms_state(seed: int) -> None:
    assert np.array_equal(seeded(seed), mt.state_from_random(random.Random(seed)))


@pytest.mark.parametrize("seed", [0, 5, "escaramuza-agents-1", "escaramuza-agents-None", b"x"])
def test_seeding_a_key_gives_random_randoms_state(seed: int | str | bytes) -> None:
    state = mt.new_state()
    mt.seed_key(state, mt.key_of(seed))
    assert np.array_equal(state, mt.state_from_random(random.Random(seed)))


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_every_draw_matches_random_random(seed: int) -> None:
    # Past several refills of the 624 words, with every draw kind interleaved.
    py, state = random.Random(seed), seeded(seed)
    ks = [1, 2, 3, 5, 8, 13, 31, 32, 33, 40, 63]
    ns = [1, 2, 3, 4, 6, 7, 8, 10, 12, 20, 100, 1000, 2**31 - 1, 2**40 + 3]
    for i in range(3000):
        k, n = ks[i % len(ks)], ns[i % len(ns)]
        assert mt.getrandbits(state, k) == py.getrandbits(k)
        assert mt.randbelow(state, n) == py.randrange(n)
        assert mt.random_float(state) == py.random()
    assert np.array_equal(state, mt.state_from_random(py))


def test_dice_match_the_engines_roller_and_state_round_trips() -> None:
    roller = RandomRoller(42)
    state = mt.state_from_random(random.Random(42))
    for sides in [4, 6, 8, 10, 12, 20, 100] * 200:
        assert mt.roll(state, sides) == roller.roll(sides)
    back = mt.state_to_random(state)
    assert back.getrandbits(32) == roller._rng.getrandbits(32)
