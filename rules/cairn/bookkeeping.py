"""Cairn bookkeeping in a loaded state: its schema and the side turn's invariants.

What :class:`~escaramuza.rules.cairn.ruleset.Cairn` keeps between decisions:
``side`` (the side declaring, CA-02), ``queue`` (who still
has to declare, the first one deciding now), ``declared`` (the side's declared
:class:`~escaramuza.rules.core.model.Action`\\ s, resolved together when the
queue empties) and the CA-14 morale flags ``morale_first``, ``morale_half``,
``morale_lone`` (each morale check happens once). Combatants keep no ``data``.
"""

from __future__ import annotations

from typing import Literal

from escaramuza.rules.cairn.ruleset import Cairn
from escaramuza.rules.core.bookkeeping import (
    BookkeepingError,
    Schema,
    check_conditions,
    check_fields,
    check_id,
    check_pending,
    require,
    validate,
)
from escaramuza.rules.core.i18n import _, _f, word
from escaramuza.rules.core.model import Action, DecisionKind
from escaramuza.rules.core.state import BattleState

#: Cairn's bookkeeping holds only core values (declared actions).
STATE_TYPES: tuple[type, ...] = ()


class BattleData(Schema):
    side: Literal["heroes", "enemies"]
    queue: tuple[str, ...]
    declared: tuple[Action, ...]
    morale_first: bool = False
    morale_half: bool = False
    morale_lone: bool = False


def check_state(state: BattleState) -> None:
    """Raise :class:`BookkeepingError` unless the ruleset can play on from ``state``."""
    check_conditions(state, Cairn.conditions)
    check_pending(state, {"declarar": DecisionKind.TURN})
    for i, c in enumerate(state.combatants):
        if c.data:
            raise BookkeepingError(f"combatants[{i}].data.{next(iter(c.data))}", _("unknown field"))
    if state.pending is None and not state.data:
        return  # a finished battle may end before any side turn opened
    data = validate(BattleData, state.data, "data")
    for j, cid in enumerate(data.queue):
        c = state.by_id[check_id(state, cid, f"data.queue[{j}]", active=True)]
        require(
            c.side.value == data.side,
            f"data.queue[{j}]",
            _f("{id} is not on the {side}, whose side turn it is", cid, word(data.side)),
        )
        require(
            cid not in data.queue[:j],
            f"data.queue[{j}]",
            _f("combatant {id} appears twice", repr(cid)),
        )
    pending = state.pending
    if pending is not None:
        require(
            bool(data.queue),
            "pending.actor",
            _f("{actor} but nobody is left to declare (data.queue)", pending.actor),
        )
        require(
            data.queue[0] == pending.actor,
            "pending.actor",
            _f(
                "{actor} but the next to declare is {next} (data.queue)",
                pending.actor,
                data.queue[0],
            ),
        )
    ruleset: Cairn = state.ruleset  # type: ignore[assignment]
    declared: set[str] = set()
    for j, action in enumerate(data.declared):
        where = f"data.declared[{j}]"
        check_fields(action, Action, where)
        actor = state.by_id[check_id(state, action.actor, f"{where}.actor")]
        require(
            actor.side.value == data.side
            and action.actor not in data.queue
            and action.actor not in declared,
            f"{where}.actor",
            _f("{actor} cannot have declared in this side turn", action.actor),
        )
        declared.add(action.actor)
        # Declarations resolve together (CA-02) and nothing moves before then: each is
        # still one of the actor's legal actions.
        if actor.active:
            require(
                action in ruleset.actions_for(state, actor),
                where,
                _f("{action} is not one of {actor}'s actions here", str(action), action.actor),
            )
