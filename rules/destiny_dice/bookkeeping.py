"""Destiny Dice bookkeeping in a loaded state: its schema and the turn invariants.

What :class:`~escaramuza.rules.destiny_dice.ruleset.DestinyDice` keeps between
decisions:

* battle ``data``: ``turn_actor`` (whose turn it is), ``moved`` and ``acted``
  (DD-03: one move and one main action a turn), ``reaction_vs`` (the attacker a
  Defensa Perfecta answers, DD-08);
* combatant ``data``: ``ayuda`` (DD-04's bonus to the next roll),
  ``jam:WEAPON`` (DD-18, a jammed weapon that shoots), ``uses:HEAL`` (uses left
  of a limited heal).
"""

from __future__ import annotations

from pydantic import Field

from escaramuza.rules.core.bookkeeping import (
    MAX_COUNTER,
    BookkeepingError,
    Schema,
    check_conditions,
    check_id,
    check_order,
    check_pending,
    require,
    short,
    validate,
)
from escaramuza.rules.core.dice import DiceError, parse_dice
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.model import Combatant, DecisionKind
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.destiny_dice.combat import IN_THE_FIGHT
from escaramuza.rules.destiny_dice.sheets import CONDITIONS

#: Destiny Dice keeps no dataclass or enum in its bookkeeping.
STATE_TYPES: tuple[type, ...] = ()

_DECISIONS = {"turn": DecisionKind.TURN, "defensa_perfecta": DecisionKind.REACTION}


class BattleData(Schema):
    turn_actor: str | None
    moved: bool
    acted: bool
    reaction_vs: str | None = None


class Ayuda(Schema):
    ayuda: int = Field(0, ge=0, le=MAX_COUNTER)


def check_state(state: BattleState) -> None:
    """Raise :class:`BookkeepingError` unless the ruleset can play on from ``state``."""
    data = validate(BattleData, state.data, "data")
    check_conditions(state, CONDITIONS)
    check_pending(state, _DECISIONS)
    for i, c in enumerate(state.combatants):
        where = f"combatants[{i}]"
        _check_combatant_data(c, where)
        poison = c.conditions.get("envenenado")
        if poison is not None and poison.dice is not None:
            try:
                parse_dice(poison.dice)
            except DiceError as exc:  # rolled at the start of each of its turns (DD-19)
                raise BookkeepingError(f"{where}.conditions.envenenado.dice", str(exc)) from None
    pending = state.pending
    if pending is None:
        return
    # DD-01/DD-16: who is in the fight rolls initiative; a defeated enemy does not.
    check_order(state, IN_THE_FIGHT)
    actor = check_id(state, data.turn_actor, "data.turn_actor", active=pending.name == "turn")
    require(
        state.order[state.turn] == actor,
        "data.turn_actor",
        _f(
            "{actor} is not at the order's position {turn} ({other} is)",
            actor,
            state.turn,
            state.order[state.turn],
        ),
    )
    if pending.name == "turn":
        require(
            pending.actor == actor,
            "pending.actor",
            _f("{actor} but it is {current}'s turn (data.turn_actor)", pending.actor, actor),
        )
    else:  # DD-08: the defender answers the attacker
        check_id(state, data.reaction_vs, "data.reaction_vs")


def _check_combatant_data(c: Combatant, where: str) -> None:
    jams = {key for _, key in c.stats.jam_keys}
    uses = {h.uses_key: h.uses for h in c.stats.heals.values() if h.uses is not None}
    for key, value in c.data.items():
        field = f"{where}.data.{key}"
        if key == "ayuda":
            validate(Ayuda, {"ayuda": value}, f"{where}.data")
        elif key in jams:
            require(
                type(value) is bool,
                field,
                _f("expected {expected}, got {value}", _("true or false"), short(value)),
            )
        elif key in uses:
            top = uses[key]
            require(
                type(value) is int and 0 <= value <= top,
                field,
                _f("expected the uses left, an integer 0–{top}, got {value}", top, short(value)),
            )
        else:
            known = ", ".join(["ayuda", *sorted(jams), *sorted(uses)])
            raise BookkeepingError(
                field, _f("unknown field (known for {id}: {known})", c.id, known)
            )
