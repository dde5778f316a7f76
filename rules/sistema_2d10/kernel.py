"""Sistema 2d10 compiled with numba: the rules of ``combat.py``/``ruleset.py`` over arrays.

architecture.md, "The fast path": the engine is the specification; this module is the
same rules (S2-01 … S2-15) as small numba functions named like the engine's, over plain
integer arrays, with no events. The heuristic temperaments and the battle / rollout loops
that join them with these rules live in ``agents/heuristics/sistema_2d10_kernel.py``
(rules never import agents).

* :func:`export_scenario` turns a :class:`Scenario` into the constant arrays (stat
  blocks, weapons and their damage dice, the map, the scenario's tables file — S2-12,
  S2-13, S2-15 — and the exact-odds tables the heuristic compares, built from the
  engine's own ``exact`` functions).
* :func:`export_state` turns a :class:`BattleState` into the per-battle arrays (cost
  about one clone) and :func:`read_back` a finished battle into a :class:`KernelBattle`.
* The dice are drawn from :mod:`escaramuza.rules.core.mt` (CPython's MT19937) in the
  engine's order, so one seed plays one battle on both.
* Every value is checked on its way in (``rules.core.kernel.check_range``; the bounds
  below and docs/fast-path.md, "The kernel boundary"): the compiled code indexes by these
  numbers without bounds checks and adds and multiplies them in int64.

The flow of an attack (roll, Dados Exprés, active defence, damage, Aguante, GDF) is the
engine's chain of calls unrolled into a small loop of steps (:func:`run`): numba does not
compile mutually recursive functions, and each step is one engine function.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from escaramuza.rules.core import mt
from escaramuza.rules.core.jit import njit, sort_in_place
from escaramuza.rules.core.kernel import BOUND, KernelRefusal, check_range
from escaramuza.rules.sistema_2d10 import exact
from escaramuza.rules.sistema_2d10.combat import profile
from escaramuza.rules.sistema_2d10.stats import MELEE
from escaramuza.rules.sistema_2d10.tables import GDF_EFFECTS, LOCATIONS, load_tables

# -- codes --------------------------------------------------------------------------

#: Verbs, in ``Sistema2d10.verbs`` order.
ATACAR, MOVER, CEDER_DADO, DEFENSA_COMPLETA, PASAR = 0, 1, 2, 3, 4
DEFENDER, NO_DEFENDER, GASTAR_DADO, NO_GASTAR = 5, 6, 7, 8
VERB_NAMES = (
    "atacar",
    "mover",
    "ceder_dado",
    "defensa_completa",
    "pasar",
    "defender",
    "no_defender",
    "gastar_dado",
    "no_gastar",
)
#: Pending decisions (``combat.TURN`` …); -1 none.
TURN, ACTIVE_DEFENCE, EXPRES_BEFORE, EXPRES_AFTER = 0, 1, 2, 3
DECISION_NAMES = ("turn", "active_defence", "expres_before", "expres_after")
#: Roll purposes (``combat.ATAQUE`` …).
ATAQUE, DEFENSA, AGUANTE = 0, 1, 2
PURPOSES = ("ataque", "defensa", "aguante")
#: Statuses.
ACTIVE, DOWN, DEAD = 0, 1, 2
STATUS_NAMES = ("active", "down", "dead")
#: Outcome reasons.
REASONS = ("defeated", "mutual", "timeout")
#: Temperaments (agents.heuristic.TEMPERAMENTS order).
TEMPERAMENTS = ("tactician", "brute", "cautious", "coward", "protector", "random")
RANDOM_TEMPERAMENT = 5

#: Conditions: the two stuns, the stacking effects, moribundo, full defence, then
#: ``incapacitado`` and one ``incapacitado_<location>`` per S2-12 location.
AT, AT16, SANGRADO, DERRIBADO, MORIBUNDO, DEFCOMP, INCAP = 0, 1, 2, 3, 4, 5, 6
NCOND = 15
#: GDF effects (tables.GDF_EFFECTS order).
G_ATURDIDO, G_SANGRADO, G_INCAP, G_DERRIBADO, G_INCONSCIENTE, G_MORIBUNDO = 0, 1, 2, 3, 4, 5
#: Condition durations: 0 none (a plain condition), 1 hasta_sanar, 2 siguiente_turno.
U_NONE, U_HEALED, U_NEXT = 0, 1, 2

# Static combatant fields (P).
P_SIDE, P_TEMP, P_PVMAX, P_ACC, P_EXTRA, P_CA, P_DXMAX = 0, 1, 2, 3, 4, 5, 6
P_INI, P_DCAC, P_DDIST, P_AGU, P_NW, P_REACH, P_RANGED = 7, 8, 9, 10, 11, 12, 13
PF = 14
# Weapon fields (W).
W_TIPO, W_MHC, W_ALC, W_NT, W_MOD = 0, 1, 2, 3, 4
WF = 5
# Dynamic combatant fields (C).
C_PV, C_ACC, C_DEF, C_DX, C_STATUS, C_ZONE = 0, 1, 2, 3, 4, 5
C_CV = 6  # condition values
C_CH = C_CV + NCOND  # condition present
C_CU = C_CH + NCOND  # condition duration
C_DEALT = C_CU + NCOND
C_TOFOES, C_TAKEN, C_KO, C_DIED = C_DEALT + 1, C_DEALT + 2, C_DEALT + 3, C_DEALT + 4
CF = C_DEALT + 5
# Globals (G).
G_ROUND, G_TURN, G_FRESH, G_DONE, G_WINNER, G_REASON, G_ORND = 0, 1, 2, 3, 4, 5, 6
G_PEND, G_PACTOR = 7, 8
G_RACT, G_RPURP, G_RROLLER, G_RBONUS, G_RNF, G_RF0, G_REXP, G_RLOC = 9, 10, 11, 12, 13, 14, 17, 18
G_AACT, G_AATT, G_ATGT, G_AW, G_AAIM, G_ATOT, G_ACRIT = 19, 20, 21, 22, 23, 24, 25
G_DECISIONS = 26
G_ORDER = 27
# Tables and options (TB).
TB_LOCFACE, TB_LOCMULT = 0, 10  # per d10 face: location index, multiplier
TB_NAIM, TB_AIMLOC = 20, 21  # aimable locations in LOCATIONS order
TB_AIMMS = 29  # per location: aimed MS (0 when not aimable: ``aim_modifier(...) or 0``)
TB_MULT = 37  # per location: Tables.multiplier(location)
TB_GEFF, TB_GVAL, TB_GDUR, TB_GNT, TB_GMOD = 45, 55, 65, 75, 85  # per GDF face
TB_PGT, TB_AGT, TB_FULL, TB_AGDIFF, TB_STUN = 95, 96, 97, 98, 99
TB_LIMIT, TB_SURVIVE, TB_OUTCOUNT, TB_BLOCKMIN, TB_N, TB_HEROES = 100, 101, 102, 103, 104, 105
TB_SIZE = 106
#: Offset of ``difficulty - bonus`` in the success tables (SUCC), and its clipped range.
K_OFF, K_LO, K_HI = 10, -10, 40

# Flow steps of :func:`run`.
F_DONE, F_RESUME, F_START_ROLL, F_ROLL, F_ROLL_SPEND, F_FINISH_ROLL, F_LAND_HIT = range(7)

# -- the boundary (rules.core.kernel.check_range) -------------------------------------
#: Dice of one term (roll_expr keeps them in G's scratch tail) and their faces.
MAX_COUNT = 1 << 10
MAX_SIDES = 1 << 20
#: The largest magnitude of a damage roll (modifier and dice) and of a location's
#: multiplier: a hit deals their product (land_hit), at most 2**40.
MAX_DAMAGE = 1 << 30
MAX_MULTIPLIER = 1 << 10


# -- small rules --------------------------------------------------------------------
# G's tail is scratch (nothing here allocates: the kernel runs without numba's reference
# counts): after the initiative order, n words for start's keys, then room for the most
# dice of any damage or GDF term (Exported.new_arrays sizes it).


@njit(cache=True, inline="always", _nrt=False)
def scratch_of(C, G):
    """The dice scratch at the end of ``G`` (after the order and the initiative keys)."""
    return G[G_ORDER + 2 * C.shape[0] :]


@njit(cache=True, _nrt=False)
def roll_expr(dice, terms, nt, mod, scratch):
    """``DiceExpr.roll``: every die in term order, the kept highest of each term summed
    (``scratch``: room for the most dice of a term, :func:`scratch_of`)."""
    total = mod
    for t in range(nt):
        count, sides, keep, sign = terms[t, 0], terms[t, 1], terms[t, 2], terms[t, 3]
        part = 0
        if 0 < keep < count:
            rolled = scratch[:count]
            for d in range(count):
                rolled[d] = mt.roll(dice, sides)
            sort_in_place(rolled)
            for d in range(keep):
                part += rolled[count - 1 - d]
        else:
            for _ in range(count):
                part += mt.roll(dice, sides)
        total += sign * part
    return total


@njit(cache=True, inline="always", _nrt=False)
def judge(f0, f1, f2, nf, bonus, difficulty):
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
def succ(SUCC, mode, k):
    """P(success) in thousandths of 2d10 + bonus vs difficulty, ``k = difficulty - bonus``
    (``exact.skill_odds``; mode 0 no Dado Exprés, 1 "after")."""
    if k < K_LO:
        k = K_LO
    elif k > K_HI:
        k = K_HI
    return SUCC[mode, k + K_OFF]


@njit(cache=True, inline="always", _nrt=False)
def stun_penalty(C, i):
    """``combat.stun_penalty``: the worse of the two stuns (rules-notes S2-15)."""
    ms = 0
    for c in (AT, AT16):
        if C[i, C_CH + c] == 1 and C[i, C_CV + c] < ms:
            ms = C[i, C_CV + c]
    return ms


@njit(cache=True, inline="always", _nrt=False)
def limb_penalty(C, i):
    """``combat.limb_penalty``: every incapacitated part but a leg, to −10 at most."""
    ms = 0
    for c in range(INCAP, NCOND):
        # incapacitado_pierna_derecha / _izquierda are conditions INCAP+6, INCAP+7.
        if C[i, C_CH + c] == 1 and c != INCAP + 6 and c != INCAP + 7:
            ms += C[i, C_CV + c]
    return max(-10, ms)


@njit(cache=True, _nrt=False)
def lame(C, i):
    """S2-15 "No poder andar por tener una pierna incapacitada"."""
    return C[i, C_CH + INCAP + 6] == 1 or C[i, C_CH + INCAP + 7] == 1


@njit(cache=True, inline="always", _nrt=False)
def roll_penalty(C, i, physical):
    return stun_penalty(C, i) + (limb_penalty(C, i) if physical else 0)


@njit(cache=True, inline="always", _nrt=False)
def defence_of(P, i, tipo):
    return P[i, P_DCAC] if tipo == 0 else P[i, P_DDIST]


@njit(cache=True, inline="always", _nrt=False)
def defence_bonus(P, C, i, tipo):
    """``combat.defence_bonus`` (S2-08, S2-09)."""
    bonus = defence_of(P, i, tipo) + roll_penalty(C, i, True)
    if C[i, C_CH + DEFCOMP] == 1:
        bonus += C[i, C_CV + DEFCOMP]
    return bonus


@njit(cache=True, _nrt=False)
def set_cond(C, i, c, value, until):
    C[i, C_CH + c] = 1
    C[i, C_CV + c] = value
    C[i, C_CU + c] = until


@njit(cache=True, _nrt=False)
def del_cond(C, i, c):
    C[i, C_CH + c] = 0
    C[i, C_CV + c] = 0
    C[i, C_CU + c] = U_NONE


@njit(cache=True, _nrt=False)
def until_of(C, i, c, duration):
    """``combat._until``: a condition hit again lasts as long as the longer of the two."""
    if C[i, C_CH + c] == 1 and C[i, C_CU + c] == U_HEALED:
        return U_HEALED
    return duration


@njit(cache=True, _nrt=False)
def set_status(C, G, i, status):
    """``Ruleset.set_status`` with what ``playtest.record_from_events`` counts."""
    C[i, C_STATUS] = status
    if C[i, C_KO] < 0:
        C[i, C_KO] = G[G_ROUND]
    if status == DEAD:
        C[i, C_DIED] = 1


@njit(cache=True, _nrt=False)
def damaged(P, C, target, amount, source):
    """A ``Damaged`` event as the playtest record counts it (source -1: not a combatant)."""
    C[target, C_TAKEN] += amount
    if source >= 0:
        C[source, C_DEALT] += amount
        if P[source, P_SIDE] != P[target, P_SIDE]:
            C[source, C_TOFOES] += amount


@njit(cache=True, _nrt=False)
def finish(G, winner, reason):
    G[G_DONE] = 1
    G[G_WINNER] = winner
    G[G_REASON] = reason
    G[G_ORND] = G[G_ROUND]
    G[G_PEND] = -1


@njit(cache=True, _nrt=False)
def check_end(P, C, G):
    """``Ruleset.check_end``: one side with nobody able to fight ends the battle."""
    if G[G_DONE] == 1:
        return
    heroes = False
    enemies = False
    for i in range(C.shape[0]):
        if C[i, C_STATUS] == ACTIVE:
            if P[i, P_SIDE] == 0:
                heroes = True
            else:
                enemies = True
    if heroes and enemies:
        return
    if heroes:
        finish(G, 0, 0)
    elif enemies:
        finish(G, 1, 0)
    else:
        finish(G, -1, 1)


@njit(cache=True, _nrt=False)
def pend(G, kind, actor):
    G[G_PEND] = kind
    G[G_PACTOR] = actor


# -- turns and rounds ---------------------------------------------------------------


@njit(cache=True, _nrt=False)
def end_turn(C, i):
    """``combat.end_turn``: no actions left; one-turn conditions are over."""
    C[i, C_ACC] = 0
    for c in range(NCOND):
        if C[i, C_CH + c] == 1 and C[i, C_CU + c] == U_NEXT:
            del_cond(C, i, c)


@njit(cache=True, _nrt=False)
def begin_round(P, C, G, TB):
    """``Ruleset.begin_round``: the round counter and the scenario's round limit."""
    G[G_ROUND] += 1
    limit = TB[TB_LIMIT]
    if G[G_ROUND] > limit:
        G[G_ROUND] = limit
        winner = -1
        if TB[TB_SURVIVE] == 1:
            for i in range(C.shape[0]):
                if P[i, P_SIDE] == 0 and C[i, C_STATUS] == ACTIVE:
                    winner = 0
        finish(G, winner, 2)


@njit(cache=True, _nrt=False)
def round_start(P, C, G):
    """``combat._round_start``: defences back (S2-08/S2-10); moribundo counts down."""
    for i in range(C.shape[0]):
        if C[i, C_STATUS] == ACTIVE:
            C[i, C_DEF] = P[i, P_ACC]
        if C[i, C_CH + MORIBUNDO] == 1 and C[i, C_STATUS] == DOWN:
            left = C[i, C_CV + MORIBUNDO] - 1
            if left <= 0:
                del_cond(C, i, MORIBUNDO)
                set_status(C, G, i, DEAD)
            else:
                C[i, C_CV + MORIBUNDO] = left


@njit(cache=True, _nrt=False)
def start_turn(P, C, G, i):
    """``combat._start_turn``: full defence ends, derribado costs actions, sangrado bleeds."""
    if C[i, C_CH + DEFCOMP] == 1:
        del_cond(C, i, DEFCOMP)
    actions = P[i, P_ACC] + P[i, P_EXTRA]
    if C[i, C_CH + DERRIBADO] == 1:
        actions -= C[i, C_CV + DERRIBADO]
    C[i, C_ACC] = max(0, actions)
    if C[i, C_CH + SANGRADO] == 1:
        before = C[i, C_PV]
        C[i, C_PV] = max(0, before - C[i, C_CV + SANGRADO])
        damaged(P, C, i, before - C[i, C_PV], -1)
        if C[i, C_PV] == 0:
            set_status(C, G, i, DOWN)
            check_end(P, C, G)


@njit(cache=True, _nrt=False)
def next_turn(P, C, G, TB):
    """``combat.next_turn``: the next combatant in initiative order who can act (S2-06)."""
    n = C.shape[0]
    G[G_AACT] = 0
    while True:
        G[G_TURN] += 1
        if G[G_TURN] >= n:
            begin_round(P, C, G, TB)
            if G[G_DONE] == 1:
                return
            round_start(P, C, G)
            G[G_TURN] = 0
        i = G[G_ORDER + G[G_TURN]]
        if C[i, C_STATUS] != ACTIVE:
            continue
        start_turn(P, C, G, i)
        if G[G_DONE] == 1:
            return
        if C[i, C_STATUS] == ACTIVE and C[i, C_ACC] > 0:
            G[G_FRESH] = 1
            pend(G, TURN, i)
            return
        if C[i, C_STATUS] == ACTIVE:
            end_turn(C, i)


@njit(cache=True, _nrt=False)
def resume(P, C, G, TB):
    """``combat.resume``: the turn back to its owner, or on to the next turn."""
    check_end(P, C, G)
    if G[G_DONE] == 1:
        return F_DONE
    i = G[G_ORDER + G[G_TURN]]
    if C[i, C_STATUS] == ACTIVE and C[i, C_ACC] > 0:
        pend(G, TURN, i)
        return F_DONE
    end_turn(C, i)
    next_turn(P, C, G, TB)
    return F_DONE


@njit(cache=True, _nrt=False)
def start(P, C, G, TB, dice):
    """``Sistema2d10.start``: initiative 2d10 + MHC(Reflejos + Sentidos) (S2-06), ties in
    scenario order, then the first turn."""
    n = C.shape[0]
    keys = G[G_ORDER + n : G_ORDER + 2 * n]  # scratch (scratch_of)
    for i in range(n):
        a = mt.roll(dice, 10)
        b = mt.roll(dice, 10)
        total = a + b + P[i, P_INI]
        # sorted by (-total, index): one integer key, -total * n + index, the index
        # breaking ties and read back as the key modulo n (floored, as Python's).
        keys[i] = -total * n + i
    sort_in_place(keys)
    for k in range(n):
        G[G_ORDER + k] = keys[k] % n
    G[G_ROUND] = 0
    G[G_TURN] = n - 1
    next_turn(P, C, G, TB)


# -- the attack ---------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def difficulty_of(P, W, G, TB):
    """``combat._difficulty`` of the roll in flight."""
    purpose = G[G_RPURP]
    if purpose == ATAQUE:
        tipo = W[G[G_AATT], G[G_AW], W_TIPO]
        return 10 + defence_of(P, G[G_ATGT], tipo) + TB[TB_PGT]
    if purpose == DEFENSA:
        return G[G_ATOT] + TB[TB_AGT]
    return TB[TB_AGDIFF]


@njit(cache=True, _nrt=False)
def judge_pending(P, W, G, TB):
    return judge(
        G[G_RF0], G[G_RF0 + 1], G[G_RF0 + 2], G[G_RNF], G[G_RBONUS], difficulty_of(P, W, G, TB)
    )


@njit(cache=True, _nrt=False)
def expres_can_matter(P, W, C, G, TB):
    """``combat.expres_can_matter``: an after-roll Dado Exprés only where it can change
    something (never on a crítico or a pifia, S2-03)."""
    total, success, critical, fumble = judge_pending(P, W, G, TB)
    if critical or fumble:
        return False
    purpose = G[G_RPURP]
    if purpose == ATAQUE:
        if not success:
            return True
        t = G[G_ATGT]
        return C[t, C_STATUS] == ACTIVE and C[t, C_DEF] > 0
    if purpose == DEFENSA:
        return (not success) and G[G_ACRIT] == 0
    return total <= TB[TB_AGDIFF]


@njit(cache=True, _nrt=False)
def new_roll(G, purpose, roller, bonus, location):
    G[G_RACT] = 1
    G[G_RPURP] = purpose
    G[G_RROLLER] = roller
    G[G_RBONUS] = bonus
    G[G_RNF] = 0
    G[G_RF0] = 0
    G[G_RF0 + 1] = 0
    G[G_RF0 + 2] = 0
    G[G_REXP] = 0
    G[G_RLOC] = location


@njit(cache=True, _nrt=False)
def start_roll(C, G):
    """``combat.start_roll`` (S2-05 "antes ... de realizar la tirada")."""
    r = G[G_RROLLER]
    if C[r, C_DX] > 0:
        pend(G, EXPRES_BEFORE, r)
        return F_DONE
    return F_ROLL


@njit(cache=True, _nrt=False)
def roll_dice(P, W, C, G, TB, dice, spend):
    """``combat.roll_dice``: two d10, the Dado Exprés if spent before; then the
    after-roll offer (S2-05 "o después de realizar la tirada")."""
    r = G[G_RROLLER]
    G[G_RF0] = mt.roll(dice, 10)
    G[G_RF0 + 1] = mt.roll(dice, 10)
    G[G_RNF] = 2
    if spend:
        C[r, C_DX] -= 1
        G[G_RF0 + 2] = mt.roll(dice, 10)
        G[G_RNF] = 3
        G[G_REXP] = 1
    if (not spend) and C[r, C_DX] > 0 and expres_can_matter(P, W, C, G, TB):
        pend(G, EXPRES_AFTER, r)
        return F_DONE
    return F_FINISH_ROLL


@njit(cache=True, _nrt=False)
def expres_decided(C, G, dice, spend):
    """``combat.expres_decided``."""
    if G[G_RNF] == 0:
        return F_ROLL_SPEND if spend else F_ROLL
    if not spend:
        return F_FINISH_ROLL
    C[G[G_RROLLER], C_DX] -= 1
    G[G_RF0 + 2] = mt.roll(dice, 10)
    G[G_RNF] = 3
    G[G_REXP] = 1
    return F_FINISH_ROLL


@njit(cache=True, _nrt=False)
def begin_attack(P, W, C, G, TB, attacker, target, weapon, aim):
    """``combat.begin_attack``: the attack roll, MHC + aimed MS (S2-13) + conditions."""
    aim_ms = TB[TB_AIMMS + aim] if aim >= 0 else 0
    ms = aim_ms + roll_penalty(C, attacker, True)
    G[G_AACT] = 1
    G[G_AATT] = attacker
    G[G_ATGT] = target
    G[G_AW] = weapon
    G[G_AAIM] = aim
    G[G_ATOT] = 0
    G[G_ACRIT] = 0
    new_roll(G, ATAQUE, attacker, W[attacker, weapon, W_MHC] + ms, -1)
    return F_START_ROLL


@njit(cache=True, _nrt=False)
def attack_judged(P, W, C, G, TB):
    """``combat._attack_judged``: a miss, the active-defence offer (S2-08) or the hit."""
    total, success, critical, fumble = judge_pending(P, W, G, TB)
    if not success:
        G[G_AACT] = 0
        return F_RESUME
    G[G_ATOT] = total
    G[G_ACRIT] = 1 if critical else 0
    t = G[G_ATGT]
    if C[t, C_STATUS] == ACTIVE and C[t, C_DEF] > 0:
        pend(G, ACTIVE_DEFENCE, t)
        return F_DONE
    return F_LAND_HIT


@njit(cache=True, _nrt=False)
def defence_decided(P, W, C, G, defend):
    """``combat.defence_decided``: each active defence spends one of the round's."""
    if not defend:
        return F_LAND_HIT
    t = G[G_ATGT]
    C[t, C_DEF] -= 1
    tipo = W[G[G_AATT], G[G_AW], W_TIPO]
    new_roll(G, DEFENSA, t, defence_bonus(P, C, t, tipo), -1)
    return F_START_ROLL


@njit(cache=True, _nrt=False)
def defence_judged(P, W, C, G, TB):
    """``combat._defence_judged``: *(default)* a crítico is only blocked by a crítico."""
    total, success, critical, fumble = judge_pending(P, W, G, TB)
    blocked = critical if G[G_ACRIT] == 1 else success
    if blocked:
        G[G_AACT] = 0
        return F_RESUME
    return F_LAND_HIT


@njit(cache=True, _nrt=False)
def land_hit(P, W, DT, C, G, TB, dice):
    """``combat.land_hit``: S2-11 damage − CA, S2-12 location (S2-13 when aimed)."""
    G[G_AACT] = 0
    a, t, w, aim = G[G_AATT], G[G_ATGT], G[G_AW], G[G_AAIM]
    raw = roll_expr(dice, DT[a, w], W[a, w, W_NT], W[a, w, W_MOD], scratch_of(C, G))
    absorbed = max(0, raw - P[t, P_CA])
    if aim >= 0:
        location = aim
        multiplier = TB[TB_MULT + aim]
    else:
        face = mt.roll(dice, 10)
        location = TB[TB_LOCFACE + face - 1]
        multiplier = TB[TB_LOCMULT + face - 1]
    return take_damage(P, C, G, TB, t, absorbed * multiplier, a, location)


@njit(cache=True, _nrt=False)
def take_damage(P, C, G, TB, t, damage, source, location):
    """``combat.take_damage``: 0 PV is down; half or more of the PV calls for Aguante (S2-14)."""
    before = C[t, C_PV]
    C[t, C_PV] = max(0, before - damage)
    after = C[t, C_PV]
    damaged(P, C, t, before - after, source)
    if after == 0:
        set_status(C, G, t, DOWN)
        return F_RESUME
    if damage > 0 and 2 * damage >= before:
        new_roll(G, AGUANTE, t, P[t, P_AGU] + roll_penalty(C, t, False), location)
        return F_START_ROLL
    return F_RESUME


@njit(cache=True, _nrt=False)
def stun(C, i, c, ms, duration):
    """``combat.stun``: the same stun twice keeps the worse MS and the longer duration."""
    value = min(ms, C[i, C_CV + c]) if C[i, C_CH + c] == 1 else ms
    set_cond(C, i, c, value, until_of(C, i, c, duration))


@njit(cache=True, _nrt=False)
def stack(C, i, c, value, duration):
    """``combat._stack``: sangrado and derribado add up (to 99)."""
    old = C[i, C_CV + c] if C[i, C_CH + c] == 1 else 0
    set_cond(C, i, c, min(99, value + old), until_of(C, i, c, duration))


@njit(cache=True, _nrt=False)
def apply_gdf(C, G, TB, i, face, location):
    """``combat.apply_gdf`` (S2-15), each row's duration from the tables file; moribundo,
    which rolls its dice, is :func:`aguante_judged`'s."""
    f = face - 1
    kind, value, duration = TB[TB_GEFF + f], TB[TB_GVAL + f], TB[TB_GDUR + f]
    if kind == G_ATURDIDO:
        stun(C, i, AT, value, duration)
    elif kind == G_SANGRADO:
        stack(C, i, SANGRADO, value, duration)
    elif kind == G_DERRIBADO:
        stack(C, i, DERRIBADO, value, duration)
    elif kind == G_INCAP:
        # "El miembro afectado queda inutilizado", by where the blow landed (S2-12).
        c = INCAP + 1 + location if location >= 0 else INCAP
        leg = c == INCAP + 6 or c == INCAP + 7
        v = 0 if leg else value
        if C[i, C_CH + c] == 1:
            v = min(v, C[i, C_CV + c])
        set_cond(C, i, c, v, until_of(C, i, c, duration))
    elif kind == G_INCONSCIENTE:
        set_status(C, G, i, DOWN)


@njit(cache=True, _nrt=False)
def aguante_judged(P, W, C, G, TB, GD, dice):
    """``combat._aguante_judged`` (S2-14): above 16 nothing, exactly 16 stuns for the next
    turn, below it (or a pifia) the GDF table (S2-15)."""
    i = G[G_RROLLER]
    total, success, critical, fumble = judge_pending(P, W, G, TB)
    diff = TB[TB_AGDIFF]
    if critical or ((not fumble) and total > diff):
        return F_RESUME
    if (not fumble) and total == diff:
        stun(C, i, AT16, TB[TB_STUN], U_NEXT)
        return F_RESUME
    face = mt.roll(dice, 10)
    f = face - 1
    if TB[TB_GEFF + f] == G_MORIBUNDO:
        turns = roll_expr(dice, GD[f], TB[TB_GNT + f], TB[TB_GMOD + f], scratch_of(C, G))
        set_cond(C, i, MORIBUNDO, turns, U_NONE)
        set_status(C, G, i, DOWN)
    else:
        apply_gdf(C, G, TB, i, face, G[G_RLOC])
    return F_RESUME


@njit(cache=True, _nrt=False)
def finish_roll(P, W, C, G, TB, GD, dice):
    G[G_RACT] = 0
    purpose = G[G_RPURP]
    if purpose == ATAQUE:
        return attack_judged(P, W, C, G, TB)
    if purpose == DEFENSA:
        return defence_judged(P, W, C, G, TB)
    return aguante_judged(P, W, C, G, TB, GD, dice)


@njit(cache=True, _nrt=False)
def run(P, W, DT, C, G, TB, GD, dice, step):
    """The engine's chain of calls from ``step`` to the next decision or the end."""
    while step != F_DONE:
        if step == F_RESUME:
            step = resume(P, C, G, TB)
        elif step == F_START_ROLL:
            step = start_roll(C, G)
        elif step == F_ROLL:
            step = roll_dice(P, W, C, G, TB, dice, False)
        elif step == F_ROLL_SPEND:
            step = roll_dice(P, W, C, G, TB, dice, True)
        elif step == F_FINISH_ROLL:
            step = finish_roll(P, W, C, G, TB, GD, dice)
        else:
            step = land_hit(P, W, DT, C, G, TB, dice)


@njit(cache=True, _nrt=False)
def apply(P, W, DT, C, G, TB, GD, dice, verb, target, item, option, zone):
    """``Sistema2d10.apply`` for one coded action, then on to the next decision."""
    if verb == DEFENDER or verb == NO_DEFENDER:
        G[G_PEND] = -1
        run(P, W, DT, C, G, TB, GD, dice, defence_decided(P, W, C, G, verb == DEFENDER))
        return
    if verb == GASTAR_DADO or verb == NO_GASTAR:
        G[G_PEND] = -1
        G[G_RACT] = 0
        run(P, W, DT, C, G, TB, GD, dice, expres_decided(C, G, dice, verb == GASTAR_DADO))
        return
    a = G[G_PACTOR]
    G[G_PEND] = -1
    G[G_FRESH] = 0
    if verb == ATACAR:
        C[a, C_ACC] -= 1
        run(P, W, DT, C, G, TB, GD, dice, begin_attack(P, W, C, G, TB, a, target, item, option))
        return
    if verb == MOVER:
        # *(default)* moving one zone step costs one action.
        C[a, C_ACC] -= 1
        C[a, C_ZONE] = zone
    elif verb == CEDER_DADO:
        C[a, C_ACC] -= 1
        C[a, C_DX] -= 1
        C[target, C_DX] += 1
    elif verb == DEFENSA_COMPLETA:
        # S2-09 "pasar su turno sin hacer otra cosa que defenderse: Obtendrá un +3".
        set_cond(C, a, DEFCOMP, TB[TB_FULL], U_NONE)
        C[a, C_ACC] = 0
    else:
        C[a, C_ACC] = 0
    run(P, W, DT, C, G, TB, GD, dice, F_RESUME)


# -- exact odds (exact.attack_odds over arrays) ---------------------------------------


@njit(cache=True, _nrt=False)
def hit_count(SUCC, attack_bonus, need, has_defence, defence, block_gt):
    """``exact.hit_probability`` (no Dado Exprés) as an integer over 100,000: each of the
    100 attack outcomes that beats the defensa pasiva weighs 1,000 less the thousandths
    the active defence blocks (10 against a crítico: only a crítico blocks it)."""
    n = 0
    for a in range(1, 11):
        for b in range(1, 11):
            total, success, critical, fumble = judge(a, b, 0, 2, attack_bonus, need)
            if not success:
                continue
            if not has_defence:
                n += 1000
            elif critical:
                n += 990
            else:
                n += 1000 - succ(SUCC, 0, total + block_gt - defence)
    return n


#: :func:`hit_count` depends only on x = need − attack bonus (constant outside 2…21: every
#: non-pifia hits, or only a crítico) and z = attack bonus + ``gt`` − defence (constant
#: outside −18…19, where the block chance is the same for every attack total).
X_LO, X_HI, Z_LO, Z_HI = 2, 21, -18, 19


def hit_table(SUCC: np.ndarray) -> np.ndarray:
    """:func:`hit_count` for every (x, z), column 0 with no active defence."""
    out = np.zeros((X_HI - X_LO + 1, Z_HI - Z_LO + 2), np.int64)
    for x in range(X_LO, X_HI + 1):
        out[x - X_LO, 0] = hit_count(SUCC, 0, x, False, 0, 0)
        for z in range(Z_LO, Z_HI + 1):
            out[x - X_LO, 1 + z - Z_LO] = hit_count(SUCC, 0, x, True, -z, 0)
    return out


@njit(cache=True, inline="always", _nrt=False)
def hit_lookup(HIT, bonus, need, has_defence, defence, block_gt):
    """:func:`hit_count` from :func:`hit_table`."""
    x = min(max(need - bonus, X_LO), X_HI) - X_LO
    if not has_defence:
        return HIT[x, 0]
    z = min(max(bonus + block_gt - defence, Z_LO), Z_HI) - Z_LO
    return HIT[x, 1 + z]


@njit(cache=True, inline="always", _nrt=False)
def attack_terms(P, W, C, TB, SUCC, a, w, t):
    """What ``Sistema2d10._aimed_odds`` works out once per (attacker, target, weapon):
    (bonus before the aimed MS, need, has active defence, its bonus, P(pain knock-out))."""
    tipo = W[a, w, W_TIPO]
    has_defence = C[t, C_STATUS] == ACTIVE and C[t, C_DEF] > 0
    defence = defence_bonus(P, C, t, tipo) if has_defence else 0
    bonus = W[a, w, W_MHC] + roll_penalty(C, a, True)
    need = 10 + defence_of(P, t, tipo) + TB[TB_PGT]
    aguante = P[t, P_AGU] + roll_penalty(C, t, False)
    fail = 1000 - succ(SUCC, 0, TB[TB_AGDIFF] - aguante)
    p_pain_out = (np.float64(fail) / 1000.0) * (np.float64(TB[TB_OUTCOUNT]) / 10.0)
    return bonus, need, has_defence, defence, p_pain_out


@njit(cache=True, inline="always", _nrt=False)
def aimed_odds(C, TB, HIT, HDV, HDP, HDN, a, w, t, aim, terms):
    """``exact.attack_odds`` for one aim (-1 free, else a location) from
    :func:`attack_terms`: (p_hit, expected_damage, p_drop), the same floats as the engine
    — exact integers where it has Fractions, then its float operations in its order."""
    bonus, need, has_defence, defence, p_pain_out = terms
    if aim >= 0:
        bonus += TB[TB_AIMMS + aim]
    n = hit_lookup(HIT, bonus, need, has_defence, defence, TB[TB_AGT])
    p_hit = np.float64(n) / 100000.0
    pv = C[t, C_PV]
    slot = aim + 1
    expected = 0.0
    p_drop = 0.0
    for m in range(HDN[a, w, t, slot]):
        dealt = HDV[a, w, t, slot, m]
        pq = p_hit * HDP[a, w, t, slot, m]
        if dealt > 0 and pq > 0.0:
            expected = expected + np.float64(dealt) * pq
        if dealt >= pv:
            p_drop += pq
        elif dealt > 0 and 2 * dealt >= pv:
            p_drop += pq * p_pain_out
    return p_hit, expected, p_drop


@njit(cache=True, inline="always", _nrt=False)
def attack_odds(P, W, C, TB, SUCC, HIT, HDV, HDP, HDN, a, w, t, aim):
    """``Sistema2d10.attack_odds`` (free when ``aim`` is -1, else at location ``aim``)."""
    terms = attack_terms(P, W, C, TB, SUCC, a, w, t)
    return aimed_odds(C, TB, HIT, HDV, HDP, HDN, a, w, t, aim, terms)


# -- export and read-back (plain Python, once per scenario / state) -------------------

_COND_NAMES: tuple[str, ...] = ()


def cond_names() -> tuple[str, ...]:
    """Condition names by code (the engine's strings)."""
    global _COND_NAMES
    if not _COND_NAMES:
        from escaramuza.rules.sistema_2d10 import combat

        _COND_NAMES = (
            combat.STUNNED,
            combat.STUNNED_16,
            "sangrado",
            "derribado",
            "moribundo",
            "defensa_completa",
            *combat.INCAPACITATED_NAMES,
        )
        assert len(_COND_NAMES) == NCOND
    return _COND_NAMES


def check_dice(expr, what: str) -> None:  # type: ignore[no-untyped-def]
    """A damage or GDF expression within what the kernel rolls and tabulates."""
    largest = abs(expr.modifier)
    for term in expr.terms:
        check_range(term.count, 1, MAX_COUNT, f"{what}: dice count")
        check_range(term.sides, 1, MAX_SIDES, f"{what}: faces")
        check_range(term.keep or 0, 0, term.count, f"{what}: dice kept")
        check_range(term.sign, -1, 1, f"{what}: sign")
        largest += term.count * term.sides
    check_range(largest, 0, MAX_DAMAGE, f"{what}: {expr.text!r} at most")


def check_scenario(scenario, profiles, tables) -> None:  # type: ignore[no-untyped-def]
    """The scenario's numbers against the module's bounds (KernelRefusal naming the
    field): stat blocks, weapons and their damage dice, the tables file, the options."""
    check_range(scenario.round_limit, 1, BOUND, "round_limit")
    options = scenario.options
    for name in ("full_defence_bonus", "aguante_difficulty", "stun_penalty"):
        check_range(int(getattr(options, name)), -BOUND, BOUND, name)
    for f, loc in enumerate(tables.location_by_face):
        check_range(loc.multiplier, 0, MAX_MULTIPLIER, f"tables: face {f + 1} multiplier")
    for name, ms in tables.aimed:
        check_range(ms, -BOUND, BOUND, f"tables: aimed {name}")
        check_range(tables.multiplier(name), 0, MAX_MULTIPLIER, f"tables: {name} multiplier")
    for f, e in enumerate(tables.gdf_by_face):
        check_range(e.value, -BOUND, BOUND, f"tables: GDF face {f + 1} value")
        if e.dice is not None:
            check_dice(e.dice, f"tables: GDF face {f + 1}")
    for c, prof in zip(scenario.combatants, profiles, strict=True):
        stats = c.stats
        for name in ("pv", "acciones", "defensas", "dados_expres"):
            check_range(c.maxima[name], 0, BOUND, f"{c.id}: maximum {name}")
        check_range(c.maxima["pv"], 1, BOUND, f"{c.id}: maximum pv")
        for name, value in (
            ("actions", stats.actions),
            ("extra_actions", stats.extra_actions),
            ("ca", stats.ca),
        ):
            check_range(value, 0, BOUND, f"{c.id}: {name}")
        for name in ("iniciativa", "defensa_cac", "defensa_dist", "aguante"):
            check_range(getattr(prof, name), -BOUND, BOUND, f"{c.id}: {name}")
        check_range(len(prof.weapons), 1, BOUND, f"{c.id}: weapons")
        for wp in prof.weapons:
            check_range(wp.mhc, -BOUND, BOUND, f"{c.id}: {wp.name} mhc")
            check_range(wp.reach, 0, BOUND, f"{c.id}: {wp.name} reach")
            check_range(
                wp.damage.modifier, -MAX_DAMAGE, MAX_DAMAGE, f"{c.id}: {wp.name} damage modifier"
            )
            check_dice(wp.damage, f"{c.id}: {wp.name} damage")


class Exported:
    """A scenario as the kernel reads it: constant arrays plus the names to read back."""

    def __init__(self, scenario) -> None:  # type: ignore[no-untyped-def]
        self.scenario = scenario
        combatants = list(scenario.combatants)
        self.ids = tuple(c.id for c in combatants)
        self.sides = tuple(c.side for c in combatants)
        bf = scenario.battlefield
        self.zone_ids = tuple(bf.zone_ids)
        n = len(combatants)
        tables = load_tables(scenario.options.tables)
        self.tables = tables
        profiles = [profile(c) for c in combatants]
        maxw = max(len(p.weapons) for p in profiles)
        maxt = max(max(len(w.damage.terms) for w in p.weapons) for p in profiles)
        for e in tables.gdf_by_face:
            if e.dice is not None:
                maxt = max(maxt, len(e.dice.terms))
        maxt = max(maxt, 1)
        self.loc_index = {name: k for k, name in enumerate(LOCATIONS)}
        self.profiles = profiles
        check_scenario(scenario, profiles, tables)
        P, W, DT = self._export_combatants(combatants, profiles, maxw, maxt)
        self.ZD, self.ZN, self.ZE, self.ZX = self._export_map(bf)
        TB, GD = self._export_tables(scenario, tables, maxt, n)
        SUCC, self.HDV, self.HDP, self.HDN = self._export_odds(combatants, profiles, tables, maxw)
        self.P, self.W, self.DT, self.TB, self.GD, self.SUCC = P, W, DT, TB, GD, SUCC
        #: The most dice of one term (roll_expr's scratch).
        self.max_dice = max(1, int(DT[..., 0].max(initial=0)), int(GD[..., 0].max(initial=0)))
        self.HIT = hit_table(SUCC)

    def _export_combatants(self, combatants, profiles, maxw, maxt):  # type: ignore[no-untyped-def]
        """Stat blocks (P), weapons (W) and their damage dice (DT)."""
        n = len(combatants)
        P = np.zeros((n, PF), np.int64)
        W = np.zeros((n, maxw, WF), np.int64)
        DT = np.zeros((n, maxw, maxt, 4), np.int64)
        for i, (c, prof) in enumerate(zip(combatants, profiles, strict=True)):
            stats = c.stats
            P[i, P_SIDE] = 0 if c.side.value == "heroes" else 1
            P[i, P_TEMP] = TEMPERAMENTS.index(c.temperament) if c.temperament in TEMPERAMENTS else 0
            P[i, P_PVMAX] = c.maxima["pv"]
            P[i, P_ACC] = stats.actions
            P[i, P_EXTRA] = stats.extra_actions
            P[i, P_CA] = stats.ca
            P[i, P_DXMAX] = c.maxima["dados_expres"]
            P[i, P_INI] = prof.iniciativa
            P[i, P_DCAC] = prof.defensa_cac
            P[i, P_DDIST] = prof.defensa_dist
            P[i, P_AGU] = prof.aguante
            P[i, P_NW] = len(prof.weapons)
            P[i, P_REACH] = max(w.reach for w in prof.weapons)
            P[i, P_RANGED] = max((w.reach for w in prof.weapons if w.reach > 0), default=0)
            for k, wp in enumerate(prof.weapons):
                W[i, k, W_TIPO] = 0 if wp.kind == MELEE else 1
                W[i, k, W_MHC] = wp.mhc
                W[i, k, W_ALC] = wp.reach
                W[i, k, W_NT] = len(wp.damage.terms)
                W[i, k, W_MOD] = wp.damage.modifier
                for m, term in enumerate(wp.damage.terms):
                    DT[i, k, m] = (term.count, term.sides, term.keep or 0, term.sign)
        return P, W, DT

    def _export_map(self, bf):  # type: ignore[no-untyped-def]
        """Distances, neighbours in map order, exits and each zone's hops to an exit."""
        nz = len(self.zone_ids)
        zindex = {z: k for k, z in enumerate(self.zone_ids)}
        ZD = np.zeros((nz, nz), np.int64)
        maxdeg = max(1, max(len(bf.neighbours(z)) for z in self.zone_ids))
        ZN = np.full((nz, maxdeg), -1, np.int64)
        ZE = np.zeros(nz, np.int64)
        ZX = np.zeros(nz, np.int64)
        exits = bf.exits()
        for a, za in enumerate(self.zone_ids):
            for b, zb in enumerate(self.zone_ids):
                ZD[a, b] = bf.distance(za, zb)
            for m, zb in enumerate(bf.neighbours(za)):
                ZN[a, m] = zindex[zb]
            ZE[a] = 1 if bf.zones[za].exit else 0
            ZX[a] = min((bf.distance(za, e) for e in exits), default=0)
        return ZD, ZN, ZE, ZX

    def _export_tables(self, scenario, tables, maxt, n):  # type: ignore[no-untyped-def]
        """The scenario's tables file (S2-12, S2-13, S2-15) and options (TB, GD)."""
        options = scenario.options
        TB = np.zeros(TB_SIZE, np.int64)
        loc_index = self.loc_index
        for f, loc in enumerate(tables.location_by_face):
            TB[TB_LOCFACE + f] = loc_index[loc.name]
            TB[TB_LOCMULT + f] = loc.multiplier
        self.aims = tuple(loc_index[name] for name, _ in tables.aimed)
        TB[TB_NAIM] = len(self.aims)
        for k, (name, ms) in enumerate(tables.aimed):
            TB[TB_AIMLOC + k] = loc_index[name]
            TB[TB_AIMMS + loc_index[name]] = ms
        for name, k in loc_index.items():
            TB[TB_MULT + k] = tables.multiplier(name)
        GD = np.zeros((10, maxt, 4), np.int64)
        for f, e in enumerate(tables.gdf_by_face):
            TB[TB_GEFF + f] = GDF_EFFECTS.index(e.effect)
            TB[TB_GVAL + f] = e.value
            TB[TB_GDUR + f] = U_HEALED if e.duration == "hasta_sanar" else U_NEXT
            if e.dice is not None:
                TB[TB_GNT + f] = len(e.dice.terms)
                TB[TB_GMOD + f] = e.dice.modifier
                for m, term in enumerate(e.dice.terms):
                    GD[f, m] = (term.count, term.sides, term.keep or 0, term.sign)
        TB[TB_PGT] = 1 if options.passive_beats == "gt" else 0
        TB[TB_AGT] = 1 if options.active_blocks == "gt" else 0
        TB[TB_FULL] = int(options.full_defence_bonus)
        TB[TB_AGDIFF] = int(options.aguante_difficulty)
        TB[TB_STUN] = int(options.stun_penalty)
        TB[TB_LIMIT] = scenario.round_limit
        TB[TB_SURVIVE] = 1 if scenario.victory == "survive" else 0
        TB[TB_OUTCOUNT] = sum(
            1 for e in tables.gdf_by_face if e.effect in ("inconsciente", "moribundo")
        )
        TB[TB_N] = n
        return TB, GD

    def _export_odds(self, combatants, profiles, tables, maxw):  # type: ignore[no-untyped-def]
        """The engine's exact odds as integer tables: skill successes (SUCC) and each
        attack's hit damage distribution (HDV/HDP/HDN), from ``exact`` itself."""
        n = len(combatants)
        loc_index = self.loc_index
        # exact.skill_odds success in thousandths, by difficulty − bonus (all that matters).
        SUCC = np.zeros((2, K_HI - K_LO + 1), np.int64)
        for m, mode in enumerate(("none", "after")):
            for k in range(K_LO, K_HI + 1):
                p = exact.skill_odds(0, k, mode).p_success * 1000  # type: ignore[arg-type]
                assert isinstance(p, Fraction) and p.denominator == 1
                SUCC[m, k + K_OFF] = int(p)
        # exact.hit_damage_distribution for every (attacker, weapon, target, free|aim).
        slots = 1 + len(LOCATIONS)
        cases = {}
        width = 1
        for a, pa in enumerate(profiles):
            for w, wp in enumerate(pa.weapons):
                for t, ct in enumerate(combatants):
                    ca = ct.stats.ca
                    cases[a, w, t, 0] = exact.hit_damage_distribution(
                        wp.damage, ca, tables.multipliers
                    )
                    for name, _ in tables.aimed:
                        cases[a, w, t, 1 + loc_index[name]] = exact.hit_damage_distribution(
                            wp.damage, ca, (tables.multiplier(name),)
                        )
                    width = max(width, *(len(v) for v in cases.values()))
        HDV = np.zeros((n, maxw, n, slots, width), np.int64)
        HDP = np.zeros((n, maxw, n, slots, width), np.float64)
        HDN = np.zeros((n, maxw, n, slots), np.int64)
        for (a, w, t, s), dist in cases.items():
            HDN[a, w, t, s] = len(dist)
            for m, (dealt, q) in enumerate(dist):
                HDV[a, w, t, s, m] = dealt
                HDP[a, w, t, s, m] = q
        return SUCC, HDV, HDP, HDN

    def new_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """C and G of a battle not yet started (``new_battle`` before ``start``)."""
        n = len(self.ids)
        C = np.zeros((n, CF), np.int64)
        for i, c in enumerate(self.scenario.combatants):
            self._export_resources(C, i, c)
            C[i, C_ZONE] = self.zone_ids.index(c.zone)
            C[i, C_KO] = -1
        G = np.zeros(G_ORDER + 2 * n + self.max_dice, np.int64)  # scratch_of
        G[G_PEND] = -1
        G[G_WINNER] = -1
        G[G_RLOC] = -1
        G[G_AAIM] = -1
        return C, G

    def export_state(self, state) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
        """C and G of an engine state (counters from zero); :class:`KernelRefusal` for
        what the kernel cannot hold."""
        n = len(self.ids)
        if len(state.combatants) != n:
            raise KernelRefusal("the state's combatants are not the scenario's")
        C, G = self.new_arrays()
        index = {cid: i for i, cid in enumerate(self.ids)}
        for i, c in enumerate(state.combatants):
            self._export_combatant(C, i, c)
        # The order is every combatant once (start sorts them all) and the turn one of its
        # entries: the compiled turns read G[G_ORDER + turn] without bounds checks.
        order = tuple(state.order)
        if sorted(order) != sorted(self.ids):
            raise KernelRefusal(f"turn order {list(order)} is not every combatant once")
        check_range(state.round, 1, int(self.TB[TB_LIMIT]), "round")
        check_range(state.turn, 0, n - 1, "turn")
        G[G_ROUND] = state.round
        G[G_TURN] = state.turn
        for k, cid in enumerate(order):
            G[G_ORDER + k] = index[cid]
        data = state.data
        G[G_FRESH] = 1 if data.get("fresh") else 0
        if state.outcome is not None:
            raise KernelRefusal("the battle is over")
        pending = state.pending
        if pending is None:
            raise KernelRefusal("no pending decision")
        G[G_PEND] = DECISION_NAMES.index(pending.name)
        G[G_PACTOR] = index[pending.actor]
        if pending.side != self.sides[G[G_PACTOR]]:
            raise KernelRefusal("the pending decision's side is not its actor's")
        attack = data.get("attack")
        if attack is not None:
            self._export_attack(G, index, attack)
        roll = data.get("roll")
        if roll is not None:
            G[G_RACT] = 1
            G[G_RPURP] = PURPOSES.index(roll.purpose)
            G[G_RROLLER] = index[roll.roller]
            check_range(roll.bonus, -BOUND, BOUND, "the roll's bonus")
            G[G_RBONUS] = roll.bonus
            check_range(len(roll.faces), 0, 3, "the roll's dice")
            check_range(tuple(roll.faces), 1, 10, "the roll's faces")
            G[G_RNF] = len(roll.faces)
            for k, f in enumerate(roll.faces):
                G[G_RF0 + k] = f
            G[G_REXP] = 1 if roll.expres else 0
            G[G_RLOC] = -1 if roll.location is None else self.loc_index[roll.location]
        self._check_pending(G, attack, roll, index[order[state.turn]])
        if n and data.get("tables") is not None and data["tables"] != self.tables:
            raise KernelRefusal("the state's tables are not the scenario's")
        return C, G

    def _export_attack(self, G: np.ndarray, index: dict[str, int], attack) -> None:  # type: ignore[no-untyped-def]
        """The attack in flight (``data["attack"]``) into G."""
        G[G_AACT] = 1
        G[G_AATT] = index[attack.attacker]
        G[G_ATGT] = index[attack.target]
        G[G_AW] = [w.name for w in self.profiles[G[G_AATT]].weapons].index(attack.weapon)
        G[G_AAIM] = -1 if attack.aim is None else self.loc_index[attack.aim]
        check_range(attack.total, -BOUND, BOUND, "the attack's total")
        G[G_ATOT] = attack.total
        G[G_ACRIT] = 1 if attack.critical else 0

    @staticmethod
    def _check_pending(G: np.ndarray, attack, roll, turn_actor: int) -> None:  # type: ignore[no-untyped-def]
        """The pending decision is the one the state waits on: a turn its owner's, an
        active defence the attack's target's, a Dado Exprés the roller's (and a roll of
        an attack or its defence with the attack in flight)."""
        kind, actor = G[G_PEND], G[G_PACTOR]
        if kind == TURN:
            ok = actor == turn_actor
        elif kind == ACTIVE_DEFENCE:
            ok = attack is not None and G[G_ATGT] == actor
        else:
            ok = (
                roll is not None
                and G[G_RROLLER] == actor
                and (G[G_RPURP] == AGUANTE or attack is not None)
            )
        if not ok:
            raise KernelRefusal(f"pending {DECISION_NAMES[kind]!r}: not what the state waits on")

    def _export_resources(self, C: np.ndarray, i: int, c) -> None:  # type: ignore[no-untyped-def]
        """Row ``i``'s resources, each within 0 and its maximum (the scenario's)."""
        if c.maxima != self.scenario.combatants[i].maxima:
            raise KernelRefusal(f"{c.id}'s maxima differ from the scenario's")
        for k, key in enumerate(("pv", "acciones", "defensas", "dados_expres")):
            check_range(c.resources[key], 0, c.maxima[key], f"{c.id}: {key}")
            C[i, k] = c.resources[key]

    def _export_combatant(self, C: np.ndarray, i: int, c) -> None:  # type: ignore[no-untyped-def]
        names = cond_names()
        if c.id != self.ids[i]:
            raise KernelRefusal(f"combatant {c.id!r} is not the scenario's #{i}")
        if set(c.resources) != {"pv", "acciones", "defensas", "dados_expres"}:
            raise KernelRefusal(f"{c.id}: resources {sorted(c.resources)}")
        self._export_resources(C, i, c)
        if c.status.value not in STATUS_NAMES:
            raise KernelRefusal(f"{c.id} is {c.status.value}: not a Sistema 2d10 status")
        C[i, C_STATUS] = STATUS_NAMES.index(c.status.value)
        C[i, C_ZONE] = self.zone_ids.index(c.zone)
        for name, cond in c.conditions.items():
            if name not in names:
                raise KernelRefusal(f"{c.id}'s condition {name!r} is not one the kernel plays")
            code = names.index(name)
            until = {None: U_NONE, "hasta_sanar": U_HEALED, "siguiente_turno": U_NEXT}
            if cond.until not in until:
                raise KernelRefusal(f"{c.id}'s {name} lasts {cond.until!r}")
            check_range(cond.value, -BOUND, BOUND, f"{c.id}: {name} value")
            set_cond(C, i, code, int(cond.value), until[cond.until])

    def read_back_many(self, seeds, Cs: np.ndarray, Gs: np.ndarray) -> list:  # type: ignore[no-untyped-def,type-arg]
        """:meth:`read_back` of a batch. Reading back element by element cost as much as
        playing the duel, so each distinct combatant row (status, zone, resources,
        conditions) is turned into its tuples once (keyed by its bytes) and the rest goes
        to one list per battle."""
        from escaramuza.rules.core.kernel import KernelBattle

        names = cond_names()
        n = len(self.ids)
        heroes = [i for i in range(n) if self.P[i, P_SIDE] == 0]
        columns = [
            C_STATUS,
            C_ZONE,
            C_ACC,
            C_DX,
            C_DEF,
            C_PV,
            *range(C_CH, C_CH + NCOND),
            *range(C_CV, C_CV + NCOND),
        ]
        flat = np.ascontiguousarray(Cs[:, :, columns]).reshape(-1, len(columns))
        first: dict[bytes, int] = {}
        inverse = [
            first.setdefault(b, len(first))
            for b in flat.view(np.dtype((np.void, 8 * len(columns)))).ravel().tolist()
        ]
        rows = [np.frombuffer(b, np.int64).tolist() for b in first]
        # Per distinct row: (status, zone, resources, conditions), as the engine names them.
        table = [
            (
                STATUS_NAMES[r[0]],
                self.zone_ids[r[1]],
                (("acciones", r[2]), ("dados_expres", r[3]), ("defensas", r[4]), ("pv", r[5])),
                tuple(sorted((names[c], r[6 + NCOND + c]) for c in range(NCOND) if r[6 + c])),
            )
            for r in rows
        ]
        # One list per battle: outcome, then ko rounds, deaths, dealt, to foes, taken.
        record = np.concatenate(
            (
                Gs[:, [G_WINNER, G_REASON, G_ORND, G_DECISIONS]],
                *(Cs[:, :, f] for f in (C_KO, C_DIED, C_DEALT, C_TOFOES, C_TAKEN)),
            ),
            axis=1,
        ).tolist()
        out = []
        for j, (seed, g) in enumerate(zip(seeds, record, strict=True)):
            idx = inverse[j * n : (j + 1) * n]
            statuses, zones, resources, conditions = zip(*[table[i] for i in idx], strict=True)
            winner = g[0]
            out.append(
                KernelBattle(
                    seed=int(seed),
                    winner=None if winner < 0 else ("heroes" if winner == 0 else "enemies"),
                    reason=REASONS[g[1]],
                    rounds=g[2],
                    wipe=bool(heroes) and all(statuses[i] != "active" for i in heroes),
                    decisions=g[3],
                    statuses=statuses,
                    zones=zones,
                    resources=resources,
                    conditions=conditions,
                    ko_round=tuple(g[4 : 4 + n]),
                    died=tuple(map(bool, g[4 + n : 4 + 2 * n])),
                    dealt=tuple(g[4 + 2 * n : 4 + 3 * n]),
                    dealt_to_foes=tuple(g[4 + 3 * n : 4 + 4 * n]),
                    taken=tuple(g[4 + 4 * n : 4 + 5 * n]),
                )
            )
        return out

    def read_back(self, seed: int, C: np.ndarray, G: np.ndarray):  # type: ignore[no-untyped-def]
        """The :class:`KernelBattle` of a finished battle."""
        return self.read_back_many([seed], C[None], G[None])[0]
