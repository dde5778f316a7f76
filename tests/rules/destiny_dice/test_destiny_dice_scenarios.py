"""Every shipped Destiny Dice scenario loads and plays to the end, with invariants."""

from __future__ import annotations

import pytest

from escaramuza.agents import make_agent
from escaramuza.agents.runner import play_battle
from escaramuza.rules.core import Side, Status, load_scenario
from escaramuza.rules.core.events import ActionTaken
from escaramuza.rules.core.scenario import shipped_scenarios

NAMES = [n for n in shipped_scenarios() if n.startswith("destiny_dice/")]


def test_three_destiny_dice_scenarios_ship():
    assert {
        "destiny_dice/brann-vs-saqueador",
        "destiny_dice/kaspar-tiroteo",
        "destiny_dice/emboscada",
    } <= set(NAMES)
    ambush = load_scenario("destiny_dice/emboscada")
    sides = [c.side for c in ambush.combatants]
    assert (sides.count(Side.HEROES), sides.count(Side.ENEMIES)) == (4, 6)
    assert len(ambush.battlefield) >= 5
    assert any(c.stats.heals for c in ambush.combatants)


class Watching:
    """Delegates to an agent and records any decision handed to a combatant out of the fight."""

    def __init__(self, name: str) -> None:
        self.inner = make_agent(name)
        self.name = name
        self.out_of_fight: list[str] = []

    def act(self, state, rng):
        actor = state.acting
        if not actor.active:
            self.out_of_fight.append(actor.id)
        return self.inner.act(state, rng)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("agents", [("random", "random"), ("heuristic", "heuristic")])
def test_dd_scenario_plays_to_the_end(name, agents):
    sc = load_scenario(name)
    for seed in range(15):
        heroes, enemies = Watching(agents[0]), Watching(agents[1])
        state = play_battle(
            sc, {Side.HEROES: heroes, Side.ENEMIES: enemies}, seed=seed, validate=True
        )
        assert state.outcome is not None
        assert state.outcome.rounds <= sc.round_limit
        assert heroes.out_of_fight == [] and enemies.out_of_fight == []
        for c in state.combatants:
            for key, value in c.resources.items():
                assert 0 <= value <= c.maxima[key], (c.id, key)
            assert c.status is not Status.DOWN or not c.pc  # heroes wake at the end (DD-16)


def test_dd_same_seed_same_log():
    sc = load_scenario("destiny_dice/emboscada")
    agents = {Side.HEROES: make_agent("heuristic"), Side.ENEMIES: make_agent("random")}
    a = [e.to_json() for e in play_battle(sc, agents, seed=7).log]
    b = [e.to_json() for e in play_battle(sc, agents, seed=7).log]
    c = [e.to_json() for e in play_battle(sc, agents, seed=8).log]
    assert a == b and a != c
    assert sum(ActionTaken.__name__ in line for line in a) > 10
