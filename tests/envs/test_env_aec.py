"""The PettingZoo AEC env: api_test, seed_test, masks per side, rewards."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium.error import ClosedEnvironmentError
from pettingzoo.test import api_test, seed_test

from escaramuza.envs import aec
from escaramuza.rules.core.errors import IllegalActionError
from tests.envs.envtest_cases import cases

# Advice PettingZoo's api_test prints for every env whose agents are not "player_<n>"
# or whose observation is a Dict; the issue asks for exactly these names and spaces.
_API_ADVICE = (
    "ignore:.*should be gymnasium.spaces.box.*:UserWarning",
    "ignore:.*agents to be named in the format.*:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
)


@cases
@pytest.mark.filterwarnings(*_API_ADVICE)
def test_api_test(env_id: str, ruleset_id: str, scenario: str) -> None:
    api_test(aec.env(ruleset=ruleset_id, scenario=scenario), num_cycles=200)


@cases
def test_seed_test(env_id: str, ruleset_id: str, scenario: str) -> None:
    seed_test(lambda: aec.env(ruleset=ruleset_id, scenario=scenario), num_cycles=200)


@cases
def test_mask_is_zero_for_the_side_not_acting_and_rewards_are_zero_sum(
    env_id: str, ruleset_id: str, scenario: str
) -> None:
    env = aec.raw_env(ruleset=ruleset_id, scenario=scenario)
    env.reset(seed=3)
    rng = random.Random(3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(5000):
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        other = next(a for a in env.possible_agents if a != agent)
        assert obs["action_mask"].dtype == np.int8
        assert obs["action_mask"].any()
        assert not env.observe(other)["action_mask"].any()
        assert env.agent_selection == env.battle.pending.side.value
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    assert not env.agents
    outcome = env.battle.outcome
    assert outcome is not None
    if outcome.winner is None:
        assert totals == {"heroes": 0.0, "enemies": 0.0}
    else:
        assert totals[outcome.winner.value] == 1.0
        assert totals[outcome.winner.other.value] == -1.0


def test_raw_env_raises_and_wrapped_env_ends_the_game_on_an_illegal_action() -> None:
    raw = aec.raw_env(ruleset="destiny_dice")
    raw.reset(seed=0)
    illegal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        raw.step(illegal)
    wrapped = aec.env(ruleset="destiny_dice")
    wrapped.reset(seed=0)
    mover = wrapped.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(illegal)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[mover] == -1


@pytest.mark.parametrize("make", [aec.raw_env, aec.env], ids=["raw", "wrapped"])
def test_a_closed_env_refuses_reset_step_observe_and_last(make: Any) -> None:
    """They went on after close(); they are refused now, as the single-agent and batched
    envs' are. Closing twice is allowed (Gymnasium's rule)."""
    env = make(ruleset="destiny_dice")
    env.reset(seed=0)
    env.close()
    env.close()
    calls = [
        lambda: env.reset(seed=1),
        lambda: env.step(0),
        lambda: env.observe("heroes"),
        lambda: env.last(),
    ]
    for call in calls:
        with pytest.raises(ClosedEnvironmentError) as caught:
            call()
        assert str(caught.value) == (
            "escaramuza_v0: the env is closed (close() was called); make a new one"
        )


@pytest.mark.parametrize("mode", ["human", "bogus"])
def test_a_render_mode_it_does_not_have_is_refused_as_the_parallel_envs(mode: str) -> None:
    """Any mode was taken and rendered as rgb_array (an image every step, thrown away, and
    no window for "human"); it is refused by name, as the parallel env refuses it."""
    from escaramuza.envs.parallel import parallel_env

    want = f"render_mode must be one of \\['ansi', 'rgb_array'\\], not '{mode}'"
    for make in (aec.raw_env, parallel_env):
        with pytest.raises(ValueError, match=want):
            make(ruleset="destiny_dice", render_mode=mode)
    assert aec.raw_env(ruleset="destiny_dice", render_mode="ansi").render_mode == "ansi"
