"""The contract between the engine and a ruleset's compiled kernel (the fast path).

architecture.md, "The fast path": the engine is the specification; a kernel is the same
rules and the same heuristic temperaments compiled with numba over plain arrays. This
module holds only what every kernel and the driver (``escaramuza.agents.fast``) share:

* :class:`KernelRefusal` — a scenario, option, agent or state a kernel does not
  implement. The driver then plays on the engine and says so ("refuse, never diverge").
* :class:`KernelBattle` — what a kernel reads back after a whole battle: exactly what
  the engine's final state and event log give (``escaramuza.playtest.records.record_battle``
  and the equality checks compare them field by field).
* :class:`BattleColumns` — what a playtest keeps of a chunk of battles, as arrays.
* :class:`RolloutBatch` — what the planner needs of a batch of rollouts.
* :class:`Kernel` — the protocol a ruleset's kernel implements.
* :func:`check_range`, :func:`refusing`, :data:`BOUND` — the kernel boundary: what every
  kernel's export checks before an array reaches compiled code (docs/fast-path.md,
  "The kernel boundary").

The dice stream is :mod:`escaramuza.rules.core.mt` (CPython's MT19937, draw for draw):
battle ``seed`` rolls its dice from ``random.Random(seed)`` (``RandomRoller(seed)``)
and its agents choose from ``random.Random(f"escaramuza-agents-{seed}")``
(``agents.runner.agent_rng``); a rollout of seed ``s`` uses ``random.Random(s)`` for
both, as ``agents.search.MCTS._descend`` does. A kernel draws from the same streams in
the same order as the engine, so it plays the same battle.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from escaramuza.rules.core.errors import EscaramuzaError

if TYPE_CHECKING:
    from escaramuza.rules.core.model import Action
    from escaramuza.rules.core.scenario import Scenario
    from escaramuza.rules.core.state import BattleState


#: The agents' generator of battle ``seed`` is ``random.Random(AGENT_SEED.format(seed))``
#: (``agents.runner.agent_rng``; ``mt.agent_keys`` for the kernels), apart from the
#: dice's ``random.Random(seed)``.
AGENT_SEED = "escaramuza-agents-{}"


class KernelRefusal(EscaramuzaError):
    """What a kernel does not implement; the message says what, for the engine line."""


# -- the kernel boundary ----------------------------------------------------------------
#: The largest magnitude of a number a kernel takes in (a resource, a maximum, a
#: modifier, a counter). Compiled code reads arrays without bounds checks and int64
#: overflows silently, where the engine's Python ints do neither; a kernel adds and
#: compares a few dozen such numbers at a time (damage, modifiers and PV; a pool's dice
#: counts times its values) and each export bounds the few products it forms more
#: tightly, so 2**40 leaves int64 (2**63) a factor of 2**22 of headroom. It is also
#: below 2**53, where a double holds every integer exactly, so a kernel's float
#: division of two such numbers is the engine's ``int / int``.
BOUND = 1 << 40


def _shown(n: int) -> str:
    """A bound as a reader takes it in: ``2**40`` rather than 1099511627776."""
    m = abs(n)
    if m >= 1 << 20 and m & (m - 1) == 0:
        return f"{'-' if n < 0 else ''}2**{m.bit_length() - 1}"
    return str(n)


def check_range(
    value: object,
    lo: int,
    hi: int,
    what: str,
    error: type[Exception] = KernelRefusal,
) -> None:
    """Raise ``error`` unless ``value`` lies within ``lo``…``hi`` (both included):
    ``brann: pv -5 is outside 0–12``.

    ``value`` is an int (any size: a Python int is checked before it is put into an
    int64 array, which could not hold it), a numpy integer, an integer array or a
    sequence of ints (every element; the message names the first one out of range by
    its index). Anything else (a float, a string, None) is refused as not an integer.
    The cost is one pass over the values: O(combatants + fields), never O(a value).
    """
    if isinstance(value, np.ndarray):
        if value.size == 0:
            return
        if value.dtype.kind not in "biu":
            raise error(f"{what} holds {value.dtype} values, not integers")
        if int(value.min()) >= lo and int(value.max()) <= hi:
            return
        flat = value.reshape(-1)
        bad = int(np.flatnonzero((flat < lo) | (flat > hi))[0])
        at = ", ".join(str(int(i)) for i in np.unravel_index(bad, value.shape))
        raise error(f"{what}[{at}] {int(flat[bad])} is outside {_shown(lo)}–{_shown(hi)}")
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            check_range(item, lo, hi, f"{what}[{i}]", error)
        return
    if isinstance(value, np.integer):
        value = int(value)
    if not isinstance(value, int):
        raise error(f"{what} {value!r} is not an integer")
    if not lo <= value <= hi:
        raise error(f"{what} {value} is outside {_shown(lo)}–{_shown(hi)}")


@contextmanager
def refusing(what: str = "", error: type[Exception] = KernelRefusal) -> Iterator[None]:
    """Around a kernel's export: a lookup or conversion the data defeats — an id or a
    name the scenario does not have, a list longer than the array it goes into, a value
    int64 cannot hold — is a refusal (``error``, its message prefixed by ``what``)
    rather than a traceback. A refusal raised inside (``error`` itself) passes
    unchanged."""
    prefix = f"{what}: " if what else ""
    try:
        yield
    except error:
        raise
    except KeyError as exc:
        raise error(f"{prefix}unknown name {exc}") from None
    except (ValueError, IndexError, TypeError, OverflowError, AttributeError) as exc:
        raise error(f"{prefix}{exc}") from None


#: Agent specs a kernel may be asked to play (``make_agent`` names): ``random``,
#: ``heuristic`` (each combatant by its scenario temperament) and ``heuristic:T`` /
#: ``T`` for one temperament over the whole side. Anything else (mcts, policy:…) is a
#: refusal.
KERNEL_AGENTS = ("random", "heuristic")


@dataclass(frozen=True, slots=True)
class KernelBattle:
    """One finished battle as a kernel reads it back, in the engine's own terms.

    Per-combatant tuples are in scenario order. ``resources`` holds the engine's
    ``Combatant.resources`` mapping as sorted ``(name, value)`` pairs and
    ``conditions`` the final conditions as sorted ``(name, value)`` pairs, so that a
    kernel battle and an engine battle compare with ``==``. ``ko_round``, ``died``,
    ``dealt``, ``dealt_to_foes``, ``taken`` and ``wipe`` mean what they mean in
    ``escaramuza.playtest.records.CombatantRecord`` / ``BattleRecord`` (the same counts as the
    engine's ``Damaged`` and ``StatusChanged`` events give).
    """

    seed: int
    winner: str | None  # "heroes", "enemies" or None (a draw)
    reason: str  # Outcome.reason, the engine's exact string
    rounds: int  # Outcome.rounds
    wipe: bool
    decisions: int  # actions taken (agent decisions), as play_battle counts them
    statuses: tuple[str, ...]  # Status values
    zones: tuple[str, ...]
    resources: tuple[tuple[tuple[str, int], ...], ...]
    conditions: tuple[tuple[tuple[str, int], ...], ...]
    ko_round: tuple[int, ...]
    died: tuple[bool, ...]
    dealt: tuple[int, ...]
    dealt_to_foes: tuple[int, ...]
    taken: tuple[int, ...]


#: :attr:`BattleColumns.winner` codes: 0 the heroes, 1 the enemies, 2 nobody (a draw).
WINNERS: tuple[str | None, ...] = ("heroes", "enemies", None)


@dataclass(frozen=True, slots=True)
class BattleColumns:
    """A chunk of whole battles as a playtest reads them: of each :class:`KernelBattle`,
    the fields ``escaramuza.playtest.records.BattleRecord`` keeps, one row per seed.

    The final statuses, zones, resources and conditions (what the equality checks
    compare) are left out, and nothing is a Python object per battle: turning a small
    battle's arrays into tuples cost the driver as much as the kernel took to play it.
    Arrays of shape ``(n,)`` — ``winner`` (a code of :data:`WINNERS`), ``reason`` (an
    index into ``reasons``, the engine's exact strings), ``rounds``, ``wipe`` (bool) —
    and ``(n, combatants)`` in scenario order: ``ko_round``, ``died`` (bool), ``dealt``,
    ``dealt_to_foes``, ``taken``.
    """

    winner: np.ndarray
    reason: np.ndarray
    reasons: tuple[str, ...]
    rounds: np.ndarray
    wipe: np.ndarray
    ko_round: np.ndarray
    died: np.ndarray
    dealt: np.ndarray
    dealt_to_foes: np.ndarray
    taken: np.ndarray

    @classmethod
    def of(cls, battles: Sequence[KernelBattle]) -> BattleColumns:
        """The columns of whole :class:`KernelBattle` objects (a kernel that only has
        ``play_battles``, a test double; the reasons in order of first appearance)."""
        reasons = tuple(dict.fromkeys(b.reason for b in battles))
        nc = len(battles[0].ko_round) if battles else 0

        def per_combatant(field: str, dtype: type) -> np.ndarray:
            return np.array([getattr(b, field) for b in battles], dtype=dtype).reshape(
                len(battles), nc
            )

        return cls(
            winner=np.array([WINNERS.index(b.winner) for b in battles], dtype=np.int64),
            reason=np.array([reasons.index(b.reason) for b in battles], dtype=np.int64),
            reasons=reasons,
            rounds=np.array([b.rounds for b in battles], dtype=np.int64),
            wipe=np.array([b.wipe for b in battles], dtype=np.bool_),
            ko_round=per_combatant("ko_round", np.int64),
            died=per_combatant("died", np.bool_),
            dealt=per_combatant("dealt", np.int64),
            dealt_to_foes=per_combatant("dealt_to_foes", np.int64),
            taken=per_combatant("taken", np.int64),
        )


@dataclass(frozen=True, slots=True)
class RolloutBatch:
    """Rollouts of ``actions`` × ``seeds`` from one engine state, for the planner.

    Arrays of shape ``(len(actions), len(seeds))``: ``winner`` is +1 when the
    searching side (the pending decision's) won, −1 when it lost, 0 otherwise;
    ``finished`` whether the battle ended (else it was cut at the horizon or the
    decision cap); ``own`` / ``foe`` the searching side's and the other side's
    ``agents.search.side_strength`` at the end (computed in the same order, so equal
    to the float); ``actor_out`` the planner's ``_Walk.knocked_out`` for the root actor.
    """

    winner: np.ndarray
    finished: np.ndarray
    own: np.ndarray
    foe: np.ndarray
    actor_out: np.ndarray


class Kernel(Protocol):
    """A ruleset's compiled battles (``rules/<ruleset>/kernel.py`` for the rules,
    ``agents/heuristics/<ruleset>_kernel.py`` for the temperaments and the battle loop
    joining them; the driver finds it by ruleset id)."""

    ruleset_id: str

    def refusal(self, scenario: Scenario, agents: Sequence[str]) -> str | None:
        """Why this scenario (its options, stat blocks, battlefield) or these agent
        specs (heroes', enemies') cannot run on the kernel; None when they can."""
        ...

    def play_battles(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> list[KernelBattle]:
        """Whole battles from the start (initiative included), one per seed, as
        ``agents.runner.play_battle(scenario, {heroes: make_agent(agents[0]),
        enemies: make_agent(agents[1])}, seed)`` plays them."""
        ...

    def play_columns(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> BattleColumns:
        """The battles :meth:`play_battles` plays, as the columns a playtest keeps."""
        ...

    def rollouts(
        self,
        state: BattleState,
        actions: Sequence[Action],
        seeds: Sequence[int],
        horizon: int | None,
        own_temperament: str | None,
        max_decisions: int,
    ) -> RolloutBatch:
        """``agents.search.MCTS.rollout`` for every (action, seed) with no tree: clone,
        take the action on the dice of ``random.Random(seed)``, then heuristic play
        (opponents in character; the searching side with ``own_temperament`` if set)
        until the end, round ``state.round + horizon`` or ``max_decisions``. Raises
        :class:`KernelRefusal` for a state it cannot resume."""
        ...
