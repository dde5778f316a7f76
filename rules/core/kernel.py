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

The dice stream is :mod:`escaramuza.rules.core.mt` (CPython's MT19937, draw for draw):
battle ``seed`` rolls its dice from ``random.Random(seed)`` (``RandomRoller(seed)``)
and its agents choose from ``random.Random(f"escaramuza-agents-{seed}")``
(``agents.runner.agent_rng``); a rollout of seed ``s`` uses ``random.Random(s)`` for
both, as ``agents.search.MCTS._descend`` does. A kernel draws from the same streams in
the same order as the engine, so it plays the same battle.
"""

from __future__ import annotations

from collections.abc import Sequence
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
