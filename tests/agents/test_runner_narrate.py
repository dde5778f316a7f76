"""``play_battle(narrate=False)``: the playtests' quiet mode changes nothing but the narration."""

from __future__ import annotations

import pytest

from escaramuza.agents import make_agent
from escaramuza.agents.runner import play_battle
from escaramuza.playtest import record_battle
from escaramuza.rules.core.events import ActionTaken
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios


@pytest.mark.parametrize("name", shipped_scenarios())
@pytest.mark.parametrize("seed", [0, 7])
def test_quiet_battle_is_the_narrated_battle_without_action_lines(name: str, seed: int) -> None:
    scenario = load_scenario(name)

    def play(narrate: bool) -> list:
        agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("random")}
        return play_battle(scenario, agents, seed=seed, narrate=narrate)

    loud, quiet = play(True), play(False)
    taken = [e for e in loud.log if isinstance(e, ActionTaken)]
    assert taken, "a narrated battle logs each chosen action"
    assert not any(isinstance(e, ActionTaken) for e in quiet.log)
    assert [e for e in loud.log if not isinstance(e, ActionTaken)] == quiet.log
    assert loud.outcome == quiet.outcome
    # What a playtest keeps of a battle is the same whichever way it was played.
    assert record_battle(0, seed, loud) == record_battle(0, seed, quiet)
