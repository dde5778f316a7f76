"""Each temperament chooses what its description says, in Donjon situations."""

from __future__ import annotations

import random
from typing import Any

import pytest

from escaramuza.agents import HeuristicAgent
from escaramuza.rules.core import Action, ScriptedRoller, Status, new_battle
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.scenario import parse_scenario
from escaramuza.rules.core.state import BattleState

ZONES = ("a", "b", "c", "d", "e")  # a line: hop distance = letters apart
ESPADA = {"name": "espada", "damage": 1}
JABALINAS = {"name": "jabalinas", "kind": "arrojadiza", "damage": 1}
ARCO = {"name": "arco", "kind": "distancia", "damage": 2}
DAGA = {"name": "daga", "damage": 0}


def f(
    cid: str,
    side: str,
    zone: str,
    *,
    cel: int = 3,
    agu: int = 3,
    heridas: int = 5,
    weapons: list[dict[str, Any]] | None = None,
    **kw: Any,
) -> dict[str, Any]:
    return {
        "id": cid,
        "side": side,
        "zone": zone,
        "level": 1,
        "heridas": heridas,
        "attributes": {"celeridad": cel, "virilidad": 3, "aguante": agu, "discernimiento": 1},
        "weapons": weapons if weapons is not None else [ESPADA],
    } | kw


def situation(*fighters: dict[str, Any], first: str | None = None) -> BattleState:
    """``first`` (default: the first fighter) rolls 20, 1 for initiative; the others 2, 1."""
    data = {
        "ruleset": "donjon",
        "battlefield": {
            "zones": [{"id": z} for z in ZONES],
            "links": [[x, y] for x, y in zip(ZONES, ZONES[1:], strict=False)],
        },
        "combatants": list(fighters),
    }
    first = first or fighters[0]["id"]
    dice = [f"d20={x}" for g in fighters for x in ((20, 1) if g["id"] == first else (2, 1))]
    state = new_battle(parse_scenario(data, "t.yaml"), ScriptedRoller(dice))
    assert state.pending is not None and state.pending.actor == first
    return state


def pick(state: BattleState, temperament: str) -> Action:
    return HeuristicAgent(temperament).act(state, random.Random(0))


def hurt(state: BattleState, cid: str, heridas: int) -> None:
    state.by_id[cid].resources["heridas"] = heridas


TOUGH = {"agu": 6, "armour": 4, "skills": {"esquivar": 4}}


def test_brute_hits_the_nearest_but_the_tactician_the_likeliest_to_hurt() -> None:
    state = situation(
        f("h", "heroes", "a", weapons=[ESPADA, JABALINAS]),
        f("near", "enemies", "a", **TOUGH),
        f("far", "enemies", "b", cel=1, agu=1),
    )
    assert pick(state, "brute") == Action("atacar", "h", "near", item="espada")
    assert pick(state, "tactician") == Action("atacar", "h", "far", item="jabalinas")


def test_brute_closes_in() -> None:
    state = situation(f("h", "heroes", "a"), f("e", "enemies", "c"))
    assert pick(state, "brute") == Action("acercarse", "h", "e")


def test_cautious_keeps_its_best_range() -> None:
    # Its bow is its best weapon (a una acción); in contact it backs off rather than knife.
    state = situation(f("h", "heroes", "b", weapons=[ARCO, DAGA]), f("e", "enemies", "b"))
    assert pick(state, "cautious") == Action("alejarse", "h", "e")
    assert pick(state, "tactician") == Action("atacar", "h", "e", item="daga")


def test_cautious_withdraws_when_hurt() -> None:
    state = situation(f("h", "heroes", "b"), f("e", "enemies", "b"))
    hurt(state, "h", 2)
    assert pick(state, "cautious") == Action("alejarse", "h", "e")
    assert pick(state, "tactician").verb == "atacar"


def test_coward_leaves_the_battle_when_its_side_breaks() -> None:
    state = situation(f("h", "heroes", "c"), f("ally", "heroes", "a"), f("e", "enemies", "a"))
    assert pick(state, "coward").verb != "huir"
    state.by_id["ally"].status = Status.DEAD
    assert pick(state, "coward") == Action("huir", "h")
    assert pick(state, "brute") == Action("acercarse", "h", "e")


def test_coward_fights_when_cornered() -> None:
    # At the end of the line with the foe a una acción: no step away, no huir from there.
    state = situation(f("h", "heroes", "a", weapons=[JABALINAS]), f("e", "enemies", "b"))
    hurt(state, "h", 1)
    assert pick(state, "coward") == Action("atacar", "h", "e", item="jabalinas")


def _attacked(defender: dict[str, Any]) -> BattleState:
    state = situation(defender, f("e", "enemies", "a"), first="e")
    apply_action(state, Action("atacar", "e", "h", item="espada"), ScriptedRoller([]))
    assert state.pending is not None and state.pending.name == "defensa"
    return state


@pytest.mark.parametrize(
    ("temperament", "verb"), [("brute", "parar"), ("coward", "esquivar"), ("tactician", "esquivar")]
)
def test_defence_reaction_by_temperament(temperament: str, verb: str) -> None:
    # 2 parry (or dodge) dice against 3 attack dice: a counter is unlikely.
    state = _attacked(f("h", "heroes", "a", cel=2))
    assert pick(state, temperament).verb == verb


def test_tactician_parries_when_a_counter_is_likely() -> None:
    state = _attacked(f("h", "heroes", "a", cel=5, skills={"ataque": 4}))
    assert pick(state, "tactician").verb == "parar"


@pytest.mark.parametrize(
    ("temperament", "verb"), [("brute", "resistir"), ("coward", "dejar"), ("tactician", "dejar")]
)
def test_an_escape_from_contact_is_resisted_by_the_brute(temperament: str, verb: str) -> None:
    # 2 movement dice against 3: the tactician does not spend a number on a likely loss.
    state = situation(f("h", "heroes", "a", cel=2), f("e", "enemies", "a"), first="e")
    apply_action(state, Action("alejarse", "e", "h"), ScriptedRoller([]))
    assert state.pending is not None and state.pending.name == "resistir"
    assert pick(state, temperament).verb == verb


def _at_the_pause(hero_heridas: int, foe_heridas: int) -> BattleState:
    state = situation(f("h", "heroes", "a"), f("e", "enemies", "c"))
    while state.pending is not None and state.pending.name == "turn":
        apply_action(state, Action("esperar", state.pending.actor), ScriptedRoller([]))
    assert state.pending is not None and state.pending.name == "continuar"
    hurt(state, "h", hero_heridas)
    hurt(state, "e", foe_heridas)
    return state


@pytest.mark.parametrize(
    ("hero", "foe", "temperament", "verb"),
    [
        (2, 1, "coward", "retirarse"),  # ahead, but hurt: it goes
        (2, 1, "tactician", "continuar"),
        (5, 5, "cautious", "retirarse"),  # even is not good enough
        (5, 5, "tactician", "continuar"),
        (1, 5, "brute", "continuar"),  # behind, it fights on
    ],
)
def test_the_pause_by_temperament(hero: int, foe: int, temperament: str, verb: str) -> None:
    assert pick(_at_the_pause(hero, foe), temperament).verb == verb


def test_protector_strikes_the_foe_on_its_most_hurt_ally() -> None:
    state = situation(
        f("p", "heroes", "b", weapons=[ESPADA, JABALINAS]),
        f("ward", "heroes", "c"),
        f("bully", "enemies", "c", **TOUGH),
        f("weak", "enemies", "b", cel=1, agu=1),
    )
    hurt(state, "ward", 2)
    assert pick(state, "protector") == Action("atacar", "p", "bully", item="jabalinas")
    assert pick(state, "tactician").target == "weak"


def test_protector_closes_on_the_threat_it_cannot_reach() -> None:
    state = situation(
        f("p", "heroes", "a"),
        f("ward", "heroes", "c"),
        f("bully", "enemies", "c"),
        f("other", "enemies", "a", cel=1, agu=1),
    )
    hurt(state, "ward", 1)
    assert pick(state, "protector") == Action("acercarse", "p", "bully")
    assert pick(state, "tactician") == Action("atacar", "p", "other", item="espada")


def test_scenario_temperament_is_used_unless_the_agent_has_one() -> None:
    state = situation(
        f("h", "heroes", "a", weapons=[ESPADA, JABALINAS], temperament="brute"),
        f("near", "enemies", "a", **TOUGH),
        f("far", "enemies", "b", cel=1, agu=1),
    )
    assert HeuristicAgent().act(state, random.Random(0)).target == "near"
    assert HeuristicAgent("tactician").act(state, random.Random(0)).target == "far"
