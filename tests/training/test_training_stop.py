"""A training run stopped early — by its wall-clock budget, SIGTERM or Ctrl-C — leaves a
playable policy: the model, ``policy.zip`` and a summary saying why it stopped."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from escaramuza.agents import make_agent
from escaramuza.agents.runner import play_battle
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.training.config import TrainConfig
from escaramuza.training.train import train

pytestmark = pytest.mark.training

CONFIG = {
    "env": "escaramuza/Cairn-v0",
    "timesteps": 10_000_000,
    "n_envs": 2,
    "vec_env": "dummy",
    "hyperparameters": {"n_steps": 32, "batch_size": 32},
}


#: The budget test's timesteps: far more than half a second trains.
BOUNDED = 200_000


def _plays(run: Path) -> None:
    """``policy.zip`` loads as a ``policy:`` agent and plays a battle to its end."""
    agent = make_agent(f"policy:{run / 'policy.zip'}", trust_policy=True)
    heuristic = make_agent("heuristic")
    state = play_battle(
        load_scenario("cairn/duelo_bugbear"),
        {Side.HEROES: heuristic, Side.ENEMIES: agent},
        3,
        narrate=False,
    )
    assert state.outcome is not None


def test_the_budget_stops_training_and_saves_a_playable_policy(tmp_path: Path) -> None:
    # Few enough timesteps that a budget that does not stop training fails in minutes
    # (on the count) rather than hanging; no wall-clock bound, which a loaded machine
    # would break.
    log = io.StringIO()
    config = TrainConfig(**{**CONFIG, "timesteps": BOUNDED}, max_seconds=0.5)
    result = train(config, tmp_path / "run", progress_bar=False, log=log)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["stopped_early"] == "--max-seconds 0.5"
    assert 0 < result.timesteps < BOUNDED
    assert "stopped early (--max-seconds 0.5)" in log.getvalue()
    _plays(tmp_path / "run")


@pytest.mark.parametrize(
    ("signum", "name"), [(signal.SIGTERM, "SIGTERM"), (signal.SIGINT, "Ctrl-C")]
)
def test_a_signal_stops_training_and_saves_a_playable_policy(
    tmp_path: Path, signum: int, name: str
) -> None:
    """SIGTERM, or a first Ctrl-C (which exited 130 with nothing saved and nothing said),
    stops at the next step and saves the model and policy as at the end."""
    config = tmp_path / "config.yaml"
    config.write_text(json.dumps(CONFIG), encoding="utf-8")
    run = tmp_path / "run"
    process = subprocess.Popen(
        [sys.executable, "-m", "escaramuza", "train", "--config", str(config), "--out", str(run)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert process.stdout is not None
    try:
        # The timesteps line is written once the handler is in place.
        for line in process.stdout:
            if line.startswith("training "):
                break
        process.send_signal(signum)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert f"stopped early ({name})" in out
    summary = json.loads((run / "summary.json").read_text())
    assert summary["stopped_early"] == name
    _plays(run)
