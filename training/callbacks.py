"""The callbacks of an ``escaramuza train`` run: the first update's loss, the stop on
``--max-seconds``, SIGTERM or a first Ctrl-C, the progress bar on stderr, the checkpoints
stamped with ``escaramuza.json``, and the run's evaluation (paired on the kernel, or SB3's on the
Python env) with what it last and best found."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from escaramuza.agents.policy import PolicyMeta, write_meta
from escaramuza.rules.core.kernel import KernelRefusal
from escaramuza.training.config import TrainConfig
from escaramuza.training.envs import ruleset_of, run_limits
from escaramuza.training.vec import _vec_env, combos

#: The evaluation env's seed offset: never the same battles as the training envs.
EVAL_SEED_OFFSET = 10_000


def _callback_base() -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    return BaseCallback


def _first_loss_callback() -> Any:
    class FirstLoss(_callback_base()):  # type: ignore[misc]
        """Reads ``train/loss`` after the first PPO update (before the logger dumps it)."""

        def __init__(self) -> None:
            super().__init__()
            self.loss: float | None = None
            self._rollouts = 0

        def _grab(self) -> None:
            if self.loss is None:
                value = self.model.logger.name_to_value.get("train/loss")
                if value is not None:
                    self.loss = float(value)

        def _on_rollout_start(self) -> None:
            self._rollouts += 1
            if self._rollouts == 2:
                self._grab()

        def _on_training_end(self) -> None:
            self._grab()

        def _on_step(self) -> bool:
            return True

    return FirstLoss()


def _stop_callback(max_seconds: float | None) -> Any:
    class Stop(_callback_base()):  # type: ignore[misc]
        """Ends ``learn`` at the first step past the wall-clock budget, or after a
        SIGTERM (:func:`_sigterm_stops`): ``reason`` says which (None: neither)."""

        def __init__(self) -> None:
            super().__init__()
            self.reason: str | None = None
            self._deadline: float | None = None

        def _on_training_start(self) -> None:
            if max_seconds is not None:
                self._deadline = time.perf_counter() + max_seconds

        def _on_step(self) -> bool:
            if self.reason is None and self._deadline is not None:
                if time.perf_counter() >= self._deadline:
                    self.reason = f"--max-seconds {max_seconds:g}"
            return self.reason is None

    return Stop()


@contextmanager
def _sigterm_stops(stop: Any) -> Iterator[None]:
    """Within the block a SIGTERM or a first Ctrl-C (SIGINT) ends training at the next
    step (the model and the policy are then saved as at the end) instead of killing the
    process; a second Ctrl-C interrupts at once, as before. Outside the main thread,
    where Python cannot take signals, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handle(signum: int, frame: Any) -> None:
        if signum == signal.SIGINT:
            stop.reason = "Ctrl-C"
            signal.signal(signal.SIGINT, previous_int)
        else:
            stop.reason = "SIGTERM"

    previous = signal.signal(signal.SIGTERM, handle)
    previous_int = signal.signal(signal.SIGINT, handle)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)


def _progress_callback() -> Any:
    from stable_baselines3.common.callbacks import ProgressBarCallback

    from escaramuza.progress import progress_bar

    class StderrProgressBar(ProgressBarCallback):
        """SB3's progress bar (tqdm drawn by rich), drawn on stderr: SB3's own draws on
        rich's default console, stdout (escaramuza/progress.py)."""

        def _on_training_start(self) -> None:
            total = self.locals["total_timesteps"] - self.model.num_timesteps
            self.pbar = progress_bar(total, "training", unit="timesteps")

    return StderrProgressBar()


def _meta_checkpoint(save_freq: int, folder: Path, meta: PolicyMeta) -> Any:
    from stable_baselines3.common.callbacks import CheckpointCallback

    class MetaCheckpoint(CheckpointCallback):
        """``CheckpointCallback`` that also stamps ``escaramuza.json`` into each zip."""

        def _on_step(self) -> bool:
            result = super()._on_step()
            if self.n_calls % self.save_freq == 0:
                write_meta(self._checkpoint_path(extension="zip"), meta)
            return result

    return MetaCheckpoint(save_freq=save_freq, save_path=str(folder), name_prefix="ckpt")


def _eval_callback(config: TrainConfig, run: Path, opponent: str) -> tuple[Any, Any]:
    eval_config = config.model_copy(update={"n_envs": 1})
    eval_env = _vec_env(eval_config, opponent, 1, config.seed + EVAL_SEED_OFFSET)
    kwargs: dict[str, Any] = {
        "n_eval_episodes": config.eval_episodes,
        "eval_freq": max(config.eval_freq // config.n_envs, 1),
        "best_model_save_path": str(run / "best"),
        "log_path": str(run / "eval"),
        "deterministic": True,
        "verbose": 0,
    }
    if config.algo == "maskable-ppo":
        from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback

        return MaskableEvalCallback(eval_env, **kwargs), eval_env
    from stable_baselines3.common.callbacks import EvalCallback

    return EvalCallback(eval_env, **kwargs), eval_env


def _evaluation(
    config: TrainConfig, run: Path, opponent: str, meta: PolicyMeta, evaluate_start: bool = False
) -> tuple[Any, Any, str | None]:
    """The run's evaluation callback, the env to close after (None), and why it is not
    the paired evaluation on the kernel (None: it is); ``evaluate_start``: the paired
    evaluation also evaluates the weights training starts from."""
    from escaramuza.envs.vector import KernelVectorEnv
    from escaramuza.training.paired_callback import paired_eval_callback

    try:
        envs = [
            KernelVectorEnv(
                ruleset_of(config.env),
                config.eval_battles,
                scenario=scenario,
                side=side,  # type: ignore[arg-type]
                opponent=opponent,
                draw_reward=config.draw_reward,
                illegal_action="noop",
                **run_limits(config)._asdict(),
            )
            for scenario, side in combos(config)
        ]
    except KernelRefusal as exc:
        callback, env = _eval_callback(config, run, opponent)
        return callback, env, str(exc)
    callback = paired_eval_callback(
        envs,
        max(config.eval_freq // config.n_envs, 1),
        config.seed + EVAL_SEED_OFFSET,
        config.algo == "maskable-ppo",
        run,
        meta,
        evaluate_start,
    )
    return callback, None, None


def _last_eval(eval_cb: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The run's last evaluation and its best one (None: none ran, or the callback keeps
    no best by a paired difference)."""
    last_eval: dict[str, Any] | None = None
    best = getattr(eval_cb, "best", None)
    if getattr(eval_cb, "history", None):
        last_eval = dict(eval_cb.history[-1])
    elif getattr(eval_cb, "evaluations_results", None):
        rewards = eval_cb.evaluations_results[-1]
        last_eval = {
            "timesteps": int(eval_cb.evaluations_timesteps[-1]),
            "mean_reward": float(sum(rewards) / len(rewards)),
        }
        successes = getattr(eval_cb, "evaluations_successes", None)
        if successes:
            last_eval["win_rate"] = float(sum(successes[-1]) / len(successes[-1]))
    return last_eval, best
