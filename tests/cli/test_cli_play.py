"""``escaramuza play``: the narrated battle, JSON lines, seeds, agents and errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from escaramuza import __version__
from escaramuza.agents import make_agent
from escaramuza.agents.runner import play_battle
from escaramuza.cli import DEFAULT_SEED, _agent, main
from escaramuza.rules.core.errors import UnknownNameError
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from escaramuza.rules.core.seeds import MAX_SEED
from escaramuza.rules.core.state import BattleState

SCENARIO = "destiny_dice/emboscada"
RANDOM = ["--heroes", "random", "--enemies", "random"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def reference_log(
    name: str, seed: int, heroes: str = "random", enemies: str = "random"
) -> BattleState:
    state = play_battle(
        load_scenario(name),
        {Side.HEROES: make_agent(heroes), Side.ENEMIES: make_agent(enemies)},
        seed=seed,
    )
    return state


def test_cli_play_prints_every_event_line_and_the_outcome(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "play", SCENARIO, "--seed", "5", *RANDOM)
    assert (code, err) == (0, "")
    state = reference_log(SCENARIO, 5)
    lines = out.splitlines()
    assert lines[0].startswith(f"{state.scenario.title} [{SCENARIO}, Destiny Dice] — seed 5")
    # Every event's narration, in order (each printed on its own line, maybe indented).
    body = [line.strip().removeprefix("» ") for line in lines if line.strip()]
    texts = [e.text for e in state.log if e.text]
    it = iter(body)
    assert all(any(t == b for b in it) for t in texts), "an event line is missing or reordered"
    assert "— Round 1 —" in lines
    outcome = state.outcome
    assert outcome is not None
    who = f"the {outcome.winner.value} win" if outcome.winner else "nobody wins"
    summary = lines.index(f"Outcome: {who} ({outcome.reason}) after {outcome.rounds} round(s).")
    assert len(lines) - summary - 1 == len(state.combatants)
    for c, line in zip(state.combatants, lines[summary + 1 :], strict=True):
        assert line.startswith(f"  {c.name} ({c.side.value}, {c.zone}): {c.status.value};")
        assert f"pv {c.resources['pv']}/{c.maxima['pv']}" in line


def test_cli_play_same_seed_same_output(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "play", SCENARIO, "--seed", "11", *RANDOM)
    again = run(capsys, "play", SCENARIO, "--seed", "11", *RANDOM)
    other = run(capsys, "play", SCENARIO, "--seed", "12", *RANDOM)
    assert first == again
    assert first[1] != other[1]


def test_cli_play_default_seed_is_documented_value(capsys: pytest.CaptureFixture[str]) -> None:
    assert DEFAULT_SEED == 1
    default = run(capsys, "play", SCENARIO, *RANDOM)
    explicit = run(capsys, "play", SCENARIO, "--seed", "1", *RANDOM)
    assert default == explicit


def test_cli_play_accepts_short_name_and_path(capsys: pytest.CaptureFixture[str]) -> None:
    full = run(capsys, "play", "destiny_dice/kaspar-tiroteo", *RANDOM)
    short = run(capsys, "play", "kaspar-tiroteo", *RANDOM)
    assert full[0] == 0 and full == short
    path = load_scenario("destiny_dice/kaspar-tiroteo").source
    by_path = run(capsys, "play", path, *RANDOM)
    assert by_path[0] == 0
    # Loaded by path, the scenario is named after its file; the battle is the same.
    assert by_path[1].splitlines()[2:] == full[1].splitlines()[2:]


def test_cli_play_ambiguous_short_name(capsys: pytest.CaptureFixture[str]) -> None:
    ambiguous = [n for n in shipped_scenarios() if n.split("/")[1] == "emboscada"]
    if len(ambiguous) < 2:
        pytest.skip("only one shipped scenario is called emboscada")
    code, out, err = run(capsys, "play", "emboscada")
    assert (code, out) == (2, "")
    assert err.startswith("escaramuza: error: scenario name 'emboscada' is ambiguous: ")
    assert all(name in err for name in ambiguous)


def test_cli_play_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "play", SCENARIO, "--seed", "3", "--json", *RANDOM)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    state = reference_log(SCENARIO, 3)
    assert lines[:-1] == [e.to_json() for e in state.log]
    final = json.loads(lines[-1])
    assert state.outcome is not None
    assert final["type"] == "Outcome" and final["scenario"] == SCENARIO and final["seed"] == 3
    assert final["winner"] == (state.outcome.winner.value if state.outcome.winner else None)
    assert (final["reason"], final["rounds"]) == (state.outcome.reason, state.outcome.rounds)
    assert [c["id"] for c in final["combatants"]] == [c.id for c in state.combatants]
    assert all(json.loads(line)["type"] for line in lines)


def test_cli_play_validate_gives_the_same_battle(capsys: pytest.CaptureFixture[str]) -> None:
    plain = run(capsys, "play", SCENARIO, "--seed", "4", *RANDOM)
    checked = run(capsys, "play", SCENARIO, "--seed", "4", "--validate", *RANDOM)
    assert plain == checked


def test_cli_play_default_agents_are_heuristic(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "play", SCENARIO)
    assert (code, err) == (0, "")
    assert "heroes: heuristic, enemies: heuristic" in out.splitlines()[0]
    assert "Outcome: " in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", SCENARIO, "--heroes", "genio"], "escaramuza: error: unknown agent 'genio'"),
        (
            ["play", "no-such-scenario"],
            "escaramuza: error: no scenario file or shipped scenario named 'no-such-scenario'",
        ),
        (["play", SCENARIO, "--seed", "uno"], "argument --seed: invalid int value: 'uno'"),
        (["play"], "the following arguments are required: SCENARIO"),
        ([], "the following arguments are required: COMMAND"),
        (["jugar"], "invalid choice: 'jugar'"),
        (["play", SCENARIO, "--turbo"], "unrecognized arguments: --turbo"),
    ],
)
def test_cli_user_errors_exit_2_without_traceback(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert message in err and "Traceback" not in err


def test_a_policy_path_that_is_not_a_file_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A folder (or /dev/zero) exists: "no such model file" would send the user looking.
    code, out, err = run(capsys, "play", SCENARIO, "--enemies", f"policy:{tmp_path}")
    assert (code, out) == (2, "")
    assert f"policy {tmp_path}: not a model file (not a regular file)" in err


@pytest.mark.parametrize("scenario", ["destiny_dice/emboscada", "destiny_dice/brann-vs-saqueador"])
def test_a_policy_of_another_ruleset_is_refused_before_the_battle(
    capsys: pytest.CaptureFixture[str], scenario: str
) -> None:
    # In the duel the policy's side never decides: it used to play to the end, exit 0.
    code, out, err = run(capsys, "play", scenario, "--enemies", "policy:donjon/duelo")
    assert code == 2
    # The standard form: the file, the metadata's field, the reason.
    assert err.endswith(
        "escaramuza: error: policy donjon/duelo: ruleset: trained on 'donjon', but scenario "
        f"{scenario!r} is 'destiny_dice'\n"
    )
    assert "Round 1" not in out and "Outcome" not in out


@pytest.mark.parametrize(
    "command",
    [
        ["play", SCENARIO],
        ["playtest", SCENARIO, "-n", "1"],
        ["balance", SCENARIO, "--target", "easy"],
        ["campaign", "day.yaml"],
        ["suggest", SCENARIO],
        ["gm", SCENARIO, "--no-autosave"],
        ["train", "--out", "run"],
        ["evaluate", "--scenario", SCENARIO, "--agents", "random"],
    ],
    ids=lambda argv: argv[0],
)
@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1])
def test_every_command_takes_the_one_range_of_seeds(
    capsys: pytest.CaptureFixture[str], command: list[str], seed: int
) -> None:
    # The range a state file's meta.seed loads (escaramuza.rules.core.seeds): refused before
    # the command reads anything or plays.
    code, out, err = run(capsys, *command, "--seed", str(seed))
    assert (code, out) == (2, "")
    assert err == (
        f"escaramuza: error: --seed: expected an integer from 0 to {MAX_SEED}, got {seed}\n"
    )


def test_cli_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "scenarios" in out and "play" in out
    code, out, _ = run(capsys, "play", "--help")
    assert code == 0 and "--seed" in out and "--json" in out and "--validate" in out
    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"escaramuza {__version__}\n")


def test_play_help_lists_a_trained_policy_among_the_agents(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The README plays a shipped policy with ``play --enemies policy:…``."""
    code, out, _ = run(capsys, "play", "--help")
    for side in ("heroes", "enemies"):
        options = " ".join(out.split()).split(f"--{side} AGENT ")[1].split(" --")[0]
        assert code == 0 and "mcts, policy:PATH; default heuristic" in options


def test_cli_heuristic_for_a_ruleset_without_one_is_a_clear_error() -> None:
    scenario = SimpleNamespace(ruleset=SimpleNamespace(id="sin_heuristica"))
    with pytest.raises(UnknownNameError, match="no heuristic agent for ruleset 'sin_heuristica'"):
        _agent("heuristic", scenario)  # type: ignore[arg-type]


def test_cli_runs_as_a_module_and_as_the_console_script() -> None:
    module = subprocess.run(
        [sys.executable, "-m", "escaramuza", "play", SCENARIO, *RANDOM],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert module.returncode == 0, module.stderr
    script = Path(sys.executable).parent / "escaramuza"
    assert script.exists(), "the console script is installed with the package"
    console = subprocess.run(
        [str(script), "play", SCENARIO, *RANDOM],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert console.returncode == 0 and console.stdout == module.stdout


def test_cli_stops_quietly_when_the_reader_leaves() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "escaramuza", "play", SCENARIO, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # like `escaramuza play … | head -1`
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err


# (command line, the error naming its empty argument)
EMPTY_ARGUMENTS = [
    (["play", ""], "SCENARIO: the name or path is empty"),
    (["play", SCENARIO, "--save-state", ""], "--save-state: the path is empty"),
    (["validate", ""], "FILE: the path is empty"),
    (["migrate", ""], "FILE: the path is empty"),
    (["playtest", SCENARIO, ""], "SCENARIO: the name or path is empty"),
    (["playtest", SCENARIO, "--report", ""], "--report: the path is empty"),
    (["balance", "", "--target", "easy"], "SCENARIO: the name or path is empty"),
    (["balance", SCENARIO, "--target", "easy", "--out", ""], "--out: the path is empty"),
    (["campaign", ""], "DAY: the name or path is empty"),
    (["suggest", ""], "SCENARIO_OR_STATE: the name or path is empty"),
    (["gm", ""], "SCENARIO_OR_STATE: the name or path is empty"),
    (["gm", SCENARIO, "--autosave", ""], "--autosave: the path is empty"),
    (["train", "--config", "", "--out", "run"], "--config: the path is empty"),
    (["train", "--resume", "", "--out", "run"], "--resume: the path is empty"),
    (["train", "--out", ""], "--out: the path is empty"),
    (["train", "--scenario", "", "--out", "run"], "--scenario: the name or path is empty"),
    (
        ["evaluate", "--scenario", "", "--agents", "random"],
        "--scenario: the name or path is empty",
    ),
]


@pytest.mark.parametrize("blank", ["", " ", " \t "], ids=["empty", "space", "blanks"])
@pytest.mark.parametrize(
    ("command", "argument"),
    EMPTY_ARGUMENTS,
    ids=[f"{command[0]} {argument.split(':')[0]}" for command, argument in EMPTY_ARGUMENTS],
)
def test_every_command_refuses_an_empty_file_or_scenario_argument(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
    argument: str,
    blank: str,
) -> None:
    # To the system '' is the current folder ("play ''" said ".: is a directory") and an
    # empty option read as not given ("--save-state ''" saved nothing): refused by name,
    # before the command reads, plays or writes anything. Blanks alone are as empty:
    # "--save-state '  '" wrote a file named by two spaces.
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *[blank if arg == "" else arg for arg in command])
    assert (code, out, err) == (2, "", f"escaramuza: error: {argument}\n")
    assert list(tmp_path.iterdir()) == []


def test_save_state_replaces_a_state_file_and_nothing_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--save-state`` onto the played scenario's own file replaced it with JSON: the
    scenario was lost and the state, which names it, could not load. Onto any other file
    that is not a state file, it was silently replaced. Both are refused, the file as it
    was; a state file (an earlier save) is replaced."""
    shipped = Path(__file__).resolve().parents[2] / "scenarios" / "destiny_dice"
    mine = tmp_path / "mine.yaml"
    mine.write_text((shipped / "kaspar-tiroteo.yaml").read_text(encoding="utf-8"))
    notes = tmp_path / "notes.json"
    notes.write_text("precious\n", encoding="utf-8")
    before = mine.read_bytes()
    play = ["play", str(mine), "--stop-after", "2", "--save-state"]
    assert main([*play, str(mine)]) == 2
    assert "mine.yaml: this is the battle's scenario file" in capsys.readouterr().err
    assert mine.read_bytes() == before
    assert main([*play, str(notes)]) == 2
    assert "notes.json: the file exists and is not a state file" in capsys.readouterr().err
    assert notes.read_text(encoding="utf-8") == "precious\n"
    saved = tmp_path / "saved.json"
    assert main([*play, str(saved)]) == 0
    assert main(["play", str(mine), "--stop-after", "3", "--save-state", str(saved)]) == 0
    assert json.loads(saved.read_text(encoding="utf-8"))["format"] == "escaramuza-state"
