"""Shared helpers of the fast-path equality tests.

``engine_battle`` is the driver's (:func:`escaramuza.agents.fast.engine_battle`, also
behind ``benchmarks/fast_path.py --equality``): one reader of the engine's battles.

The reference side of every check: what the engine plays, read into the kernel's own
terms (``rules.core.kernel.KernelBattle``) straight from ``play_battle``'s final state
and ``playtest.record_battle`` — never from a kernel module, so a kernel is compared
with the specification and not with itself.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

from escaramuza.agents import AGENT_NAMES, make_agent
from escaramuza.agents.fast import engine_battle, find_kernel
from escaramuza.agents.search import MCTS, Node, side_strength
from escaramuza.rules.core.compiled import agent_code
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.kernel import KernelBattle, KernelRefusal
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.ruleset import new_battle
from escaramuza.rules.core.scenario import Scenario, shipped_scenarios
from escaramuza.rules.core.state import BattleState

__all__ = [
    "KERNEL_SPECS",
    "differences",
    "engine_battle",
    "engine_decisions",
    "engine_rollout",
    "rollout_row",
    "ruleset_scenarios",
    "same_as_engine",
]


def _kernel_plays(spec: str) -> bool:
    try:
        agent_code(spec)
    except KernelRefusal:
        return False
    return True


#: Every agent spec a kernel must play (all pairings among these): the agents' names
#: (``random``, ``first-legal``, ``heuristic`` and one ``heuristic:T`` a temperament of
#: the registry) that the kernels' shared agent parser takes; ``mcts`` is refused.
KERNEL_SPECS: tuple[str, ...] = tuple(s for s in AGENT_NAMES if _kernel_plays(s))


def ruleset_scenarios(ruleset_id: str) -> list[str]:
    """The shipped scenarios of one ruleset (``ruleset/stem``), sorted."""
    return sorted(n for n in shipped_scenarios() if n.split("/", 1)[0] == ruleset_id)


def differences(engine: KernelBattle, kernel: KernelBattle) -> list[tuple[str, object, object]]:
    """The fields where two battles differ: (field, engine value, kernel value)."""
    return [
        (f, getattr(engine, f), getattr(kernel, f))
        for f in KernelBattle.__slots__
        if getattr(engine, f) != getattr(kernel, f)
    ]


def same_as_engine(
    scenario: Scenario, agents: tuple[str, str], seeds: Sequence[int]
) -> list[KernelBattle]:
    """The ruleset's kernel's battles of ``seeds``, after asserting each is the engine's
    battle of its seed, field by field."""
    kernel = find_kernel(scenario.ruleset.id)
    assert kernel is not None, scenario.ruleset.id
    battles = kernel.play_battles(scenario, agents, list(seeds))
    assert [b.seed for b in battles] == list(seeds)
    for seed, got in zip(seeds, battles, strict=True):
        diff = differences(engine_battle(scenario, agents, seed), got)
        assert not diff, f"{scenario.name} {agents} seed {seed}: {diff}"
    return battles


def engine_decisions(
    scenario: Scenario, seeds: Sequence[int], cap: int
) -> Iterator[tuple[int, BattleState, Action, RandomRoller]]:
    """Every decision of engine battles, heuristic heroes against random enemies on even
    seeds and the other way on odd ones, up to ``cap`` decisions a battle: ``(seed,
    state, action, roller)`` with the action the agent chose. The caller applies it
    (``apply_action(state, action, roller)``) before taking the next one."""
    for seed in seeds:
        heroes, enemies = ("heuristic", "random") if seed % 2 == 0 else ("random", "heuristic")
        agents = {"heroes": make_agent(heroes), "enemies": make_agent(enemies)}
        rng = random.Random(seed)
        roller = RandomRoller(seed)
        state = new_battle(scenario, roller)
        decisions = 0
        while state.outcome is None and decisions < cap:
            assert state.pending is not None
            yield seed, state, agents[state.pending.side.value].act(state, rng), roller
            decisions += 1


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
