"""Shared parametrisation of the env suite: every registered id × every shipped scenario.

A ruleset that lands in ``RULESETS`` with shipped scenarios is picked up here
without editing the tests (the requirement: a ruleset that registers a new env gets
all of this for free).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import escaramuza.envs  # noqa: F401  (registers the ids)
from escaramuza.envs.registration import env_ids
from escaramuza.envs.single import EscaramuzaEnv
from escaramuza.rules import get_ruleset
from escaramuza.rules.core.scenario import shipped_scenarios

#: Gymnasium id → ruleset id, for every registered escaramuza env.
ENV_RULESETS: dict[str, str] = env_ids()


def scenarios_of(ruleset_id: str) -> list[str]:
    return [name for name in shipped_scenarios() if name.split("/", 1)[0] == ruleset_id]


#: (env id, ruleset id, scenario name) for every registered id and shipped scenario.
CASES: list[tuple[str, str, str]] = [
    (env_id, ruleset_id, scenario)
    for env_id, ruleset_id in ENV_RULESETS.items()
    for scenario in scenarios_of(ruleset_id)
]
CASE_IDS = [scenario for _, _, scenario in CASES]

#: One scenario per registered id (the ruleset's default), for the slower checks.
DEFAULT_CASES: list[tuple[str, str, str]] = [
    (env_id, ruleset_id, get_ruleset(ruleset_id).default_scenario)
    for env_id, ruleset_id in ENV_RULESETS.items()
]

cases = pytest.mark.parametrize(("env_id", "ruleset_id", "scenario"), CASES, ids=CASE_IDS)
default_cases = pytest.mark.parametrize(
    ("env_id", "ruleset_id", "scenario"), DEFAULT_CASES, ids=[c[0] for c in DEFAULT_CASES]
)


def masked_choice(mask: np.ndarray, rng: random.Random) -> int:
    """A uniformly random legal index of a boolean mask."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(len(legal))])


def rollout(
    env: EscaramuzaEnv, seed: int, max_steps: int = 10_000
) -> tuple[list[np.ndarray], list[float], list[str], bool, bool]:
    """A random masked rollout; the learner's choices come from ``seed`` too."""
    rng = random.Random(seed)
    obs, info = env.reset(seed=seed)
    observations = [obs]
    rewards: list[float] = []
    lines = [e.text for e in info["events"]]
    terminated = truncated = False
    for _ in range(max_steps):
        obs, reward, terminated, truncated, info = env.step(masked_choice(env.action_masks(), rng))
        observations.append(obs)
        rewards.append(float(reward))
        lines.extend(e.text for e in info["events"])
        if terminated or truncated:
            break
    return observations, rewards, lines, terminated, truncated
