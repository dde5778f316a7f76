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
    check_weapon,
    check_zone,
    require,
    validate,
)
from escaramuza.rules.core.i18n import _, _f, word
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

#: The movements a pending move may be (DJ-10).
_MOVES = ("acercarse", "alejarse", "huir")


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
    require(
        data.count <= die,
        "data.count",
        _f("{count} is above the die size ({die})", data.count, die),
    )
    check_conditions(state, Donjon.conditions)
    check_pending(state, _DECISIONS)
    for i, c in enumerate(state.combatants):
        where = f"combatants[{i}].data"
        own = validate(CombatantData, c.data, where)
        for j, n in enumerate(own.init):
            require(
                1 <= n <= die,
                f"{where}.init[{j}]",
                _f("{n} is not a face of the d{die} (options.die_size)", n, die),
            )
        require(
            list(own.init) == sorted(own.init, reverse=True),
            f"{where}.init",
            _("the numbers must be held highest first"),
        )
        number, times = own.acted
        require(
            0 <= number <= die and 0 <= times <= MAX_COUNTER,
            f"{where}.acted",
            _f(
                "expected [number 0–{die}, times 0–{most}], got {value}",
                die,
                MAX_COUNTER,
                list(own.acted),
            ),
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
        check_id(state, actor.id, "pending.actor", active=True)
        require(
            data.count in actor.data["init"],
            "data.count",
            _f(
                "{id} does not hold {count} (data.init: {held})",
                actor.id,
                data.count,
                list(actor.data["init"]),
            ),
        )
    elif pending.name == DEFENCE:
        require(data.attack is not None, "data.attack", _("required while a defence is pending"))
        assert data.attack is not None
        require(
            data.attack.target == actor.id,
            "pending.actor",
            _f("{actor} but the attack's target is {target}", actor.id, data.attack.target),
        )
    elif pending.name == RESIST:
        require(data.move is not None, "data.move", _("required while a resistance is pending"))
        assert data.move is not None
        require(
            data.move.resister == actor.id,
            "pending.actor",
            _f(
                "{actor} but the movement's resister is {resister}",
                actor.id,
                data.move.resister,
            ),
        )
    elif pending.name == SPEND:
        require(data.spend is not None, "data.spend", _("required while éxitos are spent"))
        assert data.spend is not None
        require(
            data.spend.dealer == actor.id,
            "pending.actor",
            _f("{actor} but the éxitos are {dealer}'s", actor.id, data.spend.dealer),
        )
    elif pending.name == CONTINUE:
        side = Side(pending.side)
        require(
            bool(state.active(side)),
            "pending.side",
            _f("the {side} have nobody active", word(side.value)),
        )


def _check_attack(state: BattleState, attack: PendingAttack) -> None:
    check_fields(attack, PendingAttack, "data.attack")
    attacker = state.by_id[check_id(state, attack.attacker, "data.attack.attacker")]
    check_id(state, attack.target, "data.attack.target")
    check_weapon(attacker.id, attack.weapon, combat.profile(attacker).by_name, "data.attack.weapon")
    top = len(combat.BAND_NAMES) - 1
    require(
        0 <= attack.band <= top,
        "data.attack.band",
        _f("{value} is outside 0–{top}", attack.band, top),
    )


def _check_move(state: BattleState, move: PendingMove) -> None:
    check_fields(move, PendingMove, "data.move")
    check_id(state, move.mover, "data.move.mover")
    if move.resister:  # "" when nobody can resist
        check_id(state, move.resister, "data.move.resister")
    require(
        move.verb in _MOVES,
        "data.move.verb",
        _f("unknown movement {verb} (known: {known})", repr(move.verb), ", ".join(_MOVES)),
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
        _f("{value} is outside 0–{top}", spend.remaining, MAX_COUNTER),
    )
    for j, name in enumerate(spend.picked):
        require(
            name in SPEND_OPTIONS,
            f"data.spend.picked[{j}]",
            _f("unknown attribute {name} (known: {known})", repr(name), ", ".join(SPEND_OPTIONS)),
        )
