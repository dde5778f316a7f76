"""S2-15 as corrected (rules-notes 2026-12-01): how long GDF effects last, S2-14's
exact-16 stun beside the GDF's, and incapacitado by the location of the blow (S2-12).

Every number below comes from the scripted dice and the conftest's stat block (every
MHC 6, defensa pasiva 16, Aguante test 2d10 + 6 vs 16), never from the engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.events import ConditionApplied, Rolled
from escaramuza.rules.core.model import Action
from escaramuza.rules.sistema_2d10.combat import defence_bonus, roll_penalty
from escaramuza.rules.sistema_2d10.tables import default_tables_path

MHC = 6
PASSIVE = 10 + MHC
#: h hits e (20 PV) with 6+6+6 = 18 ≥ 16; e lets it through.
HIT = ["d10=6", "d10=6"]
#: Aguante 4+5+6 = 15 < 16: a GDF roll follows.
FAIL = ["d10=4", "d10=5"]


def _last_attack_total(state: Any) -> int:
    return [e for e in state.log if isinstance(e, Rolled) and e.what == "ataque"][-1].total


def _applied(state: Any, name: str) -> ConditionApplied:
    return [e for e in state.log if isinstance(e, ConditionApplied) and e.condition == name][-1]


def _hit(
    t: Any,
    after_hit: list[str],
    hero: dict[str, Any] | None = None,
    foe: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
) -> tuple[Any, Any]:
    """h attacks e once (free attack), e takes the blow; ``after_hit`` = damage, location,
    Aguante, GDF… dice."""
    state, roller = t.start(t.duel(hero, foe, options), t.HERO_FIRST + HIT + after_hit)
    t.act(state, roller, "atacar", target="e", item="espada", option="libre")
    t.act(state, roller, "no_defender")
    return state, roller


def _e_attacks_h_blocks(t: Any, state: Any, roller: Any) -> None:
    t.act(state, roller, "atacar", target="h", item="espada", option="libre")
    t.act(state, roller, "defender")


# -- S2-15 duration: aturdido lasts until healed ---------------------------------------


def test_s215_gdf_aturdido_persists_past_the_next_turn(tools: Any) -> None:
    t = tools
    # Damage 10 at the torso (d10 5): 20 → 10 PV, Aguante fails, GDF 1 = aturdido −2.
    # e's turn 1: attack 6+6+6−2 = 16, h blocks with 10+10 (crítico); round 2: h passes,
    # e attacks again 6+6+6−2 = 16: still aturdido.
    dice = [
        "d10=10",
        "d10=5",
        *FAIL,
        "d10=1",
        "d10=6",
        "d10=6",
        "d10=10",
        "d10=10",
        "d10=6",
        "d10=6",
        "d10=10",
        "d10=10",
    ]
    state, roller = _hit(t, dice)
    e = state.get("e")
    assert e.conditions["aturdido"].until == "hasta_sanar"
    assert "until healed" in _applied(state, "aturdido").text
    _e_attacks_h_blocks(t, state, roller)
    assert _last_attack_total(state) == 6 + 6 + MHC - 2
    assert state.round == 2 and state.pending.actor == "h"
    assert e.conditions["aturdido"].value == -2  # survived the end of e's next turn
    t.act(state, roller, "pasar")
    _e_attacks_h_blocks(t, state, roller)
    roller.assert_exhausted()
    assert _last_attack_total(state) == 6 + 6 + MHC - 2
    assert e.has("aturdido")


def test_s214_exact_16_stuns_for_the_next_turn_only(tools: Any) -> None:
    t = tools
    # Aguante 5+5+6 = 16 exactly: aturdido for the next turn (option stun_penalty −3).
    dice = [
        "d10=10",
        "d10=5",
        "d10=5",
        "d10=5",
        "d10=9",
        "d10=9",
        "d10=10",
        "d10=10",
        "d10=9",
        "d10=9",
        "d10=10",
        "d10=10",
    ]
    state, roller = _hit(t, dice, options={"stun_penalty": -3})
    e = state.get("e")
    assert e.conditions["aturdido_16"].until == "siguiente_turno"
    assert "during their next turn" in _applied(state, "aturdido_16").text
    _e_attacks_h_blocks(t, state, roller)
    assert _last_attack_total(state) == 9 + 9 + MHC - 3
    assert not e.conditions  # over at the end of that turn
    t.act(state, roller, "pasar")  # h, round 2
    _e_attacks_h_blocks(t, state, roller)
    roller.assert_exhausted()
    assert _last_attack_total(state) == 9 + 9 + MHC


def _last_roll(state: Any, what: str) -> int:
    return [e for e in state.log if isinstance(e, Rolled) and e.what == what][-1].total


def test_s214_exact_16_stun_spares_the_rolls_before_its_bearers_turn(tools: Any) -> None:
    """ "quedará Aturdido durante el siguiente turno": not for the rest of the attacker's
    turn (e's active defence and its next Aguante test), then on e's turn, then over."""
    t = tools
    dice = [
        "d10=10",
        "d10=5",
        "d10=5",
        "d10=5",  # 10 at the torso: 20 → 10, Aguante 5+5+6 = 16 exactly
        "d10=6",
        "d10=6",
        "d10=6",
        "d10=6",  # h's attack 18; e's active defence 6+6+6 = 18 blocks it
        "d10=6",
        "d10=6",
        "d10=5",
        "d10=5",
        "d10=6",
        "d10=5",  # h's attack 18 lands (no defence left): 5 at the torso, 10 → 5, Aguante 17
        "d10=9",
        "d10=9",
        "d10=10",
        "d10=10",  # e's turn: attack 9+9+6−3 = 21, h blocks (crítico)
        "d10=9",
        "d10=9",
        "d10=10",
        "d10=10",  # round 2: e's attack 9+9+6, h blocks
    ]
    state, roller = _hit(t, dice, hero={"actions": 3}, options={"stun_penalty": -3})
    e = state.get("e")
    assert e.conditions["aturdido_16"].value == -3
    t.act(state, roller, "atacar", target="e", item="espada", option="libre")
    t.act(state, roller, "defender")
    assert _last_roll(state, "defensa") == 6 + 6 + MHC
    assert e.resources["pv"] == 10  # blocked
    t.act(state, roller, "atacar", target="e", item="espada", option="libre")
    assert e.resources["pv"] == 5
    assert _last_roll(state, "aguante") == 6 + 5 + MHC  # above 16: no GDF roll
    assert set(e.conditions) == {"aturdido_16"}
    assert state.pending.actor == "e"
    _e_attacks_h_blocks(t, state, roller)
    assert _last_attack_total(state) == 9 + 9 + MHC - 3
    assert not e.conditions
    t.act(state, roller, "pasar")  # h, round 2
    _e_attacks_h_blocks(t, state, roller)
    roller.assert_exhausted()
    assert _last_attack_total(state) == 9 + 9 + MHC
    assert "during their next turn" in _applied(state, "aturdido_16").text


@pytest.mark.parametrize(("penalty", "first_turn"), [(-2, -2), (-5, -5), (0, -2)])
def test_s214_s215_gdf_aturdido_and_exact_16_do_not_add_up(
    tools: Any, penalty: int, first_turn: int
) -> None:
    """The worse MS applies for the stunned turn; the GDF's −2 stays after it."""
    t = tools
    # h (2 actions): hit 1, 10 at the torso: 20 → 10, Aguante 15, GDF 1 aturdido −2.
    # Hit 2, 5 at the torso: 10 → 5 (half), Aguante 6+6+6−2 (aturdido) = 16: exact 16.
    dice = [
        "d10=10",
        "d10=5",
        *FAIL,
        "d10=1",
        "d10=6",
        "d10=6",
        "d10=5",
        "d10=5",
        "d10=6",
        "d10=6",
        "d10=9",
        "d10=9",
        "d10=10",
        "d10=10",  # e attacks, h blocks (crítico)
        "d10=9",
        "d10=9",
        "d10=10",
        "d10=10",
    ]  # round 2: again
    state, roller = _hit(t, dice, hero={"actions": 2}, options={"stun_penalty": penalty})
    t.act(state, roller, "atacar", target="e", item="espada", option="libre")
    t.act(state, roller, "no_defender")
    e = state.get("e")
    assert e.resources["pv"] == 5
    assert {n: c.value for n, c in e.conditions.items()} == {"aturdido": -2, "aturdido_16": penalty}
    assert "do not add up" in _applied(state, "aturdido_16").text
    assert state.pending.actor == "e"
    assert roll_penalty(e, "ataque") == first_turn
    _e_attacks_h_blocks(t, state, roller)
    assert _last_attack_total(state) == 9 + 9 + MHC + first_turn
    assert set(e.conditions) == {"aturdido"}
    t.act(state, roller, "pasar")  # h, round 2
    _e_attacks_h_blocks(t, state, roller)
    roller.assert_exhausted()
    assert _last_attack_total(state) == 9 + 9 + MHC - 2


# -- S2-15 incapacitado follows the location of the blow -------------------------------


@pytest.mark.parametrize(
    ("face", "damage", "location", "kind"),
    [
        (2, 10, "brazo_derecho", "arm"),
        (3, 10, "brazo_izquierdo", "arm"),
        (8, 10, "pierna_derecha", "leg"),
        (9, 10, "pierna_izquierda", "leg"),
        (1, 5, "cabeza", "other"),  # 5 × 2 = 10
        (5, 10, "torso", "other"),
        (7, 10, "abdomen", "other"),
        (10, 4, "punto_vital", "other"),  # 4 × 3 = 12
    ],
)
def test_s215_incapacitado_by_location(
    tools: Any, face: int, damage: int, location: str, kind: str
) -> None:
    t = tools
    # Damage, location, Aguante 15, GDF 6 = incapacitado (table MS −2).
    state, roller = _hit(t, [f"d10={damage}", f"d10={face}", *FAIL, "d10=6"])
    e = state.get("e")
    name = f"incapacitado_{location}"
    assert set(e.conditions) == {name}
    assert e.conditions[name].until == "hasta_sanar"
    # The seed: a leg ⇒ "No poder andar" and no MS; an arm ⇒ "luchar con la mano
    # contraria ... aplicando los MS pertinentes"; any other part ⇒ the MS (default).
    ms = 0 if kind == "leg" else -2
    text = _applied(state, name).text
    assert location in text and "until healed" in text
    assert ("cannot move" in text) is (kind == "leg")
    assert ("other hand" in text) is (kind == "arm")
    assert ("default reading" in text) is (kind == "other")
    assert state.pending.actor == "e"
    moves = [a for a in state.ruleset.legal_actions(state) if a.verb == "mover"]
    assert moves == ([] if kind == "leg" else [Action("mover", "e", zone="b")])
    assert defence_bonus(state, e, "cuerpo_a_cuerpo") == MHC + ms  # active defence
    assert roll_penalty(e, "aguante") == 0  # not the Aguante test
    roller.assert_exhausted()


@pytest.mark.parametrize(("face", "ms"), [(2, -2), (8, 0), (5, -2)])
def test_s215_incapacitado_attack_roll_by_location(tools: Any, face: int, ms: int) -> None:
    t = tools
    # e then attacks h: 6+6+6+MS; h lets it through (damage 1 at the torso).
    dice = ["d10=10", f"d10={face}", *FAIL, "d10=6", "d10=6", "d10=6", "d10=1", "d10=5"]
    state, roller = _hit(t, dice)
    t.act(state, roller, "atacar", target="h", item="espada", option="libre")
    t.act(state, roller, "no_defender")
    roller.assert_exhausted()
    assert _last_attack_total(state) == 6 + 6 + MHC + ms


def test_s215_same_part_twice_keeps_its_ms_two_parts_add_up(tools: Any) -> None:
    t = tools
    # h (3 actions) against e (16 PV): the right arm, the same arm again, then the torso,
    # each blow half or more of e's PV, each Aguante 15, each GDF incapacitado.
    state, roller = t.start(
        t.duel({"actions": 3}, {"pv": 16, "actions": 3}),
        t.HERO_FIRST
        # 16 → 8: arm, Aguante 15, GDF 6.
        + HIT
        + ["d10=8", "d10=2", *FAIL, "d10=6"]
        # 8 → 4: the same arm, GDF 7.
        + HIT
        + ["d10=4", "d10=2", *FAIL, "d10=7"]
        # 4 → 2: the torso, Aguante 15, GDF 6.
        + HIT
        + ["d10=2", "d10=5", *FAIL, "d10=6"],
    )
    for _ in range(3):
        t.act(state, roller, "atacar", target="e", item="espada", option="libre")
        t.act(state, roller, "no_defender")
    roller.assert_exhausted()
    e = state.get("e")
    assert e.resources["pv"] == 2
    assert {n: c.value for n, c in e.conditions.items()} == {
        "incapacitado_brazo_derecho": -2,
        "incapacitado_torso": -2,
    }
    assert roll_penalty(e, "ataque") == -4


# -- the tables file says how long ----------------------------------------------------


def _tables(tmp_path: Path, change: Any) -> str:
    data = yaml.safe_load(Path(default_tables_path()).read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "tablas.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return str(path)


def test_s215_default_table_lasts_until_healed() -> None:
    from escaramuza.rules.sistema_2d10.tables import load_tables

    assert {g.duration for g in load_tables().gdf_by_face} == {"hasta_sanar"}
    rows = yaml.safe_load(Path(default_tables_path()).read_text(encoding="utf-8"))["gdf"]
    assert all(r["duracion"] == "hasta_sanar" for r in rows)  # written out, not implied


def test_s215_tables_file_overrides_the_duration(tools: Any, tmp_path: Path) -> None:
    t = tools
    path = _tables(tmp_path, lambda d: d["gdf"][0].update(duracion="siguiente_turno"))
    # GDF 1 = aturdido, now for the next turn only.
    dice = ["d10=10", "d10=5", *FAIL, "d10=1", "d10=6", "d10=6", "d10=10", "d10=10"]
    state, roller = _hit(t, dice, options={"tables": path})
    e = state.get("e")
    assert e.conditions["aturdido"].until == "siguiente_turno"
    _e_attacks_h_blocks(t, state, roller)
    roller.assert_exhausted()
    assert _last_attack_total(state) == 6 + 6 + MHC - 2
    assert not e.conditions


def test_s215_omitted_duration_is_until_healed(tools: Any, tmp_path: Path) -> None:
    def drop(d: dict[str, Any]) -> None:
        for row in d["gdf"]:
            row.pop("duracion")

    path = _tables(tmp_path, drop)
    state, _ = _hit(tools, ["d10=10", "d10=2", *FAIL, "d10=6"], options={"tables": path})
    assert state.get("e").conditions["incapacitado_brazo_derecho"].until == "hasta_sanar"


@pytest.mark.parametrize(
    ("row", "value", "reason"),
    [
        (0, "un_rato", "unknown duration 'un_rato' (known: hasta_sanar, siguiente_turno)"),
        (4, "siguiente_turno", "inconsciente can only last hasta_sanar"),
        (5, "siguiente_turno", "moribundo can only last hasta_sanar"),
        (0, 3, "Input should be a valid string"),
    ],
)
def test_s215_malformed_duration_rejected_with_file_field_reason(
    tools: Any, tmp_path: Path, row: int, value: Any, reason: str
) -> None:
    path = _tables(tmp_path, lambda d: d["gdf"][row].update(duracion=value))
    with pytest.raises(ScenarioError) as info:
        tools.duel(options={"tables": path})
    assert info.value.source == path
    # The default file's rows: 0 aturdido, …, 4 inconsciente, 5 moribundo.
    assert info.value.field == f"gdf[{row}].duracion"
    assert reason in info.value.reason


@pytest.mark.parametrize("temperament", ["tactician", "brute", "cautious", "protector"])
def test_s215_heuristic_with_a_lame_leg_stays_put(tools: Any, temperament: str) -> None:
    """Out of reach with a leg incapacitado, no temperament tries to walk (S2-15)."""
    import random

    from escaramuza.agents.heuristics.sistema_2d10 import choose
    from escaramuza.rules.core.model import Condition

    t = tools
    state, _ = t.start(t.duel(foe={"zone": "c"}), t.HERO_FIRST)
    h = state.get("h")
    actions = state.ruleset.legal_actions(state)
    assert any(a.verb == "mover" for a in actions)
    assert choose(state, actions, random.Random(0), temperament).verb == "mover"
    h.conditions["incapacitado_pierna_izquierda"] = Condition(
        "incapacitado_pierna_izquierda", 0, until="hasta_sanar"
    )
    actions = state.ruleset.legal_actions(state)
    assert not any(a.verb == "mover" for a in actions)
    assert choose(state, actions, random.Random(0), temperament).verb in (
        "pasar",
        "defensa_completa",
    )


def test_s215_a_full_rest_is_narrated_in_the_battles_language(tools: Any) -> None:
    # The day's house rest ``full`` ends the GDF effects, "hasta que el daño es sanado", and
    # says so to a Spanish GM in Spanish.
    from escaramuza.rules.core.i18n import language
    from escaramuza.rules.core.model import Condition, Status
    from escaramuza.rules.sistema_2d10.recovery import heal_fully

    state, _ = tools.start(tools.duel(), tools.HERO_FIRST)
    h = state.get("h")
    h.resources["pv"] = 5
    h.conditions["sangrado"] = Condition("sangrado", 1, persistent=True)
    h.status = Status.DOWN
    with language("es"):
        texts = [e.text for e in heal_fully([h])]
    assert texts == ["h se cura: +15 PV.", "h ya no está sangrado.", "h vuelve a estar en pie."]
