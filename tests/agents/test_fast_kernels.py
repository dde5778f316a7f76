"""The real kernels through the driver: every shipped scenario whose ruleset has a kernel.

Skipped for a ruleset without a kernel yet (the driver's own logic is tested with a test
kernel in test_fast_driver.py). The full sweep, 1,000 seeds a pairing, is
``benchmarks/fast_path.py --equality``; each kernel's own tests cover every pairing and
hypothesis-generated scenarios.
"""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import numpy as np
import pytest

from escaramuza.agents import make_agent
from escaramuza.agents.fast import find_kernel, play_records, refusal
from escaramuza.agents.runner import play_battle
from escaramuza.agents.search import MAX_ROLLOUT_DECISIONS, MCTS, Node
from escaramuza.agents.search.rollouts import _Rollouts
from escaramuza.agents.suggest import suggest
from escaramuza.playtest import PlaytestConfig, playtest
from escaramuza.playtest.runner import play_one
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import Scenario, load_scenario, shipped_scenarios

pytestmark = pytest.mark.compile

SCENARIOS = sorted(shipped_scenarios())


def _kernel_scenario(name: str) -> Scenario:
    scenario = load_scenario(name)
    why = refusal(scenario, ["heuristic", "heuristic"])
    if why is not None and why.startswith("no kernel for"):
        pytest.skip(why)
    assert why is None, f"the kernel refuses a shipped scenario: {why}"
    return scenario


@pytest.mark.parametrize("name", SCENARIOS)
def test_playtest_json_is_the_same_on_both_engines(name: str) -> None:
    _kernel_scenario(name)
    docs = []
    for engine in ("fast", "reference"):
        config = PlaytestConfig(n=24, seed=3, heroes="heuristic", enemies="random", engine=engine)
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
        result = suggest(
            state, budget_ms=None, iterations=80, seed=1, max_iterations=240, engine=engine
        )
        assert result.engine == engine, result.engine_refusal
        doc = result.to_dict()
        for key in ("elapsed_ms", "engine", "engine_refusal"):
            doc["search"].pop(key)
        docs.append(doc)
    assert docs[0] == docs[1]


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_batch_split_over_threads_is_the_one_calls_arrays(name: str) -> None:
    """The planner's thread split (``_Rollouts._batch``) joins parts that are the single
    call's arrays, element for element, on every kernel (their rollout loops run
    without the GIL, two at once)."""
    scenario = _kernel_scenario(name)
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    state = play_battle(scenario, agents, seed=5, stop_after=3, narrate=False)
    if state.outcome is not None:
        pytest.skip("the battle ended before the position")
    kernel = find_kernel(scenario.ruleset.id)
    assert kernel is not None
    actions = state.ruleset.legal_actions(state)
    rng = random.Random(7)
    seeds = [rng.getrandbits(63) for _ in range(37)]  # an odd count: unequal parts
    whole = kernel.rollouts(state, actions, seeds, None, None, MAX_ROLLOUT_DECISIONS)
    for threads in (2, 3):
        planner = MCTS(iterations=10, root="race", expand_after=None, horizon=None, threads=threads)
        runner = _Rollouts(planner, state, Node(), seeds, rng, kernel, None)
        calls: list[int] = []
        real = kernel.rollouts

        def counting(*args: object, real: object = real, calls: list[int] = calls) -> object:
            calls.append(len(args[2]))  # type: ignore[arg-type]
            return real(*args)  # type: ignore[operator]

        runner.kernel = SimpleNamespace(rollouts=counting)  # type: ignore[assignment]
        split = runner._batch(actions, seeds)
        assert len(calls) == threads and sum(calls) == len(seeds)  # really split
        for field in ("winner", "finished", "own", "foe", "actor_out"):
            assert np.array_equal(getattr(split, field), getattr(whole, field)), field


@pytest.mark.parametrize("name", ["destiny_dice/emboscada", "donjon/emboscada"])
def test_a_suggestion_is_the_same_with_one_thread_or_several(name: str) -> None:
    scenario = _kernel_scenario(name)
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    state = play_battle(scenario, agents, seed=2, stop_after=4, narrate=False)
    docs = []
    for threads in (1, 2):
        result = suggest(
            state, budget_ms=None, iterations=600, seed=1, engine="fast", threads=threads
        )
        doc = result.to_dict()
        doc["search"].pop("elapsed_ms")
        docs.append(doc)
    assert docs[0] == docs[1]


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_kernels_playtest_records_are_the_engines(name: str) -> None:
    # play_records goes through play_columns/records_from_columns, not KernelBattle.
    scenario = _kernel_scenario(name)
    for heroes, enemies in (
        ("heuristic", "heuristic"),
        ("random", "heuristic:brute"),
        ("heuristic:coward", "random"),
    ):
        fast = play_records(scenario, heroes, enemies, 5, 10, 22)
        reference = [play_one(scenario, heroes, enemies, 5, i) for i in range(10, 22)]
        assert fast == reference, (heroes, enemies)


@pytest.mark.parametrize("ruleset", sorted({load_scenario(n).ruleset.id for n in SCENARIOS}))
def test_reset_copies_exactly_the_arrays_kept_as_a_battles_state(ruleset: str) -> None:
    """``KEPT`` (what a batched env keeps per battle) is what the ruleset's ``reset``
    copies: every kept array becomes the start's, every other one is left as it was."""
    name = next(n for n in SCENARIOS if load_scenario(n).ruleset.id == ruleset)
    scenario = _kernel_scenario(name)
    kernel = find_kernel(ruleset)
    assert kernel is not None
    exported = kernel.exported(scenario)
    start = tuple(
        (np.arange(a.size).reshape(a.shape) % 97 + 1).astype(a.dtype) for a in exported.start
    )
    d = tuple(np.full_like(a, -3) for a in exported.start)
    kernel.rules.reset(exported.static, d, start)
    assert kernel.KEPT and len(set(kernel.KEPT)) == len(kernel.KEPT)
    for i, (after, source) in enumerate(zip(d, start, strict=True)):
        if i in kernel.KEPT:
            assert np.array_equal(after, source), f"array {i} is kept but reset does not copy it"
        else:
            assert (after == -3).all(), f"array {i} is scratch but reset changes it"
