"""The ``train`` and ``evaluate`` subcommands (wired into ``escaramuza.cli``).

Kept here so the main CLI module only adds two lines; torch and
stable-baselines3 are imported only when ``train`` runs, so ``escaramuza play``
stays quick to start. Every user error is an :class:`EscaramuzaError` naming
the option (``--timesteps must be positive…``) — the CLI prints it and exits 2.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, TextIO

from escaramuza.agents.fast import add_engine_option
from escaramuza.agents.policy import add_trust_option
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.training.config import ALGOS, LIMITS, SIDES

COMMANDS = ("train", "evaluate")


def add_parsers(commands: Any) -> None:
    """Add ``train`` and ``evaluate`` to the CLI's subparsers."""
    train = commands.add_parser(
        "train",
        help=_("train a MaskablePPO (or PPO) agent on an escaramuza env"),
        description=_(
            "Train an agent with sb3-contrib's MaskablePPO (default) or PPO. Options given "
            "here override --config FILE, which overrides the defaults; the resolved "
            "configuration is saved as RUN_DIR/config.yaml. See docs/training.md."
        ),
    )
    train.add_argument(
        "--env",
        metavar="ID",
        help=_("escaramuza/DestinyDice-v0, … (required unless the config names it)"),
    )
    train.add_argument(
        "--scenario",
        dest="scenarios",
        metavar="S",
        action="append",
        help=_(
            "scenario to train on; repeat for several (one sampled per "
            "episode); default: the ruleset's default scenario"
        ),
    )
    train.add_argument(
        "--side",
        choices=SIDES,
        help=_("side the learner plays (default enemies; both: one sampled per episode)"),
    )
    train.add_argument(
        "--opponent",
        metavar="AGENT",
        help=_("agent playing the other side (default heuristic; any agent name, policy:PATH too)"),
    )
    train.add_argument(
        "--opponent-pool",
        dest="opponent_pool",
        metavar="A,B,…",
        help=_(
            "several opponents, each battle's drawn from them, weighted by how often each "
            "beats the learner (config pool_weighting: beats or uniform)"
        ),
    )
    train.add_argument("--algo", choices=ALGOS, help=_("maskable-ppo (default) or ppo"))
    train.add_argument("--timesteps", type=int, metavar="N", help=_("total timesteps"))
    train.add_argument(
        "--n-envs",
        dest="n_envs",
        type=int,
        metavar="K",
        help=_("parallel environments (default 2)"),
    )
    train.add_argument("--seed", type=int, help=_("seed of everything (default 0)"))
    train.add_argument(
        "--max-seconds",
        dest="max_seconds",
        type=float,
        metavar="S",
        help=_("stop after S seconds of training and save the model and policy.zip as at the end"),
    )
    train.add_argument(
        "--eval-freq",
        dest="eval_freq",
        type=int,
        metavar="N",
        help=_("timesteps between two evaluations (default 10000)"),
    )
    train.add_argument(
        "--eval-battles",
        dest="eval_battles",
        type=int,
        metavar="N",
        help=_(
            "battles per scenario and side of each paired evaluation against the heuristic "
            "(default 400; the best model is chosen on them)"
        ),
    )
    train.add_argument(
        "--vec",
        dest="vec_env",
        choices=("auto", "kernel", "dummy", "subproc"),
        help=_(
            "how the envs are stepped: the batched kernel env, stable-baselines3's "
            "DummyVecEnv or SubprocVecEnv, or auto (the kernel where it takes the run; default)"
        ),
    )
    train.add_argument(
        "--limits",
        choices=LIMITS,
        help=_(
            "the envs' limits: standard (default) or fit (the least that take the run's "
            "scenarios: a narrower network, faster to train)"
        ),
    )
    train.add_argument(
        "--draw-reward",
        dest="draw_reward",
        type=float,
        metavar="R",
        help=_(
            "reward of a battle nobody wins (draw, withdrawal, timeout), in [-1, 1] (default 0)"
        ),
    )
    train.add_argument(
        "--selfplay",
        action="store_true",
        help=_("train against a pool of frozen snapshots of the learner itself"),
    )
    train.add_argument(
        "--distill-rounds",
        dest="distill_rounds",
        type=int,
        metavar="R",
        help=_("first distil the planner into the network (R rounds), then train on from it"),
    )
    train.add_argument(
        "--distill-battles",
        dest="distill_battles",
        type=int,
        metavar="N",
        help=_("battles each distillation round plays (default 300)"),
    )
    train.add_argument(
        "--distill-labels",
        dest="distill_labels",
        choices=("games", "search"),
        help=_(
            "games: the planner's own battles label themselves (default); search: the heuristic's"
        ),
    )
    train.add_argument(
        "--distill-planner",
        dest="distill_planner",
        metavar="SPEC",
        help=_("the mcts agent that labels them (default mcts)"),
    )
    train.add_argument("--config", metavar="FILE", help=_("YAML configuration (docs/training.md)"))
    train.add_argument(
        "--resume",
        metavar="CHECKPOINT",
        help=_("continue from RUN_DIR/checkpoints/….zip up to --timesteps in total"),
    )
    train.add_argument(
        "--no-progress",
        action="store_true",
        help=_("no progress bar (shown on stderr when it is a terminal)"),
    )
    train.add_argument("--out", metavar="RUN_DIR", required=True, help=_("folder of the run"))

    evaluate = commands.add_parser(
        "evaluate",
        help=_("play every pair of agents on each side; win matrix, ratings, heat map"),
        description=_(
            "Play N battles of every scenario for every ordered pair of agents (each "
            "agent as heroes and as enemies) and print the win matrix with 95% Wilson "
            "intervals and OpenSkill ratings. --report DIR also writes evaluation.json "
            "and heatmap.png. See docs/training.md."
        ),
    )
    evaluate.add_argument(
        "--scenario",
        dest="scenarios",
        metavar="S",
        action="append",
        required=True,
        help=_("scenario (repeat for several)"),
    )
    evaluate.add_argument(
        "--agents",
        required=True,
        metavar="A,B,…",
        help=_("comma-separated agents: random, heuristic, mcts:200it, policy:PATH, …"),
    )
    evaluate.add_argument(
        "-n", type=int, default=100, help=_("battles per scenario, pairing and side (default 100)")
    )
    evaluate.add_argument("--seed", type=int, default=1, help=_("seed (default 1)"))
    evaluate.add_argument(
        "--workers", type=int, default=1, help=_("processes (default 1; 0 = all cores)")
    )
    evaluate.add_argument("--json", action="store_true", help=_("print the JSON document"))
    evaluate.add_argument(
        "--no-progress",
        action="store_true",
        help=_("no progress bar (shown on stderr when it is a terminal)"),
    )
    evaluate.add_argument(
        "--report", metavar="DIR", help=_("write evaluation.json and heatmap.png to DIR")
    )
    evaluate.add_argument(
        "--no-baselines",
        action="store_true",
        help=_(
            "play only the --agents given (by default heuristic, first-legal and random are "
            "added: the reference of the paired differences and two floors)"
        ),
    )
    add_engine_option(evaluate, N_("the battles of every pairing"))
    add_trust_option(evaluate)


def _positive(name: str, value: int | None) -> None:
    if value is not None and value <= 0:
        raise EscaramuzaError(_f("{option} must be a positive integer, not {value}", name, value))


def cmd_train(args: argparse.Namespace, out: TextIO) -> int:
    from escaramuza.training.config import load_config

    _positive("--timesteps", args.timesteps)
    _positive("--n-envs", args.n_envs)
    _positive("--eval-freq", args.eval_freq)
    _positive("--eval-battles", args.eval_battles)
    _positive("--distill-rounds", args.distill_rounds)
    _positive("--distill-battles", args.distill_battles)
    if args.draw_reward is not None and not -1.0 <= args.draw_reward <= 1.0:
        raise EscaramuzaError(
            _f(
                "--draw-reward must be in [-1, 1] (a loss is -1, a win +1), not {value}",
                args.draw_reward,
            )
        )
    config_path = args.config
    if config_path is None and args.resume is not None:
        # A checkpoint lives in RUN_DIR/checkpoints/: reuse that run's saved config.
        saved = Path(args.resume).parent.parent / "config.yaml"
        config_path = str(saved) if os.path.isfile(saved) else None
    overrides: dict[str, Any] = {
        "env": args.env,
        "scenarios": args.scenarios,
        "side": args.side,
        "opponent": args.opponent,
        "algo": args.algo,
        "timesteps": args.timesteps,
        "n_envs": args.n_envs,
        "seed": args.seed,
        "draw_reward": args.draw_reward,
        "vec_env": args.vec_env,
        "limits": args.limits,
        "max_seconds": args.max_seconds,
        "eval_freq": args.eval_freq,
        "eval_battles": args.eval_battles,
        "opponent_pool": (
            [a.strip() for a in args.opponent_pool.split(",") if a.strip()]
            if args.opponent_pool is not None
            else None
        ),
    }
    distill = {
        key: value
        for key, value in (
            ("rounds", args.distill_rounds),
            ("battles", args.distill_battles),
            ("planner", args.distill_planner),
            ("labels", args.distill_labels),
        )
        if value is not None
    }
    if distill:
        if args.distill_rounds is None:
            raise EscaramuzaError(
                _("--distill-battles, --distill-planner and --distill-labels need --distill-rounds")
            )
        overrides["distill"] = distill
    if config_path is None and args.env is None:
        raise EscaramuzaError(_("--env is required (or a --config naming env:)"))
    config = load_config(config_path, overrides)
    if args.selfplay and config.selfplay is None:
        config = load_config(config_path, {**overrides, "selfplay": {}})
    if config.selfplay is not None and args.side is None and config.side == "enemies":
        # Snapshots must play the side the learner does not: train both (selfplay.py).
        config = config.model_copy(update={"side": "both"})
    from escaramuza.training.train import train

    train(config, args.out, resume=args.resume, progress_bar=not args.no_progress, log=out)
    return 0


def cmd_evaluate(args: argparse.Namespace, out: TextIO) -> int:
    from escaramuza.training.evaluate import run

    _positive("-n", args.n)
    if args.workers < 0:
        raise EscaramuzaError(
            _f("--workers must be 0 (all cores) or positive, not {n}", args.workers)
        )
    return run(
        args.scenarios,
        args.agents,
        args.n,
        args.seed,
        args.workers,
        args.report,
        args.json,
        out,
        args.trust_policy,
        progress=not args.no_progress,
        engine=args.engine,
        baselines=not args.no_baselines,
    )


def run_command(args: argparse.Namespace, out: TextIO) -> int:
    if args.command == "train":
        return cmd_train(args, out)
    return cmd_evaluate(args, out)
