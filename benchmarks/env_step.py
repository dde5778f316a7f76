"""Median ``step()`` time of an escaramuza env against a bare CartPole-v1 step.

Prints figures; it is never a timed test (architecture.md, "benchmarks").
Targets: the escaramuza step, opponent turns included, within 10× a
CartPole step; computing the mask at most 20 % of the step.

    python benchmarks/env_step.py [--scenario destiny_dice/emboscada] [--steps 3000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import escaramuza.envs  # noqa: F401  (registers the ids)


class _Stopwatch:
    """Accumulates the time spent in a wrapped callable."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.total = 0
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter_ns()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.total += time.perf_counter_ns() - start
            self.calls += 1


def time_escaramuza(env_id: str, scenario: str, opponent: str, steps: int, seed: int) -> dict:
    env = gym.make(env_id, scenario=scenario, opponent=opponent)
    raw = env.unwrapped
    # Instance attributes shadow the methods, so the env's own calls go through the watches.
    mask_watch = _Stopwatch(raw._refresh_mask)  # type: ignore[attr-defined]
    raw._refresh_mask = mask_watch  # type: ignore[attr-defined]
    obs_watch = _Stopwatch(raw.encoder.encode)  # type: ignore[attr-defined]
    raw.encoder = _EncoderProxy(raw.encoder, obs_watch)  # type: ignore[attr-defined]
    act_watch = _Stopwatch(raw.opponent.act)  # type: ignore[attr-defined]
    raw.opponent = _AgentProxy(raw.opponent, act_watch)  # type: ignore[attr-defined]
    rng = random.Random(seed)
    env.reset(seed=seed)
    durations: list[int] = []
    shares: list[float] = []
    mask_in_steps = 0
    episodes = 1
    for _ in range(steps):
        legal = np.flatnonzero(raw.action_masks())  # type: ignore[attr-defined]
        action = int(legal[rng.randrange(len(legal))])
        before = mask_watch.total
        start = time.perf_counter_ns()
        _, _, terminated, truncated, _ = env.step(action)
        durations.append(time.perf_counter_ns() - start)
        mask_in_steps += mask_watch.total - before
        shares.append((mask_watch.total - before) / durations[-1])
        if terminated or truncated:
            episodes += 1
            mask_before_reset = mask_watch.total
            env.reset(seed=seed + episodes)
            # Reset's own mask is not part of any step.
            mask_watch.total = mask_before_reset
    total = sum(durations)
    return {
        "median_us": statistics.median(durations) / 1000,
        "mean_us": total / len(durations) / 1000,
        "mask_share": mask_in_steps / total,
        "mask_share_median": statistics.median(shares),
        "obs_share": obs_watch.total / total,
        "opponent_share": act_watch.total / total,
        "episodes": episodes,
    }


class _EncoderProxy:
    def __init__(self, encoder: Any, watch: _Stopwatch) -> None:
        self._encoder = encoder
        self.encode = watch

    def __getattr__(self, name: str) -> Any:
        return getattr(self._encoder, name)


class _AgentProxy:
    def __init__(self, agent: Any, watch: _Stopwatch) -> None:
        self.name = agent.name
        self.act = watch


def time_cartpole(steps: int, seed: int) -> float:
    env = gym.make("CartPole-v1")
    env.reset(seed=seed)
    env.action_space.seed(seed)
    actions = [env.action_space.sample() for _ in range(steps)]
    durations: list[int] = []
    for action in actions:
        start = time.perf_counter_ns()
        _, _, terminated, truncated, _ = env.step(action)
        durations.append(time.perf_counter_ns() - start)
        if terminated or truncated:
            env.reset()
    return statistics.median(durations) / 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="escaramuza/DestinyDice-v0")
    parser.add_argument("--scenario", default="destiny_dice/emboscada")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    # Warm up both (imports, caches), then measure in the same run.
    time_cartpole(200, args.seed)
    time_escaramuza(args.env_id, args.scenario, args.opponent, 200, args.seed)
    cart = time_cartpole(args.steps * 5, args.seed)
    esc = time_escaramuza(args.env_id, args.scenario, args.opponent, args.steps, args.seed)

    ratio = esc["median_us"] / cart
    print(f"{args.env_id} on {args.scenario} (opponent {args.opponent}, random masked learner)")
    print(
        f"  median step()           {esc['median_us']:9.1f} µs  (mean {esc['mean_us']:.1f} µs, "
        f"{args.steps} steps, {esc['episodes']} episodes)"
    )
    print(f"  CartPole-v1 median step {cart:9.1f} µs")
    print(f"  ratio                   {ratio:9.1f}×   (target ≤ 10×)")
    print(
        f"  mask share of step time {esc['mask_share']:9.1%}   (target ≤ 20 %; all steps' "
        f"time together)"
    )
    print(
        f"  median per-step share   {esc['mask_share_median']:9.1%}   (the mask's share of a "
        f"typical step)"
    )
    print(f"  observation share       {esc['obs_share']:9.1%}")
    print(f"  opponent act() share    {esc['opponent_share']:9.1%}")


if __name__ == "__main__":
    main()
