"""MaskablePPO smoke runs (DummyVecEnv and SubprocVecEnv) and the docs example."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv  # noqa: E402

import escaramuza.envs  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "environments.md"
README = ROOT / "README.md"


@pytest.fixture(autouse=True)
def _one_torch_thread() -> None:
    torch.set_num_threads(1)


def _smoke(vec_env_cls: type, vec_env_kwargs: dict[str, str], env_id: str) -> None:
    venv = make_vec_env(
        env_id,
        n_envs=2,
        seed=0,
        env_kwargs={"opponent": "random"},
        vec_env_cls=vec_env_cls,
        vec_env_kwargs=vec_env_kwargs,
    )
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0)
        model.learn(total_timesteps=256)
        assert model.num_timesteps >= 256
    finally:
        venv.close()


def test_maskable_ppo_with_dummy_vec_env() -> None:
    _smoke(DummyVecEnv, {}, "escaramuza/DestinyDice-v0")


def test_maskable_ppo_with_subproc_vec_env() -> None:
    # action_masks() reaches the workers through env_method / get_wrapper_attr.
    # fork: the workers inherit the imported modules, so the test stays fast.
    other = "escaramuza/Donjon-v0" if "escaramuza/Donjon-v0" in escaramuza.envs.ENV_IDS else (
        "escaramuza/DestinyDice-v0"
    )
    _smoke(SubprocVecEnv, {"start_method": "fork"}, other)


def _example(path: Path) -> str | None:
    text = path.read_text(encoding="utf-8")
    if path.name == "README.md":
        # Only the README's "RL environments" section, if it carries the example.
        part = re.search(r"^## RL environments\n(.*?)(?=^## |\Z)", text, re.S | re.M)
        text = part.group(1) if part else ""
    match = re.search(r"```python\n(.*?)```", text, re.S)
    return match.group(1) if match else None


@pytest.mark.parametrize("path", [DOCS, README], ids=["docs", "readme"])
def test_the_maskable_ppo_example_runs_as_written(path: Path) -> None:
    code = _example(path) if path.exists() else None
    if code is None:
        if path == DOCS:
            pytest.fail("docs/environments.md has no python example")
        pytest.skip("the README's RL environments section links the docs' example")
    assert len(code.strip().splitlines()) <= 10
    # Same code, tiny budget: fewer steps and one evaluation battle.
    for big, small in (
        ("total_timesteps=5_000", "total_timesteps=64"),
        ("n_steps=256", "n_steps=64"),
        ("n_eval_episodes=10", "n_eval_episodes=1"),
    ):
        assert big in code
        code = code.replace(big, small)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, str(path), "exec"), {"__name__": "docs_example"})
