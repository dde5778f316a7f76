"""Every shipped Donjon scenario loads and plays to the end with random and heuristic agents."""

from __future__ import annotations

import random

import pytest

from escaramuza.agents import make_agent
from escaramuza.agents.runner import play_battle
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.events import TurnStarted
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from escaramuza.rules.core.state import BattleState

SCENARIOS = sorted(n for n in shipped_scenarios() if n.startswith("donjon/"))
SEEDS = range(30)


def test_shipped_scenarios_cover_the_issue() -> None:
    assert {"donjon/duelo", "donjon/emboscada"} <= set(SCENARIOS)
    band = load_scenario("donjon/emboscada")
    heroes = [c for c in band.combatants if c.side is Side.HEROES]
    enemies = [c for c in band.combatants if c.side is Side.ENEMIES]
    assert (len(heroes), len(enemies)) == (4, 6)
    kinds = {a.kind for c in enemies for a in c.stats.weapons}
    assert {"distancia", "arrojadiza"} <= kinds
    hops = {band.battlefield.distance(h.zone, e.zone) for h in heroes for e in enemies}
    assert hops == {0, 1, 2}  # mixed starting distances (DJ-09)


def _check_invariants(state: BattleState) -> None:
    for c in state.combatants:
        for key, value in c.resources.items():
            assert 0 <= value <= c.maxima[key], (c.id, key, value)
    acting = {e.actor for e in state.log if isinstance(e, TurnStarted)}
    assert acting <= set(state.by_id)


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("agents", [("random", "random"), ("heuristic", "heuristic")])
def test_battles_always_end_within_the_round_limit(name: str, agents: tuple[str, str]) -> None:
    sc = load_scenario(name)
    for seed in SEEDS:
        state = play_battle(
            sc,
            {Side.HEROES: make_agent(agents[0]), Side.ENEMIES: make_agent(agents[1])},
            seed=seed,
        )
        assert state.outcome is not None
        assert 1 <= state.outcome.rounds <= sc.round_limit
        _check_invariants(state)


@pytest.mark.parametrize("name", SCENARIOS)
def test_legal_actions_never_empty_and_only_active_combatants_act(name: str) -> None:
    sc = load_scenario(name)
    for seed in range(10):
        roller = RandomRoller(seed)
        state = new_battle(sc, roller)
        agent = make_agent("random")
        r = random.Random(seed)
        while state.outcome is None:
            actions = state.ruleset.legal_actions(state)
            assert actions
            pending = state.pending
            assert pending is not None
            if pending.name == "turn":
                assert state.by_id[pending.actor].active
            for a in actions:
                assert a.actor == pending.actor
            apply_action(state, agent.act(state, r), roller)
        assert state.ruleset.legal_actions(state) == []


@pytest.mark.parametrize("name", SCENARIOS)
def test_same_seed_same_log(name: str) -> None:
    sc = load_scenario(name)
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("random")}
    one = play_battle(sc, agents, seed=7)
    two = play_battle(sc, agents, seed=7)
    assert [e.to_json() for e in one.log] == [e.to_json() for e in two.log]


def test_clones_are_independent() -> None:
    sc = load_scenario("donjon/emboscada")
    state = new_battle(sc, RandomRoller(3))
    copy = state.clone()
    roller = RandomRoller(4)
    while state.outcome is None and state.round < 2:
        apply_action(state, state.ruleset.legal_actions(state)[0], roller)
    assert copy.round == 1
    assert all(c.resources == c.maxima for c in copy.combatants)
