"""Search budgets are finite and bounded.

``suggest nan`` / ``suggest 1e99`` in ``gm`` and ``--budget-ms nan`` on the CLI never
returned: a NaN deadline never passes and 1e99 ms is forever. docs/cli.md and docs/gm.md
give the bounds: 10–60000 ms, 1–100000 rollouts.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from escaramuza.agents.search import MAX_BUDGET_MS, MAX_ITERATIONS, MCTS, MIN_BUDGET_MS
from escaramuza.cli import main
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.state_file import state_to_dict
from tests.gm.test_gm_session import DUEL, drive

# The documented bounds (docs/cli.md, docs/gm.md), written out rather than imported.
DOC_MIN_MS, DOC_MAX_MS, DOC_MAX_ITERATIONS = 10, 60_000, 100_000
BAD_MS = ["nan", "NaN", "inf", "-inf", "1e99", "0", "-5", "9.99", "60000.5"]


def test_the_bounds_are_the_documented_ones() -> None:
    assert (MIN_BUDGET_MS, MAX_BUDGET_MS, MAX_ITERATIONS) == (
        DOC_MIN_MS,
        DOC_MAX_MS,
        DOC_MAX_ITERATIONS,
    )


def test_cli_budget_nan_is_exit_2_at_once() -> None:
    """The reproducer, in its own process: it must end (not hang) with one error line."""
    done = subprocess.run(
        [sys.executable, "-m", "escaramuza", "suggest", DUEL, "--budget-ms", "nan"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "escaramuza: error: --budget-ms must be 10–60000 ms (a finite number), not nan"
    ]


@pytest.mark.parametrize("value", BAD_MS)
def test_cli_bad_budget_ms_is_exit_2(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["suggest", DUEL, f"--budget-ms={value}"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1 and "--budget-ms must be 10–60000 ms" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("value", ["0", "-1", "100001", "1000000000"])
def test_cli_bad_iterations_is_exit_2(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["suggest", DUEL, f"--iterations={value}"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"escaramuza: error: --iterations must be 1–100000, not {value}\n"


@pytest.mark.compile
@pytest.mark.parametrize(("flag", "value"), [("--budget-ms", "10"), ("--iterations", "1")])
def test_cli_smallest_budgets_are_accepted(
    flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["suggest", DUEL, flag, value]) == 0
    assert "WIN %" in capsys.readouterr().out


def test_gm_bad_budgets_print_an_error_and_change_nothing() -> None:
    before, _ = drive([])
    session, out = drive([f"suggest {v}" for v in BAD_MS] + ["suggest 1e99ms"])
    errors = [line for line in out.splitlines() if "error:" in line]
    assert len(errors) == len(BAD_MS) + 1
    assert all("the budget must be 10–60000 ms" in line for line in errors)
    assert "WIN %" not in out
    assert not session.history
    assert state_to_dict(session.state) == state_to_dict(before.state)


@pytest.mark.parametrize(
    "spec", ["mcts:nan", "mcts:1e99", "mcts:infms", "mcts:0it", "mcts:1000001it"]
)
def test_mcts_agent_budgets_are_bounded(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", DUEL, "--heroes", spec]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "MCTS" in err


@pytest.mark.parametrize(
    "kwargs",
    [{"iterations": None, "budget_ms": float("nan")}, {"iterations": True}, {"iterations": 10**6}],
)
def test_planner_refuses_unbounded_budgets(kwargs: dict[str, object]) -> None:
    with pytest.raises(EscaramuzaError, match="must be"):
        MCTS(**kwargs)  # type: ignore[arg-type]
