"""Each temperament chooses what its description says, in Cairn situations."""

from __future__ import annotations

import random
from typing import Any

from escaramuza.agents import HeuristicAgent
from escaramuza.rules.core import Action, ScriptedRoller, Status, new_battle
from escaramuza.rules.core.model import Condition
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.scenario import parse_scenario
from escaramuza.rules.core.state import BattleState

#   x(exit) — a — b — c(cover 1) — d(cover 2)
ZONES = [
    {"id": "x", "exit": True},
    {"id": "a"},
    {"id": "b"},
    {"id": "c", "cover": 1},
    {"id": "d", "cover": 2},
]
LINKS = [["x", "a"], ["a", "b"], ["b", "c"], ["c", "d"]]
SWORD = [{"name": "espada", "damage": "d6"}]
SLING = [{"name": "honda", "damage": "d6", "kind": "distancia"}, {"name": "daga", "damage": "d4"}]


def c(cid: str, side: str, zone: str, **kw: Any) -> dict[str, Any]:
    base = {
        "id": cid,
        "side": side,
        "zone": zone,
        "pi": 4,
        "fue": 10,
        "des": 10,
        "vol": 10,
        "weapons": SWORD,
    }
    return base | kw


def situation(*combatants: dict[str, Any]) -> BattleState:
    """The heroes declare first (no first-round DES save: no dice at the start)."""
    data = {
        "ruleset": "cairn",
        "options": {"first_round_save": False},
        "battlefield": {"zones": ZONES, "links": LINKS},
        "combatants": list(combatants),
    }
    return new_battle(parse_scenario(data, "t.yaml"), ScriptedRoller([]))


def pick(state: BattleState, temperament: str) -> Action:
    return HeuristicAgent(temperament).act(state, random.Random(0))


def declare(state: BattleState, action: Action) -> None:
    apply_action(state, action, ScriptedRoller([]))


def test_tactician_spreads_its_dice_but_the_brute_hits_the_nearest() -> None:
    state = situation(
        c("h1", "heroes", "a"),
        c("h2", "heroes", "a"),
        c("near", "enemies", "a"),
        c("next", "enemies", "b"),
    )
    declare(state, Action("atacar", "h1", target="near", item="espada"))
    # CA-06: a second d6 on "near" adds little; "next" (one zone away) is untouched.
    assert pick(state, "tactician") == Action("atacar", "h2", target="next", item="espada")
    assert pick(state, "brute") == Action("atacar", "h2", target="near", item="espada")


def test_brute_closes_in_as_far_as_it_can() -> None:
    state = situation(c("h", "heroes", "a"), c("e", "enemies", "d"))
    assert pick(state, "brute") == Action("mover", "h", zone="c")


def test_brute_takes_its_hardest_weapon_on_the_nearest() -> None:
    arms = [{"name": "daga", "damage": "d4"}, {"name": "hacha", "damage": "d10"}]
    state = situation(
        c("h", "heroes", "b", weapons=arms),
        c("e", "enemies", "b"),
        c("far", "enemies", "c", pi=0, fue=1),
    )
    assert pick(state, "brute") == Action("atacar", "h", target="e", item="hacha")
    assert pick(state, "tactician").target == "far"  # the sure kill, one step away


def test_cautious_shooter_leaves_the_melee_for_cover_within_range() -> None:
    state = situation(
        c("h", "heroes", "b", weapons=SLING), c("e", "enemies", "b"), c("f", "enemies", "a")
    )
    assert pick(state, "cautious") == Action("mover", "h", zone="d")  # cover 2, 2 hops from b
    assert pick(state, "brute").verb == "atacar"


def test_cautious_shoots_from_cover_rather_than_brawl() -> None:
    state = situation(c("h", "heroes", "d", weapons=SLING), c("e", "enemies", "c"))
    assert pick(state, "cautious") == Action("atacar", "h", target="e", item="honda")


def test_cautious_withdraws_towards_the_exit_when_hurt() -> None:
    state = situation(c("h", "heroes", "b", pi=4), c("e", "enemies", "b"))
    state.get("h").resources["pi"] = 1
    assert pick(state, "cautious") == Action("mover", "h", zone="x")  # CA-17: the way out
    assert pick(state, "tactician").verb == "atacar"


def test_cautious_shooter_without_an_exit_steps_away_from_blades_when_hurt() -> None:
    zones = [{"id": "a"}, {"id": "b"}, {"id": "c", "cover": 1}, {"id": "d", "cover": 2}]
    data = {
        "ruleset": "cairn",
        "options": {"first_round_save": False},
        "battlefield": {"zones": zones, "links": LINKS[1:]},
        "combatants": [c("h", "heroes", "b", weapons=SLING), c("e", "enemies", "b")],
    }
    state = new_battle(parse_scenario(data, "t.yaml"), ScriptedRoller([]))
    state.get("h").resources["fue"] = 9  # any FUE lost: the next blow risks Daño Crítico
    assert pick(state, "cautious") == Action("mover", "h", zone="d")
    # Once out of reach of the blade it shoots again.
    state.get("h").zone = "d"
    assert pick(state, "cautious") == Action("atacar", "h", target="e", item="honda")


def test_coward_flees_through_the_exit_when_its_side_breaks() -> None:
    state = situation(c("h", "heroes", "a"), c("h2", "heroes", "b"), c("e", "enemies", "b"))
    assert pick(state, "coward").verb != "huir"
    state.get("h2").status = Status.DEAD  # half the side is out: it breaks
    assert pick(state, "coward") == Action("huir", "h")
    assert pick(state, "brute").verb == "atacar"


def test_coward_runs_towards_the_exit_when_hurt() -> None:
    state = situation(c("h", "heroes", "c", pi=4), c("e", "enemies", "d"))
    state.get("h").resources["pi"] = 1
    assert pick(state, "coward") == Action("mover", "h", zone="a")  # two steps to the exit


def test_coward_fights_when_cornered() -> None:
    state = situation(c("h", "heroes", "d", pi=4), c("e", "enemies", "d"))
    h = state.get("h")
    h.resources["pi"] = 0
    h.conditions["desjarretado"] = Condition("desjarretado", persistent=True)  # CA-13: no moving
    assert pick(state, "coward") == Action("atacar", "h", target="e", item="espada")


def test_protector_engages_whoever_threatens_its_most_hurt_ally() -> None:
    state = situation(
        c("p", "heroes", "b"),
        c("ward", "heroes", "c", pi=4),
        c("bully", "enemies", "c", weapons=[{"name": "maza", "damage": "d10"}]),
        c("weak", "enemies", "b", pi=0, fue=1),
    )
    state.get("ward").resources["pi"] = 1
    assert pick(state, "protector") == Action("atacar", "p", target="bully", item="espada")
    assert pick(state, "tactician").target == "weak"


def test_protector_goes_to_the_threat_it_cannot_reach() -> None:
    state = situation(
        c("p", "heroes", "a"),
        c("ward", "heroes", "d", pi=4),
        c("bully", "enemies", "d"),
        c("other", "enemies", "a"),
    )
    state.get("ward").resources["pi"] = 2
    assert pick(state, "protector") == Action("mover", "p", zone="c")
    assert pick(state, "tactician").verb == "atacar"


def test_scenario_temperament_is_used_unless_the_agent_has_one() -> None:
    state = situation(
        c("h1", "heroes", "a"),
        c("h2", "heroes", "a", temperament="brute"),
        c("near", "enemies", "a"),
        c("next", "enemies", "b"),
    )
    declare(state, Action("atacar", "h1", target="near", item="espada"))
    assert HeuristicAgent().act(state, random.Random(0)).target == "near"
    assert HeuristicAgent("tactician").act(state, random.Random(0)).target == "next"
