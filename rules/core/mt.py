"""The one dice stream of the fast path: CPython's Mersenne Twister, compiled.

architecture.md, "The fast path": the engine and a compiled kernel draw every die and
every agent tie-break from the same generator in the same order, so one seed gives one
battle on both. The engine's generator is :class:`random.Random` (MT19937: the dice of
:class:`~escaramuza.rules.core.dice.RandomRoller`, the agents' choices of
``agents.runner.agent_rng``). Rather than move both to a new generator — which would
give every seed a new battle and void every figure measured so far — the kernels run
the *same* generator: this module is MT19937 exactly as CPython implements it
(``Modules/_randommodule.c``), over a ``uint32[625]`` array (624 words, then the index),
with ``random.Random``'s own draws on top (``getrandbits``, ``randrange(n)`` through
``_randbelow``, ``random()``). Tests compare every draw with ``random.Random``.

A state array round-trips with ``random.Random.getstate()``/``setstate()``
(:func:`state_from_random`, :func:`state_to_random`), so a kernel can take over an
engine battle mid-way and hand it back.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.kernel import AGENT_SEED

N = 624
M = 397
MATRIX_A = np.uint32(0x9908B0DF)
UPPER_MASK = np.uint32(0x80000000)
LOWER_MASK = np.uint32(0x7FFFFFFF)
#: Length of a state array: the 624 words and the index of the next one.
STATE_SIZE = N + 1


def new_state(rows: int | None = None) -> np.ndarray:
    """An unseeded state array (seed it with :func:`seed_key`), or ``rows`` of them
    (:data:`LANES` rows for :func:`seed_lanes`)."""
    shape = STATE_SIZE if rows is None else (rows, STATE_SIZE)
    return np.zeros(shape, dtype=np.uint32)


def state_from_random(rng: random.Random) -> np.ndarray:
    """The state array of ``rng`` (the same generator, at the same point)."""
    version, internal, gauss = rng.getstate()
    if version != 3 or gauss is not None:
        # random.Random.gauss caches a second normal deviate; no battle draws one.
        raise ValueError("only a version-3 random.Random state without a gauss cache")
    return np.array(internal, dtype=np.uint32)


def state_to_random(state: np.ndarray, rng: random.Random | None = None) -> random.Random:
    """``rng`` (a new one if None) set to the point ``state`` is at."""
    out = rng if rng is not None else random.Random()
    out.setstate((3, tuple(int(x) for x in state), None))
    return out


def _init_genrand(s: int) -> np.ndarray:
    """``init_genrand(s)`` of _randommodule.c, as a state array (computed once, in Python)."""
    words = [s]
    for i in range(1, N):
        prev = words[-1]
        words.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return np.array([*words, N], dtype=np.uint32)


#: ``init_by_array`` starts from ``init_genrand(19650218)`` whatever the key: a constant,
#: copied rather than recomputed (a third of a seeding: 624 dependent multiplications).
_INIT_BY_ARRAY_START = _init_genrand(19650218)


@njit(cache=True, _nrt=False)
def seed_key(state: np.ndarray, key: np.ndarray) -> None:
    """``init_by_array(key)``: what ``random.Random(seed)`` does with the seed's 32-bit
    words (least significant first): :func:`_init_by_array` with one lane. ``state``
    may be longer (a kernel keeps the key after it): only its first words are written."""
    _init_by_array(
        state[:STATE_SIZE].reshape(1, STATE_SIZE), key.reshape(1, key.shape[0]), 0, key.shape[0], 1
    )


#: Generators :func:`seed_lanes` seeds at once (a kernel's battles of a chunk, in turn),
#: the rows of a ``(LANES, STATE_SIZE)`` uint32 array.
LANES = 8


@njit(cache=True, _nrt=False)
def seed_lanes(lanes: np.ndarray, keys: np.ndarray, lens: np.ndarray, start: np.int64) -> None:
    """``seed_key(lanes[l], keys[start + l, :lens[start + l]])`` for the :data:`LANES`
    seeds from ``start`` (fewer at the end of ``keys``).

    ``init_by_array`` is 1,247 steps, each waiting on the one before (a multiplication
    of the previous word): one seeding leaves most of the processor idle. Eight seedings
    step by step side by side keep it busy — about 1.1 µs a generator instead of 2.4,
    the same words (tests compare every lane with ``random.Random``). Fewer than eight
    (a chunk's tail, the few battles a batched step begins) go side by side too: a
    seeding waits on its own chain either way. Keys of different lengths are seeded one
    by one."""
    count = min(LANES, keys.shape[0] - start)
    n_key = lens[start] if count > 0 else 0
    same = count > 1
    for lane in range(1, count):
        if lens[start + lane] != n_key:
            same = False
    if not same:
        for lane in range(count):
            _init_by_array(lanes[lane:], keys, start + lane, lens[start + lane], 1)
    elif count == LANES:
        # A constant count: the compiler unrolls the eight chains (a third faster than
        # the same loop over a count it does not know).
        _init_by_array(lanes, keys, start, n_key, LANES)
    else:
        _init_by_array(lanes, keys, start, n_key, count)


@njit(cache=True, _nrt=False)
def _init_by_array(
    lanes: np.ndarray, keys: np.ndarray, start: np.int64, n_key: np.int64, count: np.int64
) -> None:
    """CPython's ``init_by_array`` for the first ``count`` rows of ``lanes`` at once, row
    ``l`` keyed by ``keys[start + l]`` (all ``n_key`` words long), step by step side by
    side. uint32 arithmetic wraps modulo 2**32 as the C code's ``& 0xffffffff`` does."""
    for lane in range(count):
        for w in range(N + 1):
            lanes[lane, w] = _INIT_BY_ARRAY_START[w]
    i = 1
    j = 0
    k = N if N > n_key else n_key
    while k > 0:
        for lane in range(count):
            prev = lanes[lane, i - 1]
            lanes[lane, i] = (
                (lanes[lane, i] ^ ((prev ^ (prev >> np.uint32(30))) * np.uint32(1664525)))
                + keys[start + lane, j]
                + np.uint32(j)
            )
        i += 1
        j += 1
        if i >= N:
            for lane in range(count):
                lanes[lane, 0] = lanes[lane, N - 1]
            i = 1
        if j >= n_key:
            j = 0
        k -= 1
    k = N - 1
    while k > 0:
        for lane in range(count):
            prev = lanes[lane, i - 1]
            lanes[lane, i] = (
                lanes[lane, i] ^ ((prev ^ (prev >> np.uint32(30))) * np.uint32(1566083941))
            ) - np.uint32(i)
        i += 1
        if i >= N:
            for lane in range(count):
                lanes[lane, 0] = lanes[lane, N - 1]
            i = 1
        k -= 1
    for lane in range(count):
        lanes[lane, 0] = np.uint32(0x80000000)
        lanes[lane, N] = N


def key_of(seed: int | str | bytes) -> np.ndarray:
    """The 32-bit key words ``random.Random(seed)`` seeds with, for any int, str or bytes
    seed (CPython's version-2 seeding: a str is ``seed + sha512(seed)`` as one integer)."""
    if isinstance(seed, (str, bytes, bytearray)):
        from hashlib import sha512

        raw = seed.encode() if isinstance(seed, str) else bytes(seed)
        seed = int.from_bytes(raw + sha512(raw).digest(), "big")
    n = abs(int(seed))
    words = [0] if n == 0 else []
    while n:
        words.append(n & 0xFFFFFFFF)
        n >>= 32
    return np.array(words, dtype=np.uint32)


def seed_keys(seeds: Sequence[int | str]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`key_of` of every seed (``random.Random(seed)``'s key words), as the rows of
    one zero-padded array, and each row's length in words. Non-negative ints below 2**63
    (every battle and rollout seed) are split into words by numpy, a chunk at once."""
    if seeds and all(type(s) is int and 0 <= s < 1 << 63 for s in seeds):
        return int_keys(np.array(seeds, dtype=np.uint64))
    words = [key_of(s) for s in seeds]
    width = max([len(w) for w in words] + [1])
    out = np.zeros((len(words), width), dtype=np.uint32)
    lengths = np.zeros(len(words), dtype=np.int64)
    for i, w in enumerate(words):
        out[i, : len(w)] = w
        lengths[i] = len(w)
    return out, lengths


def int_keys(seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`seed_keys` of an array of seeds below 2**63 (uint64): each one's key words
    (the low word, then the high one if it is not zero) and their count."""
    high = seeds >> np.uint64(32)
    out = np.empty((len(seeds), 2), dtype=np.uint32)
    out[:, 0] = seeds & np.uint64(0xFFFFFFFF)
    out[:, 1] = high
    return out, np.where(high > 0, 2, 1).astype(np.int64)


def agent_keys(seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`key_of` of every seed's agents' generator (:data:`AGENT_SEED`), as the rows
    of one zero-padded array, and each row's length in words.

    CPython seeds a str with the integer ``raw + sha512(raw)`` (big-endian bytes); its
    32-bit words, least significant first, are those bytes reversed and read as
    little-endian words. The text starts with ``e``, so the top word is never zero and
    the length is the byte count / 4 rounded up. Built as one byte string: a numpy call
    per seed cost more than a short battle on a kernel (tests compare with key_of)."""
    from hashlib import sha512

    blobs = []
    for s in seeds:
        raw = AGENT_SEED.format(s).encode()
        blobs.append((raw + sha512(raw).digest())[::-1])
    lens = np.array([(len(b) + 3) // 4 for b in blobs], dtype=np.int64)
    width = int(lens.max()) if blobs else 1
    data = b"".join(b.ljust(4 * width, b"\0") for b in blobs)
    keys = np.frombuffer(data, dtype="<u4").reshape(len(blobs), width).astype(np.uint32)
    return keys, lens


@njit(cache=True, _nrt=False)
def genrand_uint32(state: np.ndarray) -> np.uint32:
    """The next 32-bit word (``genrand_uint32`` of CPython's _randommodule.c)."""
    mti = state[N]
    if mti >= N:
        for kk in range(N - M):
            y = (state[kk] & UPPER_MASK) | (state[kk + 1] & LOWER_MASK)
            state[kk] = state[kk + M] ^ (y >> np.uint32(1)) ^ (MATRIX_A if y & 1 else np.uint32(0))
        for kk in range(N - M, N - 1):
            y = (state[kk] & UPPER_MASK) | (state[kk + 1] & LOWER_MASK)
            state[kk] = (
                state[kk + (M - N)] ^ (y >> np.uint32(1)) ^ (MATRIX_A if y & 1 else np.uint32(0))
            )
        y = (state[N - 1] & UPPER_MASK) | (state[0] & LOWER_MASK)
        state[N - 1] = state[M - 1] ^ (y >> np.uint32(1)) ^ (MATRIX_A if y & 1 else np.uint32(0))
        mti = 0
    y = state[mti]
    state[N] = mti + 1
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


@njit(cache=True, _nrt=False)
def getrandbits(state: np.ndarray, k: np.int64) -> np.int64:
    """``random.Random.getrandbits(k)`` for 1 <= k <= 63 (words filled least
    significant first; the last word keeps its high bits, as CPython does)."""
    if k <= 32:
        return np.int64(genrand_uint32(state) >> np.uint32(32 - k))
    low = np.int64(genrand_uint32(state))
    high = np.int64(genrand_uint32(state) >> np.uint32(64 - k))
    return (high << 32) | low


@njit(cache=True, _nrt=False)
def bit_length(n: np.int64) -> int:
    k = 0
    while n > 0:
        k += 1
        n >>= 1
    return k


@njit(cache=True, _nrt=False)
def randbelow(state: np.ndarray, n: np.int64) -> np.int64:
    """``random.Random._randbelow(n)`` = ``randrange(n)`` for n >= 1: a rejection loop on
    ``getrandbits(n.bit_length())``."""
    k = bit_length(n)
    r = getrandbits(state, k)
    while r >= n:
        r = getrandbits(state, k)
    return r


@njit(cache=True, _nrt=False)
def roll(state: np.ndarray, sides: np.int64) -> np.int64:
    """One die of ``sides`` faces, as :meth:`RandomRoller.roll` draws it."""
    return randbelow(state, sides) + 1


@njit(cache=True, _nrt=False)
def random_float(state: np.ndarray) -> float:
    """``random.Random.random()``: 53 bits from two words."""
    a = genrand_uint32(state) >> np.uint32(5)
    b = genrand_uint32(state) >> np.uint32(6)
    return (np.float64(a) * 67108864.0 + np.float64(b)) * (1.0 / 9007199254740992.0)
