"""``escaramuza playtest`` on the command line: text and JSON output, the progress
bar, bad arguments (exit 2, one clear line, no traceback) and ``--report``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from escaramuza.cli import main
from escaramuza.playtest.report import file_slugs, write_files, write_report
from escaramuza.playtest.result import SCHEMA, playtest
from escaramuza.playtest.runner import PlaytestConfig, Progress
from escaramuza.rules.core.errors import EscaramuzaError

FAST = "destiny_dice/brann-vs-saqueador"
OTHER = "destiny_dice/kaspar-tiroteo"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["playtest", *argv])
    out, err = capsys.readouterr()
    return code, out, err


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


# -- output -----------------------------------------------------------------------

SCENARIO_KEYS = {
    "battles",
    "combatants",
    "difficulty",
    "hero_knockout_share",
    "outcomes",
    "party_wipe",
    "rounds",
    "round_limit",
    "ruleset",
    "scenario",
    "title",
    "top_damager",
    "engine",
    "engine_refusal",  # which engine played (docs/fast-path.md)
}
COMBATANT_KEYS = {
    "damage_share",
    "id",
    "mean_damage_dealt",
    "mean_damage_dealt_to_foes",
    "mean_damage_taken",
    "mean_rounds_survived",
    "name",
    "p_dies",
    "p_knocked_out",
    "side",
    "survival",
}
OUTCOME_KEYS = {
    "heroes",
    "enemies",
    "draw",
    "draw_timeout",
    "draw_withdrawal",
    "draw_mutual",
    "draw_other",
}


@pytest.mark.compile
def test_playtest_json_follows_the_documented_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, FAST, OTHER, "-n", "20", "--seed", "4", "--json")
    assert code == 0
    assert err == ""  # no progress bar with --json
    doc = json.loads(out)
    assert set(doc) == {"agents", "battles", "scenarios", "schema", "seed"}
    assert doc["schema"] == SCHEMA
    assert doc["agents"] == {"enemies": "heuristic", "heroes": "heuristic"}
    assert (doc["battles"], doc["seed"]) == (20, 4)
    assert [s["scenario"] for s in doc["scenarios"]] == [FAST, OTHER]
    for s in doc["scenarios"]:
        assert set(s) == SCENARIO_KEYS
        assert set(s["outcomes"]) == OUTCOME_KEYS
        for p in s["outcomes"].values():
            assert set(p) == {"ci95", "count", "rate"}
            assert p["ci95"][0] <= p["rate"] <= p["ci95"][1]
        assert set(s["rounds"]) == {"histogram", "max", "mean", "median", "min", "p90"}
        assert sum(s["rounds"]["histogram"]) == 20
        assert s["difficulty"] in {"Trivial", "Easy", "Medium", "Hard", "Deadly"}
        for c in s["combatants"]:
            assert set(c) == COMBATANT_KEYS
            assert len(c["survival"]) == s["rounds"]["max"] + 1
    # Keys are sorted at every level, so the document is stable text.
    assert out == json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


@pytest.mark.compile
def test_playtest_text_compares_scenarios_side_by_side(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, FAST, OTHER, "-n", "20")
    assert code == 0
    header = next(line for line in out.splitlines() if FAST in line and OTHER in line)
    assert header.index(FAST) < header.index(OTHER)
    for label in ("heroes win", "enemies win", "party wipe", "difficulty", "top damager"):
        assert any(line.startswith(label) for line in out.splitlines()), label
    assert "Brann" in out and "Kaspar" in out  # per-combatant tables follow
    assert err == ""  # stderr is not a terminal under pytest: no bar


@pytest.mark.compile
def test_playtest_same_seed_same_output(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, FAST, "-n", "15", "--seed", "9", "--json")
    second = run(capsys, FAST, "-n", "15", "--seed", "9", "--json")
    assert first == second


@pytest.mark.compile
@pytest.mark.parametrize(
    ("extra", "shown"), [([], True), (["--json"], True), (["--no-progress"], False)]
)
def test_playtest_progress_bar_on_a_terminal_unless_no_progress(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
    shown: bool,
) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code = main(["playtest", FAST, "-n", "10", *extra])
    out = capsys.readouterr().out
    assert code == 0
    assert ("10/10" in terminal.getvalue()) is shown
    # The bar is on stderr only: stdout holds the text or the JSON document alone.
    assert "━" not in out
    if "--json" in extra:
        assert json.loads(out)["schema"] == SCHEMA


def test_playtest_progress_bar_draws_and_is_silent_when_disabled() -> None:
    stream = FakeTerminal()
    bar = Progress(4, "x", True, stream)
    bar.update(2)
    bar.update(2)
    bar.close()
    assert bar.done == 4
    assert "4/4" in stream.getvalue() and "100%" in stream.getvalue()
    quiet = FakeTerminal()
    off = Progress(4, "x", False, quiet)
    off.update(4)
    off.close()
    assert quiet.getvalue() == "" and off.done == 4
    # Not a terminal: nothing, even when asked for.
    piped = io.StringIO()
    on = Progress(4, "x", True, piped)
    on.update(4)
    on.close()
    assert piped.getvalue() == ""


# -- bad arguments -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([FAST, "-n", "0"], "-n must be a positive number"),
        ([FAST, "-n", "-5"], "-n must be a positive number"),
        # Past the cap: refused before anything is allocated (2**32 battles would not fit
        # the battle seeds, 5 * 10**9 records not the memory).
        ([FAST, "-n", "2000001"], "-n must be at most 2,000,000"),
        ([FAST, "-n", str(10**20)], "-n must be at most 2,000,000"),
        (["no-such-scenario", "-n", "5"], "no scenario file or shipped scenario"),
        ([FAST, "--heroes", "genius"], "unknown agent 'genius'"),
        ([FAST, "--enemies", "genius"], "unknown agent 'genius'"),
        ([FAST, "--backend", "spark"], "unknown backend 'spark'"),
        ([FAST, "--workers", "-1"], "--workers must be 0"),
        # each worker is a process with the engine loaded, started per chunk handed out
        ([FAST, "--workers", "257"], "--workers must be at most 256, not 257"),
        ([FAST, "--address", "10.0.0.1:6379"], "use it with --backend ray"),
        ([FAST, "--seed", "-1"], "--seed: expected an integer from 0 to 9223372036854775807"),
    ],
)
def test_playtest_bad_arguments_exit_2_with_a_clear_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("escaramuza: error: ")
    assert message in err
    assert "Traceback" not in err and out == ""


def test_playtest_ray_backend_without_ray_says_how_to_install_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail
    code, out, err = run(capsys, FAST, "-n", "5", "--backend", "ray")
    assert code == 2
    assert "pip install 'escaramuza[cluster]'" in err and "Traceback" not in err
    assert out == ""


def test_playtest_not_a_number_is_an_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, FAST, "-n", "many")
    assert code == 2
    assert "invalid int value" in err and "Traceback" not in err


def test_playtest_unwritable_report_dir_fails_before_playing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    code, out, err = run(capsys, FAST, "-n", "5", "--report", str(blocker / "report"))
    assert code == 2
    assert err.startswith("escaramuza: error: --report")
    assert "cannot write" in err and "Traceback" not in err
    assert out == ""


def test_playtest_refusals_speak_the_current_language(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    marked: None,
) -> None:
    """They were English under ``--lang es``: each is the marked catalog's (conftest.py)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    code, out, err = run(capsys, FAST, "-n", "5", "--report", str(blocker / "report"))
    assert (code, out, err) == (
        2,
        "",
        f"escaramuza: error: «--report {blocker / 'report'}: cannot write there "
        "(Not a directory)»\n",
    )
    with pytest.raises(EscaramuzaError) as caught:
        write_files(blocker, {"summary.json": "{}"})
    assert str(caught.value) == f"«--report {blocker}: cannot write (Not a directory)»"
    with pytest.raises(EscaramuzaError) as caught:
        playtest([], PlaytestConfig(n=1))
    assert str(caught.value) == "«name at least one scenario to playtest»"
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail
    code, out, err = run(capsys, FAST, "-n", "5", "--backend", "ray")
    assert (code, out, err) == (
        2,
        "",
        "escaramuza: error: «--backend ray needs Ray: pip install 'escaramuza[cluster]'»\n",
    )


# -- report -------------------------------------------------------------------------


@pytest.mark.compile
def test_playtest_report_files_and_identical_bytes(tmp_path: Path) -> None:
    def report(folder: Path) -> dict[str, bytes]:
        result = playtest([FAST], PlaytestConfig(n=25, seed=2))
        write_report(result, folder)
        return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}

    first, second = report(tmp_path / "one"), report(tmp_path / "two")
    slugs = ["destiny_dice-brann-vs-saqueador"]
    expected = {"summary.json", "report.md"} | {
        f"{slug}-{plot}.png" for slug in slugs for plot in ("outcomes", "rounds", "survival")
    }
    assert set(first) == expected  # and no temporary files left behind
    assert first == second
    for name, data in first.items():
        if name.endswith(".png"):
            assert data.startswith(b"\x89PNG\r\n\x1a\n")
            assert b"Software" not in data
    text = first["report.md"].decode()
    for name in expected - {"summary.json", "report.md"}:
        assert f"]({name})" in text
    assert json.loads(first["summary.json"])["schema"] == SCHEMA


@pytest.mark.compile
def test_playtest_cli_report_matches_json_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, FAST, "-n", "12", "--json", "--report", str(tmp_path / "r"))
    assert code == 0
    assert (tmp_path / "r" / "summary.json").read_text(encoding="utf-8") == out


def test_playtest_report_file_names_are_unique_per_scenario() -> None:
    names = [{"scenario": FAST}, {"scenario": OTHER}, {"scenario": FAST}]
    assert file_slugs(names) == [
        "destiny_dice-brann-vs-saqueador",
        "destiny_dice-kaspar-tiroteo",
        "destiny_dice-brann-vs-saqueador-2",
    ]


@given(st.lists(st.sampled_from(["x", "x-2", "x-3", "x-2-2", "a/b", "a-b", "a b"]), max_size=8))
def test_report_file_names_are_distinct_whatever_the_names(names: list[str]) -> None:
    """A second ``x`` was named ``x-2``, the stem of a scenario named ``x-2`` too: one
    section showed the other's plots. Every stem is distinct, and a scenario's first
    appearance keeps its own name where no earlier one took it."""
    slugs = file_slugs([{"scenario": n} for n in names])
    assert len(set(slugs)) == len(slugs)
    for k, name in enumerate(names):
        base = name.replace("/", "-").replace(" ", "_")
        if base not in slugs[:k]:
            assert slugs[k] == base
