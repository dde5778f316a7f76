"""The opponent pool (``training/pool.py``): draws by weight, weights by who beats the
learner, and the table a run keeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escaramuza.rules.core.stats import wilson_interval
from escaramuza.training.config import TrainConfig
from escaramuza.training.envs import make_train_env
from escaramuza.training.pool import beats_weights


def test_beats_weights_are_smoothed_win_rates_normalised() -> None:
    # (3+1)/(10+2) = 1/3, (0+1)/(0+2) = 1/2, (9+1)/(10+2) = 5/6; sum 5/3.
    got = beats_weights([3, 0, 9], [10, 0, 10])
    assert got == pytest.approx([1 / 5, 3 / 10, 1 / 2])


def test_the_sampler_draws_each_member_by_its_weight() -> None:
    env = make_train_env(
        "escaramuza/Donjon-v0", ["donjon/duelo"], "enemies", ["heuristic", "random"], True
    )
    env.set_pool_weights([0.8, 0.2])
    env.reset(seed=5)
    n = 600
    first = 0
    for _ in range(n):
        env.reset()
        first += env.current.opponent.name != "random"
    lo, hi = wilson_interval(first, n, z=3.29)
    assert lo <= 0.8 <= hi


def test_a_pool_names_each_member_once_and_never_with_self_play() -> None:
    with pytest.raises(ValueError, match="named twice"):
        TrainConfig(opponent_pool=["random", "random"])
    with pytest.raises(ValueError, match="self-play"):
        TrainConfig(opponent_pool=["random"], selfplay={})


@pytest.mark.training
@pytest.mark.compile
def test_a_run_weights_its_pool_by_who_beats_the_learner(tmp_path: Path) -> None:
    from escaramuza.training.train import train

    config = TrainConfig(
        env="escaramuza/Donjon-v0",
        scenarios=["donjon/duelo"],
        timesteps=512,
        n_envs=2,
        eval_freq=100_000,
        eval_battles=4,
        opponent_pool=["heuristic", "random"],
        hyperparameters={"n_steps": 128, "batch_size": 64, "n_epochs": 1},
    )
    train(config, tmp_path / "run", progress_bar=False)
    doc = json.loads((tmp_path / "run" / "pool.json").read_text())
    members = doc["members"]
    assert [m["opponent"] for m in members] == ["heuristic", "random"]
    assert sum(m["battles"] for m in members) > 0
    wins = [m["opponent_wins"] for m in members]
    battles = [m["battles"] for m in members]
    assert [m["weight"] for m in members] == pytest.approx(beats_weights(wins, battles), abs=1e-6)
    # The untrained learner loses to the heuristic more often than to random.
    assert wins[0] / max(battles[0], 1) >= wins[1] / max(battles[1], 1)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["opponent_pool"] == members
