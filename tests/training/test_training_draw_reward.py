"""``draw_reward`` in training: config key and ``--draw-reward``, passed to every env, saved."""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from escaramuza.cli import main
from escaramuza.rules.core.model import Side
from escaramuza.training import train as train_module
from escaramuza.training.config import TrainConfig, load_config
from escaramuza.training.envs import make_train_env

DONJON = ["--env", "escaramuza/Donjon-v0"]


def test_default_keeps_draws_at_zero() -> None:
    # The shipped policies' commands (policies.md) must still reproduce them.
    assert load_config(None, {}).draw_reward == 0.0


def test_config_key_round_trips_through_the_saved_yaml(tmp_path: Path) -> None:
    source = tmp_path / "run.yaml"
    source.write_text("env: escaramuza/Donjon-v0\ndraw_reward: -0.5\n", encoding="utf-8")
    config = load_config(source, {})
    assert config.draw_reward == -0.5
    saved = tmp_path / "config.yaml"
    saved.write_text(config.to_yaml(), encoding="utf-8")
    assert "draw_reward: -0.5" in saved.read_text(encoding="utf-8")
    assert load_config(saved, {}) == config


def _captured(monkeypatch: pytest.MonkeyPatch) -> list[TrainConfig]:
    seen: list[TrainConfig] = []

    def fake_train(config: TrainConfig, out: Any, **_: Any) -> None:
        seen.append(config)

    monkeypatch.setattr(train_module, "train", fake_train)
    return seen


@pytest.mark.parametrize(
    ("file_value", "flag", "expected"),
    [(None, None, 0.0), ("-0.25", None, -0.25), (None, "-1", -1.0), ("-0.25", "0.5", 0.5)],
)
def test_flag_overrides_the_file_which_overrides_the_default(
    file_value: str | None,
    flag: str | None,
    expected: float,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _captured(monkeypatch)
    argv = ["train", *DONJON, "--out", str(tmp_path / "run")]
    if file_value is not None:
        path = tmp_path / "c.yaml"
        path.write_text(f"draw_reward: {file_value}\n", encoding="utf-8")
        argv += ["--config", str(path)]
    if flag is not None:
        argv += ["--draw-reward", flag]
    assert main(argv) == 0
    assert [c.draw_reward for c in seen] == [expected]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "draw_reward: 1.5\n",
            "draw_reward: draw_reward must be in [-1, 1] (a loss is -1, a win +1), not 1.5",
        ),
        ("draw_reward: -2\n", "draw_reward must be in [-1, 1]"),
        # The config's YAML parser refuses a NaN before any field is read.
        ("draw_reward: .nan\n", "line 1, column 14: number .nan is not finite"),
        ("draw_reward: lots\n", "draw_reward must be a number in [-1, 1], not 'lots'"),
        ("draw_reward: true\n", "draw_reward must be a number in [-1, 1], not True"),
        ("draw_reward: null\n", "draw_reward must be a number in [-1, 1], not None"),
    ],
)
def test_bad_draw_reward_in_the_config_names_file_and_field(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["train", *DONJON, "--config", str(path), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("escaramuza: error: ")
    assert "bad.yaml: " in err and message in err
    assert "Value error" not in err  # our sentence, without pydantic's prefix
    assert not (tmp_path / "r").exists()  # refused before the run folder is made


@pytest.mark.parametrize("value", ["1.01", "-3", "nan"])
def test_bad_draw_reward_flag_names_the_option(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", *DONJON, "--draw-reward", value, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert f"--draw-reward must be in [-1, 1] (a loss is -1, a win +1), not {float(value)}" in err


def test_train_envs_carry_the_price_and_report_wins() -> None:
    env = make_train_env(
        "escaramuza/Donjon-v0", ["donjon/duelo"], "both", "random", shaping=False, draw_reward=-0.75
    )
    assert [e.draw_reward for e in env.envs] == [-0.75, -0.75]
    rng = random.Random(0)
    endings = set()
    for seed in range(10):
        env.reset(seed=seed)
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, reward, terminated, truncated, info = env.step(int(rng.choice(list(legal))))
            done = terminated or truncated
            assert ("is_success" in info) == done
        winner = info["outcome"].winner
        learner = env.current.side
        assert info["is_success"] == (winner is learner)
        assert reward == (-0.75 if winner is None else 1.0 if winner is learner else -1.0)
        endings.add((winner is None, learner is Side.HEROES))
    assert len(endings) >= 2


def test_cli_namespace_default_is_none() -> None:
    """No ``--draw-reward`` leaves the file's value alone (None is not an override)."""
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command")
    from escaramuza.training.cli import add_parsers

    add_parsers(commands)
    args = parser.parse_args(["train", "--out", "x"])
    assert args.draw_reward is None
