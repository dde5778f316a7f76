"""Turns and rounds (S2-06, S2-07, S2-10): the next combatant in initiative order who can
act, the actions of a turn, what a new round gives back and what a turn's start costs
(full defence ends, derribado, sangrado, moribundo).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import ConditionEnded, Damaged, Event, Note, TurnStarted
from escaramuza.rules.core.i18n import _f
from escaramuza.rules.core.model import Combatant, Condition, Decision, DecisionKind, Status
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.sistema_2d10.combat import TURN
from escaramuza.rules.sistema_2d10.tables import NEXT_TURN

if TYPE_CHECKING:
    from escaramuza.rules.sistema_2d10.ruleset import Sistema2d10


def resume(rs: Sistema2d10, state: BattleState, roller: Roller) -> list[Event]:
    """Hand the turn back to its owner, or move on when the owner is out of actions."""
    events = rs.check_end(state)
    if state.outcome is not None:
        return events
    actor = state.get(state.order[state.turn])
    if actor.active and actor.resources["acciones"] > 0:
        state.pending = Decision(DecisionKind.TURN, actor.id, actor.side, TURN)
        return events
    return events + end_turn(state, actor) + next_turn(rs, state, roller)


def end_turn(state: BattleState, c: Combatant) -> list[Event]:
    c.resources["acciones"] = 0
    events: list[Event] = []
    for name in [n for n, cond in c.conditions.items() if cond.until == NEXT_TURN]:
        # "quedará Aturdido durante el siguiente turno" (and a GDF row that lasts as
        # long): over once that turn is played.
        del c.conditions[name]
        events.append(
            ConditionEnded(
                _f("{c} is no longer {name} (it lasted one turn).", c.name, name),
                c.id,
                name,
            )
        )
    return events


def _round_start(rs: Sistema2d10, state: BattleState) -> list[Event]:
    events: list[Event] = []
    for c in state.combatants:
        if c.active:
            # S2-08/S2-10: one active defence per action per round; extra actions from
            # Técnicas "no otorga una acción refleja de defensa".
            c.resources["defensas"] = c.stats.actions
        dying = c.conditions.get("moribundo")
        if dying is not None and c.status is Status.DOWN:
            left = dying.value - 1
            if left <= 0:
                del c.conditions["moribundo"]
                events.append(
                    rs.set_status(c, Status.DEAD, _f("{c} dies of their wounds.", c.name))
                )
            else:
                c.conditions["moribundo"] = Condition("moribundo", left, persistent=True)
    return events


def _start_turn(rs: Sistema2d10, state: BattleState, c: Combatant) -> list[Event]:
    events: list[Event] = [TurnStarted(_f("{c}'s turn.", c.name), c.id, state.round)]
    if "defensa_completa" in c.conditions:
        del c.conditions["defensa_completa"]
        events.append(
            ConditionEnded(_f("{c} leaves full defence.", c.name), c.id, "defensa_completa")
        )
    actions = c.stats.actions + c.stats.extra_actions
    knocked = c.conditions.get("derribado")
    if knocked is not None:
        # GDF 8 "loses an action", every turn the effect lasts (S2-15).
        actions -= knocked.value
        events.append(
            Note(_f("{c} is derribado: loses {value} action(s) this turn.", c.name, knocked.value))
        )
    c.resources["acciones"] = max(0, actions)
    bleed = c.conditions.get("sangrado")
    if bleed is not None:
        before = c.resources["pv"]
        c.resources["pv"] = max(0, before - bleed.value)
        events.append(
            Damaged(
                _f(
                    "{c} bleeds {lost} PV ({pv} left).",
                    c.name,
                    before - c.resources["pv"],
                    c.resources["pv"],
                ),
                c.id,
                before - c.resources["pv"],
                "pv",
                "sangrado",
                c.resources["pv"],
            )
        )
        if c.resources["pv"] == 0:
            events.append(rs.set_status(c, Status.DOWN, _f("{c} bleeds out and falls.", c.name)))
            events += rs.check_end(state)
    return events


def next_turn(rs: Sistema2d10, state: BattleState, roller: Roller) -> list[Event]:
    """Advance to the next combatant in initiative order who can act (S2-06)."""
    events: list[Event] = []
    state.data["attack"] = None
    while True:
        state.turn += 1
        if state.turn >= len(state.order):
            events += rs.begin_round(state)
            if state.outcome is not None:
                return events
            events += _round_start(rs, state)
            state.turn = 0
        c = state.get(state.order[state.turn])
        if not c.active:
            continue
        events += _start_turn(rs, state, c)
        if state.outcome is not None:
            return events
        if c.active and c.resources["acciones"] > 0:
            state.data["fresh"] = True
            state.pending = Decision(DecisionKind.TURN, c.id, c.side, TURN)
            return events
        if c.active:
            events.append(Note(_f("{c} has no actions this turn.", c.name)))
            events += end_turn(state, c)
