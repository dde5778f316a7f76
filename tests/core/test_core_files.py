"""Atomic writes keep the old file on failure and give normal permissions; a user's text
file is read with clean errors; the YAML and JSON readers refuse what would surprise or
hang the loaders, with the line or field and the reason."""

from __future__ import annotations

import os
import stat

import pytest

from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.files import atomic_write, parse_json, write_file


def test_atomic_write_replaces_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "state.json"
    target.write_text("old")
    atomic_write(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_atomic_write_uses_the_umask_not_mkstemps_private_mode(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "report.md", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "report.md").stat().st_mode) == 0o644


def test_atomic_write_failure_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "state.json"
    target.write_text("precious")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write(target, "half")
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_atomic_write_writes_through_a_symlink_and_keeps_it(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real.name)  # relative, as `ln -s real.json link.json` makes it
    atomic_write(link, "new")
    assert link.is_symlink() and os.readlink(link) == "real.json"
    assert real.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (os.mkfifo, "it is a pipe (FIFO), not a regular file"),
        (os.mkdir, "it is a folder, not a regular file"),
    ],
    ids=["fifo", "folder"],
)
@pytest.mark.parametrize("through_a_link", [False, True])
def test_atomic_write_refuses_what_is_not_a_regular_file(tmp_path, make, reason, through_a_link):
    special = tmp_path / "special"
    make(special)
    target = special
    if through_a_link:
        target = tmp_path / "link.json"
        target.symlink_to(special)
    with pytest.raises(OSError) as info:
        atomic_write(target, "x")
    assert (info.value.strerror, info.value.filename) == (reason, str(target))
    # Nothing changed: the special file is still what it was, no temporary is left.
    mode = special.lstat().st_mode
    assert stat.S_ISFIFO(mode) if make is os.mkfifo else stat.S_ISDIR(mode)
    assert target.is_symlink() == through_a_link
    expected = ["link.json", "special"] if through_a_link else ["special"]
    assert sorted(p.name for p in tmp_path.iterdir()) == expected


def test_atomic_write_refuses_a_loop_of_links(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(OSError) as info:
        atomic_write(tmp_path / "a", "x")
    assert info.value.strerror == os.strerror(40)  # ELOOP
    assert (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink()


def test_write_file_raises_the_callers_error_naming_the_path(tmp_path):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    with pytest.raises(_Err) as info:
        write_file(fifo, "x", _Err)
    assert str(info.value) == f"{fifo}||cannot be written (it is a pipe (FIFO), not a regular file)"
    with pytest.raises(EscaramuzaError) as plain:
        write_file(fifo, "x")
    assert (
        str(plain.value) == f"{fifo}: cannot be written (it is a pipe (FIFO), not a regular file)"
    )
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


class _Err(Exception):
    def __init__(self, source: str, field: str, reason: str) -> None:
        super().__init__(f"{source}|{field}|{reason}")


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda d: d / "missing.yaml", "no such file"),
        (lambda d: d, "is a directory, not a thing file"),
        (
            lambda d: (d / "bad.yaml", (d / "bad.yaml").write_bytes(b"\xff\xfe"))[0],
            "not UTF-8 text",
        ),
    ],
)
def test_read_text_file_turns_each_failure_into_the_callers_error(tmp_path, make, reason):
    from escaramuza.rules.core.files import read_text_file

    path = make(tmp_path)
    with pytest.raises(_Err) as info:
        read_text_file(path, _Err, "a thing file")
    assert str(info.value) == f"{path}||{reason}"


def test_read_text_file_reads_utf8(tmp_path):
    from escaramuza.rules.core.files import read_text_file

    (tmp_path / "s.yaml").write_text("pv: 5 ✓", encoding="utf-8")
    assert read_text_file(tmp_path / "s.yaml", _Err, "a scenario file") == "pv: 5 ✓"


# -- parse_yaml / parse_json: what the reader refuses ---------------------------------------


def _yaml_refusal(text: str) -> tuple[str, str]:
    """The (field, reason) ``parse_yaml`` refuses ``text`` with."""
    from escaramuza.rules.core.files import parse_yaml

    with pytest.raises(_Err) as info:
        parse_yaml(text, "f.yaml", _Err)
    source, field, reason = str(info.value).split("|", 2)
    assert source == "f.yaml"
    return field, reason


def _laughs(levels: int) -> str:
    """A "billion laughs" document: each level a list of nine aliases of the one before."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def _merge_laughs(levels: int) -> str:
    """The same through merge keys: nine mappings, each merging the level before."""
    lines = ["m0: &m0 {k0: 1, k1: 1, k2: 1, k3: 1, k4: 1, k5: 1, k6: 1, k7: 1, k8: 1}"]
    lines += [
        f"m{i}: &m{i} [{', '.join([f'{{<<: *m{i - 1}}}'] * 9)}]" for i in range(1, levels + 1)
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text", [_laughs(9), _merge_laughs(9)], ids=["aliases", "merge-keys"])
def test_an_alias_bomb_is_refused_before_anything_is_built(text, monkeypatch):
    from escaramuza.rules.core import files

    def never(self, node):
        raise AssertionError("the document was composed and built")

    # 9⁹ values once expanded: refused from the event stream, with the alias's line.
    monkeypatch.setattr(files.StrictSafeLoader, "construct_document", never)
    field, reason = _yaml_refusal(text)
    assert field.startswith("line ") and ", column " in field
    assert 1 < int(field.split(",")[0].removeprefix("line ")) <= 10
    assert f"more than {files.MAX_ALIAS_NODES} values" in reason


def test_an_alias_inside_what_it_names_is_refused():
    field, reason = _yaml_refusal("a: &a [1, *a]\n")
    assert field == "line 1, column 11"
    assert "inside the list or mapping it names" in reason


@pytest.mark.parametrize(
    ("value", "base"),
    [
        ("0x7fffffff", "hexadecimal"),
        ("-0x1F", "hexadecimal"),
        ("0o17", "octal"),
        ("017", "octal"),
        ("0b101", "binary"),
        ("190:20:30", "sexagesimal"),
        ("!!int 0x10", "hexadecimal"),
    ],
)
def test_a_non_decimal_integer_is_refused_with_its_line(value, base):
    field, reason = _yaml_refusal(f"name: x\npv: {value}\n")
    assert field == "line 2, column 5"
    assert f"spelled in {base}" in reason and "write it in decimal" in reason


def test_a_sexagesimal_float_is_refused():
    field, reason = _yaml_refusal("t: 1:30.5\n")
    assert field == "line 1, column 4"
    assert "sexagesimal" in reason and "write it in decimal" in reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("a: !!int abc\n", "'abc' is not an integer"),
        ("a: !!float abc\n", "'abc' is not a number"),
        ("a: !!bool yes\n", "'yes' is not a boolean (true or false)"),
        ("a: !!timestamp x\n", "'x' is not a date or time"),
        ("a: 2001-13-01\n", "'2001-13-01' is not a date or time"),
    ],
)
def test_an_explicit_tag_on_the_wrong_text_is_refused(text, reason):
    assert _yaml_refusal(text) == ("line 1, column 4", reason)


@pytest.mark.parametrize(
    ("text", "field", "shown"),
    [
        ("name: x\npv: 1\x07\n", "line 2, column 6", "'\\x07' (U+0007)"),
        ("name: x\x00\n", "line 1, column 8", "'\\x00' (U+0000)"),
        # Multi-byte text before it (libyaml counts bytes) and Windows line ends.
        ("name: ñandú 😀\r\nnotes: \x1b\r\n", "line 2, column 8", "'\\x1b' (U+001B)"),
        ("a: \ufffe\n", "line 1, column 4", "'\\ufffe' (U+FFFE)"),
        # A lone surrogate, as a JSON escape reads into a state file's scenario_yaml.
        ('a: 1\nb: "\ud800"\n', "line 2, column 5", "'\\ud800' (U+D800)"),
    ],
    ids=["bell", "nul", "after-multibyte", "non-character", "surrogate"],
)
def test_a_character_yaml_does_not_allow_is_refused_with_its_line_and_column(text, field, shown):
    assert _yaml_refusal(text) == (
        field,
        f"YAML syntax error: character {shown} is not allowed in a YAML file",
    )


@pytest.mark.parametrize(
    ("text", "field", "shown"),
    [
        ('name: "Br\\e[2Jann"\n', "line 1, column 7", "'\\x1b' (U+001B)"),
        ('a: 1\ntitle: "x\\a"\n', "line 2, column 8", "'\\x07' (U+0007)"),
        ('notes: "a\\rb"\n', "line 1, column 8", "'\\r' (U+000D)"),
        ('k: "\\x9b31m"\n', "line 1, column 4", "'\\x9b' (U+009B)"),
        ('"\\e]0;x\\a": 1\n', "line 1, column 1", "'\\x1b' (U+001B)"),
    ],
    ids=["escape", "bell", "carriage-return", "c1-csi", "in-a-key"],
)
def test_an_escaped_control_character_is_refused_with_its_line_and_column(text, field, shown):
    # Written as an escape it is valid YAML, but a name or text holding it is printed by
    # `escaramuza gm` and `play`, and the terminal acts on it (clears, retitles…).
    assert _yaml_refusal(text) == (
        field,
        f"control character {shown} in a value: a name or text may not hold one, escaped "
        "or not (a terminal showing it would act on it)",
    )


def test_tabs_and_line_breaks_stay_in_values():
    from escaramuza.rules.core.files import parse_yaml

    text = 'a: "x\\ty"\nb: |\n  one\n  two\n'
    assert parse_yaml(text, "f.yaml", _Err) == {"a": "x\ty", "b": "one\ntwo\n"}


def test_decimal_integers_keep_reading_as_before():
    from escaramuza.rules.core.files import parse_yaml

    text = "a: 0\nb: -12\nc: +7\nd: 1_000\ne: 1.5\nf: '0x1F'\n"
    assert parse_yaml(text, "f.yaml", _Err) == {
        "a": 0,
        "b": -12,
        "c": 7,
        "d": 1000,
        "e": 1.5,
        "f": "0x1F",
    }


@pytest.mark.parametrize(
    ("text", "field", "kind"),
    [
        ("? [a, b]\n: 1\n", "line 1, column 3", "list"),
        ("{[1]: x}\n", "line 1, column 2", "list"),
        ("top:\n  ? {a: 1}\n  : 2\n", "line 2, column 5", "mapping"),
        ("? !!set x\n: 1\n", "line 1, column 3", "set"),
    ],
)
def test_a_list_or_mapping_as_a_key_is_refused(text, field, kind):
    got_field, reason = _yaml_refusal(text)
    assert got_field == field
    assert reason == f"a mapping key must be a plain scalar (a string or a number), not a {kind}"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("a: .inf\n", "line 1, column 4"),
        ("a: [1, -.inf]\n", "line 1, column 8"),
        ("a: .NaN\n", "line 1, column 4"),
        ("a: 1.0e+999\n", "line 1, column 4"),
    ],
)
def test_a_yaml_number_that_is_not_finite_is_refused(text, field):
    got_field, reason = _yaml_refusal(text)
    assert got_field == field and "is not finite" in reason


def test_only_true_and_false_are_booleans():
    from escaramuza.rules.core.files import parse_yaml

    words = ["yes", "No", "ON", "off", "y", "n", "true", "False", "TRUE"]
    text = "".join(f"k{i}: {w}\n" for i, w in enumerate(words))
    assert list(parse_yaml(text, "f.yaml", _Err).values()) == [
        "yes",
        "No",
        "ON",
        "off",
        "y",
        "n",
        True,
        False,
        True,
    ]
    assert parse_yaml("yes: 1\non: 2\n", "f.yaml", _Err) == {"yes": 1, "on": 2}


def test_a_merge_key_after_the_mappings_own_keys_is_refused():
    text = "base: &base {a: 1, b: 2}\nthing:\n  a: 3\n  <<: *base\n"
    field, reason = _yaml_refusal(text)
    assert field == "line 4, column 3"
    assert "a merge key (<<) must come before the mapping's own keys" in reason


def test_anchors_aliases_and_merge_keys_still_load():
    from escaramuza.rules.core.files import parse_yaml

    text = (
        "weapons:\n"
        "  - &espada {name: espada, tier: media}\n"
        "base: &base {cuerpo: d8, mente: d6, pv: 12}\n"
        "veteran: &veteran\n"
        "  <<: *base\n"
        "  pv: 16\n"
        "combatants:\n"
        "  - <<: *veteran\n"
        "    id: brann\n"
        "    weapons: [*espada]\n"
        "  - <<: [*base, {pv: 3, alma: d4}]\n"
        "    id: rata\n"
    )
    data = parse_yaml(text, "f.yaml", _Err)
    espada = {"name": "espada", "tier": "media"}
    # A merged mapping's own keys win over what it merges, also through a second merge.
    assert data["combatants"][0] == {
        "cuerpo": "d8",
        "mente": "d6",
        "pv": 16,
        "id": "brann",
        "weapons": [espada],
    }
    # Among merged mappings, the first listed wins.
    assert data["combatants"][1] == {
        "cuerpo": "d8",
        "mente": "d6",
        "pv": 12,
        "alma": "d4",
        "id": "rata",
    }
    assert data["veteran"] == {"cuerpo": "d8", "mente": "d6", "pv": 16}


def test_a_merge_of_single_letter_keys_follows_the_same_precedence():
    from escaramuza.rules.core.files import parse_yaml

    # One-letter keys are the same str object in CPython: the precedence must not
    # depend on that.
    text = (
        "a: &a {x: 1}\nb: &b {<<: *a, x: 2}\nc: {<<: *b}\nd: {<<: [{x: 1, yy: 1}, {x: 2, yy: 2}]}\n"
    )
    data = parse_yaml(text, "f.yaml", _Err)
    assert data["c"] == {"x": 2}
    assert data["d"] == {"x": 1, "yy": 1}


def _shipped_text(name: str) -> str:
    from escaramuza.rules.core.scenario import shipped_scenarios

    with open(shipped_scenarios()[name], encoding="utf-8") as fh:
        return fh.read()


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("yes", "valid integer"),
        ("on", "valid integer"),
        ("Off", "valid integer"),
        ("true", "not true or false"),
        ("false", "not true or false"),
    ],
)
def test_a_yes_on_or_true_where_a_number_is_expected_is_refused(value, reason):
    from escaramuza.rules.core.errors import ScenarioError
    from escaramuza.rules.core.scenario import parse_scenario_text

    text = _shipped_text("destiny_dice/brann-vs-saqueador")
    assert "\n    pv: 16\n" in text
    with pytest.raises(ScenarioError) as info:
        parse_scenario_text(text.replace("\n    pv: 16\n", f"\n    pv: {value}\n"), "x.yaml")
    fields = {p.field: p.reason for p in info.value.problems}
    assert reason in fields["combatants[0].pv"]


#: What a model says of a bool where a number goes, and of text where a bool goes.
NOT_A_NUMBER = "not true or false"
NOT_A_BOOL = "Input should be true or false"


@pytest.mark.parametrize(
    ("name", "old", "new", "field", "reason"),
    [
        (
            "destiny_dice/brann-vs-saqueador",
            "round_limit: ",
            "round_limit: true #",
            "round_limit",
            NOT_A_NUMBER,
        ),
        (
            "donjon/duelo",
            "{celeridad: 4,",
            "{celeridad: true,",
            "combatants[0].attributes.celeridad",
            NOT_A_NUMBER,
        ),
        (
            "sistema_2d10/duelo",
            "{reflejos: 35,",
            "{reflejos: true,",
            "combatants[0].attributes.reflejos",
            NOT_A_NUMBER,
        ),
        (
            "sistema_2d10/duelo",
            "options: {}",
            "options: {stun_penalty: false}",
            "options.stun_penalty",
            NOT_A_NUMBER,
        ),
        (
            "cairn/duelo_bugbear",
            "pi: 6, fue: 14,",
            "pi: 6, fue: true,",
            "combatants[0].fue",
            NOT_A_NUMBER,
        ),
        # ...and text or a number no boolean: the YAML reader reads yes/on/no/1 as text
        # or a number (decision 0004), which the models must not turn into true or false.
        (
            "destiny_dice/emboscada",
            "exit: true}",
            "exit: yes}",
            "battlefield.zones[6].exit",
            NOT_A_BOOL,
        ),
        (
            "destiny_dice/emboscada",
            "difficult: true}",
            "difficult: on}",
            "battlefield.zones[1].difficult",
            NOT_A_BOOL,
        ),
        (
            "cairn/duelo_bugbear",
            "  morale: false\n",
            "  morale: no\n",
            "options.morale",
            NOT_A_BOOL,
        ),
        (
            "cairn/bandidos_destacamento",
            "blast: true}",
            "blast: 1}",
            "combatants[3].weapons[0].blast",
            NOT_A_BOOL,
        ),
        (
            "sistema_2d10/duelo",
            "    pc: false\n",
            '    pc: "false"\n',
            "combatants[1].pc",
            NOT_A_BOOL,
        ),
    ],
)
def test_a_boolean_is_no_integer_nor_text_a_boolean_in_any_rulesets_model(
    name, old, new, field, reason
):
    from escaramuza.rules.core.errors import ScenarioError
    from escaramuza.rules.core.scenario import parse_scenario_text

    text = _shipped_text(name)
    assert old in text
    with pytest.raises(ScenarioError) as info:
        parse_scenario_text(text.replace(old, new, 1), "x.yaml")
    fields = {p.field: p.reason for p in info.value.problems}
    assert reason in fields[field], fields


def test_a_boolean_is_no_integer_in_a_tables_file():
    from escaramuza.rules.core.errors import ScenarioError
    from escaramuza.rules.core.files import parse_yaml
    from escaramuza.rules.sistema_2d10.tables import default_tables_path, parse_tables

    with open(default_tables_path(), encoding="utf-8") as fh:
        text = fh.read()
    assert "multiplicador: 2}" in text
    data = parse_yaml(
        text.replace("multiplicador: 2}", "multiplicador: true}", 1), "t.yaml", ScenarioError
    )
    with pytest.raises(ScenarioError) as info:
        parse_tables(data, "t.yaml")
    assert any(
        p.field == "localizacion[0].multiplicador" and "not true or false" in p.reason
        for p in info.value.problems
    )


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
def test_a_json_number_that_is_not_finite_is_refused_with_its_field(number):
    from escaramuza.rules.core.files import parse_json

    with pytest.raises(_Err) as info:
        parse_json(f'{{"a": {{"b": [1, {number}]}}}}', "s.json", _Err)
    assert str(info.value) == (
        f"s.json|a.b[1]|number {number} is not finite; NaN and infinities are refused"
    )


def test_json_floats_and_integers_keep_reading_as_before():
    from escaramuza.rules.core.files import parse_json

    assert parse_json('{"a": 1.5, "b": -3, "c": 1e3}', "s.json", _Err) == {
        "a": 1.5,
        "b": -3,
        "c": 1000.0,
    }


@pytest.mark.parametrize(
    ("text", "field", "key"),
    [
        ('{"round": 1, "round": 2}', "round", "round"),
        ('{"a": [{"b": 1}, {"x": 1, "y": 2, "x": 3}]}', "a[1].x", "x"),
        ('{"a": {"b": {"c": 1, "c": 1}}}', "a.b.c", "c"),
    ],
)
def test_a_json_duplicate_key_is_refused_with_its_field(text, field, key):
    # json.loads would keep the last value; a YAML duplicate key is refused too.
    with pytest.raises(_Err) as info:
        parse_json(text, "s.json", _Err)
    assert (
        str(info.value)
        == f"s.json|{field}|duplicate key {key!r} (it appears earlier in the object)"
    )


def test_every_true_or_false_field_of_a_file_model_is_strict():
    """The rule behind the cases above, for every model a scenario file fills: a field
    typed ``bool`` takes a boolean only (pydantic's lax mode would take 'yes')."""
    import typing

    from pydantic import BaseModel, ValidationError

    from escaramuza.rules import RULESETS
    from escaramuza.rules.core.scenario_spec import scenario_model

    seen: set[type] = set()
    lax: list[str] = []

    def walk(model: type[BaseModel]) -> None:
        if model in seen:
            return
        seen.add(model)
        for fname, info in model.model_fields.items():
            for arg in _types_in(info.annotation):
                if isinstance(arg, type) and issubclass(arg, BaseModel):
                    walk(arg)
            if bool in _types_in(info.annotation):
                try:
                    model.__pydantic_validator__.validate_assignment(
                        model.model_construct(), fname, "yes"
                    )
                except ValidationError:
                    continue
                except Exception:  # another field's validator: the bool took 'yes'
                    pass
                lax.append(f"{model.__name__}.{fname}")

    def _types_in(annotation: object) -> list[object]:
        out = [annotation]
        for arg in typing.get_args(annotation):
            out.extend(_types_in(arg))
        return out

    for ruleset_id in RULESETS:
        walk(scenario_model(ruleset_id))
    assert len(seen) > 10
    assert lax == []
