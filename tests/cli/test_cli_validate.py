"""``escaramuza validate`` and ``escaramuza schema``.

Every shipped file validates; twelve broken files exit 2 with every problem listed as
``FILE:LINE: FIELD: REASON (did you mean 'x'?)``. Expected lines are found by
searching the broken text for the line that was broken, not taken from the code.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from escaramuza.cli import main
from escaramuza.rules.core.errors import MAX_LISTED_PROBLEMS
from escaramuza.rules.core.scenario import MAX_SCENARIO_BYTES, load_scenario, shipped_scenarios
from escaramuza.rules.sistema_2d10.tables import default_tables_path
from escaramuza.schema import render, schema_dir, shipped_schemas
from escaramuza.state_file.reading import MAX_STATE_BYTES
from tests.scenario_texts import VALID

ROOT = Path(__file__).resolve().parents[2]


TABLES = Path(default_tables_path()).read_text(encoding="utf-8")


def edit(text: str, old: str, new: str) -> str:
    assert old in text, f"{old!r} is not in the file"
    return text.replace(old, new, 1)


def line_of(text: str, needle: str) -> int:
    """1-based number of the first line containing ``needle``."""
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} is not in the text")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    code = main(["validate", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out.splitlines()


# -- shipped files -------------------------------------------------------------------------


def shipped_files() -> list[str]:
    return [*shipped_scenarios().values(), default_tables_path()]


def test_every_shipped_file_validates(capsys: pytest.CaptureFixture[str]) -> None:
    files = shipped_files()
    code, lines = run(capsys, *files)
    assert code == 0, lines
    assert lines == [
        f"{path}: ok ({'tables' if path.endswith('default.yaml') else 'scenario'})"
        for path in files
    ]


def test_a_saved_state_file_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "batalla.json"
    assert (
        main(
            [
                "play",
                "destiny_dice/brann-vs-saqueador",
                "--stop-after",
                "3",
                "--save-state",
                str(state),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert run(capsys, str(state)) == (0, [f"{state}: ok (state)"])


def test_shipped_scenarios_carry_the_schema_modeline() -> None:
    for name, path in shipped_scenarios().items():
        first = Path(path).read_text(encoding="utf-8").splitlines()[0]
        ruleset = name.split("/")[0]
        assert first == f"# yaml-language-server: $schema=../schema/{ruleset}.json"
        assert (Path(path).parent / "../schema" / f"{ruleset}.json").resolve().is_file()
        # A YAML comment: the loader ignores it.
        assert load_scenario(name).ruleset.id == ruleset
    first = TABLES.splitlines()[0]
    target = first.removeprefix("# yaml-language-server: $schema=")
    assert target != first and (Path(default_tables_path()).parent / target).resolve().is_file()


# -- twelve broken files -----------------------------------------------------------------

# A problem of structure (found by the models) and one of reference (found once the
# generic keys are well formed): both are listed.
TWO_PROBLEMS = edit(edit(VALID, "pv: 12", "pv: doce"), "zone: puerta", "zone: puerto")

# (case, file name, text, [(line needle or None, field, words of the reason, suggestion)])
BROKEN: list[tuple[str, str, str, list[tuple[str | None, str, str, str | None]]]] = [
    (
        "typo_field",
        "a.yaml",
        edit(VALID, "armour: 1", "armuor: 1"),
        [("armuor: 1", "combatants[1].armuor", "unknown field", "armour")],
    ),
    (
        "wrong_type",
        "a.yaml",
        edit(VALID, "round_limit: 10", "round_limit: pronto"),
        [("round_limit: pronto", "round_limit", "valid integer", None)],
    ),
    (
        "bad_id",
        "a.yaml",
        edit(VALID, "id: saqueador", "id: el saqueador"),
        [("id: el saqueador", "combatants[1].id", "' ' is not allowed; an id is letters", None)],
    ),
    (
        "unknown_zone",
        "a.yaml",
        edit(VALID, "zone: puerta", "zone: puerto"),
        [("zone: puerto", "combatants[1].zone", "unknown zone 'puerto'", "puerta")],
    ),
    (
        "missing_field",
        "a.yaml",
        edit(VALID, "    pv: 8\n", ""),
        [("- id: saqueador", "combatants[1].pv", "required field is missing", None)],
    ),
    (
        "duplicate_id",
        "a.yaml",
        edit(VALID, "id: saqueador", "id: 'brann'"),
        [("id: 'brann'", "combatants[1].id", "duplicate combatant id 'brann'", None)],
    ),
    (
        "two_problems",
        "a.yaml",
        TWO_PROBLEMS,
        [
            ("pv: doce", "combatants[0].pv", "valid integer", None),
            ("zone: puerto", "combatants[1].zone", "unknown zone 'puerto'", "puerta"),
        ],
    ),
    (
        "malformed_yaml",
        "a.yaml",
        edit(VALID, "- {id: puerta}", "- {id: puerta"),
        [("links:", "", "YAML syntax error", None)],
    ),
    (
        "wrong_ruleset",
        "a.yaml",
        edit(VALID, "ruleset: destiny_dice", "ruleset: destiny_dise"),
        [("ruleset: destiny_dise", "ruleset", "unknown ruleset 'destiny_dise'", "destiny_dice")],
    ),
    (
        "bad_state_json",
        "a.json",
        '{"format": "escaramuza-state",\n "version": 1,\n "round": }\n',
        [(' "round": }', "", "not valid JSON", None)],
    ),
    (
        "bad_tables_entry",
        "tablas.yaml",
        edit(TABLES, "lugar: torso}", "lugar: torzo}"),
        [("lugar: torzo", "localizacion[3].lugar", "unknown location 'torzo'", "torso")],
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "expected"), [c[1:] for c in BROKEN], ids=[c[0] for c in BROKEN]
)
def test_broken_file_lists_every_problem(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    text: str,
    expected: list[tuple[str | None, str, str, str | None]],
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, lines = run(capsys, str(path))
    assert code == 2
    *problems, summary = lines
    assert summary == f"{len(expected)} problem(s) in 1 of 1 file(s)"
    assert len(problems) == len(expected), problems
    for line, (needle, field, reason, suggestion) in zip(problems, expected, strict=True):
        where = f"{path}:{line_of(text, needle)}:" if needle else f"{path}:"
        assert line.startswith(where + (f" {field}: " if field else " ")), line
        assert reason in line
        if suggestion:
            assert line.endswith(f"(did you mean {suggestion!r}?)"), line
        else:
            assert "did you mean" not in line


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_non_regular_files_are_refused_without_opening(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "tubo.yaml"
    os.mkfifo(fifo)  # opening it would block: validate must not
    code, lines = run(capsys, str(fifo), str(tmp_path), str(tmp_path / "nada.yaml"))
    assert code == 2
    assert lines == [
        f"{fifo}: is not a regular file (a FIFO, socket or device)",
        f"{tmp_path}: is a directory, not a file to validate",
        f"{tmp_path / 'nada.yaml'}: no such file",
        "3 problem(s) in 3 of 3 file(s)",
    ]


def test_a_file_this_user_cannot_read_is_refused_in_the_current_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The refusal of a file without read permission was English under ``--lang es``: it
    is the sentence every other unreadable file gets. (os.access is faked: the tests may
    run as root, who reads every file.)"""
    path = tmp_path / "secreto.yaml"
    path.write_text(VALID, encoding="utf-8")
    monkeypatch.setattr("escaramuza.validate.os.access", lambda *args, **kwargs: False)
    assert main(["--lang", "es", "validate", str(path)]) == 2
    assert f"{path}: no se puede leer (Permission denied)" in capsys.readouterr().out
    assert main(["validate", str(path)]) == 2
    assert f"{path}: cannot be read (Permission denied)" in capsys.readouterr().out


def test_play_keeps_one_line_and_points_at_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(TWO_PROBLEMS, encoding="utf-8")
    assert main(["play", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "combatants[0].pv" in err and "puerto" not in err
    assert f"(and 1 more problem; `escaramuza validate {path}` lists them all)" in err


def test_many_problems_list_the_first_and_count_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Five more unknown keys than validate lists, after the valid file's own lines.
    extra = MAX_LISTED_PROBLEMS + 5
    text = VALID + "".join(f"k{i}: 1\n" for i in range(extra))
    path = tmp_path / "a.yaml"
    path.write_text(text, encoding="utf-8")
    code, lines = run(capsys, str(path))
    assert code == 2
    *problems, rest, summary = lines
    # The first in the file's order, each on its line.
    assert problems == [
        f"{path}:{line_of(text, f'k{i}: 1')}: k{i}: unknown field"
        for i in range(MAX_LISTED_PROBLEMS)
    ]
    assert rest == f"{path}: 5 more problems, not listed (a file's first 100 are)"
    assert summary == f"{extra} problem(s) in 1 of 1 file(s)"
    # play's one line counts them all and says validate lists the first ones.
    assert main(["play", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"escaramuza: error: {path}: k0: unknown field (line {line_of(text, 'k0: 1')})"
        f" (and {extra - 1} more problems; `escaramuza validate {path}` lists the first 100)\n"
    )


def test_a_file_larger_than_the_loaders_is_refused_before_it_is_parsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Nested far too deep to compose: refused by its size before anything parses it.
    path = tmp_path / "a.yaml"
    path.write_text("[" * (MAX_SCENARIO_BYTES + 1), encoding="utf-8")
    state = tmp_path / "a.json"
    state.write_text("[" * (MAX_STATE_BYTES + 1), encoding="utf-8")
    code, lines = run(capsys, str(path), str(state))
    assert code == 2
    assert lines == [
        f"{path}: is {MAX_SCENARIO_BYTES + 1} bytes; a scenario, day or tables file "
        "may be at most 1 MiB",
        f"{state}: is {MAX_STATE_BYTES + 1} bytes; a state file may be at most 1 MiB",
        "2 problem(s) in 2 of 2 file(s)",
    ]


# (case, file name, text, where and the words of validate's one problem): files that make
# a recursive composer overflow or hash a list, refused by the loader's bounded parser.
UNPARSED = [
    ("list_as_key", "a.yaml", "? [a, b]\n: 1\n", ":1: a mapping key must be a plain scalar"),
    # libyaml stops at 1,000 levels, before the parser's own bound of 64 is counted.
    ("deep_lists", "a.yaml", "[" * 5000 + "]" * 5000, ":1: YAML syntax error: exceeded maximum"),
    ("deep_mappings", "a.yaml", "{a: " * 5000 + "}" * 5000, ":1: lists and mappings are nested"),
    ("deep_json", "a.json", "[" * 5000 + "]" * 5000, ": lists and objects are nested"),
    (
        "control_character",
        "a.yaml",
        "name: x\ntitle: a\x00b",
        ":2: YAML syntax error: character '\\x00' (U+0000) is not allowed in a YAML file",
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "expected"), [c[1:] for c in UNPARSED], ids=[c[0] for c in UNPARSED]
)
def test_a_file_the_parser_refuses_is_one_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(text + "\n", encoding="utf-8")
    code, lines = run(capsys, str(path))
    assert code == 2
    assert len(lines) == 2 and lines[1] == "1 problem(s) in 1 of 1 file(s)", lines
    assert lines[0].startswith(f"{path}{expected}"), lines[0]


def test_unicode_ids_are_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = VALID.replace("saqueador", "matón").replace("patio", "patio_de_armas_ñ")
    path = tmp_path / "a.yaml"
    path.write_text(text, encoding="utf-8")
    assert run(capsys, str(path)) == (0, [f"{path}: ok (scenario)"])
    ids = [c.id for c in load_scenario(str(path)).combatants]
    assert ids == ["brann", "matón"]


def test_a_tables_problem_of_a_scenario_names_the_tables_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = tmp_path / "tablas.yaml"
    tables.write_text(edit(TABLES, "lugar: torso}", "lugar: torzo}"), encoding="utf-8")
    scenario = Path(shipped_scenarios()["sistema_2d10/duelo"]).read_text(encoding="utf-8")
    scenario = re.sub(
        r"^options: \{\}$", f"options: {{tables: {tables}}}", scenario, count=1, flags=re.M
    )
    assert "options: {tables:" in scenario
    path = tmp_path / "duelo.yaml"
    path.write_text(scenario, encoding="utf-8")
    code, lines = run(capsys, str(path))
    assert code == 2
    number = line_of(tables.read_text(encoding="utf-8"), "lugar: torzo")
    assert lines[0].startswith(f"{tables}:{number}: localizacion[3].lugar: unknown location")


# -- schema --------------------------------------------------------------------------------


def test_shipped_schemas_are_up_to_date() -> None:
    schemas = shipped_schemas()
    assert sorted(p.name for p in schema_dir().glob("*.json")) == sorted(schemas)
    for name, schema in schemas.items():
        text = (schema_dir() / name).read_text(encoding="utf-8")
        assert text == render(schema), f"{name} is stale: run python -m escaramuza.schema"


@pytest.mark.parametrize("name", list(shipped_scenarios()))
def test_schema_validates_every_shipped_scenario(name: str) -> None:
    data = yaml.safe_load(Path(shipped_scenarios()[name]).read_text(encoding="utf-8"))
    for file in ("scenario.json", f"{name.split('/')[0]}.json"):
        schema = json.loads((schema_dir() / file).read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.Draft202012Validator(schema).validate(data)


def test_schema_rejects_what_the_loader_rejects() -> None:
    schema = json.loads((schema_dir() / "destiny_dice.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for broken in (
        edit(VALID, "armour: 1", "armuor: 1"),
        edit(VALID, "pv: 12", "pv: doce"),
        edit(VALID, "cuerpo: d8", "cuerpo: d7"),
        edit(VALID, "side: enemies", "side: villains"),
    ):
        assert not validator.is_valid(yaml.safe_load(broken))
    assert validator.is_valid(yaml.safe_load(VALID))


def test_tables_schema_validates_the_default_tables() -> None:
    schema = json.loads((schema_dir() / "sistema_2d10-tables.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(yaml.safe_load(TABLES))


def test_schema_command_prints_the_rulesets_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "scenario", "--ruleset", "donjon"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((schema_dir() / "donjon.json").read_text(encoding="utf-8"))
    assert printed["properties"]["ruleset"]["const"] == "donjon"


def test_schema_command_refuses_an_unknown_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "scenario", "--ruleset", "ajedrez"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "unknown ruleset 'ajedrez'" in err


@pytest.mark.parametrize(
    "damage", ["d6", "d8+d6", "D12", " d4 + d10 ", "2d6", "d7", "d6+2", "d8+d8+d8", "1d6", ""]
)
def test_cairn_schema_takes_the_damage_the_loader_takes(damage: str) -> None:
    from escaramuza.rules.cairn.sheets import parse_damage

    schema = json.loads((schema_dir() / "cairn.json").read_text(encoding="utf-8"))
    weapon = schema["$defs"]["Weapon"]
    validator = jsonschema.Draft202012Validator(weapon)
    try:
        parse_damage(damage)
        loads = True
    except ValueError:
        loads = False
    assert validator.is_valid({"name": "arma", "damage": damage}) == loads
    assert loads == (damage in ("d6", "d8+d6", "D12", " d4 + d10 "))  # by hand, CA-10


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", ("scenario", "tables", "day")), ("es", ("escenario", "tablas", "jornada"))],
)
def test_the_ok_line_names_the_kind_in_the_language(
    capsys: pytest.CaptureFixture[str], lang: str, words: tuple[str, ...]
) -> None:
    day = shipped_scenarios()["destiny_dice/emboscada"].replace(
        "emboscada.yaml", "jornada.day.yaml"
    )
    files = (shipped_scenarios()["destiny_dice/emboscada"], default_tables_path(), day)
    code = main(["--lang", lang, "validate", *files])
    out, _err = capsys.readouterr()
    assert code == 0
    ok = "ok" if lang == "en" else "correcto"
    assert out.splitlines() == [f"{f}: {ok} ({w})" for f, w in zip(files, words, strict=True)]
