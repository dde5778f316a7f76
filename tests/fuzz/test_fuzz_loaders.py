"""Fuzz the CLI's loaders with mutated shipped scenarios and saved states.

For the command line: exit 0 or 2, and on 2 exactly one ``escaramuza: error:``
line on stderr, never a traceback. For state files: every state the loader
accepts plays to its end (random agents, validated actions) without an engine
exception. Bounded: a fixed number of examples each, no deadline flakiness on a
loaded machine (a per-example deadline still catches a hang). Set
``ESCARAMUZA_FUZZ_EXAMPLES`` for a longer run; the counts are printed with
``-s``.
"""

from __future__ import annotations

import collections
import os
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from escaramuza.cli import main
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.scenario import DAY_SUFFIX
from escaramuza.state_file import load_state
from tests.fuzz.mutations import (
    BOOKKEEPING,
    mutated_text,
    play_out,
    scenario_sources,
    state_sources,
)

EXAMPLES = int(os.environ.get("ESCARAMUZA_FUZZ_EXAMPLES", "40"))

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=20),
    derandomize=True,  # the same examples on every run: a failure is reproducible
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
    database=None,
)

COUNTS: collections.Counter[str] = collections.Counter()


@pytest.fixture(scope="module", autouse=True)
def _report_counts():
    yield
    if COUNTS:
        print("\nfuzz counts:", dict(sorted(COUNTS.items())))


def _run_cli(argv: list[str], capsys: pytest.CaptureFixture[str], what: str) -> int:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code in (0, 2), (code, err[-2000:])
    assert "Traceback" not in err and "Traceback" not in out
    if code == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("escaramuza: error: "), err[-2000:]
        assert len(lines[0]) < 2000, "an error line must not echo a whole hostile value"
        COUNTS[f"{what} clean errors"] += 1
    else:
        COUNTS[f"{what} accepted"] += 1
    COUNTS[f"{what} tried"] += 1
    return code


@FUZZ
@given(case=mutated_text(scenario_sources(), as_yaml=True))
def test_mutated_scenarios_exit_0_or_2_with_one_line(
    case: tuple[str, str],
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, text = case
    path = tmp_path_factory.mktemp("scenario") / "mutated.yaml"
    path.write_text(text, encoding="utf-8")
    _run_cli(
        ["play", str(path), "--stop-after", "4", "--heroes", "random", "--enemies", "random"],
        capsys,
        "scenario (cli)",
    )


@pytest.mark.compile
@FUZZ
@given(
    case=st.one_of(
        mutated_text(state_sources(), as_yaml=False),
        mutated_text(state_sources(), as_yaml=False, focus=BOOKKEEPING),
    ),
    cli=st.integers(0, 3),
)
def test_mutated_states_are_refused_cleanly_or_play_to_the_end(
    case: tuple[str, str],
    cli: int,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, text = case
    path = tmp_path_factory.mktemp("state") / "mutated.json"
    path.write_text(text, encoding="utf-8")
    if cli == 0:  # one in four through the command line (suggest on the state)
        _run_cli(["suggest", str(path), "--iterations", "2"], capsys, "state (cli)")
    try:
        state, _ = load_state(path)
    except EscaramuzaError as exc:
        assert "\n" not in str(exc)
        COUNTS["state (load) clean errors"] += 1
        return
    COUNTS["state (load) accepted"] += 1
    if state.outcome is None:
        play_out(state)
        COUNTS["state accepted and played to the end"] += 1


def test_the_sources_cover_every_ruleset_and_pending_decision_kind() -> None:
    # Otherwise the fuzzing above would not reach each ruleset's bookkeeping.
    rulesets = {doc["ruleset"] for _, doc in state_sources()}
    assert rulesets == {"destiny_dice", "donjon", "cairn", "sistema_2d10"}
    kinds = {doc["pending"]["kind"] for _, doc in state_sources()}
    assert kinds >= {"turn", "choice"}
    # Every shipped scenario file (the adventuring days, *.day.yaml, are not scenarios).
    shipped = [
        p
        for p in Path(__file__).parents[2].glob("scenarios/*/*.yaml")
        if not p.name.endswith(DAY_SUFFIX)
    ]
    assert len(scenario_sources()) == len(shipped)
