"""The fast path's generator is CPython's random.Random, draw for draw (architecture.md,
"The fast path": one dice stream on both engines)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from escaramuza.rules.core import mt
from escaramuza.rules.core.dice import RandomRoller

pytestmark = pytest.mark.compile

SEEDS = [0, 1, 2, 7, 123456789, 2**32 - 1, 2**32, 2**40 + 5, 2**63 - 1]


def seeded(seed: int) -> np.ndarray:
    """The state an int seed gives through the kernels' path: seed_keys' words (split by
    numpy), then seed_key."""
    keys, lengths = mt.seed_keys([seed])
    state = mt.new_state()
    mt.seed_key(state, keys[0, : lengths[0]])
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


def test_init_by_arrays_start_is_init_genrand_19650218() -> None:
    # random.Random seeds init_genrand(19650218) before mixing in the key: seeding with a
    # key that mixes in nothing is impossible, so check the table against the C
    # recurrence written out independently, word by word.
    table = mt._INIT_BY_ARRAY_START
    word = 19650218
    assert int(table[0]) == word
    for i in range(1, mt.N):
        word = (1812433253 * (word ^ (word >> 30)) + i) % 2**32
        assert int(table[i]) == word
    assert int(table[mt.N]) == mt.N


@pytest.mark.parametrize("words", [1, 2, 5, 700])
def test_keys_of_every_length_seed_as_random_random(words: int) -> None:
    # The key loop runs max(624, len(key)) times: a key longer than the state wraps.
    raw = random.Random(words).randbytes(4 * words)
    seed = int.from_bytes(raw, "little") | 1 << (32 * words - 1)
    state = mt.new_state()
    mt.seed_key(state, mt.key_of(seed))
    assert np.array_equal(state, mt.state_from_random(random.Random(seed)))


def test_agent_keys_are_the_agent_streams_seeds() -> None:
    """``agent_keys`` reads the words of the agents' ``random.Random(AGENT_SEED.format(s))``
    from the bytes; they must be ``key_of``'s, and seed the same generator as
    ``agents.runner.agent_rng`` — for seeds of every digit count in one padded array."""
    from escaramuza.agents.runner import agent_rng

    seeds = [0, 1, 9, 10, 99, 12345, 2**31, 2**40 + 3, 2**63 - 1]
    keys, lengths = mt.agent_keys(seeds)
    assert keys.shape == (len(seeds), max(lengths))
    for j, seed in enumerate(seeds):
        want = mt.key_of(f"escaramuza-agents-{seed}")
        assert lengths[j] == len(want)
        assert keys[j, : lengths[j]].tolist() == want.tolist()
        assert not keys[j, lengths[j] :].any()
        state = mt.new_state()
        mt.seed_key(state, keys[j, : lengths[j]])
        rng = agent_rng(seed)
        assert [mt.randbelow(state, 7) for _ in range(5)] == [rng.randrange(7) for _ in range(5)]
    empty, no_lengths = mt.agent_keys([])
    assert empty.shape[0] == 0 and no_lengths.size == 0


def test_seed_keys_are_key_of_for_ints_and_strs() -> None:
    for seeds in ([0, 1, 2**32 - 1, 2**32, 2**63 - 1], [5, "x", 2**70, b"y"]):
        keys, lengths = mt.seed_keys(seeds)
        for j, seed in enumerate(seeds):
            want = mt.key_of(seed)
            assert keys[j, : lengths[j]].tolist() == want.tolist()
            assert not keys[j, lengths[j] :].any()


@pytest.mark.parametrize("n", [1, 5, 8, 19])
def test_seeded_lanes_are_random_randoms_states(n: int) -> None:
    # Side by side where the keys have one length (eight, or a chunk's tail); one by one
    # for mixed lengths: random.Random's state either way.
    seeds = [random.Random(n).randrange(2**32) for _ in range(n)]
    if n == 19:
        seeds[9] = 2**40 + 7  # a two-word key in the second group
    lanes = mt.new_state(mt.LANES)
    keys, lens = mt.seed_keys(seeds)
    for start in range(0, n, mt.LANES):
        lanes[:] = 12345  # whatever the lanes held before
        mt.seed_lanes(lanes, keys, lens, start)
        for lane in range(min(mt.LANES, n - start)):
            want = mt.state_from_random(random.Random(seeds[start + lane]))
            assert np.array_equal(lanes[lane], want), (start, lane)


def test_seeding_a_longer_array_writes_only_the_state() -> None:
    # The Cairn kernel keeps an agents' key after the generator's words in one array.
    state = np.full(mt.STATE_SIZE + 5, 7, dtype=np.uint32)
    mt.seed_key(state, mt.key_of(11))
    assert np.array_equal(state[: mt.STATE_SIZE], mt.state_from_random(random.Random(11)))
    assert (state[mt.STATE_SIZE :] == 7).all()
