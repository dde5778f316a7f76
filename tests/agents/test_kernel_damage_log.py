"""Every kernel's damage log is the engine's ``Damaged`` events, decision by decision.

The batched env's reward shaping sums the learner's damage event by event
(``EscaramuzaEnv._shaping``); on a kernel it reads the kernel's damage log
(``rules.core.loops.DAMAGE``). Here, at every decision of engine battles of every
shipped scenario and of generated ones, the kernel takes the same action from the
engine's state (``export_state``, the same dice), and its log must hold the engine's
``Damaged`` events of that decision, in order: target, resource (its index in
``Ruleset.resources``), amount and source.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st

from escaramuza.agents.fast import find_kernel
from escaramuza.rules.core import mt
from escaramuza.rules.core.dialect import LOG
from escaramuza.rules.core.events import Damaged
from escaramuza.rules.core.loops import DAMAGE
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.scenario import Scenario, load_scenario, shipped_scenarios
from tests.fastpath_helpers import engine_decisions
from tests.kernel_cases import draw_scenario, generated

pytestmark = pytest.mark.compile

SHIPPED = sorted(shipped_scenarios())


def engine_damages(state: Any, events: list[Any]) -> list[tuple[int, int, int, int]]:
    index = {c.id: i for i, c in enumerate(state.combatants)}
    resources = list(state.ruleset.resources)
    return [
        (index[e.target], resources.index(e.resource), e.amount, index.get(e.source, -1))
        for e in events
        if isinstance(e, Damaged)
    ]


def check_battles(scenario: Scenario, seeds: list[int], cap: int = 300) -> int:
    """Engine battles (``engine_decisions``), the kernel's log checked at every
    decision; the damages compared."""
    kernel = find_kernel(scenario.ruleset.id)
    assert kernel is not None, scenario.ruleset.id
    apply = kernel.loops.rules["apply"]
    exported = kernel.exported(scenario)
    count = int(kernel.G["DAMAGES"])
    columns = [DAMAGE.TARGET, DAMAGE.RESOURCE, DAMAGE.AMOUNT, DAMAGE.SOURCE]
    compared = 0
    for seed, state, action, roller in engine_decisions(scenario, seeds, cap):
        d = kernel.export_state(exported, state)
        dice = mt.state_from_random(roller._rng)
        row = np.array(kernel.action_row(exported, state, action), dtype=np.int64)
        d[1][count] = 0
        apply(exported.static, d, row, dice)
        want = engine_damages(state, apply_action(state, action, roller))
        if d[1][int(kernel.G["SUSPEND"])] != 0:
            continue  # the kernel stopped for Python: nothing to compare
        log = d[LOG]
        got = [tuple(int(x) for x in log[k, columns]) for k in range(int(d[1][count]))]
        assert got == want, (scenario.name, seed, state.round, action)
        compared += len(want)
    return compared


@pytest.mark.parametrize("name", SHIPPED)
def test_the_damage_log_is_the_engines_damage_events(name: str) -> None:
    assert check_battles(load_scenario(name), [0, 1, 2, 3]) > 0


@generated(10)
def test_the_damage_log_is_the_engines_on_generated_scenarios(ruleset: str, data: Any) -> None:
    scenario = draw_scenario(data, ruleset)
    seed = data.draw(st.integers(0, 2**40), label="seed")
    check_battles(scenario, [seed, seed + 1], cap=120)
