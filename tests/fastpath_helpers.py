"""Shared helpers of the fast-path kernel tests: the engine's battle in kernel terms."""

from __future__ import annotations

from collections.abc import Sequence

from escaramuza.agents import make_agent
from escaramuza.agents.runner import play_battle
from escaramuza.playtest import record_battle
from escaramuza.rules.core.kernel import KernelBattle
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import Scenario


def engine_battle(scenario: Scenario, agents: Sequence[str], seed: int) -> KernelBattle:
    """What ``play_battle`` gives for ``seed``, as the KernelBattle a kernel reads back."""
    decisions = 0

    def count(events: object) -> None:
        nonlocal decisions
        decisions += 1

    state = play_battle(
        scenario,
        {Side.HEROES: make_agent(agents[0]), Side.ENEMIES: make_agent(agents[1])},
        seed,
        on_events=count,
        narrate=False,
    )
    decisions -= 1  # on_events runs once for the start's events, then once per decision
    record = record_battle(0, seed, state)
    outcome = state.outcome
    assert outcome is not None
    return KernelBattle(
        seed=seed,
        winner=outcome.winner.value if outcome.winner else None,
        reason=outcome.reason,
        rounds=outcome.rounds,
        wipe=record.wipe,
        decisions=decisions,
        statuses=tuple(c.status.value for c in state.combatants),
        zones=tuple(c.zone for c in state.combatants),
        resources=tuple(tuple(sorted(c.resources.items())) for c in state.combatants),
        conditions=tuple(
            tuple(sorted((name, cond.value) for name, cond in c.conditions.items()))
            for c in state.combatants
        ),
        ko_round=tuple(r.ko_round for r in record.combatants),
        died=tuple(r.died for r in record.combatants),
        dealt=tuple(r.dealt for r in record.combatants),
        dealt_to_foes=tuple(r.dealt_to_foes for r in record.combatants),
        taken=tuple(r.taken for r in record.combatants),
    )
