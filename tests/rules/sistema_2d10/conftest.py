"""Helpers for the Sistema 2d10 tests: tiny scenarios built in code, scripted battles."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from escaramuza.rules.core.dice import ScriptedRoller
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import Scenario, parse_scenario
from escaramuza.rules.core.state import BattleState

# Scores chosen so every MHC is 6: attack (espada 30 + destreza 30), defence (esquivar 30 +
# reflejos 30 ⇒ defensa pasiva 16), Aguante (30 + 30), initiative (30 + 30).
BASE: dict[str, Any] = {
    "zone": "a",
    "pv": 20,
    "actions": 1,
    "dados_expres": 0,
    "ca": 0,
    "attributes": {"reflejos": 30, "sentidos": 30, "aguante": 30, "destreza": 30},
    "skills": {"espada": 30, "esquivar": 30, "cubrir": 20, "resistencia_al_dolor": 30},
    "weapons": [{"name": "espada", "skill": "espada", "attribute": "destreza", "damage": "1d10"}],
}


def fighter(cid: str, side: str, **over: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data.update(id=cid, side=side)
    data.update(over)
    return data


def scenario(
    *fighters: dict[str, Any], options: dict[str, Any] | None = None, round_limit: int = 20
) -> Scenario:
    data = {
        "name": "test",
        "ruleset": "sistema_2d10",
        "round_limit": round_limit,
        "options": options or {},
        "battlefield": {
            "zones": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
            "links": [["a", "b"], ["b", "c"]],
        },
        "combatants": list(fighters),
    }
    return parse_scenario(data, "test.yaml")


def duel(
    hero: dict[str, Any] | None = None,
    foe: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
) -> Scenario:
    return scenario(
        fighter("h", "heroes", **(hero or {})),
        fighter("e", "enemies", **(foe or {})),
        options=options,
    )


#: Initiative dice so that ``h`` (26) acts before ``e`` (8).
HERO_FIRST = ["d10=10", "d10=10", "d10=1", "d10=1"]


def start(scn: Scenario, dice: list[Any]) -> tuple[BattleState, ScriptedRoller]:
    roller = ScriptedRoller(dice)
    return new_battle(scn, roller), roller


def run_out() -> tuple[Scenario, BattleState, ScriptedRoller]:
    """S2-05's side: h (three Dados Exprés, two actions) on its first turn, with h2, who
    holds none, and h3, who holds one of its three; e against them."""
    scn = scenario(
        fighter("h", "heroes", dados_expres=3, actions=2),
        fighter("h2", "heroes"),
        fighter("h3", "heroes", dados_expres=1),
        fighter("e", "enemies"),
    )
    return (scn, *start(scn, ["d10=10", "d10=10"] + ["d10=1"] * 6))


def act(state: BattleState, roller: ScriptedRoller, verb: str, **kw: Any) -> list[Any]:
    assert state.pending is not None
    return apply_action(state, Action(verb, state.pending.actor, **kw), roller)


@pytest.fixture
def tools() -> Any:
    class Tools:
        fighter = staticmethod(fighter)
        scenario = staticmethod(scenario)
        duel = staticmethod(duel)
        start = staticmethod(start)
        act = staticmethod(act)
        run_out = staticmethod(run_out)
        HERO_FIRST = list(globals()["HERO_FIRST"])

    return Tools
