"""Rendering: ansi returns the step's narrated lines, rgb_array a picture of the map."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from escaramuza.envs import aec
from tests.envs.envtest_cases import ENV_RULESETS


@pytest.mark.parametrize("env_id", sorted(ENV_RULESETS))
def test_ansi_is_the_steps_narration(env_id: str) -> None:
    env = gym.make(env_id, render_mode="ansi", opponent="random")
    env.reset(seed=1)
    mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
    _, _, _, _, info = env.step(int(np.flatnonzero(mask)[0]))
    text = env.render()
    assert isinstance(text, str)
    lines = text.splitlines()
    narrated = [e.text for e in info["events"]]
    assert narrated and lines[: len(narrated)] == narrated
    # Then one status line per combatant.
    assert len(lines) == len(narrated) + len(env.unwrapped.state.combatants)  # type: ignore[attr-defined]


@pytest.mark.parametrize("env_id", sorted(ENV_RULESETS))
def test_rgb_array_is_a_picture(env_id: str) -> None:
    env = gym.make(env_id, render_mode="rgb_array", opponent="random")
    env.reset(seed=1)
    frame = env.render()
    assert isinstance(frame, np.ndarray)
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.shape[0] >= 200 and frame.shape[1] >= 200
    # Not a blank canvas: tokens and zones put several colours on it.
    packed = (frame[..., 0].astype(np.uint32) << 16) | (frame[..., 1].astype(np.uint32) << 8)
    assert len(np.unique(packed | frame[..., 2])) > 10


def test_render_without_mode_returns_none() -> None:
    env = gym.make("escaramuza/DestinyDice-v0", opponent="random")
    env.reset(seed=0)
    with pytest.warns(UserWarning):
        assert env.render() is None


def test_aec_renders_ansi() -> None:
    env = aec.raw_env(ruleset="destiny_dice", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text
