"""Adventuring-day files (``*.day.yaml``): the heroes once, then the encounters in order.

A day file names its ruleset, its heroes (stat blocks as in a scenario, without
``side`` or ``zone``), the rest between fights (the ruleset's own, see
:mod:`escaramuza.rules.core.rest`) and an ordered list of encounters, each a scenario
file whose heroes are replaced by the day's. Format in docs/playtest.md ("Adventuring
days"). A bad file is a :class:`ScenarioError` naming the day file, the field and the
reason, like a bad scenario: ``escaramuza validate`` lists every problem, the commands
exit 2.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from escaramuza.rules.core.errors import EscaramuzaError, Problem, ScenarioError
from escaramuza.rules.core.files import parse_yaml, read_text_file
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.rest import rests
from escaramuza.rules.core.scenario import (
    DAY_SUFFIX,
    MAX_SCENARIO_BYTES,
    Scenario,
    parse_scenario,
    pydantic_problems,
    resolve_scenario,
    shipped_days,
    shipped_scenarios,
)

#: Most encounters of a day (a long day has a dozen). Each is a scenario file read and
#: checked when the day loads, some 10 ms each: unbounded, a day file's 1 MiB of
#: ``- scenario: …`` lines would take minutes to load before anything is played.
MAX_ENCOUNTERS = 100


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EncounterSpec(_Strict):
    #: A shipped scenario name, or a path (relative to the day file, or to the cwd).
    scenario: str
    #: Where a hero starts in this encounter (default: the zone of the scenario's own
    #: hero in the same position, cycling when the day has more heroes).
    zones: dict[str, str] = Field(default_factory=dict)
    #: The rest after this encounter (default: the day's ``rest``).
    rest: str | None = None


class DaySpec(_Strict):
    name: str | None = None
    title: str = ""
    description: str = ""
    ruleset: str
    #: The rest between encounters (default: the ruleset's default rest).
    rest: str | None = None
    heroes: list[dict[str, Any]] = Field(min_length=1)
    encounters: list[EncounterSpec] = Field(min_length=1, max_length=MAX_ENCOUNTERS)


@dataclass(frozen=True, slots=True)
class Encounter:
    """One fight of the day: the scenario with the day's heroes first (day order), then
    its own enemies; ``rest`` is what happens after it."""

    name: str
    scenario: Scenario
    rest: str


@dataclass(frozen=True, slots=True)
class Day:
    name: str
    title: str
    description: str
    source: str
    ruleset: Any
    heroes: tuple[str, ...]  # ids, day order
    hero_names: tuple[str, ...]
    encounters: tuple[Encounter, ...]


#: A scenario reference → (its name, its source, its YAML text).
Lookup = Callable[[str], tuple[str, str, str]]


def file_lookup(day_source: str) -> Lookup:
    """Resolve an encounter's ``scenario`` as the commands do: a shipped name, a path
    relative to the day file's folder, or a path relative to the working directory."""

    def lookup(ref: str) -> tuple[str, str, str]:
        shipped = {v: k for k, v in shipped_scenarios().items()}
        beside = Path(day_source).parent / ref
        if ref not in shipped_scenarios() and os.path.isfile(beside):
            path = str(beside)
        else:
            path = resolve_scenario(ref)
        text = read_text_file(Path(path), ScenarioError, _("a scenario file"), MAX_SCENARIO_BYTES)
        name = shipped.get(path, Path(path).name.removesuffix(".yaml"))
        return name, path, text

    return lookup


def _hero_problems(i: int, hero: dict[str, Any]) -> list[Problem]:
    out = []
    if "side" in hero:
        reason = _("a day's hero has no side: every hero of a day is on the heroes side")
        out.append(Problem(f"heroes[{i}].side", reason))
    if "zone" in hero:
        reason = _("a day's hero has no zone: each encounter places the heroes (see its zones)")
        out.append(Problem(f"heroes[{i}].zone", reason))
    if not isinstance(hero.get("id"), str):
        out.append(Problem(f"heroes[{i}].id", _("required field is missing")))
    return out


def _rest_problem(field: str, value: str | None, ruleset_id: str) -> list[Problem]:
    known = rests(ruleset_id)
    if value is None or value in known:
        return []
    reason = _f(
        "unknown rest {rest} for {ruleset} (known: {known})",
        repr(value),
        ruleset_id,
        ", ".join(known),
    )
    return [Problem(field, reason, value, known)]


def _in(scenario: str) -> str:
    """The prefix of a reason found in one of the day's scenarios: "in donjon/duelo: "."""
    return _f("in {scenario}: ", scenario)


def _map_field(field: str, n_heroes: int, where: str, scenario: str) -> tuple[str, str]:
    """A combined scenario's field → (the day file's field, a prefix for the reason)."""
    if field.startswith("combatants["):
        index = int(field[len("combatants[") : field.index("]")])
        rest = field[field.index("]") + 1 :]
        if index < n_heroes:
            return f"heroes[{index}]{rest}", _in(scenario)
        return where, f"{scenario} combatants[{index - n_heroes}]{rest}: "
    return where, f"{scenario}{': ' + field if field else ''}: "


def _encounter(
    i: int, spec: EncounterSpec, day: DaySpec, source: str, lookup: Lookup
) -> tuple[Encounter | None, list[Problem]]:
    where = f"encounters[{i}].scenario"
    try:
        name, scenario_source, text = lookup(spec.scenario)
        data = parse_yaml(text, scenario_source, ScenarioError)
    except EscaramuzaError as exc:
        return None, [Problem(where, str(exc))]
    if not isinstance(data, dict) or not isinstance(data.get("combatants"), list):
        return None, [Problem(where, _f("{file} is not a scenario", scenario_source))]
    if data.get("ruleset") != day.ruleset:
        reason = _f(
            "{name} is a {ruleset} scenario; this day is {day}",
            name,
            str(data.get("ruleset")),
            day.ruleset,
        )
        return None, [Problem(where, reason)]
    own = [c for c in data["combatants"] if isinstance(c, dict)]
    hero_zones = [c.get("zone") for c in own if c.get("side") == Side.HEROES.value]
    enemies = [c for c in own if c.get("side") != Side.HEROES.value]
    problems: list[Problem] = []
    ids = [h.get("id") for h in day.heroes]
    for hero_id in spec.zones:
        if hero_id not in ids:
            reason = _f(
                "{id} is not one of the day's heroes ({heroes})",
                repr(hero_id),
                ", ".join(map(str, ids)),
            )
            problems.append(
                Problem(f"encounters[{i}].zones.{hero_id}", reason, hero_id, tuple(map(str, ids)))
            )
    heroes = []
    for k, hero in enumerate(day.heroes):
        zone = spec.zones.get(str(hero.get("id")))
        if zone is None:
            zone = hero_zones[k % len(hero_zones)] if hero_zones else None
        heroes.append({**hero, "side": Side.HEROES.value, "zone": zone})
    combined = {**data, "combatants": heroes + enemies}
    try:
        scenario = parse_scenario(combined, source, default_name=name)
    except ScenarioError as exc:
        for p in exc.problems:
            field, prefix = _map_field(p.field, len(heroes), where, name)
            if field.endswith(".zone") and field.startswith("heroes["):
                hero_id = str(day.heroes[int(field[7 : field.index("]")])].get("id"))
                field = f"encounters[{i}].zones.{hero_id}"
                prefix = _in(name)
            problems.append(Problem(field, prefix + p.reason, p.value, p.known))
        return None, problems
    object.__setattr__(scenario, "name", name)
    rest = spec.rest or day.rest or rests(day.ruleset)[0]
    return (Encounter(name, scenario, rest), problems) if not problems else (None, problems)


def parse_day(data: Any, source: str, lookup: Lookup, default_name: str = "day") -> Day:
    """Validate a day mapping; every problem is collected into one ScenarioError."""
    from escaramuza.rules import RULESETS, get_ruleset

    if not isinstance(data, dict):
        raise ScenarioError(source, "", _("a day file must be a YAML mapping of fields"))
    try:
        spec = DaySpec.model_validate(data)
    except ValidationError as err:
        raise ScenarioError.of(source, pydantic_problems(err)) from None
    if spec.ruleset not in RULESETS or get_ruleset(spec.ruleset).recovery is None:
        known = tuple(RULESETS)
        reason = _f("unknown ruleset {name} (known: {known})", repr(spec.ruleset), ", ".join(known))
        raise ScenarioError.of(source, [Problem("ruleset", reason, spec.ruleset, known)])
    problems: list[Problem] = []
    for i, hero in enumerate(spec.heroes):
        problems.extend(_hero_problems(i, hero))
    ids = [h.get("id") for h in spec.heroes]
    for i, hero_id in enumerate(ids):
        if hero_id in ids[:i]:
            problems.append(Problem(f"heroes[{i}].id", _f("duplicate hero id {id}", repr(hero_id))))
    problems.extend(_rest_problem("rest", spec.rest, spec.ruleset))
    for i, enc in enumerate(spec.encounters):
        problems.extend(_rest_problem(f"encounters[{i}].rest", enc.rest, spec.ruleset))
    if problems:
        raise ScenarioError.of(source, problems)
    encounters: list[Encounter] = []
    seen: set[Problem] = set()  # each problem once (in constant time: there may be many)
    for i, enc in enumerate(spec.encounters):
        built, found = _encounter(i, enc, spec, source, lookup)
        for problem in found:
            if problem not in seen:
                seen.add(problem)
                problems.append(problem)
        if built is not None:
            encounters.append(built)
    if problems:
        raise ScenarioError.of(source, problems)
    first = encounters[0].scenario
    heroes = [c for c in first.combatants if c.side is Side.HEROES]
    return Day(
        name=spec.name or default_name,
        title=spec.title or spec.name or default_name,
        description=spec.description,
        source=source,
        ruleset=get_ruleset(spec.ruleset),
        heroes=tuple(c.id for c in heroes),
        hero_names=tuple(c.name for c in heroes),
        encounters=tuple(encounters),
    )


def day_stem(path: str | Path) -> str:
    name = Path(path).name
    return name[: -len(DAY_SUFFIX)] if name.endswith(DAY_SUFFIX) else Path(path).stem


def load_day_file(path: str | Path) -> Day:
    """Load a day file from disk (what ``validate`` and ``campaign`` use)."""
    path = Path(path)
    text = read_text_file(path, ScenarioError, _("a day file"), MAX_SCENARIO_BYTES)
    return parse_day(
        parse_yaml(text, str(path), ScenarioError),
        str(path),
        file_lookup(str(path)),
        day_stem(path),
    )


def resolve_day(name_or_path: str) -> str:
    """A shipped day (``destiny_dice/jornada``, or a unique ``jornada``) or a path."""
    shipped = shipped_days()
    if name_or_path in shipped:
        return shipped[name_or_path]
    matches = [key for key in shipped if key.split("/", 1)[1] == name_or_path]
    if len(matches) == 1:
        return shipped[matches[0]]
    # os.path's answer is False for a name no file can have (too long for the system);
    # pathlib's is_file() and exists() raise OSError on it.
    if os.path.isfile(name_or_path):
        return name_or_path
    from escaramuza.rules.core.errors import UnknownNameError

    raise UnknownNameError(
        _f(
            "no day file or shipped day named {name} (shipped: {shipped})",
            repr(name_or_path),
            ", ".join(shipped),
        )
    )
