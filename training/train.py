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

How the envs are stepped is :mod:`escaramuza.training.vec`'s choice; the callbacks the run
trains with (loss, stop, progress, checkpoints, evaluation) are
:mod:`escaramuza.training.callbacks`'.
"""

from __future__ import annotations

import importlib.util
import json
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from escaramuza.agents.policy import (
    Checkpoint,
    PolicyMeta,
    checkpoint_objects,
    read_checkpoint,
    write_meta,
)
from escaramuza.progress import shows
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.files import write_file
from escaramuza.rules.core.i18n import _f
from escaramuza.training.callbacks import (
    _evaluation,
    _first_loss_callback,
    _last_eval,
    _meta_checkpoint,
    _progress_callback,
    _sigterm_stops,
    _stop_callback,
)
from escaramuza.training.config import TrainConfig, rounded_timesteps
from escaramuza.training.envs import (
    check_run_limits,
    make_train_env,
    ruleset_of,
    run_limits,
    run_scenarios,
    with_fitted_limits,
)
from escaramuza.training.vec import _vec_env, vec_choice, vec_line


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


def meta_for(config: TrainConfig) -> PolicyMeta:
    limits = run_limits(config)
    return PolicyMeta(
        ruleset=ruleset_of(config.env),
        env_id=config.env,
        algo=config.algo,
        side=config.side,
        max_combatants=limits.max_combatants,
        max_zones=limits.max_zones,
        max_items=limits.max_items,
        scenarios=tuple(config.scenarios),
    )


def check_config(config: TrainConfig) -> None:
    """Fail before any training on names a user can get wrong (env, scenarios, opponent)."""
    from escaramuza.agents import make_agent
    from escaramuza.agents.runner import check_agents

    ruleset_of(config.env)
    check_run_limits(config)
    # An opponent that cannot play a scenario of the run (a policy of another ruleset or
    # of smaller limits) is refused here, not at the run's first battle.
    scenarios = run_scenarios(config)[1]

    def check_plays(spec: str) -> None:
        agent = make_agent(spec)
        for scenario in scenarios:
            check_agents([agent], scenario)

    if config.opponent != "self":
        check_plays(config.opponent)
    for member in config.opponent_pool:
        try:
            check_plays(member)
        except EscaramuzaError as exc:
            raise EscaramuzaError(f"--opponent-pool: {exc}") from None
    make_train_env(
        config.env, config.scenarios, config.side, "random", False, limits=run_limits(config)
    )


#: The pickled entries of a checkpoint :func:`_model` gives from the run itself (the envs'
#: spaces, the configured clip range) instead of reading them.
RESUME_GIVEN = ("observation_space", "action_space", "clip_range")


def check_resume(resume: Path | None, algo: str) -> Checkpoint | None:
    """Fail before the run's folder is made, and before its envs are built, on a
    ``--resume`` checkpoint that is missing, not a model zip, not loadable without
    unpickling (the values :func:`_model` gives for :data:`RESUME_GIVEN` are not needed
    to tell) or of another algorithm than the run's ``algo``. Nothing to check without
    ``--resume``; else what the checkpoint states, for :func:`check_spaces`."""
    if resume is None:
        return None
    # os.path's answer is False for a name no file can have (too long for the system);
    # pathlib's is_file() and exists() raise OSError on it.
    if not os.path.isfile(resume):
        raise EscaramuzaError(_f("--resume {file}: no such checkpoint", resume))
    checkpoint = read_checkpoint(resume, f"--resume {resume}", dict.fromkeys(RESUME_GIVEN))
    if checkpoint.algo != algo:
        raise EscaramuzaError(
            _f(
                "--resume {file}: a {theirs} checkpoint, and this run trains {algo}; resume "
                "it with --algo {theirs} (or algo: {theirs} in --config)",
                resume,
                checkpoint.algo,
                algo,
            )
        )
    return checkpoint


def check_spaces(resume: Path, checkpoint: Checkpoint, env: str, venv: Any) -> None:
    """Refuse a checkpoint whose network does not fit the run's envs: the observation
    size and action count it states must be the envs' (another env, or other scenarios
    or limits, change them)."""
    ours = (tuple(venv.observation_space.shape), int(venv.action_space.n))
    theirs = (checkpoint.observation_shape or ours[0], checkpoint.n_actions or ours[1])
    if theirs != ours:
        raise EscaramuzaError(
            _f(
                "--resume {file}: its network takes {size} observation values and "
                "{actions} actions, and this run's {env} envs give {our_size} and "
                "{our_actions}; resume it with the env, scenarios and limits it was "
                "trained with",
                resume,
                "×".join(str(i) for i in theirs[0]),
                theirs[1],
                env,
                "×".join(str(i) for i in ours[0]),
                ours[1],
            )
        )


def check_remaining(config: TrainConfig, model: Any, resume: Path) -> int:
    """The timesteps left to train from a resumed ``model``; refused when none are."""
    remaining = config.timesteps - int(model.num_timesteps)
    if remaining <= 0:
        raise EscaramuzaError(
            _f(
                "--resume {file}: the checkpoint is already at {n} timesteps; raise "
                "--timesteps above it",
                resume,
                int(model.num_timesteps),
            )
        )
    return remaining


def prepare_run_dir(out: Path, resume: Path | None) -> None:
    """``out`` made, unless it holds a run that is not the one ``resume`` continues (the
    folder of its checkpoint: ``checkpoints/``, ``best/`` or ``final.zip``'s): that run
    would be overwritten."""
    own = resume is not None and out.resolve() in resume.resolve().parents[:2]
    if not own and os.path.exists(out / "config.yaml"):
        raise EscaramuzaError(
            _f(
                "--out {out}: already holds a run; choose a new folder or continue it with "
                "--resume {out}/checkpoints/…zip",
                out,
            )
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EscaramuzaError(
            _f("--out {out}: cannot create it ({reason})", out, exc.strerror or exc)
        ) from None


def policy_for(algo: str) -> Any:
    """The policy ``escaramuza train`` gives an algorithm: PPO's stock ``MlpPolicy``;
    for MaskablePPO the same MLP with the masked distribution built once per forward
    pass (training/masking.py: the same distribution, about 0.2 ms a frame cheaper)."""
    if algo == "maskable-ppo":
        from escaramuza.training.masking import OnceMaskedPolicy

        return OnceMaskedPolicy
    return "MlpPolicy"


#: The ``eps`` SB3's ``ActorCriticPolicy`` gives Adam when no ``optimizer_kwargs`` are given.
SB3_ADAM_EPS = 1e-5


def policy_kwargs(
    net_arch: list[int], fused_adam: bool, fused_softmax: bool = False
) -> dict[str, Any]:
    """The ``policy_kwargs`` ``escaramuza train`` gives SB3: the MLP's layers; with
    ``fused_adam``, torch's fused CPU Adam — the same update rule applied to every weight
    in one pass, where the default per-tensor loop pays torch's dispatch for each tensor
    and operation; with ``fused_softmax`` (``OnceMaskedPolicy`` only), the masked
    distribution normalised once (training/masking.py;
    docs/decisions/0017-training-throughput.md)."""
    kwargs: dict[str, Any] = {"net_arch": list(net_arch)}
    if fused_adam:
        # Given any optimizer_kwargs, SB3 drops its own Adam default (eps=1e-5): restated.
        kwargs["optimizer_kwargs"] = {"eps": SB3_ADAM_EPS, "fused": True}
    if fused_softmax:
        kwargs["fused_softmax"] = True
    return kwargs


def _model(config: TrainConfig, venv: Any, resume: Path | None, logs: Path | None) -> Any:
    """The run's model, new or loaded from ``resume``; it logs into ``logs`` (None: not
    yet, :func:`_log_into` later, when the run's folder is made)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    cls: Any = MaskablePPO if config.algo == "maskable-ppo" else PPO
    hp = config.hyperparameters.model_dump()
    fused_softmax = hp.pop("fused_softmax") and config.algo == "maskable-ppo"
    kwargs = policy_kwargs(hp.pop("net_arch"), hp.pop("fused_adam"), fused_softmax)
    if resume is not None:
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
            raise EscaramuzaError(
                _f("--resume {file}: cannot load it ({reason})", resume, exc)
            ) from None
    else:
        model = cls(
            policy_for(config.algo),
            venv,
            policy_kwargs=kwargs,
            seed=config.seed,
            device="cpu",
            verbose=0,
            **hp,
        )
    if logs is not None:
        _log_into(model, logs)
    return model


def _log_into(model: Any, logs: Path) -> None:
    from stable_baselines3.common.logger import configure

    formats = ["csv", "tensorboard"] if optional("tensorboard") else ["csv"]
    model.set_logger(configure(str(logs), formats))


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
    """One evaluation's line: the policy's and the heuristic's win rates on the same battles,
    their paired difference with its 95 % interval, and what the interval shows: better or
    worse than the heuristic only when it excludes 0, so that the best checkpoint of a run
    that never beat the heuristic is not read as one that did."""
    lo, hi = entry["ci95"]
    collapsed = f"; collapsed: {'; '.join(entry['collapsed'])}" if entry["collapsed"] else ""
    if lo > 0:
        shown = "better than the heuristic"
    elif hi < 0:
        shown = "worse than the heuristic"
    else:
        shown = "no difference from the heuristic shown"
    return (
        f"{label} at {entry['timesteps']} steps vs {opponent}: won {entry['win_rate']:.1%} "
        f"of {entry['battles']} battles, the heuristic {entry['heuristic_win_rate']:.1%} on the "
        f"same battles: {100 * entry['difference']:+.1f} points [{100 * lo:+.1f}, "
        f"{100 * hi:+.1f}], {shown}{collapsed}\n"
    )


def _distill(config: TrainConfig, run: Path, log: TextIO | None) -> None:
    """``config.distill``'s expert iteration into ``RUN_DIR/distill/`` (training/expert.py)."""
    from escaramuza.envs.common import resolve_ruleset
    from escaramuza.training.expert import distill

    assert config.distill is not None
    spec = config.distill
    ruleset = resolve_ruleset(ruleset_of(config.env))
    scenario = config.scenarios[0] if config.scenarios else ruleset.default_scenario
    distill(
        config.env,
        scenario,
        config.side,
        run / "distill",
        rounds=spec.rounds,
        battles=spec.battles,
        planner=spec.planner,
        seed=config.seed,
        value_rollouts=spec.value_rollouts,
        epochs=spec.epochs,
        batch=spec.batch,
        learning_rate=spec.learning_rate,
        schedule=spec.schedule,
        eval_battles=config.eval_battles,
        hyperparameters=config.hyperparameters,
        labels=spec.labels,
        limits=run_limits(config),
        log=log,
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


def _resumed(
    config: TrainConfig, opponent: str | None, resume: Path | None, checkpoint: Checkpoint | None
) -> tuple[Any, Any]:
    """The run's envs and the model ``resume`` continues, or (None, None) without one.

    Done before the run's folder is made: a checkpoint that does not fit the envs, or is
    already past ``--timesteps``, is refused with nothing written (not even into the
    folder of the run it continues)."""
    if resume is None or checkpoint is None:
        return None, None
    venv = _vec_env(config, opponent, config.n_envs, config.seed, config.vec_env)
    try:
        check_spaces(resume, checkpoint, config.env, venv)
        model = _model(config, venv, resume, None)
        check_remaining(config, model, resume)
    except BaseException:
        venv.close()
        raise
    return venv, model


def _open_run(run: Path, resume: Path | None, config: TrainConfig, venv: Any) -> None:
    """Make the run's folder and write its ``config.yaml`` (once before anything else can
    fail, then again with the trained timesteps); ``venv``, built already, is closed if
    that fails."""
    try:
        prepare_run_dir(run, resume)
        write_file(run / "config.yaml", config.to_yaml())
    except BaseException:
        if venv is not None:
            venv.close()
        raise


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
    # The inputs are checked before the run's folder is made: a run refused on them
    # leaves no folder behind.
    check_config(config)
    checkpoint = check_resume(resume_path, config.algo)
    config = with_fitted_limits(config)
    selfplay = config.selfplay is not None
    opponent = None if selfplay else config.opponent
    chosen, why = vec_choice(config, opponent, config.n_envs)
    # Small MLPs: torch's thread pool costs more than it saves (docs/training.md).
    torch.set_num_threads(config.torch_threads)
    meta = meta_for(config)
    written = config  # as config.yaml first records it
    # The run's config says how its envs were stepped (a resume steps them alike).
    config = config.model_copy(update={"vec_env": chosen})
    venv, model = _resumed(config, opponent, resume_path, checkpoint)
    _open_run(run, resume_path, written, venv)
    if log is not None:
        log.write(vec_line(chosen, why))
        log.flush()
    distilled = None
    if config.distill is not None and resume_path is None:
        # Expert iteration first; the reinforcement learning goes on from its weights.
        began = time.perf_counter()
        _distill(config, run, log)
        distilled = time.perf_counter() - began
        resume_path = run / "distill" / "final.zip"
    if venv is None:
        venv = _vec_env(config, opponent, config.n_envs, config.seed, chosen)
    eval_opponent = "heuristic" if selfplay else config.opponent
    eval_cb, eval_env, eval_why = _evaluation(
        config, run, eval_opponent, meta, evaluate_start=resume_path is not None
    )
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
        model = model if model is not None else _model(config, venv, resume_path, None)
        _log_into(model, run / "logs")
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
        remaining = check_remaining(config, model, resume_path) if resume_path else config.timesteps
        start_steps = model.num_timesteps if resume_path else 0
        planned = rounded_timesteps(config.timesteps, model.n_steps, venv.num_envs, start_steps)
        write_file(run / "config.yaml", config.to_yaml(planned))
        # From here a SIGTERM or a first Ctrl-C stops training and saves, as --max-seconds
        # does.
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
        "distill_seconds": round(distilled, 2) if distilled is not None else None,
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
                log.write(paired_line("best checkpoint (best/policy.zip)", best, eval_opponent))
        elif last_eval is not None:
            won = f", won {last_eval['win_rate']:.0%}" if "win_rate" in last_eval else ""
            log.write(
                f"last evaluation vs {eval_opponent} at {last_eval['timesteps']} steps: mean "
                f"return {last_eval['mean_reward']:+.2f}{won} over {config.eval_episodes} "
                f"battles\n"
            )
    return result
