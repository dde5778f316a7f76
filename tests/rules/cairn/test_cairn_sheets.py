"""CA-19 *(ext)*: the stat blocks (armour at most 3, the typical foes as ``template``
blocks) and the shipped scenarios that use them (rules-notes.md, Cairn)."""

from __future__ import annotations

from typing import Any

import pytest

from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.scenario import load_scenario
from tests.rules.cairn.cairn_helpers import battle, fighter

# -- CA-19 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "block"),
    [
        ("goblin", (4, 0, 8, 12, 8, (6,))),
        ("bandit", (4, 1, 12, 12, 9, (6,))),
        ("bugbear", (8, 1, 14, 12, 11, (8,))),
    ],
)
def test_ca19_typical_stat_blocks(template: str, block: tuple[Any, ...]) -> None:
    state = battle(
        [fighter("h"), {"id": "m", "side": "enemies", "zone": "a", "template": template}]
    )
    m = state.get("m")
    got = (
        m.maxima["pi"],
        m.stats.armour,
        m.maxima["fue"],
        m.maxima["des"],
        m.maxima["vol"],
        m.stats.weapons[0].dice,
    )
    assert got == block


def test_ca19_armour_above_three_is_rejected() -> None:
    with pytest.raises(ScenarioError, match="armour"):
        battle([fighter("h", armour=4), fighter("e", "enemies")])


def test_ca19_shipped_goblins_use_the_typical_block() -> None:
    scenario = load_scenario("cairn/emboscada_goblin")
    goblins = [c for c in scenario.combatants if c.id.startswith("goblin")]
    assert len(goblins) == 6
    for g in goblins:
        assert (g.maxima["pi"], g.maxima["fue"], g.maxima["des"], g.maxima["vol"]) == (4, 8, 12, 8)
        assert not g.pc
