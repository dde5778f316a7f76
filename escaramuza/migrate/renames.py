"""What ``escaramuza migrate`` renames in a file: the retired keys and values the loader
would name, each with the successor the vocabulary's tables give (a flag's successor
value read from the ruleset's schema), and the conflicts it refuses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import ValidationError

from escaramuza.rules.core.errors import EscaramuzaError, clip
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.pydantic_reasons import pydantic_problems
from escaramuza.rules.core.scenario_spec import scenario_model
from escaramuza.rules.core.vocabulary import field_path, retired, schema_nodes


class MigrateError(EscaramuzaError):
    """A file that cannot be migrated: names the file, the field and the reason."""

    def __init__(self, source: str, field: str, reason: str) -> None:
        self.source = source
        self.field = clip(field, 120)
        self.reason = clip(reason)
        where = f"{source}: {self.field}" if field else source
        super().__init__(f"{where}: {self.reason}")


@dataclass(frozen=True, slots=True)
class Change:
    """One retired key or value rewritten: where (``line`` of the text it is in) and what."""

    field: str
    line: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class _Rename:
    """A rename found in one round: the field (the file's path), the key and its new name
    (``None`` for a retired value), the new value (where one is written) and the reason."""

    field: str
    new_key: str | None
    new_value: str | None
    reason: str


# -- what to rename ------------------------------------------------------------------------


@cache
def _schema(ruleset: str) -> dict[str, Any]:
    return scenario_model(ruleset).model_json_schema()


def _ruleset(data: Mapping[str, Any], source: str) -> str:
    """The file's ruleset: the retired names that count depend on its stat block."""
    from escaramuza.rules import RULESETS

    ruleset = data.get("ruleset")
    if ruleset is None:
        raise MigrateError(
            source,
            "ruleset",
            _("required field is missing (which names are retired depends on it)"),
        )
    if not isinstance(ruleset, str) or ruleset not in RULESETS:
        raise MigrateError(
            source,
            "ruleset",
            _f(
                "unknown ruleset {name} (known: {known})",
                repr(str(ruleset)[:80]),
                ", ".join(RULESETS),
            ),
        )
    return ruleset


def _parent(data: Any, path: list[str | int]) -> dict[str, Any] | None:
    """The mapping that holds the last part of ``path``, if the path leads to one."""
    node = data
    for part in path[:-1]:
        if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(part, str) and isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node if isinstance(node, dict) else None


def _default(schema: Mapping[str, Any], path: list[str | int], key: str) -> str | None:
    """The default the schema gives ``key`` in the object at ``path``."""
    for node in schema_nodes(schema, path):
        prop = node.get("properties", {}).get(key)
        if isinstance(prop, Mapping) and isinstance(prop.get("default"), str):
            return str(prop["default"])
    return None


def _flag(value: Any) -> str:
    return "true" if value is True else "false" if value is False else repr(value)


def _renames(kind: str, data: dict[str, Any], source: str) -> list[_Rename]:
    """The retired keys and values the loader would name in ``data`` now.

    A scenario is validated as the loader validates it; a day's heroes as the stat blocks
    of a scenario (the day's loader puts them in each encounter on the heroes' side).
    """
    ruleset = _ruleset(data, source)
    schema = _schema(ruleset)
    prefix = "combatants"
    probe: Any = data
    if kind == "day":
        heroes = data.get("heroes")
        if not isinstance(heroes, list):
            return []
        prefix = "heroes"
        probe = {
            "ruleset": ruleset,
            "combatants": [
                {**h, "side": "heroes", "zone": ""} if isinstance(h, dict) else h for h in heroes
            ],
        }
    try:
        scenario_model(ruleset).model_validate(probe)
    except ValidationError as err:
        problems = pydantic_problems(err)
    else:
        return []
    out: list[_Rename] = []
    seen: set[tuple[int, str]] = set()  # (the mapping, its key): an alias shares a mapping
    successors: dict[tuple[int, str], str] = {}  # (the mapping, a successor) -> its field
    for problem in problems:
        found = retired(problem, schema)
        if found is None or not found.field.startswith("combatants["):
            continue
        field = prefix + found.field[len("combatants") :]
        path = field_path(field)
        parent, key = _parent(data, path), str(path[-1])
        if parent is None or key not in parent or (id(parent), key) in seen:
            continue
        seen.add((id(parent), key))
        if found.of_value:
            out.append(_Rename(field, None, found.new, found.reason))
            continue
        new_key = found.key
        if new_key in parent:
            raise MigrateError(
                source,
                field,
                _f(
                    "both `{key}` and `{new_key}` are written: keep one of them and migrate again",
                    key,
                    new_key,
                ),
            )
        if (id(parent), new_key) in successors:
            other = str(field_path(successors[id(parent), new_key])[-1])
            raise MigrateError(
                source,
                field,
                _f(
                    "`{other}` and `{key}` would both become `{new_key}`: keep one of them "
                    "and migrate again",
                    other,
                    key,
                    new_key,
                ),
            )
        successors[id(parent), new_key] = field
        new_value, reason = found.value, found.reason
        if new_value is not None:  # a flag that became a key's value
            old = parent[key]
            if old is False:
                new_value = _default(schema, field_path(found.field)[:-1], new_key)
                if new_value is None:
                    raise MigrateError(
                        source,
                        field,
                        _f(
                            "`{key}: false` has no successor: write `{new_key}` by hand",
                            key,
                            new_key,
                        ),
                    )
            elif old is not True:
                raise MigrateError(
                    source,
                    field,
                    _f(
                        "`{key}` is {value}: only `{key}: true` (`{new}`) or `{key}: false` can "
                        "be rewritten",
                        key,
                        _flag(old),
                        found.new,
                    ),
                )
            reason = _f(
                "`{key}: {value}` is now `{new_key}: {new_value}`",
                key,
                _flag(old),
                new_key,
                new_value,
            )
        out.append(_Rename(field, new_key, new_value, reason))
    return out
