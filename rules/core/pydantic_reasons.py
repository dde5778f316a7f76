"""pydantic's validation errors in a file's words and the current language: each error
a :class:`~escaramuza.rules.core.errors.Problem` with its field path and a translated
reason that quotes the value written (``'catorce'``). The scenario loader, the tables
loader and ``escaramuza migrate`` read a model's errors through :func:`pydantic_problems`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from escaramuza.rules.core.errors import Problem, clip
from escaramuza.rules.core.i18n import N_, _, _f, either, ngettext
from escaramuza.rules.core.parsers import json_problem

#: The reason a ``true``/``false`` where an integer belongs gives.
_NOT_TRUE_OR_FALSE = N_("Input should be a valid integer, not true or false")


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            # pydantic reports union branches (e.g. "LinkSpec"); they mean nothing to a user.
            if part and part[0].isupper() or part.startswith("tuple["):
                continue
            out += f".{part}" if out else str(part)
    return out


#: Longest echo of a file's value in a reason (the field path already says where it is).
_ECHO_MAX = 60


def _echo(value: object) -> str:
    """A value of a file as a reason quotes it: text in quotes, ``true``, ``false`` and
    ``null`` as YAML and JSON write them, anything else as Python writes it; cut."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(clip(value, _ECHO_MAX))
    return clip(repr(value), _ECHO_MAX)


def _one_of(names: Sequence[str]) -> str:
    """``'a', 'b' or 'c'`` in the current language."""
    return either([repr(name) for name in names])


#: Reasons whose only field is the value written, by pydantic error type.
_VALUE_REASONS: dict[str, str] = {
    "int_parsing": N_("Input should be a valid integer, not {value}"),
    "int_type": N_("Input should be a valid integer, not {value}"),
    "int_from_float": N_("Input should be a valid integer, not {value}"),
    "float_parsing": N_("Input should be a valid number, not {value}"),
    "float_type": N_("Input should be a valid number, not {value}"),
    "bool_parsing": N_("Input should be true or false, not {value}"),
    "bool_type": N_("Input should be true or false, not {value}"),
    "string_type": N_("Input should be a valid string, not {value}"),
    # YAML has lists only: a tuple of the model is written as a list.
    "list_type": N_("Input should be a valid list, not {value}"),
    "tuple_type": N_("Input should be a valid list, not {value}"),
    "dict_type": N_("Input should be a mapping (key: value), not {value}"),
    "model_type": N_("Input should be a mapping (key: value), not {value}"),
    "model_attributes_type": N_("Input should be a mapping (key: value), not {value}"),
}

#: Reasons of a bound, by pydantic error type: the ``ctx`` key of the bound and the text.
_BOUND_REASONS: dict[str, tuple[str, str]] = {
    "greater_than_equal": (
        "ge",
        N_("Input should be greater than or equal to {bound}, not {value}"),
    ),
    "less_than_equal": ("le", N_("Input should be less than or equal to {bound}, not {value}")),
    "greater_than": ("gt", N_("Input should be greater than {bound}, not {value}")),
    "less_than": ("lt", N_("Input should be less than {bound}, not {value}")),
}


def _size_reason(error: ErrorDetails) -> str | None:
    """The reason of a list, mapping or tuple with too few or too many items, or ``None``
    for another kind of container (the caller falls back to pydantic's message)."""
    ctx = error.get("ctx") or {}
    given = error.get("input")
    actual = ctx.get("actual_length")
    if actual is None and isinstance(given, list | tuple | dict | str):
        actual = len(given)
    kind = ctx.get("field_type")
    if actual is None or kind not in ("List", "Dictionary", "Tuple"):
        return None
    if error["type"] == "too_short":
        n = int(ctx["min_length"])
        if kind == "List":
            template = ngettext(
                "List should have at least {n} item, not {actual}",
                "List should have at least {n} items, not {actual}",
                n,
            )
        elif kind == "Dictionary":
            template = ngettext(
                "Dictionary should have at least {n} item, not {actual}",
                "Dictionary should have at least {n} items, not {actual}",
                n,
            )
        else:
            template = ngettext(
                "Tuple should have at least {n} item, not {actual}",
                "Tuple should have at least {n} items, not {actual}",
                n,
            )
    else:
        n = int(ctx["max_length"])
        if kind == "List":
            template = ngettext(
                "List should have at most {n} item, not {actual}",
                "List should have at most {n} items, not {actual}",
                n,
            )
        elif kind == "Dictionary":
            template = ngettext(
                "Dictionary should have at most {n} item, not {actual}",
                "Dictionary should have at most {n} items, not {actual}",
                n,
            )
        else:
            template = ngettext(
                "Tuple should have at most {n} item, not {actual}",
                "Tuple should have at most {n} items, not {actual}",
                n,
            )
    return template.format(n=n, actual=actual)


def _text_length_reason(error: ErrorDetails) -> str:
    ctx = error.get("ctx") or {}
    given = error.get("input")
    length = len(given) if isinstance(given, str) else 0
    if error["type"] == "string_too_short":
        n = int(ctx["min_length"])
        template = ngettext(
            "String should have at least {n} character; {value} has {length}",
            "String should have at least {n} characters; {value} has {length}",
            n,
        )
    else:
        n = int(ctx["max_length"])
        template = ngettext(
            "String should have at most {n} character; {value} has {length}",
            "String should have at most {n} characters; {value} has {length}",
            n,
        )
    return template.format(n=n, value=_echo(given), length=length)


#: Error types of this project's own validators (:class:`PydanticCustomError`), whose
#: message is already the reason, in the current language.
_OWN_TYPES = frozenset({"unknown_name"})


def _worded_reason(error: ErrorDetails) -> str | None:
    """The reason of an error that comes worded: a validator's own sentence (translated
    where it is raised), an error of this project's own types, a JSON parser's words (a
    position, what it expected: as the file loaders report a broken JSON file); ``None``
    for pydantic's other errors."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        return str(ctx["error"])
    if kind in _OWN_TYPES:
        return error["msg"]
    if kind == "json_invalid":
        return _f("not valid JSON: {problem}", json_problem(str(ctx.get("error", error["msg"]))))
    return None


def pydantic_reason(error: ErrorDetails) -> str:
    """The reason of one pydantic error in the file's words and the current language,
    with the value written where it says more than the field path (``'catorce'``)."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    given = error.get("input")
    value = _echo(given)
    if kind == "missing":
        return _("required field is missing")
    if kind == "extra_forbidden":
        return _("unknown field")
    worded = _worded_reason(error)
    if worded is not None:
        return worded
    if kind == "int_type" and isinstance(given, bool):
        return _(_NOT_TRUE_OR_FALSE)
    if kind in _VALUE_REASONS:
        return _f(_VALUE_REASONS[kind], value)
    if kind in _BOUND_REASONS:
        key, template = _BOUND_REASONS[kind]
        return _f(template, ctx.get(key), value)
    if kind in ("literal_error", "enum"):
        expected = str(ctx.get("expected", ""))
        names = re.findall(r"'([^']*)'", expected)
        return _f("Input should be {expected}, not {value}", _one_of(names) or expected, value)
    if kind in ("too_short", "too_long"):
        sized = _size_reason(error)
        if sized is not None:
            return sized
    if kind in ("string_too_short", "string_too_long"):
        return _text_length_reason(error)
    if kind == "string_pattern_mismatch":
        return _f("{value} does not match the pattern {pattern}", value, repr(ctx.get("pattern")))
    if kind == "union_tag_invalid":
        tags = re.findall(r"'([^']*)'", str(ctx.get("expected_tags", "")))
        return _f(
            "{key} should be {expected}, not {tag}",
            str(ctx.get("discriminator")),
            _one_of(tags) or str(ctx.get("expected_tags")),
            repr(ctx.get("tag")),
        )
    if kind == "union_tag_not_found":
        return _f("{key} is missing: it says which kind of entry this is", ctx.get("discriminator"))
    # A type this project's models do not produce today: pydantic's own words.
    return _f("{message} (got {value})", error["msg"], value)


def pydantic_problems(err: ValidationError, prefix: str = "") -> list[Problem]:
    """Every error of a pydantic validation as a :class:`Problem`, in the file's words and
    the current language (:func:`pydantic_reason`)."""
    # A dict keeps the first of equal problems in order, in constant time each: a union
    # reports one bad item once per branch, and a file may have thousands of problems.
    out: dict[Problem, None] = {}
    for error in err.errors():
        path = _loc(tuple(error["loc"]))
        field = f"{prefix}.{path}" if prefix and path else (prefix or path)
        reason = pydantic_reason(error)
        ctx = error.get("ctx") or {}
        value: str | None = None
        known: tuple[str, ...] = ()
        if error["type"] == "extra_forbidden":
            value = str(error["loc"][-1])
        elif "known" in ctx:
            value, known = str(ctx["value"]), tuple(ctx["known"])
        elif error["type"] in ("literal_error", "enum") and isinstance(error["input"], str):
            value, known = error["input"], tuple(re.findall(r"'([^']*)'", ctx.get("expected", "")))
        out.setdefault(Problem(field, reason, value, known))
    return list(out)
