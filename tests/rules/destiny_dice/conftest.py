"""Fixtures for Destiny Dice tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from escaramuza.rules.core import BattleState, ScriptedRoller, new_battle
from escaramuza.rules.core.scenario import Scenario

Battle = Callable[..., tuple[BattleState, ScriptedRoller]]


@pytest.fixture
def battle() -> Battle:
    """``battle(scenario, initiative_dice, then_dice)`` → (state after initiative, roller).

    The roller holds ``initiative + dice``; initiative is consumed by ``new_battle``.
    """

    def make(sc: Scenario, initiative: list[Any], dice: list[Any] | None = None):
        roller = ScriptedRoller([*initiative, *(dice or [])])
        return new_battle(sc, roller), roller

    return make
