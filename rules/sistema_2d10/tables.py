"""The four tables the seed omits, as YAML data (S2-12, S2-13, S2-15).

The seed names the "Localización de Impacto" table, the aimed-attack modifiers and
the GDF table but does not print them, so they are data files (YAML) shipped with
the ruleset, labelled *(default)*. ``tables/default.yaml`` holds this
project's defaults; a scenario may point ``options.tables`` at its own file. A
malformed file is rejected like a bad scenario: :class:`ScenarioError` naming the
table file, the field and the reason. Actions per turn are a scenario field (S2-07),
so there is no actions table.
"""

from __future__ import annotations

import importlib.resources
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from escaramuza.rules.core.dice import DiceError, DiceExpr, parse_dice
from escaramuza.rules.core.errors import Problem, ScenarioError
from escaramuza.rules.core.files import parse_yaml, read_text_file
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.scenario import Int, pydantic_problems

#: Fixed location ids: they are the options of the ``atacar`` verb, so a table may map
#: the d10 to them differently but may not invent new ones.
LOCATIONS: tuple[str, ...] = (
    "cabeza",
    "brazo_derecho",
    "brazo_izquierdo",
    "torso",
    "abdomen",
    "pierna_derecha",
    "pierna_izquierda",
    "punto_vital",
)

#: Limbs by class: S2-15 "El miembro afectado queda inutilizado" plays differently for
#: a leg ("No poder andar por tener una pierna incapacitada") and an arm ("tener que
#: luchar con la mano contraria"); every other location is the default reading.
LEGS: tuple[str, ...] = ("pierna_derecha", "pierna_izquierda")
ARMS: tuple[str, ...] = ("brazo_derecho", "brazo_izquierdo")

#: GDF effects the engine can play (S2-15).
GDF_EFFECTS: tuple[str, ...] = (
    "aturdido",
    "sangrado",
    "incapacitado",
    "derribado",
    "inconsciente",
    "moribundo",
)

DEFAULT_TABLES = "default"

#: How long a GDF effect lasts (the ``duracion`` of a ``gdf`` row). S2-15 "Los efectos
#: indicados en la tabla duran hasta que el daño es sanado": ``hasta_sanar``, the
#: default of every row. ``siguiente_turno``: over at the end of the victim's next turn
#: (when S2-14's stun of an Aguante test of exactly 16 ends too), for a GM whose book
#: gives a row that shorter duration.
UNTIL_HEALED = "hasta_sanar"
NEXT_TURN = "siguiente_turno"
DURATIONS: tuple[str, ...] = (UNTIL_HEALED, NEXT_TURN)
#: Effects that can only last until healed: the engine has no waking up from
#: *inconsciente*, and *moribundo* counts its own turns with its dice.
_HEALED_ONLY: dict[str, str] = {
    "inconsciente": N_("the engine has no waking up within a battle"),
    "moribundo": N_("its dice count the turns until death"),
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _LocationRow(_Strict):
    tirada: str | Int
    lugar: str
    multiplicador: Int = Field(1, ge=1, le=10)


class _GdfRow(_Strict):
    tirada: str | Int
    efecto: Literal[
        "aturdido", "sangrado", "incapacitado", "derribado", "inconsciente", "moribundo"
    ]
    valor: Int = 0
    dados: str | None = None
    duracion: str = UNTIL_HEALED


class _TablesFile(_Strict):
    default: bool = False
    localizacion: list[_LocationRow] = Field(min_length=1)
    ataque_apuntado: dict[str, Int]
    gdf: list[_GdfRow] = Field(min_length=1)


@dataclass(frozen=True, slots=True)
class Location:
    """Where a blow lands and what it multiplies the damage by (S2-12)."""

    name: str
    multiplier: int


@dataclass(frozen=True, slots=True)
class GdfEffect:
    """One row of the GDF table (S2-15)."""

    effect: str
    value: int = 0
    dice: DiceExpr | None = None
    #: :data:`UNTIL_HEALED` or :data:`NEXT_TURN`.
    duration: str = UNTIL_HEALED


@dataclass(frozen=True, slots=True)
class Tables:
    """The loaded tables. Immutable, so a battle keeps them in ``state.data``."""

    source: str
    default: bool
    #: Index = d10 face − 1.
    location_by_face: tuple[Location, ...]
    #: (location, MS) for every location that may be aimed at, in :data:`LOCATIONS` order.
    aimed: tuple[tuple[str, int], ...]
    #: Index = d10 face − 1.
    gdf_by_face: tuple[GdfEffect, ...]
    #: Derived once (the exact attack odds ask for them on every attack option a
    #: heuristic scores): the location multiplier of each d10 face, and the share of GDF
    #: faces that take the target out (inconsciente, moribundo; S2-15).
    multipliers: tuple[int, ...] = field(init=False)
    out_share: float = field(init=False)

    def __post_init__(self) -> None:
        # Frozen: derived fields are set once here, from fields that never change.
        object.__setattr__(
            self, "multipliers", tuple(loc.multiplier for loc in self.location_by_face)
        )
        out = sum(1 for e in self.gdf_by_face if e.effect in ("inconsciente", "moribundo"))
        object.__setattr__(self, "out_share", out / len(self.gdf_by_face))

    def aim_modifier(self, location: str) -> int | None:
        for name, modifier in self.aimed:
            if name == location:
                return modifier
        return None

    def multiplier(self, location: str) -> int:
        for loc in self.location_by_face:
            if loc.name == location:
                return loc.multiplier
        return 1


_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$")


def _faces(value: str | int, source: str, field: str) -> range:
    match = _RANGE.match(str(value))
    if not match:
        raise ScenarioError(
            source, field, _f("{value} is not a d10 face or range like '4-6'", repr(value))
        )
    low = int(match.group(1))
    high = int(match.group(2) or low)
    if not 1 <= low <= high <= 10:
        raise ScenarioError(
            source, field, _f("{value} must be faces between 1 and 10", repr(value))
        )
    return range(low, high + 1)


def _cover(rows: list[Any], source: str, table: str) -> list[Any]:
    """Each d10 face 1–10 must appear in exactly one row."""
    by_face: list[Any] = [None] * 10
    for i, row in enumerate(rows):
        for face in _faces(row.tirada, source, f"{table}[{i}].tirada"):
            if by_face[face - 1] is not None:
                raise ScenarioError(
                    source,
                    f"{table}[{i}].tirada",
                    _f("face {face} is already in another row", face),
                )
            by_face[face - 1] = (i, row)
    missing = [str(f + 1) for f, row in enumerate(by_face) if row is None]
    if missing:
        reason = _f("faces {faces} of the d10 are missing", ", ".join(missing))
        raise ScenarioError(source, table, reason)
    return by_face


def _unknown_location(source: str, field: str, name: str) -> ScenarioError:
    reason = _f("unknown location {name} (known: {known})", repr(name), ", ".join(LOCATIONS))
    return ScenarioError(source, field, reason, [Problem(field, reason, name, LOCATIONS)])


def _location_rows(spec: _TablesFile, source: str) -> tuple[Location, ...]:
    out: list[Location] = []
    for i, row in _cover(spec.localizacion, source, "localizacion"):
        if row.lugar not in LOCATIONS:
            raise _unknown_location(source, f"localizacion[{i}].lugar", row.lugar)
        out.append(Location(row.lugar, row.multiplicador))
    return tuple(out)


def _gdf_effect(row: _GdfRow, source: str, field: str) -> GdfEffect:
    if row.efecto in ("aturdido", "incapacitado") and not -10 <= row.valor <= 0:
        # "un Modificador de situación (MS) negativo que va del -1 al -10".
        raise ScenarioError(source, f"{field}.valor", _("must be an MS from -10 to 0"))
    if row.efecto in ("sangrado", "derribado") and not 1 <= row.valor <= 10:
        raise ScenarioError(source, f"{field}.valor", _("must be 1 to 10"))
    dice: DiceExpr | None = None
    if row.efecto == "moribundo":
        if row.dados is None:
            raise ScenarioError(source, f"{field}.dados", _("moribundo needs dice, e.g. '1d10'"))
        try:
            dice = parse_dice(row.dados)
        except DiceError as exc:
            raise ScenarioError(source, f"{field}.dados", str(exc)) from None
        if dice.minimum < 1:
            raise ScenarioError(source, f"{field}.dados", _("must always give at least 1 turn"))
    elif row.dados is not None:
        raise ScenarioError(
            source, f"{field}.dados", _f("only moribundo takes dice, not {effect}", row.efecto)
        )
    if row.duracion not in DURATIONS:
        raise ScenarioError(
            source,
            f"{field}.duracion",
            _f(
                "unknown duration {name} (known: {known})", repr(row.duracion), ", ".join(DURATIONS)
            ),
        )
    if row.efecto in _HEALED_ONLY and row.duracion != UNTIL_HEALED:
        raise ScenarioError(
            source,
            f"{field}.duracion",
            _f(
                "{effect} can only last {duration} ({why})",
                row.efecto,
                UNTIL_HEALED,
                _(_HEALED_ONLY[row.efecto]),
            ),
        )
    return GdfEffect(row.efecto, row.valor, dice, row.duracion)


def parse_tables(data: Any, source: str) -> Tables:
    """Validate a parsed tables mapping; raise :class:`ScenarioError` (file, field, reason)."""
    if not isinstance(data, dict):
        raise ScenarioError(source, "", _("a tables file must be a YAML mapping"))
    try:
        spec = _TablesFile.model_validate(data)
    except ValidationError as err:
        raise ScenarioError.of(source, pydantic_problems(err)) from None
    # Each table is checked even when another has a problem, so every problem is listed.
    problems: list[Problem] = []
    try:
        locations = _location_rows(spec, source)
    except ScenarioError as exc:
        problems.extend(exc.problems)
    try:
        aimed = _aimed(spec, source)
    except ScenarioError as exc:
        problems.extend(exc.problems)
    try:
        gdf = tuple(
            _gdf_effect(row, source, f"gdf[{i}]") for i, row in _cover(spec.gdf, source, "gdf")
        )
    except ScenarioError as exc:
        problems.extend(exc.problems)
    if problems:
        raise ScenarioError.of(source, problems)
    return Tables(source, spec.default, locations, aimed, gdf)


def _aimed(spec: _TablesFile, source: str) -> tuple[tuple[str, int], ...]:
    aimed: list[tuple[str, int]] = []
    for name, modifier in spec.ataque_apuntado.items():
        if name not in LOCATIONS:
            raise _unknown_location(source, f"ataque_apuntado.{name}", name)
        if not -20 <= modifier <= 0:
            raise ScenarioError(source, f"ataque_apuntado.{name}", _("must be an MS from -20 to 0"))
    for name in LOCATIONS:
        if name in spec.ataque_apuntado:
            aimed.append((name, spec.ataque_apuntado[name]))
    return tuple(aimed)


def tables_model() -> type[BaseModel]:
    """The pydantic model of a tables file (``escaramuza schema tables`` prints its schema)."""
    return _TablesFile


def default_tables_path() -> str:
    return str(importlib.resources.files("escaramuza.rules.sistema_2d10") / "tables/default.yaml")


#: Largest tables file read: the shipped default is under 8 KiB.
MAX_TABLES_BYTES = 1 << 20


@lru_cache(maxsize=32)
def _load(path: str, mtime_ns: int) -> Tables:
    text = read_text_file(path, ScenarioError, _("a tables file"), MAX_TABLES_BYTES)
    return parse_tables(parse_yaml(text, path, ScenarioError), path)


def load_tables(path: str | None = None) -> Tables:
    """Load (and cache) a tables file; ``None`` or ``"default"`` is the shipped default.

    A path is absolute or relative to the current directory (the options model resolves
    it when the scenario is loaded).
    """
    if path is None or path == DEFAULT_TABLES:
        path = default_tables_path()
    try:
        mtime = Path(path).stat().st_mtime_ns
    except FileNotFoundError:
        raise ScenarioError(str(path), "", _("no such tables file")) from None
    except OSError as exc:
        raise ScenarioError(str(path), "", _f("cannot be read ({reason})", exc.strerror)) from None
    return _load(str(path), mtime)
