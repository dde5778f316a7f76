"""Gymnasium's and stable-baselines3's env checkers on every registered id and scenario."""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from tests.envs.envtest_cases import cases


@cases
def test_gymnasium_check_env_on_the_unwrapped_env(
    env_id: str, ruleset_id: str, scenario: str
) -> None:
    env = gym.make(env_id, scenario=scenario, opponent="random")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Alternative render modes are exercised once per id in test_env_render.py.
        check_env(env.unwrapped, skip_render_check=True)


@cases
def test_gymnasium_check_env_on_the_made_env(env_id: str, ruleset_id: str, scenario: str) -> None:
    env = gym.make(env_id, scenario=scenario)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The checker itself warns that a made env is wrapped; that one is expected.
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version.*")
        check_env(env, skip_render_check=True)


@cases
def test_sb3_check_env(env_id: str, ruleset_id: str, scenario: str) -> None:
    env = gym.make(env_id, scenario=scenario, opponent="random")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(env, warn=True)


@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_check_env_with_render_modes(render_mode: str) -> None:
    env = gym.make("escaramuza/DestinyDice-v0", opponent="random", render_mode=render_mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
