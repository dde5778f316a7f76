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

import escaramuza.envs  # noqa: E402

pytestmark = pytest.mark.training

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
    other = (
        "escaramuza/Donjon-v0"
        if "escaramuza/Donjon-v0" in escaramuza.envs.ENV_IDS
        else ("escaramuza/DestinyDice-v0")
    )
    _smoke(SubprocVecEnv, {"start_method": "fork"}, other)


def _example(path: Path) -> str | None:
    match = re.search(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    return match.group(1) if match else None


def test_the_readme_points_researchers_to_the_example() -> None:
    """The example lives once, in docs/environments.md; the README links to it."""
    assert "](docs/environments.md)" in README.read_text(encoding="utf-8")
    assert _example(DOCS) is not None


#: A line the example prints: "  random agent: mean return -0.84 ± 0.54 over 100 battles".
_PRINTED = re.compile(
    r"^ *(random|trained) agent: mean return ([+-]\d+\.\d\d) ± (\d+\.\d\d) over (\d+) battles$",
    re.M,
)


def test_the_docs_example_as_written_beats_the_random_agent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/environments.md's example, run exactly as written (about a minute): the agent
    it trains beats a uniformly random one measured the same way (evaluate_policy, same
    battles), with no Monitor warning; the page shows output of that form."""
    code = _example(DOCS)
    assert code is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(code, str(DOCS), "exec"), {"__name__": "docs_example"})
    printed = _PRINTED.findall(capsys.readouterr().out)
    means = {name: float(mean) for name, mean, _, _ in printed}
    assert set(means) == {"random", "trained"}
    assert {int(n) for *_, n in printed} == {100}
    assert means["trained"] > means["random"]
    assert not [w for w in caught if "Monitor" in str(w.message)]
    shown = re.search(r"```text\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert shown is not None, "docs/environments.md shows no output of the example"
    assert [m[0] for m in _PRINTED.findall(shown.group(1))] == ["random", "trained"]
