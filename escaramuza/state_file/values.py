"""The values of a state file's bookkeeping (``data``), written and read back.

Bookkeeping values (``data``) are immutable by the engine contract (ints,
strings, tuples, frozen dataclasses, None). They are written generically:
tuples as JSON lists (read back as tuples), the registered frozen dataclasses
as ``{"$type": "module:Class", "fields": {...}}``,
enums as ``{"$enum": "module:Class", "value": …}``, frozensets as
``{"$frozenset": [...]}``. A dataclass value equal to the one a fresh battle
of the scenario holds (a Sistema 2d10 combatant's derived ``profile``, the
damage tables) is written as ``{"$scenario": true}`` and taken from the
scenario on load, which keeps files small and readable.

Only the classes of an explicit registry are decoded (:func:`state_types`: the core's and
each ruleset's ``bookkeeping.STATE_TYPES``); nothing is ever imported by a name the file
gives.
"""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from functools import cache
from typing import Any

from escaramuza.rules import RULESETS, get_bookkeeping
from escaramuza.rules.core.bookkeeping import CORE_STATE_TYPES
from escaramuza.rules.core.bookkeeping import short as _short
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.ruleset import new_battle
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file.errors import StateFileError

_SCENARIO_MARK = "$scenario"


class _Unencodable(Exception):
    pass


# -- values ---------------------------------------------------------------------------


def encode_value(value: Any) -> Any:
    """A bookkeeping value as JSON (see the module docstring); raises on anything mutable."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Enum):
        cls = type(value)
        return {"$enum": f"{cls.__module__}:{cls.__qualname__}", "value": value.value}
    if isinstance(value, tuple):
        return [encode_value(v) for v in value]
    if isinstance(value, frozenset):
        items = [encode_value(v) for v in value]
        return {"$frozenset": sorted(items, key=lambda v: json.dumps(v, sort_keys=True))}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        return {
            "$type": f"{cls.__module__}:{cls.__qualname__}",
            "fields": {
                f.name: encode_value(getattr(value, f.name)) for f in dataclasses.fields(value)
            },
        }
    raise _Unencodable(type(value).__name__)


def _type_ref(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


@cache
def state_types() -> dict[str, type]:
    """Every class a state file may name (``$type``/``$enum``), by its ``module:Class``.

    The core's values and each ruleset's ``bookkeeping.STATE_TYPES`` — an explicit list,
    so a file can never make the loader import a module.
    """
    classes: list[type] = list(CORE_STATE_TYPES)
    for ruleset_id in RULESETS:
        classes.extend(get_bookkeeping(ruleset_id).STATE_TYPES)
    return {_type_ref(cls): cls for cls in classes}


def _registered_class(ref: Any, field: str, source: str) -> type:
    cls = state_types().get(ref) if isinstance(ref, str) else None
    if cls is None:
        shown = ref if isinstance(ref, str) and len(ref) <= 80 else f"{str(ref)[:80]}…"
        raise StateFileError(
            source,
            field,
            _f(
                "unknown type {type} (a state holds only the rulesets' own bookkeeping types; "
                "see docs/gm.md)",
                repr(shown),
            ),
        )
    return cls


def decode_value(raw: Any, field: str, source: str, reference: Any = None) -> Any:
    """The inverse of :func:`encode_value`; ``reference`` supplies ``{"$scenario": true}``."""
    if raw is None or isinstance(raw, bool | int | float | str):
        return raw
    if isinstance(raw, list):
        return tuple(decode_value(v, f"{field}[{i}]", source) for i, v in enumerate(raw))
    if not isinstance(raw, dict):
        raise StateFileError(source, field, _f("unsupported value {value}", _short(raw)))
    if raw.get(_SCENARIO_MARK) is True:
        if reference is None:
            raise StateFileError(source, field, _("the scenario has no value to take here"))
        return reference
    if "$frozenset" in raw:
        items = raw["$frozenset"]
        if not isinstance(items, list):
            raise StateFileError(source, field, _("$frozenset must be a list"))
        return frozenset(decode_value(v, f"{field}[{i}]", source) for i, v in enumerate(items))
    if "$enum" in raw:
        cls = _registered_class(raw["$enum"], field, source)
        if not issubclass(cls, Enum):
            raise StateFileError(source, field, _f("{type} is not an enum", _short(raw["$enum"])))
        try:
            return cls(raw.get("value"))
        except (ValueError, TypeError):
            bad = _f("bad {type} {value}", cls.__name__, _short(raw.get("value")))
            raise StateFileError(source, field, bad) from None
    if "$type" in raw:
        return _decode_dataclass(raw, field, source)
    raise StateFileError(source, field, _("unsupported JSON object (no $type, $enum, $frozenset)"))


def _decode_dataclass(raw: dict[str, Any], field: str, source: str) -> Any:
    """``{"$type": …, "fields": {…}}``: a registered frozen dataclass, every field it
    declares without a default given and no other."""
    cls = _registered_class(raw["$type"], field, source)
    fields = raw.get("fields")
    if not dataclasses.is_dataclass(cls) or not isinstance(fields, dict):
        raise StateFileError(
            source, field, _f("{type} needs a dataclass and fields", _short(raw["$type"]))
        )
    declared = dataclasses.fields(cls)
    unknown = sorted(set(fields) - {f.name for f in declared})
    if unknown:
        raise StateFileError(source, f"{field}.{unknown[0]}", _("unknown field"))
    missing = [f.name for f in declared if f.name not in fields and _required(f)]
    if missing:
        raise StateFileError(source, f"{field}.{missing[0]}", _("required field is missing"))
    values = {k: decode_value(v, f"{field}.{k}", source) for k, v in fields.items()}
    try:
        return cls(**values)
    except TypeError as exc:  # a class's own check of its values
        raise StateFileError(source, field, str(exc)) from None


def _required(f: dataclasses.Field[Any]) -> bool:
    """Whether a dataclass field has no default (the file must give it)."""
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def _encode_data(
    data: dict[str, Any], reference: dict[str, Any], field: str, source: str
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        ref = reference.get(key, _MISSING)
        if dataclasses.is_dataclass(value) and (ref is value or ref == value):
            out[key] = {_SCENARIO_MARK: True}
            continue
        try:
            out[key] = encode_value(value)
        except _Unencodable as exc:
            if ref is value or ref == value:
                out[key] = {_SCENARIO_MARK: True}
            else:
                raise StateFileError(
                    source,
                    f"{field}.{key}",
                    _f("a {type} cannot be saved (not an immutable value)", str(exc)),
                ) from None
    return out


_MISSING = object()


def _reference_battle(scenario: Scenario) -> BattleState:
    # The fresh battle supplies the values written as {"$scenario": true}; its dice do
    # not matter because only scenario-derived values are ever taken from it.
    return new_battle(scenario, RandomRoller(0))
