"""The real kernels through the driver: every shipped scenario whose ruleset has a kernel.

Skipped for a ruleset without a kernel yet (the driver's own logic is tested with a test
kernel in test_fast_driver.py). The full sweep, 1,000 seeds a pairing, is
``benchmarks/fast_path.py --equality``; each kernel's own tests cover every pairing and
hypothesis-generated scenarios.
"""

from __future__ import annotations

import json

import pytest

from escaramuza.agents import make_agent
from escaramuza.agents.fast import compare, refusal
from escaramuza.agents.runner import play_battle
from escaramuza.agents.suggest import suggest
from escaramuza.playtest import PlaytestConfig, battle_seed, playtest
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import Scenario, load_scenario, shipped_scenarios

SCENARIOS = sorted(shipped_scenarios())


def _kernel_scenario(name: str) -> Scenario:
    scenario = load_scenario(name)
    why = refusal(scenario, ["heuristic", "heuristic"])
    if why is not None and why.startswith("no kernel for"):
        pytest.skip(why)
    assert why is None, f"the kernel refuses a shipped scenario: {why}"
    return scenario


@pytest.mark.parametrize("name", SCENARIOS)
def test_kernel_battles_equal_the_engines(name: str) -> None:
    scenario = _kernel_scenario(name)
    seeds = [battle_seed(1, i) for i in range(8)]
    for pairing in (["heuristic", "heuristic"], ["random", "heuristic:cautious"],
                    ["heuristic:protector", "heuristic:coward"]):
        assert [str(m) for m in compare(scenario, pairing, seeds)] == [], pairing


@pytest.mark.parametrize("name", SCENARIOS)
def test_playtest_json_is_the_same_on_both_engines(name: str) -> None:
    _kernel_scenario(name)
    docs = []
    for engine in ("fast", "reference"):
        config = PlaytestConfig(n=24, seed=3, heroes="heuristic", enemies="random",
                                engine=engine)
        doc = json.loads(playtest([name], config).to_json())
        assert doc["scenarios"][0]["engine"] == engine
        doc["scenarios"][0]["engine"] = None
        docs.append(doc)
    assert docs[0] == docs[1]


@pytest.mark.parametrize("name", SCENARIOS)
def test_suggestion_with_an_iteration_budget_is_the_same_on_both_engines(name: str) -> None:
    scenario = _kernel_scenario(name)
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    state = play_battle(scenario, agents, seed=2, stop_after=2, narrate=False)
    if state.outcome is not None:
        pytest.skip("the battle ended before the position")
    docs = []
    for engine in ("fast", "reference"):
        result = suggest(state, budget_ms=None, iterations=80, seed=1, max_iterations=240,
                         engine=engine)
        assert result.engine == engine, result.engine_refusal
        doc = result.to_dict()
        for key in ("elapsed_ms", "engine", "engine_refusal"):
            doc["search"].pop(key)
        docs.append(doc)
    assert docs[0] == docs[1]
