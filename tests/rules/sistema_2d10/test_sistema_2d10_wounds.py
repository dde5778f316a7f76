"""S2-14 Aguante test, S2-15 GDF, and the tables files (S2-12/S2-13/S2-15 data)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.events import Rolled
from escaramuza.rules.core.model import Status
from escaramuza.rules.sistema_2d10.tables import default_tables_path, load_tables

# h hits e (pv 20) with 6+6+6 = 18, e lets it through, daño 1d10 = 10 at the torso.
BIG_HIT = ["d10=6", "d10=6", "d10=10", "d10=5"]


def _hit_e(
    t: Any,
    dice: list[str],
    foe: dict[str, Any] | None = None,
    extra: tuple[dict[str, Any], ...] = (),
) -> tuple[Any, Any]:
    fighters = [t.fighter("h", "heroes"), t.fighter("e", "enemies", **(foe or {})), *extra]
    scn = t.scenario(*fighters)
    init = t.HERO_FIRST + (["d10=1", "d10=2"] if extra else [])
    state, roller = t.start(scn, init + dice)
    t.act(state, roller, "atacar", target="e", item="espada", option="libre")
    t.act(state, roller, "no_defender")
    return state, roller


@pytest.mark.parametrize(
    ("aguante", "gdf", "status", "condition"),
    [
        (("d10=5", "d10=5"), (), Status.ACTIVE, ("aturdido_16", -2)),  # exactly 16: aturdido
        (("d10=5", "d10=6"), (), Status.ACTIVE, None),  # 17 > 16: resists
        (("d10=10", "d10=10"), (), Status.ACTIVE, None),  # crítico resists
        (("d10=4", "d10=5"), ("d10=9",), Status.DOWN, None),  # 15 < 16: GDF 9 inconsciente
        # pifia: GDF 6, the torso (BIG_HIT's location) incapacitado
        (("d10=1", "d10=1"), ("d10=6",), Status.ACTIVE, ("incapacitado_torso", -2)),
    ],
)
def test_s214_aguante_test_below_equal_above_sixteen(
    tools: Any,
    aguante: tuple[str, ...],
    gdf: tuple[str, ...],
    status: Status,
    condition: tuple[str, int] | None,
) -> None:
    state, roller = _hit_e(tools, BIG_HIT + list(aguante) + list(gdf))
    roller.assert_exhausted()
    e = state.get("e")
    assert e.resources["pv"] == 10  # "deberá restar el daño recibido" either way
    assert e.status is status
    if condition is None:
        assert not e.conditions
    else:
        assert (condition[0], e.conditions[condition[0]].value) == condition


@pytest.mark.parametrize(
    ("damage", "pv", "tested"), [(10, 20, True), (9, 20, False), (9, 18, True), (5, 9, True)]
)
def test_s214_only_when_half_or_more_of_current_pv_is_lost(
    tools: Any, damage: int, pv: int, tested: bool
) -> None:
    dice = ["d10=6", "d10=6", f"d10={damage}", "d10=5"] + (["d10=9", "d10=9"] if tested else [])
    state, roller = _hit_e(tools, dice, foe={"pv": pv})
    roller.assert_exhausted()
    assert state.get("e").resources["pv"] == pv - damage


def test_s214_aturdido_penalises_the_next_turn_then_ends(tools: Any) -> None:
    dice = BIG_HIT + ["d10=5", "d10=5", "d10=6", "d10=6"]  # stunned; e attacks with 12+6−2
    state, roller = _hit_e(tools, dice)
    assert state.pending.actor == "e" and state.get("e").has("aturdido_16")
    tools.act(state, roller, "atacar", target="h", item="espada", option="libre")
    roller.assert_exhausted()
    attack = [e for e in state.log if isinstance(e, Rolled) and e.what == "ataque"][-1]
    assert attack.total == 6 + 6 + 6 - 2
    assert state.pending.name == "active_defence"  # 16 still beats h's defensa pasiva


def test_s214_aturdido_removed_after_its_turn(tools: Any) -> None:
    state, roller = _hit_e(tools, BIG_HIT + ["d10=5", "d10=5"])
    tools.act(state, roller, "pasar")
    assert not state.get("e").has("aturdido_16")
    roller.assert_exhausted()


@pytest.mark.parametrize(
    ("face", "extra", "status", "condition"),
    [
        (1, (), Status.ACTIVE, ("aturdido", -2)),
        (3, (), Status.ACTIVE, ("aturdido", -2)),
        (4, (), Status.ACTIVE, ("sangrado", 1)),
        (5, (), Status.ACTIVE, ("sangrado", 1)),
        (6, (), Status.ACTIVE, ("incapacitado_torso", -2)),
        (7, (), Status.ACTIVE, ("incapacitado_torso", -2)),
        (8, (), Status.ACTIVE, ("derribado", 1)),
        (9, (), Status.DOWN, None),
        (10, ("d10=3",), Status.DOWN, ("moribundo", 3)),
    ],
)
def test_s215_gdf_default_table(
    tools: Any,
    face: int,
    extra: tuple[str, ...],
    status: Status,
    condition: tuple[str, int] | None,
) -> None:
    e2 = tools.fighter("e2", "enemies")
    dice = BIG_HIT + ["d10=4", "d10=5", f"d10={face}", *extra]
    state, roller = _hit_e(tools, dice, extra=(e2,))
    roller.assert_exhausted()
    e = state.get("e")
    assert e.status is status
    if condition is not None:
        assert e.conditions[condition[0]].value == condition[1]


def _gdf_state(tools: Any, face: int, foe: dict[str, Any] | None = None) -> tuple[Any, Any]:
    e2 = tools.fighter("e2", "enemies")
    return _hit_e(tools, BIG_HIT + ["d10=4", "d10=5", f"d10={face}"], foe=foe, extra=(e2,))


def test_s215_sangrado_costs_a_pv_each_turn(tools: Any) -> None:
    state, roller = _gdf_state(tools, 4)
    tools.act(state, roller, "pasar")  # e2
    assert state.pending.actor == "e"
    assert state.get("e").resources["pv"] == 9


def test_s215_derribado_loses_an_action_every_turn_until_healed(tools: Any) -> None:
    state, roller = _gdf_state(tools, 8, foe={"actions": 2})
    tools.act(state, roller, "pasar")  # e2
    e = state.get("e")
    assert state.pending.actor == "e" and e.resources["acciones"] == 1
    # "Los efectos indicados en la tabla duran hasta que el daño es sanado".
    tools.act(state, roller, "pasar")  # e
    tools.act(state, roller, "pasar")  # h, round 2
    tools.act(state, roller, "pasar")  # e2
    assert state.round == 2 and state.pending.actor == "e"
    assert e.resources["acciones"] == 1 and e.has("derribado")


def test_s215_incapacitado_penalises_attack_rolls(tools: Any) -> None:
    state, roller = _gdf_state(tools, 6)
    tools.act(state, roller, "pasar")  # e2
    assert state.ruleset.legal_actions(state)
    from escaramuza.rules.sistema_2d10.combat import defence_bonus, roll_penalty

    e = state.get("e")
    assert roll_penalty(e, "ataque") == -2
    assert roll_penalty(e, "aguante") == 0
    assert defence_bonus(state, e, "cuerpo_a_cuerpo") == 6 - 2


def test_s215_moribundo_dies_after_the_rolled_rounds(tools: Any) -> None:
    e2 = tools.fighter("e2", "enemies")
    state, roller = _hit_e(tools, BIG_HIT + ["d10=4", "d10=5", "d10=10", "d10=2"], extra=(e2,))
    roller.assert_exhausted()
    e = state.get("e")
    assert e.status is Status.DOWN
    # Round 1: e2 passes; round 2 starts (1 left), h and e2 pass; round 3 starts: dead.
    for _ in range(3):
        tools.act(state, roller, "pasar")
    assert state.round == 3
    assert e.status is Status.DEAD


# -- the tables files ---------------------------------------------------------------


def _default_data() -> dict[str, Any]:
    return yaml.safe_load(Path(default_tables_path()).read_text(encoding="utf-8"))


def test_s212_s213_s215_default_tables_are_marked_default() -> None:
    tables = load_tables()
    assert tables.default is True
    faces = [loc.name for loc in tables.location_by_face]
    assert faces == [
        "cabeza",
        "brazo_derecho",
        "brazo_izquierdo",
        "torso",
        "torso",
        "torso",
        "abdomen",
        "pierna_derecha",
        "pierna_izquierda",
        "punto_vital",
    ]
    assert [loc.multiplier for loc in tables.location_by_face] == [2, 1, 1, 1, 1, 1, 1, 1, 1, 3]
    assert dict(tables.aimed) == {
        "cabeza": -4,
        "brazo_derecho": -2,
        "brazo_izquierdo": -2,
        "torso": 0,
        "abdomen": -1,
        "pierna_derecha": -2,
        "pierna_izquierda": -2,
        "punto_vital": -6,
    }
    assert [g.effect for g in tables.gdf_by_face] == (
        ["aturdido"] * 3
        + ["sangrado"] * 2
        + ["incapacitado"] * 2
        + ["derribado", "inconsciente", "moribundo"]
    )


def _break_missing_face(d: dict[str, Any]) -> None:
    d["localizacion"] = [r for r in d["localizacion"] if r["tirada"] != "7"]


def _break_overlap(d: dict[str, Any]) -> None:
    d["gdf"][0]["tirada"] = "1-4"


@pytest.mark.parametrize(
    ("breaker", "field", "reason"),
    [
        (_break_missing_face, "localizacion", "faces 7 of the d10 are missing"),
        (_break_overlap, "gdf[1].tirada", "face 4 is already in another row"),
        (
            lambda d: d["localizacion"][0].update(lugar="cola"),
            "localizacion[0].lugar",
            "unknown location 'cola'",
        ),
        (
            lambda d: d["localizacion"][0].update(tirada="0-1"),
            "localizacion[0].tirada",
            "between 1 and 10",
        ),
        (
            lambda d: d["localizacion"][0].update(multiplicador=0),
            "localizacion[0].multiplicador",
            "greater than or equal to 1",
        ),
        (lambda d: d["ataque_apuntado"].update(ala=-2), "ataque_apuntado.ala", "unknown location"),
        (lambda d: d["ataque_apuntado"].update(torso=3), "ataque_apuntado.torso", "MS"),
        (lambda d: d["gdf"][0].update(valor=2), "gdf[0].valor", "MS from -10 to 0"),
        (lambda d: d["gdf"][5].update(dados="1d"), "gdf[5].dados", "not dice notation"),
        (lambda d: d["gdf"][0].update(efecto="explota"), "gdf[0].efecto", "Input should be"),
        (lambda d: d.update(extra=1), "extra", "unknown field"),
        (lambda d: d.pop("gdf"), "gdf", "required field is missing"),
    ],
)
def test_s215_malformed_tables_rejected_with_file_field_reason(
    tools: Any, tmp_path: Path, breaker: Any, field: str, reason: str
) -> None:
    data = _default_data()
    breaker(data)
    path = tmp_path / "rotas.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        tools.duel(options={"tables": str(path)})
    assert info.value.source == str(path)
    assert info.value.field == field
    assert reason in info.value.reason


@pytest.mark.parametrize(
    ("text", "field", "reason"),
    [
        ("- just\n- a list\n", "", "must be a YAML mapping"),
        ("a: [1, 2\n", "line", "YAML syntax error"),
    ],
)
def test_s215_unreadable_tables_file(
    tools: Any, tmp_path: Path, text: str, field: str, reason: str
) -> None:
    path = tmp_path / "mal.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        tools.duel(options={"tables": str(path)})
    assert info.value.source == str(path)
    assert info.value.field.startswith(field)
    assert reason in info.value.reason


def test_s212_missing_tables_file_and_relative_paths(
    tools: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ScenarioError) as info:
        tools.duel(options={"tables": str(tmp_path / "nope.yaml")})
    assert "no such tables file" in info.value.reason
    # A relative path is taken from the current directory when the scenario loads.
    (tmp_path / "t.yaml").write_text(
        Path(default_tables_path()).read_text(encoding="utf-8"), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    scn = tools.duel(options={"tables": "t.yaml"})
    assert scn.options.tables == str(tmp_path / "t.yaml")
