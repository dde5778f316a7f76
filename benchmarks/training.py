"""Training benchmarks. Prints figures and ratios; never a timed test.

Default mode, throughput, in one run with the same settings:

* PPO frames/s on ``escaramuza/DestinyDice-v0`` (heuristic opponent, built as
  ``escaramuza train`` builds it) and on ``CartPole-v1`` — target: ours ≥ 0.8 ×
  CartPole's;
* MaskablePPO vs PPO frames/s on our env — target ≥ 0.75.

To say where the time goes, every arm runs behind :class:`EnvClock` (time inside
the vectorised env — our steps, resets and mask requests — against the rest of a
frame: the algorithm), and two calibration arms run PPO and MaskablePPO on
:class:`StubEnv`, our spaces with a step that does nothing: their ratio is the
ceiling any env with these spaces can reach. The arms take turns in ``--rounds``
chunks so the load of the shared machine falls on all of them alike; figures are
printed per second of wall time and per second of this process's CPU time.
``--no-arg-checks`` turns ``torch.distributions`` argument validation off in every
arm (an experiment: ``escaramuza train`` keeps torch's default, on).

``--learning``: train a MaskablePPO enemy for at most ``--minutes`` (default 15)
on ``--scenario``, then play ``-n`` battles against heuristic heroes with the
trained enemies, the heuristic enemies and random enemies. Targets: the trained
enemies win at least as often as the heuristic ones, and ≥ 30 points more than
the random ones. ``--model PATH`` skips training and measures a saved policy.

    python benchmarks/training.py [--timesteps 8192] [--rounds 4] [--no-arg-checks]
    python benchmarks/training.py --learning [--minutes 15] [--scenario destiny_dice/emboscada]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

import escaramuza.envs  # noqa: F401 - registers the ids
from escaramuza.playtest.result import playtest
from escaramuza.playtest.runner import PlaytestConfig
from escaramuza.training.envs import ScenarioSampler, make_train_env
from escaramuza.training.train import policy_for

ENV_ID = "escaramuza/DestinyDice-v0"
SETTINGS: dict[str, Any] = {
    "n_steps": 512,
    "batch_size": 128,
    "n_epochs": 4,
    "policy_kwargs": {"net_arch": [64, 64]},
    "device": "cpu",
    "seed": 0,
}


class IllegalShare(BaseCallback):
    """Counts the steps whose action was illegal (a cheap no-op in the registered envs)."""

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0
        self.illegal = 0

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            self.steps += 1
            self.illegal += bool(info.get("illegal_action"))
        return True


def training_env() -> ScenarioSampler:
    """Our env as ``escaramuza train`` builds it (training/envs.py: no event lists in infos)."""
    return make_train_env(ENV_ID, [], "enemies", "heuristic", True)


class EnvClock(VecEnvWrapper):
    """Time spent inside the vectorised env: steps (rules, opponent, observation, resets
    inside ``step_wait``) and mask requests (``env_method("action_masks")``).

    The rest of a frame is the algorithm: policy forward, sampling, rollout buffer,
    gradient updates. Every arm is wrapped, so each pays the same few-µs wrapper.
    """

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self.seconds = 0.0
        self.mask_seconds = 0.0

    def reset(self) -> Any:
        started = time.perf_counter()
        try:
            return self.venv.reset()
        finally:
            self.seconds += time.perf_counter() - started

    def step_async(self, actions: np.ndarray) -> None:
        started = time.perf_counter()
        try:
            self.venv.step_async(actions)
        finally:
            self.seconds += time.perf_counter() - started

    def step_wait(self) -> Any:
        started = time.perf_counter()
        try:
            return self.venv.step_wait()
        finally:
            self.seconds += time.perf_counter() - started

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        started = time.perf_counter()
        try:
            return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)
        finally:
            spent = time.perf_counter() - started
            self.seconds += spent
            if method_name == "action_masks":
                self.mask_seconds += spent


class StubEnv(gym.Env[np.ndarray, np.int64]):
    """Our env's spaces and a fixed mask, with a step that does nothing (calibration).

    PPO and MaskablePPO on it measure the algorithms alone: their ratio is the best
    MaskablePPO/PPO any env with these spaces can reach in this setup. Episodes last
    ``EPISODE`` steps (ours: about 31 learner decisions) with ``LEGAL`` legal slots
    (ours: about 6).
    """

    EPISODE = 31
    LEGAL = 6

    def __init__(self, n_actions: int, obs_size: int) -> None:
        self.action_space = spaces.Discrete(n_actions)
        self.observation_space = spaces.Box(-10.0, 10.0, (obs_size,), np.float32)
        self._obs = np.zeros(obs_size, dtype=np.float32)
        self._mask = np.zeros(n_actions, dtype=bool)
        self._mask[np.linspace(0, n_actions - 1, self.LEGAL).astype(int)] = True
        self._t = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._t = 0
        return self._obs.copy(), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self._t += 1
        return self._obs.copy(), 0.0, self._t >= self.EPISODE, False, {}

    def action_masks(self) -> np.ndarray:
        return self._mask.copy()


def stub_env() -> StubEnv:
    spec = training_env()
    assert isinstance(spec.action_space, spaces.Discrete)
    return StubEnv(int(spec.action_space.n), int(spec.observation_space.shape[0]))


@dataclass(slots=True)
class Arm:
    """One algorithm on one env, timed over several interleaved rounds."""

    label: str
    model: Any
    clock: EnvClock
    share: IllegalShare
    wall: float = 0.0
    cpu: float = 0.0
    frames: int = 0

    @property
    def fps(self) -> float:
        return self.frames / self.wall

    @property
    def cpu_fps(self) -> float:
        return self.frames / self.cpu

    def per_frame_us(self) -> tuple[float, float, float]:
        """µs per frame: spent in the env, of which mask requests, and in the algorithm."""
        env = 1e6 * self.clock.seconds / self.frames
        return env, 1e6 * self.clock.mask_seconds / self.frames, 1e6 * self.wall / self.frames - env


def make_arm(label: str, cls: type, env_id: Any, policy: Any = None, **env_kwargs: Any) -> Arm:
    """One arm; ``policy`` defaults to the one ``escaramuza train`` gives ``cls``."""
    venv = EnvClock(make_vec_env(env_id, n_envs=1, seed=0, env_kwargs=env_kwargs or None))
    if policy is None:
        policy = policy_for("maskable-ppo" if cls is MaskablePPO else "ppo")
    model = cls(policy, venv, **SETTINGS)
    model.learn(total_timesteps=SETTINGS["n_steps"])  # warm-up: imports, first allocations
    venv.seconds = venv.mask_seconds = 0.0
    return Arm(label, model, venv, IllegalShare())


def run_rounds(arms: list[Arm], timesteps: int, rounds: int) -> None:
    """``timesteps`` per arm in ``rounds`` chunks, the arms taking turns, so a change in the
    machine's load (it is shared) falls on every arm alike instead of on whichever ran then."""
    chunk = timesteps // rounds
    for _ in range(rounds):
        for arm in arms:
            wall, cpu = time.perf_counter(), time.process_time()
            arm.model.learn(total_timesteps=chunk, reset_num_timesteps=False, callback=arm.share)
            arm.wall += time.perf_counter() - wall
            arm.cpu += time.process_time() - cpu
            arm.frames += chunk


def throughput(timesteps: int, rounds: int) -> None:
    step = rounds * SETTINGS["n_steps"]
    timesteps = max(step, (timesteps + step - 1) // step * step)  # whole rollouts per round
    checks = "on" if torch.distributions.Distribution._validate_args else "off"
    print(
        "PPO (MlpPolicy) and MaskablePPO (escaramuza train's OnceMaskedPolicy), [64, 64], "
        f"n_steps 512, batch 128, 4 epochs, 1 env, torch threads {torch.get_num_threads()}, "
        f"torch.distributions argument checks {checks}, "
        f"{timesteps} timesteps each in {rounds} interleaved rounds"
    )
    cart = make_arm("PPO on CartPole-v1", PPO, "CartPole-v1")
    ours = make_arm(f"PPO on {ENV_ID}", PPO, training_env)
    masked = make_arm(f"MaskablePPO on {ENV_ID}", MaskablePPO, training_env)
    stock = make_arm("MaskablePPO, sb3-contrib's MlpPolicy", MaskablePPO, training_env, "MlpPolicy")
    raw = make_arm("MaskablePPO, bare registered env", MaskablePPO, ENV_ID, reward_shaping=True)
    stub_ppo = make_arm("PPO on the stub env", PPO, stub_env)
    stub_masked = make_arm("MaskablePPO on the stub env", MaskablePPO, stub_env)
    arms = [cart, ours, masked, stock, raw, stub_ppo, stub_masked]
    run_rounds(arms, timesteps, rounds)

    print(
        f"  {'':40s} {'frames/s':>9s} {'CPU':>6s}   µs per frame: {'env':>5s} "
        f"{'(masks)':>7s} {'algorithm':>9s}"
    )
    for arm in arms:
        env, masks, algo = arm.per_frame_us()
        print(
            f"  {arm.label:40s} {arm.fps:9.0f} {arm.cpu_fps:6.0f}   {'':14s}{env:5.0f} "
            f"{masks:7.0f} {algo:9.0f}"
        )
    illegal = ours.share.illegal / max(ours.share.steps, 1)
    print(
        "  (CPU: frames per second of this process's CPU time, less sensitive to the other "
        "jobs on a shared machine;"
    )
    print(
        "   bare registered env: event lists in infos, deep-copied by DummyVecEnv; stub env: "
        "our spaces, a step that does nothing)"
    )
    rows = (
        (
            "PPO ours / CartPole:",
            ours,
            cart,
            f"target ≥ 0.8; {100 * illegal:.0f}% of PPO's steps on our env were illegal no-ops",
        ),
        ("MaskablePPO / PPO, ours:", masked, ours, "target ≥ 0.75"),
        (
            "  the same, stock policy:",
            stock,
            ours,
            "sb3-contrib's MlpPolicy (three Categorical builds a forward pass)",
        ),
        (
            "MaskablePPO / PPO, stub:",
            stub_masked,
            stub_ppo,
            "the ceiling: the two algorithms alone",
        ),
    )
    for name, top, bottom, note in rows:
        print(
            f"  {name:26s} {top.fps / bottom.fps:.2f} "
            f"(CPU {top.cpu_fps / bottom.cpu_fps:.2f})   {note}"
        )
    env_m, _, algo_m = masked.per_frame_us()
    env_p, _, algo_p = ours.per_frame_us()
    extra = env_m + algo_m - env_p - algo_p
    print(
        f"  MaskablePPO's extra time per frame on our env: {extra:+.0f} µs = env "
        f"{env_m - env_p:+.0f} µs (game steps against no-ops) + algorithm "
        f"{algo_m - algo_p:+.0f} µs (masking)"
    )


class TimeLimit(BaseCallback):
    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.deadline = time.monotonic() + seconds

    def _on_step(self) -> bool:
        return time.monotonic() < self.deadline


def train_for(scenario: str, minutes: float, out: Path) -> Path:
    venv = make_vec_env(
        _env_of(scenario),
        n_envs=2,
        seed=1,
        env_kwargs={"scenario": scenario, "reward_shaping": True},
    )
    model = MaskablePPO(policy_for("maskable-ppo"), venv, **SETTINGS)
    started = time.perf_counter()
    model.learn(total_timesteps=10**9, callback=TimeLimit(60 * minutes))
    print(f"  trained {model.num_timesteps} timesteps in {time.perf_counter() - started:.0f} s")
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    venv.close()
    return out


def _env_of(scenario: str) -> str:
    from escaramuza.rules import get_ruleset

    return get_ruleset(scenario.split("/", 1)[0]).env_id


def learning(scenario: str, minutes: float, n: int, model: str | None) -> None:
    path = (
        Path(model)
        if model
        else train_for(scenario, minutes, Path(tempfile.gettempdir()) / "escaramuza-learning.zip")
    )
    rates = {}
    for name, enemies in (
        ("trained", f"policy:{path}"),
        ("heuristic", "heuristic"),
        ("random", "random"),
    ):
        cfg = PlaytestConfig(n=n, seed=1, heroes="heuristic", enemies=enemies)
        summary = playtest([scenario], cfg).summaries[0]
        p = summary["outcomes"]["enemies"]
        rates[name] = p["rate"]
        lo, hi = p["ci95"]
        print(
            f"  {name:9s} enemies vs heuristic heroes: win {100 * p['rate']:5.1f}% "
            f"[{100 * lo:.1f}–{100 * hi:.1f}] over {n} battles"
        )
    print(
        f"  trained − heuristic: {100 * (rates['trained'] - rates['heuristic']):+.1f} points "
        f"(target ≥ 0); trained − random: {100 * (rates['trained'] - rates['random']):+.1f} "
        f"points (target ≥ +30)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=8192)
    parser.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="interleaved rounds the timesteps are split into (default 4)",
    )
    parser.add_argument(
        "--no-arg-checks",
        action="store_true",
        help="turn torch.distributions argument validation off in every arm (an experiment: "
        "escaramuza train leaves it on, torch's default)",
    )
    parser.add_argument("--learning", action="store_true")
    parser.add_argument("--scenario", default="destiny_dice/emboscada")
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("-n", type=int, default=400)
    parser.add_argument("--model", help="measure this saved policy instead of training one")
    args = parser.parse_args()
    torch.set_num_threads(1)  # small MLPs: threads cost more than they save
    if args.no_arg_checks:
        torch.distributions.Distribution.set_default_validate_args(False)
    gym.logger.min_level = 40
    if args.learning:
        learning(args.scenario, args.minutes, args.n, args.model)
    else:
        throughput(args.timesteps, max(1, args.rounds))


if __name__ == "__main__":
    main()
