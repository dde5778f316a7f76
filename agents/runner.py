"""Play whole battles with agents: the loop the CLI, tests and playtests share."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping

from escaramuza.agents.base import Agent
from escaramuza.rules.core.dice import RandomRoller, Roller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.events import ActionTaken, Event
from escaramuza.rules.core.kernel import AGENT_SEED
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState

#: A battle that takes more decisions than this is a ruleset bug, not a long fight.
MAX_DECISIONS = 200_000


def agent_rng(seed: int | None) -> random.Random:
    """The agents' own generator, derived from the battle seed but apart from the dice."""
    return random.Random(AGENT_SEED.format(seed))


def check_agents(agents: Iterable[Agent], scenario: Scenario) -> None:
    """Refuse ``scenario`` if one of ``agents`` knows it cannot play it (a policy of
    another ruleset, or trained on fewer combatants): before a battle, not at its turn."""
    for agent in agents:
        check = getattr(agent, "check_scenario", None)
        if check is not None:
            check(scenario)


def play_battle(
    scenario: Scenario,
    agents: Mapping[Side, Agent],
    seed: int | None = None,
    roller: Roller | None = None,
    on_events: Callable[[list[Event]], None] | None = None,
    validate: bool = False,
    stop_after: int | None = None,
    narrate: bool = True,
) -> BattleState:
    """Play ``scenario`` to the end and return the final state (its ``log`` has every event).

    The dice come from ``roller`` (default ``RandomRoller(seed)``) and the agents'
    choices from :func:`agent_rng`, so one seed fixes the whole battle.
    ``validate`` re-checks each chosen action against the legal list.
    ``stop_after`` N returns the unfinished state after N decisions (``play --save-state``).
    ``narrate`` False leaves the :class:`ActionTaken` lines (the chosen action in words)
    out of the log: batch playtests read only the rules' own events, and composing a
    sentence per decision is a measurable share of a battle. The rules' events, the
    dice and the outcome are the same either way.
    """
    check_agents(agents.values(), scenario)
    roller = roller if roller is not None else RandomRoller(seed)
    rng = agent_rng(seed)
    state = new_battle(scenario, roller)
    if on_events is not None:
        on_events(list(state.log))
    decisions = 0
    while state.outcome is None and (stop_after is None or decisions < stop_after):
        pending = state.pending
        if pending is None:
            raise EscaramuzaError(f"{scenario.name}: no pending decision in an unfinished battle")
        action = agents[pending.side].act(state, rng)
        taken: list[Event] = []
        if narrate:
            line = state.ruleset.describe(state, action)
            taken.append(ActionTaken(line, action.actor, str(action)))
            state.log.extend(taken)
        events = apply_action(state, action, roller, validate=validate)
        if on_events is not None:
            on_events([*taken, *events])
        decisions += 1
        if decisions > MAX_DECISIONS:
            raise EscaramuzaError(
                f"{scenario.name}: battle did not end after {MAX_DECISIONS} decisions"
            )
    return state
