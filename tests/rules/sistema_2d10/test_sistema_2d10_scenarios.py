"""The shipped Sistema 2d10 scenarios, played to the end by random and heuristic agents."""

from __future__ import annotations

import random

import pytest

from escaramuza.agents import HeuristicAgent, RandomAgent
from escaramuza.agents.runner import agent_rng, play_battle
from escaramuza.rules import get_ruleset
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.model import Side, Status
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios

SCENARIOS = sorted(k for k in shipped_scenarios() if k.startswith("sistema_2d10/"))
SEEDS = range(30)


def test_s207_s211_both_scenarios_are_shipped_and_load() -> None:
    assert SCENARIOS == ["sistema_2d10/duelo", "sistema_2d10/escuadra"]
    duel = load_scenario("sistema_2d10/duelo")
    assert [c.side for c in duel.combatants] == [Side.HEROES, Side.ENEMIES]
    squad = load_scenario("sistema_2d10/escuadra")
    assert sum(c.side is Side.HEROES for c in squad.combatants) == 4
    assert sum(c.side is Side.ENEMIES for c in squad.combatants) == 5
    kinds = {w.kind for c in squad.combatants for w in c.stats.weapons}
    assert kinds == {"cuerpo_a_cuerpo", "distancia"}
    assert len({c.stats.ca for c in squad.combatants}) >= 3
    assert get_ruleset("sistema_2d10").default_scenario in SCENARIOS


def _check(state: object) -> None:
    for c in state.combatants:  # type: ignore[attr-defined]
        for key, value in c.resources.items():
            assert 0 <= value <= c.maxima[key], (c.id, key, value)


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("agents", ["random", "heuristic"])
def test_s206_battles_always_end_within_the_round_limit(name: str, agents: str) -> None:
    scenario = load_scenario(name)
    agent = RandomAgent() if agents == "random" else HeuristicAgent()
    for seed in SEEDS:
        roller = RandomRoller(seed)
        rng = agent_rng(seed)
        state = new_battle(scenario, roller)
        steps = 0
        while state.outcome is None:
            pending = state.pending
            assert pending is not None
            actor = state.get(pending.actor)
            assert actor.status is Status.ACTIVE, "a knocked-out combatant must not decide"
            legal = state.ruleset.legal_actions(state)
            assert legal, "legal_actions is never empty while the battle runs"
            action = agent.act(state, rng)
            apply_action(state, action, roller, validate=True)
            _check(state)
            steps += 1
            assert steps < 20_000
        assert state.outcome.rounds <= scenario.round_limit
        assert state.ruleset.legal_actions(state) == []


@pytest.mark.parametrize("name", SCENARIOS)
def test_s206_same_seed_same_log(name: str) -> None:
    scenario = load_scenario(name)
    agents = {Side.HEROES: HeuristicAgent(), Side.ENEMIES: RandomAgent()}
    a = play_battle(scenario, agents, seed=7)
    b = play_battle(scenario, agents, seed=7)
    assert [e.to_json() for e in a.log] == [e.to_json() for e in b.log]


def test_s206_round_limit_ends_a_stalemate() -> None:
    scenario = load_scenario("sistema_2d10/duelo")

    class Passer:
        name = "passer"

        def act(self, state: object, rng: random.Random) -> object:
            legal = state.ruleset.legal_actions(state)  # type: ignore[attr-defined]
            return next(a for a in legal if a.verb in ("pasar", "no_gastar", "no_defender"))

    state = play_battle(scenario, {Side.HEROES: Passer(), Side.ENEMIES: Passer()}, seed=1)
    assert state.outcome is not None
    assert (state.outcome.reason, state.outcome.rounds) == ("timeout", scenario.round_limit)


def test_s207_clone_is_independent() -> None:
    scenario = load_scenario("sistema_2d10/escuadra")
    state = new_battle(scenario, RandomRoller(3))
    copy = state.clone(keep_log=False)
    action = state.ruleset.legal_actions(state)[0]
    apply_action(copy, action, RandomRoller(4))
    assert [c.resources for c in state.combatants] != [c.resources for c in copy.combatants] or (
        state.pending != copy.pending
    )
    assert state.ruleset.legal_actions(state)[0] == action
