"""The batched two-sided env is the PettingZoo AEC env, lane by lane, step by step.

Every lane of :class:`~escaramuza.envs.aec_vector.KernelAECVectorEnv` against its own
``escaramuza.envs.aec.raw_env``, reset again after each end as the batched env's next-step
autoreset does: the same actions (drawn among the acting side's legal ones), and then the
acting side, its observation and mask, both sides' rewards, terminations and
truncations must be equal, and every finished battle's final state. A battle over at
reset, which raw_env reports at reset, the lane reports at its first step.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st

from escaramuza.agents.fast import diff, final_battle
from escaramuza.envs.aec import AGENTS, raw_env
from escaramuza.envs.aec_vector import KernelAECVectorEnv
from escaramuza.rules.core.scenario import (
    Scenario,
    load_scenario,
    parse_scenario_text,
    shipped_scenarios,
)
from tests.kernel_cases import draw_scenario, generated

pytestmark = pytest.mark.compile

SHIPPED = sorted(shipped_scenarios())


def check_lane(vec_obs: Any, mask: Any, acting: int, env: Any, where: Any) -> None:
    """Lane ``b`` shows what ``env`` shows its acting side."""
    agent = env.agent_selection
    assert AGENTS[acting] == agent, where
    seen = env.observe(agent)
    assert np.array_equal(vec_obs, seen["observation"]), where
    if env.battle.outcome is None:
        assert np.array_equal(mask, seen["action_mask"].astype(bool)), where


def _over_at_reset(env: Any, mask: Any, where: Any) -> tuple[list[float], tuple[bool, bool]] | None:
    """What raw_env said at reset of a battle already over (its rewards, terminated,
    truncated), for the lane to say at its first step; None if the battle goes on."""
    if env.battle.outcome is None:
        return None
    agent = env.agent_selection
    assert np.flatnonzero(mask).tolist() == [0], where
    return [env.rewards[a] for a in AGENTS], (env.terminations[agent], env.truncations[agent])


def run_both(scenario: Scenario, lanes: int, steps: int, seed: int, draw: float = 0.0) -> int:
    """Step both ``steps`` times; the battles finished (every one compared)."""
    ruleset = scenario.ruleset.id
    vec = KernelAECVectorEnv(ruleset, lanes, scenario, draw_reward=draw)
    envs = [raw_env(ruleset, scenario, draw_reward=draw) for _ in range(lanes)]
    obs, infos = vec.reset(seed=seed)
    # A battle over before its first decision (a hero's poison at the start of its turn):
    # raw_env says so at reset; a vector env's reset has no terminations, so the lane says
    # it at its first step, whatever the action (slot 0, its only legal one).
    over: list[tuple[list[float], tuple[bool, bool]] | None] = [None] * lanes
    for b, env in enumerate(envs):
        env.reset(seed=seed + b)
        check_lane(obs[b], vec.action_masks()[b], int(infos["agent_selection"][b]), env, b)
        over[b] = _over_at_reset(env, vec.action_masks()[b], b)
    pick = random.Random(seed)
    again = [False] * lanes
    finished = 0
    for t in range(steps):
        masks = vec.action_masks()
        actions = np.array([int(pick.choice(np.flatnonzero(m).tolist())) for m in masks])
        obs, rewards, terms, truncs, infos = vec.step(actions)
        masks = vec.action_masks()
        for b, env in enumerate(envs):
            where = (scenario.name, t, b)
            if again[b]:
                # The step after an end started the lane's next battle (autoreset).
                env.reset()
                assert rewards[b].tolist() == [0.0, 0.0] and not terms[b], where
                over[b] = _over_at_reset(env, masks[b], where)
                again[b] = False
            else:
                said = over[b]
                if said is None:
                    agent = env.agent_selection
                    env.step(int(actions[b]))
                    said = (
                        [env.rewards[a] for a in AGENTS],
                        (env.terminations[agent], env.truncations[agent]),
                    )
                over[b] = None
                assert rewards[b].tolist() == said[0], where
                assert (terms[b], truncs[b]) == said[1], where
                if terms[b] or truncs[b]:
                    got = vec.last_battle(b)
                    engine = final_battle(env.battle, got.seed, got.decisions)
                    assert [str(m) for m in diff(engine, got)] == [], where
                    again[b] = True
                    finished += 1
            check_lane(obs[b], masks[b], int(infos["agent_selection"][b]), env, where)
    return finished


@pytest.mark.parametrize("name", SHIPPED)
def test_every_lane_is_the_aec_env(name: str) -> None:
    assert run_both(load_scenario(name), lanes=2, steps=700, seed=11, draw=-0.25) >= 1


@generated(6)
def test_generated_scenarios_step_as_the_aec_env(ruleset: str, data: Any) -> None:
    scenario = draw_scenario(data, ruleset)
    seed = data.draw(st.integers(0, 2**40), label="seed")
    run_both(scenario, lanes=2, steps=40, seed=seed)


# Ilse, poisoned at 1 PV, may die as her first turn starts: the battle is over at reset.
POISONED = """
name: veneno
ruleset: destiny_dice
round_limit: 2
battlefield:
  zones: [{id: z0}, {id: z1}]
  links: [[z1, z0]]
combatants:
- {id: ilse, side: heroes, zone: z0, cuerpo: d4, mente: d4, alma: d4, pv: 3, pv_current: 1,
   conditions: [{name: envenenado, x: '1'}]}
- {id: rex, side: enemies, zone: z0, cuerpo: d4, mente: d4, alma: d4, defensa: d4, pv: 3}
"""


def test_a_battle_over_at_reset_is_reported_by_the_lanes_first_step() -> None:
    scenario = parse_scenario_text(POISONED, "<veneno>", default_name="veneno")
    env = raw_env("destiny_dice", scenario)
    over = []
    for seed in range(2):
        env.reset(seed=seed)
        over.append(env.battle.outcome is not None)
    assert over == [False, True]  # lane 1's battle ends at reset (the case under test)
    assert run_both(scenario, lanes=2, steps=12, seed=0) >= 1
