"""What the batched env reads of a Cairn battle from the kernel's bundles.

The vectorised env encodes observations and action masks inside compiled code, so it
cannot ask the engine for ``Combatant.resources``, ``Cairn.features``,
``Combatant.conditions``, ``BattleState.pending`` or ``ActionCodec.encode``. These three
functions give the same facts from the bundles ``s`` and ``d`` of
:mod:`escaramuza.rules.cairn.kernel` (its docstring and layouts ``ST``, ``W``, ``ZONE``,
``CS``, ``G``, ``LA``). Every fact is derived from arrays the kernel already keeps; the
tables below translate the kernel's codes into the ruleset's orders and are built from
the ruleset's own declarations, so a reordering there is followed here.
"""

from __future__ import annotations

import numpy as np

from escaramuza.rules.cairn.combat import CONDITIONS
from escaramuza.rules.cairn.kernel import ATTACK, CS, DECL, RESOURCES, VERBS, ZONE, ZONES, G
from escaramuza.rules.cairn.ruleset import Cairn
from escaramuza.rules.core import compiled
from escaramuza.rules.core.dialect import GLOBALS, KIND_TURN, STATE
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.legal import LA
from escaramuza.rules.core.mechanics import view_resources
from escaramuza.rules.core.model import DecisionKind

#: ``cs`` column of each resource, in ``Cairn.resources`` order.
RESOURCE_COLUMNS = compiled.view_columns(Cairn, RESOURCES, CS)
#: The bit over ``Cairn.conditions`` of each kernel condition bit (``combat.CONDITIONS``).
CONDITION_BITS = compiled.view_condition_bits(Cairn, CONDITIONS)
#: Position in ``Cairn.verbs`` of each kernel verb code (``kernel.VERBS``).
VERB_SLOTS = np.array(
    [[spec.name for spec in Cairn.verbs].index(name) for name in VERBS], dtype=np.int64
)
#: The kernel's only decision (``Cairn._decision``): a declaration in a side turn.
TURN = int(DecisionKind.TURN)
DECLARE = Cairn.decision_names.index("declarar")
#: ``view_pending`` once no decision is pending (the battle is over).
NONE = -1


@njit(cache=True, _nrt=False)
def view_combatant(s: tuple, d: tuple, c: int, values: np.ndarray) -> int:
    """``values[:R]`` <- combatant ``c``'s resources in ``Cairn.resources`` order;
    ``values[R:R + 7]`` arrive holding ``Cairn.features`` at the battle's start (the
    engine's): the two a battle changes are written over with the same float64
    operations — the cover of the zone it stands in and how many of the side's
    declarations this side turn attack it (``decl``'s first ``G.NDECL`` rows, the
    engine's ``declared``); returns its conditions as bits over ``Cairn.conditions``."""
    zone = s[ZONES]
    cs, g, decl = d[STATE], d[GLOBALS], d[DECL]
    r = RESOURCE_COLUMNS.shape[0]
    view_resources(cs, c, RESOURCE_COLUMNS, values)
    aimed = 0
    for i in range(g[G.NDECL]):
        if decl[i, LA.VERB] == ATTACK and decl[i, LA.TARGET] == c:
            aimed += 1
    values[r + 5] = zone[cs[c, CS.ZONE], ZONE.COVER] / 2.0
    values[r + 6] = min(aimed, 4) / 4.0
    bits = 0
    cond = cs[c, CS.COND]
    for k in range(CONDITION_BITS.shape[0]):
        if (cond >> k) & 1:
            bits |= CONDITION_BITS[k]
    return bits


@njit(cache=True, _nrt=False)
def view_pending(s: tuple, d: tuple) -> tuple[int, int]:
    """``(int(DecisionKind), index in Cairn.decision_names)`` of the pending decision:
    while the battle runs it is always a side turn's declaration; ``(-1, -1)`` once it is
    over (nothing pending)."""
    g = d[GLOBALS]
    if g[G.KIND] == KIND_TURN:
        return TURN, DECLARE
    return NONE, NONE


@njit(cache=True, _nrt=False)
def action_slots(s: tuple, d: tuple, row: np.ndarray) -> tuple[int, int, int, int, int]:
    """A legal-list row as ``ActionCodec`` slots ``(verb, target, item, zone, option)``.

    The kernel's target is the combatant's place in scenario order, which is its
    ``Combatant.index``; its item is the weapon's place in ``weapons_of``, which is the
    place of its name in ``Combatant.items`` (the fists are ``desarmado``, the only
    item of a combatant without weapons); its zone is the place in ``zone_ids``. A slot
    the verb does not take (-1 in the row) is 0; no Cairn verb has options."""
    verb = VERB_SLOTS[row[LA.VERB]]
    target = max(row[LA.TARGET], 0)
    item = max(row[LA.ITEM], 0)
    zone = max(row[LA.ZONE], 0)
    return verb, target, item, zone, 0
