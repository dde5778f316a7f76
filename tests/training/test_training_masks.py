"""The training env's masks: what MaskablePPO reads is the current battle's legal set.

``ScenarioSampler.action_masks`` hands over the chosen env's kept mask (computed once
per decision, tests/envs/test_env_decision_cache.py); across scenario switches, no-ops and
episode ends it must always equal a mask computed afresh from ``legal_actions``.
"""

from __future__ import annotations

import random

import numpy as np

from escaramuza.training.envs import make_train_env

SCENARIOS = ["destiny_dice/emboscada", "destiny_dice/kaspar-tiroteo"]


def test_the_samplers_mask_is_always_the_current_battles_legal_set() -> None:
    env = make_train_env("escaramuza/DestinyDice-v0", SCENARIOS, "both", "heuristic", True)
    rng = random.Random(5)
    seen: set[tuple[str, str]] = set()
    env.reset(seed=2)
    for _ in range(1500):
        current = env.current
        state = current.state
        seen.add((current.scenario.name, current.side.value))
        mask = env.action_masks()
        if state.outcome is None:
            expected = current.codec.mask(state)
            assert expected.any()
        else:
            expected = np.zeros(current.codec.n, dtype=bool)
            expected[0] = True
        assert np.array_equal(mask, expected)
        pool = np.flatnonzero(~mask) if rng.random() < 0.2 else np.flatnonzero(mask)
        _, _, terminated, truncated, _ = env.step(int(pool[rng.randrange(len(pool))]))
        if terminated or truncated:
            env.reset()
    assert len(seen) == 4  # both scenarios, both sides
