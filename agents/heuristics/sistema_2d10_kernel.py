"""The Sistema 2d10 temperaments compiled with numba, and the battle / rollout loops.

architecture.md, "The fast path": ``agents/heuristics/sistema_2d10.py`` function by
function over the arrays of ``rules/sistema_2d10/kernel.py``, drawing the agents'
choices from the same MT19937 stream as ``agents.runner.agent_rng`` (and, in rollouts,
from ``random.Random(seed)`` as ``MCTS._descend`` does), so a kernel battle is the
engine's battle. Decisions compare the same numbers as the engine: the exact odds are
built from the same integer counts and the same float operations in the same order
(``kernel.attack_odds``), the Fraction thresholds as integer thresholds computed here
from the heuristic's own constants.

:data:`KERNEL` implements :class:`escaramuza.rules.core.kernel.Kernel` for the driver.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from escaramuza.agents.heuristics.sistema_2d10 import BLOCK_THRESHOLD, HURT_THRESHOLD
from escaramuza.rules.core import mt
from escaramuza.rules.core.jit import copy_into, njit
from escaramuza.rules.core.kernel import (
    KERNEL_AGENTS,
    WINNERS,
    BattleColumns,
    KernelBattle,
    KernelRefusal,
    RolloutBatch,
    refusing,
)
from escaramuza.rules.sistema_2d10 import kernel as k
from escaramuza.rules.sistema_2d10.kernel import (
    ACTIVE,
    ACTIVE_DEFENCE,
    AGUANTE,
    ATACAR,
    C_DX,
    C_PV,
    C_STATUS,
    C_ZONE,
    CEDER_DADO,
    DEFENDER,
    DEFENSA_COMPLETA,
    EXPRES_AFTER,
    EXPRES_BEFORE,
    G_AATT,
    G_ACRIT,
    G_ATGT,
    G_ATOT,
    G_AW,
    G_DECISIONS,
    G_DONE,
    G_FRESH,
    G_PACTOR,
    G_PEND,
    G_ROUND,
    G_RPURP,
    G_WINNER,
    GASTAR_DADO,
    MOVER,
    NO_DEFENDER,
    NO_GASTAR,
    P_DXMAX,
    P_NW,
    P_PVMAX,
    P_RANGED,
    P_REACH,
    P_SIDE,
    P_TEMP,
    PASAR,
    RANDOM_TEMPERAMENT,
    TB_AGT,
    TB_AIMLOC,
    TB_BLOCKMIN,
    TB_NAIM,
    TURN,
    W_ALC,
    W_TIPO,
)

if TYPE_CHECKING:
    from escaramuza.rules.core.model import Action
    from escaramuza.rules.core.scenario import Scenario
    from escaramuza.rules.core.state import BattleState

TACTICIAN, BRUTE, CAUTIOUS, COWARD, PROTECTOR = 0, 1, 2, 3, 4
#: Agent codes: the random agent, the heuristic by scenario temperament, else a
#: temperament code (0 … 5) for the whole side.
AGENT_RANDOM, AGENT_SCENARIO = -2, -1
#: ``MAX_DECISIONS`` of agents.runner: the engine raises past it; so does the kernel.
MAX_DECISIONS = 200_000
#: Move keys (``_best_move``'s ``key``), by temperament rule.
K_CLOSE, K_NEAR, K_AWAY, K_FLEE, K_GUARD = 0, 1, 2, 3, 4


# -- legal actions ------------------------------------------------------------------


@njit(cache=True, _nrt=False, inline="always")
def legal(K, C, G, A):
    """``Sistema2d10.legal_actions`` in the engine's order, coded (verb, target, weapon,
    aim location or -1 for ``libre``, zone) into ``A``; returns how many."""
    P, W, DT, TB, GD, SUCC, ZD, ZN, ZE, ZX, HDV, HDP, HDN, HURT, HIT = K
    pend = G[G_PEND]
    a = G[G_PACTOR]
    if pend == ACTIVE_DEFENCE:
        _put(A, 0, DEFENDER, a, -1, -1, -1)
        _put(A, 1, NO_DEFENDER, a, -1, -1, -1)
        return 2
    if pend == EXPRES_BEFORE or pend == EXPRES_AFTER:
        _put(A, 0, GASTAR_DADO, a, -1, -1, -1)
        _put(A, 1, NO_GASTAR, a, -1, -1, -1)
        return 2
    n = C.shape[0]
    cnt = 0
    here = C[a, C_ZONE]
    for w in range(P[a, P_NW]):
        for f in range(n):
            if C[f, C_STATUS] == ACTIVE and P[f, P_SIDE] != P[a, P_SIDE]:
                if ZD[here, C[f, C_ZONE]] <= W[a, w, W_ALC]:
                    _put(A, cnt, ATACAR, f, w, -1, -1)
                    cnt += 1
                    for m in range(TB[TB_NAIM]):
                        _put(A, cnt, ATACAR, f, w, TB[TB_AIMLOC + m], -1)
                        cnt += 1
    if not k.lame(C, a):
        for m in range(ZN.shape[1]):
            if ZN[here, m] < 0:
                break
            _put(A, cnt, MOVER, -1, -1, -1, ZN[here, m])
            cnt += 1
    if C[a, C_DX] > 0:
        for c in range(n):
            if (
                P[c, P_SIDE] == P[a, P_SIDE]
                and C[c, C_STATUS] == ACTIVE
                and c != a
                and C[c, C_DX] < P[c, P_DXMAX]
            ):
                _put(A, cnt, CEDER_DADO, c, -1, -1, -1)
                cnt += 1
    if G[G_FRESH] == 1:
        _put(A, cnt, DEFENSA_COMPLETA, -1, -1, -1, -1)
        cnt += 1
    _put(A, cnt, PASAR, -1, -1, -1, -1)
    return cnt + 1


@njit(cache=True, _nrt=False)
def _put(A, i, verb, target, item, option, zone):
    A[i, 0] = verb
    A[i, 1] = target
    A[i, 2] = item
    A[i, 3] = option
    A[i, 4] = zone


# -- reading the field --------------------------------------------------------------


@njit(cache=True, _nrt=False)
def short_of(K, C, c, zone, reach):
    """The fewest hops beyond ``reach`` from ``zone`` to an active foe (0 with none)."""
    P, ZD = K[0], K[6]
    best = -1
    for f in range(C.shape[0]):
        if C[f, C_STATUS] == ACTIVE and P[f, P_SIDE] != P[c, P_SIDE]:
            d = max(0, ZD[zone, C[f, C_ZONE]] - reach)
            if best < 0 or d < best:
                best = d
    return 0 if best < 0 else best


@njit(cache=True, _nrt=False)
def nearest(K, C, c, zone):
    """``_nearest``: hops from ``zone`` to the nearest active foe (0 with none)."""
    return short_of(K, C, c, zone, 0)


@njit(cache=True, _nrt=False)
def gap(K, C, c, zone):
    """``_gap``: hops still to cover before the nearest foe is in reach of a weapon."""
    return short_of(K, C, c, zone, K[0][c, P_REACH])


@njit(cache=True, _nrt=False)
def can_shoot_from(K, C, c, zone):
    """``_can_shoot_from``: a ranged weapon reaches a foe not in ``zone``."""
    P, ZD = K[0], K[6]
    ranged = P[c, P_RANGED]
    if ranged == 0:
        return False
    for f in range(C.shape[0]):
        if C[f, C_STATUS] == ACTIVE and P[f, P_SIDE] != P[c, P_SIDE]:
            d = ZD[zone, C[f, C_ZONE]]
            if 0 < d <= ranged:
                return True
    return False


@njit(cache=True, _nrt=False)
def hurt(K, C, c):
    return C[c, C_PV] * 2 < K[0][c, P_PVMAX]


@njit(cache=True, _nrt=False)
def very_hurt(K, C, c):
    return C[c, C_PV] * 3 <= K[0][c, P_PVMAX]


@njit(cache=True, _nrt=False)
def side_broken(K, C, c):
    P = K[0]
    mine = 0
    out = 0
    for a in range(C.shape[0]):
        if P[a, P_SIDE] == P[c, P_SIDE]:
            mine += 1
            if C[a, C_STATUS] != ACTIVE:
                out += 1
    return out * 2 >= mine


@njit(cache=True, _nrt=False)
def odds(K, C, a, w, t, aim):
    P, W, DT, TB, GD, SUCC, ZD, ZN, ZE, ZX, HDV, HDP, HDN, HURT, HIT = K
    return k.attack_odds(P, W, C, TB, SUCC, HIT, HDV, HDP, HDN, a, w, t, aim)


@njit(cache=True, _nrt=False)
def score(C, t, p_hit, expected, p_drop):
    """``tactical_score``: P(drop) + min(P(hit), E[damage] / PV)."""
    value = expected / np.float64(max(1, C[t, C_PV]))
    return p_drop + (value if value < p_hit else p_hit)


@njit(cache=True, _nrt=False)
def best_attack(K, C, actor, A, S, F, idx, cnt, arng):
    """``_best_attack`` over ``A[idx[:cnt]]``: the best tactical score if > 0 (ties by
    ``rng.randrange``); -1 for none."""
    if cnt == 0:
        return -1
    P, W, DT, TB, GD, SUCC, ZD, ZN, ZE, ZX, HDV, HDP, HDN, HURT, HIT = K
    scores = F
    best = -np.inf
    # The aimed variants of one (target, weapon) are listed together: their shared
    # terms once, as Sistema2d10.odds_many does.
    t_last, w_last = A[idx[0], 1], A[idx[0], 2]
    terms = k.attack_terms(P, W, C, TB, SUCC, actor, w_last, t_last)
    for m in range(cnt):
        i = idx[m]
        t, w = A[i, 1], A[i, 2]
        if t != t_last or w != w_last:
            terms = k.attack_terms(P, W, C, TB, SUCC, actor, w, t)
            t_last, w_last = t, w
        p_hit, expected, p_drop = k.aimed_odds(
            C, TB, HIT, HDV, HDP, HDN, actor, w, t, A[i, 3], terms
        )
        scores[m] = score(C, t, p_hit, expected, p_drop)
        if m == 0 or scores[m] > best:
            best = scores[m]
    if best <= 0:
        return -1
    top = S[4]
    ntop = 0
    for m in range(cnt):
        if scores[m] >= best - 1e-12:
            top[ntop] = idx[m]
            ntop += 1
    if ntop > 1:
        return top[mt.randbelow(arng, ntop)]
    return top[0]


@njit(cache=True, _nrt=False)
def move_key(K, C, c, zone, kind, threat):
    """The ``key`` of each ``_best_move`` caller, as a 3-integer tuple."""
    P, ZD, ZE, ZX = K[0], K[6], K[8], K[9]
    if kind == K_CLOSE:
        return -gap(K, C, c, zone), 0, 0
    if kind == K_NEAR:
        return -nearest(K, C, c, zone), 0, 0
    if kind == K_AWAY:
        return nearest(K, C, c, zone), 1 if can_shoot_from(K, C, c, zone) else 0, 0
    if kind == K_FLEE:
        return ZE[zone], nearest(K, C, c, zone), -ZX[zone]
    return -max(0, ZD[zone, C[threat, C_ZONE]] - P[c, P_REACH]), 0, 0


@njit(cache=True, _nrt=False)
def greater(a0, a1, a2, b0, b1, b2):
    if a0 != b0:
        return a0 > b0
    if a1 != b1:
        return a1 > b1
    return a2 > b2


@njit(cache=True, _nrt=False)
def best_move(K, C, c, A, idx, cnt, kind, threat):
    """``_best_move``: the first move with the highest key, if it beats staying."""
    if cnt == 0:
        return -1
    best = idx[0]
    b0, b1, b2 = move_key(K, C, c, A[best, 4], kind, threat)
    for m in range(1, cnt):
        x0, x1, x2 = move_key(K, C, c, A[idx[m], 4], kind, threat)
        if greater(x0, x1, x2, b0, b1, b2):
            best = idx[m]
            b0, b1, b2 = x0, x1, x2
    h0, h1, h2 = move_key(K, C, c, C[c, C_ZONE], kind, threat)
    return best if greater(b0, b1, b2, h0, h1, h2) else -1


@njit(cache=True, _nrt=False)
def of_verb(A, cnt, verb, out):
    """``_verb``: indices of the actions of ``verb``, in order; returns how many."""
    m = 0
    for i in range(cnt):
        if A[i, 0] == verb:
            out[m] = i
            m += 1
    return m


@njit(cache=True, _nrt=False)
def by_verb(A, cnt, verb):
    """``_by_verb``: the first action of ``verb``, -1 for none."""
    for i in range(cnt):
        if A[i, 0] == verb:
            return i
    return -1


@njit(cache=True, _nrt=False)
def full_or_pass(A, cnt):
    i = by_verb(A, cnt, DEFENSA_COMPLETA)
    if i >= 0:
        return i
    i = by_verb(A, cnt, PASAR)
    return i if i >= 0 else cnt - 1


@njit(cache=True, _nrt=False)
def close_in(K, C, c, A, S, F, cnt):
    moves = S[3]
    nm = of_verb(A, cnt, MOVER, moves)
    return best_move(K, C, c, A, moves, nm, K_CLOSE, -1)


# -- reactions ----------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def defend(K, C, G, temperament):
    """``_defend``: 0 (defender) or 1 (no_defender)."""
    P, W, DT, TB, GD, SUCC, ZD, ZN, ZE, ZX, HDV, HDP, HDN, HURT, HIT = K
    a, w, t = G[G_AATT], G[G_AW], G[G_ATGT]
    tipo = W[a, w, W_TIPO]
    if G[G_ACRIT] == 1:
        blocks = 10  # Fraction(1, 100): only a crítico blocks a crítico
    else:
        mode = 1 if C[t, C_DX] > 0 else 0
        blocks = k.succ(SUCC, mode, G[G_ATOT] + TB[TB_AGT] - k.defence_bonus(P, C, t, tipo))
    hurts = HURT[a, w, t]
    if temperament == CAUTIOUS or temperament == COWARD or temperament == PROTECTOR:
        worth = hurts > 0
    else:
        worth = hurts >= HURT_THRESHOLD
    return 0 if worth and blocks >= TB[TB_BLOCKMIN] else 1


@njit(cache=True, _nrt=False)
def expres(K, G):
    """``_expres``: 0 (gastar) after the roll when the die flips it ≥ 40 % of the time."""
    P, W, TB = K[0], K[1], K[3]
    if G[G_PEND] != EXPRES_AFTER:
        return 1
    total, success, critical, fumble = k.judge_pending(P, W, G, TB)
    difficulty = k.difficulty_of(P, W, G, TB)
    if critical or fumble:
        flip = 0.0
    elif G[G_RPURP] == AGUANTE and total == difficulty:
        flip = 1.0
    elif success:
        flip = 0.0
    else:
        need = difficulty - total
        flip = max(0, 11 - need) / 10 if need <= 10 else 0.0
    return 0 if flip >= 0.4 else 1


# -- temperaments -------------------------------------------------------------------


@njit(cache=True, _nrt=False, inline="always")
def tactician(K, C, c, A, S, F, cnt, arng):
    attacks = S[0]
    na = of_verb(A, cnt, ATACAR, attacks)
    i = best_attack(K, C, c, A, S, F, attacks, na, arng)
    if i >= 0:
        return i
    i = close_in(K, C, c, A, S, F, cnt)
    if i >= 0:
        return i
    if C[c, C_DX] >= 2:
        for j in range(cnt):
            if A[j, 0] == CEDER_DADO and C[A[j, 1], C_DX] == 0:
                return j
    return full_or_pass(A, cnt)


@njit(cache=True, _nrt=False, inline="always")
def brute(K, C, c, A, S, F, cnt):
    P, W, DT, TB, GD, SUCC, ZD, ZN, ZE, ZX, HDV, HDP, HDN, HURT, HIT = K
    attacks = S[0]
    na = of_verb(A, cnt, ATACAR, attacks)
    if na > 0:
        here = C[c, C_ZONE]
        near = -1
        for m in range(na):
            d = ZD[here, C[A[attacks[m], 1], C_ZONE]]
            if near < 0 or d < near:
                near = d
        best = -1
        best_v = 0.0
        t_last, w_last = A[attacks[0], 1], A[attacks[0], 2]
        terms = k.attack_terms(P, W, C, TB, SUCC, c, w_last, t_last)
        for m in range(na):
            i = attacks[m]
            t, w = A[i, 1], A[i, 2]
            if ZD[here, C[t, C_ZONE]] != near:
                continue
            if t != t_last or w != w_last:
                terms = k.attack_terms(P, W, C, TB, SUCC, c, w, t)
                t_last, w_last = t, w
            v = k.aimed_odds(C, TB, HIT, HDV, HDP, HDN, c, w, t, A[i, 3], terms)[1]
            if best < 0 or v > best_v:
                best = i
                best_v = v
        return best
    moves = S[1]
    nm = of_verb(A, cnt, MOVER, moves)
    i = best_move(K, C, c, A, moves, nm, K_NEAR, -1)
    if i >= 0:
        return i
    i = by_verb(A, cnt, PASAR)
    return i if i >= 0 else cnt - 1


@njit(cache=True, _nrt=False, inline="always")
def cautious(K, C, c, A, S, F, cnt, arng, advance):
    ZD = K[6]
    full = by_verb(A, cnt, DEFENSA_COMPLETA)
    if very_hurt(K, C, c) and full >= 0:
        return full
    moves = S[1]
    nm = of_verb(A, cnt, MOVER, moves)
    is_hurt = hurt(K, C, c)
    if is_hurt:
        away = best_move(K, C, c, A, moves, nm, K_AWAY, -1)
        if away >= 0:
            return away
        if full >= 0:
            return full
    attacks = S[0]
    na = of_verb(A, cnt, ATACAR, attacks)
    here = C[c, C_ZONE]
    if nearest(K, C, c, here) == 0 and not is_hurt:
        # Keep the firearm's range: step out of contact to a zone it can still shoot from.
        for m in range(nm):
            z = A[moves[m], 4]
            if nearest(K, C, c, z) > 0 and can_shoot_from(K, C, c, z):
                return moves[m]
    ranged = S[2]
    nr = 0
    for m in range(na):
        if ZD[here, C[A[attacks[m], 1], C_ZONE]] > 0:
            ranged[nr] = attacks[m]
            nr += 1
    i = best_attack(K, C, c, A, S, F, ranged, nr, arng)
    if i < 0:
        i = best_attack(K, C, c, A, S, F, attacks, na, arng)
    if i >= 0:
        return i
    if advance:
        i = close_in(K, C, c, A, S, F, cnt)
        if i >= 0:
            return i
    return full_or_pass(A, cnt)


@njit(cache=True, _nrt=False, inline="always")
def coward(K, C, c, A, S, F, cnt, arng):
    """The coward hurt or on a broken side (otherwise it plays the cautious temperament,
    without advancing: :func:`choose` sends it there, so the inlined cautious is
    compiled once)."""
    here = nearest(K, C, c, C[c, C_ZONE])
    # "never advances": only steps that keep at least the current distance.
    safe = S[2]
    ns = 0
    for i in range(cnt):
        if A[i, 0] == MOVER and nearest(K, C, c, A[i, 4]) >= here:
            safe[ns] = i
            ns += 1
    i = best_move(K, C, c, A, safe, ns, K_FLEE, -1)
    if i >= 0:
        return i
    attacks = S[0]
    na = of_verb(A, cnt, ATACAR, attacks)
    i = best_attack(K, C, c, A, S, F, attacks, na, arng)
    return i if i >= 0 else full_or_pass(A, cnt)


@njit(cache=True, _nrt=False)
def threat_of(K, C, foe, ward):
    """``_threat``: the largest expected damage of a free attack ``foe`` can make on ``ward``."""
    P, W, ZD = K[0], K[1], K[6]
    d = ZD[C[foe, C_ZONE], C[ward, C_ZONE]]
    best = 0.0
    found = False
    for w in range(P[foe, P_NW]):
        if W[foe, w, W_ALC] >= d:
            v = odds(K, C, foe, w, ward, -1)[1]
            if not found or v > best:
                best = v
                found = True
    return best


@njit(cache=True, _nrt=False)
def ward_of(K, C, c):
    """The protector's ward: the most hurt active ally (lowest PV fraction), -1 for none."""
    P = K[0]
    ward = -1
    ward_v = 0.0
    for a in range(C.shape[0]):
        if P[a, P_SIDE] == P[c, P_SIDE] and C[a, C_STATUS] == ACTIVE and a != c:
            v = C[a, C_PV] / P[a, P_PVMAX]
            if ward < 0 or v < ward_v:
                ward = a
                ward_v = v
    return ward


@njit(cache=True, _nrt=False)
def threat_to(K, C, c, ward):
    """The foe with the largest (``_threat``, −distance to the ward), first on ties."""
    P, ZD = K[0], K[6]
    threat = -1
    t_v = 0.0
    t_d = 0
    for f in range(C.shape[0]):
        if C[f, C_STATUS] == ACTIVE and P[f, P_SIDE] != P[c, P_SIDE]:
            v = threat_of(K, C, f, ward)
            d = -ZD[C[f, C_ZONE], C[ward, C_ZONE]]
            if threat < 0 or v > t_v or (v == t_v and d > t_d):
                threat = f
                t_v = v
                t_d = d
    return threat


@njit(cache=True, _nrt=False)
def gift_of(K, C, c, A, cnt):
    """The protector's gift: to an ally holding fewer Dados Exprés, fewest first, then the
    most hurt (``min`` by (dados, PV fraction)); -1 for none."""
    P = K[0]
    gift = -1
    g_dx = 0
    g_v = 0.0
    for i in range(cnt):
        if A[i, 0] == CEDER_DADO:
            ally = A[i, 1]
            if C[ally, C_DX] < C[c, C_DX]:
                v = C[ally, C_PV] / P[ally, P_PVMAX]
                if gift < 0 or C[ally, C_DX] < g_dx or (C[ally, C_DX] == g_dx and v < g_v):
                    gift = i
                    g_dx = C[ally, C_DX]
                    g_v = v
    return gift


@njit(cache=True, _nrt=False, inline="always")
def protector(K, C, c, A, S, F, cnt, arng):
    ward = ward_of(K, C, c)
    threat = threat_to(K, C, c, ward) if ward >= 0 else -1
    attacks = S[0]
    na = of_verb(A, cnt, ATACAR, attacks)
    if threat >= 0:
        guard = S[2]
        ng = 0
        for m in range(na):
            if A[attacks[m], 1] == threat:
                guard[ng] = attacks[m]
                ng += 1
        i = best_attack(K, C, c, A, S, F, guard, ng, arng)
        if i >= 0:
            return i
    i = gift_of(K, C, c, A, cnt)
    if i >= 0:
        return i
    if threat >= 0:
        moves = S[1]
        nm = of_verb(A, cnt, MOVER, moves)
        i = best_move(K, C, c, A, moves, nm, K_GUARD, threat)
        if i >= 0:
            return i
    i = best_attack(K, C, c, A, S, F, attacks, na, arng)
    if i >= 0:
        return i
    i = close_in(K, C, c, A, S, F, cnt)
    return i if i >= 0 else full_or_pass(A, cnt)


@njit(cache=True, _nrt=False, inline="always")
def choose(K, C, G, A, S, F, cnt, arng, agent):
    """The agent's pick (``RandomAgent.act`` / ``heuristic_choice`` + ``choose``)."""
    if agent == AGENT_RANDOM:
        return mt.randbelow(arng, cnt)
    if cnt == 1:
        return 0
    actor = G[G_PACTOR]
    mood = agent if agent >= 0 else K[0][actor, P_TEMP]
    if mood == RANDOM_TEMPERAMENT:
        return mt.randbelow(arng, cnt)
    pend = G[G_PEND]
    if pend == ACTIVE_DEFENCE:
        return defend(K, C, G, mood)
    if pend == EXPRES_BEFORE or pend == EXPRES_AFTER:
        return expres(K, G)
    if mood == BRUTE:
        return brute(K, C, actor, A, S, F, cnt)
    advance = True
    if mood == COWARD:
        if hurt(K, C, actor) or side_broken(K, C, actor):
            return coward(K, C, actor, A, S, F, cnt, arng)
        mood = CAUTIOUS  # sistema_2d10.coward: "not hurt nor broken: cautious, no advance"
        advance = False
    if mood == CAUTIOUS:
        return cautious(K, C, actor, A, S, F, cnt, arng, advance)
    if mood == PROTECTOR:
        return protector(K, C, actor, A, S, F, cnt, arng)
    return tactician(K, C, actor, A, S, F, cnt, arng)


@njit(cache=True, _nrt=False, inline="always")
def step(K, C, G, A, i, dice):
    P, W, DT, TB, GD = K[0], K[1], K[2], K[3], K[4]
    k.apply(P, W, DT, C, G, TB, GD, dice, A[i, 0], A[i, 1], A[i, 2], A[i, 3], A[i, 4])


# -- whole battles and rollouts -------------------------------------------------------


# The loops, like every function here and in the rules' kernel, run without numba's
# reference counts (_nrt=False: each array passed or sliced paid a reference-count call
# pair); the caller allocates their scratch arrays (scratch()).
@njit(cache=True, _nrt=False)
def play_many(
    K, C0, G0, dice_keys, dice_len, keys, nkeys, agents, Cs, Gs, dice_lanes, agent_lanes, A, S, F
):
    """``agents.runner.play_battle`` for each seed; the final arrays into ``Cs``/``Gs``
    (``G_DONE`` is 2 when a battle passes ``MAX_DECISIONS``, where the engine raises).
    ``dice_lanes``, ``agent_lanes`` (mt.LANES generators each), ``A``, ``S``, ``F``:
    scratch."""
    P, TB = K[0], K[3]
    for s in range(dice_keys.shape[0]):
        C = Cs[s]
        G = Gs[s]
        copy_into(C, C0)
        copy_into(G, G0)
        # Both generators of eight battles are seeded together (mt.seed_lanes).
        if s % mt.LANES == 0:
            mt.seed_lanes(dice_lanes, dice_keys, dice_len, s)
            mt.seed_lanes(agent_lanes, keys, nkeys, s)
        dice = dice_lanes[s % mt.LANES]
        arng = agent_lanes[s % mt.LANES]
        k.start(P, C, G, TB, dice)
        decisions = 0
        while G[G_DONE] == 0:
            cnt = legal(K, C, G, A)
            i = choose(K, C, G, A, S, F, cnt, arng, agents[P[G[G_PACTOR], P_SIDE]])
            step(K, C, G, A, i, dice)
            decisions += 1
            if decisions > MAX_DECISIONS:
                G[G_DONE] = 2
                break
        G[G_DECISIONS] = decisions


@njit(cache=True, _nrt=False)
def side_strength(K, C, side):
    """``agents.search.side_strength`` (the same float operations, in order)."""
    P = K[0]
    total = 0.0
    n = 0
    for c in range(C.shape[0]):
        if P[c, P_SIDE] != side:
            continue
        n += 1
        if C[c, C_STATUS] != ACTIVE:
            continue
        top = P[c, P_PVMAX]
        frac = C[c, C_PV] / top if top > 0 else 1.0
        total += 0.5 + 0.5 * min(max(frac, 0.0), 1.0)
    return total / n if n else 0.0


# nogil: the planner splits a batch over threads (agents/search.py, _Rollouts._batch).
@njit(cache=True, nogil=True, _nrt=False)
def rollout_many(
    K,
    C0,
    G0,
    first,
    seed_keys,
    seed_len,
    stop,
    max_decisions,
    own,
    winner,
    finished,
    own_s,
    foe_s,
    actor_out,
    C,
    G,
    dice,
    arng,
    A,
    S,
    F,
):
    """``MCTS._descend`` with no tree, for each (first action, seed): the action on the
    dice of ``random.Random(seed)`` (its key words: ``mt.seed_keys``), then heuristic
    play with tie-breaks from a second ``random.Random(seed)``, to the end, round
    ``stop`` or ``max_decisions``. ``C``, ``G``, ``dice``, ``arng``, ``A``, ``S``,
    ``F``: scratch."""
    P = K[0]
    side = P[G0[G_PACTOR], P_SIDE]
    actor = G0[G_PACTOR]
    for x in range(first.shape[0]):
        for s in range(seed_keys.shape[0]):
            copy_into(C, C0)
            copy_into(G, G0)
            # Two generators seeded alike (MCTS._descend): seed one, copy it.
            mt.seed_key(dice, seed_keys[s, : seed_len[s]])
            copy_into(arng, dice)
            for j in range(5):
                A[0, j] = first[x, j]
            i = 0
            decisions = 0
            tracking = True
            left_turn = False
            out = False
            while True:
                step(K, C, G, A, i, dice)
                decisions += 1
                if tracking:
                    # _Walk.update for the root actor.
                    if G[G_DONE] == 1:
                        w = G[G_WINNER]
                        lost = (w >= 0 and w != P[actor, P_SIDE]) or (
                            w < 0 and C[actor, C_STATUS] != ACTIVE
                        )
                        out = lost or C[actor, C_STATUS] != ACTIVE
                        tracking = False
                    elif C[actor, C_STATUS] != ACTIVE:
                        out = True
                        tracking = False
                    elif G[G_PACTOR] != actor:
                        left_turn = True
                    elif left_turn and G[G_PEND] == TURN:
                        tracking = False
                if G[G_DONE] == 1 or G[G_ROUND] >= stop or decisions >= max_decisions:
                    break
                cnt = legal(K, C, G, A)
                deciding = P[G[G_PACTOR], P_SIDE]
                i = choose(K, C, G, A, S, F, cnt, arng, own if deciding == side else AGENT_SCENARIO)
            done = G[G_DONE] == 1
            finished[x, s] = done
            w = G[G_WINNER]
            winner[x, s] = 0 if (not done or w < 0) else (1 if w == side else -1)
            own_s[x, s] = side_strength(K, C, side)
            foe_s[x, s] = side_strength(K, C, 1 - side)
            actor_out[x, s] = out


# -- the Kernel protocol --------------------------------------------------------------


def _agent_code(spec: str) -> int | None:
    from escaramuza.agents.heuristic import TEMPERAMENTS

    if spec == "random":
        return AGENT_RANDOM
    if spec == "heuristic":
        return AGENT_SCENARIO
    temperament = spec.split(":", 1)[1] if spec.startswith("heuristic:") else spec
    if temperament in TEMPERAMENTS:
        return k.TEMPERAMENTS.index(temperament)
    return None


def _block_min() -> int:
    """The fewest thousandths ``p_block >= BLOCK_THRESHOLD`` accepts (a Fraction against a
    float, compared exactly as the engine compares them)."""
    return next(c for c in range(1002) if Fraction(c, 1000) >= BLOCK_THRESHOLD)


def scratch(maxa: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The loops' scratch for legal lists of up to ``maxa`` actions: the list, index
    lists (``_verb`` …) and scores."""
    return (
        np.zeros((maxa, 5), np.int64),
        np.zeros((5, maxa), np.int64),
        np.zeros(maxa, np.float64),
    )


class _Compiled:
    """A scenario's arrays for the compiled loops (built once per scenario)."""

    def __init__(self, scenario: Scenario) -> None:
        ex = k.Exported(scenario)
        self.ex = ex
        TB = ex.TB.copy()
        TB[TB_BLOCKMIN] = _block_min()
        # p_hurts: sum(p for v, p in dano.distribution().items() if v > ca), as the engine.
        n = len(ex.ids)
        maxw = ex.W.shape[1]
        hurt = np.zeros((n, maxw, n), np.float64)
        for a, prof in enumerate(ex.profiles):
            for w, wp in enumerate(prof.weapons):
                dist = wp.damage.distribution()
                for t, ct in enumerate(scenario.combatants):
                    ca = ct.stats.ca
                    hurt[a, w, t] = sum(p for v, p in dist.items() if v > ca)
        self.K = (
            ex.P,
            ex.W,
            ex.DT,
            TB,
            ex.GD,
            ex.SUCC,
            ex.ZD,
            ex.ZN,
            ex.ZE,
            ex.ZX,
            ex.HDV,
            ex.HDP,
            ex.HDN,
            hurt,
            ex.HIT,
        )
        self.maxa = int(maxw * n * (1 + len(ex.aims)) + ex.ZN.shape[1] + n + 2)


class Sistema2d10Kernel:
    """The Sistema 2d10 kernel (S2-01 … S2-15 and the five temperaments + random)."""

    ruleset_id = "sistema_2d10"

    def __init__(self) -> None:
        self._cache: dict[int, tuple[Any, _Compiled]] = {}

    def _compiled(self, scenario: Scenario) -> _Compiled:
        hit = self._cache.get(id(scenario))
        if hit is not None and hit[0] is scenario:
            return hit[1]
        comp = _Compiled(scenario)
        if len(self._cache) > 16:
            self._cache.clear()
        self._cache[id(scenario)] = (scenario, comp)
        return comp

    def refusal(self, scenario: Scenario, agents: Sequence[str]) -> str | None:
        if scenario.ruleset.id != self.ruleset_id:
            return f"the scenario's ruleset is {scenario.ruleset.id}, not {self.ruleset_id}"
        for spec in agents:
            if _agent_code(spec) is None:
                return (
                    f"agent {spec!r} is not one the kernel plays ({', '.join(KERNEL_AGENTS)}, "
                    "heuristic:T)"
                )
        for c in scenario.combatants:
            if c.id == "sangrado":
                # The engine's bleeding damage names "sangrado" as its source: a combatant
                # of that id would be credited with it.
                return "a combatant with id 'sangrado'"
            if not c.active or c.conditions:
                return f"{c.id} starts out of the fight or with conditions"
        try:
            # The kernel boundary: every number of the scenario within what the arrays and
            # int64 hold (rules.sistema_2d10.kernel.check_scenario, new_arrays).
            with refusing():
                self._compiled(scenario).ex.new_arrays()
        except KernelRefusal as exc:
            return str(exc)
        return None

    def play_battles(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> list[KernelBattle]:
        ex, Cs, Gs = self._play(scenario, agents, seeds)
        return ex.read_back_many(seeds, Cs, Gs)

    def play_columns(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> BattleColumns:
        ex, Cs, Gs = self._play(scenario, agents, seeds)
        winner = Gs[:, G_WINNER]  # -1 nobody, 0 the heroes, 1 the enemies
        heroes = [i for i in range(Cs.shape[1]) if ex.P[i, P_SIDE] == 0]
        # read_back_many's wipe: some heroes, none of them active at the end.
        wipe = (
            (Cs[:, heroes, C_STATUS] != ACTIVE).all(axis=1)
            if heroes
            else np.zeros(len(Gs), dtype=np.bool_)
        )
        return BattleColumns(
            winner=np.where(winner < 0, WINNERS.index(None), winner),
            reason=Gs[:, k.G_REASON],
            reasons=k.REASONS,
            rounds=Gs[:, k.G_ORND],
            wipe=wipe,
            ko_round=Cs[:, :, k.C_KO],
            died=Cs[:, :, k.C_DIED] != 0,
            dealt=Cs[:, :, k.C_DEALT],
            dealt_to_foes=Cs[:, :, k.C_TOFOES],
            taken=Cs[:, :, k.C_TAKEN],
        )

    def _play(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> tuple[Any, np.ndarray, np.ndarray]:
        """The scenario's export and the kernel's final arrays, one battle per seed."""
        why = self.refusal(scenario, agents)
        if why is not None:
            raise KernelRefusal(why)
        comp = self._compiled(scenario)
        ex = comp.ex
        codes = np.array([_agent_code(a) for a in agents], np.int64)
        seed_arr = np.array([int(s) for s in seeds], np.int64)
        if any(s < 0 or s >= 2**63 for s in seeds):
            raise KernelRefusal("seeds must be 0 … 2**63 - 1")
        keys, nkeys = mt.agent_keys(seeds)
        C0, G0 = ex.new_arrays()
        Cs = np.zeros((len(seeds), *C0.shape), np.int64)
        Gs = np.zeros((len(seeds), *G0.shape), np.int64)
        dice_keys, dice_len = mt.seed_keys(seed_arr.tolist())
        lanes = (mt.new_state(mt.LANES), mt.new_state(mt.LANES))
        play_many(
            comp.K,
            C0,
            G0,
            dice_keys,
            dice_len,
            keys,
            nkeys,
            codes,
            Cs,
            Gs,
            *lanes,
            *scratch(comp.maxa),
        )
        stuck = np.flatnonzero(Gs[:, G_DONE] == 2)
        if stuck.size:
            s = seeds[int(stuck[0])]
            raise KernelRefusal(f"battle {s} did not end after {MAX_DECISIONS} decisions")
        return ex, Cs, Gs

    def rollouts(
        self,
        state: BattleState,
        actions: Sequence[Action],
        seeds: Sequence[int],
        horizon: int | None,
        own_temperament: str | None,
        max_decisions: int,
    ) -> RolloutBatch:
        why = self.refusal(state.scenario, ())
        if why is not None:
            raise KernelRefusal(why)
        try:
            with refusing():
                comp = self._compiled(state.scenario)
                C0, G0 = comp.ex.export_state(state)
                first = self._first_actions(comp, state, actions)
        except KernelRefusal as exc:
            raise KernelRefusal(
                f"the Sistema 2d10 kernel cannot resume this state: {exc}"
            ) from None
        own = AGENT_SCENARIO
        if own_temperament is not None:
            code = _agent_code(own_temperament)
            if code is None or code == AGENT_RANDOM:
                raise KernelRefusal(f"rollout temperament {own_temperament!r}")
            own = code
        # Rounds never pass the round limit (at most BOUND): capping the stop round and the
        # decision cap at 2**62 changes no rollout and keeps them int64.
        stop = min(state.round + horizon, 2**62) if horizon is not None else 2**62
        max_decisions = min(max_decisions, 2**62)
        shape = (len(actions), len(seeds))
        winner = np.zeros(shape, np.int64)
        finished = np.zeros(shape, np.bool_)
        own_s = np.zeros(shape, np.float64)
        foe_s = np.zeros(shape, np.float64)
        actor_out = np.zeros(shape, np.bool_)
        seed_keys, seed_len = mt.seed_keys([int(s) for s in seeds])
        rollout_many(
            comp.K,
            C0,
            G0,
            first,
            seed_keys,
            seed_len,
            stop,
            max_decisions,
            own,
            winner,
            finished,
            own_s,
            foe_s,
            actor_out,
            np.zeros_like(C0),
            np.zeros_like(G0),
            mt.new_state(),
            mt.new_state(),
            *scratch(comp.maxa),
        )
        return RolloutBatch(winner, finished, own_s, foe_s, actor_out)

    @staticmethod
    def _first_actions(
        comp: _Compiled, state: BattleState, actions: Sequence[Action]
    ) -> np.ndarray:
        """The rollouts' first actions as legal's rows (verb, target, weapon, aim, zone)."""
        ex = comp.ex
        index = {cid: i for i, cid in enumerate(ex.ids)}
        first = np.zeros((len(actions), 5), np.int64)
        pending = state.pending
        assert pending is not None
        for x, action in enumerate(actions):
            if action.actor != pending.actor:
                raise KernelRefusal(f"{action} is not {pending.actor}'s")
            verb = k.VERB_NAMES.index(action.verb)
            target = index[action.target] if action.target is not None else -1
            item = -1
            if action.item is not None:
                names = [w.name for w in ex.profiles[index[action.actor]].weapons]
                item = names.index(action.item)
            option = -1
            if action.option not in (None, "libre"):
                option = ex.loc_index[action.option]
            zone = ex.zone_ids.index(action.zone) if action.zone is not None else -1
            # What apply reads of each verb is there (an index of -1 would read the last
            # row).
            needs = (
                target if verb in (ATACAR, CEDER_DADO) else 0,
                item if verb == ATACAR else 0,
                zone if verb == MOVER else 0,
            )
            if min(needs) < 0:
                raise KernelRefusal(f"{action} lacks what {action.verb} needs")
            first[x] = (verb, target, item, option, zone)
        return first


KERNEL = Sistema2d10Kernel()

__all__ = ["KERNEL", "Sistema2d10Kernel"]
