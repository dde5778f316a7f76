"""Scenario files: YAML validated by pydantic, rejected with file, field and reason.

A scenario names its ruleset; the generic part (battlefield, sides, round
limit, victory) is validated here and every other key of a combatant is
validated by the ruleset's ``stats_model``. Nothing half-loaded is returned:
either a complete :class:`Scenario` or a :class:`ScenarioError`.
"""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
)
from pydantic_core import ErrorDetails, PydanticCustomError

from escaramuza.rules.core.battlefield import Battlefield, BattlefieldError, Zone
from escaramuza.rules.core.errors import Problem, ScenarioError, UnknownNameError, clip
from escaramuza.rules.core.files import parse_yaml, read_text_file
from escaramuza.rules.core.i18n import N_, _, _f, either, ngettext
from escaramuza.rules.core.model import Combatant, Side
from escaramuza.rules.core.vocabulary import explain, with_lines

#: What an id may be, in words: the reason an invalid id gives (translated) and the
#: schema's description (English, as the JSON Schema is).
ID_RULE = N_("letters of any alphabet (matón, ñu), digits, '_' and '-', not starting with '-'")


def _check_id(value: str) -> str:
    # Unicode letters are allowed: the games are Spanish-language games, and a GM who
    # names a combatant "matón" means it. Spaces, dots and the like
    # stay out: ids are typed in `suggest`/`gm` commands and used as keys.
    if not value:
        raise ValueError(_f("an id cannot be empty; an id is {rule}", _(ID_RULE)))
    for ch in value:
        if not (ch.isalnum() or ch in "_-"):
            raise ValueError(
                _f(
                    "{id} is not a valid id: {char} is not allowed; an id is {rule}",
                    repr(value),
                    repr(ch),
                    _(ID_RULE),
                )
            )
    if value.startswith("-"):
        raise ValueError(
            _f(
                "{id} is not a valid id: it starts with '-'; an id is {rule}",
                repr(value),
                _(ID_RULE),
            )
        )
    return value


#: Longest zone or combatant id (they are shown in every narrated line).
_ID_MAX = 64

#: Largest scenario file read: the shipped ones are under 4 KiB.
MAX_SCENARIO_BYTES = 1 << 20

# The size of what a scenario may ask a battle to play (docs/scenario-format.md, "Bounds of
# values and sizes"). A battle's cost grows with the rounds times the combatants times the
# options each of them weighs (targets, weapons, zones), so together these keep the worst
# battle a file can describe near a second on the engine (benchmarks/worst_case.py). The
# shipped scenarios have at most 10 combatants, 7 zones, 7 links, 2 weapons a sheet and a
# round limit of 20.

#: Most combatants, both sides together (four heroes against a dozen foes).
MAX_COMBATANTS = 16
#: Most zones of a battlefield.
MAX_ZONES = 32
#: Most links of a battlefield (a 32-zone grid has about 60).
MAX_LINKS = 128
#: Highest round limit (a round is every combatant's turn; a Donjon ráfaga): a battle
#: still going after 50 rounds is a stalemate, and the shipped ones stop at 10 to 20.
MAX_ROUND_LIMIT = 50
#: Most weapons on one stat block, in every ruleset: twice the shipped sheets' most (a
#: main weapon, a sidearm, a bow and a thrown one). Each is weighed against every target.
MAX_WEAPONS = 4
#: Largest zone elevation, either sign (only recorded, for rulesets and renderers).
MAX_ELEVATION = 100

Id = Annotated[
    str,
    Field(max_length=_ID_MAX, description=f"An id: {ID_RULE}, at most {_ID_MAX} characters."),
    AfterValidator(_check_id),
]


#: The reason a ``true``/``false`` where an integer belongs gives.
_NOT_TRUE_OR_FALSE = N_("Input should be a valid integer, not true or false")


def _not_a_boolean(value: object) -> object:
    if isinstance(value, bool):
        raise PydanticCustomError("int_type", _(_NOT_TRUE_OR_FALSE))
    return value


#: The check of :data:`Int`. Inside a union (``int | None``) pydantic does not carry a
#: field's bounds through a validator (the JSON Schema then says ``ge``, not
#: ``minimum``), so a bounded optional integer puts its bounds first:
#: ``Annotated[int, Field(ge=0), NOT_A_BOOL] | None``.
NOT_A_BOOL = BeforeValidator(_not_a_boolean)

#: An integer field of a file's model (scenario, stat block, options, tables). A file's
#: ``true``/``false`` is a Python bool, which is an int: pydantic's lax mode would read
#: ``pv: true`` as 1. This refuses a bool and leaves every other input to ``int``.
Int = Annotated[int, NOT_A_BOOL]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ZoneSpec(_Strict):
    id: Id
    name: str | None = None
    description: str = ""
    cover: Int = Field(0, ge=0, le=2)
    exit: bool = False
    difficult: bool = False
    elevation: Int = Field(0, ge=-MAX_ELEVATION, le=MAX_ELEVATION)


class LinkSpec(_Strict):
    between: tuple[str, str]
    difficult: bool = False
    note: str = ""


class BattlefieldSpec(_Strict):
    zones: list[ZoneSpec] = Field(min_length=1, max_length=MAX_ZONES)
    links: list[LinkSpec | tuple[str, str]] = Field(default_factory=list, max_length=MAX_LINKS)


class CombatantBase(BaseModel):
    """The generic keys of a combatant; the remaining keys go to the ruleset."""

    model_config = ConfigDict(extra="allow")

    id: Id
    name: str | None = None
    side: Side
    zone: str
    temperament: str = "tactician"


class ScenarioSpec(_Strict):
    name: str | None = None
    title: str = ""
    description: str = ""
    ruleset: str
    options: dict[str, Any] = Field(default_factory=dict)
    round_limit: Int = Field(20, ge=1, le=MAX_ROUND_LIMIT)
    victory: Literal["defeat_all", "survive"] = "defeat_all"
    battlefield: BattlefieldSpec
    combatants: list[CombatantBase] = Field(min_length=2, max_length=MAX_COMBATANTS)

    @field_validator("ruleset")
    @classmethod
    def _known_ruleset(cls, value: str) -> str:
        from escaramuza.rules import RULESETS

        if value not in RULESETS:
            raise PydanticCustomError(
                "unknown_name",
                _f("unknown ruleset {name} (known: {known})", repr(value), ", ".join(RULESETS)),
                {"value": value, "known": tuple(RULESETS)},
            )
        return value


@cache
def scenario_model(ruleset_id: str) -> type[ScenarioSpec]:
    """The whole scenario file of one ruleset as one model: the generic keys with the
    ruleset's ``options`` and stat block merged into each combatant.

    :func:`parse_scenario` validates a file with it first, so every structural problem
    (generic, options, every combatant's stats) is reported at once, and
    ``escaramuza schema`` prints its JSON Schema, so editors check exactly what loads.
    """
    from escaramuza.rules import get_ruleset

    ruleset = get_ruleset(ruleset_id)
    stem = type(ruleset).__name__
    combatant = create_model(
        f"{stem}Combatant",
        __base__=(CombatantBase, ruleset.stats_model),
        __cls_kwargs__={"extra": "forbid"},
        __module__=__name__,
    )
    model: type[ScenarioSpec] = create_model(
        f"{stem}Scenario",
        __base__=ScenarioSpec,
        __module__=__name__,
        ruleset=(Literal[ruleset_id], ...),  # type: ignore[arg-type]
        options=(ruleset.options_model, Field(default_factory=ruleset.options_model)),
        combatants=(
            list[combatant],  # type: ignore[valid-type]
            Field(min_length=2, max_length=MAX_COMBATANTS),
        ),
    )
    return model


@dataclass(frozen=True, slots=True)
class Scenario:
    """A loaded, validated scenario. Immutable; battles clone its combatants."""

    name: str
    title: str
    description: str
    ruleset: Any
    options: Any
    battlefield: Battlefield
    combatants: tuple[Combatant, ...]
    round_limit: int
    victory: str
    source: str

    def combatant(self, combatant_id: str) -> Combatant:
        for c in self.combatants:
            if c.id == combatant_id:
                return c
        raise UnknownNameError(
            f"{self.source}: "
            + _f(
                "unknown combatant {id} (combatants: {known})",
                repr(combatant_id),
                ", ".join(c.id for c in self.combatants),
            )
        )


KNOWN_TEMPERAMENTS = ("tactician", "brute", "cautious", "coward", "protector", "random")


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
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        # A validator's own sentence, translated where it is raised.
        return str(ctx["error"])
    if kind in _OWN_TYPES:
        return error["msg"]
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
    out: list[Problem] = []
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
        problem = Problem(field, reason, value, known)
        if problem not in out:  # a union reports one bad item once per branch
            out.append(problem)
    return out


def _split_reason(source: str, prefix: str, exc: ValueError) -> ScenarioError:
    """Turn a ruleset's ``ValueError("field: reason")`` into a ScenarioError."""
    text = str(exc)
    if ": " in text:
        field, reason = text.split(": ", 1)
        return ScenarioError(source, f"{prefix}.{field}" if prefix else field, reason)
    return ScenarioError(source, prefix, text)


def _build_battlefield(spec: BattlefieldSpec, source: str) -> Battlefield:
    zones = [
        Zone(z.id, z.name or z.id, z.cover, z.exit, z.difficult, z.elevation) for z in spec.zones
    ]
    links: list[tuple[str, str, dict[str, Any]]] = []
    for link in spec.links:
        if isinstance(link, LinkSpec):
            links.append((link.between[0], link.between[1], {"difficult": link.difficult}))
        else:
            links.append((link[0], link[1], {}))
    try:
        return Battlefield(zones, links)
    except BattlefieldError as exc:
        raise ScenarioError(source, "battlefield", str(exc)) from None


def _structure_problems(data: dict[str, Any]) -> list[Problem]:
    """Every problem of the file against :func:`scenario_model` (or of the generic keys
    when the ruleset is unknown), all at once."""
    from escaramuza.rules import RULESETS

    ruleset_id = data.get("ruleset")
    known = isinstance(ruleset_id, str) and ruleset_id in RULESETS
    model = scenario_model(ruleset_id) if known else ScenarioSpec
    try:
        model.model_validate(data)
    except ValidationError as err:
        # Retired keys say what they are now; unknown keys carry the keys allowed there.
        schema = _scenario_schema(ruleset_id if known else None)
        return explain(pydantic_problems(err), schema)
    return []


@cache
def _scenario_schema(ruleset_id: str | None) -> dict[str, Any]:
    """The JSON Schema of :func:`scenario_model` (of the generic keys without a ruleset),
    built once: only a file with a problem needs it."""
    model = scenario_model(ruleset_id) if ruleset_id is not None else ScenarioSpec
    return model.model_json_schema()


def parse_scenario(data: Any, source: str, default_name: str = "scenario") -> Scenario:
    """Validate a scenario mapping (already parsed from YAML).

    Problems are collected, not raised one by one: the structure (every pydantic
    error), then, when the generic keys are well formed, the references (zones,
    duplicate ids, temperaments, links) and, when the whole structure is, each
    combatant's cross-field checks; the :class:`ScenarioError` raised carries them all
    in ``problems``.
    """
    from escaramuza.rules import get_ruleset

    if not isinstance(data, dict):
        raise ScenarioError(source, "", _("a scenario must be a YAML mapping of fields"))
    problems = _structure_problems(data)
    try:
        spec = ScenarioSpec.model_validate(data)
    except ValidationError:
        raise ScenarioError.of(source, problems) from None
    ruleset = get_ruleset(spec.ruleset)
    # With a problem in the structure, stat blocks and options may not validate: only
    # the references are checked then.
    options = None if problems else ruleset.options_model.model_validate(spec.options)
    battlefield: Battlefield | None = None
    try:
        battlefield = _build_battlefield(spec.battlefield, source)
    except ScenarioError as exc:
        problems.extend(exc.problems)
    zone_ids = [z.id for z in spec.battlefield.zones]

    seen: set[str] = set()
    combatants: list[Combatant] = []
    for i, spec_c in enumerate(spec.combatants):
        where = f"combatants[{i}]"
        if spec_c.id in seen:
            reason = _f("duplicate combatant id {id}", repr(spec_c.id))
            problems.append(Problem(f"{where}.id", reason))
        seen.add(spec_c.id)
        if spec_c.temperament not in KNOWN_TEMPERAMENTS:
            reason = _f(
                "unknown temperament {name} (known: {known})",
                repr(spec_c.temperament),
                ", ".join(KNOWN_TEMPERAMENTS),
            )
            problems.append(
                Problem(f"{where}.temperament", reason, spec_c.temperament, KNOWN_TEMPERAMENTS)
            )
        if spec_c.zone not in zone_ids:
            reason = _f(
                "unknown zone {zone} (zones: {known})", repr(spec_c.zone), ", ".join(zone_ids)
            )
            problems.append(Problem(f"{where}.zone", reason, spec_c.zone, tuple(zone_ids)))
            continue  # the ruleset builds a combatant in a zone of the map
        if options is None:
            continue
        try:
            stats = ruleset.stats_model.model_validate(dict(spec_c.model_extra or {}))
        except ValidationError as err:
            problems.extend(pydantic_problems(err, where))
            continue
        base = {
            "id": spec_c.id,
            "name": spec_c.name or spec_c.id,
            "side": spec_c.side,
            "zone": spec_c.zone,
            "temperament": spec_c.temperament,
        }
        try:
            combatants.append(ruleset.build_combatant(base, stats, options, i))
        except ValueError as exc:
            problems.extend(_split_reason(source, where, exc).problems)
    for side in Side:
        if not any(c.side is side for c in spec.combatants):
            empty = (
                _("the heroes side is empty")
                if side is Side.HEROES
                else _("the enemies side is empty")
            )
            problems.append(Problem("combatants", empty))
    if problems or battlefield is None or options is None:
        raise ScenarioError.of(source, problems)

    scenario = Scenario(
        name=spec.name or default_name,
        title=spec.title or spec.name or default_name,
        description=spec.description,
        ruleset=ruleset,
        options=options,
        battlefield=battlefield,
        combatants=tuple(combatants),
        round_limit=spec.round_limit,
        victory=spec.victory,
        source=source,
    )
    try:
        ruleset.validate_scenario(scenario)
    except ValueError as exc:
        raise _split_reason(source, "", exc) from None
    return scenario


def load_scenario_file(path: str | Path) -> Scenario:
    path = Path(path)
    text = read_text_file(path, ScenarioError, "a scenario file", MAX_SCENARIO_BYTES)
    return parse_scenario_text(text, str(path), default_name=path.stem)


def parse_scenario_text(text: str, source: str, default_name: str = "scenario") -> Scenario:
    """Parse and validate a scenario's YAML text (duplicate keys, too deep a nesting and
    overlong integers are refused by :func:`parse_yaml` with their line or field).

    A problem of the file carries the line its field is at, so ``play``'s one-line
    message names it as ``escaramuza validate`` does.
    """
    data = parse_yaml(text, source, ScenarioError)
    try:
        return parse_scenario(data, source, default_name)
    except ScenarioError as exc:
        if exc.source != source:  # a problem of another file (a tables file)
            raise
        # In the file's order, as ``escaramuza validate`` lists them.
        problems = sorted(with_lines(exc.problems, text), key=lambda p: p.line or 0)
        raise ScenarioError.of(source, problems) from None


#: How an adventuring day's file ends (``escaramuza campaign``): it sits with its
#: ruleset's scenarios but is not one, so the scenario listing leaves it out.
DAY_SUFFIX = ".day.yaml"


def _shipped(days: bool) -> dict[str, str]:
    root = importlib.resources.files("escaramuza.scenarios")
    out: dict[str, str] = {}
    for folder in sorted(root.iterdir(), key=lambda p: p.name):
        if not folder.is_dir() or folder.name.startswith(("_", ".")):
            continue
        for item in sorted(folder.iterdir(), key=lambda p: p.name):
            if item.name.endswith(DAY_SUFFIX) is days and item.name.endswith(".yaml"):
                stem = item.name[: -len(DAY_SUFFIX if days else ".yaml")]
                out[f"{folder.name}/{stem}"] = str(item)
    return out


def shipped_scenarios() -> dict[str, str]:
    """Shipped scenario names (``ruleset/stem``) → their resource paths."""
    return _shipped(days=False)


def shipped_days() -> dict[str, str]:
    """Shipped adventuring days (``ruleset/stem`` of ``stem.day.yaml``) → their paths."""
    return _shipped(days=True)


def resolve_scenario(name_or_path: str) -> str:
    """A shipped name (``destiny_dice/emboscada`` or a unique ``emboscada``) or a path."""
    shipped = shipped_scenarios()
    if name_or_path in shipped:
        return shipped[name_or_path]
    matches = [key for key in shipped if key.split("/", 1)[1] == name_or_path]
    if len(matches) == 1:
        return shipped[matches[0]]
    if len(matches) > 1:
        raise UnknownNameError(
            _f(
                "scenario name {name} is ambiguous: {matches}",
                repr(name_or_path),
                ", ".join(matches),
            )
        )
    try:
        exists = Path(name_or_path).exists()
    except (OSError, ValueError) as exc:
        # A 5,000-character name (ENAMETOOLONG) or one with a NUL byte names no file.
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        shown = f"{name_or_path[:80]!r}{'…' if len(name_or_path) > 80 else ''}"
        raise UnknownNameError(
            _f("no scenario file or shipped scenario named {name} ({reason})", shown, reason)
        ) from None
    if exists:
        return name_or_path
    raise UnknownNameError(
        _f(
            "no scenario file or shipped scenario named {name} (shipped: {shipped})",
            repr(name_or_path),
            ", ".join(shipped),
        )
    )


def load_scenario(name_or_path: str) -> Scenario:
    """Load a shipped scenario by name, or a scenario file by path."""
    path = resolve_scenario(name_or_path)
    scenario = load_scenario_file(path)
    shipped = {v: k for k, v in shipped_scenarios().items()}
    if path in shipped:
        # Shipped scenarios are known by their ``ruleset/stem`` name everywhere.
        object.__setattr__(scenario, "name", shipped[path])
    return scenario
