"""``--timesteps N``: what PPO trains (whole rollouts), said before training and recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

pytest.importorskip("sb3_contrib")

from escaramuza.cli import main
from escaramuza.training.config import load_config, rounded_timesteps


@pytest.mark.parametrize(
    ("requested", "n_steps", "n_envs", "start", "trained"),
    [
        # By hand: a rollout is n_steps × n_envs timesteps; the total rounds up to them.
        (512, 512, 2, 0, 1024),  # the report: 512 trained 1 024
        (256, 512, 1, 0, 512),  # and 256 trained 512
        (1024, 512, 2, 0, 1024),  # a multiple trains exactly itself
        (1025, 512, 2, 0, 2048),
        (1, 64, 1, 0, 64),
        (768, 128, 2, 512, 768),  # resumed at 512: one more rollout of 256
        (700, 128, 2, 300, 812),  # resumed mid-rollout at 300: 400 left → two rollouts
    ],
)
def test_rounded_timesteps(
    requested: int, n_steps: int, n_envs: int, start: int, trained: int
) -> None:
    assert rounded_timesteps(requested, n_steps, n_envs, start) == trained


def _config(tmp_path: Path, n_steps: int) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "n_envs": 2,
                "eval_freq": 100_000,
                "eval_battles": 4,
                "eval_episodes": 1,
                "checkpoint_freq": 100_000,
                "hyperparameters": {"n_steps": n_steps, "batch_size": 64, "n_epochs": 1},
            }
        ),
        encoding="utf-8",
    )
    return path


def _train(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], timesteps: int, n_steps: int, name: str
) -> tuple[Path, str]:
    run = tmp_path / name
    code = main(
        [
            "train",
            "--env",
            "escaramuza/Cairn-v0",
            "--timesteps",
            str(timesteps),
            "--config",
            str(_config(tmp_path, n_steps)),
            "--no-progress",
            "--out",
            str(run),
        ]
    )
    assert code == 0
    return run, capsys.readouterr().out


@pytest.mark.training
def test_rounding_is_said_before_training_and_both_numbers_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 300 with rollouts of 64 × 2 = 128: three rollouts, 384 timesteps (by hand).
    run, printed = _train(tmp_path, capsys, 300, 64, "rounded")
    # The first lines say how the envs are stepped (test_training_kernel_env.py) and how
    # the policy is evaluated.
    lines = printed.splitlines()[2:]
    assert lines[0].startswith("training 384 timesteps, not the 300 asked for")
    assert "64 x 2 = 128" in lines[0] and "a multiple of 128" in lines[0]
    assert lines[1].startswith("trained maskable-ppo on escaramuza/Cairn-v0 for 384 timesteps")
    assert lines[2].startswith("last evaluation at 384 steps vs heuristic: won ")
    summary = json.loads((run / "summary.json").read_text())
    assert (summary["timesteps_requested"], summary["timesteps"]) == (300, 384)
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert (saved["timesteps"], saved["trained_timesteps"]) == (300, 384)
    # The saved config still loads as a --config (the derived number is not read back).
    assert load_config(run / "config.yaml", {}).timesteps == 300


@pytest.mark.training
def test_a_multiple_of_the_rollout_trains_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, printed = _train(tmp_path, capsys, 256, 64, "exact")
    assert printed.splitlines()[2] == "training 256 timesteps"
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 256
