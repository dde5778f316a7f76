"""The pydantic models of a scenario file: ids, the integer fields, the bounds of what a
scenario may ask a battle to play, the generic keys (:class:`ScenarioSpec`) and, per
ruleset, the whole file as one model (:func:`scenario_model`: the generic keys with the
ruleset's options and stat block merged in), whose JSON Schema ``escaramuza schema``
prints."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    create_model,
    field_validator,
)
from pydantic_core import PydanticCustomError

from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.pydantic_reasons import _NOT_TRUE_OR_FALSE

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
#: Most item slots (weapons, heals…) the envs and a trained policy keep for one combatant:
#: the bound of their ``max_items`` limit, far above any stat block's.
MAX_ITEM_SLOTS = 32
#: Largest zone elevation, either sign (only recorded, for rulesets and renderers).
MAX_ELEVATION = 100

Id = Annotated[
    str,
    Field(max_length=_ID_MAX, description=f"An id: {ID_RULE}, at most {_ID_MAX} characters."),
    AfterValidator(_check_id),
]


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

#: A true/false field of a file's model. The YAML reader reads ``yes``, ``on`` or ``1``
#: as text or a number, never as a boolean; pydantic's lax mode would then turn that
#: text into one (``exit: yes`` an exit). Only ``true`` and ``false`` are taken.
Bool = StrictBool


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ZoneSpec(_Strict):
    id: Id
    name: str | None = None
    description: str = ""
    cover: Int = Field(0, ge=0, le=2)
    exit: Bool = False
    difficult: Bool = False
    elevation: Int = Field(0, ge=-MAX_ELEVATION, le=MAX_ELEVATION)


class LinkSpec(_Strict):
    between: tuple[str, str]
    difficult: Bool = False
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

    :func:`~escaramuza.rules.core.scenario.parse_scenario` validates a file with it first,
    so every structural problem (generic, options, every combatant's stats) is reported at
    once, and ``escaramuza schema`` prints its JSON Schema, so editors check exactly what
    loads.
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
