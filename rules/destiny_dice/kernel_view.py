"""Destiny Dice as the learner sees it, read from the compiled kernel's arrays.

The batched env encodes observations and action masks inside compiled code, from the
bundles ``s`` and ``d`` of :mod:`.kernel` (its docstring lays them out). These three
functions give what the engine gives for the same state: a combatant's resources,
:meth:`DestinyDice.features <escaramuza.rules.destiny_dice.ruleset.DestinyDice.features>`
and conditions; the pending decision's kind and name; and a legal-list row as the
action codec's slots (``escaramuza.envs.codec``).

The features a battle never changes are not computed here: they arrive in ``values`` as
the engine computed them at the battle's start (the caller's table); the others are read
from ``cs[c, CS.*]``. The orders the engine's lists follow (resources, verbs, decision
names, conditions) are read from the ruleset here, at import, not re-typed.
"""

from __future__ import annotations

import numpy as np

from escaramuza.rules.core import compiled
from escaramuza.rules.core.dialect import GLOBALS, KIND_TURN, STAT, STATE
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.legal import LA
from escaramuza.rules.core.mechanics import view_resources
from escaramuza.rules.core.model import DecisionKind
from escaramuza.rules.destiny_dice.kernel import (
    ATACAR,
    COND_BIT,
    CONTRA,
    CS,
    CURAR,
    KIND_REACTION,
    RECARGAR,
    RESOURCES,
    ST,
    VERBS,
    G,
)
from escaramuza.rules.destiny_dice.ruleset import DestinyDice

if tuple(v.name for v in DestinyDice.verbs) != VERBS:
    raise ImportError("the kernel's verb codes are not in the order of DestinyDice.verbs")
if DestinyDice.conditions != tuple(COND_BIT) or DestinyDice.condition_aliases:
    raise ImportError("the kernel's condition bits are not DestinyDice.conditions")

#: ``cs`` column of each resource, in ``DestinyDice.resources`` order.
RESOURCE_COLUMNS = compiled.view_columns(DestinyDice, RESOURCES, CS)
#: Where the features start in ``values`` (after the resources).
N_RESOURCES = len(RESOURCE_COLUMNS)
#: ``int(DecisionKind)`` and name index of the kernel's two decisions.
TURN_KIND = int(DecisionKind.TURN)
TURN_NAME = DestinyDice.decision_names.index("turn")
REACTION_KIND = int(DecisionKind.REACTION)
REACTION_NAME = DestinyDice.decision_names.index("defensa_perfecta")


@njit(cache=True, _nrt=False)
def view_combatant(s: tuple, d: tuple, c: int, values: np.ndarray) -> int:
    """``values[:R]`` <- combatant ``c``'s resources (``DestinyDice.resources`` order);
    ``values[R:R+8]`` arrive holding ``DestinyDice.features`` at the battle's start (the
    engine's: the sheet's ``static_features`` first): the two a battle changes are
    written over with the same float64 operations — its ayuda over 2 and whether a
    weapon is jammed. Returns its conditions as bits over ``DestinyDice.conditions``
    (the kernel's own condition mask)."""
    cs = d[STATE]
    view_resources(cs, c, RESOURCE_COLUMNS, values)
    f = N_RESOURCES
    values[f + 6] = float(cs[c, CS.AYUDA]) / 2.0
    values[f + 7] = 1.0 if cs[c, CS.JAM] != 0 else 0.0
    return int(cs[c, CS.COND])


@njit(cache=True, _nrt=False)
def view_pending(s: tuple, d: tuple) -> tuple[int, int]:
    """(``int(DecisionKind)`` of the pending decision, index of its name in
    ``DestinyDice.decision_names``): a turn or DD-08's reaction; (-1, -1) when
    nothing is pending (the battle is over)."""
    g = d[GLOBALS]
    kind = g[G.KIND]
    if kind == KIND_TURN:
        return TURN_KIND, TURN_NAME
    if kind == KIND_REACTION:
        return REACTION_KIND, REACTION_NAME
    return -1, -1


@njit(cache=True, _nrt=False)
def action_slots(s: tuple, d: tuple, row: np.ndarray) -> tuple[int, int, int, int, int]:
    """A legal-list row ``(verb, target, item, zone)`` as the action codec's slots:
    (verb, target, item, zone, option). The verb codes are ``DestinyDice.verbs``'
    positions, a target is a combatant's scenario position (its ``Combatant.index``) and
    a zone its position in ``battlefield.zone_ids``. The actor's items are its weapons
    then its heals (``Combatant.items``), so a heal's item slot follows the actor's
    weapons. No verb has options."""
    stat = s[STAT]
    g = d[GLOBALS]
    verb = row[LA.VERB]
    target = row[LA.TARGET] if row[LA.TARGET] >= 0 else 0
    zone = row[LA.ZONE] if row[LA.ZONE] >= 0 else 0
    item = 0
    if verb == CURAR:
        item = stat[g[G.ACTOR], ST.WEAPONS] + row[LA.ITEM]
    elif verb == ATACAR or verb == CONTRA or verb == RECARGAR:
        item = row[LA.ITEM]
    return int(verb), int(target), int(item), int(zone), 0
