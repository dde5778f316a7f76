"""The stat-block vocabulary's retired keys, "did you mean", and where a field is in a file.

The four rulesets' stat blocks share one vocabulary (the table in
docs/scenario-format.md). A key the vocabulary retired is not just "unknown": the
loader and ``escaramuza validate`` say what it is now (``"`armas` is now `weapons`"``),
and an unknown key that is close to a known one gets a "did you mean".

The retired names are one table for every ruleset (:data:`RETIRED_KEYS`), not one per
ruleset: a GM who learnt Donjon's ``armas`` and writes it in a Destiny Dice file means
``weapons`` as much. A retired key is reported as such only where its successor is a key
the ruleset's stat block has at that place (read from the scenario's JSON Schema), so
the message never names a key the file could not use.

The helpers here are the loader's and ``escaramuza validate``'s (one implementation):
:func:`field_path` splits ``combatants[0].weapons[1].name``, :func:`schema_keys` lists the
keys a JSON Schema allows at a path, :func:`did_you_mean` is :mod:`difflib`'s closest,
:func:`line_of` finds the line a field path leads to in a YAML (or JSON) text.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from escaramuza.rules.core.errors import Problem

#: Retired stat-block keys → the key that replaced them, by where they sit: ``""`` is the
#: combatant's own keys, ``"weapons"`` a weapon's. A value with ``": "`` names the new key
#: and the value it takes (Cairn's ``ranged: true`` is ``kind: distancia``).
RETIRED_KEYS: Mapping[str, Mapping[str, str]] = {
    "": {
        # Destiny Dice
        "armadura": "armour",
        "escudo": "shield",
        "energia": "energy",
        "energia_max": "energy_max",
        "pv_actual": "pv_current",
        # Donjon
        "armas": "weapons",
        "atributos": "attributes",
        "habilidades": "skills",
        "nivel": "level",
        "pj": "pc",
        # Sistema 2d10
        "caracteristicas": "attributes",
        "acciones": "actions",
        "acciones_extra": "extra_actions",
        "max_dados_expres": "dados_expres_max",
    },
    "weapons": {
        "nombre": "name",
        "tipo": "kind",
        "dano": "damage",
        "habilidad": "skill",
        "caracteristica": "attribute",
        "alcance": "reach",
        "ranged": "kind: distancia",
    },
}

#: Retired values of a key → their successor, by ``place.key`` as in :data:`RETIRED_KEYS`
#: (Destiny Dice's weapon kinds took the seeds' words, like the other rulesets').
RETIRED_VALUES: Mapping[str, Mapping[str, str]] = {
    "weapons.kind": {"melee": "cuerpo_a_cuerpo", "ranged": "distancia"},
}

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def field_path(field: str) -> list[str | int]:
    """``combatants[0].weapons[1].name`` → ``["combatants", 0, "weapons", 1, "name"]``."""
    return [int(index) if index else name for name, index in _PATH_PART.findall(field)]


def did_you_mean(value: str | None, known: Sequence[str]) -> str | None:
    """The known name closest to ``value`` (difflib, cutoff 0.6), unless it is ``value``."""
    if not value or not known:
        return None
    close = difflib.get_close_matches(value, list(known), n=1, cutoff=0.6)
    return close[0] if close and close[0] != value else None


def schema_keys(schema: Mapping[str, Any], path: Sequence[str | int]) -> list[str]:
    """The property names a JSON Schema allows in the object at ``path``."""
    defs = schema.get("$defs", {})

    def expand(node: Any) -> list[Mapping[str, Any]]:
        if not isinstance(node, Mapping):
            return []
        if "$ref" in node:
            return expand(defs.get(node["$ref"].rsplit("/", 1)[-1]))
        out = [node]
        for key in ("anyOf", "oneOf", "allOf"):
            for branch in node.get(key, []):
                out.extend(expand(branch))
        return out

    nodes = expand(schema)
    for part in path:
        following: list[Mapping[str, Any]] = []
        for node in nodes:
            if isinstance(part, int):
                following.extend(expand(node.get("items")))
                prefix = node.get("prefixItems", [])
                if part < len(prefix):
                    following.extend(expand(prefix[part]))
            elif part in node.get("properties", {}):
                following.extend(expand(node["properties"][part]))
            elif isinstance(node.get("additionalProperties"), Mapping):
                following.extend(expand(node["additionalProperties"]))
        nodes = following
    return sorted({key for node in nodes for key in node.get("properties", {})})


def _place(path: Sequence[str | int]) -> str | None:
    """Where in a stat block ``path`` (to an object) is: ``""`` a combatant, ``"weapons"``
    one of its weapons; ``None`` outside the combatants."""
    if len(path) < 2 or path[0] != "combatants" or not isinstance(path[1], int):
        return None
    return ".".join(part for part in path[2:] if isinstance(part, str))


def explain(problems: Sequence[Problem], schema: Mapping[str, Any]) -> list[Problem]:
    """``problems`` with what the vocabulary knows added.

    An unknown key the vocabulary retired becomes "`armas` is now `weapons`"; any other
    unknown key gets the keys allowed where it stands as its ``known`` (for the "did you
    mean"); a retired value of a known key becomes "`ranged` is now `distancia`". A
    required key reported missing where its retired name is written is left out: the
    retired key's message says all.
    """
    out: list[Problem] = []
    renamed: set[str] = set()  # the fields a retired key stands for
    for problem in problems:
        path = field_path(problem.field)
        place = _place(path[:-1]) if path and isinstance(path[-1], str) else None
        key = str(path[-1]) if path else ""
        if problem.reason == "unknown field":
            allowed = schema_keys(schema, path[:-1])
            new = RETIRED_KEYS.get(place, {}).get(key) if place is not None else None
            if new is not None and new.split(":")[0] in allowed:
                problem = Problem(problem.field, f"`{key}` is now `{new}`", key, at_key=True)
                parent = problem.field.rpartition(".")[0]
                renamed.add(f"{parent}.{new.split(':')[0]}" if parent else new.split(":")[0])
            else:
                problem = replace(problem, known=problem.known or tuple(allowed))
        elif place is not None and problem.value is not None:
            where = f"{place}.{key}" if place else key
            new = RETIRED_VALUES.get(where, {}).get(problem.value)
            if new is not None and new in problem.known:
                problem = Problem(problem.field, f"`{problem.value}` is now `{new}`")
        out.append(problem)
    return [p for p in out if not (p.reason == "required field is missing" and p.field in renamed)]


def compose(text: str) -> Any:
    """The YAML node tree of ``text`` (JSON is YAML too), or ``None`` if it does not parse."""
    import yaml

    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None


def line_of(root: Any, field: str, key_line: bool) -> int | None:
    """The 1-based line of the node ``field`` leads to in ``root`` (:func:`compose`); with
    ``key_line`` (an unknown or retired key) the line of its key. Stops at the deepest
    node that exists."""
    import yaml

    if root is None:
        return None
    line: int
    node, line = root, root.start_mark.line + 1
    for part in field_path(field):
        child = None
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for key, value in node.value:
                if key.value == part:
                    line = (key if key_line else value).start_mark.line + 1
                    child = value
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if 0 <= part < len(node.value):
                child = node.value[part]
                line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line


def with_lines(problems: Sequence[Problem], text: str) -> list[Problem]:
    """``problems`` with the line each field is at in ``text`` (where the path leads)."""
    root = compose(text)
    return [
        replace(p, line=line_of(root, p.field, p.at_key or p.reason == "unknown field"))
        if p.field and p.line is None and root is not None
        else p
        for p in problems
    ]
