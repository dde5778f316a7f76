"""Fuzz the kernel boundary with mutated *states*: refused cleanly, or equal on both engines.

A saved state of every ruleset, mid-battle, is changed where the kernels read it —
resources at the extremes of 64-bit integers and around their bounds, the round and turn
counters, the initiative order, the pending decision's actor, statuses, zones and
condition values — then loaded as a state file is. Each case ends one of three ways:

* the loader refuses it (a :class:`StateFileError` naming the field);
* the state loads and the kernel refuses it (a :class:`KernelRefusal`): the engine plays
  it, so its rollouts must run;
* the state loads and the kernel plays it: every rollout (action × seed) must equal the
  engine's, number for number.

Never a signal, never another exception. Bounded and derandomized (the same cases on
every run); ``ESCARAMUZA_FUZZ_EXAMPLES`` runs more, and ``-s`` prints the counts.
"""

from __future__ import annotations

import collections
import copy
import os
import random
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from escaramuza.agents.fast import find_kernel
from escaramuza.rules.core.kernel import KernelRefusal
from escaramuza.rules.core.model import Status
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.state_file import StateFileError, state_from_dict
from tests.fastpath_helpers import engine_rollout
from tests.fuzz.mutations import state_sources

pytestmark = pytest.mark.compile

EXAMPLES = int(os.environ.get("ESCARAMUZA_FUZZ_EXAMPLES", "60"))
#: Rollouts compared per accepted case: the first actions × a few seeds, cut at a horizon.
ACTIONS, SEEDS, HORIZON, MAX_DECISIONS = 3, 2, 2, 400

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=120),  # a first kernel compile happens inside one case
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)

#: Values put in place of a counter or a resource: 64-bit extremes, and around 0.
EXTREMES = (
    -(2**63),
    -(2**62),
    -9_000_000_000_000_000_000,
    -(10**9),
    -5,
    -1,
    0,
    1,
    2**31,
    10**9,
    2**62,
    2**63 - 1,
)

COUNTS: collections.Counter[str] = collections.Counter()


@pytest.fixture(scope="module", autouse=True)
def _report_counts() -> Any:
    yield
    if COUNTS:
        print("\nstate fuzz counts:", dict(sorted(COUNTS.items())))


def _near(draw: st.DrawFn, top: int) -> int:
    """A value within 0…``top`` (half the time: the kernels must play those), at or just
    past its bounds, or a 64-bit extreme."""
    if draw(st.booleans()):
        return draw(st.one_of(st.integers(0, top), st.sampled_from((0, top))))
    return draw(st.one_of(st.sampled_from(EXTREMES), st.sampled_from((-1, top + 1))))


@st.composite
def mutated_state(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    label, source = draw(st.sampled_from(state_sources()))
    doc = copy.deepcopy(source)
    combatants = doc["combatants"]
    ids = [c["id"] for c in combatants]
    scenario = load_scenario(doc["scenario"])
    zones = list(scenario.battlefield.zone_ids)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(combatants) - 1))
        c = combatants[i]
        what = draw(
            st.sampled_from(
                (
                    "resource",
                    "resource",
                    "resource",
                    "round",
                    "turn",
                    "order",
                    "actor",
                    "status",
                    "zone",
                    "condition",
                )
            )
        )
        if what == "resource":
            key = draw(st.sampled_from(sorted(c["resources"])))
            top = scenario.combatant(c["id"]).maxima.get(key, 20)
            c["resources"][key] = _near(draw, top)
        elif what == "round":
            doc["round"] = _near(draw, scenario.round_limit)
        elif what == "turn":
            doc["turn"] = _near(draw, len(doc["order"]))
        elif what == "order":
            order = list(doc["order"])
            how = draw(st.sampled_from(("drop", "shuffle", "empty", "all")))
            if how == "drop" and order:
                order.pop(draw(st.integers(0, len(order) - 1)))
            elif how == "shuffle":
                order = draw(st.permutations(order))
            elif how == "empty":
                order = []
            else:
                order = list(ids)
            doc["order"] = order
        elif what == "actor" and doc.get("pending"):
            doc["pending"]["actor"] = draw(st.sampled_from(ids))
            doc["pending"].pop("side", None)
        elif what == "status":
            c["status"] = draw(st.sampled_from([s.value for s in Status]))
        elif what == "zone":
            c["zone"] = draw(st.sampled_from(zones))
        elif what == "condition":
            conditions = scenario.ruleset.conditions
            c["conditions"] = [
                {
                    "name": draw(st.sampled_from(conditions)),
                    "value": draw(st.sampled_from((0, 1, -1, 1000, 1001, -(2**62)))),
                }
            ]
    return label, doc


def _engine_batch(state: Any, actions: list[Any], seeds: list[int]) -> list[list[tuple]]:
    return [
        [engine_rollout(state, a, s, HORIZON, None, MAX_DECISIONS) for s in seeds] for a in actions
    ]


@FUZZ
@given(case=mutated_state())
def test_mutated_states_are_refused_or_equal_on_both_engines(
    case: tuple[str, dict[str, Any]],
) -> None:
    label, doc = case
    COUNTS["tried"] += 1
    try:
        state, _ = state_from_dict(doc, f"{label}.json")
    except StateFileError as exc:
        assert "\n" not in str(exc) and exc.field is not None
        COUNTS["refused by the loader"] += 1
        return
    if state.outcome is not None:
        COUNTS["accepted, finished"] += 1
        return
    actions = state.ruleset.legal_actions(state)[:ACTIONS]
    rng = random.Random(label)
    seeds = [rng.getrandbits(63) for _ in range(SEEDS)]
    reference = _engine_batch(state, actions, seeds)  # the engine never crashes on it
    kernel = find_kernel(state.ruleset.id)
    assert kernel is not None
    try:
        batch = kernel.rollouts(state, actions, seeds, HORIZON, None, MAX_DECISIONS)
    except KernelRefusal as exc:
        assert str(exc)
        COUNTS["refused by the kernel (the engine plays)"] += 1
        return
    for field, k in (("winner", 0), ("finished", 1), ("own", 2), ("foe", 3), ("actor_out", 4)):
        expected = np.array([[r[k] for r in row] for row in reference])
        assert np.array_equal(getattr(batch, field), expected), (label, field)
    COUNTS["played equal on both engines"] += 1
