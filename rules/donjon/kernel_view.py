"""What the env observes of a Donjon battle, read from the compiled kernel's arrays.

The batched env encodes observations and action masks inside compiled code, so it reads
the kernel's bundles ``s`` and ``d`` (laid out in :mod:`escaramuza.rules.donjon.kernel`)
rather than a ``BattleState``. These three functions give it the engine's view of them:
a combatant's resources, ``Donjon.features`` and conditions (:func:`view_combatant`), the
pending decision (:func:`view_pending`) and a legal row as the action codec's slots
(:func:`action_slots`). Everything is derived from the arrays the rules already keep:
the sheet ``stat``, the weapons ``weapon``, the options ``opts`` and the changing ``cs``,
``g`` and ``init``.

The tables below translate the kernel's codes into the ruleset's orders (verbs, spend
options, decision names); they are built from the same tuples the engine reads, so a
reordering on either side shows up here rather than as a silent mismatch.
"""

from __future__ import annotations

import numpy as np

from escaramuza.rules.core import compiled
from escaramuza.rules.core.dialect import GLOBALS, OPTS, STAT, STATE
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.legal import LA
from escaramuza.rules.core.mechanics import view_resources
from escaramuza.rules.core.model import DecisionKind
from escaramuza.rules.donjon.kernel import (
    CS,
    INIT,
    KIND_CONTINUAR,
    KIND_DEFENSA,
    KIND_REPARTIR,
    KIND_RESISTIR,
    KIND_TURN,
    NONE,
    OPT,
    PENDING_NAMES,
    RESOURCES,
    SPEND_OPTIONS,
    ST,
    VERBS,
    G,
)
from escaramuza.rules.donjon.ruleset import Donjon

#: Resources in ``Donjon.resources`` order as ``cs`` columns.
_RESOURCE_COLUMNS = compiled.view_columns(Donjon, RESOURCES, CS)
_N_RESOURCES = len(_RESOURCE_COLUMNS)

#: The bit over ``Donjon.conditions`` of each condition the kernel keeps (a condition
#: the observation ignores sets none).
_BIT_INCONSCIENTE, _BIT_QUEBRADO = (
    int(bit) for bit in compiled.view_condition_bits(Donjon, ("inconsciente", "quebrado"))
)

#: ``g[G.KIND]`` → the position of its name in ``Donjon.decision_names`` (-1 unlisted).
_DECISION_NAME: tuple[int, ...] = tuple(
    Donjon.decision_names.index(name) if name in Donjon.decision_names else -1
    for name in PENDING_NAMES
)
#: The engine's ``DecisionKind`` of each pending decision (Donjon._advance, _declare_attack,
#: _declare_move, _next_spend, _ask_continue).
_TURN = int(DecisionKind.TURN)
_REACTION = int(DecisionKind.REACTION)
_CHOICE = int(DecisionKind.CHOICE)

#: Kernel verb code → its position in ``Donjon.verbs`` and what its VerbSpec takes.
_VERB_NAMES = tuple(spec.name for spec in Donjon.verbs)
_VERB_INDEX: tuple[int, ...] = tuple(_VERB_NAMES.index(v) for v in VERBS)
_TAKES_TARGET: tuple[bool, ...] = tuple(Donjon.verbs[i].target for i in _VERB_INDEX)
_TAKES_ITEM: tuple[bool, ...] = tuple(Donjon.verbs[i].item for i in _VERB_INDEX)
_TAKES_ZONE: tuple[bool, ...] = tuple(Donjon.verbs[i].zone for i in _VERB_INDEX)
_HAS_OPTIONS: tuple[bool, ...] = tuple(bool(Donjon.verbs[i].options) for i in _VERB_INDEX)
#: A ``repartir`` row's item (a SPEND_OPTIONS code) → its position in the verb's options.
_OPTION_INDEX: tuple[int, ...] = tuple(
    Donjon.verbs[_VERB_NAMES.index("repartir")].options.index(o) for o in SPEND_OPTIONS
)
if any(_TAKES_ZONE) or sum(_HAS_OPTIONS) != 1 or not _HAS_OPTIONS[VERBS.index("repartir")]:
    raise AssertionError("Donjon's verbs: the kernel's rows carry no zone, options of repartir")


@njit(cache=True, _nrt=False)
def view_combatant(s: tuple, d: tuple, c: int, values: np.ndarray) -> int:
    """``values[:5]`` <- combatant ``c``'s resources (``Donjon.resources`` order);
    ``values[5:19]`` arrive holding ``Donjon.features`` at the battle's start (the
    engine's): the ones a battle changes are written over with the same float64
    operations — the four characteristics (resources over 6), the initiative numbers
    held and the first of them over the die, the bonus; returns its conditions as bits
    over ``Donjon.conditions``."""
    opts = s[OPTS]
    cs, init = d[STATE], d[INIT]
    view_resources(cs, c, _RESOURCE_COLUMNS, values)
    held = cs[c, CS.HELD]
    k = _N_RESOURCES
    values[k + 0] = cs[c, CS.CELERIDAD] / 6.0
    values[k + 1] = cs[c, CS.VIRILIDAD] / 6.0
    values[k + 2] = cs[c, CS.AGUANTE] / 6.0
    values[k + 3] = cs[c, CS.DISCERNIMIENTO] / 6.0
    values[k + 10] = min(held, 10) / 10.0
    values[k + 11] = (init[c, 0] / opts[OPT.DIE_SIZE]) if held > 0 else 0.0
    values[k + 12] = min(cs[c, CS.BONUS], 6) / 6.0
    bits = 0
    if cs[c, CS.INCONSCIENTE] == 1:
        bits |= _BIT_INCONSCIENTE
    if cs[c, CS.QUEBRADO] == 1:
        bits |= _BIT_QUEBRADO
    return bits


@njit(cache=True, _nrt=False)
def view_pending(s: tuple, d: tuple) -> tuple[int, int]:
    """The pending decision as ``(int(DecisionKind), index in Donjon.decision_names)``: a
    turn, a reaction (defensa, resistir) or a choice (repartir, continuar); ``(-1, -1)``
    when nothing is pending."""
    kind = d[GLOBALS][G.KIND]
    if kind == KIND_TURN:
        return _TURN, _DECISION_NAME[kind]
    if kind == KIND_DEFENSA or kind == KIND_RESISTIR:
        return _REACTION, _DECISION_NAME[kind]
    if kind == KIND_REPARTIR or kind == KIND_CONTINUAR:
        return _CHOICE, _DECISION_NAME[kind]
    return -1, -1


@njit(cache=True, _nrt=False)
def action_slots(s: tuple, d: tuple, row: np.ndarray) -> tuple[int, int, int, int, int]:
    """A legal row ``la[i]`` as the action codec's slots ``(verb, target, item, zone,
    option)``: the verb's position in ``Donjon.verbs``; the target's ``Combatant.index``;
    the weapon's position in the actor's items (``weapons_or_fists`` names, the kernel's
    weapon order); no zone; a ``repartir`` option's position in the verb's options. A slot
    the verb does not take is 0."""
    stat = s[STAT]
    code = row[LA.VERB]
    target = 0
    item = 0
    option = 0
    if _TAKES_TARGET[code] and row[LA.TARGET] != NONE:
        target = stat[row[LA.TARGET], ST.INDEX]
    if _TAKES_ITEM[code]:
        item = row[LA.ITEM]
    elif _HAS_OPTIONS[code]:
        option = _OPTION_INDEX[row[LA.OPTION]]
    return _VERB_INDEX[code], target, item, 0, option
