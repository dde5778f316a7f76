"""Donjon bookkeeping in a loaded state: its schema and the ráfaga's invariants.

What :class:`~escaramuza.rules.donjon.ruleset.Donjon` keeps between decisions:

* battle ``data``: ``count`` (the number the DJ is calling, DJ-05), ``continuing``
  (the sides that want another ráfaga, DJ-07), and while a reaction or a choice
  is pending ``attack`` (a :class:`PendingAttack`), ``move`` (a
  :class:`PendingMove`, DJ-10) or ``spend`` (a :class:`PendingSpend`, DJ-17);
* combatant ``data``: ``init`` (the initiative numbers still held, DJ-04),
  ``bonus`` (éxitos carried to the next attack or movement) and ``acted`` —
  ``(number, times)``: how often the combatant acted on that number (DJ-06).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from escaramuza.rules.core.bookkeeping import (
    MAX_COUNTER,
    Schema,
    check_conditions,
    check_fields,
    check_id,
    check_pending,
    check_zone,
    require,
    validate,
)
from escaramuza.rules.core.model import DecisionKind, Side
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.donjon import combat
from escaramuza.rules.donjon.decisions import (
    CONTINUE,
    DEFENCE,
    RESIST,
    SPEND,
    SPEND_OPTIONS,
    TURN,
    PendingAttack,
    PendingMove,
    PendingSpend,
)
from escaramuza.rules.donjon.ruleset import Donjon

#: The frozen dataclasses a Donjon state may hold (the pending attack, move, spend).
STATE_TYPES: tuple[type, ...] = (PendingAttack, PendingMove, PendingSpend)

_DECISIONS = {
    TURN: DecisionKind.TURN,
    DEFENCE: DecisionKind.REACTION,
    RESIST: DecisionKind.REACTION,
    SPEND: DecisionKind.CHOICE,
    CONTINUE: DecisionKind.CHOICE,
}

_Count = Field(ge=0, le=MAX_COUNTER)


class BattleData(Schema):
    count: int = _Count
    continuing: tuple[Literal["heroes", "enemies"], ...] = ()
    attack: PendingAttack | None = None
    move: PendingMove | None = None
    spend: PendingSpend | None = None


class CombatantData(Schema):
    init: tuple[int, ...]
    bonus: int = _Count
    acted: tuple[int, int]


def check_state(state: BattleState) -> None:
    """Raise :class:`BookkeepingError` unless the ruleset can play on from ``state``."""
    die = state.options.die_size
    data = validate(BattleData, state.data, "data")
    require(data.count <= die, "data.count", f"{data.count} is above the die size ({die})")
    check_conditions(state, Donjon.conditions)
    check_pending(state, _DECISIONS)
    for i, c in enumerate(state.combatants):
        where = f"combatants[{i}].data"
        own = validate(CombatantData, c.data, where)
        for j, n in enumerate(own.init):
            require(
                1 <= n <= die,
                f"{where}.init[{j}]",
                f"{n} is not a face of the d{die} (options.die_size)",
            )
        require(
            list(own.init) == sorted(own.init, reverse=True),
            f"{where}.init",
            "the numbers must be held highest first",
        )
        number, times = own.acted
        require(
            0 <= number <= die and 0 <= times <= MAX_COUNTER,
            f"{where}.acted",
            f"expected [number 0–{die}, times 0–{MAX_COUNTER}], got {list(own.acted)}",
        )
    if data.attack is not None:
        _check_attack(state, data.attack)
    if data.move is not None:
        _check_move(state, data.move)
    if data.spend is not None:
        _check_spend(state, data.spend)
    pending = state.pending
    if pending is None:
        return
    actor = state.by_id[pending.actor]
    if pending.name == TURN:
        # DJ-05: the actor holds the number being called (it is crossed off as it acts).
        require(actor.active, "pending.actor", f"{actor.id} is {actor.status.value}")
        require(
            data.count in actor.data["init"],
            "data.count",
            f"{actor.id} does not hold {data.count} (data.init: {list(actor.data['init'])})",
        )
    elif pending.name == DEFENCE:
        require(data.attack is not None, "data.attack", "required while a defence is pending")
        assert data.attack is not None
        require(
            data.attack.target == actor.id,
            "pending.actor",
            f"{actor.id} but the attack's target is {data.attack.target}",
        )
    elif pending.name == RESIST:
        require(data.move is not None, "data.move", "required while a resistance is pending")
        assert data.move is not None
        require(
            data.move.resister == actor.id,
            "pending.actor",
            f"{actor.id} but the movement's resister is {data.move.resister}",
        )
    elif pending.name == SPEND:
        require(data.spend is not None, "data.spend", "required while éxitos are spent")
        assert data.spend is not None
        require(
            data.spend.dealer == actor.id,
            "pending.actor",
            f"{actor.id} but the éxitos are {data.spend.dealer}'s",
        )
    elif pending.name == CONTINUE:
        side = Side(pending.side)
        require(bool(state.active(side)), "pending.side", f"the {side.value} have nobody active")


def _check_attack(state: BattleState, attack: PendingAttack) -> None:
    check_fields(attack, PendingAttack, "data.attack")
    attacker = state.by_id[check_id(state, attack.attacker, "data.attack.attacker")]
    check_id(state, attack.target, "data.attack.target")
    require(
        attack.weapon in combat.profile(attacker).by_name,
        "data.attack.weapon",
        f"{attacker.id} carries no weapon {attack.weapon!r}",
    )
    top = len(combat.BAND_NAMES) - 1
    require(0 <= attack.band <= top, "data.attack.band", f"{attack.band} is outside 0–{top}")


def _check_move(state: BattleState, move: PendingMove) -> None:
    check_fields(move, PendingMove, "data.move")
    check_id(state, move.mover, "data.move.mover")
    if move.resister:  # "" when nobody can resist
        check_id(state, move.resister, "data.move.resister")
    require(
        move.verb in ("acercarse", "alejarse", "huir"),
        "data.move.verb",
        f"unknown movement {move.verb!r}",
    )
    if move.to_zone is not None:
        check_zone(state, move.to_zone, "data.move.to_zone")


def _check_spend(state: BattleState, spend: PendingSpend) -> None:
    check_fields(spend, PendingSpend, "data.spend")
    check_id(state, spend.dealer, "data.spend.dealer")
    check_id(state, spend.victim, "data.spend.victim")
    require(
        0 <= spend.remaining <= MAX_COUNTER,
        "data.spend.remaining",
        f"{spend.remaining} is outside 0–{MAX_COUNTER}",
    )
    for j, name in enumerate(spend.picked):
        require(name in SPEND_OPTIONS, f"data.spend.picked[{j}]", f"unknown attribute {name!r}")
