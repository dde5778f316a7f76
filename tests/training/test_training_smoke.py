"""Smoke training runs: save, reload, play through ``policy:PATH``; same seed ⇒ same loss."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from escaramuza.agents import make_agent
from escaramuza.agents.policy import META_NAME, PolicyAgent, read_meta
from escaramuza.agents.runner import play_battle
from escaramuza.cli import main
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.training.config import load_config
from escaramuza.training.train import train
from tests.training.tiny import TINY, tiny_config

pytestmark = pytest.mark.training


def test_smoke_run_saves_reloads_and_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "run"
    config = tiny_config(tmp_path)
    code = main(
        [
            "train",
            "--env",
            "escaramuza/DestinyDice-v0",
            "--scenario",
            "destiny_dice/emboscada",
            "--scenario",
            "destiny_dice/kaspar-tiroteo",
            "--seed",
            "3",
            "--config",
            str(config),
            "--no-progress",
            "--out",
            str(run),
        ]
    )
    assert code == 0
    for name in (
        "config.yaml",
        "final.zip",
        "policy.zip",
        "summary.json",
        "checkpoints/ckpt_256_steps.zip",
        "checkpoints/ckpt_512_steps.zip",
        "best/best_model.zip",
        "best/policy.zip",
        "best/best.json",
        "eval/paired.jsonl",
        "logs/progress.csv",
    ):
        assert (run / name).is_file(), name
    saved = load_config(run / "config.yaml", {})
    assert saved.seed == 3
    assert saved.scenarios == ["destiny_dice/emboscada", "destiny_dice/kaspar-tiroteo"]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["timesteps"] == 512
    # The paired evaluation: 8 battles of each scenario at 256 and 512 timesteps, the
    # best the one with the highest paired difference.
    lines = [json.loads(x) for x in (run / "eval/paired.jsonl").read_text().splitlines()]
    assert [e["timesteps"] for e in lines] == [256, 512]
    assert all(e["battles"] == 16 for e in lines)
    assert summary["last_eval"] == lines[-1]
    kept = [e for e in lines if not e["collapsed"]]
    if kept:
        assert summary["best_eval"]["difference"] == max(e["difference"] for e in kept)
        assert json.loads((run / "best/best.json").read_text()) == summary["best_eval"]
    # Every zip the run writes carries the metadata policy:PATH needs.
    for name in ("final.zip", "policy.zip", "checkpoints/ckpt_256_steps.zip"):
        meta = read_meta(run / name)
        assert meta is not None and meta.ruleset == "destiny_dice" and meta.side == "enemies"
    assert (run / "policy.zip").stat().st_size < 1_000_000
    assert (run / "policy.zip").stat().st_size < (run / "final.zip").stat().st_size

    agent = make_agent(f"policy:{run / 'policy.zip'}")
    assert isinstance(agent, PolicyAgent)
    for scenario_name in saved.scenarios:
        scenario = load_scenario(scenario_name)
        state = play_battle(
            scenario,
            {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: agent},
            seed=5,
            validate=True,
        )
        assert state.outcome is not None
    # Probabilities for suggest: one per legal action, summing to one.
    state = play_battle(
        load_scenario("destiny_dice/emboscada"),
        {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: agent},
        seed=5,
        stop_after=3,
    )
    probs = agent.action_probabilities(state)
    assert [a for a, _ in probs] == state.ruleset.legal_actions(state)
    assert sum(p for _, p in probs) == pytest.approx(1.0)
    # The CLI's play accepts it too.
    assert (
        main(
            [
                "play",
                "destiny_dice/emboscada",
                "--enemies",
                f"policy:{run / 'policy.zip'}",
                "--seed",
                "2",
            ]
        )
        == 0
    )

    # A checkpoint whose episode statistics hold a pickled os.system call: --resume
    # refuses it without running it, before any training.
    marker = tmp_path / "marker"
    evil = run / "checkpoints" / "evil.zip"
    with zipfile.ZipFile(run / "checkpoints/ckpt_512_steps.zip") as archive:
        entries = {i.filename: archive.read(i) for i in archive.infolist()}
    doc = json.loads(entries["data"])
    doc["ep_info_buffer"][":serialized:"] = base64.b64encode(pickle.dumps(_Touch(marker))).decode()
    entries["data"] = json.dumps(doc).encode()
    with zipfile.ZipFile(evil, "w") as archive:
        for entry, data in entries.items():
            archive.writestr(entry, data)
    assert (
        main(
            [
                "train",
                "--resume",
                str(evil),
                "--timesteps",
                "768",
                "--no-progress",
                "--out",
                str(run),
            ]
        )
        == 2
    )
    assert not marker.exists()

    # Resume from a checkpoint up to 768 timesteps in total, unpickling nothing.
    import cloudpickle

    def forbidden(*_args: object, **_kwargs: object) -> object:
        raise AssertionError("--resume unpickled the checkpoint")

    monkeypatch.setattr(cloudpickle, "loads", forbidden)
    assert (
        main(
            [
                "train",
                "--resume",
                str(run / "checkpoints/ckpt_512_steps.zip"),
                "--timesteps",
                "768",
                "--no-progress",
                "--out",
                str(run),
            ]
        )
        == 0
    )
    assert json.loads((run / "summary.json").read_text())["timesteps"] >= 768
    # The clip range, a pickled schedule in the checkpoint, survives the resume.
    from sb3_contrib import MaskablePPO

    monkeypatch.undo()
    resumed = MaskablePPO.load(run / "final.zip", device="cpu")
    assert resumed.clip_range(1.0) == saved.hyperparameters.clip_range


class _Touch:
    """Unpickling this runs ``touch MARKER``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        import os

        return (os.system, (f"touch '{self.marker}'",))


def test_same_seed_same_first_update_loss(tmp_path: Path) -> None:
    losses = []
    small = {"n_steps": 64, "batch_size": 64, "n_epochs": 1}
    for i, seed in enumerate((7, 7, 8)):
        config = load_config(
            None,
            {
                **TINY,
                "env": "escaramuza/Donjon-v0",
                "seed": seed,
                "timesteps": 128,
                "eval_freq": 10_000,
                "hyperparameters": small,
            },
        )
        result = train(config, tmp_path / f"run{i}", progress_bar=False)
        losses.append(result.first_update_loss)
    assert losses[0] is not None
    assert losses[0] == losses[1]
    assert losses[0] != losses[2]


def test_selfplay_pool_grows_and_ppo_runs(tmp_path: Path) -> None:
    config = tiny_config(
        tmp_path, selfplay={"snapshot_freq": 128, "pool_size": 2}, draw_reward=-0.5
    )
    run = tmp_path / "self"
    assert (
        main(
            [
                "train",
                "--env",
                "escaramuza/Donjon-v0",
                "--selfplay",
                "--timesteps",
                "512",
                "--config",
                str(config),
                "--no-progress",
                "--out",
                str(run),
            ]
        )
        == 0
    )
    snapshots = sorted((run / "pool").glob("snapshot_*.zip"))
    assert len(snapshots) >= 3  # step 0 and then every 128 steps
    saved = load_config(run / "config.yaml", {})
    assert saved.side == "both" and saved.draw_reward == -0.5
    ppo = tmp_path / "ppo"
    plain = tiny_config(tmp_path, "plain.yaml")
    assert (
        main(
            [
                "train",
                "--env",
                "escaramuza/Donjon-v0",
                "--algo",
                "ppo",
                "--timesteps",
                "256",
                "--config",
                str(plain),
                "--no-progress",
                "--out",
                str(ppo),
            ]
        )
        == 0
    )
    meta = read_meta(ppo / "policy.zip")
    assert meta is not None and meta.algo == "ppo"
    state = play_battle(
        load_scenario("donjon/duelo"),
        {
            Side.HEROES: make_agent(f"policy:{ppo / 'policy.zip'}"),
            Side.ENEMIES: make_agent(f"policy:{ppo / 'policy.zip'}:sample"),
        },
        seed=1,
        validate=True,
    )
    assert state.outcome is not None


def test_bare_sb3_zip_is_recognised(tmp_path: Path) -> None:
    """A zip saved by plain SB3 (no escaramuza.json): ruleset from the action count."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    env = gym.make("escaramuza/Cairn-v0")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=32, seed=0, policy_kwargs={"net_arch": [8]}
    )
    path = tmp_path / "bare.zip"
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        assert META_NAME not in archive.namelist()
    agent = make_agent(f"policy:{path}")
    assert isinstance(agent, PolicyAgent) and agent.meta.ruleset == "cairn"
    state = play_battle(
        load_scenario("cairn/duelo_bugbear"),
        {Side.HEROES: agent, Side.ENEMIES: make_agent("random")},
        seed=2,
    )
    assert state.outcome is not None


def test_an_opponent_the_kernel_does_not_play_is_evaluated_on_the_python_env(
    tmp_path: Path,
) -> None:
    """The paired evaluation needs the kernel; a policy opponent falls back to
    MaskableEvalCallback's battles on the Python env, and the log says why."""
    import io

    config = load_config(
        None,
        {
            **TINY,
            "timesteps": 256,
            "opponent": "policy:destiny_dice/emboscada",
            "side": "heroes",
            "scenarios": ["destiny_dice/emboscada"],
        },
    )
    log = io.StringIO()
    run = tmp_path / "run"
    train(config, run, progress_bar=False, log=log)
    lines = log.getvalue().splitlines()
    assert lines[1].startswith("evaluation: every 256 timesteps, 1 battles against policy:")
    assert "on the Python env (" in lines[1] and "first-legal and heuristic" in lines[1]
    assert (run / "eval/evaluations.npz").is_file()
    assert not (run / "eval/paired.jsonl").exists()


def test_fused_adam_is_the_same_update_rule() -> None:
    """``fused_adam`` changes how Adam runs, not what it computes: its settings are those
    SB3 gives a stock policy (learning rate, betas, eps…) but ``fused``, and from the same
    seed fused and per-tensor Adam end a learning run with the same weights to float
    rounding (a different eps or betas would move them apart)."""
    import torch
    from sb3_contrib import MaskablePPO

    from escaramuza.training.fitting import new_model

    small = {"n_steps": 64, "batch_size": 32, "n_epochs": 2}
    weights, settings = [], []
    for fused_adam in (True, False):
        model, _ = new_model(
            "escaramuza/Donjon-v0",
            "donjon/duelo",
            "enemies",
            5,
            {**small, "fused_adam": fused_adam},
        )
        settings.append(dict(model.policy.optimizer.defaults))
        initial = {k: v.clone() for k, v in model.policy.state_dict().items()}
        model.learn(total_timesteps=128)
        state = model.policy.state_dict()
        assert any(not torch.equal(initial[k], v) for k, v in state.items())
        weights.append(state)
    stock = MaskablePPO("MlpPolicy", model.get_env(), device="cpu").policy.optimizer.defaults
    fused, plain = settings
    assert fused.pop("fused") is True and not plain.pop("fused")
    stock = {k: v for k, v in stock.items() if k != "fused"}
    assert fused == plain == stock
    first, second = weights
    for name in first:
        assert torch.allclose(first[name], second[name], rtol=0, atol=1e-5), name


def test_the_last_evaluation_is_of_the_saved_final_weights(tmp_path: Path) -> None:
    """An evaluation due at a rollout's last step waits for that rollout's update: each
    line is of weights trained on its ``timesteps``, and the last of the weights saved
    as ``final.zip``. Evaluated at the step itself, every line was one update behind and
    the final weights were never evaluated (the summary's last evaluation, and so the
    best, described a model the run did not save)."""
    from sb3_contrib import MaskablePPO

    from escaramuza.training.paired import evaluate_policy

    run = tmp_path / "run"
    args = ["train", "--env", "escaramuza/DestinyDice-v0", "--scenario"]
    args += ["destiny_dice/kaspar-tiroteo", "--config", str(tiny_config(tmp_path, eval_battles=40))]
    assert main([*args, "--seed", "5", "--no-progress", "--out", str(run)]) == 0
    lines = [json.loads(x) for x in (run / "eval/paired.jsonl").read_text().splitlines()]
    assert [e["timesteps"] for e in lines] == [256, 512]
    final = MaskablePPO.load(run / "final.zip", device="cpu")
    again = evaluate_policy(
        final.policy,
        True,
        "destiny_dice",
        "destiny_dice/kaspar-tiroteo",
        "enemies",
        n=40,
        seed=5 + 10_000,
    ).arms["policy"]
    assert float(again.wins.mean()) == lines[-1]["win_rate"]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["last_eval"] == lines[-1]


def test_a_run_continued_in_its_folder_keeps_its_evaluations_and_its_best(
    tmp_path: Path,
) -> None:
    """``--resume`` of a run's own checkpoint into its own folder: its paired.jsonl keeps
    the lines it had, the new ones after them, and its best is the best of them all (it
    started again from none, so the resumed run's first evaluation replaced the best
    model whatever it was worth)."""
    run = tmp_path / "run"
    args = ["train", "--env", "escaramuza/DestinyDice-v0", "--scenario"]
    args += ["destiny_dice/kaspar-tiroteo", "--config", str(tiny_config(tmp_path))]
    assert main([*args, "--seed", "5", "--no-progress", "--out", str(run)]) == 0
    log = run / "eval/paired.jsonl"
    before = log.read_text().splitlines()
    resume = ["--resume", str(run / "checkpoints/ckpt_256_steps.zip"), "--timesteps", "768"]
    assert main([*args, *resume, "--seed", "5", "--no-progress", "--out", str(run)]) == 0
    lines = log.read_text().splitlines()
    assert lines[: len(before)] == before and len(lines) > len(before)
    entries = [json.loads(x) for x in lines]
    kept = [e for e in entries if not e["collapsed"]]
    best = json.loads((run / "best/best.json").read_text())
    assert kept and best["difference"] == max(e["difference"] for e in kept)
    assert best in kept
