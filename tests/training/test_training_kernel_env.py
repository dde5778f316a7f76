"""Training on the batched kernel env is training on the Python env.

The same MaskablePPO run (seed, hyper-parameters, timesteps) on stable-baselines3's
``DummyVecEnv`` of the Python env and on :class:`~escaramuza.envs.sb3.KernelVecEnv` must
end with the same weights, bit for bit: every observation, mask, reward, end and final
observation the learner saw was the same. So a policy trained on either plays on the
other. And ``escaramuza train`` says how it steps its envs, and why not the kernel.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import torch

from escaramuza.training.config import TrainConfig
from escaramuza.training.vec import kernel_refusal, vec_choice, vec_line

pytestmark = pytest.mark.compile


def _learn(venv: object, seed: int) -> dict[str, torch.Tensor]:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=64, batch_size=32, n_epochs=2, seed=seed, device="cpu"
    )
    model.learn(256)
    return {k: v.clone() for k, v in model.policy.state_dict().items()}


@pytest.mark.parametrize(
    ("ruleset", "scenario", "side"),
    [
        ("destiny_dice", "destiny_dice/emboscada", "enemies"),
        ("cairn", "cairn/duelo_bugbear", "heroes"),
    ],
)
def test_the_same_run_on_either_env_learns_the_same_weights(
    ruleset: str, scenario: str, side: str
) -> None:
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecMonitor

    from escaramuza.envs.sb3 import KernelVecEnv
    from escaramuza.envs.single import EscaramuzaEnv

    # Reward shaping on, as escaramuza train has it by default.
    kwargs = {"scenario": scenario, "side": side, "illegal_action": "noop", "reward_shaping": True}
    torch.set_num_threads(1)
    python = make_vec_env(lambda: EscaramuzaEnv(ruleset, **kwargs, narrate=False), n_envs=2, seed=9)
    kernel = KernelVecEnv(ruleset, 2, **kwargs)
    kernel.seed(9)
    want = _learn(python, 3)
    got = _learn(VecMonitor(kernel), 3)
    assert want.keys() == got.keys()
    for name in want:
        assert torch.equal(want[name], got[name]), name


@pytest.mark.parametrize(
    ("algo", "scenarios", "side", "pool"),
    [
        ("maskable-ppo", ["destiny_dice/kaspar-tiroteo"], "enemies", []),
        ("maskable-ppo", ["sistema_2d10/duelo"], "heroes", []),
        # Several scenarios and both sides, one sampled per battle.
        ("maskable-ppo", ["cairn/duelo_bugbear", "cairn/emboscada_goblin"], "both", []),
        # Unmasked: illegal no-ops, and episodes cut after a streak of them.
        ("ppo", ["donjon/duelo"], "enemies", []),
        # An opponent pool, with weights that are not uniform.
        ("maskable-ppo", ["donjon/duelo"], "both", ["heuristic:brute", "random", "heuristic"]),
    ],
)
def test_trains_two_vec_envs_step_the_same_battles(
    algo: str, scenarios: list[str], side: str, pool: list[str], tmp_path: Path
) -> None:
    """``escaramuza train``'s own envs (``_vec_env``), ``dummy`` and ``kernel``: the same
    model trained on each ends with the same weights."""
    from escaramuza.rules.core.scenario import load_scenario
    from escaramuza.training.train import _model
    from escaramuza.training.vec import _vec_env

    env_id = load_scenario(scenarios[0]).ruleset.env_id
    config = TrainConfig(
        env=env_id,
        scenarios=scenarios,
        side=side,
        algo=algo,
        seed=4,
        opponent_pool=pool,
        hyperparameters={"n_steps": 128, "batch_size": 64, "n_epochs": 2},
    )
    torch.set_num_threads(1)
    weights = []
    for chosen in ("dummy", "kernel"):
        venv = _vec_env(config, "heuristic", 2, config.seed, chosen)
        if pool:
            venv.env_method("set_pool_weights", [0.6, 0.1, 0.3])
        model = _model(config, venv, None, tmp_path / chosen)
        model.learn(512)
        weights.append({k: v.clone() for k, v in model.policy.state_dict().items()})
    for name in weights[0]:
        assert torch.equal(weights[0][name], weights[1][name]), name


def test_train_steps_the_kernel_where_it_takes_the_run_and_says_why_not() -> None:
    base = TrainConfig(env="escaramuza/DestinyDice-v0")
    assert kernel_refusal(base, "heuristic") is None
    assert vec_choice(base, "heuristic", 2) == ("kernel", None)
    chosen, why = vec_choice(base, "mcts:20it", 2)
    assert chosen == "dummy" and why is not None and "mcts:20it" in why
    assert "mcts:20it" in vec_line(chosen, why)
    assert vec_choice(base, None, 2)[1] == "self-play"
    both = base.model_copy(
        update={
            "side": "both",
            "scenarios": ["destiny_dice/emboscada", "destiny_dice/kaspar-tiroteo"],
        }
    )
    assert vec_choice(both, "heuristic", 2) == ("kernel", None)
    forced = base.model_copy(update={"vec_env": "kernel"})
    with pytest.raises(Exception, match="--vec kernel: the batched kernel env does not take"):
        vec_choice(forced, "mcts:20it", 2)
    assert (
        vec_choice(base.model_copy(update={"vec_env": "subproc"}), "heuristic", 2)[0] == "subproc"
    )


def test_a_kernel_run_prints_and_saves_its_choice(tmp_path: Path) -> None:
    from escaramuza.training.train import train

    config = TrainConfig(
        env="escaramuza/DestinyDice-v0",
        timesteps=64,
        n_envs=2,
        eval_freq=10_000,
        hyperparameters={"n_steps": 32, "batch_size": 32},
    )
    log = io.StringIO()
    train(config, tmp_path / "run", progress_bar=False, log=log)
    assert log.getvalue().splitlines()[0] == "envs: the batched kernel env (escaramuza.envs.sb3)"
    assert "vec_env: kernel" in (tmp_path / "run" / "config.yaml").read_text()
