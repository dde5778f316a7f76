"""Builders for Destiny Dice test situations (imported by the test modules)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from escaramuza.rules.core.scenario import Scenario, parse_scenario

ZONES = [{"id": z} for z in ("a", "b", "c", "d")]
#: A shout that frightens at cerca (DD-19 Asustado, its source the shouter); not a shot.
GRITO = {
    "name": "grito",
    "tier": "ligera",
    "kind": "distancia",
    "bands": ["cerca"],
    "shoots": False,
    "inflicts": {"name": "asustado"},
}
LINKS = [["a", "b"], ["b", "c"], ["c", "d"]]


@st.composite
def dd_options(draw: st.DrawFn, cover_max: int) -> dict[str, Any]:
    """A generated scenario's options: every one Destiny Dice has, ``cover_defense`` up
    to ``cover_max``."""
    return {
        "ties_favor": draw(st.sampled_from(["attacker", "defender"])),
        "help_bonus": draw(st.integers(1, 2)),
        "jam_on_one": draw(st.booleans()),
        "cover_defense": draw(st.integers(0, cover_max)),
        "fumble_damage": draw(st.sampled_from(["always", "defence_wins"])),
    }


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
