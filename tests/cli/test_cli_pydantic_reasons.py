"""Every pydantic error type the loader words itself, in both languages.

Each row makes pydantic raise that error for real (a broken file, or, for the types no
scenario model produces, a small model of this module) and checks the reason
:func:`~escaramuza.rules.core.pydantic_reasons.pydantic_problems` gives in both languages.
The broken files are shipped scenarios edited as in
:mod:`tests.cli.test_cli_loader_lang`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import pytest
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from escaramuza.rules.core.i18n import language
from escaramuza.rules.core.scenario import ScenarioSpec, pydantic_problems, scenario_model
from tests.cli.test_cli_loader_lang import DUEL, edit, shipped

# -- every pydantic error type the loader words ---------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Cat(_Strict):
    kind: Literal["cat"]


class _Dog(_Strict):
    kind: Literal["dog"]


class _Loose(_Strict):
    """A model with the field kinds no scenario model has (floats, strict bounds, a
    discriminated union, a model read from attributes, a lax boolean as a training
    config has: a file's booleans are strict)."""

    ratio: float = 0.0
    flag: bool = False
    above: Annotated[int, Field(gt=0)] = 1
    below: Annotated[int, Field(lt=10)] = 1
    even: Annotated[int, Field(multiple_of=2)] = 2
    pet: Annotated[_Cat | _Dog, Field(discriminator="kind")] = _Cat(kind="cat")


class _FromAttributes(_Strict):
    model_config = ConfigDict(from_attributes=True)

    ratio: float = 0.0


class _Holder(_Strict):
    inner: _FromAttributes


Error = Callable[[], ValidationError]


def in_file(ruleset: str, text: str) -> Error:
    """The error of ``text`` (a scenario) against its ruleset's whole-file model."""

    def error() -> ValidationError:
        with pytest.raises(ValidationError) as info:
            scenario_model(ruleset).model_validate(yaml.safe_load(text))
        return info.value

    return error


def in_model(model: type[BaseModel], data: Any, json: bool = False) -> Error:
    """The error of ``data`` against ``model``; with ``json``, of ``data`` read as JSON
    text (as the web API reads a request's body)."""

    def error() -> ValidationError:
        with pytest.raises(ValidationError) as info:
            if json:
                model.model_validate_json(data)
            else:
                model.model_validate(data)
        return info.value

    return error


DUEL_S2 = shipped("sistema_2d10/duelo")
DUEL_DJ = shipped("donjon/duelo")
FIVE_WEAPONS = "    weapons:\n" + "".join(
    f"      - {{name: arma{i}, tier: ligera}}\n" for i in range(5)
)
MANY_ATTRIBUTES = "{" + ", ".join(f"a{i}: 1" for i in range(33)) + "}"

#: (pydantic error type, its error, the field, words of the English reason, of the Spanish)
TYPES: list[tuple[str, Error, str, str, str]] = [
    (
        "missing",
        in_file("destiny_dice", edit(DUEL, "    pv: 16\n", "")),
        "combatants[0].pv",
        "required field is missing",
        "falta este campo obligatorio",
    ),
    (
        "extra_forbidden",
        in_file("destiny_dice", edit(DUEL, "round_limit: 20", "round_limit: 20\nclima: lluvia")),
        "clima",
        "unknown field",
        "campo desconocido",
    ),
    (
        "int_parsing",
        in_file("destiny_dice", edit(DUEL, "pv: 16", "pv: catorce")),
        "combatants[0].pv",
        "Input should be a valid integer, not 'catorce'",
        "'catorce' no es un número entero",
    ),
    (
        "int_type",
        in_file("destiny_dice", edit(DUEL, "pv: 16", "pv: [16]")),
        "combatants[0].pv",
        "Input should be a valid integer, not [16]",
        "[16] no es un número entero",
    ),
    (
        "int_type",  # a boolean: this project's own check (scenario.NOT_A_BOOL)
        in_file("destiny_dice", edit(DUEL, "pv: 16", "pv: true")),
        "combatants[0].pv",
        "Input should be a valid integer, not true or false",
        "debe ser un número entero, no true ni false",
    ),
    (
        "int_from_float",
        in_file("destiny_dice", edit(DUEL, "pv: 16", "pv: 16.5")),
        "combatants[0].pv",
        "Input should be a valid integer, not 16.5",
        "16.5 no es un número entero",
    ),
    (
        "float_parsing",
        in_model(_Loose, {"ratio": "mucho"}),
        "ratio",
        "Input should be a valid number, not 'mucho'",
        "'mucho' no es un número",
    ),
    (
        "float_type",
        in_model(_Loose, {"ratio": [1]}),
        "ratio",
        "Input should be a valid number, not [1]",
        "[1] no es un número",
    ),
    (
        "bool_parsing",
        in_model(_Loose, {"flag": "quizá"}),
        "flag",
        "Input should be true or false, not 'quizá'",
        "debe ser true o false, no 'quizá'",
    ),
    (
        "bool_type",
        in_file(
            "destiny_dice", edit(DUEL, "{id: sala, name: Sala de guardia}", "{id: sala, exit: [1]}")
        ),
        "battlefield.zones[1].exit",
        "Input should be true or false, not [1]",
        "debe ser true o false, no [1]",
    ),
    (
        "string_type",
        in_file("destiny_dice", edit(DUEL, "name: Brann", "name: [Brann]")),
        "combatants[0].name",
        "Input should be a valid string, not ['Brann']",
        "['Brann'] no es un texto",
    ),
    (
        "literal_error",
        in_file("destiny_dice", edit(DUEL, "tier: media}", "tier: enorme}")),
        "combatants[0].weapons[0].tier",
        "Input should be 'desarmado', 'ligera', 'media' or 'pesada', not 'enorme'",
        "debe ser 'desarmado', 'ligera', 'media' o 'pesada', no 'enorme'",
    ),
    (
        "enum",
        in_file("destiny_dice", edit(DUEL, "side: heroes", "side: enorme")),
        "combatants[0].side",
        "Input should be 'heroes' or 'enemies', not 'enorme'",
        "debe ser 'heroes' o 'enemies', no 'enorme'",
    ),
    (
        "greater_than_equal",
        in_file("destiny_dice", edit(DUEL, "pv: 16", "pv: 0")),
        "combatants[0].pv",
        "Input should be greater than or equal to 1, not 0",
        "debe ser mayor o igual que 1, no 0",
    ),
    (
        "less_than_equal",
        in_file("destiny_dice", edit(DUEL, "round_limit: 20", "round_limit: 99")),
        "round_limit",
        "Input should be less than or equal to 50, not 99",
        "debe ser menor o igual que 50, no 99",
    ),
    (
        "greater_than",
        in_model(_Loose, {"above": 0}),
        "above",
        "Input should be greater than 0, not 0",
        "debe ser mayor que 0, no 0",
    ),
    (
        "less_than",
        in_model(_Loose, {"below": 10}),
        "below",
        "Input should be less than 10, not 10",
        "debe ser menor que 10, no 10",
    ),
    (
        "too_short",
        in_file(
            "destiny_dice",
            edit(
                DUEL,
                "    - {id: pasillo, name: Pasillo}\n    - {id: sala, name: Sala de guardia}\n",
                "    []\n",
            ).replace("  zones:\n    []", "  zones: []"),
        ),
        "battlefield.zones",
        "List should have at least 1 item, not 0",
        "la lista debe tener al menos 1 elemento y tiene 0",
    ),
    (
        "too_long",
        in_file(
            "destiny_dice",
            edit(DUEL, "    weapons:\n      - {name: espada corta, tier: media}\n", FIVE_WEAPONS),
        ),
        "combatants[0].weapons",
        "List should have at most 4 items, not 5",
        "la lista debe tener como mucho 4 elementos y tiene 5",
    ),
    (
        "too_long",
        in_file(
            "sistema_2d10",
            edit(
                DUEL_S2,
                "attributes: {reflejos: 35, sentidos: 30, aguante: 30, destreza: 38}",
                f"attributes: {MANY_ATTRIBUTES}",
            ),
        ),
        "combatants[0].attributes",
        "Dictionary should have at most 32 items, not 33",
        "el diccionario debe tener como mucho 32 elementos y tiene 33",
    ),
    (
        "string_too_short",
        in_file("destiny_dice", edit(DUEL, "{name: espada corta,", "{name: '',")),
        "combatants[0].weapons[0].name",
        "String should have at least 1 character; '' has 0",
        "el texto debe tener al menos 1 carácter; '' tiene 0",
    ),
    (
        "string_too_long",
        in_file("destiny_dice", edit(DUEL, "{id: sala,", "{id: " + "s" * 70 + ",")),
        "battlefield.zones[1].id",
        "String should have at most 64 characters; 'sss",
        "el texto debe tener como mucho 64 caracteres; 'sss",
    ),
    (
        "string_pattern_mismatch",
        in_file("donjon", edit(DUEL_DJ, "{name: espada,", "{name: ' espada',")),
        "combatants[0].weapons[0].name",
        "' espada' does not match the pattern",
        "' espada' no sigue el patrón",
    ),
    (
        "list_type",
        in_file(
            "destiny_dice",
            edit(
                DUEL,
                "    weapons:\n      - {name: espada corta, tier: media}\n",
                "    weapons: espada\n",
            ),
        ),
        "combatants[0].weapons",
        "Input should be a valid list, not 'espada'",
        "'espada' no es una lista",
    ),
    (
        "tuple_type",
        in_file("destiny_dice", edit(DUEL, "    - [pasillo, sala]", "    - pasillo")),
        "battlefield.links[0]",
        "Input should be a valid list, not 'pasillo'",
        "'pasillo' no es una lista",
    ),
    (
        "model_type",
        in_file(
            "destiny_dice", edit(DUEL, "      - {name: espada corta, tier: media}", "      - 7")
        ),
        "combatants[0].weapons[0]",
        "Input should be a mapping (key: value), not 7",
        "7 no es un diccionario (clave: valor)",
    ),
    (
        "dict_type",
        in_file(
            "sistema_2d10",
            edit(
                DUEL_S2,
                "attributes: {reflejos: 35, sentidos: 30, aguante: 30, destreza: 38}",
                "attributes: 5",
            ),
        ),
        "combatants[0].attributes",
        "Input should be a mapping (key: value), not 5",
        "5 no es un diccionario (clave: valor)",
    ),
    (
        "model_attributes_type",
        in_model(_Holder, {"inner": 3}),
        "inner",
        "Input should be a mapping (key: value), not 3",
        "3 no es un diccionario (clave: valor)",
    ),
    (
        "union_tag_invalid",
        in_model(_Loose, {"pet": {"kind": "cow"}}),
        "pet",
        "'kind' should be 'cat' or 'dog', not 'cow'",
        "'kind' debe ser 'cat' o 'dog', no 'cow'",
    ),
    (
        "union_tag_not_found",
        in_model(_Loose, {"pet": {}}),
        "pet",
        "'kind' is missing",
        "falta 'kind'",
    ),
    (
        "value_error",
        in_file("destiny_dice", edit(DUEL, "    pv: 16\n", "    pv: 16\n    pv_current: 17\n")),
        "combatants[0]",
        "pv_current cannot exceed pv",
        "pv_current no puede superar pv",
    ),
    (
        "unknown_name",  # this project's own error type: the ruleset's validator words it
        in_model(
            ScenarioSpec, yaml.safe_load(edit(DUEL, "ruleset: destiny_dice", "ruleset: ajedrez"))
        ),
        "ruleset",
        "unknown ruleset 'ajedrez' (known: ",
        "reglamento desconocido 'ajedrez' (conocidos: ",
    ),
    (
        "json_invalid",  # a body that is not JSON (the web API's requests): the parser's words
        in_model(_Loose, '{"ratio": ', json=True),
        "",
        "not valid JSON: EOF while parsing a value",
        "JSON no válido: EOF while parsing a value",
    ),
    (
        "multiple_of",  # a type the loader has no words of its own for: pydantic's, echoed
        in_model(_Loose, {"even": 3}),
        "even",
        "Input should be a multiple of 2 (got 3)",
        "Input should be a multiple of 2 (se recibió 3)",
    ),
]


@pytest.mark.parametrize(
    ("kind", "error", "field", "english", "spanish"),
    TYPES,
    ids=[f"{row[0]}-{i}" for i, row in enumerate(TYPES)],
)
@pytest.mark.parametrize("lang", ["en", "es"])
def test_each_pydantic_error_type_has_a_reason_in_each_language(
    lang: str, kind: str, error: Error, field: str, english: str, spanish: str
) -> None:
    with language(lang):
        err = error()  # validated inside the language, as the loader does
        assert kind in [e["type"] for e in err.errors()], err.errors()
        problems = pydantic_problems(err)
    wanted = english if lang == "en" else spanish
    found = [p.reason for p in problems if p.field == field]
    assert any(wanted in reason for reason in found), (field, found, problems)
    if lang == "es":
        assert not any(english in reason for reason in found), found
        if kind != "multiple_of":  # the fallback keeps pydantic's own English
            assert not any("Input should" in reason for reason in found), found
    assert not any(reason.startswith("Value error") for reason in found), found
