"""Shared builders for the Cairn tests (small inline scenarios, scripted dice)."""

from __future__ import annotations

from typing import Any

from escaramuza.rules.core.dice import ScriptedRoller
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import Scenario, parse_scenario
from escaramuza.rules.core.state import BattleState

#: A line of zones a–b–c–d, c has cover 1, ``out`` (an exit) hangs off a.
ZONES: list[dict[str, Any]] = [
    {"id": "a"},
    {"id": "b"},
    {"id": "c", "cover": 1},
    {"id": "d", "cover": 2},
    {"id": "out", "exit": True},
]
LINKS: list[list[str]] = [["a", "b"], ["b", "c"], ["c", "d"], ["a", "out"]]
#: A thrown weapon whose damage is an Explosión (CA-09).
BOMB = {"name": "bomba", "damage": "d6", "kind": "distancia", "reach": 1, "blast": True}


def fighter(cid: str, side: str = "heroes", zone: str = "a", **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": cid,
        "side": side,
        "zone": zone,
        "pi": 4,
        "fue": 10,
        "des": 10,
        "vol": 10,
        "weapons": [{"name": "espada", "damage": "d6"}],
    }
    base.update(kw)
    return base


def scenario(
    combatants: list[dict[str, Any]],
    options: dict[str, Any] | None = None,
    zones: list[dict[str, Any]] | None = None,
    links: list[list[str]] | None = None,
    round_limit: int = 10,
) -> Scenario:
    opts = {"first_round_save": False}
    opts.update(options or {})
    data = {
        "name": "test",
        "ruleset": "cairn",
        "options": opts,
        "round_limit": round_limit,
        "battlefield": {"zones": zones or ZONES, "links": links or LINKS},
        "combatants": combatants,
    }
    return parse_scenario(data, "test.yaml")


def battle(
    combatants: list[dict[str, Any]], start_dice: list[Any] | None = None, **kw: Any
) -> BattleState:
    roller = ScriptedRoller(start_dice or [])
    state = new_battle(scenario(combatants, **kw), roller)
    roller.assert_exhausted()
    return state


def attack(state: BattleState, actor: str, target: str, item: str = "espada") -> Action:
    return Action("atacar", actor, target=target, item=item)


def play(state: BattleState, actions: list[Action], dice: list[Any]) -> list[Any]:
    """Declare ``actions`` in turn; the dice must be exactly those the resolution uses."""
    roller = ScriptedRoller(dice)
    events: list[Any] = []
    for a in actions:
        events.extend(apply_action(state, a, roller))
    roller.assert_exhausted()
    return events


def wait(cid: str) -> Action:
    return Action("esperar", cid)
