"""Builders for Destiny Dice test situations (imported by the test modules)."""

from __future__ import annotations

from typing import Any

from escaramuza.rules.core.scenario import Scenario, parse_scenario

ZONES = [{"id": z} for z in ("a", "b", "c", "d")]
LINKS = [["a", "b"], ["b", "c"], ["c", "d"]]


def hero(cid: str, zone: str = "a", **stats: Any) -> dict[str, Any]:
    base = {
        "id": cid,
        "side": "heroes",
        "zone": zone,
        "cuerpo": "d8",
        "mente": "d6",
        "alma": "d6",
        "pv": 16,
    }
    base.update(stats)
    return base


def enemy(cid: str, zone: str = "a", **stats: Any) -> dict[str, Any]:
    base = {
        "id": cid,
        "side": "enemies",
        "zone": zone,
        "cuerpo": "d6",
        "mente": "d6",
        "alma": "d4",
        "defensa": "d6",
        "pv": 10,
    }
    base.update(stats)
    return base


def scenario(
    *combatants: dict[str, Any],
    options: dict[str, Any] | None = None,
    zones: list[dict[str, Any]] | None = None,
    links: list[list[str]] | None = None,
    round_limit: int = 20,
) -> Scenario:
    data = {
        "name": "test",
        "ruleset": "destiny_dice",
        "options": options or {},
        "round_limit": round_limit,
        "battlefield": {"zones": zones or ZONES, "links": links if links is not None else LINKS},
        "combatants": list(combatants),
    }
    return parse_scenario(data, "test.yaml")
