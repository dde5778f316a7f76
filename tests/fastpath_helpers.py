"""Shared helpers of the fast-path equality tests (issues 20, 21).

The reference side of every check: what the engine plays, read into the kernel's own
terms (``rules.core.kernel.KernelBattle``) straight from ``play_battle``'s final state
and ``playtest.record_battle`` — never from a kernel module, so a kernel is compared
with the specification and not with itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from escaramuza.agents import make_agent
from escaramuza.agents.runner import play_battle
from escaramuza.agents.search import MCTS, Node, side_strength
from escaramuza.playtest import record_battle
from escaramuza.rules.core.events import ActionTaken
from escaramuza.rules.core.kernel import KernelBattle
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState

#: Every agent spec a kernel must play (BRIEF-KERNEL: all pairings among these).
KERNEL_SPECS: tuple[str, ...] = (
    "random", "heuristic", "heuristic:tactician", "heuristic:brute", "heuristic:cautious",
    "heuristic:coward", "heuristic:protector", "heuristic:random",
)


def engine_battle(scenario: Scenario, agents: Sequence[str], seed: int) -> KernelBattle:
    """``play_battle(scenario, {heroes: agents[0], enemies: agents[1]}, seed)`` as a
    :class:`KernelBattle` (decisions = the ActionTaken lines a narrated battle logs)."""
    state = play_battle(scenario, {Side.HEROES: make_agent(agents[0]),
                                   Side.ENEMIES: make_agent(agents[1])}, seed, narrate=True)
    outcome = state.outcome
    assert outcome is not None
    record = record_battle(0, seed, state)
    return KernelBattle(
        seed=seed,
        winner=outcome.winner.value if outcome.winner else None,
        reason=outcome.reason,
        rounds=outcome.rounds,
        wipe=record.wipe,
        decisions=sum(1 for e in state.log if isinstance(e, ActionTaken)),
        statuses=tuple(c.status.value for c in state.combatants),
        zones=tuple(c.zone for c in state.combatants),
        resources=tuple(tuple(sorted(c.resources.items())) for c in state.combatants),
        conditions=tuple(tuple(sorted((k, v.value) for k, v in c.conditions.items()))
                         for c in state.combatants),
        ko_round=tuple(r.ko_round for r in record.combatants),
        died=tuple(r.died for r in record.combatants),
        dealt=tuple(r.dealt for r in record.combatants),
        dealt_to_foes=tuple(r.dealt_to_foes for r in record.combatants),
        taken=tuple(r.taken for r in record.combatants),
    )


def differences(engine: KernelBattle, kernel: KernelBattle) -> list[tuple[str, object, object]]:
    """The fields where two battles differ: (field, engine value, kernel value)."""
    return [(f, getattr(engine, f), getattr(kernel, f)) for f in KernelBattle.__slots__
            if getattr(engine, f) != getattr(kernel, f)]


def engine_rollout(
    state: BattleState, action: Action, seed: int, horizon: int | None,
    own_temperament: str | None, max_decisions: int,
) -> tuple[int, bool, float, float, bool]:
    """``MCTS.rollout`` of one (action, seed) as RolloutBatch's five numbers; actor_out is
    ``_Walk.knocked_out`` for the root actor (what ``MCTS._descend`` tracks)."""
    import escaramuza.agents.search as search

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
    winner = 0 if outcome is None or outcome.winner is None else (
        1 if outcome.winner is side else -1)
    return (winner, outcome is not None, side_strength(sim, side),
            side_strength(sim, side.other), walk.knocked_out)
