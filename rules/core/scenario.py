"""Scenario files: YAML validated by pydantic, rejected with file, field and reason.

A scenario names its ruleset; the generic part (battlefield, sides, round
limit, victory) is validated here and every other key of a combatant is
validated by the ruleset's ``stats_model``. Nothing half-loaded is returned:
either a complete :class:`Scenario` or a :class:`ScenarioError`.

The file's models are :mod:`~escaramuza.rules.core.scenario_spec`'s and pydantic's errors
are worded by :mod:`~escaramuza.rules.core.pydantic_reasons`; their names are importable
from here too.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from escaramuza.rules.core.battlefield import Battlefield, BattlefieldError, Zone
from escaramuza.rules.core.errors import Problem, ScenarioError, UnknownNameError
from escaramuza.rules.core.files import read_text_file
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.model import Combatant, Side, Status
from escaramuza.rules.core.parsers import parse_yaml
from escaramuza.rules.core.pydantic_reasons import pydantic_problems, pydantic_reason
from escaramuza.rules.core.scenario_spec import (
    ID_RULE,
    MAX_COMBATANTS,
    MAX_ELEVATION,
    MAX_LINKS,
    MAX_ROUND_LIMIT,
    MAX_WEAPONS,
    MAX_ZONES,
    NOT_A_BOOL,
    BattlefieldSpec,
    Bool,
    CombatantBase,
    Id,
    Int,
    LinkSpec,
    ScenarioSpec,
    ZoneSpec,
    scenario_model,
)
from escaramuza.rules.core.vocabulary import explain, with_lines

#: Largest scenario file read: the shipped ones are under 4 KiB.
MAX_SCENARIO_BYTES = 1 << 20


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
    problems.extend(_side_problems(spec.combatants, combatants))
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


def _side_problems(specs: Any, combatants: list[Combatant]) -> list[Problem]:
    """Each side needs somebody on it, and somebody on it able to fight: a side that
    nobody can fight for has lost before the first turn, and no rule plays such a battle
    (the rounds would only pass to the limit)."""
    out: list[Problem] = []
    for side in Side:
        if not any(c.side is side for c in specs):
            empty = (
                _("the heroes side is empty")
                if side is Side.HEROES
                else _("the enemies side is empty")
            )
            out.append(Problem("combatants", empty))
            continue
        members = [c for c in combatants if c.side is side]
        if members and not any(c.status is Status.ACTIVE for c in members):
            beaten = (
                _("nobody on the heroes side can fight: every hero starts down or defeated")
                if side is Side.HEROES
                else _("nobody on the enemies side can fight: every enemy starts defeated")
            )
            out.append(Problem("combatants", beaten))
    return out


def load_scenario_file(path: str | Path) -> Scenario:
    path = Path(path)
    text = read_text_file(path, ScenarioError, _("a scenario file"), MAX_SCENARIO_BYTES)
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


__all__ = [
    "DAY_SUFFIX",
    "ID_RULE",
    "KNOWN_TEMPERAMENTS",
    "MAX_COMBATANTS",
    "MAX_ELEVATION",
    "MAX_LINKS",
    "MAX_ROUND_LIMIT",
    "MAX_SCENARIO_BYTES",
    "MAX_WEAPONS",
    "MAX_ZONES",
    "NOT_A_BOOL",
    "BattlefieldSpec",
    "CombatantBase",
    "Id",
    "Bool",
    "Int",
    "LinkSpec",
    "Scenario",
    "ScenarioSpec",
    "ZoneSpec",
    "load_scenario",
    "load_scenario_file",
    "parse_scenario",
    "parse_scenario_text",
    "pydantic_problems",
    "pydantic_reason",
    "resolve_scenario",
    "scenario_model",
    "shipped_days",
    "shipped_scenarios",
]
