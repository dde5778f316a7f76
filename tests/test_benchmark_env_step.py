"""benchmarks/env_step.py's replayed env: the batched env's own steps played back, so that
MaskablePPO's fps on it is its arithmetic at the env's spaces with nothing spent in the
env."""

from __future__ import annotations

import numpy as np

from escaramuza.envs.sb3 import KernelVecEnv
from tests.benchmark_scripts import load_benchmark

SCENARIO = "donjon/duelo"


def _kernel() -> KernelVecEnv:
    return KernelVecEnv("donjon", 4, scenario=SCENARIO, illegal_action="noop")


def test_the_replay_is_the_env_step_for_step_mask_for_observation_then_again() -> None:
    """Driven by the recording's own random legal learner (the same seed), a fresh env
    gives every observation, reward, end and mask the replay gives, each mask with the
    observation it belongs to; after its last step the replay starts again from its
    first."""
    steps = 40
    replay = load_benchmark("env_step").replayed(_kernel(), steps, seed=3)
    live = _kernel()
    rng = np.random.default_rng(3)
    live.seed(3)
    np.testing.assert_array_equal(replay.reset(), live.reset())
    seen = []
    for _ in range(steps):
        masks = live.action_masks()
        np.testing.assert_array_equal(replay.action_masks(), masks)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        live.step_async(actions)
        want = live.step_wait()
        replay.step_async(actions)
        got = replay.step_wait()
        for a, b in zip(got[:3], want[:3], strict=True):
            np.testing.assert_array_equal(a, b)
        assert [sorted(i) for i in got[3]] == [sorted(i) for i in want[3]]
        seen.append(got[0])
    assert any(got[2])  # some battle ended within the recording
    again = _kernel()
    again.seed(3)
    again.reset()
    np.testing.assert_array_equal(replay.action_masks(), again.action_masks())
    np.testing.assert_array_equal(replay.step_wait()[0], seen[0])
