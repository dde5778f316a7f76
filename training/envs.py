"""Training environments: several scenarios (and sides) of one ruleset behind one env.

Several scenarios sampled per episode, for generalisation. The
observation and action sizes of an escaramuza env depend only on the ruleset and
its static limits (docs/environments.md, "The single-agent env"), never on the
scenario, so one policy can play every scenario of a ruleset: :class:`ScenarioSampler` holds one
registered env per (scenario, side) and picks one at each ``reset()`` with its
own seeded generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, SupportsFloat

import gymnasium as gym
import numpy as np

import escaramuza.envs  # registers the ids
from escaramuza.agents import Agent, make_agent
from escaramuza.envs.common import STANDARD_LIMITS, EnvLimits, fitted_limits
from escaramuza.envs.single import EscaramuzaEnv
from escaramuza.rules.core.errors import EscaramuzaError, UnknownNameError
from escaramuza.rules.core.i18n import _f

if TYPE_CHECKING:
    from escaramuza.training.config import TrainConfig

#: Consecutive illegal (no-op) actions after which an episode is truncated. Only an
#: unmasked learner (``--algo ppo``) takes them; a deterministic policy that picks the
#: same illegal slot would otherwise never finish an evaluation episode.
MAX_CONSECUTIVE_ILLEGAL = 64


def ruleset_of(env_id: str) -> str:
    """The ruleset id behind a registered escaramuza env id."""
    if env_id not in escaramuza.envs.ENV_IDS:
        raise UnknownNameError(
            _f(
                "--env: unknown env {env} (known: {known})",
                repr(env_id),
                ", ".join(escaramuza.envs.ENV_IDS),
            )
        )
    ruleset = gym.spec(env_id).kwargs.get("ruleset")
    if not isinstance(ruleset, str):
        raise EscaramuzaError(f"--env: {env_id!r} does not name its ruleset")
    return ruleset


def run_limits(config: TrainConfig) -> EnvLimits:
    """The static limits of the run's envs (``config.limits``): ``standard``, the least
    that take its scenarios (``fit``), or the numbers given (:func:`check_run_limits`
    checks that they take every scenario of the run)."""
    if config.limits == "standard":
        return STANDARD_LIMITS
    if config.limits == "fit":
        return fitted_limits(run_scenarios(config)[1])
    return EnvLimits(**config.limits.model_dump())


def check_run_limits(config: TrainConfig) -> None:
    """Refuse limits given as numbers below what a scenario of the run needs, naming
    the field (the env's own refusal would name its keyword, not the config's)."""
    if config.limits in ("standard", "fit"):
        return
    names, scenarios = run_scenarios(config)
    need = fitted_limits(scenarios)
    for field, have, least in zip(EnvLimits._fields, run_limits(config), need, strict=True):
        if have < least:
            raise EscaramuzaError(
                f"limits.{field}: {have} is too small for the run's scenarios "
                f"({', '.join(names)}), which need {least}"
            )


def run_scenarios(config: TrainConfig) -> tuple[list[str], list[Any]]:
    """The run's scenario names (none given: the ruleset's default one) and scenarios."""
    from escaramuza.rules import get_ruleset
    from escaramuza.rules.core.scenario import load_scenario

    names = list(config.scenarios) or [get_ruleset(ruleset_of(config.env)).default_scenario]
    try:
        return names, [load_scenario(name) for name in names]
    except (ValueError, OSError) as exc:
        raise EscaramuzaError(f"--scenario: {exc}") from None


def with_fitted_limits(config: TrainConfig) -> TrainConfig:
    """``config`` with ``limits: fit`` replaced by the numbers it stands for, so that the
    run's config.yaml (and a resume) keeps the sizes its network was built for."""
    from escaramuza.training.config import Limits

    if config.limits != "fit":
        return config
    limits = Limits(**run_limits(config)._asdict())
    return config.model_copy(update={"limits": limits})


def make_single(
    env_id: str,
    scenario: str | None,
    side: str,
    opponent: str | Agent,
    shaping: bool,
    draw_reward: float = 0.0,
    narrate: bool = True,
    limits: EnvLimits = STANDARD_LIMITS,
) -> EscaramuzaEnv:
    """One registered env (``illegal_action="noop"``), unwrapped: the sampler is the wrapper."""
    try:
        env = gym.make(
            env_id,
            scenario=scenario,
            side=side,
            opponent=opponent,
            reward_shaping=shaping,
            draw_reward=draw_reward,
            narrate=narrate,
            disable_env_checker=True,
            **limits._asdict(),
        )
    except (ValueError, OSError) as exc:
        raise EscaramuzaError(f"--scenario {scenario}: {exc}") from None
    base = env.unwrapped
    assert isinstance(base, EscaramuzaEnv)
    return base


class ScenarioSampler(gym.Env[np.ndarray, np.int64]):
    """Plays one of several (scenario, side) envs per episode, chosen uniformly.

    The choice comes from ``self.np_random`` (seeded by ``reset(seed=…)``), and
    the chosen env is reset with a seed drawn from the same generator, so a run
    is reproducible from its seed. All the envs share the opponent object.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        envs: Sequence[EscaramuzaEnv],
        keep_events: bool = False,
        members: Sequence[int] | None = None,
    ) -> None:
        if not envs:
            raise ValueError("ScenarioSampler needs at least one env")
        first = envs[0]
        for env in envs[1:]:
            if env.action_space != first.action_space or (
                env.observation_space != first.observation_space
            ):
                raise EscaramuzaError(
                    f"scenario {env.scenario.name!r} does not match the spaces of "
                    f"{first.scenario.name!r}: use scenarios of one ruleset and the same limits"
                )
        self.envs = list(envs)
        self.keep_events = keep_events
        #: With an opponent pool: each env's member of the pool, and the weights the
        #: episodes' envs are drawn with (``set_pool_weights``; None: uniform, unweighted).
        self.members = list(members) if members is not None else None
        self.weights: np.ndarray | None = (
            np.full(len(self.envs), 1.0 / len(self.envs)) if members is not None else None
        )
        self.current = first
        self.illegal_streak = 0
        self.action_space = first.action_space
        self.observation_space = first.observation_space

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        pick = draw_env(self.np_random, len(self.envs), self.weights)
        self.current = self.envs[pick]
        inner_seed = int(self.np_random.integers(0, 2**62))
        obs, info = self.current.reset(seed=inner_seed, options=options)
        self.illegal_streak = 0
        if not self.keep_events:
            info.pop("events", None)
            info.pop("action_mask", None)
        info["scenario"] = self.current.scenario.name
        info["side"] = self.current.side.value
        return obs, info

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.current.step(action)
        if not self.keep_events:
            # SB3's DummyVecEnv deep-copies every info dict each step; the event list
            # (frozen dataclasses) made that ~20 % of a MaskablePPO step. Training never
            # reads it, nor the mask's copy (MaskablePPO asks action_masks()).
            info.pop("events", None)
            info.pop("action_mask", None)
        if info.get("illegal_action"):
            self.illegal_streak += 1
            if self.illegal_streak >= MAX_CONSECUTIVE_ILLEGAL:
                truncated = True
                info["illegal_streak"] = self.illegal_streak
        else:
            self.illegal_streak = 0
        if (terminated or truncated) and "outcome" in info:
            # SB3's evaluation callbacks record ``is_success`` (eval/success_rate,
            # ``successes`` in evaluations.npz): the learner's win rate, which the mean
            # return hides once draws are priced (draw_reward) or rewards shaped.
            info["is_success"] = info["outcome"].winner is self.current.side
            if self.members is not None:
                info["pool_member"] = self.members[self.envs.index(self.current)]
        return obs, reward, terminated, truncated, info

    def set_pool_weights(self, weights: Sequence[float]) -> None:
        """The opponent pool's weights, one per member (``training/pool.py``)."""
        assert self.members is not None, "set_pool_weights: no opponent pool"
        self.weights = env_weights(self.members, weights)

    def action_masks(self) -> np.ndarray:
        return self.current.action_masks()

    def add_snapshot(self, path: str) -> None:
        """Self-play: give the shared opponent pool one more frozen snapshot."""
        opponent = self.current.opponent
        adder = getattr(opponent, "add", None)
        if adder is None:
            raise EscaramuzaError("add_snapshot: this env's opponent is not a snapshot pool")
        adder(path)


def draw_env(rng: np.random.Generator, n: int, weights: np.ndarray | None) -> int:
    """The env of an episode: uniform (``integers``) without weights, else drawn with
    them (``choice``); the batched kernel sampler draws alike."""
    if weights is not None:
        return int(rng.choice(n, p=weights))
    return int(rng.integers(n)) if n > 1 else 0


def env_weights(members: Sequence[int], weights: Sequence[float]) -> np.ndarray:
    """Each env's draw weight from its pool member's: the member's weight shared among
    its envs (every member has as many), normalised."""
    w = np.array([float(weights[m]) for m in members], dtype=np.float64)
    if len(w) == 0 or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"pool weights must be non-negative and not all 0, not {weights!r}")
    out: np.ndarray = w / w.sum()
    return out


def make_train_env(
    env_id: str,
    scenarios: Sequence[str],
    side: str,
    opponent: str | Agent | Sequence[str],
    shaping: bool,
    draw_reward: float = 0.0,
    limits: EnvLimits = STANDARD_LIMITS,
) -> ScenarioSampler:
    """The env a training worker steps: every scenario × side (× opponent of a pool,
    ``opponent`` a list of agent specs), one agent object per opponent."""
    pool = isinstance(opponent, list | tuple)
    specs: list[Any] = list(opponent) if isinstance(opponent, list | tuple) else [opponent]
    agents = [make_agent(o) for o in specs]
    sides = ("enemies", "heroes") if side == "both" else (side,)
    names: Sequence[str | None] = list(scenarios) or [None]
    combos = [(name, s, m) for name in names for s in sides for m in range(len(agents))]
    # No ActionTaken lines (narrate=False): the sampler drops the events anyway.
    return ScenarioSampler(
        [
            make_single(env_id, name, s, agents[m], shaping, draw_reward, False, limits)
            for name, s, m in combos
        ],
        members=[m for _, _, m in combos] if pool else None,
    )
