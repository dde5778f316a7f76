"""The lanes' PCG64 draws in compiled code against numpy's own generator."""

from __future__ import annotations

import numpy as np
from gymnasium.utils import seeding
from hypothesis import given, settings
from hypothesis import strategies as st

from escaramuza.envs.common import battle_seeds
from escaramuza.envs.lane_seeds import (
    STATE_WORDS,
    draw_seeds,
    load_state,
    next_raw,
    store_state,
)
from escaramuza.envs.vector import KernelVectorEnv
from escaramuza.rules.core import mt

U128 = st.integers(0, (1 << 128) - 1)


def _generator(state: int, inc: int) -> np.random.Generator:
    rng = np.random.Generator(np.random.PCG64(0))
    full = rng.bit_generator.state
    full["state"] = {"state": state, "inc": inc}
    rng.bit_generator.state = full
    return rng


@settings(max_examples=200, deadline=None)
@given(state=U128, inc=U128)
def test_next_raw_is_numpys_pcg64_word_for_word(state: int, inc: int) -> None:
    # numpy keeps the increment odd; any state, carries and rotations included.
    inc |= 1
    rng = _generator(state, inc)
    row = np.zeros(STATE_WORDS, dtype=np.uint64)
    load_state(row, rng)
    expected = rng.bit_generator.random_raw(8).tolist()
    assert [int(next_raw(row)) for _ in range(8)] == expected
    # The row's state is the generator's after the same draws.
    back = _generator(0, 1)
    store_state(row, back)
    assert back.bit_generator.state["state"] == rng.bit_generator.state["state"]


def test_draw_seeds_are_battle_seeds_and_their_key_words() -> None:
    n = 5
    generators = [seeding.np_random(s)[0] for s in (0, 1, 2**40, 7, 123456789)]
    twins = [seeding.np_random(s)[0] for s in (0, 1, 2**40, 7, 123456789)]
    states = np.zeros((n, STATE_WORDS), dtype=np.uint64)
    for b, rng in enumerate(generators):
        assert type(rng.bit_generator) is np.random.PCG64
        load_state(states[b], rng)
    lanes = np.array([True, False, True, True, True])
    seeds = np.zeros((n, 2), dtype=np.uint64)
    dice_keys = np.zeros((n, 2), dtype=np.uint32)
    agent_keys = np.zeros((n, 2), dtype=np.uint32)
    dice_len = np.zeros(n, dtype=np.int64)
    agent_len = np.zeros(n, dtype=np.int64)
    for _ in range(3):
        draw_seeds(lanes, states, seeds, (dice_keys, dice_len, agent_keys, agent_len))
        for b in np.flatnonzero(lanes).tolist():
            dice, agents = battle_seeds(twins[b])
            assert seeds[b].tolist() == [dice, agents]
            keys, lengths = mt.int_keys(np.array([dice, agents], dtype=np.uint64))
            assert dice_keys[b, : dice_len[b]].tolist() == keys[0, : lengths[0]].tolist()
            assert agent_keys[b, : agent_len[b]].tolist() == keys[1, : lengths[1]].tolist()
    # A lane not drawn keeps its state: its generator's first draw is still to come.
    assert seeds[1].tolist() == [0, 0]
    row = np.zeros(STATE_WORDS, dtype=np.uint64)
    load_state(row, generators[1])
    assert row.tolist() == states[1].tolist()


def test_a_lanes_generator_handed_out_keeps_its_stream() -> None:
    # A caller who draws from a lane's generator between battles moves the lane's
    # stream exactly as the Python env's np_random would be moved.
    vec = KernelVectorEnv(
        "destiny_dice", 2, scenario="destiny_dice/emboscada", illegal_action="noop"
    )
    twin = seeding.np_random(11)[0]
    vec.reset(seed=[11, 12])
    assert vec.dice_seeds[0] == battle_seeds(twin)[0]
    rng = vec.battle_generator(0)
    assert rng.integers(0, 100) == twin.integers(0, 100)
    vec.restart(np.array([True, False]))
    assert vec.dice_seeds[0] == battle_seeds(twin)[0]
    vec.restart(np.array([True, False]))
    assert vec.dice_seeds[0] == battle_seeds(twin)[0]
    # The generator object follows the draws made in the compiled rows.
    assert vec.battle_generator(0).bit_generator.state == twin.bit_generator.state
    vec.close()
