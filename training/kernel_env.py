"""``escaramuza train``'s envs on the kernel: its :class:`ScenarioSampler`, batched.

``escaramuza train --vec kernel`` steps the same battles as ``--vec dummy``: each of
the ``n_envs`` lanes is what ``make_train_env`` builds for one (scenario, side) — a
:class:`~escaramuza.training.envs.ScenarioSampler` over one env — played on the batched
kernel env (``escaramuza.envs.sb3``). So a lane seeds each battle as the sampler does
(a seed drawn from the lane's generator seeds the env's), and truncates an episode after
:data:`~escaramuza.training.envs.MAX_CONSECUTIVE_ILLEGAL` illegal no-ops in a row, as
the sampler does for an unmasked learner. The same run on either learns the same weights
(tests/training/test_training_kernel_env.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import seeding
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from escaramuza.envs.sb3 import KernelVecEnv
from escaramuza.envs.vector import KernelVectorEnv
from escaramuza.training.envs import MAX_CONSECUTIVE_ILLEGAL


class SampledBattles(KernelVectorEnv):
    """The batched env with each battle seeded as ``ScenarioSampler.reset`` seeds its
    env: from a generator seeded by a number the lane's own generator draws."""

    def battle_generator(self, lane: int) -> np.random.Generator:
        inner = int(self._rngs[lane].integers(0, 2**62))
        return seeding.np_random(inner)[0]


class KernelTrainEnv(KernelVecEnv):
    """``escaramuza train``'s ``n_envs`` samplers of one (scenario, side) on the kernel
    (the module's docstring); ``KernelTrainEnv(ruleset, n_envs, **KernelVectorEnv's
    arguments)``."""

    batched = SampledBattles

    def __init__(self, ruleset: str, n_envs: int, **kwargs: Any) -> None:
        super().__init__(ruleset, n_envs, **kwargs)
        self.streak = np.zeros(n_envs, dtype=np.int64)

    def reset(self) -> np.ndarray:
        self.streak[:] = 0
        return super().reset()

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, dones, infos = super().step_wait()
        self.streak = np.where(self.illegal, self.streak + 1, 0)
        cut = (self.streak >= MAX_CONSECUTIVE_ILLEGAL) & ~dones
        if cut.any():
            # ScenarioSampler truncates the episode; the next battle starts now.
            for b in np.flatnonzero(cut).tolist():
                infos[b]["terminal_observation"] = obs[b].copy()
                infos[b]["TimeLimit.truncated"] = True
                infos[b]["illegal_streak"] = int(self.streak[b])
            self.venv.restart(cut)
            obs = obs.copy()
            obs[cut] = self.venv.observations()[cut]
            dones = dones | cut
        self.streak[dones] = 0
        return obs, rewards, dones, infos
