"""How a training run's envs are stepped: the batched kernel env
(:class:`~escaramuza.training.kernel_env.KernelTrainEnv`) when it takes every scenario, side
and opponent of the run, else stable-baselines3's dummy or subprocess vec env over the
Python env (:func:`vec_choice`, :func:`_vec_env`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.kernel import KernelRefusal
from escaramuza.training.config import TrainConfig
from escaramuza.training.envs import make_train_env, ruleset_of, run_limits


def _make_env_fn(config: TrainConfig, opponent: str | None) -> Callable[[], Any]:
    def build() -> Any:
        from escaramuza.training.selfplay import pool_opponent

        agent: Any = opponent if opponent is not None else pool_opponent(config)
        if opponent is not None and config.opponent_pool:
            agent = list(config.opponent_pool)
        return make_train_env(
            config.env,
            config.scenarios,
            config.side,
            agent,
            config.reward_shaping,
            config.draw_reward,
            run_limits(config),
        )

    return build


def combos(config: TrainConfig) -> list[tuple[str | None, str]]:
    """The (scenario, side) pairs a run samples from (``make_train_env``'s order)."""
    sides = ("enemies", "heroes") if config.side == "both" else (config.side,)
    names: list[str | None] = list(config.scenarios) or [None]
    return [(name, side) for name in names for side in sides]


def kernel_refusal(config: TrainConfig, opponent: str | None) -> str | None:
    """Why the batched kernel env cannot step this run (None: it can)."""
    if opponent is None:
        return "self-play"
    try:
        from escaramuza.envs.vector import KernelVectorEnv

        for (scenario, side), member in itertools.product(
            combos(config), config.opponent_pool or [opponent]
        ):
            KernelVectorEnv(
                ruleset_of(config.env),
                1,
                scenario=scenario,
                side=side,  # type: ignore[arg-type]
                opponent=member,
                reward_shaping=config.reward_shaping,
                draw_reward=config.draw_reward,
                illegal_action="noop",
                **run_limits(config)._asdict(),
            )
    except KernelRefusal as exc:
        return str(exc)
    return None


def vec_choice(config: TrainConfig, opponent: str | None, n_envs: int) -> tuple[str, str | None]:
    """(``kernel``, ``dummy`` or ``subproc``, why not the kernel) for ``config.vec_env``:
    ``kernel`` refused raises, ``auto`` falls back to ``dummy``."""
    if config.vec_env in ("dummy", "subproc"):
        chosen = "subproc" if config.vec_env == "subproc" and n_envs > 1 else "dummy"
        return chosen, f"vec_env {config.vec_env}"
    why = kernel_refusal(config, opponent)
    if why is None:
        return "kernel", None
    if config.vec_env == "kernel":
        raise EscaramuzaError(f"--vec kernel: the batched kernel env does not take {why}")
    return "dummy", why


def vec_line(chosen: str, why: str | None) -> str:
    """The line ``train`` prints first: how the envs are stepped, and why not the kernel."""
    if chosen == "kernel":
        return "envs: the batched kernel env (escaramuza.envs.sb3)\n"
    return f"envs: stable-baselines3's {chosen} vec env over the Python env ({why})\n"


def _vec_env(
    config: TrainConfig, opponent: str | None, n_envs: int, seed: int, chosen: str = "dummy"
) -> Any:
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if chosen == "kernel":
        from escaramuza.training.kernel_env import KernelTrainEnv

        assert opponent is not None
        kernel = KernelTrainEnv(
            ruleset_of(config.env),
            n_envs,
            combos(config),
            opponents=config.opponent_pool or None,
            opponent=opponent,
            reward_shaping=config.reward_shaping,
            draw_reward=config.draw_reward,
            illegal_action="noop",
            **run_limits(config)._asdict(),
        )
        kernel.seed(seed)
        return VecMonitor(kernel)
    subproc = chosen == "subproc" and n_envs > 1
    return make_vec_env(
        _make_env_fn(config, opponent),
        n_envs=n_envs,
        seed=seed,
        vec_env_cls=SubprocVecEnv if subproc else DummyVecEnv,
        vec_env_kwargs={"start_method": "forkserver"} if subproc else None,
    )
