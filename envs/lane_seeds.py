"""The batched env's lanes' battle seeds, drawn in compiled code.

Each lane of :class:`~escaramuza.envs.vector.KernelVectorEnv` draws its battles' seeds
from its own ``np.random.Generator`` as :func:`~escaramuza.envs.common.battle_seeds`
does (two raw 64-bit words of the generator's PCG64, each shifted right by two). A
batched env starts many battles per step: drawing them through the generators costs
a Python call per lane, about a tenth of a 256-lane step. Here every lane's PCG64
state is four words of one array, ``(state high, state low, increment high, increment
low)``, advanced by :func:`draw_seeds` exactly as numpy's PCG64 advances
(``state = state * MULTIPLIER + increment`` modulo 2**128, output XSL-RR: the two
halves xor-ed, rotated right by the state's top six bits); a test pins the words
against numpy's ``random_raw``. :func:`load_state` and :func:`store_state` move a
state between a generator and its row, so the lane's generator object stays the one
a caller sees.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from escaramuza.rules.core.jit import njit

#: Words of a lane's state: the 128-bit state and the 128-bit increment, high word first.
STATE_WORDS = 4
_MASK64 = (1 << 64) - 1
#: numpy's PCG64 multiplier (PCG_DEFAULT_MULTIPLIER_128), high and low words.
MULT_HIGH = np.uint64(0x2360ED051FC65DA4)
MULT_LOW = np.uint64(0x4385DF649FCCF645)
_LOW32 = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)
_58 = np.uint64(58)
_64 = np.uint64(64)
_2 = np.uint64(2)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


def load_state(row: np.ndarray, generator: np.random.Generator) -> None:
    """``generator``'s PCG64 state into ``row`` (four words)."""
    inner = generator.bit_generator.state["state"]
    state, inc = int(inner["state"]), int(inner["inc"])
    row[0], row[1] = state >> 64, state & _MASK64
    row[2], row[3] = inc >> 64, inc & _MASK64


def store_state(row: np.ndarray, generator: np.random.Generator) -> None:
    """``row``'s state into ``generator`` (its other fields kept: a raw draw never
    reads or writes the buffered 32-bit half)."""
    full = dict(generator.bit_generator.state)
    full["state"] = {
        "state": (int(row[0]) << 64) | int(row[1]),
        "inc": (int(row[2]) << 64) | int(row[3]),
    }
    generator.bit_generator.state = full


@njit(cache=True, _nrt=False)
def _mul_high(a: np.uint64, b: np.uint64) -> np.uint64:
    """The high 64 bits of the 128-bit product ``a * b``."""
    a_lo, a_hi = a & _LOW32, a >> _32
    b_lo, b_hi = b & _LOW32, b >> _32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> _32) + (hi_lo & _LOW32) + lo_hi
    return hi_hi + (hi_lo >> _32) + (cross >> _32)


@njit(cache=True, _nrt=False)
def next_raw(state: np.ndarray) -> np.uint64:
    """One raw 64-bit word of the PCG64 ``state`` (four words, advanced in place)."""
    high, low = state[0], state[1]
    new_low = low * MULT_LOW
    new_high = _mul_high(low, MULT_LOW) + high * MULT_LOW + low * MULT_HIGH
    summed = new_low + state[3]
    carry = _ONE if summed < new_low else _ZERO
    new_high = new_high + state[2] + carry
    state[0] = new_high
    state[1] = summed
    value = new_high ^ summed
    rot = new_high >> _58
    return (value >> rot) | (value << ((_64 - rot) & np.uint64(63)))


@njit(cache=True, _nrt=False)
def seed_words(lanes: np.ndarray, seeds: np.ndarray, words: Any) -> None:
    """Every lane ``b`` with ``lanes[b]``: the key words of its dice seed ``seeds[b, 0]``
    and of its agents' seed ``seeds[b, 1]`` (each below 2**63: ``rules.core.mt.int_keys``,
    the low word, then the high one if it is not zero) into ``words``: ``(dice keys,
    their lengths, agents' keys, their lengths)``, one row a lane."""
    for b in range(lanes.shape[0]):
        if not lanes[b]:
            continue
        for j in range(2):
            keys = words[0] if j == 0 else words[2]
            lengths = words[1] if j == 0 else words[3]
            seed = seeds[b, j]
            high = seed >> _32
            keys[b, 0] = seed & _LOW32
            keys[b, 1] = high
            lengths[b] = 2 if high > _ZERO else 1


@njit(cache=True, _nrt=False)
def draw_seeds(lanes: np.ndarray, states: np.ndarray, seeds: np.ndarray, words: Any) -> None:
    """Every lane ``b`` with ``lanes[b]``: its next battle's dice and agents' seeds
    (``battle_seeds``: two raw words of its generator ``states[b]``, each shifted right
    by two) into ``seeds[b]``, and their key words (:func:`seed_words`)."""
    for b in range(lanes.shape[0]):
        if lanes[b]:
            seeds[b, 0] = next_raw(states[b]) >> _2
            seeds[b, 1] = next_raw(states[b]) >> _2
    seed_words(lanes, seeds, words)
