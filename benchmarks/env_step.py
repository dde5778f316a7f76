"""Env throughput: the learner's steps per second over whole episodes, as ratios to
CartPole-v1 measured in the same run.

A random masked learner (a uniform draw among the legal slots) against the heuristic
opponent, on the Python env (``gymnasium.make``), on stable-baselines3's
``SubprocVecEnv`` of it (``--subproc``), and on the batched kernel env
(``escaramuza.envs.vector``) at several widths. Each env keeps stepping its episodes
across short slices (``--slice`` seconds), each slice paired with a slice of
CartPole-v1 (``gymnasium.make``, random actions) just before it; a row prints the
median of its slices' steps/s and of their ratios, with the lowest and highest ratio —
a shared machine's speed changes from one second to the next, a pair of neighbouring
slices far less. Before its slices each env steps one untimed second: the kernel
compiles or loads, and Donjon's kernel fills its odds tables, which a process does once.
``--train`` adds MaskablePPO's training fps on the batched env (with the standard limits
and with the limits fitted to the scenario, ``train --limits fit``) against PPO's on
CartPole with the same hyper-parameters, and PPO's on a CartPole whose observation is
padded with zeros to the standard env's width: what the wider first layer costs alone.
Prints figures; never a timed test.

Targets: the batched env with 256 battles at ≥ 5× CartPole's single-env steps/s on
every ruleset, ≥ 100,000 learner steps/s on destiny_dice/emboscada on two idle cores;
MaskablePPO on the batched env ≥ 1.0× PPO on CartPole's fps.

    python benchmarks/env_step.py [--scenario destiny_dice/emboscada ...] [--widths 1 16 256 1024]
        [--slices 12] [--slice 0.25] [--threads N] [--subproc] [--train] [--startup]
    python benchmarks/env_step.py --paired-rounds 3 [--timesteps 10240]  # like for like,
        # and on a replay of the env that costs nothing (what MaskablePPO's arithmetic leaves)
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import escaramuza.envs  # noqa: F401  (registers the ids)
from escaramuza.envs.vector import KernelVectorEnv
from escaramuza.rules.core.scenario import load_scenario

DEFAULT_SCENARIOS = [
    "destiny_dice/emboscada",
    "donjon/duelo",
    "cairn/emboscada_goblin",
    "sistema_2d10/duelo",
]


#: A stepper: steps its env for about ``seconds`` from where it stopped; the learner's
#: steps per second over that slice.
Stepper = Callable[[float], float]


def timed(step: Callable[[], int], seconds: float) -> float:
    """``step`` (one call: how many learner steps it took) repeated for ``seconds``."""
    steps = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        steps += step()
    return steps / elapsed


def cartpole(seed: int) -> Stepper:
    """CartPole-v1 with random actions (resets counted as in any episode loop)."""
    env = gym.make("CartPole-v1")
    env.reset(seed=seed)
    env.action_space.seed(seed)

    def step() -> int:
        for _ in range(100):
            _, _, term, trunc, _ = env.step(env.action_space.sample())
            if term or trunc:
                env.reset()
        return 100

    return lambda seconds: timed(step, seconds)


def python_env(scenario: str, seed: int) -> Stepper:
    """The Python env."""
    env_id = load_scenario(scenario).ruleset.env_id
    env = gym.make(env_id, scenario=scenario, opponent="heuristic", narrate=False)
    raw: Any = env.unwrapped
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def step() -> int:
        for _ in range(10):
            legal = np.flatnonzero(raw.action_masks())
            _, _, term, trunc, _ = env.step(int(legal[rng.integers(len(legal))]))
            if term or trunc:
                env.reset()
        return 10

    return lambda seconds: timed(step, seconds)


def random_masked(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniform legal slot per lane (the largest of uniform draws over the legal ones)."""
    return np.asarray((rng.random(masks.shape, dtype=np.float32) * masks).argmax(axis=1))


def random_listed(rng: np.random.Generator, venv: KernelVectorEnv) -> np.ndarray:
    """One uniform legal slot per lane, from the batched env's lists of legal slots
    (``legal_slots``: no pass over the whole mask); slot 0 for a lane that is over."""
    slots, counts = venv.legal_slots()
    picks = (rng.random(len(counts)) * counts).astype(np.int64)
    return np.asarray(slots[np.arange(len(counts)), picks])


def batched(scenario: str, width: int, seed: int, threads: int | None = None) -> Stepper:
    """The batched env at ``width`` lanes (``threads``: its default if None); the
    autoreset steps, which take no learner action, are not counted."""
    ruleset = load_scenario(scenario).ruleset.id
    venv = KernelVectorEnv(
        ruleset, width, scenario=scenario, illegal_action="noop", threads=threads
    )
    rng = np.random.default_rng(seed)
    venv.reset(seed=seed)
    resetting = np.zeros(width, dtype=np.bool_)

    def step() -> int:
        nonlocal resetting
        steps = 0
        for _ in range(5):
            _, _, term, trunc, _ = venv.step(random_listed(rng, venv))
            steps += int(width - resetting.sum())
            resetting = term | trunc
        return steps

    return lambda seconds: timed(step, seconds)


def subproc(scenario: str, workers: int, seed: int) -> Stepper:
    """stable-baselines3's ``SubprocVecEnv`` of ``workers`` Python envs."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    env_id = load_scenario(scenario).ruleset.env_id

    def make() -> Any:
        return gym.make(env_id, scenario=scenario, opponent="heuristic", narrate=False)

    venv = SubprocVecEnv([make] * workers, start_method="forkserver")
    venv.seed(seed)
    venv.reset()
    rng = np.random.default_rng(seed)

    def step() -> int:
        masks = np.stack(venv.env_method("action_masks"))
        venv.step(random_masked(rng, masks))
        return workers

    def stepper(seconds: float) -> float:
        return timed(step, seconds)

    stepper.close = venv.close  # type: ignore[attr-defined]  # main closes its workers
    return stepper


class PaddedCartPole(gym.ObservationWrapper[np.ndarray, int, np.ndarray]):
    """CartPole-v1 with its four numbers followed by zeros up to ``width``: PPO's cost of
    an observation as wide as an escaramuza env's, the env's own speed aside."""

    def __init__(self, env: gym.Env[np.ndarray, int], width: int) -> None:
        super().__init__(env)
        self.width = width
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (width,), np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        out = np.zeros(self.width, dtype=np.float32)
        out[: len(observation)] = observation
        return out


def replayed(venv: Any, steps: int, seed: int) -> Any:
    """stable-baselines3's ``VecEnv`` that plays back ``steps`` steps of ``venv`` (a
    ``KernelVecEnv``) taken by a random legal learner, then again from its first: the
    same spaces, observations, masks, rewards and episode ends, with no env cost — what
    MaskablePPO's own arithmetic at these spaces leaves for any env to spend."""
    from escaramuza.envs.sb3 import LanesOfOneEnv

    rng = np.random.default_rng(seed)
    venv.seed(seed)
    first = venv.reset()
    tape: list[tuple[Any, ...]] = []
    for _ in range(steps):
        masks = venv.action_masks().copy()
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        venv.step_async(actions)
        tape.append((masks, *venv.step_wait()))

    class Replay(LanesOfOneEnv):
        def __init__(self) -> None:
            super().__init__(venv.num_envs, venv.observation_space, venv.action_space)
            self.at = 0

        def reset(self) -> np.ndarray:
            self.at = 0
            return np.array(first)

        def step_async(self, actions: np.ndarray) -> None:
            pass

        def step_wait(self) -> Any:
            _, obs, rewards, dones, infos = tape[self.at]
            self.at = (self.at + 1) % len(tape)
            return np.array(obs), np.array(rewards), np.array(dones), [dict(i) for i in infos]

        def action_masks(self) -> np.ndarray:
            return tape[self.at][0]

        def close(self) -> None:
            pass

        def _batched(self) -> list[Any]:
            return [self]

    return Replay()


def training_fps(scenario: str, timesteps: int, n_envs: int, seed: int) -> dict[str, Any]:
    """Training fps with the same hyper-parameters (SB3's defaults but ``n_steps``), one
    torch thread each: MaskablePPO (the policy and optimizer ``escaramuza train`` gives
    it) on the batched env with the standard limits and with the limits fitted to
    ``scenario`` (``train --limits fit``), and fitted with the shipped policies'
    arithmetic (per-tensor Adam, sb3-contrib's masked distribution); stock PPO on
    CartPole-v1 before and after them (their mean is the reference), on CartPole padded
    to the standard env's width, and with fused Adam (the like-for-like optimizer)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecMonitor

    from escaramuza.envs.common import STANDARD_LIMITS, needed_limits
    from escaramuza.envs.sb3 import KernelVecEnv
    from escaramuza.training.config import Hyperparameters
    from escaramuza.training.train import policy_for, policy_kwargs

    torch.set_num_threads(1)

    loaded = load_scenario(scenario)
    hp = {"n_steps": 128, "batch_size": 64, "seed": seed, "verbose": 0, "device": "cpu"}
    layers = Hyperparameters().net_arch  # SB3's MlpPolicy default too: [64, 64]

    def cartpole(width: int | None = None, fused: bool = False) -> float:
        kwargs = {} if width is None else {"width": width}
        cart = make_vec_env(
            "CartPole-v1",
            n_envs=n_envs,
            seed=seed,
            wrapper_class=None if width is None else PaddedCartPole,
            wrapper_kwargs=kwargs,
        )
        extra = {"policy_kwargs": policy_kwargs(layers, True)} if fused else {}
        return _fps(PPO("MlpPolicy", cart, **hp, **extra), timesteps)

    def masked(limits: Any, fused: bool = True) -> tuple[float, int, int]:
        # fused: train's defaults (fused Adam, the distribution normalised once); else the
        # shipped policies' arithmetic (per-tensor Adam, sb3-contrib's distribution).
        kernel = VecMonitor(
            KernelVecEnv(
                loaded.ruleset.id,
                n_envs,
                scenario=scenario,
                illegal_action="noop",
                **limits._asdict(),
            )
        )
        model = MaskablePPO(
            policy_for("maskable-ppo"),
            kernel,
            policy_kwargs=policy_kwargs(layers, fused, fused_softmax=fused),
            **hp,
        )
        space = kernel.action_space
        return _fps(model, timesteps), int(kernel.observation_space.shape[0]), int(space.n)

    fitting = needed_limits(loaded)
    before = cartpole()
    standard = masked(STANDARD_LIMITS)
    fitted = masked(fitting)
    plain = masked(fitting, fused=False)
    after = cartpole()
    return {
        "cartpole": (before + after) / 2,
        "standard": standard,
        "fitted": fitted,
        "fitted, as shipped": plain,
        "padded": cartpole(standard[1]),
        "fused": cartpole(fused=True),
    }


def _fps(model: Any, timesteps: int) -> float:
    start = time.perf_counter()
    model.learn(timesteps)
    return timesteps / (time.perf_counter() - start)


def paired_training(
    scenario: str, timesteps: int, rounds: int, seed: int
) -> dict[str, list[float]]:
    """Like for like, in rounds: PPO on CartPole, then MaskablePPO on the batched env with
    the limits fitted to ``scenario`` — ``escaramuza train``'s arithmetic (fused Adam, the
    distribution normalised once), the same with sb3-contrib's distribution, and train's
    on a replay of the batched env (:func:`replayed`: no env cost) — every model with
    fused Adam and the same hyper-parameters; fps in CPU time (one torch
    thread, so a busy machine's other processes count less), each after an untimed
    rollout. Each list holds one ratio to that round's CartPole per round."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecMonitor

    from escaramuza.envs.common import needed_limits
    from escaramuza.envs.sb3 import KernelVecEnv
    from escaramuza.training.config import Hyperparameters
    from escaramuza.training.train import policy_for, policy_kwargs

    torch.set_num_threads(1)
    loaded = load_scenario(scenario)
    limits = needed_limits(loaded)._asdict()
    hp = {"n_steps": 128, "batch_size": 64, "seed": seed, "verbose": 0, "device": "cpu"}
    layers = Hyperparameters().net_arch

    def cpu_fps(model: Any) -> float:
        model.learn(1024)
        start = time.process_time()
        model.learn(timesteps)
        return timesteps / (time.process_time() - start)

    def kernel() -> Any:
        return KernelVecEnv(
            loaded.ruleset.id, 8, scenario=scenario, illegal_action="noop", **limits
        )

    def masked(fused_softmax: bool, env: Any = None) -> float:
        kwargs = policy_kwargs(layers, True, fused_softmax)
        env = VecMonitor(env if env is not None else kernel())
        return cpu_fps(MaskablePPO(policy_for("maskable-ppo"), env, policy_kwargs=kwargs, **hp))

    out: dict[str, list[float]] = {"train": [], "upstream softmax": [], "replayed env": []}
    for _ in range(rounds):
        cart = make_vec_env("CartPole-v1", n_envs=8, seed=seed)
        reference = cpu_fps(PPO("MlpPolicy", cart, policy_kwargs=policy_kwargs(layers, True), **hp))
        out["train"].append(masked(True) / reference)
        out["upstream softmax"].append(masked(False) / reference)
        out["replayed env"].append(masked(True, replayed(kernel(), 512, seed)) / reference)
    return out


START = """
import time
t = time.perf_counter()
from escaramuza.envs.vector import KernelVectorEnv
env = KernelVectorEnv({ruleset!r}, 256, scenario={scenario!r})
env.reset(seed=0)
print(time.perf_counter() - t)
"""

#: Cached batched starts and Python env starts timed by ``--startup`` (medians).
STARTS = 3
#: The Python env's start in a fresh process, what a cached batched start is compared with.
PYTHON_START = """
import time
t = time.perf_counter()
import gymnasium as gym
import escaramuza.envs
env = gym.make({env_id!r}, scenario={scenario!r})
env.reset(seed=0)
print(time.perf_counter() - t)
"""


def startup(scenario: str, repeats: int = STARTS) -> tuple[float, float, float]:
    """(seconds to a first batched reset in a fresh process with an empty numba cache —
    the kernel's loops and the batched step compiled —, the median of ``repeats`` such
    starts with that cache, the median of ``repeats`` first resets of the Python env in
    a fresh process: imports, scenario and reset included; the two alternate, so that a
    busy moment of the machine does not fall on one side only).
    The processes keep Python's bytecode cache as a user's Python does (without
    ``PYTHONDONTWRITEBYTECODE``, which would have every start compile the kernels' and
    the stepping's Python sources again: their modules are the cached start's, not the
    Python env's)."""
    import subprocess
    import sys
    import tempfile

    loaded = load_scenario(scenario)
    batched = START.format(ruleset=loaded.ruleset.id, scenario=scenario)
    python = PYTHON_START.format(env_id=loaded.ruleset.env_id, scenario=scenario)
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        env.pop("PYTHONDONTWRITEBYTECODE", None)

        def seconds(code: str) -> float:
            done = subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
            )
            return float(done.stdout.strip().splitlines()[-1])

        cold = seconds(batched)
        cached, plain = [], []
        for _ in range(repeats):
            cached.append(seconds(batched))
            plain.append(seconds(python))
    return cold, statistics.median(cached), statistics.median(plain)


def paired(
    steppers: list[tuple[str, Stepper]], reference: Stepper, slices: int, seconds: float
) -> dict[str, list[tuple[float, float]]]:
    """Every stepper's (steps/s, CartPole's steps/s in the slice just before), over
    ``slices`` slices of ``seconds`` each, the steppers taking turns; each stepper
    first steps one untimed second."""
    for _, stepper in steppers:
        stepper(1.0)
    out: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in steppers}
    for _ in range(slices):
        for name, stepper in steppers:
            ref = reference(seconds)
            out[name].append((stepper(seconds), ref))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scenario", nargs="*", default=DEFAULT_SCENARIOS)
    parser.add_argument("--widths", nargs="*", type=int, default=[1, 16, 256, 1024])
    parser.add_argument("--slices", type=int, default=12, help="slices per env")
    parser.add_argument("--slice", type=float, default=0.25, help="seconds per slice")
    parser.add_argument(
        "--threads", type=int, default=None, help="the batched env's threads (default: its own)"
    )
    parser.add_argument("--subproc", action="store_true", help="also SubprocVecEnv (2 workers)")
    parser.add_argument("--train", action="store_true", help="also MaskablePPO vs PPO fps")
    parser.add_argument(
        "--paired-rounds",
        type=int,
        default=0,
        help="only MaskablePPO ÷ PPO on CartPole like for like, in N paired rounds",
    )
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--startup", action="store_true", help="only the first compile and a cached start"
    )
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.2f} on {os.cpu_count()} cores; ratios to CartPole-v1 steps/s")
    if args.paired_rounds > 0:
        for scenario in args.scenario:
            rounds = paired_training(scenario, args.timesteps, args.paired_rounds, args.seed)
            for arm, ratios in rounds.items():
                print(
                    f"{scenario:28} MaskablePPO ({arm}) ÷ PPO on CartPole, both fused Adam, "
                    f"CPU time: {statistics.median(ratios):.2f}× [{min(ratios):.2f}, "
                    f"{max(ratios):.2f}] over {len(ratios)} paired rounds"
                )
        return
    if args.startup:
        for scenario in args.scenario:
            cold, cached, python = startup(scenario)
            print(
                f"{scenario:28} first batched reset: {cold:.1f} s with an empty numba cache "
                f"(the kernel and its step compiled), {cached:.1f} s cached; the Python "
                f"env's {python:.1f} s (medians of {STARTS}): a cached start adds "
                f"{cached - python:+.1f} s"
            )
        return
    print(
        f"{args.slices} slices of {args.slice:g} s each, each after a CartPole slice: the "
        "median steps/s, the median ratio [lowest, highest]"
    )
    print(f"{'scenario':28} {'env':16} {'steps/s':>10} {'÷ CartPole':>11}")
    reference = cartpole(args.seed)
    for scenario in args.scenario:
        steppers: list[tuple[str, Stepper]] = [("python env", python_env(scenario, args.seed))]
        if args.subproc:
            steppers.append(("subproc x2", subproc(scenario, 2, args.seed)))
        for width in args.widths:
            steppers.append(
                (f"batched x{width}", batched(scenario, width, args.seed, args.threads))
            )
        results = paired(steppers, reference, args.slices, args.slice)
        for _, stepper in steppers:
            getattr(stepper, "close", lambda: None)()
        for name, pairs in results.items():
            rates = [rate for rate, _ in pairs]
            ratios = [rate / ref for rate, ref in pairs]
            print(
                f"{scenario:28} {name:16} {statistics.median(rates):>10,.0f} "
                f"{statistics.median(ratios):>5.2f} [{min(ratios):.2f}, {max(ratios):.2f}]"
            )
    if args.train:
        for scenario in args.scenario:
            fps = training_fps(scenario, args.timesteps, 8, args.seed)
            cart = fps["cartpole"]
            print(f"{scenario:28} PPO on CartPole {cart:,.0f} fps (mean of a run before and after)")
            for key, limits in (
                ("standard", "standard limits"),
                ("fitted", "fitted limits"),
                ("fitted, as shipped", "fitted limits, per-tensor Adam, upstream softmax"),
            ):
                rate, width, actions = fps[key]
                print(
                    f"{scenario:28} MaskablePPO, {limits} ({width} observation numbers, "
                    f"{actions} actions): {rate:,.0f} fps, {rate / cart:.2f}× CartPole"
                )
            print(
                f"{scenario:28} PPO on CartPole padded to {fps['standard'][1]} numbers: "
                f"{fps['padded']:,.0f} fps, {fps['padded'] / cart:.2f}× (the width's share)"
            )
            print(
                f"{scenario:28} PPO on CartPole with fused Adam: {fps['fused']:,.0f} fps, "
                f"{fps['fused'] / cart:.2f}× (the optimizer's share: fitted MaskablePPO is "
                f"{fps['fitted'][0] / fps['fused']:.2f}× it)"
            )


if __name__ == "__main__":
    main()
