"""Bad arguments to ``train`` and ``evaluate``: exit 2 and a message naming the argument."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from escaramuza.cli import main

DD = ["--env", "escaramuza/DestinyDice-v0"]


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["train", *DD, "--timesteps", "0"], "--timesteps must be a positive integer, not 0"),
        (["train", *DD, "--n-envs", "-1"], "--n-envs must be a positive integer, not -1"),
        (
            ["train", *DD, "--seed", "-3"],
            "--seed: expected an integer from 0 to 9223372036854775807, got -3",
        ),
        (["train", *DD, "--seed", str(2**32)], "seed: Input should be less than or equal to"),
        (["train", *DD, "--n-envs", "4097"], "n_envs: Input should be less than or equal to 4096"),
        # Its config.yaml would hold .inf, which --resume's reader refuses.
        (["train", *DD, "--max-seconds", "inf"], "max_seconds: Input should be a finite number"),
        (["train", *DD, "--n-envs", "1024"], "a rollout of n_steps × n_envs = 524288 steps"),
        (["train", *DD, "--eval-battles", str(10**11)], "eval_battles: Input should be less"),
        (
            ["train", *DD, "--distill-rounds", "1", "--distill-battles", "10001"],
            "distill.battles: Input should be less than or equal to 10000",
        ),
        (["train", "--env", "escaramuza/Nope-v0"], "--env: unknown env 'escaramuza/Nope-v0'"),
        (["train"], "--env is required"),
        (
            ["train", *DD, "--scenario", "donjon/duelo"],
            "--scenario donjon/duelo: scenario 'donjon/duelo' is a 'donjon' scenario",
        ),
        (["train", *DD, "--scenario", "no-such-scenario"], "no-such-scenario"),
        (["train", *DD, "--opponent", "nobody"], "unknown agent 'nobody'"),
        (["train", *DD, "--resume", "missing.zip"], "--resume missing.zip: no such checkpoint"),
        (
            ["evaluate", "--scenario", "donjon/duelo", "--agents", "random", "--no-baselines"],
            "--agents: name at least two agents separated by commas, not 'random' (with "
            "--no-baselines only the agents named play)",
        ),
        (
            ["evaluate", "--scenario", "donjon/duelo", "--agents", " , "],
            "--agents: name at least one agent, not ' , '",
        ),
        (
            ["evaluate", "--scenario", "donjon/duelo", "--agents", "random,heuristic", "-n", "0"],
            "-n must be a positive integer, not 0",
        ),
        (
            [
                *("evaluate", "--scenario", "donjon/duelo", "--agents", "random,heuristic"),
                *("-n", "5000000000"),
            ],
            "-n must be at most 2,000,000",
        ),
        (
            ["evaluate", "--scenario", "donjon/duelo", "--agents", "random,policy:nope.zip"],
            "--agents: policy nope.zip: no such model file",
        ),
        (
            ["evaluate", "--scenario", "nowhere", "--agents", "random,heuristic", "-n", "1"],
            "nowhere",
        ),
    ],
)
def test_bad_arguments_exit_2_naming_the_argument(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if argv[0] == "train":
        argv = [*argv, "--out", str(tmp_path / "run")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("escaramuza: error: ")
    assert message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hyperparameters:\n  n_steps: 1\n", "hyperparameters.n_steps"),
        ("hyperparameters:\n  net_arch: [64, 0]\n", "net_arch"),
        ("algo: a2c\n", "algo"),
        ("bogus: 1\n", "bogus: Extra inputs are not permitted"),
        (
            "n_envs: 1\nhyperparameters:\n  n_steps: 64\n  batch_size: 128\n",
            "batch_size=128 is larger than a rollout",
        ),
        ("- a list\n", "expected a mapping"),
    ],
)
def test_bad_config_names_file_and_field(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(tmp_path, "bad.yaml", text)
    assert main(["train", *DD, "--config", config, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml" in err and message in err


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "key: [unclosed\n",
            "line 2, column 1: YAML syntax error: did not find expected ',' or ']'",
        ),
        (
            "[" * 100 + "]" * 100 + "\n",
            "line 1, column 65: lists and mappings are nested more than 64 levels deep",
        ),
        ("a: &x [1]\nb: *y\n", "line 2, column 4: YAML syntax error: found undefined alias"),
        (
            "timesteps: .nan\n",
            "line 1, column 12: number .nan is not finite; NaN and infinities are refused",
        ),
        ("x" * (1 << 16) + "\n", "is 65537 bytes; a training configuration may be at most 64 KiB"),
    ],
)
def test_config_is_read_bounded_and_parsed_safely(
    text: str, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(tmp_path, "bad.yaml", text)
    assert main(["train", *DD, "--config", config, "--out", str(tmp_path / "run")]) == 2
    assert capsys.readouterr().err == f"escaramuza: error: --config {config}: {reason}\n"
    assert not (tmp_path / "run").exists()


def test_a_run_refused_on_its_checkpoint_leaves_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"not a zip!\n")
    run = tmp_path / "new" / "run"
    assert main(["train", *DD, "--resume", str(corrupt), "--out", str(run)]) == 2
    assert capsys.readouterr().err == (
        f"escaramuza: error: --resume {corrupt}: not a saved model (File is not a zip file)\n"
    )
    assert not (tmp_path / "new").exists()
    # A folder the user had is kept as it was.
    had = tmp_path / "had"
    had.mkdir()
    (had / "notes.txt").write_text("mine\n", encoding="utf-8")
    assert main(["train", *DD, "--resume", str(corrupt), "--out", str(had)]) == 2
    assert sorted(p.name for p in had.iterdir()) == ["notes.txt"]


def test_a_checkpoint_nested_thousands_deep_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its data entry made json.loads raise RecursionError: a traceback, after the check
    # meant to refuse it before the run's folder is made.
    deep = tmp_path / "deep.zip"
    with zipfile.ZipFile(deep, "w") as archive:
        archive.writestr("data", "[" * 100_000 + "]" * 100_000)
        archive.writestr("policy.pth", b"")
    run = tmp_path / "run"
    assert main(["train", *DD, "--resume", str(deep), "--out", str(run)]) == 2
    assert capsys.readouterr().err == (
        f"escaramuza: error: --resume {deep}: data: lists and objects are nested more than "
        "64 levels deep\n"
    )
    assert not run.exists()


def test_missing_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            ["train", *DD, "--config", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "run")]
        )
        == 2
    )
    assert "--config" in capsys.readouterr().err


def test_a_bad_option_is_the_command_lines_a_bad_setting_the_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --config, a bad value given on the command line was reported as the file's."""
    config = _write(tmp_path, "ck.yaml", "checkpoint_freq: 1024\n")
    assert main(["train", *DD, "--config", config, "--n-envs", "100000", "--out", "x"]) == 2
    assert "error: command line: n_envs: Input should be" in capsys.readouterr().err
    bad = _write(tmp_path, "bad.yaml", "n_envs: 100000\n")
    assert main(["train", *DD, "--config", bad, "--out", "x"]) == 2
    assert f"error: {bad}: n_envs: Input should be" in capsys.readouterr().err


def test_out_holding_a_run_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("env: escaramuza/DestinyDice-v0\n", encoding="utf-8")
    assert main(["train", *DD, "--out", str(run)]) == 2
    assert f"--out {run}: already holds a run" in capsys.readouterr().err


def test_argparse_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", *DD]) == 2  # --out missing
    assert "--out" in capsys.readouterr().err
    assert main(["train", *DD, "--side", "left", "--out", "x"]) == 2
    assert "--side" in capsys.readouterr().err


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained MaskablePPO checkpoint of the DestinyDice env (the run's own envs,
    stepped by the Python env), saved as if 64 timesteps in."""
    from escaramuza.training.config import TrainConfig
    from escaramuza.training.envs import with_fitted_limits
    from escaramuza.training.train import _model
    from escaramuza.training.vec import _vec_env

    config = with_fitted_limits(
        TrainConfig(
            env="escaramuza/DestinyDice-v0",
            vec_env="dummy",
            hyperparameters={"n_steps": 64, "batch_size": 64, "n_epochs": 1},
        )
    )
    venv = _vec_env(config, config.opponent, 1, config.seed, "dummy")
    try:
        model = _model(config, venv, None, None)
        model.num_timesteps = 64
        path = tmp_path_factory.mktemp("ckpt") / "ckpt_64_steps.zip"
        model.save(path)
    finally:
        venv.close()
    return path


# (the run's options, what the refusal says after the checkpoint's name)
LATE_REFUSALS = [
    (
        ["--env", "escaramuza/Donjon-v0"],
        "its network takes 807 observation values and 345 actions, and this run's "
        "escaramuza/Donjon-v0 envs give 858 and 237; resume it with the env, scenarios and "
        "limits it was trained with",
    ),
    (
        [*DD, "--algo", "ppo"],
        "a maskable-ppo checkpoint, and this run trains ppo; resume it with --algo "
        "maskable-ppo (or algo: maskable-ppo in --config)",
    ),
    (
        [*DD, "--timesteps", "64"],
        "the checkpoint is already at 64 timesteps; raise --timesteps above it",
    ),
]


@pytest.mark.parametrize(
    ("options", "reason"), LATE_REFUSALS, ids=["other-env", "other-algo", "past-timesteps"]
)
def test_a_checkpoint_that_does_not_fit_the_run_leaves_no_folder(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    checkpoint: Path,
    options: list[str],
    reason: str,
) -> None:
    # Found once the run's envs are built: it used to leave new/run/config.yaml behind.
    run = tmp_path / "new" / "run"
    argv = ["train", *options, "--vec", "dummy", "--resume", str(checkpoint)]
    assert main([*argv, "--out", str(run)]) == 2
    assert capsys.readouterr().err == f"escaramuza: error: --resume {checkpoint}: {reason}\n"
    assert not (tmp_path / "new").exists()
    # The folder of the run it continues keeps its config and logs as they were.
    had = tmp_path / "had"
    (had / "logs").mkdir(parents=True)
    (had / "config.yaml").write_text("env: escaramuza/DestinyDice-v0\n", encoding="utf-8")
    (had / "logs" / "progress.csv").write_text("time/total_timesteps\n64\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in had.rglob("*") if p.is_file()}
    assert main([*argv, "--out", str(had)]) == 2
    assert {p: p.read_bytes() for p in had.rglob("*") if p.is_file()} == before


def test_a_resume_into_another_runs_folder_is_refused_and_leaves_it_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], checkpoint: Path
) -> None:
    """``--resume`` continues its checkpoint's own run, or starts a new folder: a
    checkpoint of another run pointed at a folder holding a run overwrote its config,
    final and best models."""
    other = tmp_path / "other"
    (other / "best").mkdir(parents=True)
    (other / "config.yaml").write_text("env: escaramuza/DestinyDice-v0\n", encoding="utf-8")
    (other / "best" / "policy.zip").write_bytes(b"weights")
    before = {p: p.read_bytes() for p in other.rglob("*") if p.is_file()}
    argv = ["train", *DD, "--vec", "dummy", "--resume", str(checkpoint), "--timesteps", "128"]
    assert main([*argv, "--out", str(other)]) == 2
    assert f"--out {other}: already holds a run" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in other.rglob("*") if p.is_file()} == before


def test_train_and_evaluate_errors_in_spanish(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """These refusals were English under ``--lang es``; each is now the catalog's."""
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"not a zip!\n")
    held = tmp_path / "held"
    held.mkdir()
    (held / "config.yaml").write_text("env: escaramuza/DestinyDice-v0\n", encoding="utf-8")
    cases = [
        (
            ["train", *DD, "--resume", "missing.zip", "--out", str(tmp_path / "run")],
            "--resume missing.zip: no existe ese punto de control",
        ),
        (
            ["train", *DD, "--resume", str(corrupt), "--out", str(tmp_path / "run")],
            f"--resume {corrupt}: no es un modelo guardado (File is not a zip file)",
        ),
        (
            ["train", *DD, "--out", str(held)],
            f"--out {held}: ya contiene una ejecución; elige una carpeta nueva o continúala "
            f"con --resume {held}/checkpoints/…zip",
        ),
        (
            [
                *("evaluate", "--scenario", "donjon/duelo", "--agents", "random,heuristic"),
                *("--workers", "-1"),
            ],
            "--workers debe ser 0 (todos los núcleos) o positivo, no -1",
        ),
    ]
    for argv, message in cases:
        assert main(["--lang", "es", *argv]) == 2
        assert capsys.readouterr().err == f"escaramuza: error: {message}\n"


def test_a_resume_already_past_the_timesteps_is_refused_in_spanish() -> None:
    from types import SimpleNamespace

    from escaramuza.rules.core.errors import EscaramuzaError
    from escaramuza.rules.core.i18n import language
    from escaramuza.training.config import TrainConfig
    from escaramuza.training.train import check_remaining

    config = TrainConfig(env="escaramuza/DestinyDice-v0", timesteps=64)
    with language("es"), pytest.raises(EscaramuzaError) as caught:
        check_remaining(config, SimpleNamespace(num_timesteps=64), Path("ckpt.zip"))
    assert str(caught.value) == (
        "--resume ckpt.zip: el punto de control ya está en 64 pasos; sube --timesteps por encima"
    )


def test_train_and_evaluate_refusals_speak_the_current_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], marked: None
) -> None:
    """These were English under ``--lang es``: each is the marked catalog's (conftest.py)."""
    from escaramuza.rules.core.errors import EscaramuzaError
    from escaramuza.training.evaluate import evaluate

    run = ["--out", str(tmp_path / "run")]
    cases = [
        (["train", *run], "«--env is required (or a --config naming env:)»"),
        (
            ["train", *DD, "--draw-reward", "2", *run],
            "«--draw-reward must be in [-1, 1] (a loss is -1, a win +1), not 2.0»",
        ),
        (
            ["train", *DD, "--distill-battles", "5", *run],
            "«--distill-battles, --distill-planner and --distill-labels need --distill-rounds»",
        ),
        (
            ["evaluate", "--scenario", "donjon/duelo", "--agents", "random,heuristic,random"],
            "«--agents: 'random' is named twice»",
        ),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        assert capsys.readouterr().err == f"escaramuza: error: {message}\n"
    with pytest.raises(EscaramuzaError) as caught:
        evaluate([], ["random", "heuristic"], 1, 1, 1)
    assert str(caught.value) == "«--scenario: name at least one scenario»"
    assert not (tmp_path / "run").exists()


def test_evaluate_refuses_a_policy_of_another_ruleset_naming_the_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The refusal was 'policy P was trained on …', without the option that gave the
    policy; it is the standard form now, before any battle."""
    argv = ["evaluate", "--scenario", "destiny_dice/brann-vs-saqueador", "-n", "1"]
    assert main([*argv, "--agents", "random,policy:donjon/duelo", "--no-progress"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == (
        "",
        "escaramuza: error: --agents: policy donjon/duelo: ruleset: trained on 'donjon', but "
        "scenario 'destiny_dice/brann-vs-saqueador' is 'destiny_dice'\n",
    )


@pytest.fixture(scope="module")
def duel_policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A policy trained (64 timesteps) under limits fitted to cairn/duelo_bugbear: two
    combatants, so it plays no scenario with more."""
    folder = tmp_path_factory.mktemp("duel")
    config = _write(
        folder,
        "tiny.yaml",
        "hyperparameters: {n_steps: 64, batch_size: 64, n_epochs: 1}\neval_battles: 2\n",
    )
    argv = ["train", "--env", "escaramuza/Cairn-v0", "--scenario", "cairn/duelo_bugbear"]
    argv += ["--limits", "fit", "--n-envs", "1", "--timesteps", "64", "--config", config]
    assert main([*argv, "--no-progress", "--out", str(folder / "run")]) == 0
    return folder / "run" / "policy.zip"


@pytest.mark.parametrize(
    ("option", "agent", "label"),
    [
        ("--opponent", "policy:{}", "policy {}"),
        ("--opponent-pool", "heuristic,policy:{}", "--opponent-pool: policy {}"),
        ("--opponent", "mcts:net={}", "mcts guide {}"),
    ],
)
def test_an_opponent_policy_that_cannot_play_the_runs_scenario_leaves_no_folder(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    duel_policy: Path,
    option: str,
    agent: str,
    label: str,
) -> None:
    # Refused only at the run's first battle, it left new/run with config.yaml and logs.
    run = tmp_path / "new" / "run"
    capsys.readouterr()
    argv = ["train", "--env", "escaramuza/Cairn-v0", "--scenario", "cairn/emboscada_goblin"]
    argv += [option, agent.format(duel_policy)]
    assert main([*argv, "--timesteps", "64", "--no-progress", "--out", str(run)]) == 2
    assert capsys.readouterr().err == (
        f"escaramuza: error: {label.format(duel_policy)}: max_combatants: trained with "
        "max_combatants=2 and plays only scenarios within it; scenario "
        "'cairn/emboscada_goblin' needs 10\n"
    )
    assert not (tmp_path / "new").exists()
