"""``escaramuza migrate FILE…``: old-vocabulary files rewritten to the current names.

The old files are made here by renaming every stat-block key and value of a shipped file
back to a retired name (the vocabulary's tables read backwards, at the places the tables
name: a combatant's own keys and its weapons' keys), edited in the text so comments and
layout stay. Migrating must give back the shipped text byte for byte, a scenario the
loader builds equal to the shipped one, and the same battles.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from escaramuza.cli import main
from escaramuza.day import load_day_file
from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.scenario import (
    Scenario,
    load_scenario_file,
    parse_scenario_text,
    shipped_days,
    shipped_scenarios,
)
from escaramuza.rules.core.vocabulary import RETIRED_KEYS, RETIRED_VALUES
from escaramuza.state_file import state_from_dict

SHIPPED = shipped_scenarios()


# -- old files, made by reading the tables backwards -------------------------------------


def _mapping_items(node: Any) -> list[tuple[Any, Any]]:
    return list(node.value) if isinstance(node, yaml.MappingNode) else []


def _entry(node: Any, key: str) -> Any:
    return next((v for k, v in _mapping_items(node) if k.value == key), None)


def _old_key(place: str, key: str, value: Any, variant: int) -> tuple[str, str | None] | None:
    """A retired name of ``key`` (with ``value``) at ``place``: (old key, old value to write
    or None). Variant 0 takes the first plain rename the table has, variant 1 the last, and
    prefers a flag the table turns into this key and value (Cairn's ``ranged: true``)."""
    table = RETIRED_KEYS.get(place, {})
    if variant == 1 and isinstance(value, yaml.ScalarNode):
        flags = [old for old, new in table.items() if new == f"{key}: {value.value}"]
        if flags:
            return flags[0], "true"
    plain = [old for old, new in table.items() if new == key]
    if not plain:
        return None
    return (plain[0] if variant == 0 else plain[-1]), None


def _old_value(place: str, key: str, value: Any) -> str | None:
    table = RETIRED_VALUES.get(f"{place}.{key}" if place else key, {})
    if not isinstance(value, yaml.ScalarNode):
        return None
    return next((old for old, new in table.items() if new == value.value), None)


def age(text: str, variant: int = 0, blocks: str = "combatants") -> str:
    """``text`` with every key and value of its stat blocks (the list ``blocks``) that the
    vocabulary retired a name of written with that old name, in place."""
    return aged(text, variant, blocks)[0]


def aged(text: str, variant: int = 0, blocks: str = "combatants") -> tuple[str, int]:
    """:func:`age`'s text and how many keys and values it renamed."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    edits: list[tuple[int, int, str]] = []

    def rename(mapping: Any, place: str) -> None:
        for key_node, value_node in _mapping_items(mapping):
            old = _old_key(place, key_node.value, value_node, variant)
            if old is not None:
                edits.append((key_node.start_mark.index, key_node.end_mark.index, old[0]))
            if old is not None and old[1] is not None:
                edits.append((value_node.start_mark.index, value_node.end_mark.index, old[1]))
            else:
                old_value = _old_value(place, key_node.value, value_node)
                if old_value is not None:
                    start, end = value_node.start_mark.index, value_node.end_mark.index
                    edits.append((start, end, old_value))
            if key_node.value == "weapons" and place == "":
                for weapon in getattr(value_node, "value", []):
                    rename(weapon, "weapons")

    for block in getattr(_entry(root, blocks), "value", []):
        rename(block, "")
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text, len(edits)


def _same_scenario(got: Scenario, want: Scenario) -> None:
    """``got`` loads to ``want`` (its file's path and the map object aside)."""
    assert got.battlefield.zones == want.battlefield.zones
    assert sorted(got.battlefield.graph.edges(data=True)) == sorted(
        want.battlefield.graph.edges(data=True)
    )
    assert replace(got, source=want.source, battlefield=want.battlefield) == want


def _play(capsys: pytest.CaptureFixture[str], path: Path, seed: int) -> str:
    assert main(["play", str(path), "--seed", str(seed), "--json"]) == 0
    return capsys.readouterr().out


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], list[str]]:
    code = main(["migrate", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out.splitlines(), err.splitlines()


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _shipped_text(name: str) -> str:
    return Path(SHIPPED[name]).read_text(encoding="utf-8")


def _line(text: str, needle: str) -> int:
    assert needle in text, needle
    return text[: text.index(needle)].count("\n") + 1


# -- every shipped scenario, aged and migrated back ---------------------------------------


@pytest.mark.parametrize("variant", [0, 1])
@pytest.mark.parametrize("name", list(SHIPPED))
def test_an_aged_shipped_scenario_migrates_back_to_the_shipped_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, variant: int
) -> None:
    shipped = _shipped_text(name)
    old = age(shipped, variant)
    assert old != shipped
    path = tmp_path / Path(SHIPPED[name]).name
    path.write_text(old, encoding="utf-8")
    with pytest.raises(ScenarioError, match=" is now `"):
        load_scenario_file(path)

    code, out, err = _run(capsys, str(path))
    assert (code, err) == (0, [])
    assert out[-1] == f"{path}: migrated; the original is kept as {path}.bak"
    assert all(line.startswith(f"{path}:") and " is now `" in line for line in out[:-1])
    assert path.read_text(encoding="utf-8") == shipped  # comments, layout, quoting kept
    assert Path(f"{path}.bak").read_text(encoding="utf-8") == old
    _same_scenario(load_scenario_file(path), load_scenario_file(SHIPPED[name]))


@pytest.mark.parametrize("name", list(SHIPPED))
def test_a_migrated_scenario_plays_the_same_battles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    stem = Path(SHIPPED[name]).name
    (tmp_path / "shipped").mkdir()
    (tmp_path / "old").mkdir()
    original = tmp_path / "shipped" / stem
    shutil.copyfile(SHIPPED[name], original)
    migrated = tmp_path / "old" / stem
    migrated.write_text(age(_shipped_text(name), 1), encoding="utf-8")
    assert _run(capsys, str(migrated))[0] == 0
    for seed in (1, 7):
        want = _play(capsys, original, seed)
        assert want.count("\n") > 2
        assert _play(capsys, migrated, seed) == want


@pytest.mark.parametrize("name", list(SHIPPED))
def test_a_json_scenario_is_migrated_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    shipped = _shipped_text(name)
    path = tmp_path / (Path(SHIPPED[name]).stem + ".json")
    old = yaml.safe_load(age(shipped, 0))
    path.write_text(json.dumps(old, ensure_ascii=False, indent=4), encoding="utf-8")
    code, out, _ = _run(capsys, str(path))
    assert code == 0 and out[-1].startswith(f"{path}: migrated;")
    # Keys in their order, written as state files are: two spaces, UTF-8, a final newline.
    want = json.dumps(yaml.safe_load(shipped), ensure_ascii=False, indent=2) + "\n"
    assert path.read_text(encoding="utf-8") == want
    _same_scenario(load_scenario_file(path), load_scenario_file(SHIPPED[name]))


# -- YAML kept as it was written --------------------------------------------------------


OLD_WITH_COMMENTS = """\
# A duel written before the vocabulary changed.
name: viejo   # the name
ruleset: destiny_dice
battlefield:
  zones: [{id: patio}, {id: puerta, exit: true}]
  links: [[patio, puerta]]
combatants:
  - id: brann       # the hero
    side: heroes
    zone: patio
    cuerpo: d8
    mente: d6
    alma: d6
    pv: 16
    "armadura": 1   # quoted, and a comment after it
    'armas':
      # his sword
      - {'nombre': espada corta, tier: ligera, kind: "melee"}
  - &bandit
    id: saqueador
    side: enemies
    zone: puerta
    cuerpo: d6
    mente: d4
    alma: d4
    defensa: d6
    pv: 8
    armas:
      - {nombre: hacha, tier: media, tipo: melee}
  - <<: *bandit
    id: saqueador2
"""


def test_comments_quotes_anchors_and_merges_survive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "viejo.yaml"
    path.write_text(OLD_WITH_COMMENTS, encoding="utf-8")
    code, out, err = _run(capsys, str(path))
    assert (code, err) == (0, []), out
    want = (
        OLD_WITH_COMMENTS.replace('"armadura"', '"armour"')
        .replace("'armas'", "'weapons'")
        .replace("'nombre'", "'name'")
        .replace('"melee"', '"cuerpo_a_cuerpo"')
        .replace("    armas:", "    weapons:")
        .replace(
            "{nombre: hacha, tier: media, tipo: melee}",
            "{name: hacha, tier: media, kind: cuerpo_a_cuerpo}",
        )
    )
    assert path.read_text(encoding="utf-8") == want
    scenario = load_scenario_file(path)
    # The merged bandit has the anchor's renamed weapon too; the anchor was edited once.
    assert [c.id for c in scenario.combatants] == ["brann", "saqueador", "saqueador2"]
    assert scenario.combatants[2].data == scenario.combatants[1].data
    changed = [line for line in out if " is now `" in line]
    armadura = _line(OLD_WITH_COMMENTS, '"armadura"')
    assert f"{path}:{armadura}: combatants[0].armadura: `armadura` is now `armour`" in changed
    assert sum("tipo" in line for line in changed) == 1


def test_cairn_ranged_flags_become_the_kind_they_meant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = _shipped_text("cairn/duelo_bugbear")
    bow = "kind: distancia,"
    sword = "{name: espada larga, damage: d10}"
    assert bow in shipped and sword in shipped
    old = shipped.replace(bow, "ranged: true,").replace(
        sword, "{name: espada larga, damage: d10, ranged: false}"
    )
    path = tmp_path / "duelo.yaml"
    path.write_text(old, encoding="utf-8")
    code, out, _ = _run(capsys, str(path))
    assert code == 0
    text = path.read_text(encoding="utf-8")
    assert "ranged" not in text
    assert "{name: espada larga, damage: d10, kind: cuerpo_a_cuerpo}" in text
    assert "`ranged: true` is now `kind: distancia`" in "\n".join(out)
    _same_scenario(load_scenario_file(path), load_scenario_file(SHIPPED["cairn/duelo_bugbear"]))


def test_a_ranged_flag_that_is_not_a_boolean_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _shipped_text("cairn/duelo_bugbear").replace("kind: distancia,", "ranged: 3,")
    path = tmp_path / "duelo.yaml"
    path.write_text(old, encoding="utf-8")
    code, out, err = _run(capsys, str(path))
    assert code == 2 and out == []
    assert err == [
        f"escaramuza: error: {path}: combatants[0].weapons[1].ranged: `ranged` is 3: only "
        "`ranged: true` (`kind: distancia`) or `ranged: false` can be rewritten"
    ]
    assert _files(tmp_path) == {"duelo.yaml": old.encode("utf-8")}


# -- day files and state files ----------------------------------------------------------


@pytest.mark.parametrize("name", list(shipped_days()))
def test_a_day_files_heroes_are_migrated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    shipped = Path(shipped_days()[name]).read_text(encoding="utf-8")
    old = age(shipped, 0, blocks="heroes")
    assert old != shipped
    path = tmp_path / "jornada.day.yaml"
    path.write_text(old, encoding="utf-8")
    with pytest.raises(ScenarioError, match=" is now `"):
        load_day_file(path)
    code, out, _ = _run(capsys, str(path))
    assert code == 0 and out[-1] == f"{path}: migrated; the original is kept as {path}.bak"
    assert any(line.startswith(f"{path}:") and ": heroes[0]." in line for line in out)
    assert path.read_text(encoding="utf-8") == shipped
    assert load_day_file(path).heroes == load_day_file(shipped_days()[name]).heroes


def test_scenarios_are_migrated_before_the_day_that_plays_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = _shipped_text("donjon/duelo")
    (tmp_path / "duelo.yaml").write_text(age(scenario), encoding="utf-8")
    day_text = Path(shipped_days()["donjon/jornada"]).read_text(encoding="utf-8")
    day_text = day_text.replace("scenario: donjon/duelo", "scenario: duelo.yaml")
    day = tmp_path / "jornada.day.yaml"
    day.write_text(age(day_text, 1, blocks="heroes"), encoding="utf-8")
    # The day first: it is checked against its encounter once that is migrated.
    code, out, err = _run(capsys, str(day), str(tmp_path / "duelo.yaml"))
    assert (code, err) == (0, [])
    assert [line.split(":")[0] for line in out if ": migrated;" in line] == [
        str(tmp_path / "duelo.yaml"),
        str(day),
    ]
    assert day.read_text(encoding="utf-8") == day_text
    assert (tmp_path / "duelo.yaml").read_text(encoding="utf-8") == scenario
    load_day_file(day)


def _saved_state(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> Path:
    scenario = tmp_path / Path(SHIPPED[name]).name
    shutil.copyfile(SHIPPED[name], scenario)
    state = tmp_path / "batalla.json"
    assert main(["play", str(scenario), "--stop-after", "3", "--save-state", str(state)]) == 0
    capsys.readouterr()
    return state


def test_a_state_files_embedded_scenario_is_migrated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "sistema_2d10/duelo"
    state = _saved_state(tmp_path, capsys, name)
    shipped = _shipped_text(name)
    # As the web page saves a battle of an uploaded scenario: named by its file, which the
    # server never keeps, and carried as YAML.
    (tmp_path / "duelo.yaml").unlink()
    doc = json.loads(state.read_text(encoding="utf-8"))
    doc["scenario"] = "duelo.yaml"
    doc.setdefault("meta", {})["scenario_yaml"] = age(shipped)
    state.write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    old_bytes = state.read_bytes()

    code, out, err = _run(capsys, str(state))
    assert (code, err) == (0, []), out
    assert out[-1] == f"{state}: migrated; the original is kept as {state}.bak"
    assert all(line.startswith(f"{state}: meta.scenario_yaml:") for line in out[:-1])
    doc["meta"]["scenario_yaml"] = shipped
    assert state.read_text(encoding="utf-8") == json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    assert Path(f"{state}.bak").read_bytes() == old_bytes
    # It loads as the page loads it: the scenario it carries.
    scenario = parse_scenario_text(shipped, "duelo.yaml", default_name="duelo")
    battle, _ = state_from_dict(
        json.loads(state.read_text(encoding="utf-8")), str(state), scenario=scenario
    )
    assert battle.round >= 1


def test_a_state_file_naming_its_scenario_is_already_current(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "donjon/duelo"
    state = _saved_state(tmp_path, capsys, name)
    scenario = tmp_path / "duelo.yaml"
    scenario.write_text(age(_shipped_text(name)), encoding="utf-8")
    before = state.read_bytes()
    code, out, _ = _run(capsys, str(state), str(scenario))
    assert code == 0
    # The scenario first (a state file's check loads it), then the state file.
    assert f"{scenario}: migrated; the original is kept as {scenario}.bak" in out
    assert out[-1] == f"{state}: already current"
    assert state.read_bytes() == before and not Path(f"{state}.bak").exists()
    assert main(["validate", str(state)]) == 0
