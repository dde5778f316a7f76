"""Small builders for Donjon tests: fighters, line-shaped maps, scripted battles."""

from __future__ import annotations

from typing import Any

from escaramuza.rules.core.dice import ScriptedRoller
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import Scenario, parse_scenario
from escaramuza.rules.core.state import BattleState


def fighter(
    cid: str,
    side: str = "heroes",
    zone: str = "a",
    *,
    cel: int = 3,
    vir: int = 3,
    agu: int = 3,
    dis: int = 1,
    level: int = 1,
    heridas: int = 5,
    weapons: list[dict[str, Any]] | None = None,
    armour: int = 0,
    **extra: Any,
) -> dict[str, Any]:
    """A stat block; keyword ``skills``, ``pc``, ``sorpresa`` pass through."""
    out: dict[str, Any] = {
        "id": cid,
        "side": side,
        "zone": zone,
        "level": level,
        "heridas": heridas,
        "attributes": {"celeridad": cel, "virilidad": vir, "aguante": agu, "discernimiento": dis},
        "weapons": weapons if weapons is not None else [{"name": "espada", "damage": 1}],
        "armour": armour,
    }
    out.update(extra)
    return out


def scenario(
    *fighters: dict[str, Any],
    options: dict[str, Any] | None = None,
    round_limit: int = 20,
    zones: tuple[str, ...] = ("a", "b", "c", "d", "e"),
) -> Scenario:
    """A scenario on a line of zones a–b–c–d–e (hop distance = letters apart)."""
    data = {
        "name": "test",
        "ruleset": "donjon",
        "options": options or {},
        "round_limit": round_limit,
        "battlefield": {
            "zones": [{"id": z} for z in zones],
            "links": [[x, y] for x, y in zip(zones, zones[1:], strict=False)],
        },
        "combatants": list(fighters),
    }
    return parse_scenario(data, "<test>")


def d20(*faces: int) -> list[str]:
    return [f"d20={f}" for f in faces]


def begin(sc: Scenario, *initiative: list[int]) -> tuple[BattleState, ScriptedRoller]:
    """Start a battle with scripted initiative dice, one list per combatant in scenario order."""
    roller = ScriptedRoller([d for faces in initiative for d in d20(*faces)])
    state = new_battle(sc, roller)
    roller.assert_exhausted()
    return state, roller


def play(state: BattleState, dice: list[str], *actions: Action) -> list[Any]:
    """Apply ``actions`` with exactly ``dice`` scripted (fails on leftovers); return events."""
    roller = ScriptedRoller(dice)
    events: list[Any] = []
    for action in actions:
        events.extend(apply_action(state, action, roller))
    roller.assert_exhausted()
    return events


def act(
    verb: str,
    actor: str,
    target: str | None = None,
    item: str | None = None,
    option: str | None = None,
) -> Action:
    return Action(verb, actor, target, None, item, option)
