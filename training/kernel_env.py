"""``escaramuza train``'s envs on the kernel: its :class:`ScenarioSampler`, batched.

``escaramuza train --vec kernel`` steps the same battles as ``--vec dummy``: each of the
``n_envs`` lanes is the :class:`~escaramuza.training.envs.ScenarioSampler` that
``make_train_env`` builds over every (scenario, side) of the run, played on the batched
kernel env (``escaramuza.envs.vector``, one per (scenario, side), each lane active in one
at a time). A lane picks each battle's (scenario, side) and seed as the sampler does —
from its own generator, the chosen env's generator seeded with a number drawn from it —
and cuts an episode after :data:`~escaramuza.training.envs.MAX_CONSECUTIVE_ILLEGAL`
illegal no-ops in a row, as the sampler does for an unmasked learner. The same run on
either learns the same weights (tests/training/test_training_kernel_env.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.utils import seeding
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from escaramuza.envs.common import lane_actions
from escaramuza.envs.sb3 import LanesOfOneEnv
from escaramuza.envs.vector import KernelVectorEnv
from escaramuza.rules.core.model import Side
from escaramuza.training.envs import MAX_CONSECUTIVE_ILLEGAL, draw_env, env_weights


class KernelTrainEnv(LanesOfOneEnv):
    """``n_envs`` scenario samplers over ``combos`` — (scenario, side) pairs, scenario
    None for the ruleset's default — on the kernel (the module's docstring), as
    stable-baselines3's ``VecEnv``; ``kwargs`` go to every ``KernelVectorEnv``."""

    def __init__(
        self,
        ruleset: str,
        n_envs: int,
        combos: Sequence[tuple[str | None, str]],
        opponents: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> None:
        # With an opponent pool (``opponents``), one batched env per (scenario, side,
        # member), in make_train_env's order, drawn with the pool's weights.
        pool = list(opponents) if opponents is not None else None
        if pool is None:
            specs: list[Any] = [kwargs.pop("opponent", "heuristic")]
        else:
            kwargs.pop("opponent", None)
            specs = pool
        triples = [(scenario, side, m) for scenario, side in combos for m in range(len(specs))]
        self.subs = [
            KernelVectorEnv(
                ruleset,
                n_envs,
                scenario=scenario,
                side=side,  # type: ignore[arg-type]
                opponent=specs[m],
                **kwargs,
            )
            for scenario, side, m in triples
        ]
        self.members = [m for _, _, m in triples] if pool is not None else None
        self.weights: np.ndarray | None = (
            np.full(len(self.subs), 1.0 / len(self.subs)) if pool is not None else None
        )
        first = self.subs[0]
        super().__init__(n_envs, first.single_observation_space, first.single_action_space)
        self.sides = [0 if sub.side is Side.HEROES else 1 for sub in self.subs]
        self.samplers = [seeding.np_random(None)[0] for _ in range(n_envs)]
        self.active = np.zeros(n_envs, dtype=np.int64)
        self.streak = np.zeros(n_envs, dtype=np.int64)
        # No lane has begun a battle yet (``reset`` begins them): zeros, as observations()
        # gives them, without compiling its encoder.
        self._obs = np.zeros((n_envs, first.encoder.size), dtype=np.float32)
        self._mask = first.action_masks()
        self._actions = np.zeros(n_envs, dtype=np.int64)

    def _begin(self, lanes: np.ndarray) -> None:
        """Each lane of ``lanes`` starts its next battle as ``ScenarioSampler.reset``
        does: a (scenario, side) drawn from the lane's generator, then the seed of that
        env's generator."""
        chosen: list[dict[int, np.random.Generator]] = [{} for _ in self.subs]
        for b in np.flatnonzero(lanes).tolist():
            rng = self.samplers[b]
            pick = draw_env(rng, len(self.subs), self.weights)
            inner = int(rng.integers(0, 2**62))
            chosen[pick][b] = seeding.np_random(inner)[0]
            self.active[b] = pick
        for sub, gens in zip(self.subs, chosen, strict=True):
            if gens:
                rows = np.zeros(self.num_envs, dtype=np.bool_)
                rows[list(gens)] = True
                sub.restart(rows, gens)
                self._gather(sub, rows)
        self.streak[lanes] = 0

    def _gather(self, sub: KernelVectorEnv, rows: np.ndarray) -> None:
        # The rows the sub-env's last call stepped (``rows``) hold its new observations.
        self._obs[rows] = sub._obs_out[rows]
        self._mask[rows] = sub._mask[rows]

    def reset(self) -> np.ndarray:
        seeds: Sequence[int | None] = list(self._seeds) or [None] * self.num_envs
        for b, seed in enumerate(seeds):
            if seed is not None:
                self.samplers[b] = seeding.np_random(int(seed))[0]
        self._reset_seeds()
        self._reset_options()
        self._begin(np.ones(self.num_envs, dtype=np.bool_))
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = lane_actions(actions, self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float32)
        terminated = np.zeros(n, dtype=np.bool_)
        truncated = np.zeros(n, dtype=np.bool_)
        illegal = np.zeros(n, dtype=np.bool_)
        winners = np.full(n, -1, dtype=np.int64)
        for k, sub in enumerate(self.subs):
            rows = self.active == k
            if not rows.any():
                continue
            r, te, tr, il = sub.step_only(rows, self._actions)
            rewards[rows], terminated[rows], truncated[rows], illegal[rows] = (
                r[rows],
                te[rows],
                tr[rows],
                il[rows],
            )
            winners[rows] = sub.last_winners()[rows]
            self._gather(sub, rows)
        self.streak = np.where(illegal, self.streak + 1, 0)
        cut = (self.streak >= MAX_CONSECUTIVE_ILLEGAL) & ~(terminated | truncated)
        truncated |= cut
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        for b in np.flatnonzero(dones).tolist():
            infos[b]["terminal_observation"] = self._obs[b].copy()
            infos[b]["TimeLimit.truncated"] = bool(truncated[b] and not terminated[b])
            if cut[b]:
                infos[b]["illegal_streak"] = int(self.streak[b])
            else:
                infos[b]["is_success"] = bool(winners[b] == self.sides[self.active[b]])
                if self.members is not None:
                    infos[b]["pool_member"] = self.members[self.active[b]]
        if dones.any():
            self._begin(dones)
        return self._obs.copy(), rewards, dones, infos

    def set_pool_weights(self, weights: Sequence[float]) -> None:
        """The opponent pool's weights, one per member (``training/pool.py``)."""
        assert self.members is not None, "set_pool_weights: no opponent pool"
        self.weights = env_weights(self.members, weights)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        if method_name == "set_pool_weights":
            self.set_pool_weights(*method_args, **method_kwargs)
            return [None for _ in self._lanes(indices)]
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)

    def action_masks(self) -> np.ndarray:
        """Every lane's legal slots, ``(n_envs, n)``."""
        return self._mask.copy()

    def close(self) -> None:
        for sub in self.subs:
            sub.close()

    def _batched(self) -> list[Any]:
        return list(self.subs)
