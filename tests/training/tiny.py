"""The tiny training run the training tests share: a config file of a few hundred steps."""

from __future__ import annotations

from pathlib import Path

#: A tiny run: two rollouts of 2 × 128 steps, one small evaluation, checkpoints every 256.
TINY = {
    "timesteps": 512,
    "n_envs": 2,
    "eval_freq": 256,
    "eval_battles": 8,
    "eval_episodes": 1,
    "checkpoint_freq": 256,
    "hyperparameters": {"n_steps": 128, "batch_size": 64, "n_epochs": 1},
}


def tiny_config(tmp_path: Path, name: str = "tiny.yaml", **extra: object) -> Path:
    """:data:`TINY` with ``extra`` on top, written as ``tmp_path / name``."""
    import yaml

    path = tmp_path / name
    path.write_text(yaml.safe_dump({**TINY, **extra}), encoding="utf-8")
    return path
