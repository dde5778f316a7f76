"""What the fast-path equality tests share: an engine battle read as a KernelBattle."""

from __future__ import annotations

from escaramuza.agents import make_agent
from escaramuza.agents.runner import play_battle
from escaramuza.playtest import record_battle
from escaramuza.rules.core.kernel import KernelBattle
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import Scenario


def engine_battle(scenario: Scenario, agents: tuple[str, str], seed: int) -> KernelBattle:
    """``play_battle`` on the engine, reduced to the fields a kernel reads back."""
    decisions = 0

    def count(events: list) -> None:  # type: ignore[type-arg]
        nonlocal decisions
        decisions += sum(1 for e in events if type(e).__name__ == "ActionTaken")

    state = play_battle(
        scenario,
        {Side.HEROES: make_agent(agents[0]), Side.ENEMIES: make_agent(agents[1])},
        seed,
        on_events=count,
    )
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
