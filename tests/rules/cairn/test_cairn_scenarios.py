"""Every shipped Cairn scenario is played to the end by random and heuristic agents."""

from __future__ import annotations

import random

import pytest

from escaramuza.agents import make_agent
from escaramuza.agents.base import Agent
from escaramuza.agents.runner import play_battle
from escaramuza.rules.core.events import Event
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from escaramuza.rules.core.state import BattleState

SCENARIOS = sorted(k for k in shipped_scenarios() if k.startswith("cairn/"))
SEEDS = range(30)


class Checked:
    """Wraps an agent and checks the invariants at every decision."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name

    def act(self, state: BattleState, rng: random.Random) -> Action:
        legal = state.ruleset.legal_actions(state)
        assert legal, "legal_actions is empty while the battle runs"
        actor = state.acting
        assert actor is not None and actor.active, "a knocked-out combatant acts"
        spec = {v.name: v for v in state.ruleset.verbs}
        for a in legal:
            v = spec[a.verb]
            assert (a.target is not None) is v.target
            assert (a.zone is not None) is v.zone
            assert (a.item is not None) is v.item
            assert a.item is None or a.item in actor.items
            assert a.actor == actor.id
        for c in state.combatants:
            for key, value in c.resources.items():
                assert 0 <= value <= c.maxima[key], f"{c.id} {key}={value}"
            assert len(state.ruleset.features(state, c)) == state.ruleset.n_features
        action = self.inner.act(state, rng)
        assert action in legal
        return action


def test_three_cairn_scenarios_ship() -> None:
    assert SCENARIOS == [
        "cairn/bandidos_destacamento",
        "cairn/duelo_bugbear",
        "cairn/emboscada_goblin",
    ]


@pytest.mark.parametrize("agent", ["random", "heuristic"])
@pytest.mark.parametrize("name", SCENARIOS)
def test_ca02_battles_always_end(name: str, agent: str) -> None:
    scenario = load_scenario(name)
    for seed in SEEDS:
        a = Checked(make_agent(agent))
        state = play_battle(scenario, {Side.HEROES: a, Side.ENEMIES: a}, seed=seed)
        assert state.outcome is not None
        assert 1 <= state.outcome.rounds <= scenario.round_limit
        for c in state.combatants:
            for key, value in c.resources.items():
                assert 0 <= value <= c.maxima[key]


@pytest.mark.parametrize("name", SCENARIOS)
def test_same_seed_same_log(name: str) -> None:
    scenario = load_scenario(name)
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("random")}

    def log(seed: int) -> list[str]:
        events: list[Event] = play_battle(scenario, agents, seed=seed).log
        return [e.to_json() for e in events]

    assert log(7) == log(7)
    assert log(7) != log(8)
