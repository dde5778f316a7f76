"""What the env shows of a Sistema 2d10 kernel state, read in compiled code.

The batched env encodes its observations and action masks inside numba-compiled code,
from the bundles of ``rules/sistema_2d10/kernel.py`` (its docstring lists them): these
three functions are that code's window on the state, each the engine's own value —
:func:`view_combatant` a combatant's ``resources``, ``Sistema2d10.features`` and
``conditions``, :func:`view_pending` the pending ``Decision``'s kind and name, and
:func:`action_slots` a legal row as ``envs.codec.ActionCodec`` places the action.

Every table here is built once at import from the engine's own names (the ruleset's
``resources``, ``conditions``, ``condition_aliases``, ``decision_names`` and ``verbs``,
the decision kinds ``bookkeeping`` checks a state against, the kernel's codes), so the
compiled reads follow the engine when it changes.
"""

from __future__ import annotations

import numpy as np

from escaramuza.rules.core import compiled
from escaramuza.rules.core.dialect import GLOBALS, KIND_NONE, KIND_TURN, STATE
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.legal import LA
from escaramuza.rules.core.mechanics import view_resources
from escaramuza.rules.sistema_2d10 import bookkeeping, ruleset, tables
from escaramuza.rules.sistema_2d10.kernel import (
    ATACAR,
    CONDITIONS,
    CS,
    DECISIONS,
    NCOND,
    RESOURCES,
    VERBS,
    G,
)

_RULESET = ruleset.Sistema2d10

#: The ``cs`` column of each resource, in ``Sistema2d10.resources`` order.
RESOURCE_COLUMNS = compiled.view_columns(_RULESET, RESOURCES, CS)
#: The observation's bit of each kernel condition (``kernel.CONDITIONS`` order), 0 none.
CONDITION_BITS = compiled.view_condition_bits(_RULESET, CONDITIONS)

#: ``int(DecisionKind)`` of each pending decision, by ``G.KIND - KIND_TURN``
#: (``decision_names`` order).
DECISION_KINDS = np.array([int(bookkeeping._DECISIONS[name]) for name in DECISIONS], dtype=np.int64)
assert DECISIONS == _RULESET.decision_names

#: Which of target, item and zone each verb takes (``VerbSpec``, ``VERBS`` order).
assert tuple(v.name for v in _RULESET.verbs) == VERBS
TAKES_TARGET = np.array([1 if v.target else 0 for v in _RULESET.verbs], dtype=np.int64)
TAKES_ITEM = np.array([1 if v.item else 0 for v in _RULESET.verbs], dtype=np.int64)
TAKES_ZONE = np.array([1 if v.zone else 0 for v in _RULESET.verbs], dtype=np.int64)
#: ``atacar``'s option of each ``LA.OPTION`` + 1: ``libre`` for -1, else the location's.
#: Only ``atacar`` has options, and its row's aim is the one it names.
assert all(not v.options for v in _RULESET.verbs if v.name != ruleset.ATACAR)
_ATTACK_OPTIONS = _RULESET.verbs[ATACAR].options
ATTACK_OPTION = np.array(
    [_ATTACK_OPTIONS.index(ruleset.LIBRE)]
    + [_ATTACK_OPTIONS.index(loc) for loc in tables.LOCATIONS],
    dtype=np.int64,
)


@njit(cache=True, _nrt=False)
def view_combatant(s: tuple, d: tuple, c: int, values: np.ndarray) -> int:
    """``values[:R]`` <- combatant ``c``'s resources in ``Sistema2d10.resources`` order;
    ``values[R:R + 10]`` arrive holding ``Sistema2d10.features`` at the battle's start
    (the engine's), and none of them changes in a battle (its sheet's best weapon,
    reach, defences, aguante, iniciativa, CA and actions); returns its conditions as
    bits over ``Sistema2d10.conditions`` (the aliases setting their condition's bit)."""
    cs = d[STATE]
    view_resources(cs, c, RESOURCE_COLUMNS, values)
    bits = 0
    for k in range(NCOND):
        if cs[c, CS.HAS + k] == 1:
            bits |= CONDITION_BITS[k]
    return bits


@njit(cache=True, _nrt=False)
def view_pending(s: tuple, d: tuple) -> tuple[int, int]:
    """(``int(DecisionKind)`` of the pending decision, its name's index in
    ``Sistema2d10.decision_names``); (-1, -1) when nothing is pending (battle over).

    ``G.KIND`` counts the decisions from ``KIND_TURN`` in ``decision_names`` order, so
    every name the kernel pends is listed."""
    kind = d[GLOBALS][G.KIND]
    if kind == KIND_NONE:
        return -1, -1
    name = kind - KIND_TURN
    return DECISION_KINDS[name], name


@njit(cache=True, _nrt=False)
def action_slots(s: tuple, d: tuple, row: np.ndarray) -> tuple[int, int, int, int, int]:
    """A legal-list row (``LA``) as ``ActionCodec`` places its action: (verb, target,
    item, zone, option), each 0 where the verb does not take it.

    The kernel's combatant, weapon and zone indices are the codec's positions: the
    loader gives each combatant its scenario position as ``Combatant.index``, a
    combatant's ``items`` are its weapons' names in ``Profile.weapons`` order, and the
    kernel's zones are ``battlefield.zone_ids``'s order."""
    verb = row[LA.VERB]
    target = row[LA.TARGET] if TAKES_TARGET[verb] == 1 else 0
    item = row[LA.ITEM] if TAKES_ITEM[verb] == 1 else 0
    zone = row[LA.ZONE] if TAKES_ZONE[verb] == 1 else 0
    option = ATTACK_OPTION[row[LA.OPTION] + 1] if verb == ATACAR else 0
    return verb, target, item, zone, option
