"""A bad scenario is refused in the user's language, and the reason quotes what was written.

Each file is a shipped scenario with one thing broken, written to ``tmp_path``; ``play``
reads it with ``--lang en`` and ``--lang es`` and must exit 2 with the file, the field and
a reason in that language that echoes the bad value (``'catorce'``, ``'enorme'``). The
Spanish reason must not carry the English one (nor pydantic's words).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from escaramuza.cli import main
from escaramuza.rules.core.i18n import language
from escaramuza.rules.core.vocabulary import Retired, says_retired

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def shipped(name: str) -> str:
    return (SCENARIOS / f"{name}.yaml").read_text(encoding="utf-8")


#: Brann (heroes, first combatant) against the Saqueador: Destiny Dice's duel.
DUEL = shipped("destiny_dice/brann-vs-saqueador")


def edit(text: str, old: str, new: str) -> str:
    assert old in text, f"{old!r} is not in the scenario"
    return text.replace(old, new, 1)


def play(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, lang: str) -> str:
    """``play``'s error line for ``text`` in ``lang`` (the command must exit 2)."""
    path = tmp_path / "malo.yaml"
    path.write_text(text, encoding="utf-8")
    code = main(["play", str(path), "--lang", lang, "--heroes", "random", "--enemies", "random"])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == ""
    assert err.startswith(f"escaramuza: error: {path}: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


# -- the command line, both languages -------------------------------------------------------

#: (case, file text, field, English reason, Spanish reason)
CLI_CASES: list[tuple[str, str, str, str, str]] = [
    (
        "not_a_number",
        edit(DUEL, "pv: 16", "pv: catorce"),
        "combatants[0].pv",
        "Input should be a valid integer, not 'catorce'",
        "'catorce' no es un número entero",
    ),
    (
        "tier_typo",
        edit(DUEL, "{name: espada corta, tier: media}", "{name: espada corta, tier: enorme}"),
        "combatants[0].weapons[0].tier",
        "Input should be 'desarmado', 'ligera', 'media' or 'pesada', not 'enorme'",
        "debe ser 'desarmado', 'ligera', 'media' o 'pesada', no 'enorme'",
    ),
    (
        "side_typo",
        edit(DUEL, "side: enemies", "side: enorme"),
        "combatants[1].side",
        "Input should be 'heroes' or 'enemies', not 'enorme'",
        "debe ser 'heroes' o 'enemies', no 'enorme'",
    ),
    (
        "unknown_key",
        edit(DUEL, "    pv: 16\n", "    pv: 16\n    fuerza: d8\n"),
        "combatants[0].fuerza",
        "unknown field",
        "campo desconocido",
    ),
    (
        "missing_key",
        edit(DUEL, "    pv: 16\n", ""),
        "combatants[0].pv",
        "required field is missing",
        "falta este campo obligatorio",
    ),
    (
        "out_of_range",
        edit(DUEL, "round_limit: 20", "round_limit: 99"),
        "round_limit",
        "Input should be less than or equal to 50, not 99",
        "debe ser menor o igual que 50, no 99",
    ),
    (
        "below_range",
        edit(DUEL, "pv: 16", "pv: 0"),
        "combatants[0].pv",
        "Input should be greater than or equal to 1, not 0",
        "debe ser mayor o igual que 1, no 0",
    ),
    (
        "not_a_die",
        edit(DUEL, "cuerpo: d8", "cuerpo: d7"),
        "combatants[0].cuerpo",
        "'d7' is not a single die (one of d2, d3, d4, d6, d8, d10, d12, d20)",
        "'d7' no es un solo dado (uno de d2, d3, d4, d6, d8, d10, d12, d20)",
    ),
]


@pytest.mark.parametrize(
    ("text", "field", "english", "spanish"),
    [case[1:] for case in CLI_CASES],
    ids=[case[0] for case in CLI_CASES],
)
def test_play_refuses_a_bad_file_in_each_language(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    text: str,
    field: str,
    english: str,
    spanish: str,
) -> None:
    err = play(tmp_path, capsys, text, "en")
    assert f"malo.yaml: {field}: {english}" in err
    assert spanish not in err
    err = play(tmp_path, capsys, text, "es")
    assert f"malo.yaml: {field}: {spanish}" in err
    assert english not in err
    assert "Input should" not in err and "(line " not in err


def test_the_line_and_the_did_you_mean_follow_the_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = edit(DUEL, "armour: 1", "armuor: 1")
    line = text.splitlines().index("    armuor: 1") + 1
    err = play(tmp_path, capsys, text, "en")
    assert f"combatants[1].armuor: unknown field, did you mean 'armour'? (line {line})\n" in err
    err = play(tmp_path, capsys, text, "es")
    assert (
        f"combatants[1].armuor: campo desconocido, ¿querías decir 'armour'? (línea {line})\n" in err
    )
    assert "did you mean" not in err


@pytest.mark.parametrize(
    ("broken", "english", "spanish"),
    [
        (
            1,
            "(and 1 more problem; `escaramuza validate {path}` lists them all)",
            "(y 1 problema más;",
        ),
        (
            2,
            "(and 2 more problems; `escaramuza validate {path}` lists them all)",
            "(y 2 problemas más; `escaramuza validate {path}` los lista todos)",
        ),
    ],
)
def test_the_count_of_the_other_problems_is_in_each_language(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    broken: int,
    english: str,
    spanish: str,
) -> None:
    text = edit(DUEL, "pv: 16", "pv: catorce")
    text = edit(text, "pv: 10", "pv: diez")
    if broken == 2:
        text = edit(text, "round_limit: 20", "round_limit: pronto")
    path = tmp_path / "malo.yaml"
    err = play(tmp_path, capsys, text, "en")
    assert english.format(path=path) in err
    err = play(tmp_path, capsys, text, "es")
    assert spanish.format(path=path) in err
    assert "more problem" not in err


@pytest.mark.parametrize(
    ("lang", "reason"), [("en", "`armas` is now `weapons`"), ("es", "`armas` ahora es `weapons`")]
)
def test_a_retired_key_is_named_as_such_in_each_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, reason: str
) -> None:
    # The loader tells a retired key from an unknown one by the reason it wrote, which is
    # in the current language: in Spanish too the retired key is not just "unknown".
    text = edit(
        DUEL, "    weapons:\n      - {name: espada corta", "    armas:\n      - {name: espada corta"
    )
    line = text.splitlines().index("    armas:") + 1
    err = play(tmp_path, capsys, text, lang)
    assert f"combatants[0].armas: {reason} ({'line' if lang == 'en' else 'línea'} {line})\n" in err
    with language(lang):
        assert says_retired(Retired("combatants[0].armas", "armas", "weapons").reason)
        assert says_retired(f"in destiny_dice/emboscada: {reason}")
        assert not says_retired("`armas` es `weapons` o no")


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], lang: str) -> str:
    """The error line of a command that must refuse its file (exit 2) in ``lang``."""
    code = main([*argv, "--lang", lang])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("escaramuza: error: ") and err.count("\n") == 1, err
    return err


def test_a_day_file_is_refused_in_each_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    day = (SCENARIOS / "destiny_dice" / "jornada.day.yaml").read_text(encoding="utf-8")
    path = tmp_path / "mala.day.yaml"
    path.write_text(edit(day, "  pv: 18\n", "  pv: 18\n  side: heroes\n"), encoding="utf-8")
    english = "a day's hero has no side: every hero of a day is on the heroes side"
    spanish = "un héroe de un día no lleva side: todos los héroes de un día están en el bando"
    err = refused(capsys, ["campaign", str(path)], "en")
    assert f"{path}: heroes[0].side: {english}" in err
    err = refused(capsys, ["campaign", str(path)], "es")
    assert f"{path}: heroes[0].side: {spanish}" in err and english not in err


def test_a_state_file_is_refused_in_each_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from escaramuza.rules.core.dice import RandomRoller
    from escaramuza.rules.core.ruleset import new_battle
    from escaramuza.rules.core.scenario import load_scenario
    from escaramuza.state_file import state_to_dict

    doc = state_to_dict(
        new_battle(load_scenario("destiny_dice/brann-vs-saqueador"), RandomRoller(0))
    )
    doc["version"] = 7
    path = tmp_path / "malo.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    err = refused(capsys, ["suggest", str(path)], "en")
    assert f"{path}: version: unsupported version 7 (this escaramuza reads 1)" in err
    err = refused(capsys, ["suggest", str(path)], "es")
    assert f"{path}: version: versión no admitida 7 (este escaramuza lee la 1)" in err


def test_a_tables_file_is_refused_in_each_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = (
        Path(__file__).resolve().parents[2] / "rules" / "sistema_2d10" / "tables" / "default.yaml"
    ).read_text(encoding="utf-8")
    bad = tmp_path / "tablas.yaml"
    bad.write_text(
        edit(tables, '{tirada: "7", lugar: abdomen}', '{tirada: "7", lugar: cola}'), "utf-8"
    )
    scenario = tmp_path / "duelo.yaml"
    text = edit(shipped("sistema_2d10/duelo"), "options: {}", f"options: {{tables: '{bad}'}}")
    scenario.write_text(text, encoding="utf-8")
    # The error names the tables file, its field and the reason.
    err = refused(capsys, ["play", str(scenario)], "en")
    assert f"{bad}: localizacion[4].lugar: unknown location 'cola' (known: cabeza," in err
    err = refused(capsys, ["play", str(scenario)], "es")
    assert (
        f"{bad}: localizacion[4].lugar: localización desconocida 'cola' (conocidas: cabeza," in err
    )


#: A broken JSON state file per problem Python's json names, and the Spanish of it (written
#: here, not read from the catalog).
BROKEN_JSON = [
    ('{"a": }', "Expecting value", "se esperaba un valor"),
    (
        "{1: 2}",
        "Expecting property name enclosed in double quotes",
        "se esperaba un nombre de campo entre comillas dobles",
    ),
    ('{"a" 1}', "Expecting ':' delimiter", "se esperaba el separador ':'"),
    ("[1 2]", "Expecting ',' delimiter", "se esperaba el separador ','"),
    ("{} 2", "Extra data", "sobran datos tras el valor"),
    ('{"a": "x', "Unterminated string starting at", "una cadena que empieza aquí no se cierra"),
    ('{"a": "x\x01"}', "Invalid control character at", "carácter de control no válido aquí"),
    ('{"a": "\\q"}', "Invalid \\escape", "secuencia de escape \\ no válida"),
    ('{"a": "\\u12"}', "Invalid \\uXXXX escape", "escape \\uXXXX no válido"),
]


@pytest.mark.parametrize(("text", "english", "spanish"), BROKEN_JSON, ids=lambda v: str(v)[:12])
def test_a_broken_json_file_is_refused_in_each_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, english: str, spanish: str
) -> None:
    path = tmp_path / "estado.json"
    path.write_text(text, encoding="utf-8")
    err = refused(capsys, ["suggest", str(path)], "en")
    assert f"not valid JSON: {english}\n" in err, err
    err = refused(capsys, ["suggest", str(path)], "es")
    assert f"JSON no válido: {spanish}\n" in err, err


def test_every_json_problem_the_catalog_knows_is_one_json_names() -> None:
    """The inputs above make every problem the catalog translates, and those only: a
    problem renamed by another Python fails here rather than staying English."""
    from escaramuza.rules.core.parsers import JSON_PROBLEMS

    made = set()
    for text, english, _spanish in BROKEN_JSON:
        with pytest.raises(json.JSONDecodeError) as exc:
            json.loads(text)
        assert exc.value.msg == english
        made.add(exc.value.msg)
    assert made == JSON_PROBLEMS


#: A broken YAML scenario per problem libyaml (and PyYAML's composer) names in a file a
#: user writes, and the Spanish of it (written here, not read from the catalog).
BROKEN_YAML = [
    (
        "a: b: c",
        "mapping values are not allowed in this context",
        "aquí no se admiten valores de mapa",
    ),
    (
        "a: - b",
        "block sequence entries are not allowed in this context",
        "aquí no se admiten elementos de lista en bloque",
    ),
    (
        "a: [1, 2",
        "did not find expected ',' or ']'",
        "se esperaba ',' o ']'",
    ),
    (
        "a: {b: 1",
        "did not find expected ',' or '}'",
        "se esperaba ',' o '}'",
    ),
    ("a:\n  - 1\n b: 2", "did not find expected key", "no se encontró la clave que se esperaba"),
    (
        "- a\nb: c",
        "did not find expected '-' indicator",
        "no se encontró el indicador '-' que se esperaba",
    ),
    ("a: [,]", "did not find expected node content", "no se encontró el contenido que se esperaba"),
    (
        "{a: 1}}",
        "did not find expected <document start>",
        "no se encontró el comienzo de documento que se esperaba",
    ),
    (
        "a: |x\n  b",
        "did not find expected comment or line break",
        "no se encontró el comentario o salto de línea que se esperaba",
    ),
    (
        "a: *",
        "did not find expected alphabetic or numeric character",
        "no se encontró la letra o cifra que se esperaba",
    ),
    ("a: !<x", "did not find the expected '>'", "no se encontró el '>' que se esperaba"),
    ("a: 1\nb", "could not find expected ':'", "no se encontró el ':' que se esperaba"),
    ("a: 'x", "found unexpected end of stream", "el texto termina antes de lo esperado"),
    (
        "a: @x",
        "found character that cannot start any token",
        "hay un carácter que no puede empezar ningún elemento",
    ),
    ("a: !x!y z", "found undefined tag handle", "hay un prefijo de etiqueta sin definir"),
    ('a: "\\q"', "found unknown escape character", "hay un carácter de escape desconocido"),
    ("%FOO\n---\na: 1", "found unknown directive name", "hay un nombre de directiva desconocido"),
    (
        "%YAML 1.1\n%YAML 1.1\n---\na: 1",
        "found duplicate %YAML directive",
        "hay una directiva %YAML repetida",
    ),
    (
        "%YAML 2.0\n---\na: 1",
        "found incompatible YAML document",
        "el documento es de una versión de YAML incompatible",
    ),
    (
        "a: |0\n x",
        "found an indentation indicator equal to 0",
        "hay un indicador de sangría igual a 0",
    ),
    (
        ">\n\tx",
        "found a tab character where an indentation space is expected",
        "hay un tabulador donde se esperaba un espacio de sangría",
    ),
    (
        "a:\n  b: 1\n\tc: 2",
        "found a tab character that violates indentation",
        "hay un tabulador que rompe la sangría",
    ),
    ("a: &x 1\nb: *y", "found undefined alias", "hay un alias sin definir"),
]

#: libyaml's wording: PyYAML's pure-Python parser, used where libyaml is missing, words
#: its problems otherwise (they are then shown as it words them).
LIBYAML = pytest.mark.skipif(not yaml.__with_libyaml__, reason="the problems are libyaml's words")


@LIBYAML
@pytest.mark.parametrize(("text", "english", "spanish"), BROKEN_YAML, ids=lambda v: str(v)[:14])
def test_a_broken_yaml_file_is_refused_in_each_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, english: str, spanish: str
) -> None:
    path = tmp_path / "malo.yaml"
    path.write_text(text, encoding="utf-8")
    code = main(["validate", str(path), "--lang", "en"])
    out, err = capsys.readouterr()
    assert code == 2 and f"YAML syntax error: {english}\n" in out + err, out + err
    code = main(["validate", str(path), "--lang", "es"])
    out, err = capsys.readouterr()
    assert code == 2 and f"error de sintaxis YAML: {spanish}\n" in out + err, out + err


@LIBYAML
def test_every_yaml_problem_the_catalog_knows_is_one_libyaml_names() -> None:
    """The inputs above make every problem the catalog translates, and those only."""
    from escaramuza.rules.core.parsers import YAML_PROBLEMS, StrictSafeLoader

    made = set()
    for text, english, _spanish in BROKEN_YAML:
        with pytest.raises(yaml.MarkedYAMLError) as exc:
            yaml.load(text, Loader=StrictSafeLoader)
        assert exc.value.problem == english
        made.add(exc.value.problem)
    assert made == YAML_PROBLEMS
