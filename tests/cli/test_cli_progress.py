"""The long commands' progress bar, run as a user would: on a pseudo-terminal it is drawn
on stderr; with stderr a pipe, or with --no-progress, nothing is printed there; stdout
never carries it (escaramuza/progress.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

# The commands below call the Destiny Dice and Donjon kernels: compiled once beforehand
# (tests/conftest.py), so no command's output or time depends on numba's cache being warm.
pytestmark = [pytest.mark.compile, pytest.mark.usefixtures("compiled_kernels")]

ROOT = Path(__file__).resolve().parents[2]
FAST = "destiny_dice/brann-vs-saqueador"
#: What rich draws the bar with (BarColumn); never in a command's stdout.
BAR = "━"


def run(args: list[str], terminal: bool, timeout: float = 300) -> tuple[str, str]:
    """Run ``python ARGS`` with stdout a pipe and stderr a pseudo-terminal (``terminal``)
    or a pipe; return (stdout, stderr)."""
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "120"}
    env.pop("NO_COLOR", None)
    if not terminal:
        done = subprocess.run(
            [sys.executable, *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=timeout,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout, done.stderr
    leader, follower = os.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:  # EIO: the process closed its end
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        proc = subprocess.Popen(
            [sys.executable, *args], stdout=subprocess.PIPE, stderr=follower, env=env, cwd=ROOT
        )
        os.close(follower)
        stdout, _ = proc.communicate(timeout=timeout)
        reader.join(timeout=10)
    finally:
        os.close(leader)
    assert proc.returncode == 0, b"".join(chunks).decode(errors="replace")
    return stdout.decode(), b"".join(chunks).decode(errors="replace")


PLAYTEST = ["-m", "escaramuza", "playtest", FAST, "-n", "20", "--json"]


def test_playtest_draws_a_bar_on_a_terminal_and_keeps_json_clean() -> None:
    out, err = run(PLAYTEST, terminal=True)
    assert BAR in err and "20/20" in err and "100%" in err
    assert json.loads(out)["scenarios"][0]["battles"] == 20


@pytest.mark.parametrize(
    ("extra", "terminal"), [([], False), (["--no-progress"], True)], ids=["pipe", "no-progress"]
)
def test_playtest_is_quiet_on_a_pipe_or_with_no_progress(extra: list[str], terminal: bool) -> None:
    out, err = run([*PLAYTEST, *extra], terminal=terminal)
    assert err == ""
    assert json.loads(out)["scenarios"][0]["battles"] == 20


def test_evaluate_draws_one_bar_over_every_battle() -> None:
    args = [
        "-m",
        "escaramuza",
        "evaluate",
        "--scenario",
        FAST,
        "--agents",
        "random,heuristic",
        "-n",
        "3",
        "--json",
    ]
    out, err = run(args, terminal=True)
    # first-legal joins as a baseline: 1 scenario × 3 × 3 ordered pairings × 3 battles.
    assert BAR in err and "27/27" in err
    assert json.loads(out)["battles_per_pairing"] == 3
    out, err = run([*args, "--no-progress"], terminal=True)
    assert err == "" and BAR not in out


@pytest.mark.training
def test_train_draws_its_bar_on_stderr_on_a_terminal(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    config = tmp_path / "tiny.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "n_envs": 2,
                "eval_freq": 100_000,
                "eval_battles": 4,
                "eval_episodes": 1,
                "checkpoint_freq": 100_000,
                "hyperparameters": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
            }
        ),
        encoding="utf-8",
    )

    args = [
        "-m",
        "escaramuza",
        "train",
        "--env",
        "escaramuza/Cairn-v0",
        "--timesteps",
        "128",
        "--config",
        str(config),
        "--out",
        str(tmp_path / "run"),
    ]
    out, err = run(args, terminal=True)
    assert BAR in err and "128/128" in err and "timesteps/s" in err
    assert BAR not in out and out.splitlines()[2] == "training 128 timesteps"
    assert out.startswith("envs: ") and out.splitlines()[1].startswith("evaluation: ")


def test_planner_benchmark_draws_a_bar_on_a_terminal() -> None:
    args = [
        "benchmarks/planner.py",
        "--skip-latency",
        "--battles",
        "1",
        "--scenarios",
        "donjon/duelo",
        "--workers",
        "1",
        "--chunk",
        "1",
        "--iterations",
        "4",
    ]
    out, err = run(args, terminal=True)
    assert BAR in err and "2/2" in err  # one battle for each of the two arms
    assert BAR not in out and "mean difference over 1 scenarios" in out
    out, err = run([*args, "--no-progress"], terminal=True)
    assert err == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["playtest", "destiny_dice/emboscada"],
        ["balance", "destiny_dice/emboscada", "--target", "hard"],
        ["campaign", "destiny_dice/jornada"],
        ["train", "--out", "run"],
        ["evaluate", "--scenario", "destiny_dice/emboscada", "--agents", "random,heuristic"],
    ],
    ids=lambda argv: argv[0],
)
def test_every_command_that_plays_many_battles_takes_no_progress(argv: list[str]) -> None:
    from escaramuza.cli import build_parser

    args = build_parser(argv[0]).parse_args([*argv, "--no-progress"])
    assert args.no_progress is True
