"""One battle → one compact record: what the statistics read, not the event log.

Battle ``i`` of a run with seed ``S`` is played with the integer seed
``SeedSequence(S).spawn(n)[i].generate_state(1)[0]`` (:func:`battle_seed`), whatever
process plays it (architecture.md, "Determinism and seeds"). The engine's records come
from :func:`record_battle`; the compiled kernels' chunks become the same records through
:func:`records_from_columns` (docs/fast-path.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.events import Damaged, Event, RoundStarted, StatusChanged
from escaramuza.rules.core.kernel import WINNERS, BattleColumns
from escaramuza.rules.core.model import Side, Status
from escaramuza.rules.core.state import BattleState

#: Statuses that mean "knocked out".
KNOCKED_OUT = frozenset({Status.DOWN.value, Status.DEFEATED.value, Status.DEAD.value})
#: ``ko_round`` of a combatant never knocked out in a battle.
NEVER = -1


@dataclass(frozen=True, slots=True)
class CombatantRecord:
    """What one battle did to one combatant. Damage is in the ruleset's own units
    (PV, heridas, FUE…), summed over every resource its ``Damaged`` events name."""

    ko_round: int  # round of the first knock-out, NEVER if it stayed up
    died: bool
    dealt: int  # damage this combatant caused (any target)
    dealt_to_foes: int  # of which to the other side
    taken: int


@dataclass(frozen=True, slots=True)
class BattleRecord:
    """One battle, compactly: what the statistics need, not the event log."""

    index: int
    seed: int
    winner: str | None
    reason: str
    rounds: int
    wipe: bool
    combatants: tuple[CombatantRecord, ...]  # scenario order


def battle_seed(seed: int, index: int) -> int:
    """The integer seed of battle ``index``: child ``index`` of ``SeedSequence(seed).spawn``.

    ``SeedSequence(seed, spawn_key=(i,))`` is exactly the i-th spawned child, so a
    worker derives its seeds without the parent spawning (and shipping) all n. (numpy's
    own class is the definition; :func:`battle_seeds` computes a whole range at once.)
    """
    child = np.random.SeedSequence(seed, spawn_key=(index,))
    return int(child.generate_state(1)[0])


# numpy's SeedSequence constants (numpy/random/bit_generator.pyx).
_POOL = 4
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_MASK = 0xFFFFFFFF


def battle_seeds(seed: int, start: int, stop: int) -> list[int]:
    """``[battle_seed(seed, i) for i in range(start, stop)]``, computed for the whole range
    at once: a kernel plays a small battle in a few microseconds, and one
    ``SeedSequence`` per battle cost about as much (docs/fast-path.md).

    The child ``SeedSequence(seed, spawn_key=(i,))`` mixes the same run entropy as
    ``SeedSequence(seed)`` (its public ``pool``), then the spawn word ``i`` into each
    pool word; ``generate_state(1)`` reads only the first. So every child's seed is the
    first pool word mixed with ``hashmix(i)`` at the hash constant the run entropy left,
    then hashed once: the same uint32 arithmetic, vectorised over ``i``. A test compares
    it with numpy's own ``SeedSequence`` over many seeds and indices."""
    if start < 0 or stop > 1 << 32:
        raise ValueError(f"battle indices {start}…{stop - 1}: out of 0…2**32 - 1")
    if stop <= start:
        return []
    base = np.random.SeedSequence(seed)
    run_words = max(1, (int(seed).bit_length() + 31) // 32)
    # hashmix calls before the spawn word: the pool's first fill, the all-pairs mixing,
    # then each run word past the pool into every pool word.
    calls = _POOL + _POOL * (_POOL - 1) + max(0, run_words - _POOL) * _POOL
    before = _INIT_A * pow(_MULT_A, calls, 1 << 32) & _MASK
    after = before * _MULT_A & _MASK
    # hashmix(i): xor with the constant, the constant multiplied, the value multiplied
    # by it, then folded (all mod 2**32; the products fit in uint64).
    index = np.arange(start, stop, dtype=np.uint64)
    value = ((index ^ np.uint64(before)) * np.uint64(after)) & np.uint64(_MASK)
    value ^= value >> np.uint64(16)
    # mix(pool[0], hashmix(i)); then generate_state's one word.
    left = np.uint64(_MIX_L * int(base.pool[0]) & _MASK)
    word = (left - value * np.uint64(_MIX_R)) & np.uint64(_MASK)
    word ^= word >> np.uint64(16)
    out = ((word ^ np.uint64(_INIT_B)) * np.uint64(_INIT_B * _MULT_B & _MASK)) & np.uint64(_MASK)
    out ^= out >> np.uint64(16)
    return [int(x) for x in out]


def records_from_columns(
    start: int, seeds: Sequence[int], columns: BattleColumns
) -> list[BattleRecord]:
    """Battles ``start``, ``start + 1``… of a kernel's chunk as records, field for field
    what :func:`record_battle` gives for the same battles on the engine.

    Built column by column: each distinct combatant row (ko round, death, damage dealt,
    to foes, taken) becomes one shared :class:`CombatantRecord` (frozen, so sharing is
    safe, and a pickled chunk carries each once), and the rest is one ``tolist`` per
    column — per-battle Python was most of what a small battle cost on the fast path."""
    n = len(seeds)
    if columns.winner.shape != (n,) or columns.ko_round.shape[0] != n:
        raise EscaramuzaError(
            f"the kernel returned {columns.winner.shape[0]} battles for {n} seeds"
        )
    if n == 0:
        return []
    combatants = columns.ko_round.shape[1]
    rows = (
        np.stack(
            [columns.ko_round, columns.died, columns.dealt, columns.dealt_to_foes, columns.taken],
            axis=2,
        )
        .astype(np.int64)
        .reshape(-1, 5)
    )
    codes = _row_codes(rows)
    # Never None for real counts; numpy's row-wise unique (ten times slower) is exact too.
    first, inverse = _first_and_index(rows if codes is None else codes)
    people = [
        CombatantRecord(ko, bool(died), dealt, to_foes, taken)
        for ko, died, dealt, to_foes, taken in rows[first].tolist()
    ]
    person = people.__getitem__
    per_battle = inverse.reshape(n, combatants)
    # A small battle's whole line-up of rows repeats too (a duel's few hundred
    # outcomes): each distinct line-up becomes one shared tuple when the line-ups fit
    # one integer each; a big battle's are mostly distinct, built battle by battle.
    codes = _row_codes(per_battle)
    if codes is None:
        line_ups = [tuple(map(person, row)) for row in per_battle.tolist()]
    else:
        first_battle, which = _first_and_index(codes)
        shared = [tuple(map(person, row)) for row in per_battle[first_battle].tolist()]
        line_ups = list(map(shared.__getitem__, which.tolist()))
    winners = map(WINNERS.__getitem__, columns.winner.tolist())
    reasons = map(columns.reasons.__getitem__, columns.reason.tolist())
    return [
        BattleRecord(index, seed, winner, reason, rounds, wipe, line_up)
        for index, seed, winner, reason, rounds, wipe, line_up in zip(
            range(start, start + n),
            seeds,
            winners,
            reasons,
            columns.rounds.tolist(),
            columns.wipe.astype(np.bool_).tolist(),
            line_ups,
            strict=True,
        )
    ]


def _row_codes(rows: np.ndarray) -> np.ndarray | None:
    """Each row of an int64 matrix as one mixed-radix integer (equal rows, equal codes),
    or None when the columns' ranges do not fit 62 bits. numpy then sorts integers: its
    row-wise ``unique(axis=0)`` sorts opaque bytes, ten times slower — as slow as the
    battles on a kernel."""
    low = rows.min(axis=0)
    spans = [int(x) for x in rows.max(axis=0) - low + 1]
    if math.prod(spans) >= 1 << 62:
        return None
    weights = np.array([math.prod(spans[:i]) for i in range(len(spans))], dtype=np.int64)
    return (rows - low) @ weights  # type: ignore[no-any-return]


def _first_and_index(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of the first of each distinct value, each one's distinct index) of a 1-d
    array, or of the rows of a 2-d one."""
    axis = 0 if values.ndim == 2 else None
    _, first, inverse = np.unique(values, axis=axis, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def record_battle(index: int, seed: int, state: BattleState) -> BattleRecord:
    """Reduce a finished battle's event log to a :class:`BattleRecord`."""
    outcome = state.outcome
    if outcome is None:
        raise EscaramuzaError(f"{state.scenario.name}: battle {index} did not finish")
    start = state.scenario.combatants
    return record_from_events(
        [c.id for c in start],
        [c.side for c in start],
        [c.status.value for c in start],
        state.log,
        index=index,
        seed=seed,
        winner=outcome.winner.value if outcome.winner else None,
        reason=outcome.reason,
        rounds=outcome.rounds,
        final=[c.status.value for c in state.combatants],
    )


def record_from_events(
    ids: Sequence[str],
    sides: Sequence[Side],
    initial: Sequence[str],
    events: Sequence[Event],
    *,
    index: int,
    seed: int,
    winner: str | None,
    reason: str,
    rounds: int,
    final: Sequence[str] | None = None,
) -> BattleRecord:
    """Walk the log once, keeping each combatant's status as it changes.

    A knock-out is any status other than active or fled at any moment; the party
    is wiped when, at some moment, every hero is knocked out at once — checked
    after each status change, so Destiny Dice heroes who wake with 1 PV as the
    battle ends (DD-16) still count as wiped (docs/playtest.md, "Definitions").
    """
    pos = {cid: i for i, cid in enumerate(ids)}
    status = list(initial)
    ko = [0 if s in KNOCKED_OUT else NEVER for s in status]
    died = [s == Status.DEAD.value for s in status]
    dealt = [0] * len(ids)
    to_foes = [0] * len(ids)
    taken = [0] * len(ids)
    heroes = [i for i, s in enumerate(sides) if s is Side.HEROES]

    def all_heroes_out() -> bool:
        return bool(heroes) and all(status[i] in KNOCKED_OUT for i in heroes)

    wipe = all_heroes_out()
    current_round = 0
    for event in events:
        if isinstance(event, Damaged):
            t = pos.get(event.target)
            if t is None:
                continue
            taken[t] += event.amount
            s = pos.get(event.source)
            if s is not None:
                dealt[s] += event.amount
                if sides[s] is not sides[t]:
                    to_foes[s] += event.amount
        elif isinstance(event, StatusChanged):
            t = pos.get(event.target)
            if t is None:
                continue
            status[t] = event.status
            if event.status in KNOCKED_OUT and ko[t] == NEVER:
                ko[t] = current_round
            died[t] = died[t] or event.status == Status.DEAD.value
            wipe = wipe or all_heroes_out()
        elif isinstance(event, RoundStarted):
            current_round = event.round
    if final is not None:
        # Safety net: a status set without a StatusChanged event still counts at the end.
        for i, s in enumerate(final):
            if s in KNOCKED_OUT and ko[i] == NEVER:
                ko[i] = rounds
            died[i] = died[i] or s == Status.DEAD.value
        status = list(final)
        wipe = wipe or all_heroes_out()
    return BattleRecord(
        index,
        seed,
        winner,
        reason,
        rounds,
        wipe,
        tuple(
            CombatantRecord(ko[i], died[i], dealt[i], to_foes[i], taken[i]) for i in range(len(ids))
        ),
    )
