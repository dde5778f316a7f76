"""Sistema 2d10 bookkeeping in a loaded state: its schema and the turn's invariants.

What :class:`~escaramuza.rules.sistema_2d10.ruleset.Sistema2d10` keeps between
decisions:

* battle ``data``: ``tables`` (the scenario's damage tables, always taken from
  the scenario), ``roll`` (a :class:`PendingRoll` in flight, S2-05's Dado
  Exprés decisions), ``attack`` (the :class:`AttackCtx` in flight) and
  ``fresh`` (no action taken yet this turn: Defensa completa is still allowed);
* combatant ``data``: ``profile``, derived from the stat block and always taken
  from the scenario.
"""

from __future__ import annotations

from typing import Any

from escaramuza.rules.core.bookkeeping import (
    MAX_COUNTER,
    BookkeepingError,
    Schema,
    check_conditions,
    check_fields,
    check_id,
    check_order,
    check_pending,
    check_weapon,
    require,
    short,
    validate,
)
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.model import DecisionKind
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.sistema_2d10.combat import (
    ACTIVE_DEFENCE,
    AGUANTE,
    ATAQUE,
    DEFENSA,
    EXPRES_AFTER,
    EXPRES_BEFORE,
    INCAPACITATED,
    MAX_STACK,
    MS_FLOOR,
    STUNNED,
    TURN,
    AttackCtx,
    PendingRoll,
)
from escaramuza.rules.sistema_2d10.ruleset import Sistema2d10
from escaramuza.rules.sistema_2d10.tables import load_tables

#: The frozen dataclasses a Sistema 2d10 state may hold (the roll and the attack in flight).
STATE_TYPES: tuple[type, ...] = (PendingRoll, AttackCtx)

_DECISIONS = {
    TURN: DecisionKind.TURN,
    ACTIVE_DEFENCE: DecisionKind.REACTION,
    EXPRES_BEFORE: DecisionKind.CHOICE,
    EXPRES_AFTER: DecisionKind.CHOICE,
}


#: The values a battle gives a state: an MS "del -1 al -10" (a stun, a limb; the GDF table
#: and the exact-16 stun may deal 0), a bleed's PV and a fall's actions stacked from 1.
_VALUES: dict[str, tuple[int, int]] = {
    STUNNED: (MS_FLOOR, 0),
    INCAPACITATED: (MS_FLOOR, 0),
    "sangrado": (1, MAX_STACK),
    "derribado": (1, MAX_STACK),
}
#: The purposes a roll in flight may have.
_ROLLS = (ATAQUE, DEFENSA, AGUANTE)


class BattleData(Schema):
    tables: Any  # compared with the scenario's below
    roll: PendingRoll | None
    attack: AttackCtx | None
    fresh: bool


def check_state(state: BattleState) -> None:
    """Raise :class:`BookkeepingError` unless the ruleset can play on from ``state``."""
    data = validate(BattleData, state.data, "data")
    require(
        data.tables == load_tables(state.options.tables),
        "data.tables",
        _('must be the scenario\'s tables (write {"$scenario": true})'),
    )
    # S2-15 names a limb or a stun in variants of the observed conditions (aliases).
    check_conditions(state, (*Sistema2d10.conditions, *Sistema2d10.condition_aliases))
    for i, c in enumerate(state.combatants):
        for j, (name, cond) in enumerate(c.conditions.items()):
            lo, hi = _VALUES.get(
                Sistema2d10.condition_aliases.get(name, name), (-MAX_COUNTER, MAX_COUNTER)
            )
            require(
                lo <= cond.value <= hi,
                f"combatants[{i}].conditions[{j}].value",
                _f("{name} {value} is outside {lo}–{hi}", name, cond.value, lo, hi),
            )
    check_pending(state, _DECISIONS)
    for i, c in enumerate(state.combatants):
        where = f"combatants[{i}].data"
        for key in c.data:
            require(key == "profile", f"{where}.{key}", _("unknown field"))
        require(
            c.data.get("profile") is state.scenario.combatant(c.id).data["profile"],
            f"{where}.profile",
            _('must be the scenario\'s (write {"$scenario": true})'),
        )
    if data.attack is not None:
        _check_attack(state, data.attack)
    if data.roll is not None:
        _check_roll(state, data.roll, data.attack)
    pending = state.pending
    if pending is None:
        return
    check_order(state)
    # S2-06: whoever decides, it is the turn of the combatant at ``turn`` in the order.
    current = state.by_id[state.order[state.turn]]
    if pending.name == TURN:
        require(
            pending.actor == current.id and current.active,
            "pending.actor",
            _f(
                "{actor} but the turn is {current}'s (order[{turn}])",
                pending.actor,
                current.id,
                state.turn,
            ),
        )
        require(data.roll is None, "data.roll", _("must be null at the start of a decision"))
    elif pending.name == ACTIVE_DEFENCE:
        require(
            data.attack is not None and data.attack.target == pending.actor,
            "data.attack",
            _f("an attack on {actor} is required while it defends", pending.actor),
        )
    else:
        require(
            data.roll is not None and data.roll.roller == pending.actor,
            "data.roll",
            _f("a roll of {actor}'s is required for a Dado Exprés decision", pending.actor),
        )
        assert data.roll is not None
        require(
            bool(data.roll.faces) == (pending.name == EXPRES_AFTER),
            "data.roll.faces",
            _("rolled dice are needed after the roll, and none before it"),
        )


def _check_attack(state: BattleState, attack: AttackCtx) -> None:
    check_fields(attack, AttackCtx, "data.attack")
    attacker = state.by_id[check_id(state, attack.attacker, "data.attack.attacker")]
    check_id(state, attack.target, "data.attack.target")
    profile = attacker.data.get("profile")
    names = [w.name for w in profile.weapons] if profile is not None else []
    check_weapon(attacker.id, attack.weapon, names, "data.attack.weapon")
    aims = [name for name, _ in state.data["tables"].aimed]
    require(
        attack.aim is None or attack.aim in aims,
        "data.attack.aim",
        _f("unknown location {name} (known: {known})", repr(attack.aim), ", ".join(aims)),
    )
    require(
        abs(attack.total) <= MAX_COUNTER,
        "data.attack.total",
        _f("{value} is outside ±{most}", attack.total, MAX_COUNTER),
    )


def _check_roll(state: BattleState, roll: PendingRoll, attack: AttackCtx | None) -> None:
    check_fields(roll, PendingRoll, "data.roll")
    check_id(state, roll.roller, "data.roll.roller")
    if roll.purpose not in _ROLLS:
        raise BookkeepingError(
            "data.roll.purpose",
            _f("unknown roll {roll} (known: {known})", short(roll.purpose), ", ".join(_ROLLS)),
        )
    if roll.purpose != AGUANTE:
        require(
            attack is not None,
            "data.attack",
            _f("required by a roll of {purpose}", roll.purpose),
        )
    require(
        abs(roll.bonus) <= MAX_COUNTER,
        "data.roll.bonus",
        _f("{value} is outside ±{most}", roll.bonus, MAX_COUNTER),
    )
    require(
        len(roll.faces) in (0, 2, 3) and all(1 <= f <= 10 for f in roll.faces),
        "data.roll.faces",
        _("expected no dice, or two or three d10 faces (1–10)"),
    )
