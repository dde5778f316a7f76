"""What a loaded state's bookkeeping must be: the shared part of the rulesets' checks.

A state file (``escaramuza.state_file``) is untrusted: any value in it may have
been edited. Each ruleset owns its bookkeeping — the ``data`` of the battle and
of each combatant — and checks it in its own ``bookkeeping.py`` module
(``STATE_TYPES`` and ``check_state``, named by ``Ruleset.bookkeeping`` and found
through :func:`escaramuza.rules.get_bookkeeping`) with the helpers here: a pydantic schema
of the values (:func:`validate`), the typed fields of a frozen dataclass
(:func:`check_fields`), known combatant ids, zones and conditions. Every
failure is a :class:`BookkeepingError` naming the field and the reason; the
state file loader adds the file.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Container, Iterable
from functools import cache
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from escaramuza.rules.core.i18n import _f, word
from escaramuza.rules.core.model import Action, DecisionKind, Side, Status
from escaramuza.rules.core.pydantic_reasons import pydantic_problems
from escaramuza.rules.core.state import BattleState

#: Classes of the core a state's bookkeeping may hold (Cairn's declared actions…).
CORE_STATE_TYPES: tuple[type, ...] = (Action, Side, Status, DecisionKind)

#: Largest value a bookkeeping counter may hold: far above any real battle's (a bonus of
#: successes, a count of uses), low enough that no arithmetic on it misbehaves.
MAX_COUNTER = 1000


class BookkeepingError(ValueError):
    """A bookkeeping value the ruleset cannot continue from: the field and the reason."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class Schema(BaseModel):
    """Base of the rulesets' bookkeeping schemas: strict types, no unknown keys, and
    tuples for sequences (a state file's lists are decoded as tuples)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _error(err: ValidationError, field: str) -> BookkeepingError:
    """The first of ``err``'s errors, worded as the scenario loader words a file's, in the
    current language."""
    first = pydantic_problems(err, field)[0]
    return BookkeepingError(first.field, first.reason)


def validate(schema: type[BaseModel], data: Any, field: str) -> Any:
    """``schema`` validated against ``data`` (a mapping), or a :class:`BookkeepingError`."""
    try:
        return schema.model_validate(data)
    except ValidationError as err:
        raise _error(err, field) from None


@cache
def _field_model(cls: type) -> type[BaseModel]:
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else ...
        fields[f.name] = (hints[f.name], default)
    return create_model(f"{cls.__name__}Fields", __base__=Schema, **fields)


def check_fields(value: Any, cls: type, field: str) -> Any:
    """``value`` must be a ``cls`` (a frozen dataclass) whose fields have their declared
    types (the generic decoder builds it from whatever the file gave)."""
    if type(value) is not cls:
        raise BookkeepingError(
            field, _f("expected a {type}, got {value}", cls.__name__, short(value))
        )
    data = {f.name: getattr(value, f.name) for f in dataclasses.fields(cls)}
    # (the cast: mypy narrows ``cls`` to type[Any] above, which it holds not Hashable)
    validate(_field_model(cast(type, cls)), data, field)
    return value


def check_id(state: BattleState, cid: Any, field: str, *, active: bool = False) -> str:
    """``cid`` must name a combatant of the battle (an active one with ``active``)."""
    if not isinstance(cid, str) or cid not in state.by_id:
        known = ", ".join(state.by_id)
        raise BookkeepingError(
            field, _f("unknown combatant {id} (combatants: {known})", short(cid), known)
        )
    if active and not state.by_id[cid].active:
        status = word(state.by_id[cid].status.value)
        raise BookkeepingError(field, _f("{id} is {status}, not active", cid, status))
    return cid


def check_zone(state: BattleState, zone: Any, field: str) -> str:
    if not isinstance(zone, str) or zone not in state.battlefield.zones:
        known = ", ".join(state.battlefield.zone_ids)
        raise BookkeepingError(
            field, _f("unknown zone {zone} (zones: {known})", short(zone), known)
        )
    return zone


def check_weapon(attacker: str, weapon: Any, carried: Container[str], field: str) -> None:
    """``weapon`` (a pending attack's) must be one ``attacker`` carries."""
    require(
        weapon in carried,
        field,
        _f("{id} carries no weapon {weapon}", attacker, short(weapon)),
    )


def check_conditions(state: BattleState, known: Iterable[str]) -> None:
    """Every combatant's conditions are among ``known`` (the ruleset's), with a value of
    at most :data:`MAX_COUNTER` either way."""
    names = set(known)
    for i, c in enumerate(state.combatants):
        for j, (name, cond) in enumerate(c.conditions.items()):
            if abs(cond.value) > MAX_COUNTER:
                raise BookkeepingError(
                    f"combatants[{i}].conditions[{j}].value",
                    _f("{value} is outside ±{most}", cond.value, MAX_COUNTER),
                )
            if name not in names:
                raise BookkeepingError(
                    f"combatants[{i}].conditions[{j}].name",
                    _f(
                        "unknown condition {name} (known: {known})",
                        short(name),
                        ", ".join(sorted(names)),
                    ),
                )


def check_pending(state: BattleState, allowed: dict[str, DecisionKind]) -> None:
    """The pending decision's kind is the one its name has in this ruleset."""
    pending = state.pending
    if pending is None:
        return
    kind = allowed.get(pending.name)
    if kind is not None and pending.kind is not kind:
        raise BookkeepingError(
            "pending.kind",
            _f("a {name} decision is a {kind} decision", repr(pending.name), kind.name.lower()),
        )


def check_order(state: BattleState, rolls: tuple[Status, ...] | None = None) -> None:
    """The initiative order of a ruleset that rolls it once at the start and where nobody
    leaves it (a combatant who is down keeps its place: it may be brought back): every
    combatant in it — or, with ``rolls``, every one whose status is one of those that
    roll initiative — and ``state.turn`` one of its positions."""
    missing = [
        c.id
        for c in state.combatants
        if c.id not in state.order and (rolls is None or c.status in rolls)
    ]
    if missing:
        raise BookkeepingError(
            "order",
            _f("{ids} missing: the order holds every combatant", ", ".join(missing))
            if rolls is None
            else _f(
                "{ids} missing: the order holds every combatant that can act or be healed",
                ", ".join(missing),
            ),
        )
    if not 0 <= state.turn < len(state.order):
        raise BookkeepingError(
            "turn",
            _f(
                "{turn} is outside 0–{last} (the order's positions)",
                state.turn,
                len(state.order) - 1,
            ),
        )


def require(condition: bool, field: str, reason: str) -> None:
    """Raise ``BookkeepingError(field, reason)`` unless ``condition`` holds."""
    if not condition:
        raise BookkeepingError(field, reason)


def short(value: Any) -> str:
    """``repr(value)``, cut to 80 characters (an edited file's values can be huge)."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:80]}…"
