"""benchmarks/suggest_quality.py: positions replay to the decision they
name, and regret is the oracle's best win chance minus the suggestion's."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from escaramuza.rules.core.model import DecisionKind, Side

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "suggest_quality_benchmark", ROOT / "benchmarks" / "suggest_quality.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["destiny_dice/emboscada", "cairn/emboscada_goblin"])
def test_positions_are_turn_decisions_of_alternating_sides(bench: ModuleType, name: str) -> None:
    positions = bench.draw_positions(name, 4)
    assert len(positions) == 4
    for i, (seed, decisions) in enumerate(positions):
        state = bench.position_state(name, seed, decisions)
        pending = state.pending
        assert state.outcome is None and pending is not None
        assert pending.kind is DecisionKind.TURN
        assert pending.side is (Side.ENEMIES, Side.HEROES)[i % 2]
        assert len(state.ruleset.legal_actions(state)) >= 2
    # Replaying names the same position every time.
    assert bench.draw_positions(name, 4) == positions


def test_regret_is_the_gap_to_the_oracles_best_in_points(bench: ModuleType) -> None:
    oracle = {
        "actions": {
            "a": {"win": 0.70, "tied_with_best": True},
            "b": {"win": 0.65, "tied_with_best": True},
            "c": {"win": 0.40, "tied_with_best": False},
        }
    }
    assert bench.regret(oracle, "a") == (0.0, True)
    points, good = bench.regret(oracle, "b")
    assert points == pytest.approx(5.0) and good
    points, good = bench.regret(oracle, "c")
    assert points == pytest.approx(30.0) and not good
    # An action the oracle never ranked counts as the worst case.
    assert bench.regret(oracle, "z") == (pytest.approx(70.0), False)


def test_p95_is_the_nearest_rank(bench: ModuleType) -> None:
    assert bench.p95(list(range(1, 101))) == 95
    assert bench.p95([3.0]) == 3.0
