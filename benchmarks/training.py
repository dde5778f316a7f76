"""Training benchmarks (issue 9, item 6). Prints figures and ratios; never a timed test.

Default mode, throughput, in one run with the same settings:

* PPO frames/s on ``escaramuza/DestinyDice-v0`` (heuristic opponent, built as
  ``escaramuza train`` builds it) and on ``CartPole-v1`` — target: ours ≥ 0.8 ×
  CartPole's;
* MaskablePPO vs PPO frames/s on our env — target ≥ 0.75.

``--learning``: train a MaskablePPO enemy for at most ``--minutes`` (default 15)
on ``--scenario``, then play ``-n`` battles against heuristic heroes with the
trained enemies, the heuristic enemies and random enemies. Targets: the trained
enemies win at least as often as the heuristic ones, and ≥ 30 points more than
the random ones. ``--model PATH`` skips training and measures a saved policy.

    python benchmarks/training.py [--timesteps 8192]
    python benchmarks/training.py --learning [--minutes 15] [--scenario destiny_dice/emboscada]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

import escaramuza.envs  # noqa: F401 - registers the ids
from escaramuza.playtest import PlaytestConfig, playtest
from escaramuza.training.envs import make_train_env

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


def training_env() -> Any:
    """Our env as ``escaramuza train`` builds it (training/envs.py: no event lists in infos)."""
    return make_train_env(ENV_ID, [], "enemies", "heuristic", True)


def frames_per_second(
    cls: type, env_id: Any, timesteps: int, **env_kwargs: Any
) -> tuple[float, float]:
    """Frames/s of ``cls`` learning on ``env_id`` and the share of illegal (no-op) steps."""
    venv = make_vec_env(env_id, n_envs=1, seed=0, env_kwargs=env_kwargs or None)
    model = cls("MlpPolicy", venv, **SETTINGS)
    model.learn(total_timesteps=SETTINGS["n_steps"])  # warm-up: imports, first allocations
    share = IllegalShare()
    started = time.perf_counter()
    model.learn(total_timesteps=timesteps, reset_num_timesteps=False, callback=share)
    seconds = time.perf_counter() - started
    venv.close()
    return timesteps / seconds, share.illegal / max(share.steps, 1)


def throughput(timesteps: int) -> None:
    print(f"PPO and MaskablePPO, MlpPolicy [64, 64], n_steps 512, batch 128, 4 epochs, "
          f"1 env, torch threads {torch.get_num_threads()}, {timesteps} timesteps each")
    cart, _ = frames_per_second(PPO, "CartPole-v1", timesteps)
    ours, illegal = frames_per_second(PPO, training_env, timesteps)
    masked, _ = frames_per_second(MaskablePPO, training_env, timesteps)
    raw, _ = frames_per_second(MaskablePPO, ENV_ID, timesteps, reward_shaping=True)
    print(f"  PPO on CartPole-v1:                   {cart:8.0f} frames/s")
    print(f"  PPO on {ENV_ID}:         {ours:8.0f} frames/s   ratio {ours / cart:.2f} "
          f"(target ≥ 0.8); {100 * illegal:.0f}% of its steps were illegal no-ops")
    print(f"  MaskablePPO on {ENV_ID}: {masked:8.0f} frames/s   ratio to PPO "
          f"{masked / ours:.2f} (target ≥ 0.75)")
    print(f"  MaskablePPO on the bare registered env (event lists in infos, deep-copied "
          f"by DummyVecEnv): {raw:.0f} frames/s")


class TimeLimit(BaseCallback):
    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.deadline = time.monotonic() + seconds

    def _on_step(self) -> bool:
        return time.monotonic() < self.deadline


def train_for(scenario: str, minutes: float, out: Path) -> Path:
    venv = make_vec_env(
        _env_of(scenario),
        n_envs=2, seed=1, env_kwargs={"scenario": scenario, "reward_shaping": True},
    )
    model = MaskablePPO("MlpPolicy", venv, **SETTINGS)
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
    path = Path(model) if model else train_for(
        scenario, minutes, Path(tempfile.gettempdir()) / "escaramuza-learning.zip"
    )
    rates = {}
    for name, enemies in (("trained", f"policy:{path}"), ("heuristic", "heuristic"),
                          ("random", "random")):
        cfg = PlaytestConfig(n=n, seed=1, heroes="heuristic", enemies=enemies)
        summary = playtest([scenario], cfg).summaries[0]
        p = summary["outcomes"]["enemies"]
        rates[name] = p["rate"]
        lo, hi = p["ci95"]
        print(f"  {name:9s} enemies vs heuristic heroes: win {100 * p['rate']:5.1f}% "
              f"[{100 * lo:.1f}–{100 * hi:.1f}] over {n} battles")
    print(f"  trained − heuristic: {100 * (rates['trained'] - rates['heuristic']):+.1f} points "
          f"(target ≥ 0); trained − random: {100 * (rates['trained'] - rates['random']):+.1f} "
          f"points (target ≥ +30)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=8192)
    parser.add_argument("--learning", action="store_true")
    parser.add_argument("--scenario", default="destiny_dice/emboscada")
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("-n", type=int, default=400)
    parser.add_argument("--model", help="measure this saved policy instead of training one")
    args = parser.parse_args()
    torch.set_num_threads(1)  # small MLPs: threads cost more than they save
    gym.logger.min_level = 40
    if args.learning:
        learning(args.scenario, args.minutes, args.n, args.model)
    else:
        throughput(args.timesteps)


if __name__ == "__main__":
    main()
