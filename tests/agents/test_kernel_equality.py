"""The kernel equality suite: every ruleset's kernel plays the engine's battles.

One suite over every ruleset of ``RULESETS`` (as Minigrid's tests run over every
registered env), rather than a copy per kernel: every shipped scenario × every pairing
of the agents a kernel plays × seeds; generated scenarios of each ruleset
(:data:`tests.kernel_cases.SCENARIOS`); and rollouts from mid-battle states against the
planner's own (``MCTS._descend``). The reference side is always the engine's battle in
the kernel's terms (``tests.fastpath_helpers``), never a kernel module.
What is particular to one ruleset (a rule's edge, a table edited, a reaction resumed)
stays in ``tests/rules/<ruleset>/test_*kernel*.py``.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from escaramuza.agents import make_agent
from escaramuza.agents.fast import compare, find_kernel
from escaramuza.agents.runner import play_battle
from escaramuza.playtest import battle_seed
from escaramuza.rules import RULESETS
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from tests.fastpath_helpers import KERNEL_SPECS, engine_rollout
from tests.kernel_cases import SCENARIOS, generated

pytestmark = pytest.mark.compile

SHIPPED = sorted(shipped_scenarios())
PAIRINGS = list(itertools.product(KERNEL_SPECS, KERNEL_SPECS))


def test_every_ruleset_has_a_kernel_and_generated_scenarios() -> None:
    """A ruleset added without a kernel, or without a strategy in tests/kernel_cases.py,
    would leave this suite silently smaller."""
    assert set(SCENARIOS) == set(RULESETS)
    assert all(find_kernel(r) is not None for r in RULESETS)


@pytest.mark.parametrize("name", SHIPPED)
def test_heuristic_battles_are_the_engines_over_many_seeds(name: str) -> None:
    """The pairing every fast path plays most (playtest, balance): forty seeds, and two
    past 2**31 and 2**40 (two-word generator keys)."""
    seeds = [battle_seed(99, i) for i in range(40)] + [2**31 + 7, 2**40 + 3]
    scenario = load_scenario(name)
    assert [str(m) for m in compare(scenario, ("heuristic", "heuristic"), seeds)] == []


@pytest.mark.parametrize("name", SHIPPED)
def test_every_pairing_plays_the_engines_battles(name: str) -> None:
    scenario = load_scenario(name)
    for k, agents in enumerate(PAIRINGS):
        seeds = [battle_seed(k, i) for i in range(2)]
        assert [str(m) for m in compare(scenario, agents, seeds)] == [], agents


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
@generated(20)
@given(data=st.data())
def test_generated_scenarios_play_the_engines_battles(ruleset: str, data: Any) -> None:
    scenario = data.draw(SCENARIOS[ruleset](), label="scenario")
    agents = data.draw(st.sampled_from(PAIRINGS), label="agents")
    seed = data.draw(st.integers(0, 2**40), label="seed")
    assert find_kernel(ruleset).refusal(scenario, agents) is None  # type: ignore[union-attr]
    assert [str(m) for m in compare(scenario, agents, [seed, seed + 1, seed + 2])] == []


def _mid_battle_states(name: str, count: int) -> list[Any]:
    """``count`` unfinished states of heuristic-against-random battles, at decisions
    drawn from the first forty (turns, reactions and choices alike)."""
    scenario = load_scenario(name)
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("random")}
    pick = random.Random(name)
    states: list[Any] = []
    for seed in range(60):
        if len(states) == count:
            break
        state = play_battle(scenario, agents, seed, stop_after=pick.randrange(40), narrate=False)
        if state.outcome is None:
            states.append(state)
    return states


@pytest.mark.parametrize("name", SHIPPED)
@pytest.mark.parametrize(("horizon", "own"), [(None, None), (2, "brute"), (1, "random")])
def test_rollouts_are_the_planners(name: str, horizon: int | None, own: str | None) -> None:
    kernel = find_kernel(load_scenario(name).ruleset.id)
    assert kernel is not None
    seeds = [11, 2**33 + 5, 4242]
    checked = 0
    for state in _mid_battle_states(name, 4):
        legal = state.ruleset.legal_actions(state)
        actions = list(dict.fromkeys([legal[0], legal[-1], legal[len(legal) // 2]]))
        batch = kernel.rollouts(state, actions, seeds, horizon, own, 5000)
        for a, action in enumerate(actions):
            for j, seed in enumerate(seeds):
                got = (
                    int(batch.winner[a, j]),
                    bool(batch.finished[a, j]),
                    float(batch.own[a, j]),
                    float(batch.foe[a, j]),
                    bool(batch.actor_out[a, j]),
                )
                want = engine_rollout(state, action, seed, horizon, own, 5000)
                assert got == want, (state.pending.name, action, seed)
                checked += 1
    assert checked >= 12
