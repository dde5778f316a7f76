"""Every ruleset's kernel view shows what the engine shows, decision by decision.

The batched env (``escaramuza.envs.vector``) encodes observations and masks inside
compiled code from three functions of each ruleset's ``rules/<ruleset>/kernel_view.py``:
``view_combatant`` (resources, the features a battle changes over the engine's
start-of-battle ones, conditions), ``view_pending`` (the pending
decision's kind and name) and ``action_slots`` (a legal row's verb, target, item, zone
and option). Here they are checked against the engine itself — ``Combatant.resources``,
``Ruleset.features``, ``Combatant.conditions``, ``BattleState.pending`` and
``ActionCodec.encode`` — at every decision of battles of every shipped scenario and of
generated ones, with the kernel's state exported from the engine's
(``CompiledKernel.export_state``). The whole env's equality is in
tests/envs/test_env_vector.py.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st

from escaramuza.agents.fast import find_kernel
from escaramuza.envs.codec import ActionCodec
from escaramuza.envs.tables import start_features
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.scenario import Scenario, load_scenario, shipped_scenarios
from tests.fastpath_helpers import engine_decisions
from tests.kernel_cases import draw_scenario, generated

pytestmark = pytest.mark.compile

SHIPPED = sorted(shipped_scenarios())


def view_module(ruleset_id: str) -> Any:
    return importlib.import_module(f"escaramuza.rules.{ruleset_id}.kernel_view")


def condition_bits(ruleset: Any, conditions: Any) -> int:
    """The engine's conditions as bits over ``ruleset.conditions`` (an alias sets its
    condition's bit; a name outside both sets none, as the observation ignores it)."""
    index = {name: i for i, name in enumerate(ruleset.conditions)}
    for alias, name in ruleset.condition_aliases.items():
        index[alias] = index[name]
    bits = 0
    for name in conditions:
        if name in index:
            bits |= 1 << index[name]
    return bits


def check_decision(kernel: Any, view: Any, exported: Any, state: Any, codec: ActionCodec) -> int:
    """Assert the view of ``state`` is the engine's; the number of legal actions."""
    ruleset = state.ruleset
    s = exported.static
    d = kernel.export_state(exported, state)
    n_res = len(ruleset.resources)
    values = np.full(n_res + ruleset.n_features, np.nan)
    start = start_features(state.scenario)
    where = f"{state.scenario.name}, round {state.round}, {state.pending}"
    for i, c in enumerate(state.combatants):
        values[n_res:] = start[i, : ruleset.n_features]
        bits = view.view_combatant(s, d, i, values)
        for j, key in enumerate(ruleset.resources):
            if key in c.resources:
                assert values[j] == c.resources[key], (where, c.id, key)
        want = [float(x) for x in ruleset.features(state, c)]
        assert values[n_res:].tolist() == want, (where, c.id, "features")
        assert bits == condition_bits(ruleset, c.conditions), (where, c.id, c.conditions)
    pending = state.pending
    names = ruleset.decision_names
    want_pending = (int(pending.kind), names.index(pending.name) if pending.name in names else -1)
    assert tuple(view.view_pending(s, d)) == want_pending, where
    la = np.zeros((exported.actions, kernel.ACTION_WIDTH), dtype=np.int64)
    n = kernel.loops.rules["legal"](s, d, la)
    actions = ruleset.legal_actions(state)
    assert n == len(actions), where
    for i, action in enumerate(actions):
        verb, target, item, zone, option = view.action_slots(s, d, la[i])
        block = codec.blocks[verb]
        index = (
            block.offset
            + target * block.target_stride
            + item * block.item_stride
            + zone * block.zone_stride
            + option
        )
        assert index == codec.encode(state, action), (where, action)
    return n


def check_battles(scenario: Scenario, seeds: list[int], cap: int = 400) -> int:
    """Play ``seeds`` battles on the engine (``engine_decisions``), checking the view at
    every decision, ``cap`` decisions in all; the decisions checked."""
    ruleset = scenario.ruleset
    kernel = find_kernel(ruleset.id)
    assert kernel is not None
    view = view_module(ruleset.id)
    exported = kernel.exported(scenario)
    codec = ActionCodec(ruleset, 16, 16, 6)
    checked = 0
    for _, state, action, roller in engine_decisions(scenario, seeds, cap):
        if checked == cap:
            break
        check_decision(kernel, view, exported, state, codec)
        checked += 1
        apply_action(state, action, roller)
    return checked


@pytest.mark.parametrize("name", SHIPPED)
def test_the_view_is_the_engines_at_every_decision(name: str) -> None:
    assert check_battles(load_scenario(name), [0, 1, 2, 3]) > 10


@generated(10)
def test_the_view_is_the_engines_on_generated_scenarios(ruleset: str, data: Any) -> None:
    scenario = draw_scenario(data, ruleset)
    seed = data.draw(st.integers(0, 2**40), label="seed")
    check_battles(scenario, [seed, seed + 1], cap=120)
