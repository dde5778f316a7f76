"""benchmarks/suggest_quality.py: positions replay to the decision they
name, and regret is the oracle's best win chance minus the suggestion's."""

from __future__ import annotations

from types import ModuleType

import pytest

from escaramuza.rules.core.model import DecisionKind, Side
from tests.benchmark_scripts import load_benchmark


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark("suggest_quality")


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
