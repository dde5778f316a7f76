"""The batched env as stable-baselines3's ``VecEnv`` (sb3-contrib's MaskablePPO included).

:class:`KernelVecEnv` drives a :class:`~escaramuza.envs.vector.KernelVectorEnv` in
same-step autoreset, which is what stable-baselines3's algorithms expect: a lane whose
battle ended returns the next battle's first observation, with the final one in its
info's ``terminal_observation`` and ``TimeLimit.truncated`` set when the round limit
ended it. ``env_method("action_masks")`` answers sb3-contrib's ``get_action_masks``
with each lane's mask; every other attribute and method is the batched env's, the same
for every lane. Wrap it in ``VecMonitor`` for episode statistics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from escaramuza.envs.common import lane_actions
from escaramuza.envs.vector import KernelVectorEnv


class LanesOfOneEnv(VecEnv):
    """stable-baselines3's attribute protocol for a ``VecEnv`` whose lanes are one
    batched env (or several alike): an attribute or method is the first's, the same for
    every lane; ``set_attr`` sets it on all; ``env_method("action_masks")`` gives each
    lane's mask; nothing is wrapped. A subclass gives :meth:`_batched` and
    :meth:`action_masks`."""

    def _batched(self) -> list[Any]:
        raise NotImplementedError

    def action_masks(self) -> np.ndarray:
        raise NotImplementedError

    def _lanes(self, indices: VecEnvIndices) -> list[int]:
        return list(self._get_indices(indices))

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self._batched()[0], attr_name)
        return [value for _ in self._lanes(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        for batched in self._batched():
            setattr(batched, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        lanes = self._lanes(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[b] for b in lanes]
        result = getattr(self._batched()[0], method_name)(*method_args, **method_kwargs)
        return [result for _ in lanes]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._lanes(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self._batched()[0], attr_name)


class KernelVecEnv(LanesOfOneEnv):
    """stable-baselines3's ``VecEnv`` over the kernel's batched env (the module's
    docstring). ``KernelVecEnv(ruleset, n_envs, **EscaramuzaEnv's arguments)``."""

    def __init__(self, ruleset: str, n_envs: int, **kwargs: Any) -> None:
        self.venv = KernelVectorEnv(
            ruleset, n_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs
        )
        super().__init__(n_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self._actions = np.zeros(n_envs, dtype=np.int64)

    def reset(self) -> np.ndarray:
        seeds: Sequence[int | None] = list(self._seeds) or [None] * self.num_envs
        obs, _ = self.venv.reset(seed=[None if s is None else int(s) for s in seeds])
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = lane_actions(actions, self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        dones = terminated | truncated
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = infos["final_obs"]
            for b in np.flatnonzero(dones).tolist():
                out[b]["terminal_observation"] = final[b]
                out[b]["TimeLimit.truncated"] = bool(truncated[b] and not terminated[b])
        return obs, rewards.astype(np.float32), dones, out

    def close(self) -> None:
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """Every lane's legal slots, ``(n_envs, n)``."""
        return self.venv.action_masks()

    def _batched(self) -> list[Any]:
        return [self.venv]
