"""Shared helpers of the fast-path equality tests.

``engine_battle`` is the driver's (:func:`escaramuza.agents.fast.engine_battle`, also
behind ``benchmarks/fast_path.py --equality``): one reader of the engine's battles.

The reference side of every check: what the engine plays, read into the kernel's own
terms (``rules.core.kernel.KernelBattle``) straight from ``play_battle``'s final state
and ``playtest.record_battle`` — never from a kernel module, so a kernel is compared
with the specification and not with itself.
"""

from __future__ import annotations

from typing import Any

from escaramuza.agents.fast import engine_battle
from escaramuza.agents.search import MCTS, Node, side_strength
from escaramuza.rules.core.kernel import KernelBattle
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.state import BattleState

__all__ = ["KERNEL_SPECS", "differences", "engine_battle", "engine_rollout"]

#: Every agent spec a kernel must play (BRIEF-KERNEL: all pairings among these).
KERNEL_SPECS: tuple[str, ...] = (
    "random",
    "first-legal",
    "heuristic",
    "heuristic:tactician",
    "heuristic:brute",
    "heuristic:cautious",
    "heuristic:coward",
    "heuristic:protector",
    "heuristic:random",
)


def differences(engine: KernelBattle, kernel: KernelBattle) -> list[tuple[str, object, object]]:
    """The fields where two battles differ: (field, engine value, kernel value)."""
    return [
        (f, getattr(engine, f), getattr(kernel, f))
        for f in KernelBattle.__slots__
        if getattr(engine, f) != getattr(kernel, f)
    ]


def rollout_row(batch: Any, a: int, j: int) -> tuple[int, bool, float, float, bool]:
    """A kernel's rollout of action ``a`` and seed ``j`` from its ``RolloutBatch``, as
    :func:`engine_rollout` gives the engine's."""
    return (
        int(batch.winner[a, j]),
        bool(batch.finished[a, j]),
        float(batch.own[a, j]),
        float(batch.foe[a, j]),
        bool(batch.actor_out[a, j]),
    )


def engine_rollout(
    state: BattleState,
    action: Action,
    seed: int,
    horizon: int | None,
    own_temperament: str | None,
    max_decisions: int,
) -> tuple[int, bool, float, float, bool]:
    """``MCTS.rollout`` of one (action, seed) as RolloutBatch's five numbers; actor_out is
    ``_Walk.knocked_out`` for the root actor (what ``MCTS._descend`` tracks)."""
    import escaramuza.agents.search.mcts as search

    mcts = MCTS(iterations=1, horizon=horizon, rollout_temperament=own_temperament)
    pending = state.pending
    assert pending is not None
    side = pending.side
    saved = search.MAX_ROLLOUT_DECISIONS
    search.MAX_ROLLOUT_DECISIONS = max_decisions
    try:
        sim, _, walk = mcts._descend(state, Node(), action, side, pending.actor, seed)
    finally:
        search.MAX_ROLLOUT_DECISIONS = saved
    outcome = sim.outcome
    winner = (
        0 if outcome is None or outcome.winner is None else (1 if outcome.winner is side else -1)
    )
    return (
        winner,
        outcome is not None,
        side_strength(sim, side),
        side_strength(sim, side.other),
        walk.knocked_out,
    )
