"""Twins: combatants the rules cannot tell apart, and the actions that are one by symmetry.

Two combatants are *twins* in a state when exchanging their ids leaves the state as it
was: the same side, zone, stat block, resources, maxima, items, conditions, status,
temperament and bookkeeping, the same place in the turn order, and every reference to
one of them (a condition's source, the pending decision, the ruleset's own bookkeeping)
mapped onto the other. Only their ids, display names and table order (``index``) may
differ. Two actions that the exchange maps onto each other — attacking either of two
identical lanceros in one zone — then lead to the same battle up to the names, so a
search that tries both spends its budget twice on one question and, worse, can find the
two "identical" on a few rollouts and stop. :func:`symmetry_classes` groups the legal
actions into those classes so the planner searches one of each.

The table order is left out because no rule reads it when the two fighters' data tie
except as the last tie-break of a turn order (Donjon's initiative), which the state's
order already fixes for the fighters in it; a rollout policy that breaks its own ties by
the table order is the only other reader, and it is a policy, not the battle.

Standard library only: the rules layer and the planner both use it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

from escaramuza.rules.core.model import Action, Combatant
from escaramuza.rules.core.state import BattleState


def _swap(value: Any, ids: Mapping[str, str]) -> Any:
    """``value`` with every string that is a combatant id replaced through ``ids``,
    looking inside tuples, lists, sets, dicts (keys and values) and dataclasses."""
    if isinstance(value, str) and not isinstance(value, Enum):
        return ids.get(value, value)
    if isinstance(value, tuple):
        return tuple(_swap(v, ids) for v in value)
    if isinstance(value, list):
        return [_swap(v, ids) for v in value]
    if isinstance(value, frozenset | set):
        return frozenset(_swap(v, ids) for v in value)
    if isinstance(value, dict):
        return {_swap(k, ids): _swap(v, ids) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__qualname__,
            tuple(_swap(getattr(value, f.name), ids) for f in dataclasses.fields(value)),
        )
    return value


def _fighter(c: Combatant, ids: Mapping[str, str]) -> tuple[Any, ...]:
    """What the rules read of ``c`` (all but id, name and table order), ids swapped."""
    return (
        c.side,
        c.zone,
        c.stats,
        c.resources,
        c.maxima,
        c.items,
        _swap(c.conditions, ids),
        c.status,
        c.temperament,
        c.pc,
        _swap(c.data, ids),
    )


def _signature(state: BattleState, ids: Mapping[str, str]) -> tuple[Any, ...]:
    """The state as the rules see it, with the ids exchanged through ``ids``."""
    pending = state.pending
    return (
        state.round,
        state.turn,
        _swap(state.order, ids),
        None
        if pending is None
        else (pending.kind, ids.get(pending.actor, pending.actor), pending.side, pending.name),
        _swap(state.data, ids),
        {ids.get(c.id, c.id): _fighter(c, ids) for c in state.combatants},
    )


def twins(state: BattleState) -> list[tuple[str, str]]:
    """Every pair of combatant ids (in table order) whose exchange leaves ``state`` as it is."""
    if state.outcome is not None:
        return []
    plain = _signature(state, {})
    pairs: list[tuple[str, str]] = []
    fighters = state.combatants
    for i, a in enumerate(fighters):
        for b in fighters[i + 1 :]:
            # The cheap filter first: most pairs differ in side, zone or stat block.
            if a.side is not b.side or a.zone != b.zone or a.stats != b.stats:
                continue
            if _fighter(a, {}) != _fighter(b, {}):
                continue
            if _signature(state, {a.id: b.id, b.id: a.id}) == plain:
                pairs.append((a.id, b.id))
    return pairs


def _swap_action(action: Action, ids: Mapping[str, str]) -> Action:
    return dataclasses.replace(
        action,
        actor=ids.get(action.actor, action.actor),
        target=None if action.target is None else ids.get(action.target, action.target),
        option=None if action.option is None else ids.get(action.option, action.option),
    )


def symmetry_classes(state: BattleState, actions: Sequence[Action]) -> list[tuple[Action, ...]]:
    """``actions`` grouped into classes of actions that are one by symmetry (see the
    module docstring), each class in the order of ``actions``, the classes in the order
    of their first action. Without twins every action is its own class."""
    legal = list(actions)
    parent = {a: a for a in legal}

    def root(a: Action) -> Action:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    position = {a: i for i, a in enumerate(legal)}
    for x, y in twins(state):
        ids = {x: y, y: x}
        for a in legal:
            b = _swap_action(a, ids)
            if b != a and b in parent:
                ra, rb = root(a), root(b)
                if ra != rb:
                    # The earlier action stands for the class (deterministic).
                    first, second = (ra, rb) if position[ra] < position[rb] else (rb, ra)
                    parent[second] = first
    classes: dict[Action, list[Action]] = {}
    for a in legal:
        classes.setdefault(root(a), []).append(a)
    return [tuple(members) for members in classes.values()]
