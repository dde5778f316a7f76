"""``state_from_dict(…, scenario=…)``: a caller that already has the scenario (the web page
with an uploaded state file's YAML) loads the state without any file lookup."""

from __future__ import annotations

import json

import pytest

from escaramuza.gm import blank_battle
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.ruleset import new_battle
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.state_file import StateFileError, state_from_dict, state_to_dict


def test_given_scenario_is_used_instead_of_the_named_one() -> None:
    scenario = load_scenario("destiny_dice/emboscada")
    state = new_battle(scenario, RandomRoller(3))
    doc = json.loads(json.dumps(state_to_dict(state, {"seed": 3}, "x.json")))
    doc["scenario"] = "nowhere/not-a-file.yaml"  # would fail a lookup
    with pytest.raises(StateFileError, match="cannot load scenario"):
        state_from_dict(doc, "x.json")
    loaded, meta = state_from_dict(doc, "x.json", scenario=scenario)
    assert loaded.scenario is scenario and meta == {"seed": 3}
    assert state_to_dict(loaded, {"seed": 3}, "x.json") == dict(
        state_to_dict(state, {"seed": 3}, "x.json")
    )


def test_given_scenario_of_another_ruleset_is_refused() -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(3))
    doc = json.loads(json.dumps(state_to_dict(state, {}, "x.json")))
    wrong = "ruleset: 'destiny_dice' but the scenario is 'donjon'"
    with pytest.raises(StateFileError, match=wrong):
        state_from_dict(doc, "x.json", scenario=load_scenario("donjon/duelo"))


def test_blank_battle_holds_fresh_copies_and_no_initiative() -> None:
    scenario = load_scenario("donjon/duelo")
    state = blank_battle(scenario)
    assert state.pending is None and state.round == 0
    assert [c.id for c in state.combatants] == [c.id for c in scenario.combatants]
    assert all(a is not b for a, b in zip(state.combatants, scenario.combatants, strict=True))
