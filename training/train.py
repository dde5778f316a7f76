"""``escaramuza train``: MaskablePPO (or PPO) on an escaramuza env, reproducibly.

A run writes everything into ``RUN_DIR`` (docs/training.md, "Run folder"):
``config.yaml`` (the resolved configuration), ``checkpoints/ckpt_<steps>_steps.zip``
(``CheckpointCallback``), ``best/`` and ``eval/paired.jsonl`` (the paired evaluation
against the heuristic on fixed battles, training/paired_callback.py; sb3-contrib's
``MaskableEvalCallback`` and ``eval/evaluations.npz`` where the kernel does not take it),
``logs/progress.csv`` (and TensorBoard event files when the ``[train]`` extra is
installed), ``final.zip`` and ``summary.json``. Every model zip it writes
carries ``escaramuza.json`` so ``policy:PATH`` can play it with nothing else.

Determinism: one ``--seed`` seeds torch, numpy and Python (SB3's
``set_random_seed``), the vectorised envs (``seed + rank``) and the evaluation
env (``seed + 10_000``); torch runs single-threaded on the CPU, so the same
config and seed give the same first update's loss (a test checks it). Longer
runs stay reproducible on one machine with ``vec_env: dummy``.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import signal
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from escaramuza.agents.policy import PolicyMeta, checkpoint_objects, write_meta
from escaramuza.progress import shows
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.files import atomic_write
from escaramuza.rules.core.kernel import KernelRefusal
from escaramuza.training.config import TrainConfig, rounded_timesteps
from escaramuza.training.envs import make_train_env, ruleset_of

#: The evaluation env's seed offset: never the same battles as the training envs.
EVAL_SEED_OFFSET = 10_000


@dataclass(slots=True)
class TrainResult:
    run_dir: Path
    final: Path
    timesteps: int
    seconds: float
    first_update_loss: float | None
    last_eval: dict[str, Any] | None = None
    files: list[str] = field(default_factory=list)


def optional(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


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
    """Within the block a SIGTERM ends training at the next step (the model and the
    policy are then saved as at the end) instead of killing the process; outside the
    main thread, where Python cannot take signals, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handle(signum: int, frame: Any) -> None:
        stop.reason = "SIGTERM"

    previous = signal.signal(signal.SIGTERM, handle)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
        )

    return build


def meta_for(config: TrainConfig) -> PolicyMeta:
    from escaramuza.envs.common import (
        DEFAULT_MAX_COMBATANTS,
        DEFAULT_MAX_ITEMS,
        DEFAULT_MAX_ZONES,
    )

    return PolicyMeta(
        ruleset=ruleset_of(config.env),
        env_id=config.env,
        algo=config.algo,
        side=config.side,
        max_combatants=DEFAULT_MAX_COMBATANTS,
        max_zones=DEFAULT_MAX_ZONES,
        max_items=DEFAULT_MAX_ITEMS,
        scenarios=tuple(config.scenarios),
    )


def check_config(config: TrainConfig) -> None:
    """Fail before any training on names a user can get wrong (env, scenarios, opponent)."""
    from escaramuza.agents import make_agent

    ruleset_of(config.env)
    if config.opponent != "self":
        make_agent(config.opponent)
    for member in config.opponent_pool:
        try:
            make_agent(member)
        except EscaramuzaError as exc:
            raise EscaramuzaError(f"--opponent-pool: {exc}") from None
    make_train_env(config.env, config.scenarios, config.side, "random", False)


def prepare_run_dir(out: Path, resume: Path | None) -> None:
    if resume is None and (out / "config.yaml").exists():
        raise EscaramuzaError(
            f"--out {out}: already holds a run; choose a new folder or continue it with "
            f"--resume {out}/checkpoints/…zip"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EscaramuzaError(f"--out {out}: cannot create it ({exc.strerror or exc})") from None


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


def policy_for(algo: str) -> Any:
    """The policy ``escaramuza train`` gives an algorithm: PPO's stock ``MlpPolicy``;
    for MaskablePPO the same MLP with the masked distribution built once per forward
    pass (training/masking.py: the same distribution, about 0.2 ms a frame cheaper)."""
    if algo == "maskable-ppo":
        from escaramuza.training.masking import OnceMaskedPolicy

        return OnceMaskedPolicy
    return "MlpPolicy"


def _model(config: TrainConfig, venv: Any, resume: Path | None, logs: Path) -> Any:
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO
    from stable_baselines3.common.logger import configure

    cls: Any = MaskablePPO if config.algo == "maskable-ppo" else PPO
    hp = config.hyperparameters.model_dump()
    net_arch = hp.pop("net_arch")
    if resume is not None:
        if not resume.is_file():
            raise EscaramuzaError(f"--resume {resume}: no such checkpoint")
        # Every pickled entry of the checkpoint is replaced by a custom object, so SB3's
        # load unpickles nothing: a checkpoint is a file like any other.
        objects = checkpoint_objects(
            resume,
            f"--resume {resume}",
            {
                "observation_space": venv.observation_space,
                "action_space": venv.action_space,
                "clip_range": hp["clip_range"],  # unless the checkpoint's is a readable constant
            },
        )
        try:
            model = cls.load(resume, env=venv, device="cpu", custom_objects=objects)
        except Exception as exc:  # SB3 raises many kinds for a bad zip
            raise EscaramuzaError(f"--resume {resume}: cannot load it ({exc})") from None
    else:
        model = cls(
            policy_for(config.algo),
            venv,
            policy_kwargs={"net_arch": list(net_arch)},
            seed=config.seed,
            device="cpu",
            verbose=0,
            **hp,
        )
    formats = ["csv", "tensorboard"] if optional("tensorboard") else ["csv"]
    model.set_logger(configure(str(logs), formats))
    return model


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
    config: TrainConfig, run: Path, opponent: str, meta: PolicyMeta
) -> tuple[Any, Any, str | None]:
    """The run's evaluation callback, the env to close after (None), and why it is not
    the paired evaluation on the kernel (None: it is)."""
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
    )
    return callback, None, None


def eval_line(config: TrainConfig, opponent: str, why: str | None) -> str:
    """The line ``train`` prints second: how the policy is evaluated."""
    if why is None:
        return (
            f"evaluation: every {config.eval_freq} timesteps, {config.eval_battles} battles "
            f"per scenario and side against {opponent}, paired with the heuristic on the "
            "same battles; the best model by the paired difference\n"
        )
    return (
        f"evaluation: every {config.eval_freq} timesteps, {config.eval_episodes} battles "
        f"against {opponent} on the Python env ({why}); the best model by mean return\n"
    )


def paired_line(label: str, entry: dict[str, Any], opponent: str) -> str:
    lo, hi = entry["ci95"]
    collapsed = f"; collapsed: {'; '.join(entry['collapsed'])}" if entry["collapsed"] else ""
    return (
        f"{label} at {entry['timesteps']} steps vs {opponent}: won {entry['win_rate']:.1%} "
        f"of {entry['battles']} battles, the heuristic {entry['heuristic_win_rate']:.1%} on the "
        f"same battles: {100 * entry['difference']:+.1f} points [{100 * lo:+.1f}, "
        f"{100 * hi:+.1f}]{collapsed}\n"
    )


def export_policy(model: Any, path: Path, meta: PolicyMeta) -> Path:
    """A slim copy of ``model`` for playing: the same weights, the optimizer's moments dropped.

    Adam keeps two numbers per weight, which would triple the file; a policy that
    only plays does not need them (shipped policies stay under 1 MB). Resuming
    training from a slim file works but restarts Adam's moment estimates; resume
    from ``final.zip`` or a checkpoint instead.
    """
    policy = model.policy
    full = policy.optimizer
    policy.optimizer = type(full)(policy.parameters(), **full.defaults)
    try:
        model.save(path)
    finally:
        policy.optimizer = full
    write_meta(path, meta)
    return path


def timesteps_note(requested: int, planned: int, n_steps: int, n_envs: int) -> str:
    """The line ``train`` prints before training: how many timesteps it trains and, when
    that is not ``--timesteps``, why (PPO's whole rollouts, :func:`rounded_timesteps`)."""
    if planned == requested:
        return f"training {planned} timesteps\n"
    rollout = n_steps * n_envs
    return (
        f"training {planned} timesteps, not the {requested} asked for: PPO learns from whole "
        f"rollouts of n_steps x n_envs = {n_steps} x {n_envs} = {rollout} timesteps and "
        f"rounds the total up to them; ask for a multiple of {rollout} (or change "
        f"hyperparameters.n_steps or --n-envs) to train exactly that\n"
    )


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


def train(
    config: TrainConfig,
    out: str | Path,
    resume: str | Path | None = None,
    progress_bar: bool = True,
    log: TextIO | None = None,
) -> TrainResult:
    """Train as ``config`` says, writing the run into ``out``; return what was done."""
    import torch
    from stable_baselines3.common.callbacks import CallbackList

    run = Path(out)
    resume_path = Path(resume) if resume is not None else None
    check_config(config)
    prepare_run_dir(run, resume_path)
    # Written once before anything else can fail, then again with the trained timesteps.
    atomic_write(run / "config.yaml", config.to_yaml())
    # Small MLPs: torch's thread pool costs more than it saves (docs/training.md).
    torch.set_num_threads(config.torch_threads)
    meta = meta_for(config)
    selfplay = config.selfplay is not None
    opponent = None if selfplay else config.opponent
    chosen, why = vec_choice(config, opponent, config.n_envs)
    # The run's config says how its envs were stepped (a resume steps them alike).
    config = config.model_copy(update={"vec_env": chosen})
    if log is not None:
        log.write(vec_line(chosen, why))
        log.flush()
    venv = _vec_env(config, opponent, config.n_envs, config.seed, chosen)
    eval_opponent = "heuristic" if selfplay else config.opponent
    eval_cb, eval_env, eval_why = _evaluation(config, run, eval_opponent, meta)
    if log is not None:
        log.write(eval_line(config, eval_opponent, eval_why))
        log.flush()
    first_loss = _first_loss_callback()
    stop = _stop_callback(config.max_seconds)
    callbacks: list[Any] = [
        stop,
        _meta_checkpoint(
            max(config.checkpoint_freq // config.n_envs, 1), run / "checkpoints", meta
        ),
        eval_cb,
        first_loss,
    ]
    try:
        model = _model(config, venv, resume_path, run / "logs")
        pool = None
        if config.opponent_pool:
            from escaramuza.training.pool import pool_callback

            pool = pool_callback(config.opponent_pool, config.pool_weighting, run)
            callbacks.append(pool)
        if selfplay:
            from escaramuza.training.selfplay import SelfPlayCallback

            assert config.selfplay is not None
            sp = SelfPlayCallback(run / "pool", config.selfplay.snapshot_freq, meta)
            sp.init_callback(model)
            sp.snapshot()  # snapshot 0: the untrained policy, so the pool is never empty
            callbacks.append(sp)
        remaining = config.timesteps - (model.num_timesteps if resume_path else 0)
        if remaining <= 0:
            raise EscaramuzaError(
                f"--resume {resume_path}: the checkpoint is already at {model.num_timesteps} "
                f"timesteps; raise --timesteps above it"
            )
        start_steps = model.num_timesteps if resume_path else 0
        planned = rounded_timesteps(config.timesteps, model.n_steps, venv.num_envs, start_steps)
        atomic_write(run / "config.yaml", config.to_yaml(planned))
        # From here a SIGTERM stops training and saves, as --max-seconds does.
        with _sigterm_stops(stop):
            if log is not None:
                log.write(timesteps_note(config.timesteps, planned, model.n_steps, venv.num_envs))
                log.flush()
            if shows(progress_bar):
                callbacks.append(_progress_callback())
            started = time.perf_counter()
            with warnings.catch_warnings():
                # The evaluation env is the Python env on purpose, the training env the
                # kernel's: the same battles (see vec_choice), not the same class.
                warnings.filterwarnings(
                    "ignore", message="Training and eval env are not of the same type"
                )
                model.learn(
                    total_timesteps=remaining,
                    callback=CallbackList(callbacks),
                    reset_num_timesteps=resume_path is None,
                )
            seconds = time.perf_counter() - started
            # Still under the handler: a SIGTERM now does not cut the save short.
            final = run / "final.zip"
            model.save(final)
            write_meta(final, meta)
            export_policy(model, run / "policy.zip", meta)
    finally:
        venv.close()
        if eval_env is not None:
            eval_env.close()
    last_eval, best = _last_eval(eval_cb)
    result = TrainResult(run, final, int(model.num_timesteps), seconds, first_loss.loss, last_eval)
    summary = {
        "timesteps": result.timesteps,
        "timesteps_requested": config.timesteps,
        "seconds": round(seconds, 2),
        "fps": round(((result.timesteps - start_steps) / seconds) if seconds > 0 else 0.0, 1),
        "first_update_loss": first_loss.loss,
        "last_eval": last_eval,
        "best_eval": best,
        "opponent_pool": pool.table() if pool is not None else None,
        "resumed_from": str(resume_path) if resume_path else None,
        "stopped_early": stop.reason,
        "final": str(final),
    }
    (run / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if log is not None:
        log.write(
            f"trained {config.algo} on {config.env} for {result.timesteps} timesteps in "
            f"{seconds:.0f} s ({summary['fps']} steps/s); model: {final}\n"
        )
        if stop.reason is not None:
            log.write(
                f"stopped early ({stop.reason}) at {result.timesteps} of the "
                f"{planned} planned timesteps; the model and policy.zip are saved\n"
            )
        if last_eval is not None and "difference" in last_eval:
            log.write(paired_line("last evaluation", last_eval, eval_opponent))
            if best is not None:
                log.write(paired_line("best (best/policy.zip)", best, eval_opponent))
        elif last_eval is not None:
            won = f", won {last_eval['win_rate']:.0%}" if "win_rate" in last_eval else ""
            log.write(
                f"last evaluation vs {eval_opponent} at {last_eval['timesteps']} steps: mean "
                f"return {last_eval['mean_reward']:+.2f}{won} over {config.eval_episodes} "
                f"battles\n"
            )
    return result
