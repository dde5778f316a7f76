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
:func:`retired` tells the problem of a retired name and its successor (:class:`Retired`):
the loader's message and ``escaramuza migrate``'s rename are read from it alike.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from escaramuza.rules.core.errors import Problem
from escaramuza.rules.core.i18n import N_, _, _f

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


def schema_nodes(schema: Mapping[str, Any], path: Sequence[str | int]) -> list[Mapping[str, Any]]:
    """The JSON Schema nodes (``$ref``, ``anyOf``, ``oneOf`` and ``allOf`` followed) that
    describe the value at ``path``."""
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
    return nodes


def schema_keys(schema: Mapping[str, Any], path: Sequence[str | int]) -> list[str]:
    """The property names a JSON Schema allows in the object at ``path``."""
    return sorted(
        {key for node in schema_nodes(schema, path) for key in node.get("properties", {})}
    )


def _place(path: Sequence[str | int]) -> str | None:
    """Where in a stat block ``path`` (to an object) is: ``""`` a combatant, ``"weapons"``
    one of its weapons; ``None`` outside the combatants."""
    if len(path) < 2 or path[0] != "combatants" or not isinstance(path[1], int):
        return None
    return ".".join(part for part in path[2:] if isinstance(part, str))


@dataclass(frozen=True, slots=True)
class Retired:
    """A retired name a problem of a stat block stands for, and its successor.

    ``old`` is the retired key (``armas``) or value (``melee``); ``new`` is its successor
    as :data:`RETIRED_KEYS` or :data:`RETIRED_VALUES` writes it: a key, a key with the
    value it takes (``kind: distancia``), or a value.
    """

    field: str  #: the problem's field: the retired key's, or its key's for a value
    old: str
    new: str
    of_value: bool = False  #: a retired value of a known key, not a retired key

    @property
    def key(self) -> str:
        """The successor key of a retired key (``kind`` of ``kind: distancia``)."""
        return self.new.split(":")[0]

    @property
    def value(self) -> str | None:
        """The value the successor key takes, where the table names one (``distancia``)."""
        return self.new.split(": ", 1)[1] if ": " in self.new else None

    @property
    def reason(self) -> str:
        """What the loader and ``escaramuza validate`` say: "`armas` is now `weapons`"."""
        return _f(_RETIRED, self.old, self.new)


#: :attr:`Retired.reason`; the names are the file's, the sentence the current language's.
_RETIRED = N_("`{old}` is now `{new}`")


def says_retired(reason: str) -> bool:
    """Whether ``reason`` is a retired key's or value's (:attr:`Retired.reason`, in the
    current language; a day file's problem of a hero prefixes it)."""
    return _retired_pattern(_(_RETIRED)).search(reason) is not None


@cache
def _retired_pattern(template: str) -> re.Pattern[str]:
    """The end of a :attr:`Retired.reason` written with ``template``."""
    name = "`[^`]+`"
    escaped = re.escape(template)
    pattern = escaped.replace(re.escape("`{old}`"), name).replace(re.escape("`{new}`"), name)
    return re.compile(pattern + "$")


def retired(problem: Problem, schema: Mapping[str, Any]) -> Retired | None:
    """The retired name ``problem`` (a loader's "unknown field" or bad value) stands for,
    or ``None``.

    A retired key counts only where its successor is a key the stat block described by
    ``schema`` has at that place; a retired value only where its successor is one of the
    values the problem says are allowed (``problem.known``). :func:`explain` words these
    problems with it and ``escaramuza migrate`` renames by it, so both name the same.
    """
    path = field_path(problem.field)
    place = _place(path[:-1]) if path and isinstance(path[-1], str) else None
    if place is None:
        return None
    key = str(path[-1])
    if problem.reason == _("unknown field"):
        new = RETIRED_KEYS.get(place, {}).get(key)
        if new is not None and new.split(":")[0] in schema_keys(schema, path[:-1]):
            return Retired(problem.field, key, new)
    elif problem.value is not None:
        where = f"{place}.{key}" if place else key
        new = RETIRED_VALUES.get(where, {}).get(problem.value)
        if new is not None and new in problem.known:
            return Retired(problem.field, problem.value, new, of_value=True)
    return None


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
    allowed_at: dict[tuple[str | int, ...], tuple[str, ...]] = {}  # a parent's keys, once
    for problem in problems:
        found = retired(problem, schema)
        if found is not None and not found.of_value:
            parent = problem.field.rpartition(".")[0]
            renamed.add(f"{parent}.{found.key}" if parent else found.key)
            problem = Problem(problem.field, found.reason, found.old, at_key=True)
        elif found is not None:
            problem = Problem(problem.field, found.reason)
        elif problem.reason == _("unknown field"):
            above = tuple(field_path(problem.field)[:-1])
            if above not in allowed_at:
                allowed_at[above] = tuple(schema_keys(schema, above))
            problem = replace(problem, known=problem.known or allowed_at[above])
        out.append(problem)
    missing = _("required field is missing")
    return [p for p in out if not (p.reason == missing and p.field in renamed)]


def compose(text: str) -> Any:
    """The YAML node tree of ``text`` (JSON is YAML too), or ``None`` if it does not parse.

    Composed with PyYAML's C parser where libyaml is installed (as the loader's parser):
    the pure-Python one takes seconds per megabyte. It has no bound of its own: give it
    only a text :func:`~escaramuza.rules.core.parsers.parse_yaml` (or ``parse_json``) has
    accepted, which bounds the nesting and the aliases and refuses a key that is not a
    scalar.
    """
    import yaml

    try:
        return yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None


class FieldLines:
    """Where the fields of one composed tree (:func:`compose`) are: :meth:`line` finds the
    1-based line a field path leads to.

    Each mapping's keys are indexed the first time a path goes through it, so the lines of
    many fields take one pass over the mappings they cross and one step per part of each
    path, not a search of a mapping's keys for each field (minutes for a file of thousands
    of unknown keys).
    """

    def __init__(self, root: Any) -> None:
        self.root = root
        self._keys: dict[int, dict[str, tuple[Any, Any]]] = {}  # id(mapping) -> key -> nodes

    def _pairs(self, node: Any) -> dict[str, tuple[Any, Any]]:
        import yaml

        pairs = self._keys.get(id(node))
        if pairs is None:
            pairs = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    pairs.setdefault(key.value, (key, value))  # the first, as YAML reads it
            self._keys[id(node)] = pairs
        return pairs

    def line(self, field: str, key_line: bool) -> int | None:
        """The line of the node ``field`` leads to; with ``key_line`` (an unknown or
        retired key) the line of its key. Stops at the deepest node that exists."""
        import yaml

        root = self.root
        if root is None:
            return None
        line: int
        node, line = root, root.start_mark.line + 1
        for part in field_path(field):
            child = None
            if isinstance(node, yaml.MappingNode) and isinstance(part, str):
                found = self._pairs(node).get(part)
                if found is not None:
                    key, child = found
                    line = (key if key_line else child).start_mark.line + 1
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
                if 0 <= part < len(node.value):
                    child = node.value[part]
                    line = child.start_mark.line + 1
            if child is None:
                break
            node = child
        return line


def line_of(root: Any, field: str, key_line: bool) -> int | None:
    """The 1-based line of the node ``field`` leads to in ``root`` (:func:`compose`); with
    ``key_line`` (an unknown or retired key) the line of its key. Stops at the deepest
    node that exists. For many fields of one tree, :class:`FieldLines` finds each in
    constant time."""
    return FieldLines(root).line(field, key_line)


def with_lines(problems: Sequence[Problem], text: str) -> list[Problem]:
    """``problems`` with the line each field is at in ``text`` (where the path leads).

    ``text`` is one :func:`~escaramuza.rules.core.parsers.parse_yaml` has accepted."""
    root = compose(text)
    if root is None:
        return list(problems)
    lines = FieldLines(root)
    unknown = _("unknown field")  # the loader's reason, in the current language
    return [
        replace(p, line=lines.line(p.field, p.at_key or p.reason == unknown))
        if p.field and p.line is None
        else p
        for p in problems
    ]
