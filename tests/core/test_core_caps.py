"""Every bound of a scenario file refuses the value one past it, naming the field and the
bound, and accepts the bound itself (docs/scenario-format.md, "Bounds of values and
sizes"); dice expressions are bounded in ``parse_dice`` for every ruleset at once.

Each row starts from one valid minimal scenario of its ruleset and sets one field.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from escaramuza.day import load_day_file
from escaramuza.rules.core import dice
from escaramuza.rules.core.dice import DiceError, parse_dice
from escaramuza.rules.core.errors import Problem, ScenarioError
from escaramuza.rules.core.scenario import (
    MAX_COMBATANTS,
    MAX_ELEVATION,
    MAX_LINKS,
    MAX_ROUND_LIMIT,
    MAX_WEAPONS,
    MAX_ZONES,
    load_scenario,
    parse_scenario,
    parse_scenario_text,
    shipped_days,
    shipped_scenarios,
)
from escaramuza.rules.destiny_dice import sheets as dd
from escaramuza.rules.donjon import sheets as dj
from escaramuza.rules.sistema_2d10 import sheets as s2
from tests.scenario_texts import VALID

Doc = dict[str, Any]

MAP: Doc = {"zones": [{"id": "patio"}, {"id": "puerta"}], "links": [["patio", "puerta"]]}

BASES: dict[str, Doc] = {
    "destiny_dice": {
        "ruleset": "destiny_dice",
        "battlefield": MAP,
        "combatants": [
            {
                "id": "brann",
                "side": "heroes",
                "zone": "patio",
                "cuerpo": "d8",
                "mente": "d6",
                "alma": "d6",
                "pv": 12,
                "weapons": [{"name": "espada", "tier": "media"}],
                "heals": [{"name": "poción", "heal": "2d4", "uses": 2, "cost": {"pa": 1}}],
                "energy": {"pa": 4},
            },
            {
                "id": "saqueador",
                "side": "enemies",
                "zone": "puerta",
                "cuerpo": "d6",
                "mente": "d6",
                "alma": "d4",
                "defensa": "d6",
                "pv": 8,
                "weapons": [{"name": "hacha", "tier": "ligera"}],
            },
        ],
    },
    "donjon": {
        "ruleset": "donjon",
        "battlefield": MAP,
        "combatants": [
            {
                "id": "aldara",
                "side": "heroes",
                "zone": "patio",
                "level": 2,
                "heridas": 6,
                "attributes": {"celeridad": 4, "virilidad": 3, "aguante": 3, "discernimiento": 2},
                "weapons": [{"name": "espada", "damage": 2}],
            },
            {
                "id": "gorm",
                "side": "enemies",
                "zone": "puerta",
                "level": 2,
                "heridas": 7,
                "attributes": {"celeridad": 3, "virilidad": 4, "aguante": 3, "discernimiento": 2},
                "weapons": [{"name": "hacha", "damage": 2}],
            },
        ],
    },
    "cairn": {
        "ruleset": "cairn",
        "battlefield": MAP,
        "combatants": [
            {
                "id": "bryn",
                "side": "heroes",
                "zone": "patio",
                "pi": 5,
                "fue": 14,
                "des": 11,
                "vol": 9,
                "weapons": [{"name": "espada", "damage": "d8"}],
            },
            {"id": "bugbear", "side": "enemies", "zone": "puerta", "template": "bugbear"},
        ],
    },
    "sistema_2d10": {
        "ruleset": "sistema_2d10",
        "battlefield": MAP,
        "combatants": [
            {
                "id": side,
                "side": side,
                "zone": "patio",
                "pv": 30,
                "actions": 2,
                # Reflejos, sentidos and esquivar at 0, so that either of the two bounded
                # reaches its bound alone (S2-02 caps a pair's sum at the same 100).
                "attributes": {"reflejos": 0, "sentidos": 0, "aguante": 30, "destreza": 35},
                "skills": {"espada": 40, "esquivar": 0},
                "weapons": [
                    {
                        "name": "pistola",
                        "kind": "distancia",
                        "skill": "espada",
                        "attribute": "destreza",
                        "damage": "1d10+2",
                        "reach": 1,
                    }
                ],
            }
            for side in ("heroes", "enemies")
        ],
    },
}

Path = tuple[str | int, ...]


def build(ruleset: str, path: Path, value: Any) -> Doc:
    """The ruleset's base scenario with ``path`` set to ``value``."""
    doc = copy.deepcopy(BASES[ruleset])
    target: Any = doc
    for key in path[:-1]:
        if isinstance(key, str) and key not in target:
            target[key] = {}
        target = target[key]
    target[path[-1]] = value
    return doc


def field_of(path: Path) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else key)
    return out


def problems(doc: Doc) -> tuple[Problem, ...]:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(doc, "caps.yaml")
    return info.value.problems


def assert_refused(doc: Doc, field: str, reason: str) -> None:
    found = problems(doc)
    assert any(p.field == field and reason in p.reason for p in found), found


# -- numbers: (ruleset, path, bound); the bound loads, one past it is refused ----------------

C0 = ("combatants", 0)
UPPER: list[tuple[str, Path, int]] = [
    ("destiny_dice", ("round_limit",), MAX_ROUND_LIMIT),
    ("destiny_dice", ("battlefield", "zones", 0, "elevation"), MAX_ELEVATION),
    ("destiny_dice", ("battlefield", "zones", 0, "cover"), 2),
    ("destiny_dice", (*C0, "pv"), dd.MAX_PV),
    ("destiny_dice", (*C0, "armour"), dd.MAX_ARMOUR),
    ("destiny_dice", (*C0, "shield"), dd.MAX_ARMOUR),
    ("destiny_dice", (*C0, "energy_max"), dd.MAX_ENERGY),
    ("destiny_dice", (*C0, "energy", "pc"), dd.MAX_ENERGY),
    ("destiny_dice", (*C0, "energy", "pm"), dd.MAX_ENERGY),
    ("destiny_dice", (*C0, "energy", "pa"), dd.MAX_ENERGY),
    ("destiny_dice", (*C0, "weapons", 0, "bonus"), dd.MAX_WEAPON_BONUS),
    ("destiny_dice", (*C0, "heals", 0, "uses"), dd.MAX_HEAL_USES),
    ("destiny_dice", (*C0, "heals", 0, "cost", "pa"), dd.MAX_ENERGY),
    ("donjon", (*C0, "level"), dj.MAX_LEVEL),
    ("donjon", (*C0, "heridas"), dj.MAX_HERIDAS),
    *[("donjon", (*C0, "attributes", a), dj.MAX_ATTRIBUTE) for a in dj.ATTRIBUTES],
    *[("donjon", (*C0, "skills", s), dj.MAX_SKILL) for s in dj.Skills.model_fields],
    ("donjon", (*C0, "weapons", 0, "damage"), dj.MAX_SKILL),
    ("donjon", (*C0, "armour"), dj.MAX_SKILL),
    ("donjon", (*C0, "sorpresa"), dj.MAX_BONUS_DICE),
    ("donjon", ("options", "die_size"), dj.MAX_DIE_SIZE),
    *[
        ("donjon", ("options", "dificultades", k), dj.MAX_BONUS_DICE)
        for k in ("facil", "media", "dificil")
    ],
    ("cairn", (*C0, "pi"), 40),
    ("cairn", (*C0, "fue"), 20),
    ("cairn", (*C0, "des"), 20),
    ("cairn", (*C0, "vol"), 20),
    ("cairn", (*C0, "armour"), 3),
    ("cairn", (*C0, "weapons", 0, "reach"), 20),
    ("sistema_2d10", (*C0, "pv"), 999),
    ("sistema_2d10", (*C0, "ca"), 50),
    ("sistema_2d10", (*C0, "actions"), 3),
    ("sistema_2d10", (*C0, "extra_actions"), 3),
    ("sistema_2d10", (*C0, "dados_expres"), 10),
    ("sistema_2d10", (*C0, "dados_expres_max"), 10),
    ("sistema_2d10", (*C0, "attributes", "reflejos"), s2.MAX_SCORE),
    ("sistema_2d10", (*C0, "skills", "esquivar"), s2.MAX_SCORE),
    ("sistema_2d10", (*C0, "weapons", 0, "reach"), 10),
    ("sistema_2d10", ("options", "full_defence_bonus"), 10),
    ("sistema_2d10", ("options", "aguante_difficulty"), 40),
]

LOWER: list[tuple[str, Path, int]] = [
    ("destiny_dice", ("battlefield", "zones", 0, "elevation"), -MAX_ELEVATION),
    ("destiny_dice", (*C0, "weapons", 0, "bonus"), -dd.MAX_WEAPON_BONUS),
    ("destiny_dice", (*C0, "heals", 0, "cost", "pa"), 0),
    ("sistema_2d10", ("options", "stun_penalty"), -10),
]


def _ids(rows: list[tuple[str, Path, int]]) -> list[str]:
    return [f"{r}:{field_of(p)}" for r, p, _ in rows]


@pytest.mark.parametrize(("ruleset", "path", "bound"), UPPER, ids=_ids(UPPER))
def test_an_upper_bound_loads_and_one_more_is_refused(ruleset: str, path: Path, bound: int) -> None:
    parse_scenario(build(ruleset, path, bound), "caps.yaml")
    assert_refused(
        build(ruleset, path, bound + 1),
        field_of(path),
        f"Input should be less than or equal to {bound}",
    )


@pytest.mark.parametrize(("ruleset", "path", "bound"), LOWER, ids=_ids(LOWER))
def test_a_lower_bound_loads_and_one_less_is_refused(ruleset: str, path: Path, bound: int) -> None:
    parse_scenario(build(ruleset, path, bound), "caps.yaml")
    assert_refused(
        build(ruleset, path, bound - 1),
        field_of(path),
        f"Input should be greater than or equal to {bound}",
    )


def test_pv_current_is_bounded_like_pv() -> None:
    doc = build("destiny_dice", (*C0, "pv"), dd.MAX_PV)
    doc["combatants"][0]["pv_current"] = dd.MAX_PV
    parse_scenario(doc, "caps.yaml")
    doc["combatants"][0]["pv_current"] = dd.MAX_PV + 1
    assert_refused(
        doc, "combatants[0].pv_current", f"Input should be less than or equal to {dd.MAX_PV}"
    )


# -- sizes: (ruleset, path of the list or mapping, bound, n -> the value with n items) ---------


def _zones(n: int) -> list[Doc]:
    return [{"id": f"z{i}"} for i in range(n)]


def _ring(n: int) -> list[list[str]]:
    """``n`` distinct links over :data:`MAX_ZONES` zones: a ring, then rings of chords."""
    pairs = [
        sorted((f"z{i}", f"z{(i + step) % MAX_ZONES}"))
        for step in (1, 2, 3, 5, 7)
        for i in range(MAX_ZONES)
    ]
    unique = list(dict.fromkeys(tuple(p) for p in pairs))
    return [list(p) for p in unique[:n]]


def _battlefield(zones: int, links: int) -> Callable[[Doc], None]:
    def edit(doc: Doc) -> None:
        doc["battlefield"] = {"zones": _zones(zones), "links": _ring(links)}
        for c in doc["combatants"]:
            c["zone"] = "z0"

    return edit


def _combatants(ruleset: str, n: int) -> list[Doc]:
    hero, enemy = BASES[ruleset]["combatants"]
    out = []
    for i in range(n):
        sheet = copy.deepcopy(hero if i % 2 == 0 else enemy)
        sheet["id"] = f"c{i}"
        out.append(sheet)
    return out


def _dd_weapons(n: int) -> list[Doc]:
    return [{"name": f"arma{i}", "tier": "ligera"} for i in range(n)]


SIZES: list[tuple[str, Path, int, Callable[[int], Any], str]] = [
    ("destiny_dice", (*C0, "weapons"), MAX_WEAPONS, _dd_weapons, "List"),
    (
        "destiny_dice",
        (*C0, "heals"),
        dd.MAX_HEALS,
        lambda n: [{"name": f"cura{i}", "heal": "1d4"} for i in range(n)],
        "List",
    ),
    (
        "destiny_dice",
        (*C0, "conditions"),
        len(dd.CONDITIONS),
        lambda n: [{"name": "derribado"}] * n,
        "List",
    ),
    (
        "destiny_dice",
        (*C0, "weapons", 0, "bands"),
        len(dd.BANDS),
        lambda n: ["cuerpo_a_cuerpo"] * n,
        "List",
    ),
    ("destiny_dice", (*C0, "heals", 0, "bands"), len(dd.BANDS), lambda n: ["cerca"] * n, "List"),
    (
        "destiny_dice",
        (*C0, "heals", 0, "cures"),
        len(dd.PERSISTENT),
        lambda n: ["envenenado"] * n,
        "List",
    ),
    (
        "donjon",
        (*C0, "weapons"),
        MAX_WEAPONS,
        lambda n: [{"name": f"arma{i}", "damage": 1} for i in range(n)],
        "Tuple",
    ),
    (
        "cairn",
        (*C0, "weapons"),
        MAX_WEAPONS,
        lambda n: [{"name": f"arma{i}", "damage": "d6"} for i in range(n)],
        "List",
    ),
    (
        "sistema_2d10",
        (*C0, "weapons"),
        MAX_WEAPONS,
        lambda n: [
            {"name": f"arma{i}", "skill": "espada", "attribute": "destreza", "damage": "1d6"}
            for i in range(n)
        ],
        "List",
    ),
    (
        "sistema_2d10",
        (*C0, "attributes"),
        s2.MAX_SCORES,
        lambda n: {
            "reflejos": 30,
            "sentidos": 30,
            "aguante": 30,
            "destreza": 35,
            **{f"c{i}": 10 for i in range(n - 4)},
        },
        "Dictionary",
    ),
    (
        "sistema_2d10",
        (*C0, "skills"),
        s2.MAX_SCORES,
        lambda n: {f"h{i}": 10 for i in range(n)},
        "Dictionary",
    ),
]


@pytest.mark.parametrize(
    ("ruleset", "path", "bound", "make", "kind"),
    SIZES,
    ids=[f"{r}:{field_of(p)}" for r, p, *_ in SIZES],
)
def test_a_size_bound_loads_and_one_more_item_is_refused(
    ruleset: str, path: Path, bound: int, make: Callable[[int], Any], kind: str
) -> None:
    parse_scenario(build(ruleset, path, make(bound)), "caps.yaml")
    assert_refused(
        build(ruleset, path, make(bound + 1)),
        field_of(path),
        f"{kind} should have at most {bound} items",
    )


@pytest.mark.parametrize("ruleset", sorted(BASES))
def test_most_combatants_load_and_one_more_is_refused(ruleset: str) -> None:
    doc = copy.deepcopy(BASES[ruleset])
    doc["combatants"] = _combatants(ruleset, MAX_COMBATANTS)
    parse_scenario(doc, "caps.yaml")
    doc["combatants"] = _combatants(ruleset, MAX_COMBATANTS + 1)
    assert_refused(doc, "combatants", f"List should have at most {MAX_COMBATANTS} items")


def test_the_biggest_map_loads_and_one_more_zone_or_link_is_refused() -> None:
    doc = copy.deepcopy(BASES["destiny_dice"])
    _battlefield(MAX_ZONES, MAX_LINKS)(doc)
    parse_scenario(doc, "caps.yaml")
    _battlefield(MAX_ZONES, MAX_LINKS + 1)(doc)
    assert_refused(doc, "battlefield.links", f"List should have at most {MAX_LINKS} items")
    _battlefield(MAX_ZONES + 1, MAX_ZONES)(doc)
    assert_refused(doc, "battlefield.zones", f"List should have at most {MAX_ZONES} items")


def test_a_score_name_is_bounded() -> None:
    path = (*C0, "skills")
    long_name = "h" * s2.MAX_SCORE_NAME
    parse_scenario(build("sistema_2d10", path, {long_name: 10}), "caps.yaml")
    found = problems(build("sistema_2d10", path, {long_name + "h": 10}))
    assert any(
        p.field.startswith("combatants[0].skills")
        and f"at most {s2.MAX_SCORE_NAME} characters" in p.reason
        for p in found
    ), found


# -- dice expressions -----------------------------------------------------------------------


def padded(length: int) -> str:
    """``1d6+1`` written with spaces up to ``length`` characters (spaces are allowed)."""
    return "1d6+" + " " * (length - 5) + "1"


#: (text at the bound, text one past it, words of the refusal).
DICE: list[tuple[str | int, str | int, str]] = [
    (
        padded(dice.MAX_DICE_TEXT),
        padded(dice.MAX_DICE_TEXT + 1),
        f"at most {dice.MAX_DICE_TEXT} characters",
    ),
    (
        "+".join(["d6"] * dice.MAX_DICE_TERMS),
        "+".join(["d6"] * (dice.MAX_DICE_TERMS + 1)),
        f"at most {dice.MAX_DICE_TERMS} terms",
    ),
    (f"{dice.MAX_DICE}d6", f"{dice.MAX_DICE + 1}d6", f"dice count must be 1 to {dice.MAX_DICE}"),
    (
        f"10d6+{dice.MAX_DICE - 10}d4",
        f"10d6+{dice.MAX_DICE - 9}d4",
        f"at most {dice.MAX_DICE} dice in all",
    ),
    (
        f"d{dice.MAX_DIE_SIDES}",
        f"d{dice.MAX_DIE_SIDES + 1}",
        f"a die has 2 to {dice.MAX_DIE_SIDES} faces",
    ),
    (
        f"d6+{dice.MAX_DICE_MODIFIER}",
        f"d6+{dice.MAX_DICE_MODIFIER + 1}",
        f"a constant must be -{dice.MAX_DICE_MODIFIER} to {dice.MAX_DICE_MODIFIER}",
    ),
    (
        f"d6-{dice.MAX_DICE_MODIFIER}",
        f"d6-{dice.MAX_DICE_MODIFIER + 1}",
        f"a constant must be -{dice.MAX_DICE_MODIFIER} to {dice.MAX_DICE_MODIFIER}",
    ),
    (
        f"d6+{dice.MAX_DICE_MODIFIER // 2}+{dice.MAX_DICE_MODIFIER // 2}",
        f"d6+{dice.MAX_DICE_MODIFIER // 2}+{dice.MAX_DICE_MODIFIER // 2 + 1}",
        f"the modifier must be -{dice.MAX_DICE_MODIFIER} to {dice.MAX_DICE_MODIFIER}",
    ),
    (
        dice.MAX_DICE_MODIFIER,
        dice.MAX_DICE_MODIFIER + 1,
        f"a constant must be -{dice.MAX_DICE_MODIFIER} to {dice.MAX_DICE_MODIFIER}",
    ),
]


@pytest.mark.parametrize(("ok", "bad", "reason"), DICE, ids=[r for *_, r in DICE])
def test_a_dice_bound_parses_and_one_past_it_is_refused(
    ok: str | int, bad: str | int, reason: str
) -> None:
    parse_dice(ok).distribution()
    with pytest.raises(DiceError, match=reason):
        parse_dice(bad)


def test_the_longest_text_is_checked_before_it_is_read() -> None:
    # A whole file's worth of digits is refused by its length, not read as a number.
    with pytest.raises(DiceError, match=f"at most {dice.MAX_DICE_TEXT} characters, not"):
        parse_dice("1d6+" + "9" * 100_000)


def test_the_largest_expression_has_an_exact_distribution() -> None:
    text = "3d20kh2+3d20+3d20+3d20+3d20+3d20+2d20+1000"
    expr = parse_dice(text)
    dist = expr.distribution()
    assert (min(dist), max(dist)) == (expr.minimum, expr.maximum)
    assert sum(dist.values()) == pytest.approx(1.0)
    assert sum(term.count for term in expr.terms) == dice.MAX_DICE


@pytest.mark.parametrize(
    ("ruleset", "path", "text"),
    [
        ("sistema_2d10", (*C0, "weapons", 0, "damage"), "1d10+9000000000000000000"),
        ("sistema_2d10", (*C0, "weapons", 0, "damage"), "1d10+1001"),
        ("destiny_dice", (*C0, "heals", 0, "heal"), "2d4+9000000000000000000"),
    ],
    ids=["2d10_19_digits", "2d10_one_past", "dd_heal_19_digits"],
)
def test_the_loader_refuses_a_huge_dice_modifier(ruleset: str, path: Path, text: str) -> None:
    assert_refused(
        build(ruleset, path, text),
        field_of(path),
        f"a constant must be -{dice.MAX_DICE_MODIFIER} to {dice.MAX_DICE_MODIFIER}",
    )


@pytest.mark.parametrize(
    ("ruleset", "path"),
    [("sistema_2d10", (*C0, "weapons", 0, "damage")), ("destiny_dice", (*C0, "heals", 0, "heal"))],
    ids=["2d10_damage", "dd_heal"],
)
def test_a_dice_field_is_bounded_in_length(ruleset: str, path: Path) -> None:
    parse_scenario(build(ruleset, path, padded(dice.MAX_DICE_TEXT)), "caps.yaml")
    assert_refused(
        build(ruleset, path, padded(dice.MAX_DICE_TEXT + 1)),
        field_of(path),
        f"at most {dice.MAX_DICE_TEXT} characters",
    )


# -- the audit's values, through the file loader --------------------------------------------


@pytest.mark.parametrize("pv", ["1000000", "9000000000000000000"])
def test_the_loader_refuses_a_huge_pv(pv: str) -> None:
    text = VALID.replace("    pv: 12", f"    pv: {pv}")
    with pytest.raises(ScenarioError) as info:
        parse_scenario_text(text, "enorme.yaml")
    assert info.value.field == "combatants[0].pv"
    assert f"Input should be less than or equal to {dd.MAX_PV}" in info.value.reason
    assert str(info.value).startswith("enorme.yaml: combatants[0].pv: ")


def test_the_loader_refuses_a_19_digit_damage_modifier() -> None:
    doc = build("sistema_2d10", (*C0, "weapons", 0, "damage"), "1d10+9000000000000000000")
    with pytest.raises(ScenarioError) as info:
        parse_scenario(doc, "enorme.yaml")
    assert info.value.field == "combatants[0].weapons[0].damage"
    assert str(dice.MAX_DICE_MODIFIER) in info.value.reason


# -- what is shipped stays inside every bound ----------------------------------------------


@pytest.mark.parametrize("name", sorted(shipped_scenarios()))
def test_every_shipped_scenario_loads(name: str) -> None:
    assert load_scenario(name).combatants


@pytest.mark.parametrize("name", sorted(shipped_days()))
def test_every_shipped_day_loads(name: str) -> None:
    assert load_day_file(shipped_days()[name])
