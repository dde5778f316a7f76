"""The training configuration: one validated model, read from YAML, saved with the run.

``escaramuza train --config FILE`` reads a YAML file with any of the keys of
:class:`TrainConfig` (``hyperparameters:`` nested); the command-line options
given explicitly override the file; the defaults fill the rest. The resolved
configuration is written to ``RUN_DIR/config.yaml`` so a run can be repeated
(``escaramuza train --config RUN_DIR/config.yaml --out NEW_DIR``) and resumed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from escaramuza.playtest.runner import MAX_RUN
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.files import parse_yaml, read_text_file
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.scenario_spec import MAX_COMBATANTS, MAX_ITEM_SLOTS, MAX_ZONES

ALGOS = ("maskable-ppo", "ppo")
#: The most battles a distillation round labels: each leaves about 80 positions of a few
#: kilobytes (observation, mask) in memory.
MAX_DISTILL_BATTLES = 10_000
#: The most envs (battles stepped side by side) a run may ask for.
MAX_ENVS = 4096
#: The most steps of one rollout (``n_steps × n_envs``): SB3's buffer holds them all
#: (observation, mask…), about 1.2 GB at this size.
MAX_ROLLOUT = 1 << 18
SIDES = ("enemies", "heroes", "both")
#: ``--limits``: the envs' standard limits, or the least that take the run's scenarios.
LIMITS = ("standard", "fit")
#: Largest ``--config`` file read: the config.yaml a run writes is about 1 KiB, so 64 KiB
#: leaves room for long scenario and opponent lists and stops ``/dev/zero`` or a huge file.
MAX_CONFIG_BYTES = 1 << 16


class Hyperparameters(BaseModel):
    """PPO's own knobs (stable-baselines3 names) and the policy network's size.

    Defaults are small on purpose: the observation is ~800 numbers and a battle
    takes tens of decisions, so a [64, 64] MLP (≈ 80 k parameters, a < 1 MB zip)
    learns as well as a bigger one here and trains fast on two cores.
    """

    model_config = ConfigDict(extra="forbid")

    learning_rate: float = Field(3e-4, gt=0)
    n_steps: int = Field(512, ge=2, description="rollout length per env")
    batch_size: int = Field(128, ge=2)
    n_epochs: int = Field(4, ge=1)
    gamma: float = Field(0.99, gt=0, le=1)
    gae_lambda: float = Field(0.95, ge=0, le=1)
    clip_range: float = Field(0.2, gt=0)
    ent_coef: float = Field(0.01, ge=0)
    vf_coef: float = Field(0.5, ge=0)
    max_grad_norm: float = Field(0.5, gt=0)
    net_arch: list[int] = Field(default_factory=lambda: [64, 64], min_length=1)
    fused_adam: bool = Field(
        True,
        description="torch's fused CPU Adam: the same update in one pass over the "
        "weights, a cheaper gradient step (false: torch's per-tensor Adam, as runs "
        "before it and the shipped policies)",
    )
    fused_softmax: bool = Field(
        True,
        description="maskable-ppo: the masked action distribution normalised once by "
        "torch's fused log_softmax — the same distribution rounded differently, a cheaper "
        "step (false: sb3-contrib's arithmetic bit for bit, as the shipped policies)",
    )

    @model_validator(mode="after")
    def _positive_layers(self) -> Hyperparameters:
        if any(width <= 0 for width in self.net_arch):
            raise ValueError(f"net_arch: every layer needs a positive width, not {self.net_arch}")
        return self


class SelfPlay(BaseModel):
    """Self-play: the opponent is a pool of frozen snapshots of the learner itself."""

    model_config = ConfigDict(extra="forbid")

    #: Timesteps between two snapshots added to the pool.
    snapshot_freq: int = Field(10_000, ge=1)
    #: Only the most recent snapshots are kept as opponents.
    pool_size: int = Field(5, ge=1)


class Distill(BaseModel):
    """Expert iteration before the reinforcement learning (training/expert.py): the
    network distilled from the planner's search, then trained on from its weights."""

    model_config = ConfigDict(extra="forbid")

    rounds: int = Field(1, ge=1)
    battles: int = Field(
        300,
        ge=1,
        le=MAX_DISTILL_BATTLES,
        description="battles whose positions each round labels",
    )
    planner: str = Field("mcts", description="the mcts spec that labels them")
    labels: Literal["games", "search"] = Field(
        "games", description="the planner's own battles, or the heuristic's searched"
    )
    value_rollouts: int = Field(64, ge=1)
    epochs: int = Field(40, ge=1)
    batch: int = Field(256, ge=1, le=MAX_ROLLOUT, description="positions per fitting step")
    learning_rate: float | None = Field(
        None, gt=0, description="the fit's Adam rate (default: hyperparameters.learning_rate)"
    )
    schedule: Literal["constant", "cosine"] = Field(
        "constant", description="the fit's rate held, or cosine-annealed over the epochs"
    )


class Limits(BaseModel):
    """The static limits of a run's envs (``escaramuza.envs.common.EnvLimits``): they fix
    the observation's and the action space's sizes, so the network's, and the largest
    scenario the trained policy plays."""

    model_config = ConfigDict(extra="forbid")

    max_combatants: int = Field(ge=2, le=MAX_COMBATANTS)
    max_zones: int = Field(ge=1, le=MAX_ZONES)
    max_items: int = Field(ge=1, le=MAX_ITEM_SLOTS)


def _limits_kind(value: Any) -> str:
    return "by-numbers" if isinstance(value, dict | Limits) else "by-name"


#: ``limits:`` is a name or the numbers; tagged, so an error is the branch's own.
LimitsField = Annotated[
    Annotated[Literal["standard", "fit"], Tag("by-name")] | Annotated[Limits, Tag("by-numbers")],
    Discriminator(_limits_kind),
]
#: The union's tags, which an error's location leaves out (``limits.max_zones``).
_TAGS = ("by-name", "by-numbers")


class TrainConfig(BaseModel):
    """Everything a run depends on. Saved as ``RUN_DIR/config.yaml``."""

    model_config = ConfigDict(extra="forbid")

    env: str = "escaramuza/DestinyDice-v0"
    #: Empty: the ruleset's default scenario. Several: one sampled per episode.
    scenarios: list[str] = Field(default_factory=list)
    side: Literal["enemies", "heroes", "both"] = "enemies"
    opponent: str = "heuristic"
    #: Several opponents (agent specs): each battle's drawn from them, weighted by
    #: ``pool_weighting`` (training/pool.py). Empty: ``opponent`` alone.
    opponent_pool: list[str] = Field(default_factory=list)
    #: ``beats``: a member's weight is how often it beats the learner; ``uniform``: equal.
    pool_weighting: Literal["beats", "uniform"] = "beats"
    algo: Literal["maskable-ppo", "ppo"] = "maskable-ppo"
    timesteps: int = Field(100_000, ge=1)
    n_envs: int = Field(2, ge=1, le=MAX_ENVS)
    #: numpy's and stable-baselines3's seeding take 32 bits.
    seed: int = Field(0, ge=0, le=2**32 - 1)
    #: environments.md's damage shaping (bounded below the ±1 of a win): faster learning.
    reward_shaping: bool = True
    #: Reward of a battle nobody wins (draw, withdrawal, timeout), in [-1, 1]. 0 as the
    #: env's default; a negative value stops a learner from preferring a sure draw to
    #: a likely loss (the first Donjon policy learned to withdraw, policies.md).
    draw_reward: float = 0.0
    #: How the training envs are stepped: ``kernel`` the batched env on the ruleset's
    #: kernel (escaramuza.envs.sb3; refused, with why, where the kernel does not take the
    #: run: several scenarios, both sides, self-play, reward shaping), ``dummy`` or
    #: ``subproc`` stable-baselines3's over the Python env, ``auto`` the kernel where it
    #: takes the run and else ``dummy``. Every choice steps the same battles.
    vec_env: Literal["auto", "kernel", "dummy", "subproc"] = "auto"
    #: The envs' limits: ``standard`` (16 combatants, 16 zones, 6 items: a policy that
    #: plays any scenario of the ruleset within them), ``fit`` (the least that take the
    #: run's scenarios: a narrower network that trains faster, for those scenarios and
    #: any within the same limits; written into config.yaml as numbers) or the numbers.
    limits: LimitsField = "standard"
    #: torch threads; 1 is fastest for small MLPs (thread overhead dominates the matmuls).
    torch_threads: int = Field(1, ge=1)
    checkpoint_freq: int = Field(20_000, ge=1)
    #: A wall-clock budget: training stops at the first step past it and saves the model
    #: and ``policy.zip`` as at the end (None: train every timestep).
    # Finite: the run's config.yaml must load back (--resume), and YAML's .inf does not.
    max_seconds: float | None = Field(None, gt=0, allow_inf_nan=False)
    eval_freq: int = Field(10_000, ge=1)
    #: Battles of each (scenario, side) in the paired evaluation on the kernel
    #: (training/paired_callback.py): the same battles at every evaluation, the
    #: heuristic's results on them the reference, the best model chosen on them.
    eval_battles: int = Field(400, ge=1, le=MAX_RUN)
    #: Battles of the evaluation on the Python env, where the kernel does not take the
    #: run's evaluation (an opponent only the engine plays).
    eval_episodes: int = Field(20, ge=1)
    selfplay: SelfPlay | None = None
    distill: Distill | None = None
    hyperparameters: Hyperparameters = Field(default_factory=Hyperparameters)

    @field_validator("draw_reward", mode="before")
    @classmethod
    def _draw_reward_in_range(cls, value: Any) -> float:
        # One check for the env keyword and the config (envs/common.py says why [-1, 1]);
        # imported here so `escaramuza play` never loads gymnasium through this module.
        from escaramuza.envs.common import check_draw_reward

        if isinstance(value, bool):
            raise ValueError(f"draw_reward must be a number in [-1, 1], not {value!r}")
        return check_draw_reward(value)

    @model_validator(mode="after")
    def _batch_fits(self) -> TrainConfig:
        hp = self.hyperparameters
        if hp.batch_size > hp.n_steps * self.n_envs:
            raise ValueError(
                f"hyperparameters.batch_size={hp.batch_size} is larger than a rollout "
                f"(n_steps × n_envs = {hp.n_steps * self.n_envs})"
            )
        if hp.n_steps * self.n_envs > MAX_ROLLOUT:
            raise ValueError(
                f"a rollout of n_steps × n_envs = {hp.n_steps * self.n_envs} steps is more "
                f"than {MAX_ROLLOUT:,}: its buffer keeps every step's observation and mask "
                "(about 5 kB a step) in memory"
            )
        if self.selfplay is not None and self.opponent not in ("heuristic", "self"):
            raise ValueError("opponent: self-play trains against snapshots; leave --opponent out")
        if self.selfplay is not None and self.opponent_pool:
            raise ValueError("opponent_pool: self-play trains against snapshots, not a pool")
        if self.distill is not None and (
            len(self.scenarios) > 1 or self.side == "both" or self.algo != "maskable-ppo"
        ):
            raise ValueError(
                "distill: the planner's positions are of one scenario and one side, for "
                "maskable-ppo; give one --scenario and --side enemies or heroes"
            )
        if len(set(self.opponent_pool)) != len(self.opponent_pool):
            raise ValueError("opponent_pool: an opponent is named twice")
        return self

    def to_yaml(self, trained_timesteps: int | None = None) -> str:
        """The YAML of ``RUN_DIR/config.yaml``; with ``trained_timesteps``, that number
        beside ``timesteps`` (what the run trains: whole rollouts, :func:`rounded_timesteps`)."""
        text = yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False, allow_unicode=True)
        if trained_timesteps is None:
            return text
        return (
            f"{text}# `timesteps` rounded up to whole rollouts of n_steps x n_envs "
            f"(docs/training.md); derived, so a --config read ignores it\n"
            f"{TRAINED_KEY}: {trained_timesteps}\n"
        )


#: The key ``config.yaml`` records the trained timesteps under (see ``to_yaml``).
TRAINED_KEY = "trained_timesteps"


def rounded_timesteps(requested: int, n_steps: int, n_envs: int, start: int = 0) -> int:
    """The timesteps PPO trains when asked for ``requested`` in total from ``start``.

    SB3's PPO (and MaskablePPO) learns from whole rollouts: each collects
    ``n_steps`` steps in each of the ``n_envs`` envs, and ``learn`` collects rollouts
    while fewer than ``requested`` timesteps are done, so the total is ``start`` plus
    the remaining timesteps rounded UP to a multiple of ``n_steps × n_envs``.
    """
    rollout = n_steps * n_envs
    remaining = max(requested - start, 0)
    return start + -(-remaining // rollout) * rollout


def _error(source: str, exc: ValidationError) -> EscaramuzaError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"] if p not in _TAGS) or "config"
    # Our own validators' messages are whole sentences: drop pydantic's prefix.
    message = first["msg"].removeprefix("Value error, ")
    return EscaramuzaError(f"{source}: {where}: {message}")


def _file_error(source: str, field: str, reason: str) -> EscaramuzaError:
    """Why ``--config FILE`` cannot be read or parsed (the error factory of
    :func:`read_text_file` and :func:`parse_yaml`): ``--config FILE: line 3, column 1: …``."""
    where = f"{source}: {field}" if field else source
    return EscaramuzaError(f"--config {where}: {reason}")


def load_config(path: str | Path | None, overrides: dict[str, Any]) -> TrainConfig:
    """The config from ``path`` (or defaults) with ``overrides`` (non-None CLI values) on top;
    a section both set (``distill``) keeps the file's keys the command line does not set.

    Errors name the file or ``--option`` and the field: ``run.yaml: hyperparameters.n_steps:
    Input should be greater than or equal to 2``. The file is read bounded
    (:data:`MAX_CONFIG_BYTES`, a regular file) and parsed by the project's bounded YAML
    parser: a device, a huge or deeply nested file is refused in one line.
    """
    data: dict[str, Any] = {}
    source = "command line"
    if path is not None:
        source = str(path)
        text = read_text_file(path, _file_error, _("a training configuration"), MAX_CONFIG_BYTES)
        loaded = parse_yaml(text, source, _file_error)
        if loaded is not None and not isinstance(loaded, dict):
            raise EscaramuzaError(_f("--config {path}: expected a mapping of settings", path))
        data = dict(loaded or {})
    # Written by `escaramuza train` beside `timesteps`, recomputed by every run.
    data.pop(TRAINED_KEY, None)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            # A section given on both: the command line's keys over the file's others.
            data[key] = {**data[key], **value}
        elif value is not None:
            data[key] = value
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as exc:
        # A value the command line gave is the command line's, whatever file was read.
        loc = [p for p in exc.errors()[0]["loc"] if p not in _TAGS]
        given = overrides.get(str(loc[0])) if loc else None
        if isinstance(given, dict) and len(loc) > 1:
            given = given.get(str(loc[1]))
        raise _error("command line" if given is not None else source, exc) from None
