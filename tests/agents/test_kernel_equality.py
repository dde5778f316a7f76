"""The kernel equality suite: every ruleset's kernel plays the engine's battles.

One suite over every ruleset of ``RULESETS`` (as Minigrid's tests run over every
registered env), rather than a copy per kernel: every shipped scenario × every pairing
of the agents a kernel plays (``tests.fastpath_helpers.KERNEL_SPECS``) × seeds, odd and
large seeds; generated scenarios of each ruleset (:data:`tests.kernel_cases.SCENARIOS`);
rollouts from mid-battle states against the planner's own (``MCTS._descend``), up to the
decision cap; and what every kernel refuses. The reference side is always the engine's
battle in the kernel's terms (``tests.fastpath_helpers``), never a kernel module.
What is particular to one ruleset (a rule's edge, a table edited, a reaction resumed)
stays in ``tests/rules/<ruleset>/test_*kernel*.py``.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import strategies as st

from escaramuza.agents import make_agent
from escaramuza.agents.fast import compare, find_kernel
from escaramuza.agents.runner import play_battle
from escaramuza.playtest import battle_seed
from escaramuza.rules import RULESETS
from escaramuza.rules.core.kernel import Kernel, KernelRefusal
from escaramuza.rules.core.loops import TEMPERAMENTS
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from tests.fastpath_helpers import (
    KERNEL_SPECS,
    engine_rollout,
    rollout_row,
    ruleset_scenarios,
)
from tests.kernel_cases import SCENARIOS, draw_scenario, generated

pytestmark = pytest.mark.compile

SHIPPED = sorted(shipped_scenarios())
PAIRINGS = list(itertools.product(KERNEL_SPECS, KERNEL_SPECS))


def _kernel(ruleset: str) -> Kernel:
    kernel = find_kernel(ruleset)
    assert kernel is not None, ruleset
    return kernel


def test_every_ruleset_has_a_kernel_and_generated_scenarios() -> None:
    """A ruleset added without a kernel, without a shipped scenario, or without a
    strategy in tests/kernel_cases.py, would leave this suite silently smaller; so would
    a temperament the kernels did not play."""
    assert set(SCENARIOS) == set(RULESETS)
    assert all(find_kernel(r) is not None and ruleset_scenarios(r) for r in RULESETS)
    assert {"random", "first-legal", "heuristic"} <= set(KERNEL_SPECS)
    assert {f"heuristic:{t}" for t in TEMPERAMENTS} <= set(KERNEL_SPECS)


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


@pytest.mark.parametrize("name", SHIPPED)
def test_odd_and_large_seeds_play_the_engines_battles(name: str) -> None:
    """Seed 0, and seeds beyond 32, 40 and 63 bits, seed ``random.Random`` with more key
    words; a random agent on one side draws from its generator at every decision."""
    seeds = [0, 2**32 + 5, 2**40 + 3, 2**70 + 1]
    assert [str(m) for m in compare(load_scenario(name), ("heuristic", "random"), seeds)] == []


@pytest.mark.parametrize("name", SHIPPED)
def test_the_compared_battles_are_real_fights(name: str) -> None:
    """The comparisons must see real fights: heuristic battles won by either side,
    knock-outs, and decisions and damage in every one."""
    scenario = load_scenario(name)
    kernel = _kernel(scenario.ruleset.id)
    battles = kernel.play_battles(scenario, ("heuristic", "heuristic"), list(range(40)))
    assert any(b.winner == "heroes" for b in battles)
    assert any(b.winner == "enemies" for b in battles)
    assert any(any(k >= 1 for k in b.ko_round) for b in battles)
    assert all(b.decisions > 0 and sum(b.taken) > 0 for b in battles)


@generated(20)
def test_generated_scenarios_play_the_engines_battles(ruleset: str, data: Any) -> None:
    scenario = draw_scenario(data, ruleset)
    agents = data.draw(st.sampled_from(PAIRINGS), label="agents")
    seed = data.draw(st.integers(0, 2**40), label="seed")
    assert _kernel(ruleset).refusal(scenario, agents) is None
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
@pytest.mark.parametrize(
    ("horizon", "own", "cap"),
    [(None, None, 5000), (2, "brute", 5000), (1, "random", 5000), (None, None, 3)],
)
def test_rollouts_are_the_planners(
    name: str, horizon: int | None, own: str | None, cap: int
) -> None:
    """Rollouts of a few actions of each state; with a cap of three decisions, some stop
    there unfinished on the engine and on the kernel alike."""
    kernel = _kernel(load_scenario(name).ruleset.id)
    seeds = [11, 2**33 + 5, 4242]
    rows = []
    for state in _mid_battle_states(name, 4):
        legal = state.ruleset.legal_actions(state)
        actions = list(dict.fromkeys([legal[0], legal[-1], legal[len(legal) // 2]]))
        batch = kernel.rollouts(state, actions, seeds, horizon, own, cap)
        for a, action in enumerate(actions):
            for j, seed in enumerate(seeds):
                want = engine_rollout(state, action, seed, horizon, own, cap)
                assert rollout_row(batch, a, j) == want, (state.pending.name, action, seed)
                rows.append(want)
    assert len(rows) >= 12
    if cap == 3:
        assert not all(finished for _, finished, *_ in rows)


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_kernels_refuse_other_agents_and_rulesets(ruleset: str) -> None:
    """Every pairing of ``KERNEL_SPECS`` is played; ``mcts`` and ``policy:…`` on either
    side are refused by name (``play_battles`` raises), as is another ruleset's
    scenario."""
    kernel = _kernel(ruleset)
    for name in ruleset_scenarios(ruleset):
        scenario = load_scenario(name)
        assert all(kernel.refusal(scenario, agents) is None for agents in PAIRINGS)
        for agents in (("mcts", "heuristic"), ("heuristic", "mcts")):
            why = kernel.refusal(scenario, agents)
            assert why is not None and "'mcts'" in why, agents
        for spec in ("mcts", "policy:x"):
            for agents in ((spec, "heuristic"), ("heuristic", spec)):
                with pytest.raises(KernelRefusal, match=spec):
                    kernel.play_battles(scenario, agents, [1])
    for other in sorted(set(RULESETS) - {ruleset}):
        why = kernel.refusal(load_scenario(ruleset_scenarios(other)[0]), ("heuristic",) * 2)
        assert why is not None and f"ruleset '{other}'" in why


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_rollouts_refuse_a_finished_battle(ruleset: str) -> None:
    scenario = load_scenario(ruleset_scenarios(ruleset)[0])
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("heuristic")}
    state = play_battle(scenario, agents, 3, narrate=False)
    assert state.outcome is not None
    with pytest.raises(KernelRefusal, match="unfinished battle"):
        _kernel(ruleset).rollouts(state, [], [1], None, None, 10)
