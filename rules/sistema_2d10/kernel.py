"""Sistema 2d10 compiled with numba: the engine's rules (``ruleset.py``, ``combat.py``,
``attack.py``, ``turns.py``) over arrays.

architecture.md, "The fast path": the engine is the specification; this module is the
same rules (S2-01 … S2-15) as small numba functions named like the engine's, over plain
integer arrays, with no events. The compiled temperaments live in
``agents/heuristics/sistema_2d10_kernel.py`` (rules never import agents); the loops that
join them are the shared ones (``rules.core.loops``), over this module's hooks
:func:`reset`, :func:`start`, :func:`legal` and :func:`apply`, and the mechanics every
ruleset shares (``set_status``, ``deal``, ``check_end``, ``begin_round``) are
``rules.core.mechanics``'.

The bundles (``rules.core.dialect``; small int codes instead of strings, each array's
columns declared once below). The static bundle ``s``, built once per scenario by
:func:`export_scenario`: the dialect's ``stat[c, ST.*]``, ``weapon[c, w, W.*]``,
``dist[z, z']`` and ``opts[OPT.*]`` (the scenario's options and the rule constants),
then the rule tables, at these module constants:

===============  ==========================================================================
``DAMAGE_DICE``  each weapon's damage dice, ``damage[c, w, term, DIE.*]``
``FACES``        S2-12 Localización de Impacto by d10 face − 1, :class:`FACE`
``PLACES``       per location (``tables.LOCATIONS``), :class:`PLACE`
``AIMS``         the locations that may be aimed at (S2-13), in the tables' order
``GDF_TABLE``    S2-15 Grado de Deterioro Físico by d10 face − 1, :class:`GDF`
``GDF_DICE``     moribundo's dice by face, ``gdf_dice[face - 1, term, DIE.*]``
``OUT_SHARE``    ``Tables.out_share`` (one float)
``SUCC``         ``exact.skill_odds`` successes in thousandths (:func:`succ`)
``HIT``          ``exact.hit_probability`` counts (:func:`hit_table`)
``HDV`` …        ``HDV``, ``HDP``, ``HDN``: ``exact.hit_damage_distribution`` of every
                 attack (values, probabilities, how many)
``NEIGHBOURS``   each zone's neighbours in map order (-1 past the last)
``ZONES``        per zone, :class:`ZONE`
===============  ==========================================================================

then the temperaments' own tables (their module appends them). Every rule table is built
here from the engine's own objects — the scenario's ``Tables`` (``tables.py`` and the
``tables/`` files), ``tables.LOCATIONS``, the leg locations ``combat`` reads, its MS
floor, ``exact``'s odds — never typed a second time in compiled code.

The dynamic bundle ``d``: the dialect's ``cs[c, CS.*]``, ``g[G.*]`` (the battle, the
pending decision, the roll and the attack in flight) and ``log`` (the damage log,
``rules.core.loops.DAMAGE``: one row per engine ``Damaged`` event), then ``ORDER`` (the
initiative order, combatant indices), ``ROLLED`` (scratch: initiative keys, one term's
dice), ``PICKS`` (five index lists of the legal list, for the temperaments) and
``SCORES`` (their attacks' scores). :func:`export_state` builds it from an engine state;
the dice are drawn from :mod:`escaramuza.rules.core.mt` (CPython's MT19937) in the
engine's order, so one seed plays one battle on both. Every value is checked on its way
in (the layouts' ranges, ``rules.core.kernel.check_range``; docs/fast-path.md, "The
kernel boundary").

Only the loops' hooks take the bundles (``legal`` and ``apply`` are inlined into the
loops); every rule under them takes the arrays it reads and is compiled once (a
compiled call passes a bundle as every field of every array). The flow of an attack
(roll, Dados Exprés, active defence, damage, Aguante, GDF) is the engine's chain of
calls unrolled into a small loop of steps (:func:`chain`): numba does not compile
mutually recursive functions, and each step is one engine function.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from escaramuza.rules.core import compiled, mt
from escaramuza.rules.core.compiled import Exported
from escaramuza.rules.core.dialect import (
    ACTIVE,
    DEAD,
    DIST,
    DOWN,
    GLOBALS,
    HEAD,
    KIND_NONE,
    KIND_TURN,
    LOG,
    OPTS,
    RUNNING,
    STAT,
    STATE,
    WEAPON,
)
from escaramuza.rules.core.jit import copy_into, njit, sort_in_place
from escaramuza.rules.core.kernel import BOUND, KernelRefusal, check_range
from escaramuza.rules.core.layout import Columns
from escaramuza.rules.core.legal import LA, push
from escaramuza.rules.core.loops import copy_head, new_damage_log
from escaramuza.rules.core.mechanics import compile_mechanics
from escaramuza.rules.core.model import Status
from escaramuza.rules.sistema_2d10 import combat, exact, ruleset, tables
from escaramuza.rules.sistema_2d10.sheets import MELEE
from escaramuza.rules.sistema_2d10.tables import Tables

if TYPE_CHECKING:
    from escaramuza.rules.core.dice import DiceExpr
    from escaramuza.rules.core.model import Action, Combatant
    from escaramuza.rules.core.scenario import Scenario
    from escaramuza.rules.core.state import BattleState
    from escaramuza.rules.sistema_2d10.combat import AttackCtx, PendingRoll

#: What messages call this ruleset ("the Sistema 2d10 kernel").
TITLE = ruleset.Sistema2d10.name

# -- codes --------------------------------------------------------------------------

#: Verbs, in ``Sistema2d10.verbs`` order.
VERBS: tuple[str, ...] = tuple(v.name for v in ruleset.Sistema2d10.verbs)
ATACAR = VERBS.index(ruleset.ATACAR)
MOVER = VERBS.index(ruleset.MOVER)
CEDER_DADO = VERBS.index(ruleset.CEDER_DADO)
DEFENSA_COMPLETA = VERBS.index(ruleset.DEFENSA_COMPLETA)
PASAR = VERBS.index(ruleset.PASAR)
DEFENDER = VERBS.index(ruleset.DEFENDER)
NO_DEFENDER = VERBS.index(ruleset.NO_DEFENDER)
GASTAR_DADO = VERBS.index(ruleset.GASTAR_DADO)
NO_GASTAR = VERBS.index(ruleset.NO_GASTAR)
#: What ``apply`` reads of each verb's action (``rules.core.legal.action_row``).
NEEDS = {"target": (ATACAR, CEDER_DADO), "item": (ATACAR,), "zone": (MOVER,)}
#: Pending decisions (``g[G.KIND]``): ``Sistema2d10.decision_names`` from KIND_TURN on.
DECISIONS: tuple[str, ...] = ruleset.Sistema2d10.decision_names
TURN = KIND_TURN + DECISIONS.index(combat.TURN)
ACTIVE_DEFENCE = KIND_TURN + DECISIONS.index(combat.ACTIVE_DEFENCE)
EXPRES_BEFORE = KIND_TURN + DECISIONS.index(combat.EXPRES_BEFORE)
EXPRES_AFTER = KIND_TURN + DECISIONS.index(combat.EXPRES_AFTER)
assert TURN == KIND_TURN
#: Roll purposes.
PURPOSES: tuple[str, ...] = (combat.ATAQUE, combat.DEFENSA, combat.AGUANTE)
ATAQUE, DEFENSA, AGUANTE = 0, 1, 2
#: The statuses a Sistema 2d10 combatant takes (the engine sets no other): a state
#: holding another is refused.
PLAYED_STATUSES: tuple[Status, ...] = (Status.ACTIVE, Status.DOWN, Status.DEAD)

#: Conditions: the two stuns, the stacking effects, moribundo, full defence, then
#: ``incapacitado`` and one ``incapacitado_<location>`` per location (``tables.LOCATIONS``
#: order): the engine's names.
CONDITIONS: tuple[str, ...] = (
    combat.STUNNED,
    combat.STUNNED_16,
    "sangrado",
    "derribado",
    "moribundo",
    "defensa_completa",
    *combat.INCAPACITATED_NAMES,
)
ATURDIDO = CONDITIONS.index(combat.STUNNED)
ATURDIDO_16 = CONDITIONS.index(combat.STUNNED_16)
SANGRADO = CONDITIONS.index("sangrado")
DERRIBADO = CONDITIONS.index("derribado")
MORIBUNDO = CONDITIONS.index("moribundo")
EN_DEFENSA_COMPLETA = CONDITIONS.index("defensa_completa")
#: ``incapacitado`` where the location is not known; location ``k``'s is ``INCAPACITADO +
#: 1 + k``.
INCAPACITADO = CONDITIONS.index(combat.INCAPACITATED)
NCOND = len(CONDITIONS)
assert CONDITIONS[INCAPACITADO + 1 :] == tuple(
    f"{combat.INCAPACITATED}_{loc}" for loc in tables.LOCATIONS
)
#: GDF effects (``tables.GDF_EFFECTS``).
GDF_ATURDIDO = tables.GDF_EFFECTS.index("aturdido")
GDF_SANGRADO = tables.GDF_EFFECTS.index("sangrado")
GDF_INCAPACITADO = tables.GDF_EFFECTS.index("incapacitado")
GDF_DERRIBADO = tables.GDF_EFFECTS.index("derribado")
GDF_INCONSCIENTE = tables.GDF_EFFECTS.index("inconsciente")
GDF_MORIBUNDO = tables.GDF_EFFECTS.index("moribundo")
#: How long a condition lasts (``Condition.until``): no end, until healed, one turn.
UNTIL: tuple[str | None, ...] = (None, tables.UNTIL_HEALED, tables.NEXT_TURN)
UNTIL_NONE, UNTIL_HEALED, UNTIL_NEXT_TURN = 0, 1, 2
#: The engine's resources, sorted, each with its ``CS`` column's name.
RESOURCES = compiled.kernel_resources(ruleset.Sistema2d10)
#: The first resource and its maximum (``agents.search.side_strength``'s health).
HEALTH = ("PV", "PV")
#: The damage log's resource of every ``Damaged`` the engine emits (``attack.take_damage``
#: and ``turns._start_turn``'s bleeding): PV, by its index in ``Ruleset.resources``.
R_PV = tuple(ruleset.Sistema2d10.resources).index("pv")
NLOC = len(tables.LOCATIONS)
#: Places of the ruleset's own arrays in the bundles (``rules.core.dialect``; the
#: module's docstring).
(
    DAMAGE_DICE,
    FACES,
    PLACES,
    AIMS,
    GDF_TABLE,
    GDF_DICE,
    OUT_SHARE,
    SUCC,
    HIT,
    HDV,
    HDP,
    HDN,
    NEIGHBOURS,
    ZONES,
) = range(OPTS + 1, OPTS + 15)
ORDER, ROLLED, PICKS, SCORES = range(LOG + 1, LOG + 5)
#: The dynamic arrays that are a battle's state (what :func:`reset` copies); the rest is
#: scratch, written before it is read in every call.
KEPT = (STATE, GLOBALS, ORDER)

#: Steps of :func:`chain`: each the engine function the chain of calls goes on to.
STEP_DONE, STEP_RESUME, STEP_START_ROLL, STEP_ROLL, STEP_ROLL_SPEND = 0, 1, 2, 3, 4
STEP_FINISH_ROLL, STEP_LAND_HIT = 5, 6

# -- the boundary (rules.core.kernel.check_range) -------------------------------------
#: Dice of one term (roll_expr keeps them in ``rolled``) and their faces.
MAX_COUNT = 1 << 10
MAX_SIDES = 1 << 20
#: The largest magnitude of a damage roll (modifier and dice) and of a location's
#: multiplier: a hit deals their product (land_hit), at most 2**40.
MAX_DAMAGE = 1 << 30
MAX_MULTIPLIER = 1 << 10
#: ``succ`` covers ``difficulty - bonus`` from K_LO to K_HI (outside, the odds are those of
#: the nearest end: every roll but a pifia succeeds, or only a crítico).
K_LO, K_HI = -10, 40


# -- layouts ------------------------------------------------------------------------
class ST(Columns):
    """A combatant's sheet: what never changes in a battle."""

    SIDE, TEMPERAMENT = HEAD["ST"].values()
    PV = (1, BOUND, "most Puntos de Vitalidad (the scenario's)")
    ACCIONES = (0, BOUND, "acciones por turno (S2-07), also a round's active defences")
    EXTRA = (0, BOUND, "acciones adicionales: no active defence of their own (S2-09)")
    CA = (0, BOUND, "Capacidad de Absorción of the armour (S2-11)")
    DADOS_EXPRES = (0, BOUND, "most Dados Exprés held")
    PC = (0, 1, "a player character (S2-05: only they give one another Dados Exprés)")
    INICIATIVA = (-BOUND, BOUND, "initiative MHC, Reflejos + Sentidos (S2-06)")
    DEFENSA_CAC = (-BOUND, BOUND, "defensive MHC against cuerpo a cuerpo (S2-08)")
    DEFENSA_DIST = (-BOUND, BOUND, "defensive MHC against distancia (S2-08)")
    AGUANTE = (-BOUND, BOUND, "MHC of the prueba de Aguante (S2-14)")
    WEAPONS = (1, BOUND, "how many weapons (rows of weapon[c])")
    REACH = (0, BOUND, "the longest reach of its weapons, in zones")
    RANGED = (0, BOUND, "the longest reach of its distancia weapons (0: none)")


class W(Columns):
    """One weapon of a combatant (``Profile.weapons`` order)."""

    KIND = (0, 1, "0 cuerpo a cuerpo, 1 distancia")
    MHC = (-BOUND, BOUND, "attack MHC, habilidad + característica (S2-02)")
    REACH = (0, BOUND, "zones it reaches (0: its own)")
    TERMS = (0, BOUND, "dice terms of its damage (rows of damage[c, w])")
    MODIFIER = (-MAX_DAMAGE, MAX_DAMAGE, "its damage's modifier")


class DIE(Columns):
    """One dice term of a damage or GDF expression (``DiceExpr.terms``)."""

    COUNT = (1, MAX_COUNT, "dice rolled")
    SIDES = (1, MAX_SIDES, "their faces")
    KEEP = (0, MAX_COUNT, "the highest kept (0: every die)")
    SIGN = (-1, 1, "added (1) or taken away (-1)")


class OPT(Columns):
    """The scenario's options, and the rule constants the engine names."""

    ROUND_LIMIT, SURVIVE = HEAD["OPT"].values()
    PASSIVE_GT = (0, 1, "passive_beats 'gt': the attack must exceed the defensa pasiva")
    ACTIVE_GT = (0, 1, "active_blocks 'gt': the defence must exceed the attack")
    FULL_DEFENCE = (-BOUND, BOUND, "full_defence_bonus (S2-09)")
    AGUANTE_DIFFICULTY = (-BOUND, BOUND, "aguante_difficulty (S2-14)")
    STUN_PENALTY = (-BOUND, BOUND, "stun_penalty: the MS of S2-14's exact-16 stun")
    MS_FLOOR = (-BOUND, 0, "the incapacitated parts' MS floor (combat.MS_FLOOR)")
    CRITICAL_BLOCK = (0, 1000, "exact.block_probability against a crítico, in thousandths")


class FACE(Columns):
    """A d10 face of S2-12's Localización de Impacto (``Tables.location_by_face``)."""

    PLACE = (0, NLOC - 1, "the location (its index in tables.LOCATIONS)")
    MULTIPLIER = (0, MAX_MULTIPLIER, "the damage multiplier")


class PLACE(Columns):
    """A location (``tables.LOCATIONS``)."""

    AIM_MS = (-BOUND, BOUND, "the MS of aiming at it (S2-13; 0 when it cannot be aimed at)")
    MULTIPLIER = (0, MAX_MULTIPLIER, "Tables.multiplier: an aimed blow's multiplier")
    LEG = (0, 1, "a leg: incapacitated, no moving and no MS (S2-15)")


class GDF(Columns):
    """A d10 face of S2-15's Grado de Deterioro Físico (``Tables.gdf_by_face``)."""

    EFFECT = (0, len(tables.GDF_EFFECTS) - 1, "the effect (tables.GDF_EFFECTS)")
    VALUE = (-BOUND, BOUND, "its valor (an MS, PV per turn, actions per turn)")
    UNTIL = (UNTIL_HEALED, UNTIL_NEXT_TURN, "its duracion (UNTIL)")
    TERMS = (0, BOUND, "moribundo: dice terms of its turns (rows of gdf_dice[face - 1])")
    MODIFIER = (-MAX_DAMAGE, MAX_DAMAGE, "moribundo: their modifier")


class ZONE(Columns):
    """A zone of the map (``Battlefield.zone_ids`` order)."""

    EXIT = (0, 1, "an exit zone")
    TO_EXIT = (0, BOUND, "hops to the nearest exit (0 with none)")


class CS(Columns):
    """A combatant's state: what a battle changes."""

    STATUS, ZONE, KO_ROUND, DIED, DEALT, DEALT_TO_FOES, TAKEN = HEAD["CS"].values()
    PV = (0, BOUND, "Puntos de Vitalidad left")
    ACCIONES = (0, BOUND, "actions left this turn")
    DEFENSAS = (0, BOUND, "active defences left this round (S2-08)")
    DADOS_EXPRES = (0, BOUND, "Dados Exprés held (S2-05)")
    VALUE = (-BOUND, BOUND, "each condition's value (CONDITIONS order)", NCOND)
    HAS = (0, 1, "each condition, present or not", NCOND)
    UNTIL = (0, len(UNTIL) - 1, "each condition's duration (UNTIL)", NCOND)


class G(Columns):
    """The battle's globals: the dialect's, the turn, and the roll and the attack in
    flight (``state.data["roll"]``, ``state.data["attack"]``). ``G.KIND`` is KIND_NONE
    once over, else TURN … EXPRES_AFTER."""

    OUTCOME, REASON, ROUND, WIPE, ACTOR, KIND, SUSPEND, DECISIONS, DAMAGES = HEAD["G"].values()
    TURN = (0, "combatants", "the turn's entry in the order")
    FRESH = (0, 1, "the turn's first decision (defensa completa is offered, S2-09)")
    ROLL = (0, 1, "a roll in flight")
    PURPOSE = (0, len(PURPOSES) - 1, "its purpose: ATAQUE, DEFENSA, AGUANTE")
    ROLLER = (0, "combatants", "who rolls it")
    BONUS = (-BOUND, BOUND, "its MHC + MS")
    DICE = (0, 3, "its dice rolled: 0, 2, or 3 with a Dado Exprés")
    FACES = (0, 10, "their faces: two d10, then the Dado Exprés", 3)
    EXPRES = (0, 1, "a Dado Exprés was spent on it")
    LOCATION = (-1, NLOC - 1, "Aguante: where the blow landed (-1: not known)")
    ATTACK = (0, 1, "an attack in flight")
    ATTACKER = (0, "combatants", "its attacker")
    TARGET = (0, "combatants", "its target")
    WEAPON = (0, "weapons", "the attacker's weapon")
    AIM = (-1, NLOC - 1, "the aimed location (S2-13), -1 free")
    TOTAL = (-BOUND, BOUND, "the attack roll's total, once judged")
    CRITICAL = (0, 1, "the attack roll was a crítico")


# -- small rules --------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def roll_expr(dice: np.ndarray, terms: np.ndarray, nt: int, mod: int, rolled: np.ndarray) -> int:
    """``DiceExpr.roll``: every die in term order, the kept highest of each term summed
    (``rolled``: room for the most dice of a term)."""
    total = mod
    for t in range(nt):
        count, sides = terms[t, DIE.COUNT], terms[t, DIE.SIDES]
        keep, sign = terms[t, DIE.KEEP], terms[t, DIE.SIGN]
        part = 0
        if 0 < keep < count:
            kept = rolled[:count]
            for k in range(count):
                kept[k] = mt.roll(dice, sides)
            sort_in_place(kept)
            for k in range(keep):
                part += kept[count - 1 - k]
        else:
            for _ in range(count):
                part += mt.roll(dice, sides)
        total += sign * part
    return total


@njit(cache=True, inline="always", _nrt=False)
def judge(
    f0: int, f1: int, f2: int, nf: int, bonus: int, difficulty: int
) -> tuple[int, bool, bool, bool]:
    """``rolls.judge`` (S2-01, S2-03, S2-04): (total, success, critical, fumble)."""
    total = f0 + f1 + bonus
    if nf == 3:
        total += f2
    critical = f0 == 10 and f1 == 10
    fumble = f0 == 1 and f1 == 1
    if critical:
        success = True
    elif fumble:
        success = False
    else:
        success = total >= difficulty
    return total, success, critical, fumble


@njit(cache=True, inline="always", _nrt=False)
def succ(table: np.ndarray, mode: int, k: int) -> int:
    """P(success) in thousandths of 2d10 + bonus vs difficulty, ``k = difficulty - bonus``
    (``exact.skill_odds``; mode 0 no Dado Exprés, 1 "after"), from ``succ``."""
    if k < K_LO:
        k = K_LO
    elif k > K_HI:
        k = K_HI
    return table[mode, k - K_LO]


@njit(cache=True, inline="always", _nrt=False)
def stun_penalty(cs: np.ndarray, i: int, own_turn: bool) -> int:
    """``combat.stun_penalty``: the worse of the two stuns (S2-15), S2-14's only on a roll
    in its bearer's own turn ("durante el siguiente turno")."""
    ms = 0
    for c in (ATURDIDO, ATURDIDO_16):
        if c == ATURDIDO_16 and not own_turn:
            continue
        if cs[i, CS.HAS + c] == 1 and cs[i, CS.VALUE + c] < ms:
            ms = cs[i, CS.VALUE + c]
    return ms


@njit(cache=True, inline="always", _nrt=False)
def is_leg(places: np.ndarray, c: int) -> bool:
    """Condition ``c`` is a leg's ``incapacitado_<location>`` (``combat._LEG_NAMES``)."""
    return c > INCAPACITADO and places[c - INCAPACITADO - 1, PLACE.LEG] == 1


@njit(cache=True, inline="always", _nrt=False)
def limb_penalty(cs: np.ndarray, opts: np.ndarray, places: np.ndarray, i: int) -> int:
    """``combat.limb_penalty``: every incapacitated part but a leg, to the MS floor."""
    ms = 0
    for c in range(INCAPACITADO, NCOND):
        if cs[i, CS.HAS + c] == 1 and not is_leg(places, c):
            ms += cs[i, CS.VALUE + c]
    return max(opts[OPT.MS_FLOOR], ms)


@njit(cache=True, _nrt=False)
def lame(cs: np.ndarray, places: np.ndarray, i: int) -> bool:
    """``combat.lame``, S2-15 "No poder andar por tener una pierna incapacitada"."""
    for c in range(INCAPACITADO + 1, NCOND):
        if cs[i, CS.HAS + c] == 1 and is_leg(places, c):
            return True
    return False


@njit(cache=True, _nrt=False)
def roll_penalty(cs: np.ndarray, opts: np.ndarray, places: np.ndarray, i: int, purpose: int) -> int:
    """``combat.roll_penalty`` on a roll of ``purpose`` (ATAQUE, DEFENSA, AGUANTE):
    aturdido on every roll (S2-14's on the attack alone, the roll of the roller's own
    turn), incapacitado on attack and active defence.

    Compiled once, not inlined: the attack terms call it three times and are inlined at
    several sites of the battle loop; its copies there were a sixth of the loop's first
    compile."""
    ms = stun_penalty(cs, i, purpose == ATAQUE)
    return ms + (limb_penalty(cs, opts, places, i) if purpose != AGUANTE else 0)


@njit(cache=True, inline="always", _nrt=False)
def defence_of(stat: np.ndarray, i: int, kind: int) -> int:
    """``Profile.defence``: the defensive MHC against a weapon of ``kind``."""
    return stat[i, ST.DEFENSA_CAC] if kind == 0 else stat[i, ST.DEFENSA_DIST]


@njit(cache=True, inline="always", _nrt=False)
def defence_bonus(
    stat: np.ndarray,
    cs: np.ndarray,
    opts: np.ndarray,
    places: np.ndarray,
    i: int,
    kind: int,
) -> int:
    """``combat.defence_bonus`` (S2-08, S2-09)."""
    bonus = defence_of(stat, i, kind) + roll_penalty(cs, opts, places, i, DEFENSA)
    if cs[i, CS.HAS + EN_DEFENSA_COMPLETA] == 1:
        bonus += cs[i, CS.VALUE + EN_DEFENSA_COMPLETA]
    return bonus


@njit(cache=True, _nrt=False)
def set_cond(cs: np.ndarray, i: int, c: int, value: int, until: int) -> None:
    """``c.conditions[name] = Condition(name, value, until=...)``."""
    cs[i, CS.HAS + c] = 1
    cs[i, CS.VALUE + c] = value
    cs[i, CS.UNTIL + c] = until


@njit(cache=True, _nrt=False)
def del_cond(cs: np.ndarray, i: int, c: int) -> None:
    """``del c.conditions[name]``."""
    cs[i, CS.HAS + c] = 0
    cs[i, CS.VALUE + c] = 0
    cs[i, CS.UNTIL + c] = UNTIL_NONE


@njit(cache=True, _nrt=False)
def until_of(cs: np.ndarray, i: int, c: int, duration: int) -> int:
    """``combat._until``: a condition hit again lasts as long as the longer of the two."""
    if cs[i, CS.HAS + c] == 1 and cs[i, CS.UNTIL + c] == UNTIL_HEALED:
        return UNTIL_HEALED
    return duration


# -- the shared mechanics (rules.core.mechanics) ---------------------------------------
_mechanics = compile_mechanics(__name__, ST=ST, CS=CS, G=G, OPT=OPT)
set_status, deal = _mechanics.set_status, _mechanics.deal
begin_round, check_end = _mechanics.begin_round, _mechanics.check_end
#: What the temperaments read of a side: its broken count, a protector's ward.
side_out, most_hurt_ally = _mechanics.side_out, _mechanics.most_hurt_ally
foe_hops = _mechanics.foe_hops


@njit(cache=True, _nrt=False)
def pend(g: np.ndarray, kind: int, actor: int) -> None:
    """``state.pending = Decision(...)``."""
    g[G.KIND] = kind
    g[G.ACTOR] = actor


# -- turns and rounds ---------------------------------------------------------------


@njit(cache=True, _nrt=False)
def end_turn(cs: np.ndarray, i: int) -> None:
    """``turns.end_turn``: no actions left; one-turn conditions are over."""
    cs[i, CS.ACCIONES] = 0
    for c in range(NCOND):
        if cs[i, CS.HAS + c] == 1 and cs[i, CS.UNTIL + c] == UNTIL_NEXT_TURN:
            del_cond(cs, i, c)


@njit(cache=True, _nrt=False)
def round_start(stat: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    """``turns._round_start``: defences back (S2-08/S2-10); moribundo counts down."""
    for i in range(cs.shape[0]):
        if cs[i, CS.STATUS] == ACTIVE:
            cs[i, CS.DEFENSAS] = stat[i, ST.ACCIONES]
        if cs[i, CS.HAS + MORIBUNDO] == 1 and cs[i, CS.STATUS] == DOWN:
            left = cs[i, CS.VALUE + MORIBUNDO] - 1
            if left <= 0:
                del_cond(cs, i, MORIBUNDO)
                set_status(stat, cs, g, i, DEAD)
            else:
                cs[i, CS.VALUE + MORIBUNDO] = left


@njit(cache=True, _nrt=False)
def start_turn(stat: np.ndarray, cs: np.ndarray, g: np.ndarray, log: np.ndarray, i: int) -> None:
    """``turns._start_turn``: full defence ends, derribado costs actions, sangrado bleeds."""
    if cs[i, CS.HAS + EN_DEFENSA_COMPLETA] == 1:
        del_cond(cs, i, EN_DEFENSA_COMPLETA)
    actions = stat[i, ST.ACCIONES] + stat[i, ST.EXTRA]
    if cs[i, CS.HAS + DERRIBADO] == 1:
        actions -= cs[i, CS.VALUE + DERRIBADO]
    cs[i, CS.ACCIONES] = max(0, actions)
    if cs[i, CS.HAS + SANGRADO] == 1:
        before = cs[i, CS.PV]
        cs[i, CS.PV] = max(0, before - cs[i, CS.VALUE + SANGRADO])
        # The engine's source is "sangrado", not a combatant (export_scenario refuses
        # a combatant of that id).
        deal(stat, cs, g, log, i, R_PV, before - cs[i, CS.PV], -1)
        if cs[i, CS.PV] == 0:
            set_status(stat, cs, g, i, DOWN)
            check_end(stat, cs, g)


@njit(cache=True, _nrt=False)
def next_turn(
    stat: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    log: np.ndarray,
    order: np.ndarray,
) -> None:
    """``turns.next_turn``: the next combatant in initiative order who can act (S2-06)."""
    n = cs.shape[0]
    g[G.ATTACK] = 0
    while True:
        g[G.TURN] += 1
        if g[G.TURN] >= n:
            begin_round(stat, opts, cs, g)
            if g[G.OUTCOME] != RUNNING:
                return
            round_start(stat, cs, g)
            g[G.TURN] = 0
        i = order[g[G.TURN]]
        if cs[i, CS.STATUS] != ACTIVE:
            continue
        start_turn(stat, cs, g, log, i)
        if g[G.OUTCOME] != RUNNING:
            return
        if cs[i, CS.STATUS] == ACTIVE and cs[i, CS.ACCIONES] > 0:
            g[G.FRESH] = 1
            pend(g, TURN, i)
            return
        if cs[i, CS.STATUS] == ACTIVE:
            end_turn(cs, i)


@njit(cache=True, _nrt=False)
def resume(
    stat: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    log: np.ndarray,
    order: np.ndarray,
) -> int:
    """``turns.resume``: the turn back to its owner, or on to the next turn."""
    check_end(stat, cs, g)
    if g[G.OUTCOME] != RUNNING:
        return STEP_DONE
    i = order[g[G.TURN]]
    if cs[i, CS.STATUS] == ACTIVE and cs[i, CS.ACCIONES] > 0:
        pend(g, TURN, i)
        return STEP_DONE
    end_turn(cs, i)
    next_turn(stat, opts, cs, g, log, order)
    return STEP_DONE


# -- the attack ---------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def difficulty_of(stat: np.ndarray, weapon: np.ndarray, opts: np.ndarray, g: np.ndarray) -> int:
    """``combat._difficulty`` of the roll in flight (S2-08 ``passive_beats`` and
    ``active_blocks``, S2-14)."""
    purpose = g[G.PURPOSE]
    if purpose == ATAQUE:
        kind = weapon[g[G.ATTACKER], g[G.WEAPON], W.KIND]
        return 10 + defence_of(stat, g[G.TARGET], kind) + opts[OPT.PASSIVE_GT]
    if purpose == DEFENSA:
        return g[G.TOTAL] + opts[OPT.ACTIVE_GT]
    return opts[OPT.AGUANTE_DIFFICULTY]


@njit(cache=True, _nrt=False)
def judge_pending(
    stat: np.ndarray, weapon: np.ndarray, opts: np.ndarray, g: np.ndarray
) -> tuple[int, bool, bool, bool]:
    """``combat.judge_pending``: the roll in flight judged (see :func:`judge`)."""
    difficulty = difficulty_of(stat, weapon, opts, g)
    return judge(g[G.FACES], g[G.FACES + 1], g[G.FACES + 2], g[G.DICE], g[G.BONUS], difficulty)


@njit(cache=True, _nrt=False)
def expres_can_matter(
    stat: np.ndarray, weapon: np.ndarray, opts: np.ndarray, cs: np.ndarray, g: np.ndarray
) -> bool:
    """``combat.expres_can_matter``: an after-roll Dado Exprés only where it can change
    something (never on a crítico or a pifia, S2-03)."""
    total, success, critical, fumble = judge_pending(stat, weapon, opts, g)
    if critical or fumble:
        return False
    purpose = g[G.PURPOSE]
    if purpose == ATAQUE:
        if not success:
            return True
        t = g[G.TARGET]
        return cs[t, CS.STATUS] == ACTIVE and cs[t, CS.DEFENSAS] > 0
    if purpose == DEFENSA:
        return (not success) and g[G.CRITICAL] == 0
    return total <= opts[OPT.AGUANTE_DIFFICULTY]


@njit(cache=True, _nrt=False)
def new_roll(g: np.ndarray, purpose: int, roller: int, bonus: int, location: int) -> None:
    """``PendingRoll(purpose, roller, bonus, location=...)``, no dice rolled yet."""
    g[G.ROLL] = 1
    g[G.PURPOSE] = purpose
    g[G.ROLLER] = roller
    g[G.BONUS] = bonus
    g[G.DICE] = 0
    g[G.FACES] = 0
    g[G.FACES + 1] = 0
    g[G.FACES + 2] = 0
    g[G.EXPRES] = 0
    g[G.LOCATION] = location


@njit(cache=True, _nrt=False)
def start_roll(cs: np.ndarray, g: np.ndarray) -> int:
    """``attack.start_roll`` (S2-05 "antes ... de realizar la tirada")."""
    r = g[G.ROLLER]
    if cs[r, CS.DADOS_EXPRES] > 0:
        pend(g, EXPRES_BEFORE, r)
        return STEP_DONE
    return STEP_ROLL


@njit(cache=True, _nrt=False)
def spend_expres(cs: np.ndarray, g: np.ndarray, dice: np.ndarray) -> None:
    """The roller's Dado Exprés spent: its die is the roll's third (S2-05)."""
    cs[g[G.ROLLER], CS.DADOS_EXPRES] -= 1
    g[G.FACES + 2] = mt.roll(dice, 10)
    g[G.DICE] = 3
    g[G.EXPRES] = 1


@njit(cache=True, _nrt=False)
def roll_dice(
    stat: np.ndarray,
    weapon: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    dice: np.ndarray,
    spend: bool,
) -> int:
    """``attack.roll_dice``: two d10, the Dado Exprés if spent before; then the
    after-roll offer (S2-05 "o después de realizar la tirada")."""
    r = g[G.ROLLER]
    g[G.FACES] = mt.roll(dice, 10)
    g[G.FACES + 1] = mt.roll(dice, 10)
    g[G.DICE] = 2
    if spend:
        spend_expres(cs, g, dice)
    if (not spend) and cs[r, CS.DADOS_EXPRES] > 0 and expres_can_matter(stat, weapon, opts, cs, g):
        pend(g, EXPRES_AFTER, r)
        return STEP_DONE
    return STEP_FINISH_ROLL


@njit(cache=True, _nrt=False)
def expres_decided(cs: np.ndarray, g: np.ndarray, dice: np.ndarray, spend: bool) -> int:
    """``attack.expres_decided``."""
    if g[G.DICE] == 0:
        return STEP_ROLL_SPEND if spend else STEP_ROLL
    if spend:
        spend_expres(cs, g, dice)
    return STEP_FINISH_ROLL


@njit(cache=True, _nrt=False)
def begin_attack(
    weapon: np.ndarray,
    opts: np.ndarray,
    places: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    attacker: int,
    target: int,
    w: int,
    aim: int,
) -> int:
    """``attack.begin_attack``: the attack roll, MHC + aimed MS (S2-13) + conditions."""
    aim_ms = places[aim, PLACE.AIM_MS] if aim >= 0 else 0
    ms = aim_ms + roll_penalty(cs, opts, places, attacker, ATAQUE)
    g[G.ATTACK] = 1
    g[G.ATTACKER] = attacker
    g[G.TARGET] = target
    g[G.WEAPON] = w
    g[G.AIM] = aim
    g[G.TOTAL] = 0
    g[G.CRITICAL] = 0
    new_roll(g, ATAQUE, attacker, weapon[attacker, w, W.MHC] + ms, -1)
    return STEP_START_ROLL


@njit(cache=True, _nrt=False)
def attack_judged(
    stat: np.ndarray, weapon: np.ndarray, opts: np.ndarray, cs: np.ndarray, g: np.ndarray
) -> int:
    """``attack._attack_judged``: a miss, the active-defence offer (S2-08) or the hit."""
    total, success, critical, fumble = judge_pending(stat, weapon, opts, g)
    if not success:
        g[G.ATTACK] = 0
        return STEP_RESUME
    g[G.TOTAL] = total
    g[G.CRITICAL] = 1 if critical else 0
    t = g[G.TARGET]
    if cs[t, CS.STATUS] == ACTIVE and cs[t, CS.DEFENSAS] > 0:
        pend(g, ACTIVE_DEFENCE, t)
        return STEP_DONE
    return STEP_LAND_HIT


@njit(cache=True, _nrt=False)
def defence_decided(
    stat: np.ndarray,
    weapon: np.ndarray,
    opts: np.ndarray,
    places: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    defend: bool,
) -> int:
    """``attack.defence_decided``: each active defence spends one of the round's."""
    if not defend:
        return STEP_LAND_HIT
    t = g[G.TARGET]
    cs[t, CS.DEFENSAS] -= 1
    kind = weapon[g[G.ATTACKER], g[G.WEAPON], W.KIND]
    new_roll(g, DEFENSA, t, defence_bonus(stat, cs, opts, places, t, kind), -1)
    return STEP_START_ROLL


@njit(cache=True, _nrt=False)
def defence_judged(stat: np.ndarray, weapon: np.ndarray, opts: np.ndarray, g: np.ndarray) -> int:
    """``attack._defence_judged``: *(default)* a crítico is only blocked by a crítico."""
    total, success, critical, fumble = judge_pending(stat, weapon, opts, g)
    blocked = critical if g[G.CRITICAL] == 1 else success
    if blocked:
        g[G.ATTACK] = 0
        return STEP_RESUME
    return STEP_LAND_HIT


@njit(cache=True, _nrt=False)
def land_hit(
    stat: np.ndarray,
    weapon: np.ndarray,
    opts: np.ndarray,
    damage: np.ndarray,
    faces: np.ndarray,
    places: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    log: np.ndarray,
    rolled: np.ndarray,
    dice: np.ndarray,
) -> int:
    """``attack.land_hit``: S2-11 damage − CA, S2-12 location (S2-13 when aimed)."""
    g[G.ATTACK] = 0
    a, t, w, aim = g[G.ATTACKER], g[G.TARGET], g[G.WEAPON], g[G.AIM]
    raw = roll_expr(dice, damage[a, w], weapon[a, w, W.TERMS], weapon[a, w, W.MODIFIER], rolled)
    absorbed = max(0, raw - stat[t, ST.CA])
    if aim >= 0:
        location = aim
        multiplier = places[aim, PLACE.MULTIPLIER]
    else:
        face = mt.roll(dice, 10)
        location = faces[face - 1, FACE.PLACE]
        multiplier = faces[face - 1, FACE.MULTIPLIER]
    return take_damage(stat, opts, places, cs, g, log, t, absorbed * multiplier, a, location)


@njit(cache=True, _nrt=False)
def take_damage(
    stat: np.ndarray,
    opts: np.ndarray,
    places: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    log: np.ndarray,
    t: int,
    amount: int,
    source: int,
    location: int,
) -> int:
    """``attack.take_damage``: 0 PV is down; half or more of the PV calls for Aguante (S2-14)."""
    before = cs[t, CS.PV]
    cs[t, CS.PV] = max(0, before - amount)
    after = cs[t, CS.PV]
    deal(stat, cs, g, log, t, R_PV, before - after, source)
    if after == 0:
        set_status(stat, cs, g, t, DOWN)
        return STEP_RESUME
    if amount > 0 and 2 * amount >= before:
        bonus = stat[t, ST.AGUANTE] + roll_penalty(cs, opts, places, t, AGUANTE)
        new_roll(g, AGUANTE, t, bonus, location)
        return STEP_START_ROLL
    return STEP_RESUME


@njit(cache=True, _nrt=False)
def stun(cs: np.ndarray, i: int, c: int, ms: int, duration: int) -> None:
    """``combat.stun``: the same stun twice keeps the worse MS and the longer duration."""
    value = min(ms, cs[i, CS.VALUE + c]) if cs[i, CS.HAS + c] == 1 else ms
    set_cond(cs, i, c, value, until_of(cs, i, c, duration))


@njit(cache=True, _nrt=False)
def stack(cs: np.ndarray, i: int, c: int, value: int, duration: int) -> None:
    """``combat._stack``: sangrado and derribado add up (to 99, the engine's cap)."""
    old = cs[i, CS.VALUE + c] if cs[i, CS.HAS + c] == 1 else 0
    set_cond(cs, i, c, min(99, value + old), until_of(cs, i, c, duration))


@njit(cache=True, _nrt=False)
def apply_gdf(
    stat: np.ndarray,
    places: np.ndarray,
    gdf: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    i: int,
    face: int,
    location: int,
) -> None:
    """``combat.apply_gdf`` (S2-15), each row's duration from the tables file; moribundo,
    which rolls its dice, is :func:`aguante_judged`'s."""
    f = face - 1
    kind, value, duration = gdf[f, GDF.EFFECT], gdf[f, GDF.VALUE], gdf[f, GDF.UNTIL]
    if kind == GDF_ATURDIDO:
        stun(cs, i, ATURDIDO, value, duration)
    elif kind == GDF_SANGRADO:
        stack(cs, i, SANGRADO, value, duration)
    elif kind == GDF_DERRIBADO:
        stack(cs, i, DERRIBADO, value, duration)
    elif kind == GDF_INCAPACITADO:
        # "El miembro afectado queda inutilizado", by where the blow landed (S2-12).
        c = INCAPACITADO + 1 + location if location >= 0 else INCAPACITADO
        v = 0 if is_leg(places, c) else value
        if cs[i, CS.HAS + c] == 1:
            v = min(v, cs[i, CS.VALUE + c])
        set_cond(cs, i, c, v, until_of(cs, i, c, duration))
    elif kind == GDF_INCONSCIENTE:
        set_status(stat, cs, g, i, DOWN)


@njit(cache=True, _nrt=False)
def aguante_judged(
    stat: np.ndarray,
    weapon: np.ndarray,
    opts: np.ndarray,
    places: np.ndarray,
    gdf: np.ndarray,
    gdf_dice: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    rolled: np.ndarray,
    dice: np.ndarray,
) -> int:
    """``attack._aguante_judged`` (S2-14): above the difficulty nothing, exactly it stuns
    for the next turn, below it (or a pifia) the GDF table (S2-15)."""
    i = g[G.ROLLER]
    total, success, critical, fumble = judge_pending(stat, weapon, opts, g)
    difficulty = opts[OPT.AGUANTE_DIFFICULTY]
    if critical or ((not fumble) and total > difficulty):
        return STEP_RESUME
    if (not fumble) and total == difficulty:
        stun(cs, i, ATURDIDO_16, opts[OPT.STUN_PENALTY], UNTIL_NEXT_TURN)
        return STEP_RESUME
    face = mt.roll(dice, 10)
    f = face - 1
    if gdf[f, GDF.EFFECT] == GDF_MORIBUNDO:
        turns = roll_expr(dice, gdf_dice[f], gdf[f, GDF.TERMS], gdf[f, GDF.MODIFIER], rolled)
        set_cond(cs, i, MORIBUNDO, turns, UNTIL_NONE)
        set_status(stat, cs, g, i, DOWN)
    else:
        apply_gdf(stat, places, gdf, cs, g, i, face, g[G.LOCATION])
    return STEP_RESUME


@njit(cache=True, _nrt=False)
def chain(
    stat: np.ndarray,
    weapon: np.ndarray,
    opts: np.ndarray,
    damage: np.ndarray,
    faces: np.ndarray,
    places: np.ndarray,
    gdf: np.ndarray,
    gdf_dice: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    log: np.ndarray,
    order: np.ndarray,
    rolled: np.ndarray,
    dice: np.ndarray,
    step: int,
) -> None:
    """The engine's chain of calls from ``step`` to the next decision or the end."""
    while step != STEP_DONE:
        if step == STEP_RESUME:
            step = resume(stat, opts, cs, g, log, order)
        elif step == STEP_START_ROLL:
            step = start_roll(cs, g)
        elif step == STEP_ROLL or step == STEP_ROLL_SPEND:
            step = roll_dice(stat, weapon, opts, cs, g, dice, step == STEP_ROLL_SPEND)
        elif step == STEP_FINISH_ROLL:
            # attack.finish_roll: the roll in flight judged by its purpose.
            g[G.ROLL] = 0
            if g[G.PURPOSE] == ATAQUE:
                step = attack_judged(stat, weapon, opts, cs, g)
            elif g[G.PURPOSE] == DEFENSA:
                step = defence_judged(stat, weapon, opts, g)
            else:
                step = aguante_judged(
                    stat, weapon, opts, places, gdf, gdf_dice, cs, g, rolled, dice
                )
        else:
            step = land_hit(stat, weapon, opts, damage, faces, places, cs, g, log, rolled, dice)


# -- the loops' hooks (rules.core.loops) ----------------------------------------------


@njit(cache=True, _nrt=False, inline="always")
def reset(s: tuple, d: tuple, d0: tuple) -> None:
    """``d`` becomes the state ``d0`` (:func:`~escaramuza.rules.core.loops.copy_head`)
    and its initiative order (the rest is scratch)."""
    copy_head(d, d0)
    copy_into(d[ORDER], d0[ORDER])


@njit(cache=True, _nrt=False)
def start(s: tuple, d: tuple, dice: np.ndarray) -> None:
    """``Sistema2d10.start``: initiative 2d10 + MHC(Reflejos + Sentidos) (S2-06), ties in
    scenario order, then the first turn."""
    stat = s[STAT]
    cs, g, order = d[STATE], d[GLOBALS], d[ORDER]
    n = cs.shape[0]
    keys = d[ROLLED][:n]
    for i in range(n):
        a = mt.roll(dice, 10)
        b = mt.roll(dice, 10)
        total = a + b + stat[i, ST.INICIATIVA]
        # sorted by (-total, index): one integer key, -total * n + index, the index
        # breaking ties and read back as the key modulo n (floored, as Python's).
        keys[i] = -total * n + i
    sort_in_place(keys)
    for k in range(n):
        order[k] = keys[k] % n
    g[G.ROUND] = 0
    g[G.TURN] = n - 1
    next_turn(stat, s[OPTS], cs, g, d[LOG], order)


@njit(cache=True, _nrt=False, inline="always")
def legal(s: tuple, d: tuple, la: np.ndarray) -> int:
    """``Sistema2d10.legal_actions`` in the engine's order, one row of ``la`` each;
    returns how many."""
    stat, weapon, dist = s[STAT], s[WEAPON], s[DIST]
    places, aims, neighbours = s[PLACES], s[AIMS], s[NEIGHBOURS]
    cs, g = d[STATE], d[GLOBALS]
    kind = g[G.KIND]
    a = g[G.ACTOR]
    if kind == ACTIVE_DEFENCE:
        push(la, 0, DEFENDER, a, -1, -1, -1)
        push(la, 1, NO_DEFENDER, a, -1, -1, -1)
        return 2
    if kind == EXPRES_BEFORE or kind == EXPRES_AFTER:
        push(la, 0, GASTAR_DADO, a, -1, -1, -1)
        push(la, 1, NO_GASTAR, a, -1, -1, -1)
        return 2
    n = cs.shape[0]
    cnt = 0
    here = cs[a, CS.ZONE]
    for w in range(stat[a, ST.WEAPONS]):
        for f in range(n):
            if cs[f, CS.STATUS] == ACTIVE and stat[f, ST.SIDE] != stat[a, ST.SIDE]:
                if dist[here, cs[f, CS.ZONE]] <= weapon[a, w, W.REACH]:
                    push(la, cnt, ATACAR, f, -1, w, -1)
                    cnt += 1
                    for m in range(aims.shape[0]):
                        push(la, cnt, ATACAR, f, -1, w, aims[m])
                        cnt += 1
    if not lame(cs, places, a):
        for m in range(neighbours.shape[1]):
            if neighbours[here, m] < 0:
                break
            push(la, cnt, MOVER, -1, neighbours[here, m], -1, -1)
            cnt += 1
    if cs[a, CS.DADOS_EXPRES] > 0 and stat[a, ST.PC] == 1:
        # S2-05 "Los jugadores pueden cederse…": a player character to another who holds none.
        for c in range(n):
            if (
                stat[c, ST.PC] == 1
                and stat[c, ST.SIDE] == stat[a, ST.SIDE]
                and cs[c, CS.STATUS] == ACTIVE
                and c != a
                and cs[c, CS.DADOS_EXPRES] == 0
                and stat[c, ST.DADOS_EXPRES] > 0
            ):
                push(la, cnt, CEDER_DADO, c, -1, -1, -1)
                cnt += 1
    if g[G.FRESH] == 1:
        push(la, cnt, DEFENSA_COMPLETA, -1, -1, -1, -1)
        cnt += 1
    push(la, cnt, PASAR, -1, -1, -1, -1)
    return cnt + 1


@njit(cache=True, _nrt=False, inline="always")
def apply(s: tuple, d: tuple, row: np.ndarray, dice: np.ndarray) -> None:
    """``Sistema2d10.apply`` for one coded action, then on to the next decision."""
    stat, weapon, opts, places = s[STAT], s[WEAPON], s[OPTS], s[PLACES]
    cs, g = d[STATE], d[GLOBALS]
    verb = row[LA.VERB]
    a = g[G.ACTOR]
    g[G.KIND] = KIND_NONE
    if verb == DEFENDER or verb == NO_DEFENDER:
        step = defence_decided(stat, weapon, opts, places, cs, g, verb == DEFENDER)
    elif verb == GASTAR_DADO or verb == NO_GASTAR:
        g[G.ROLL] = 0
        step = expres_decided(cs, g, dice, verb == GASTAR_DADO)
    else:
        g[G.FRESH] = 0
        step = STEP_RESUME
        if verb == ATACAR:
            cs[a, CS.ACCIONES] -= 1
            target, w, aim = row[LA.TARGET], row[LA.ITEM], row[LA.OPTION]
            step = begin_attack(weapon, opts, places, cs, g, a, target, w, aim)
        elif verb == MOVER:
            # *(default)* moving one zone step costs one action.
            cs[a, CS.ACCIONES] -= 1
            cs[a, CS.ZONE] = row[LA.ZONE]
        elif verb == CEDER_DADO:
            cs[a, CS.ACCIONES] -= 1
            cs[a, CS.DADOS_EXPRES] -= 1
            cs[row[LA.TARGET], CS.DADOS_EXPRES] += 1
        elif verb == DEFENSA_COMPLETA:
            # S2-09 "pasar su turno sin hacer otra cosa que defenderse: Obtendrá un +3".
            set_cond(cs, a, EN_DEFENSA_COMPLETA, opts[OPT.FULL_DEFENCE], UNTIL_NONE)
            cs[a, CS.ACCIONES] = 0
        else:
            cs[a, CS.ACCIONES] = 0
    chain(
        stat,
        weapon,
        opts,
        s[DAMAGE_DICE],
        s[FACES],
        places,
        s[GDF_TABLE],
        s[GDF_DICE],
        cs,
        g,
        d[LOG],
        d[ORDER],
        d[ROLLED],
        dice,
        step,
    )


# -- exact odds (exact.attack_odds over arrays) ---------------------------------------


@njit(cache=True, _nrt=False)
def hit_count(
    succ_table: np.ndarray,
    attack_bonus: int,
    need: int,
    has_defence: bool,
    defence: int,
    block_gt: int,
    critical_block: int,
) -> int:
    """``exact.hit_probability`` (no Dado Exprés) as an integer over 100,000: each of the
    100 attack outcomes that beats the defensa pasiva weighs 1,000 less the thousandths
    the active defence blocks (``critical_block`` against a crítico)."""
    n = 0
    for a in range(1, 11):
        for b in range(1, 11):
            total, success, critical, fumble = judge(a, b, 0, 2, attack_bonus, need)
            if not success:
                continue
            if not has_defence:
                n += 1000
            elif critical:
                n += 1000 - critical_block
            else:
                n += 1000 - succ(succ_table, 0, total + block_gt - defence)
    return n


#: :func:`hit_count` depends only on x = need − attack bonus (constant outside 2…21: every
#: non-pifia hits, or only a crítico) and z = attack bonus + ``gt`` − defence (constant
#: outside −18…19, where the block chance is the same for every attack total).
X_LO, X_HI, Z_LO, Z_HI = 2, 21, -18, 19


def hit_table(succ_table: np.ndarray, critical_block: int) -> np.ndarray:
    """:func:`hit_count` for every (x, z), column 0 with no active defence."""
    out = np.zeros((X_HI - X_LO + 1, Z_HI - Z_LO + 2), np.int64)
    for x in range(X_LO, X_HI + 1):
        out[x - X_LO, 0] = hit_count(succ_table, 0, x, False, 0, 0, critical_block)
        for z in range(Z_LO, Z_HI + 1):
            out[x - X_LO, 1 + z - Z_LO] = hit_count(succ_table, 0, x, True, -z, 0, critical_block)
    return out


@njit(cache=True, inline="always", _nrt=False)
def hit_lookup(
    hit: np.ndarray,
    bonus: int,
    need: int,
    has_defence: bool,
    defence: int,
    block_gt: int,
) -> int:
    """:func:`hit_count` from :func:`hit_table`."""
    x = min(max(need - bonus, X_LO), X_HI) - X_LO
    if not has_defence:
        return hit[x, 0]
    z = min(max(bonus + block_gt - defence, Z_LO), Z_HI) - Z_LO
    return hit[x, 1 + z]


@njit(cache=True, inline="always", _nrt=False)
def attack_terms(
    s: tuple, cs: np.ndarray, a: int, w: int, t: int
) -> tuple[int, int, bool, int, float]:
    """What ``Sistema2d10._aimed_odds`` works out once per (attacker, target, weapon):
    (bonus before the aimed MS, need, has active defence, its bonus, P(pain knock-out))."""
    stat, weapon, opts, places = s[STAT], s[WEAPON], s[OPTS], s[PLACES]
    out_share, succ_table = s[OUT_SHARE], s[SUCC]
    kind = weapon[a, w, W.KIND]
    has_defence = cs[t, CS.STATUS] == ACTIVE and cs[t, CS.DEFENSAS] > 0
    defence = defence_bonus(stat, cs, opts, places, t, kind) if has_defence else 0
    bonus = weapon[a, w, W.MHC] + roll_penalty(cs, opts, places, a, ATAQUE)
    need = 10 + defence_of(stat, t, kind) + opts[OPT.PASSIVE_GT]
    aguante = stat[t, ST.AGUANTE] + roll_penalty(cs, opts, places, t, AGUANTE)
    fail = 1000 - succ(succ_table, 0, opts[OPT.AGUANTE_DIFFICULTY] - aguante)
    p_pain_out = (np.float64(fail) / 1000.0) * out_share[0]
    return bonus, need, has_defence, defence, p_pain_out


@njit(cache=True, inline="always", _nrt=False)
def aimed_odds(
    s: tuple,
    cs: np.ndarray,
    a: int,
    w: int,
    t: int,
    aim: int,
    terms: tuple[int, int, bool, int, float],
) -> tuple[float, float, float]:
    """``exact.attack_odds`` for one aim (-1 free, else a location) from
    :func:`attack_terms`: (p_hit, expected_damage, p_drop), the same floats as the engine
    — exact integers where it has Fractions, then its float operations in its order."""
    opts, places, hit, hdv, hdp, hdn = s[OPTS], s[PLACES], s[HIT], s[HDV], s[HDP], s[HDN]
    bonus, need, has_defence, defence, p_pain_out = terms
    if aim >= 0:
        bonus += places[aim, PLACE.AIM_MS]
    n = hit_lookup(hit, bonus, need, has_defence, defence, opts[OPT.ACTIVE_GT])
    p_hit = np.float64(n) / 100000.0
    pv = cs[t, CS.PV]
    slot = aim + 1
    expected = 0.0
    p_drop = 0.0
    for m in range(hdn[a, w, t, slot]):
        dealt = hdv[a, w, t, slot, m]
        pq = p_hit * hdp[a, w, t, slot, m]
        if dealt > 0 and pq > 0.0:
            expected = expected + np.float64(dealt) * pq
        if dealt >= pv:
            p_drop += pq
        elif dealt > 0 and 2 * dealt >= pv:
            p_drop += pq * p_pain_out
    return p_hit, expected, p_drop


@njit(cache=True, inline="always", _nrt=False)
def attack_odds(
    s: tuple, cs: np.ndarray, a: int, w: int, t: int, aim: int
) -> tuple[float, float, float]:
    """``Sistema2d10.attack_odds`` (free when ``aim`` is -1, else at location ``aim``)."""
    return aimed_odds(s, cs, a, w, t, aim, attack_terms(s, cs, a, w, t))


# -- export (plain Python, once per scenario / state) ---------------------------------


@dataclass(frozen=True, slots=True)
class Export(compiled.NamedExport):
    """A scenario in the kernel's terms, with the names an engine state and action map
    through and the tables."""

    tables: Tables


def check_dice(expr: DiceExpr, what: str) -> None:
    """A damage or GDF expression within what the kernel rolls and tabulates."""
    check_range(expr.modifier, -MAX_DAMAGE, MAX_DAMAGE, f"{what} modifier")
    largest = abs(expr.modifier)
    for term in expr.terms:
        check_range(term.count, 1, MAX_COUNT, f"{what}: dice count")
        check_range(term.sides, 1, MAX_SIDES, f"{what}: faces")
        check_range(term.keep or 0, 0, term.count, f"{what}: dice kept")
        largest += term.count * term.sides
    check_range(largest, 0, MAX_DAMAGE, f"{what}: {expr.text!r} at most")


def put_dice(rows: np.ndarray, expr: DiceExpr, what: str) -> None:
    """``expr``'s terms into ``rows`` (``DIE`` columns), checked."""
    check_dice(expr, what)
    for m, term in enumerate(expr.terms):
        DIE.put(
            rows[m], what, count=term.count, sides=term.sides, keep=term.keep or 0, sign=term.sign
        )


def export_sheets(
    scenario: Scenario, maxw: int, maxt: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stat blocks (``stat``), weapons (``weapon``) and their damage dice (``damage``)."""
    combatants = scenario.combatants
    n = len(combatants)
    stat = ST.new(n)
    weapon = W.new(n, maxw)
    damage = DIE.new(n, maxw, maxt)
    for i, c in enumerate(combatants):
        prof = combat.profile(c)
        for name in ("pv", "acciones", "defensas", "dados_expres"):
            check_range(c.maxima[name], 0, BOUND, f"{c.id}: maximum {name}")
        for k, wp in enumerate(prof.weapons):
            what = f"{c.id}: {wp.name}"
            put_dice(damage[i, k], wp.damage, f"{what} damage")
            W.put(
                weapon[i, k],
                what,
                kind=0 if wp.kind == MELEE else 1,
                mhc=wp.mhc,
                reach=wp.reach,
                terms=len(wp.damage.terms),
                modifier=wp.damage.modifier,
            )
        stats = c.stats
        ST.put(
            stat[i],
            c.id,
            **compiled.stat_head(c),
            pv=c.maxima["pv"],
            acciones=stats.actions,
            extra=stats.extra_actions,
            ca=stats.ca,
            dados_expres=c.maxima["dados_expres"],
            pc=int(c.pc),
            iniciativa=prof.iniciativa,
            defensa_cac=prof.defensa_cac,
            defensa_dist=prof.defensa_dist,
            aguante=prof.aguante,
            weapons=len(prof.weapons),
            reach=max(w.reach for w in prof.weapons),
            ranged=max((w.reach for w in prof.weapons if w.reach > 0), default=0),
        )
    return stat, weapon, damage


def export_map(scenario: Scenario) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hops between zones (``dist``), neighbours in map order, exits and each zone's hops
    to an exit (``zones``)."""
    bf = scenario.battlefield
    zone_ids = tuple(bf.zone_ids)
    nz = len(zone_ids)
    zindex = {z: k for k, z in enumerate(zone_ids)}
    dist = compiled.zone_hops(bf)
    maxdeg = max(1, max(len(bf.neighbours(z)) for z in zone_ids))
    neighbours = np.full((nz, maxdeg), -1, np.int64)
    zones = ZONE.new(nz)
    exits = bf.exits()
    for a, za in enumerate(zone_ids):
        for m, zb in enumerate(bf.neighbours(za)):
            neighbours[a, m] = zindex[zb]
        ZONE.put(
            zones[a],
            f"zone {za}",
            exit=1 if bf.zones[za].exit else 0,
            to_exit=min((bf.distance(za, e) for e in exits), default=0),
        )
    return dist, neighbours, zones


def export_options(scenario: Scenario) -> np.ndarray:
    """The scenario's options and the rule constants the engine names (``opts``)."""
    options = scenario.options
    critical_block = exact.block_probability(0, 0, attack_critical=True) * 1000
    assert critical_block.denominator == 1
    opts = OPT.new()
    OPT.put(
        opts,
        "options",
        passive_gt=1 if options.passive_beats == "gt" else 0,
        active_gt=1 if options.active_blocks == "gt" else 0,
        full_defence=int(options.full_defence_bonus),
        aguante_difficulty=int(options.aguante_difficulty),
        stun_penalty=int(options.stun_penalty),
        round_limit=scenario.round_limit,
        survive=1 if scenario.victory == "survive" else 0,
        ms_floor=combat.MS_FLOOR,
        critical_block=int(critical_block),
    )
    return opts


def export_tables(
    table: Tables, maxt: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The scenario's tables file (S2-12, S2-13, S2-15) as ``faces``, ``places``, ``aims``,
    ``gdf``, ``gdf_dice`` and ``out_share``, from the engine's ``Tables`` and the
    locations ``combat`` reads."""
    where = {name: k for k, name in enumerate(tables.LOCATIONS)}
    faces = FACE.new(len(table.location_by_face))
    for f, loc in enumerate(table.location_by_face):
        FACE.put(
            faces[f], f"tables: face {f + 1}", place=where[loc.name], multiplier=loc.multiplier
        )
    places = PLACE.new(NLOC)
    for k, name in enumerate(tables.LOCATIONS):
        PLACE.put(
            places[k],
            f"tables: {name}",
            aim_ms=table.aim_modifier(name) or 0,
            multiplier=table.multiplier(name),
            # What combat.lame and combat.limb_penalty read: its incapacitated part's name
            # among the legs'.
            leg=1 if f"{combat.INCAPACITATED}_{name}" in combat._LEG_NAMES else 0,
        )
    aims = np.array([where[name] for name, _ in table.aimed], dtype=np.int64)
    gdf = GDF.new(len(table.gdf_by_face))
    gdf_dice = DIE.new(len(table.gdf_by_face), maxt)
    for f, e in enumerate(table.gdf_by_face):
        what = f"tables: GDF face {f + 1}"
        if e.dice is not None:
            put_dice(gdf_dice[f], e.dice, what)
        GDF.put(
            gdf[f],
            what,
            effect=tables.GDF_EFFECTS.index(e.effect),
            value=e.value,
            until=UNTIL.index(e.duration),
            terms=len(e.dice.terms) if e.dice is not None else 0,
            modifier=e.dice.modifier if e.dice is not None else 0,
        )
    out_share = np.array([table.out_share], dtype=np.float64)
    return faces, places, aims, gdf, gdf_dice, out_share


def export_odds(
    scenario: Scenario, table: Tables, maxw: int, critical_block: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The engine's exact odds as integer tables: skill successes (``succ``), hit counts
    (``hit``) and each attack's hit damage distribution (``hdv``/``hdp``/``hdn``), from
    ``exact`` itself."""
    combatants = scenario.combatants
    n = len(combatants)
    where = {name: k for k, name in enumerate(tables.LOCATIONS)}
    # exact.skill_odds success in thousandths, by difficulty − bonus (all that matters).
    succ_table = np.zeros((2, K_HI - K_LO + 1), np.int64)
    modes: tuple[exact.ExpresUse, ...] = ("none", "after")
    for m, mode in enumerate(modes):
        for k in range(K_LO, K_HI + 1):
            p = exact.skill_odds(0, k, mode).p_success * 1000
            assert isinstance(p, Fraction) and p.denominator == 1
            succ_table[m, k - K_LO] = int(p)
    # exact.hit_damage_distribution for every (attacker, weapon, target, free|aim).
    slots = 1 + NLOC
    cases = {}
    for a, attacker in enumerate(combatants):
        for w, wp in enumerate(combat.profile(attacker).weapons):
            for t, ct in enumerate(combatants):
                ca = ct.stats.ca
                cases[a, w, t, 0] = exact.hit_damage_distribution(wp.damage, ca, table.multipliers)
                for name, _ in table.aimed:
                    cases[a, w, t, 1 + where[name]] = exact.hit_damage_distribution(
                        wp.damage, ca, (table.multiplier(name),)
                    )
    width = max((len(v) for v in cases.values()), default=1)
    hdv = np.zeros((n, maxw, n, slots, width), np.int64)
    hdp = np.zeros((n, maxw, n, slots, width), np.float64)
    hdn = np.zeros((n, maxw, n, slots), np.int64)
    for (a, w, t, slot), dist in cases.items():
        hdn[a, w, t, slot] = len(dist)
        for m, (dealt, q) in enumerate(dist):
            hdv[a, w, t, slot, m] = dealt
            hdp[a, w, t, slot, m] = q
    return succ_table, hit_table(succ_table, critical_block), hdv, hdp, hdn


def export_scenario(scenario: Scenario) -> Export:
    """The scenario's bundles (the module's docstring), or :class:`KernelRefusal` naming
    what the kernel does not play or a value outside its bounds."""
    combatants = scenario.combatants
    for c in combatants:
        if c.id == "sangrado":
            # The engine's bleeding damage names "sangrado" as its source: a combatant
            # of that id would be credited with it.
            raise KernelRefusal("a combatant with id 'sangrado'")
        if not c.active or c.conditions:
            raise KernelRefusal(f"{c.id} starts out of the fight or with conditions")
    table = tables.load_tables(scenario.options.tables)
    check_range(scenario.round_limit, 1, BOUND, "round_limit")
    profiles = [combat.profile(c) for c in combatants]
    maxw = max(len(p.weapons) for p in profiles)
    maxt = max(max(len(w.damage.terms) for w in p.weapons) for p in profiles)
    maxt = max(maxt, *(len(e.dice.terms) for e in table.gdf_by_face if e.dice is not None), 1)
    stat, weapon, damage = export_sheets(scenario, maxw, maxt)
    dist, neighbours, zone_table = export_map(scenario)
    opts = export_options(scenario)
    faces, places, aims, gdf, gdf_dice, out_share = export_tables(table, maxt)
    odds = export_odds(scenario, table, maxw, int(opts[OPT.CRITICAL_BLOCK]))
    tabled = (damage, faces, places, aims, gdf, gdf_dice, out_share, *odds, neighbours, zone_table)
    static = (stat, weapon, dist, opts, *tabled)
    assert len(static) == ZONES + 1 and static[ZONES] is zone_table
    n = len(combatants)
    actions = maxw * n * (1 + len(aims)) + neighbours.shape[1] + n + 2
    most_dice = max(
        1, int(damage[..., DIE.COUNT].max(initial=0)), int(gdf_dice[..., DIE.COUNT].max(initial=0))
    )
    ids = {c.id: i for i, c in enumerate(combatants)}
    zones = {z: k for k, z in enumerate(scenario.battlefield.zone_ids)}
    cs = CS.new(n)
    for i, c in enumerate(combatants):
        export_combatant(ids, zones, cs[i], i, c)
    g = G.new()
    g[G.OUTCOME] = RUNNING
    g[G.LOCATION] = -1
    g[G.AIM] = -1
    order = np.zeros(n, np.int64)
    rolled = np.zeros(max(n, most_dice), np.int64)
    picks = np.zeros((5, actions), np.int64)
    scores = np.zeros(actions, np.float64)
    d0 = (cs, g, new_damage_log(), order, rolled, picks, scores)
    assert len(d0) == SCORES + 1 and d0[ORDER] is order
    return Export(
        scenario,
        static,
        d0,
        actions,
        ids=ids,
        zones=zones,
        weapon_names=tuple(tuple(w.name for w in p.weapons) for p in profiles),
        tables=table,
    )


def export_combatant(
    ids: dict[str, int], zones: dict[str, int], row: np.ndarray, i: int, c: Combatant
) -> None:
    """Row ``i`` of ``cs`` from an engine combatant (the scenario's ``i``-th): status and
    zone, resources (each within 0 and its maximum), conditions; counters from zero."""
    head = compiled.combatant_head(ids, zones, i, c)
    if c.status not in PLAYED_STATUSES:
        raise KernelRefusal(f"{c.id} is {c.status.value}: not a Sistema 2d10 status")
    compiled.put_resources(row, CS, c, RESOURCES, c.maxima)
    dims = {"zones": len(zones)}
    CS.put(row, c.id, dims, **head)
    for name, cond in c.conditions.items():
        if name not in CONDITIONS:
            raise KernelRefusal(f"{c.id}'s condition {name!r} is not one the kernel plays")
        code = CONDITIONS.index(name)
        if cond.until not in UNTIL:
            raise KernelRefusal(f"{c.id}'s {name} lasts {cond.until!r}")
        check_range(cond.value, -BOUND, BOUND, f"{c.id}: {name} value")
        row[CS.HAS + code] = 1
        row[CS.VALUE + code] = cond.value
        row[CS.UNTIL + code] = UNTIL.index(cond.until)


def export_state(exported: Exported, state: BattleState) -> tuple[np.ndarray, ...]:
    """The dynamic bundle of an engine state (counters from zero); :class:`KernelRefusal`
    for what the kernel cannot hold."""
    exported = compiled.exported_as(exported, Export)
    n = compiled.resumable(exported, state, int(exported.static[OPTS][OPT.ROUND_LIMIT]))
    cs, g, log, order, *scratch = (a.copy() for a in exported.start)
    cs[:] = 0
    index = exported.ids
    for i, c in enumerate(state.combatants):
        if c.maxima != exported.scenario.combatants[i].maxima:
            raise KernelRefusal(f"{c.id}'s maxima differ from the scenario's")
        export_combatant(index, exported.zones, cs[i], i, c)
    # The order is every combatant once (start sorts them all) and the turn one of its
    # entries: the compiled turns read order[turn] without bounds checks.
    entries = tuple(state.order)
    if sorted(entries) != sorted(index):
        raise KernelRefusal(f"turn order {list(entries)} is not every combatant once")
    check_range(state.turn, 0, n - 1, "turn")
    g[G.ROUND] = state.round
    g[G.TURN] = state.turn
    for k, cid in enumerate(entries):
        order[k] = index[cid]
    data = state.data
    g[G.FRESH] = 1 if data.get("fresh") else 0
    pending = state.pending
    assert pending is not None  # resumable's
    g[G.KIND] = KIND_TURN + DECISIONS.index(pending.name)
    g[G.ACTOR] = index[pending.actor]
    compiled.check_pending_side(exported, pending)
    attack = data.get("attack")
    if attack is not None:
        export_attack(exported, g, attack)
    roll = data.get("roll")
    if roll is not None:
        export_roll(g, index, roll)
    check_pending(g, attack, roll, index[entries[state.turn]])
    if data.get("tables") is not None and data["tables"] != exported.tables:
        raise KernelRefusal("the state's tables are not the scenario's")
    return (cs, g, log, order, *scratch)


def export_attack(exported: Export, g: np.ndarray, attack: AttackCtx) -> None:
    """The attack in flight (``data["attack"]``) into ``g``."""
    attacker = exported.ids[attack.attacker]
    G.put(
        g,
        "the attack",
        attack=1,
        attacker=attacker,
        target=exported.ids[attack.target],
        weapon=exported.weapon_names[attacker].index(attack.weapon),
        aim=-1 if attack.aim is None else tables.LOCATIONS.index(attack.aim),
        total=attack.total,
        critical=1 if attack.critical else 0,
    )


def export_roll(g: np.ndarray, index: dict[str, int], roll: PendingRoll) -> None:
    """The roll in flight (``data["roll"]``) into ``g``."""
    check_range(len(roll.faces), 0, 3, "the roll's dice")
    check_range(tuple(roll.faces), 1, 10, "the roll's faces")
    G.put(
        g,
        "the roll",
        roll=1,
        purpose=PURPOSES.index(roll.purpose),
        roller=index[roll.roller],
        bonus=roll.bonus,
        dice=len(roll.faces),
        faces=tuple(roll.faces),
        expres=1 if roll.expres else 0,
        location=-1 if roll.location is None else tables.LOCATIONS.index(roll.location),
    )


def check_pending(
    g: np.ndarray, attack: AttackCtx | None, roll: PendingRoll | None, turn_actor: int
) -> None:
    """The pending decision is the one the state waits on: a turn its owner's, an
    active defence the attack's target's, a Dado Exprés the roller's (and a roll of
    an attack or its defence with the attack in flight)."""
    kind, actor = g[G.KIND], g[G.ACTOR]
    if kind == TURN:
        ok = actor == turn_actor
    elif kind == ACTIVE_DEFENCE:
        ok = attack is not None and g[G.TARGET] == actor
    else:
        ok = (
            roll is not None
            and g[G.ROLLER] == actor
            and (g[G.PURPOSE] == AGUANTE or attack is not None)
        )
    if not ok:
        raise KernelRefusal(f"pending {DECISIONS[kind - KIND_TURN]!r}: not what the state waits on")


def action_row(exported: Exported, state: BattleState, action: Action) -> list[int]:
    """The legal-list row of an engine action: an attack's option is its aimed location
    (-1 ``libre``)."""
    exported = compiled.exported_as(exported, Export)
    aim = -1
    if action.option != ruleset.LIBRE:
        aim = compiled.name_code(tables.LOCATIONS, action.option, action, "option")
    return compiled.named_action_row(exported, action, VERBS, aim, NEEDS)


def conditions(row: Sequence[int]) -> tuple[tuple[str, int], ...]:
    """A final ``cs`` row's conditions as sorted ``(name, value)``, the engine's names."""
    return tuple(
        sorted((CONDITIONS[c], row[CS.VALUE + c]) for c in range(NCOND) if row[CS.HAS + c])
    )
