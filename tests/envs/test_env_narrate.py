"""``narrate=False``: the same battle without the ActionTaken lines (the training envs' mode)."""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest

import escaramuza.envs  # noqa: F401 - registers the ids
from escaramuza.rules.core.events import ActionTaken


@pytest.mark.parametrize(
    ("env_id", "scenario"),
    [
        ("escaramuza/DestinyDice-v0", "destiny_dice/emboscada"),
        ("escaramuza/Donjon-v0", "donjon/duelo"),
        ("escaramuza/Cairn-v0", "cairn/duelo_bugbear"),
        ("escaramuza/Sistema2d10-v0", "sistema_2d10/duelo"),
    ],
)
def test_quiet_env_plays_the_same_battle(env_id: str, scenario: str) -> None:
    loud = gym.make(env_id, scenario=scenario, reward_shaping=True).unwrapped
    quiet = gym.make(env_id, scenario=scenario, reward_shaping=True, narrate=False).unwrapped
    for seed in range(3):
        obs_l, info_l = loud.reset(seed=seed)
        obs_q, info_q = quiet.reset(seed=seed)
        rng = random.Random(seed)
        narrated = 0
        done = False
        while True:
            assert np.array_equal(obs_l, obs_q)
            assert np.array_equal(loud.action_masks(), quiet.action_masks())
            kept = [e for e in info_l["events"] if not isinstance(e, ActionTaken)]
            narrated += len(info_l["events"]) - len(kept)
            assert [e.to_json() for e in kept] == [e.to_json() for e in info_q["events"]]
            assert not any(isinstance(e, ActionTaken) for e in info_q["events"])
            if done:
                break
            action = int(rng.choice(np.flatnonzero(loud.action_masks())))
            obs_l, r_l, term, trunc, info_l = loud.step(action)
            obs_q, r_q, term_q, trunc_q, info_q = quiet.step(action)
            assert (r_l, term, trunc) == (r_q, term_q, trunc_q)
            done = term or trunc
        # The loud env did narrate: the comparison above was not vacuous.
        assert narrated > 0
        assert not any(isinstance(e, ActionTaken) for e in quiet.state.log)
