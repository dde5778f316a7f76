"""Bad scenario files are rejected with file, field path and reason: exit 2, no traceback.

Each row starts from one valid minimal Destiny Dice scenario and breaks one thing
(YAML syntax, unknown ruleset, unknown field, wrong type, a die that
is not a die, duplicate id, unknown zone, disconnected map, weapon above the
wielder's die requirement, empty side, a side nobody can fight for, missing file, not a mapping…).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from escaramuza.cli import main
from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.scenario import load_scenario_file
from tests.scenario_texts import VALID


def edit(old: str, new: str, count: int = 1) -> str:
    assert VALID.count(old) >= count, f"{old!r} is not in the valid scenario"
    return VALID.replace(old, new, count)


# Brann turned into an enemy (with the Defensa die enemies need): nobody is left on the heroes.
EMPTY_SIDE = edit("side: heroes", "side: enemies").replace(
    "    pv: 12", "    defensa: d8\n    pv: 12"
)

# (case id, file text, expected field path (None: the whole file), words of the reason)
CASES: list[tuple[str, str, str | None, str]] = [
    ("yaml_syntax", edit("- {id: patio}", "- {id: patio"), "line 8, column", "YAML syntax error"),
    ("yaml_tab", edit("  links:", "\tlinks:"), "line", "YAML syntax error"),
    (
        "control_character",
        edit("title: Mini duel", "title: Mini\x07duel"),
        "line 2, column 12",
        "YAML syntax error: character '\\x07' (U+0007) is not allowed in a YAML file",
    ),
    (
        "unknown_ruleset",
        edit("ruleset: destiny_dice", "ruleset: ajedrez"),
        "ruleset",
        "unknown ruleset 'ajedrez'",
    ),
    (
        "unknown_top_field",
        edit("round_limit: 10", "round_limit: 10\nclima: lluvia"),
        "clima",
        "unknown field",
    ),
    (
        "unknown_combatant_field",
        edit("    pv: 12", "    pv: 12\n    fuerza: d8"),
        "combatants[0].fuerza",
        "unknown field",
    ),
    (
        "unknown_weapon_field",
        edit("tier: media}", "tier: media, filo: 3}"),
        "combatants[0].weapons[0].filo",
        "unknown field",
    ),
    ("wrong_type_pv", edit("pv: 12", "pv: doce"), "combatants[0].pv", "valid integer"),
    (
        "wrong_type_round_limit",
        edit("round_limit: 10", "round_limit: pronto"),
        "round_limit",
        "valid integer",
    ),
    (
        "wrong_type_zones",
        edit("  zones:\n    - {id: patio}\n    - {id: puerta}", "  zones: patio"),
        "battlefield.zones",
        "valid list",
    ),
    ("die_not_a_die", edit("cuerpo: d8", "cuerpo: d7"), "combatants[0].cuerpo", "not a single die"),
    (
        "die_is_an_expression",
        edit("mente: d6", "mente: 2d6"),
        "combatants[0].mente",
        "not a single die",
    ),
    (
        "duplicate_id",
        edit("id: saqueador", "id: brann"),
        "combatants[1].id",
        "duplicate combatant id 'brann'",
    ),
    (
        "unknown_zone_combatant",
        edit("zone: puerta", "zone: tejado"),
        "combatants[1].zone",
        "unknown zone 'tejado'",
    ),
    (
        "unknown_zone_link",
        edit("[patio, puerta]", "[patio, tejado]"),
        "battlefield",
        "unknown zone 'tejado'",
    ),
    (
        "disconnected_map",
        edit("    - {id: puerta}", "    - {id: puerta}\n    - {id: torre}"),
        "battlefield",
        "disconnected",
    ),
    (
        "heavy_weapon_below_d8",
        edit("{name: espada corta, tier: media}", "{name: mandoble, tier: pesada}").replace(
            "cuerpo: d8", "cuerpo: d6", 1
        ),
        "combatants[0].weapons[0].tier",
        "needs Cuerpo d8",
    ),
    (
        "ranged_weapon_above_mente",
        edit(
            "{name: hacha, tier: ligera}",
            "{name: ballesta, tier: pesada, kind: distancia, bands: [cerca, lejos]}",
        ).replace("cuerpo: d6", "cuerpo: d8", 1),
        "combatants[1].weapons[0].tier",
        "needs Mente d8",
    ),
    ("empty_side", EMPTY_SIDE, "combatants", "the heroes side is empty"),
    (
        # Brann starts down: the heroes have lost before the first turn.
        "heroes_cannot_fight",
        edit("    pv: 12", "    pv: 12\n    pv_current: 0"),
        "combatants",
        "nobody on the heroes side can fight",
    ),
    (
        "enemies_cannot_fight",
        edit("    pv: 8", "    pv: 8\n    pv_current: 0"),
        "combatants",
        "nobody on the enemies side can fight",
    ),
    (
        "unknown_side",
        edit("side: enemies", "side: villains"),
        "combatants[1].side",
        "'heroes' or 'enemies'",
    ),
    ("missing_field", edit("    pv: 12\n", ""), "combatants[0].pv", "required field is missing"),
    (
        "enemy_without_defensa",
        edit("    defensa: d6\n", ""),
        "combatants[1].defensa",
        "Defensa die",
    ),
    (
        "bad_option",
        edit("round_limit: 10", "round_limit: 10\noptions: {ties_favor: nadie}"),
        "options.ties_favor",
        "'attacker' or 'defender'",
    ),
    (
        "unknown_option",
        edit("round_limit: 10", "round_limit: 10\noptions: {critico: true}"),
        "options.critico",
        "unknown field",
    ),
    (
        "cover_out_of_range",
        edit("- {id: patio}", "- {id: patio, cover: 3}"),
        "battlefield.zones[0].cover",
        "less than or equal to 2",
    ),
    (
        "unknown_temperament",
        edit("    pv: 8", "    pv: 8\n    temperament: berserker"),
        "combatants[1].temperament",
        "unknown temperament 'berserker'",
    ),
    ("not_a_mapping", "- just\n- a list\n", None, "must be a YAML mapping"),
    ("empty_file", "", None, "must be a YAML mapping"),
]


@pytest.mark.parametrize(
    ("text", "field", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_scenario_is_rejected_by_the_cli(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    text: str,
    field: str | None,
    reason: str,
) -> None:
    path = tmp_path / "malo.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["play", str(path), "--heroes", "random", "--enemies", "random"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("escaramuza: error: ") and err.count("\n") == 1
    assert str(path) in err
    if field is not None:
        assert f"{path}: {field}" in err
    assert reason in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "field", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_scenario_error_carries_structured_fields(
    tmp_path: Path, text: str, field: str | None, reason: str
) -> None:
    path = tmp_path / "malo.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario_file(path)
    assert info.value.source == str(path)
    assert info.value.field.startswith(field or "")
    assert reason in info.value.reason


def test_the_valid_base_scenario_loads(tmp_path: Path) -> None:
    path = tmp_path / "mini.yaml"
    path.write_text(VALID, encoding="utf-8")
    scenario = load_scenario_file(path)
    assert [c.id for c in scenario.combatants] == ["brann", "saqueador"]


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: p / "no-existe.yaml", "no scenario file or shipped scenario named"),
        (lambda p: p, "is a directory"),
    ],
    ids=["missing_file", "directory"],
)
def test_missing_or_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, reason: str
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    assert main(["play", str(path)]) == 2
    _, err = capsys.readouterr()
    assert err.startswith("escaramuza: error: ") and str(path) in err and reason in err
    assert "Traceback" not in err


def test_not_utf8_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(VALID.replace("Mini duel", "Duelo en el puñal").encode("latin-1"))
    assert main(["play", str(path)]) == 2
    _, err = capsys.readouterr()
    assert f"{path}: not UTF-8 text" in err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (edit("cuerpo: d8", "cuerpo: d7"), "combatants[0].cuerpo"),
        (EMPTY_SIDE, "the heroes side is empty"),
    ],
    ids=["die_not_a_die", "empty_side"],
)
def test_bad_scenario_in_a_real_process(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "malo.yaml"
    path.write_text(text, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "escaramuza", "play", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"escaramuza: error: {path}: ")
    assert expected in proc.stderr and "Traceback" not in proc.stderr
