"""Generated scenarios of every ruleset, for the kernel equality suite
(tests/agents/test_kernel_equality.py): ruleset id → a hypothesis strategy of
:class:`~escaramuza.rules.core.scenario.Scenario`. Each ruleset's strategy lives in its
own test module, beside the rules it exercises."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from escaramuza.rules import RULESETS
from escaramuza.rules.core.scenario import Scenario, parse_scenario


def _cairn() -> st.SearchStrategy[Scenario]:
    from tests.rules.cairn.test_cairn_kernel import small_scenarios

    return small_scenarios()


def _destiny_dice() -> st.SearchStrategy[Scenario]:
    from tests.rules.destiny_dice.test_destiny_dice_kernel import _scenario

    return _scenario()


def _donjon() -> st.SearchStrategy[Scenario]:
    from tests.rules.donjon.test_donjon_kernel import donjon_scenarios

    return donjon_scenarios().map(lambda data: parse_scenario(data, "<hypothesis>"))


def _sistema_2d10() -> st.SearchStrategy[Scenario]:
    from tests.rules.sistema_2d10.test_sistema_2d10_kernel import _scenario

    return _scenario().map(lambda case: parse_scenario(case[0], "generado.yaml"))


SCENARIOS: dict[str, Callable[[], st.SearchStrategy[Scenario]]] = {
    "cairn": _cairn,
    "destiny_dice": _destiny_dice,
    "donjon": _donjon,
    "sistema_2d10": _sistema_2d10,
}


def generated(max_examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A test of ``(ruleset, data)`` run for every ruleset of ``RULESETS``, on
    ``max_examples`` draws each (``data``: hypothesis' ``st.data()``; the test draws its
    scenario with :func:`draw_scenario`): derandomised (the same cases every run), no
    deadline (a case may compile a kernel), and the strategies' modules, test modules
    with ``@given`` tests of their own, imported inside the running test."""

    def wrap(test: Callable[..., None]) -> Callable[..., None]:
        run = settings(
            max_examples=max_examples,
            deadline=None,
            derandomize=True,
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.data_too_large,
                HealthCheck.nested_given,
            ],
        )(given(data=st.data())(test))
        return pytest.mark.parametrize("ruleset", sorted(RULESETS))(run)

    return wrap


def draw_scenario(data: Any, ruleset: str) -> Scenario:
    """A generated scenario of ``ruleset`` drawn in a :func:`generated` test."""
    return data.draw(SCENARIOS[ruleset](), label="scenario")
