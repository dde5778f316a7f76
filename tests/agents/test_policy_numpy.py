"""The ``policy:`` agent's greedy decisions through the numpy network are the torch
policy's, decision for decision, on every shipped policy."""

from __future__ import annotations

import random

import numpy as np
import pytest

from escaramuza.agents import HeuristicAgent
from escaramuza.agents.policy import PolicyAgent, shipped_policies
from escaramuza.agents.policy.mlp import TIE, NumpyActorCritic, clear_pick
from escaramuza.agents.runner import play_battle
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario

pytestmark = pytest.mark.training


@pytest.mark.parametrize("name", shipped_policies())
def test_numpy_greedy_is_torch_greedy(name: str) -> None:
    fast = PolicyAgent(name)
    slow = PolicyAgent(name)
    assert fast._numpy is not None
    slow._numpy = None  # torch only
    scenario = load_scenario(name)
    heuristic = HeuristicAgent()
    side = Side.HEROES if fast.meta.side == "heroes" else Side.ENEMIES
    checked = 0
    for seed in range(12):
        for stop in range(0, 40, 3):
            state = play_battle(
                scenario,
                {Side.HEROES: heuristic, Side.ENEMIES: heuristic},
                seed=seed,
                stop_after=stop,
            )
            if state.outcome is not None or state.pending is None or state.pending.side is not side:
                continue
            rng = random.Random(0)
            assert fast.act(state, rng) == slow.act(state, rng)
            checked += 1
    assert checked >= 20


def test_clear_pick_leaves_near_ties_to_torch() -> None:
    logits = np.array([0.5, 2.0, 2.0 - TIE / 2, -1.0], dtype=np.float32)
    assert clear_pick(logits, [0, 1, 2]) is None
    assert clear_pick(logits, [0, 1, 3]) == 1
    assert clear_pick(logits, [3]) == 3
    assert clear_pick(logits, [0, 3]) == 0


def test_a_policy_with_other_layers_has_no_numpy_twin() -> None:
    class Other:
        features_extractor = object()

    assert NumpyActorCritic.of(Other()) is None
