"""Cairn's heuristic temperaments compiled with numba, and the kernel's battle loops.

Each function mirrors the one of the same name in :mod:`escaramuza.agents.heuristics.cairn`
(the specification), over the arrays of :mod:`escaramuza.rules.cairn.kernel`, drawing its
tie-breaks from the agents' generator exactly where the engine's heuristic does.

Exact odds: the engine scores attacks with :class:`fractions.Fraction` sums
(:mod:`escaramuza.rules.cairn.exact`) turned into floats. Here the same quantities are
exact integers over a common denominator — P(out) over ``20·Q`` and the expected damage
over ``Q`` (``Q`` the product of the pool's die sizes) — reduced to lowest terms before
the one float conversion, so equal odds give equal floats, as they do in the engine:
single-attack expected damage is the correctly rounded ``E/Q`` (the same float as
``float(Fraction)``); a gain (P(out) + 0.03·E) is within a few ulps of the engine's
float, and equal gains are equal floats (they compare as the engine's do: ties, ``max``
firsts and the tactician's 1e-12 band).
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from escaramuza.agents.heuristics.cairn import CLOSE_WEIGHT, COVER_WEIGHT, DAMAGE_WEIGHT
from escaramuza.rules.cairn import kernel as K
from escaramuza.rules.cairn.kernel import (
    ACTIVE,
    ATTACK,
    C_ARMOUR,
    C_MAXFUE,
    C_MAXPI,
    C_NW,
    C_PC,
    C_SIDE,
    C_TEMPER,
    D_ACTOR,
    D_ITEM,
    D_TARGET,
    D_VERB,
    DESJARRETADO,
    FLEE,
    G_DONE,
    G_NDECL,
    G_NEEDKEY,
    G_QHEAD,
    G_ROUND,
    MOVE,
    O_DOOMED_OUT,
    O_SCARS,
    S_COND,
    S_FUE,
    S_PI,
    S_STATUS,
    S_ZONE,
    W_RANGED,
    W_REACH,
)
from escaramuza.rules.cairn.stats import CAIRN_DICE
from escaramuza.rules.core import mt
from escaramuza.rules.core.jit import copy_into, njit
from escaramuza.rules.core.kernel import (
    WINNERS,
    BattleColumns,
    KernelBattle,
    KernelRefusal,
    RolloutBatch,
    refusing,
)

if TYPE_CHECKING:
    from escaramuza.rules.core.model import Action
    from escaramuza.rules.core.scenario import Scenario
    from escaramuza.rules.core.state import BattleState

#: Agent codes for a side: the random agent, the heuristic with each combatant's scenario
#: temperament, or a temperament code (``TEMPERAMENT_CODES``) for ``heuristic:T``.
RANDOM_AGENT = -1
SCENARIO_TEMPERAMENT = -2
T_TACTICIAN, T_BRUTE, T_CAUTIOUS, T_COWARD, T_PROTECTOR, T_RANDOM = 0, 1, 2, 3, 4, 5

# Zone keys of _best_move (each a tuple of ints, compared like the engine's tuples).
KEY_BRUTE, KEY_AWAY, KEY_POST, KEY_ADVANCE, KEY_GUARD = 0, 1, 2, 3, 4


# -- exact odds (rules/cairn/exact.py) ----------------------------------------------------
@njit(cache=True, _nrt=False)
def _scar_out(pi_lost: np.int64, pi: np.int64, pc: bool, scars: bool, doomed_out: bool) -> bool:
    """exact._scar_out: a PC left at exactly 0 PI reads entry 11 (or 12 by default)."""
    if not (pc and scars and pi > 0 and pi_lost == pi):
        return False
    entry = min(pi_lost, 12)
    return entry == 11 or (entry == 12 and doomed_out)


@njit(cache=True, _nrt=False)
def pool_value(
    cnt: np.ndarray,
    armour: np.int64,
    pi: np.int64,
    fue: np.int64,
    pc: bool,
    scars: bool,
    doomed_out: bool,
) -> tuple[int, int, int]:
    """``_value`` of the pool with ``cnt[s]`` dice of ``s`` sides: ``(P, E, Q)`` with
    P(out) = P / (20 Q) and E[damage] = E / Q (exact.out_probability, expected_damage).

    P(highest ≤ k) = Π min(k, s)/s (exact._keep_highest); a Cairn die is one of
    ``CAIRN_DICE`` (CA-07's fists and Impedido are d4, Mejorado d12)."""
    q = 1
    top = 0
    for s in CAIRN_DICE:
        for _ in range(cnt[s]):
            q *= s
        if cnt[s] > 0:
            top = s
    if top == 0:
        return 0, 0, 1
    prev = 0
    p_num = 0
    e_num = 0
    for k in range(1, top + 1):
        at_most = 1
        for s in CAIRN_DICE:
            m = k if k < s else s
            for _ in range(cnt[s]):
                at_most *= m
        count = at_most - prev
        prev = at_most
        if count == 0:
            continue
        damage = k - armour if k > armour else 0
        lost = damage if damage < pi else pi
        over = damage - pi if damage > pi else 0
        if over > 0:
            left = fue - over
            if left <= 0:
                p_num += 20 * count
            else:
                p_num += count * (20 - min(max(left, 1), 19))
        elif _scar_out(lost, pi, pc, scars, doomed_out):
            p_num += 20 * count
        e_num += count * (lost + min(over, fue))
    return p_num, e_num, q


#: Columns of a ``pools`` row after the dice counts (indexed by die size, 0…12): the
#: row's own pool value, computed once per decision (the target's PI and FUE do not
#: change while one combatant declares).
P_VALID, P_P, P_E, P_Q = 13, 14, 15, 16
POOL_WIDTH = 17


@njit(cache=True, _nrt=False)
def _gcd(a: np.int64, b: np.int64) -> np.int64:
    a = abs(a)
    b = abs(b)
    while b:
        a, b = b, a % b
    return a


@njit(cache=True, _nrt=False)
def added_value(
    before: np.ndarray,
    n: np.int64,
    d1: np.int64,
    d2: np.int64,
    armour: np.int64,
    pi: np.int64,
    fue: np.int64,
    pc: bool,
    scars: bool,
    doomed_out: bool,
) -> tuple[int, int, int]:
    """``_added_value`` as ``(X, Y, D)``: the gain is (X + DAMAGE_WEIGHT·Y) / D, in lowest
    terms (gcd of the three). ``before`` is a ``pools`` row (its value cached in it)."""
    if before[P_VALID] == 0:
        p_b, e_b, q_b = pool_value(before, armour, pi, fue, pc, scars, doomed_out)
        before[P_VALID] = 1
        before[P_P] = p_b
        before[P_E] = e_b
        before[P_Q] = q_b
    p_b = before[P_P]
    e_b = before[P_E]
    # The pool with my dice added, in place and then restored (no allocation).
    before[d1] += 1
    q_m = d1
    if n == 2:
        before[d2] += 1
        q_m *= d2
    p_a, e_a, q_a = pool_value(before, armour, pi, fue, pc, scars, doomed_out)
    before[d1] -= 1
    if n == 2:
        before[d2] -= 1
    x = p_a - p_b * q_m
    y = 20 * (e_a - e_b * q_m)
    d = 20 * q_a
    r = _gcd(_gcd(x, y), d)
    if r > 1:
        x //= r
        y //= r
        d //= r
    return x, y, d


@njit(cache=True, _nrt=False)
def expected_single(
    cstat: np.ndarray,
    wpn: np.ndarray,
    zcover: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    a: np.int64,
    t: np.int64,
    w: np.int64,
) -> float:
    """``single_damage``: E[PI + FUE] of this attack alone (exact.expected_damage of its
    one or two dice, keep-highest), the correctly rounded E/Q — the float the engine's
    ``float(Fraction)`` gives."""
    n, d1, d2 = K.attack_dice(cstat, wpn, zcover, opts, cs, a, t, w)
    if n == 1:
        d2 = 1  # a one-faced "second die" leaves the keep-highest distribution as it is
    armour = cstat[t, C_ARMOUR]
    pi = cs[t, S_PI]
    fue = cs[t, S_FUE]
    top = max(d1, d2)
    prev = 0
    e_num = 0
    for k in range(1, top + 1):
        at_most = min(k, d1) * min(k, d2)
        count = at_most - prev
        prev = at_most
        damage = k - armour if k > armour else 0
        lost = damage if damage < pi else pi
        over = damage - pi if damage > pi else 0
        e_num += count * (lost + min(over, fue))
    return np.float64(e_num) / np.float64(d1 * d2)


@njit(cache=True, _nrt=False)
def declared_pools(
    cstat: np.ndarray,
    wpn: np.ndarray,
    zcover: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    decl: np.ndarray,
    pools: np.ndarray,
) -> None:
    """``combat.declared_pools`` of the side declaring: ``pools[t, s]`` dice of ``s``
    sides already aimed at ``t`` this side turn (CA-06)."""
    pools[:, :] = 0
    n = cs.shape[0]
    for d in range(g[G_NDECL]):
        if decl[d, D_VERB] != ATTACK:
            continue
        a = decl[d, D_ACTOR]
        t = decl[d, D_TARGET]
        w = decl[d, D_ITEM]
        blast = K.is_blast(cstat, wpn, a, t, w)
        for c in range(n):
            if (blast and K.in_blast(cstat, wpn, cs, a, t, w, c)) or (not blast and c == t):
                nn, d1, d2 = K.attack_dice(cstat, wpn, zcover, opts, cs, a, c, w)
                pools[c, d1] += 1
                if nn == 2:
                    pools[c, d2] += 1


@njit(cache=True, _nrt=False)
def attack_gain(
    cstat: np.ndarray,
    wpn: np.ndarray,
    zcover: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    pools: np.ndarray,
    me: np.int64,
    t: np.int64,
    w: np.int64,
) -> float:
    """What this attack adds on top of the dice already declared (CA-06), summed over
    everyone it reaches (the engine sums the Fractions, then takes one float)."""
    blast = K.is_blast(cstat, wpn, me, t, w)
    scars = opts[O_SCARS] == 1
    doomed_out = opts[O_DOOMED_OUT] == 1
    big_x = 0
    big_y = 0
    big_d = 1
    approx = 0.0
    exact = True
    for c in range(cs.shape[0]):
        if not ((blast and K.in_blast(cstat, wpn, cs, me, t, w, c)) or (not blast and c == t)):
            continue
        n, d1, d2 = K.attack_dice(cstat, wpn, zcover, opts, cs, me, c, w)
        x, y, d = added_value(
            pools[c],
            n,
            d1,
            d2,
            cstat[c, C_ARMOUR],
            cs[c, S_PI],
            cs[c, S_FUE],
            cstat[c, C_PC] == 1,
            scars,
            doomed_out,
        )
        approx += (np.float64(x) + DAMAGE_WEIGHT * np.float64(y)) / np.float64(d)
        if exact:
            # Common denominator while it stays exact in int64 (always, for pools of a
            # few dice; the float sum above is only the fallback).
            r = _gcd(big_d, d)
            lcm = big_d // r * d
            if lcm > (1 << 40) or abs(big_x) > (1 << 40) or abs(big_y) > (1 << 40):
                exact = False
                continue
            big_x = big_x * (lcm // big_d) + x * (lcm // d)
            big_y = big_y * (lcm // big_d) + y * (lcm // d)
            big_d = lcm
    if not exact:
        return approx
    r = _gcd(_gcd(big_x, big_y), big_d)
    if r > 1:
        big_x //= r
        big_y //= r
        big_d //= r
    return (np.float64(big_x) + DAMAGE_WEIGHT * np.float64(big_y)) / np.float64(big_d)


# -- helpers of the temperaments --------------------------------------------------------------
@njit(cache=True, _nrt=False)
def nearest_enemy(
    cstat: np.ndarray, dist: np.ndarray, cs: np.ndarray, me: np.int64, zone: np.int64
) -> np.int64:
    """Hops from ``zone`` to the nearest active enemy of ``me`` (0 if none)."""
    best = -1
    side = cstat[me, C_SIDE]
    for c in range(cs.shape[0]):
        if cs[c, S_STATUS] == ACTIVE and cstat[c, C_SIDE] != side:
            h = dist[zone, cs[c, S_ZONE]]
            if best < 0 or h < best:
                best = h
    return best if best >= 0 else 0


@njit(cache=True, _nrt=False)
def side_broken(cstat: np.ndarray, cs: np.ndarray, me: np.int64) -> bool:
    members = 0
    active = 0
    for c in range(cs.shape[0]):
        if cstat[c, C_SIDE] == cstat[me, C_SIDE]:
            members += 1
            if cs[c, S_STATUS] == ACTIVE:
                active += 1
    if members == 1:
        return cs[me, S_PI] == 0
    return 2 * active < members


@njit(cache=True, _nrt=False)
def half_out(cstat: np.ndarray, cs: np.ndarray, me: np.int64) -> bool:
    members = 0
    out = 0
    for c in range(cs.shape[0]):
        if cstat[c, C_SIDE] == cstat[me, C_SIDE]:
            members += 1
            if cs[c, S_STATUS] != ACTIVE:
                out += 1
    return members > 1 and 2 * out >= members


@njit(cache=True, _nrt=False)
def hurt(cstat: np.ndarray, cs: np.ndarray, c: np.int64) -> bool:
    return 2 * cs[c, S_PI] < cstat[c, C_MAXPI] or cs[c, S_FUE] < cstat[c, C_MAXFUE]


@njit(cache=True, _nrt=False)
def health(cstat: np.ndarray, cs: np.ndarray, c: np.int64) -> float:
    top = cstat[c, C_MAXPI] + cstat[c, C_MAXFUE]
    if top == 0:
        return 1.0
    return np.float64(cs[c, S_PI] + cs[c, S_FUE]) / np.float64(top)


@njit(cache=True, _nrt=False)
def move_score(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    zone: np.int64,
) -> float:
    side = cstat[me, C_SIDE]
    enemies_there = 0
    for c in range(cs.shape[0]):
        if cs[c, S_STATUS] == ACTIVE and cstat[c, C_SIDE] != side and cs[c, S_ZONE] == zone:
            enemies_there += 1
    ranged = False
    reach = -1
    for w in range(cstat[me, C_NW]):
        if wpn[me, w, W_RANGED] == 1:
            ranged = True
            if wpn[me, w, W_REACH] > reach:
                reach = wpn[me, w, W_REACH]
    here_zone = cs[me, S_ZONE]
    here = nearest_enemy(cstat, dist, cs, me, here_zone)
    if ranged and here <= reach:
        if zcover[here_zone] > 0:
            return -0.01
        if nearest_enemy(cstat, dist, cs, me, zone) > reach:
            return -0.01
        return COVER_WEIGHT * zcover[zone] - 0.1 * enemies_there
    closer = here - nearest_enemy(cstat, dist, cs, me, zone)
    return CLOSE_WEIGHT * closer - 0.001 * dist[here_zone, zone]


@njit(cache=True, _nrt=False)
def retreat(
    dist: np.ndarray, zexit: np.ndarray, cs: np.ndarray, me: np.int64, acts: np.ndarray, n: np.int64
) -> np.int64:
    """``_retreat``: ``huir`` if legal, else the move getting nearest an exit (-1: none)."""
    for i in range(n):
        if acts[i, 0] == FLEE:
            return i
    nz = dist.shape[0]
    here_zone = cs[me, S_ZONE]
    here = -1
    for z in range(nz):
        if zexit[z] == 1 and (here < 0 or dist[here_zone, z] < here):
            here = dist[here_zone, z]
    if here < 0:
        return -1
    best = -1
    best_d = 0
    for i in range(n):
        if acts[i, 0] == MOVE:
            dz = -1
            for z in range(nz):
                if zexit[z] == 1 and (dz < 0 or dist[acts[i, 2], z] < dz):
                    dz = dist[acts[i, 2], z]
            if dz < here and (best < 0 or dz < best_d):
                best = i
                best_d = dz
    return best


@njit(cache=True, _nrt=False)
def zone_key(
    cstat: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    z: np.int64,
    kind: np.int64,
    p1: np.int64,
    p2: np.int64,
) -> tuple[int, int, int]:
    """The keys the engine's temperaments pass to ``_best_move``, as int triples."""
    here = cs[me, S_ZONE]
    if kind == KEY_BRUTE:
        return -nearest_enemy(cstat, dist, cs, me, z), -dist[here, z], 0
    if kind == KEY_AWAY:
        return nearest_enemy(cstat, dist, cs, me, z), zcover[z], -dist[here, z]
    if kind == KEY_POST:
        near = nearest_enemy(cstat, dist, cs, me, z)
        return (1 if near <= p1 else 0), (1 if near > 0 else 0), zcover[z]
    if kind == KEY_ADVANCE:
        return -nearest_enemy(cstat, dist, cs, me, z), zcover[z], 0
    # KEY_GUARD (protector): towards the worst threat, then its ward.
    return -dist[z, p1], -dist[z, p2], 0


@njit(cache=True, _nrt=False)
def best_move(
    cstat: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    acts: np.ndarray,
    n: np.int64,
    kind: np.int64,
    p1: np.int64,
    p2: np.int64,
) -> np.int64:
    """``_best_move``: the first move with the highest key, if it beats staying (-1)."""
    best = -1
    bk = (0, 0, 0)
    for i in range(n):
        if acts[i, 0] != MOVE:
            continue
        k = zone_key(cstat, dist, zcover, cs, me, acts[i, 2], kind, p1, p2)
        if best < 0 or k > bk:
            best = i
            bk = k
    if best < 0:
        return -1
    if bk > zone_key(cstat, dist, zcover, cs, me, cs[me, S_ZONE], kind, p1, p2):
        return best
    return -1


@njit(cache=True, _nrt=False)
def best_attack(
    cstat: np.ndarray,
    wpn: np.ndarray,
    zcover: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    decl: np.ndarray,
    pools: np.ndarray,
    me: np.int64,
    acts: np.ndarray,
    n: np.int64,
    ranged_only: bool,
) -> np.int64:
    """``_best_attack``: the first attack with the highest gain."""
    declared_pools(cstat, wpn, zcover, opts, cs, g, decl, pools)
    best = -1
    top = 0.0
    for i in range(n):
        if acts[i, 0] != ATTACK:
            continue
        if ranged_only and wpn[me, acts[i, 3], W_RANGED] == 0:
            continue
        s = attack_gain(cstat, wpn, zcover, opts, cs, pools, me, acts[i, 1], acts[i, 3])
        if best < 0 or s > top:
            best = i
            top = s
    return best


# -- the agents' generator, seeded on its first draw -------------------------------------
#: ``arng`` layout: the MT state (``mt.STATE_SIZE`` words), then whether it is seeded, the
#: key's length (0: not known yet) and the key words of ``random.Random(key)``.
A_SEEDED = mt.STATE_SIZE
A_KEYLEN = mt.STATE_SIZE + 1
A_KEY = mt.STATE_SIZE + 2


@njit(cache=True, _nrt=False)
def agent_draw(arng: np.ndarray, g: np.ndarray, n: np.int64) -> np.int64:
    """``rng.randrange(n)`` of the agents' generator (``agents.runner.agent_rng``).

    Seeding MT19937 costs more than a short battle, and many battles (brute against
    brute) never draw, so the generator is seeded here on its first draw. A battle whose
    key was not given stops (``G_NEEDKEY``) and is played again with its key."""
    if arng[A_SEEDED] == 0:
        length = arng[A_KEYLEN]
        if length == 0:
            g[G_NEEDKEY] = 1
            return 0
        mt.seed_key(arng, arng[A_KEY : A_KEY + length])
        arng[A_SEEDED] = 1
    return mt.randbelow(arng, n)


# -- temperaments ------------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def tactician(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    zexit: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    decl: np.ndarray,
    pools: np.ndarray,
    arng: np.ndarray,
    me: np.int64,
    acts: np.ndarray,
    n: np.int64,
    scores: np.ndarray,
) -> np.int64:
    """``scores``: scratch, one per legal action."""
    if side_broken(cstat, cs, me):
        r = retreat(dist, zexit, cs, me, acts, n)
        if r >= 0:
            return r
    declared_pools(cstat, wpn, zcover, opts, cs, g, decl, pools)
    for i in range(n):
        verb = acts[i, 0]
        if verb == ATTACK:
            scores[i] = attack_gain(cstat, wpn, zcover, opts, cs, pools, me, acts[i, 1], acts[i, 3])
        elif verb == MOVE:
            scores[i] = move_score(cstat, wpn, dist, zcover, cs, me, acts[i, 2])
        elif verb == FLEE:
            scores[i] = -1.0
        else:
            scores[i] = 0.0
    top = scores[0]
    for i in range(1, n):
        if scores[i] > top:
            top = scores[i]
    floor = top - 1e-12
    count = 0
    for i in range(n):
        if scores[i] >= floor:
            count += 1
    pick = agent_draw(arng, g, count)
    for i in range(n):
        if scores[i] >= floor:
            if pick == 0:
                return i
            pick -= 1
    return n - 1


@njit(cache=True, _nrt=False, inline="always")
def brute(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    acts: np.ndarray,
    n: np.int64,
) -> np.int64:
    here = cs[me, S_ZONE]
    best = -1
    b1 = 0
    b2 = 0.0
    for i in range(n):
        if acts[i, 0] != ATTACK:
            continue
        t = acts[i, 1]
        k1 = -dist[here, cs[t, S_ZONE]]
        k2 = expected_single(cstat, wpn, zcover, opts, cs, me, t, acts[i, 3])
        if best < 0 or k1 > b1 or (k1 == b1 and k2 > b2):
            best = i
            b1 = k1
            b2 = k2
    if best >= 0:
        return best
    m = best_move(cstat, dist, zcover, cs, me, acts, n, KEY_BRUTE, 0, 0)
    return m if m >= 0 else n - 1


@njit(cache=True, _nrt=False, inline="always")
def cautious(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    zexit: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    decl: np.ndarray,
    pools: np.ndarray,
    me: np.int64,
    acts: np.ndarray,
    n: np.int64,
) -> np.int64:
    attacks = False
    ranged = False
    for i in range(n):
        if acts[i, 0] == ATTACK:
            attacks = True
            if wpn[me, acts[i, 3], W_RANGED] == 1:
                ranged = True
    if hurt(cstat, cs, me):
        r = retreat(dist, zexit, cs, me, acts, n)
        if r >= 0:
            return r
        if ranged and nearest_enemy(cstat, dist, cs, me, cs[me, S_ZONE]) <= 1:
            m = best_move(cstat, dist, zcover, cs, me, acts, n, KEY_AWAY, 0, 0)
            if m >= 0:
                return m
    if ranged:
        reach = -1
        for w in range(cstat[me, C_NW]):
            if wpn[me, w, W_RANGED] == 1 and wpn[me, w, W_REACH] > reach:
                reach = wpn[me, w, W_REACH]
        m = best_move(cstat, dist, zcover, cs, me, acts, n, KEY_POST, reach, 0)
        if m >= 0:
            return m
        return best_attack(cstat, wpn, zcover, opts, cs, g, decl, pools, me, acts, n, True)
    if attacks:
        return best_attack(cstat, wpn, zcover, opts, cs, g, decl, pools, me, acts, n, False)
    m = best_move(cstat, dist, zcover, cs, me, acts, n, KEY_ADVANCE, 0, 0)
    return m if m >= 0 else n - 1


@njit(cache=True, _nrt=False, inline="always")
def coward(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    zexit: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    decl: np.ndarray,
    pools: np.ndarray,
    me: np.int64,
    acts: np.ndarray,
    n: np.int64,
) -> np.int64:
    """The coward hurt or with half its side out (otherwise it plays :func:`cautious`:
    :func:`choose` sends it there, so the inlined cautious is compiled once)."""
    e = retreat(dist, zexit, cs, me, acts, n)
    if e < 0:
        e = best_move(cstat, dist, zcover, cs, me, acts, n, KEY_AWAY, 0, 0)
    if e >= 0:
        return e
    for i in range(n):
        if acts[i, 0] == ATTACK:
            return best_attack(cstat, wpn, zcover, opts, cs, g, decl, pools, me, acts, n, False)
    return n - 1


@njit(cache=True, _nrt=False)
def threat(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    foe: np.int64,
    ward: np.int64,
) -> float:
    """Expected PI + FUE ``foe`` can take off ``ward`` this turn (0 if out of reach):
    its ``actions_for`` attacks on the ward."""
    best = 0.0
    hops = dist[cs[foe, S_ZONE], cs[ward, S_ZONE]]
    mobile = (cs[foe, S_COND] & DESJARRETADO) == 0
    for w in range(cstat[foe, C_NW]):
        if wpn[foe, w, W_RANGED] == 1:
            ok = hops <= wpn[foe, w, W_REACH]
        else:
            ok = hops == 0 or (hops == 1 and mobile)
        if ok:
            x = expected_single(cstat, wpn, zcover, opts, cs, foe, ward, w)
            if x > best:
                best = x
    return best


@njit(cache=True, _nrt=False, inline="always")
def protector(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    acts: np.ndarray,
    n: np.int64,
) -> np.int64:
    """The protector's guard, or -1: it plays the tactician (:func:`choose` calls it,
    so the inlined tactician is compiled once)."""
    side = cstat[me, C_SIDE]
    ward = -1
    ward_h = 0.0
    for c in range(cs.shape[0]):
        if cs[c, S_STATUS] == ACTIVE and cstat[c, C_SIDE] == side and c != me:
            h = health(cstat, cs, c)
            if h < 1.0 and (ward < 0 or h < ward_h):
                ward = c
                ward_h = h
    if ward >= 0:
        worst = -1
        w_threat = 0.0
        w_dist = 0
        for f in range(cs.shape[0]):
            if cs[f, S_STATUS] != ACTIVE or cstat[f, C_SIDE] == side:
                continue
            th = threat(cstat, wpn, dist, zcover, opts, cs, f, ward)
            d = dist[cs[f, S_ZONE], cs[ward, S_ZONE]]
            if worst < 0 or th > w_threat or (th == w_threat and d < w_dist):
                worst = f
                w_threat = th
                w_dist = d
        if worst >= 0:
            best = -1
            top = 0.0
            for i in range(n):
                if acts[i, 0] == ATTACK and acts[i, 1] == worst:
                    s = expected_single(cstat, wpn, zcover, opts, cs, me, worst, acts[i, 3])
                    if best < 0 or s > top:
                        best = i
                        top = s
            if best >= 0:
                return best
            m = best_move(
                cstat, dist, zcover, cs, me, acts, n, KEY_GUARD, cs[worst, S_ZONE], cs[ward, S_ZONE]
            )
            if m >= 0:
                return m
    return -1


@njit(cache=True, _nrt=False, inline="always")
def choose(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    zexit: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    decl: np.ndarray,
    pools: np.ndarray,
    arng: np.ndarray,
    agent: np.int64,
    me: np.int64,
    acts: np.ndarray,
    n: np.int64,
    scores: np.ndarray,
) -> np.int64:
    """``RandomAgent.act`` / ``heuristic_choice`` + ``cairn.choose``: the chosen row
    (``scores``: scratch, one per legal action)."""
    if agent == RANDOM_AGENT:
        return agent_draw(arng, g, n)
    if n == 1:
        return 0
    mood = agent if agent >= 0 else cstat[me, C_TEMPER]
    if mood == T_RANDOM:
        return agent_draw(arng, g, n)
    if mood == T_BRUTE:
        return brute(cstat, wpn, dist, zcover, opts, cs, me, acts, n)
    if mood == T_COWARD:
        if hurt(cstat, cs, me) or half_out(cstat, cs, me):
            return coward(cstat, wpn, dist, zcover, zexit, opts, cs, g, decl, pools, me, acts, n)
        mood = T_CAUTIOUS  # cairn.coward: "not hurt nor half out: cautious"
    if mood == T_CAUTIOUS:
        return cautious(cstat, wpn, dist, zcover, zexit, opts, cs, g, decl, pools, me, acts, n)
    if mood == T_PROTECTOR:
        i = protector(cstat, wpn, dist, zcover, opts, cs, me, acts, n)
        if i >= 0:
            return i
    return tactician(
        cstat, wpn, dist, zcover, zexit, opts, cs, g, decl, pools, arng, me, acts, n, scores
    )


# -- battle loop -------------------------------------------------------------------------------
# The loops run without numba's reference counts (_nrt=False, as every function here):
# with them, every array passed or sliced paid a reference-count call pair — a third of
# a battle's time. Their scratch arrays come from the caller (scratch()).
@njit(cache=True, _nrt=False)
def play_many(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    zexit: np.ndarray,
    opts: np.ndarray,
    cs0: np.ndarray,
    agents: np.ndarray,
    dice_keys: np.ndarray,
    dice_len: np.ndarray,
    keys: np.ndarray,
    key_len: np.ndarray,
    out_cs: np.ndarray,
    out_g: np.ndarray,
    out_decisions: np.ndarray,
    lanes: np.ndarray,
    arng: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    queue: np.ndarray,
    decl: np.ndarray,
    acts: np.ndarray,
    pools: np.ndarray,
    scores: np.ndarray,
    hits: np.ndarray,
) -> None:
    """Whole battles from the start, one per seed (``agents.runner.play_battle``): the
    dice generator's key words (``mt.seed_keys``) and the agents' (``mt.agent_keys``;
    none: a battle whose agent draws stops with G_NEEDKEY). ``lanes`` (mt.LANES
    generators), ``arng`` (A_KEY + the keys' width) and the rest: scratch."""
    for b in range(dice_keys.shape[0]):
        # The dice generators of eight battles are seeded together (mt.seed_lanes).
        if b % mt.LANES == 0:
            mt.seed_lanes(lanes, dice_keys, dice_len, b)
        dice = lanes[b % mt.LANES]
        arng[A_SEEDED] = 0
        arng[A_KEYLEN] = key_len[b]
        for j in range(key_len[b]):  # not a slice assignment (rules.core.jit.copy_into)
            arng[A_KEY + j] = keys[b, j]
        copy_into(cs, cs0)
        g[:] = 0
        g[K.G_WINNER] = -1
        K.start(cstat, cs, g, opts, dice, queue)
        decisions = 0
        while g[G_DONE] == 0:
            me = queue[g[G_QHEAD]]
            na = K.legal_actions(cstat, wpn, dist, zexit, cs, me, acts)
            i = choose(
                cstat,
                wpn,
                dist,
                zcover,
                zexit,
                opts,
                cs,
                g,
                decl,
                pools,
                arng,
                agents[cstat[me, C_SIDE]],
                me,
                acts,
                na,
                scores,
            )
            if g[G_NEEDKEY] == 1:
                break
            K.apply(
                cstat, wpn, dist, zcover, zexit, opts, cs, g, dice, queue, decl, hits, me, acts[i]
            )
            decisions += 1
        copy_into(out_cs[b], cs)
        copy_into(out_g[b], g)
        out_decisions[b] = decisions


@njit(cache=True, _nrt=False)
def side_strength(cstat: np.ndarray, cs: np.ndarray, side: np.int64) -> float:
    """``agents.search.side_strength`` (health = PI), summed in scenario order."""
    total = 0.0
    n = 0
    for c in range(cs.shape[0]):
        if cstat[c, C_SIDE] != side:
            continue
        n += 1
        if cs[c, S_STATUS] != ACTIVE:
            continue
        top = cstat[c, C_MAXPI]
        frac = np.float64(cs[c, S_PI]) / np.float64(top) if top > 0 else 1.0
        total += 0.5 + 0.5 * min(max(frac, 0.0), 1.0)
    return total / n if n else 0.0


# nogil: the planner splits a batch over threads (agents/search.py, _Rollouts._batch),
# each with its own scratch arrays.
@njit(cache=True, nogil=True, _nrt=False)
def rollout_many(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    zexit: np.ndarray,
    opts: np.ndarray,
    cs0: np.ndarray,
    g0: np.ndarray,
    queue0: np.ndarray,
    decl0: np.ndarray,
    first: np.ndarray,
    seed_keys: np.ndarray,
    seed_len: np.ndarray,
    agents: np.ndarray,
    stop: np.int64,
    max_decisions: np.int64,
    root_actor: np.int64,
    searching: np.int64,
    winner: np.ndarray,
    finished: np.ndarray,
    own: np.ndarray,
    foe: np.ndarray,
    actor_out: np.ndarray,
    dice: np.ndarray,
    arng: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    queue: np.ndarray,
    decl: np.ndarray,
    acts: np.ndarray,
    pools: np.ndarray,
    scores: np.ndarray,
    hits: np.ndarray,
    act: np.ndarray,
) -> None:
    """``MCTS.rollout`` for every (action, seed): dice and tie-breaks from two generators
    seeded alike (``MCTS._descend``; the seeds' key words, ``mt.seed_keys``);
    ``agents[side]`` plays each side after the first action; the root actor's ``_Walk``
    for ``actor_out``. ``dice``, ``arng`` (A_KEY words) and the rest: scratch."""
    arng[A_SEEDED] = 1
    for ai in range(first.shape[0]):
        for si in range(seed_keys.shape[0]):
            key = seed_keys[si, : seed_len[si]]
            mt.seed_key(dice, key)
            mt.seed_key(arng, key)
            copy_into(cs, cs0)
            copy_into(g, g0)
            copy_into(queue, queue0)
            copy_into(decl, decl0)
            me = queue[g[G_QHEAD]]
            copy_into(act, first[ai])
            decisions = 0
            tracking = True
            left_turn = False
            out = False
            while True:
                K.apply(
                    cstat, wpn, dist, zcover, zexit, opts, cs, g, dice, queue, decl, hits, me, act
                )
                decisions += 1
                if tracking:
                    # _Walk.update for the root actor.
                    side_a = cstat[root_actor, C_SIDE]
                    if g[G_DONE] == 1:
                        w = g[K.G_WINNER]
                        active = cs[root_actor, S_STATUS] == ACTIVE
                        lost = (w == 1 - side_a) or (w == -1 and not active)
                        out = lost or not active
                        tracking = False
                    elif cs[root_actor, S_STATUS] != ACTIVE:
                        out = True
                        tracking = False
                    else:
                        nxt = queue[g[G_QHEAD]]
                        if nxt != root_actor:
                            left_turn = True
                        elif left_turn:
                            tracking = False
                if g[G_DONE] == 1 or g[G_ROUND] >= stop or decisions >= max_decisions:
                    break
                me = queue[g[G_QHEAD]]
                na = K.legal_actions(cstat, wpn, dist, zexit, cs, me, acts)
                i = choose(
                    cstat,
                    wpn,
                    dist,
                    zcover,
                    zexit,
                    opts,
                    cs,
                    g,
                    decl,
                    pools,
                    arng,
                    agents[cstat[me, C_SIDE]],
                    me,
                    acts,
                    na,
                    scores,
                )
                copy_into(act, acts[i])
            w = g[K.G_WINNER]
            if g[G_DONE] == 1 and w == searching:
                winner[ai, si] = 1
            elif g[G_DONE] == 1 and w == 1 - searching:
                winner[ai, si] = -1
            else:
                winner[ai, si] = 0
            finished[ai, si] = g[G_DONE] == 1
            own[ai, si] = side_strength(cstat, cs, searching)
            foe[ai, si] = side_strength(cstat, cs, 1 - searching)
            actor_out[ai, si] = out


def scratch(st: K.Static, cs0: np.ndarray, key_width: int) -> tuple[np.ndarray, ...]:
    """The loops' scratch arrays for a battle of ``cs0``'s combatants: the agents'
    generator (with room for a key of ``key_width`` words), the state (cs, g), the turn
    queue, the declarations, the legal list, the dice pools, the legal list's scores and
    the attacks' pools (rules.cairn.kernel.resolve_attacks)."""
    n = cs0.shape[0]
    acts = np.zeros((n * st.wpn.shape[1] + st.dist.shape[0] + 2, 4), dtype=np.int64)
    return (
        np.zeros(A_KEY + key_width, dtype=np.uint32),
        np.zeros_like(cs0),
        np.zeros(K.N_G, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.zeros((n, K.N_DECL), dtype=np.int64),
        acts,
        np.zeros((n, POOL_WIDTH), dtype=np.int64),
        np.zeros(acts.shape[0], dtype=np.float64),
        np.zeros((n * n, 5), dtype=np.int64),
    )


# -- the Kernel -------------------------------------------------------------------------------
#: What the kernel does not read: a side this large could overflow the exact pool sums.
MAX_COMBATANTS = 12


def agent_code(spec: str) -> int:
    """The side's agent code for a ``make_agent`` spec, or KernelRefusal."""
    if spec == "random":
        return RANDOM_AGENT
    if spec == "heuristic":
        return SCENARIO_TEMPERAMENT
    mood = spec.split(":", 1)[1] if spec.startswith("heuristic:") else spec
    if mood in K.TEMPERAMENT_CODES:
        return K.TEMPERAMENT_CODES[mood]
    raise KernelRefusal(f"agent {spec!r}: the Cairn kernel plays only random and heuristic agents")


#: Battles of a chunk played first without the agents' keys, to see whether this
#: scenario's agents draw tie-breaks (CairnKernel._play).
KEY_PROBE = 32


class CairnKernel:
    """The Kernel protocol (rules/core/kernel.py) for Cairn."""

    ruleset_id = "cairn"

    def __init__(self) -> None:
        self._static: dict[int, tuple[Any, K.Static]] = {}

    def static(self, scenario: Scenario) -> K.Static:
        found = self._static.get(id(scenario))
        if found is not None and found[0] is scenario:
            return found[1]
        if len(self._static) > 64:
            self._static.clear()
        made = K.Static(scenario)
        self._static[id(scenario)] = (scenario, made)
        return made

    def scenario_refusal(self, scenario: Scenario) -> str | None:
        if scenario.ruleset.id != "cairn":
            return f"scenario {scenario.name}: ruleset {scenario.ruleset.id}, not cairn"
        if len(scenario.combatants) > MAX_COMBATANTS:
            return (
                f"scenario {scenario.name}: {len(scenario.combatants)} combatants "
                f"(the Cairn kernel plays at most {MAX_COMBATANTS})"
            )
        for c in scenario.combatants:
            for w in c.stats.weapons:
                if len(w.dice) > 2:
                    return f"combatant {c.id}: weapon {w.name} rolls more than two dice"
        try:
            # The kernel boundary: every number of the scenario within what the arrays
            # and the int64 odds hold (rules.cairn.kernel.check_static, initial_state).
            with refusing():
                K.initial_state(self.static(scenario), scenario)
        except KernelRefusal as exc:
            return f"scenario {scenario.name}: {exc}"
        return None

    def refusal(self, scenario: Scenario, agents: Sequence[str]) -> str | None:
        why = self.scenario_refusal(scenario)
        if why is not None:
            return why
        for spec in agents:
            try:
                agent_code(spec)
            except KernelRefusal as err:
                return str(err)
        return None

    def play_battles(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> list[KernelBattle]:
        st, out_cs, out_g, out_dec = self._play(scenario, agents, seeds)
        # Millions of small tuples: the cyclic collector would rescan the growing list
        # over and over (none of them can form a cycle), so it waits until the end.
        enabled = gc.isenabled()
        gc.disable()
        try:
            return read_back(st, seeds, out_cs, out_g, out_dec)
        finally:
            if enabled:
                gc.enable()

    def play_columns(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> BattleColumns:
        _, out_cs, out_g, _ = self._play(scenario, agents, seeds)
        winner = out_g[:, K.G_WINNER]  # -1 nobody, 0 the heroes, 1 the enemies
        return BattleColumns(
            winner=np.where(winner < 0, WINNERS.index(None), winner),
            reason=out_g[:, K.G_REASON],
            reasons=K.REASONS,
            rounds=out_g[:, G_ROUND],
            wipe=out_g[:, K.G_WIPE] == 1,
            ko_round=out_cs[:, :, K.S_KO],
            died=out_cs[:, :, K.S_DIED] == 1,
            dealt=out_cs[:, :, K.S_DEALT],
            dealt_to_foes=out_cs[:, :, K.S_TOFOES],
            taken=out_cs[:, :, K.S_TAKEN],
        )

    def _play(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> tuple[K.Static, np.ndarray, np.ndarray, np.ndarray]:
        """The kernel's final arrays of one battle per seed: each combatant's row, the
        battle's ``g`` and its decisions."""
        why = self.refusal(scenario, agents)
        if why is not None:
            raise KernelRefusal(why)
        st = self.static(scenario)
        codes = np.array([agent_code(agents[0]), agent_code(agents[1])], dtype=np.int64)
        cs0 = K.initial_state(st, scenario)
        seed_arr = np.array(list(seeds), dtype=np.int64)
        nb = len(seed_arr)
        out_cs = np.zeros((nb, *cs0.shape), dtype=np.int64)
        out_g = np.zeros((nb, K.N_G), dtype=np.int64)
        out_dec = np.zeros(nb, dtype=np.int64)

        dice_keys, dice_len = mt.seed_keys(seed_arr.tolist())

        def play(idx: np.ndarray, keyed: bool) -> None:
            """The battles at ``idx``, into the out arrays; ``keyed``: with their agents'
            generators' keys, else a battle whose agent draws stops there (G_NEEDKEY)."""
            if idx.size == 0:
                return
            if keyed:
                keys, key_len = mt.agent_keys(seed_arr[idx].tolist())
            else:
                keys = np.zeros((idx.size, 1), dtype=np.uint32)
                key_len = np.zeros(idx.size, dtype=np.int64)
            sub_cs = np.zeros((idx.size, *cs0.shape), dtype=np.int64)
            sub_g = np.zeros((idx.size, K.N_G), dtype=np.int64)
            sub_dec = np.zeros(idx.size, dtype=np.int64)
            play_many(
                st.cstat,
                st.wpn,
                st.dist,
                st.zcover,
                st.zexit,
                st.opts,
                cs0,
                codes,
                dice_keys[idx],
                dice_len[idx],
                keys,
                key_len,
                sub_cs,
                sub_g,
                sub_dec,
                mt.new_state(mt.LANES),
                *scratch(st, cs0, keys.shape[1]),
            )
            out_cs[idx] = sub_cs
            out_g[idx] = sub_g
            out_dec[idx] = sub_dec

        # The agents' keys cost a sha512 each, and in many battles no agent ever draws a
        # tie-break. A first few battles are played without keys: if most of them drew,
        # the rest are played with their keys; if not, without, and the battles that
        # drew (stopped at the draw) are played again with theirs. The same battles
        # either way; only the time differs (a wasted first pass, or unneeded keys).
        probe = np.arange(min(nb, KEY_PROBE))
        play(probe, keyed=False)
        rest = np.arange(probe.size, nb)
        play(rest, keyed=2 * int(out_g[probe, G_NEEDKEY].sum()) > probe.size)
        play(np.flatnonzero(out_g[:, G_NEEDKEY]), keyed=True)
        return st, out_cs, out_g, out_dec

    def rollouts(
        self,
        state: BattleState,
        actions: Sequence[Action],
        seeds: Sequence[int],
        horizon: int | None,
        own_temperament: str | None,
        max_decisions: int,
    ) -> RolloutBatch:
        why = self.scenario_refusal(state.scenario)
        if why is not None:
            raise KernelRefusal(why)
        if state.pending is None or state.outcome is not None:
            raise KernelRefusal("rollouts need a pending decision in an unfinished battle")
        st = self.static(state.scenario)
        try:
            with refusing():
                cs, g, queue, decl = K.export_state(st, state)
                root = st.id_index[state.pending.actor]
                first = np.zeros((len(actions), 4), dtype=np.int64)
                for i, a in enumerate(actions):
                    if a.actor != state.pending.actor:
                        raise KernelRefusal(f"action {a} is not the pending actor's")
                    row = K.encode_action(st, a)
                    K.check_declared(st, row, a)
                    first[i] = row[:4]
        except KernelRefusal as exc:
            raise KernelRefusal(f"the Cairn kernel cannot resume this state: {exc}") from None
        searching = K.HEROES if state.pending.side.value == "heroes" else K.ENEMIES
        if searching != st.cstat[root, C_SIDE]:
            raise KernelRefusal("the pending decision's side is not its actor's")
        codes = np.array([SCENARIO_TEMPERAMENT, SCENARIO_TEMPERAMENT], dtype=np.int64)
        if own_temperament is not None:
            # heuristic_choice(…, temperament): "random" is the temperament (no draw on a
            # single legal action), an unknown name plays the tactician (cairn.choose).
            codes[searching] = K.TEMPERAMENT_CODES.get(own_temperament, T_TACTICIAN)
        # Rounds never pass the round limit (at most BOUND): capping the stop round and the
        # decision cap at 2**62 changes no rollout and keeps them int64.
        stop = min(state.round + horizon, 1 << 62) if horizon is not None else 1 << 62
        max_decisions = min(max_decisions, 1 << 62)
        shape = (len(actions), len(seeds))
        winner = np.zeros(shape, dtype=np.int64)
        finished = np.zeros(shape, dtype=np.bool_)
        own = np.zeros(shape, dtype=np.float64)
        foe = np.zeros(shape, dtype=np.float64)
        actor_out = np.zeros(shape, dtype=np.bool_)
        keys, key_len = mt.seed_keys(list(seeds))
        rollout_many(
            st.cstat,
            st.wpn,
            st.dist,
            st.zcover,
            st.zexit,
            st.opts,
            cs,
            g,
            queue,
            decl,
            first,
            keys,
            key_len,
            codes,
            stop,
            max_decisions,
            root,
            searching,
            winner,
            finished,
            own,
            foe,
            actor_out,
            mt.new_state(),
            *scratch(st, cs, 0),
            np.zeros(4, dtype=np.int64),
        )
        return RolloutBatch(winner, finished, own, foe, actor_out)


_STATUS_VALUES = tuple(st.value for st in K.STATUSES)
_CONDITIONS_SORTED = tuple(sorted((name, 1 << bit) for bit, name in enumerate(K.CONDITIONS)))
#: Every condition mask's sorted (name, value) pairs (Cairn's conditions carry no value).
_CONDITION_PAIRS = tuple(
    tuple((name, 0) for name, bit in _CONDITIONS_SORTED if mask & bit)
    for mask in range(1 << len(K.CONDITIONS))
)


def _objects(values: Sequence[Any], codes: np.ndarray) -> list[Any]:
    """``[[values[c] for c in row] for row in codes]``, done by numpy (object take)."""
    table = np.empty(len(values), dtype=object)
    table[:] = values
    return table[codes].tolist()


def read_back(
    st: K.Static, seeds: Sequence[int], out_cs: np.ndarray, out_g: np.ndarray, out_dec: np.ndarray
) -> list[KernelBattle]:
    """Finished kernel battles in the engine's terms (KernelBattle), one per seed.

    Column by column with numpy, then one tuple per field and battle: at thousands of
    battles a second a per-combatant Python loop would cost as much as the battles."""
    statuses = _objects(_STATUS_VALUES, out_cs[:, :, K.S_STATUS])
    zones = _objects(st.zone_ids, out_cs[:, :, K.S_ZONE])
    conditions = _objects(_CONDITION_PAIRS, out_cs[:, :, K.S_COND])
    # Resources: each distinct (des, fue, pi, vol) row once.
    res = out_cs[:, :, [K.S_DES, K.S_FUE, K.S_PI, K.S_VOL]].reshape(-1, 4)
    uniq, inverse = np.unique(res, axis=0, return_inverse=True)
    res_values = [(("des", d), ("fue", f), ("pi", p), ("vol", v)) for d, f, p, v in uniq.tolist()]
    resources = _objects(res_values, inverse.reshape(out_cs.shape[:2]))
    ko = out_cs[:, :, K.S_KO].tolist()
    died = (out_cs[:, :, K.S_DIED] == 1).tolist()
    dealt = out_cs[:, :, K.S_DEALT].tolist()
    to_foes = out_cs[:, :, K.S_TOFOES].tolist()
    taken = out_cs[:, :, K.S_TAKEN].tolist()
    winners = (None, "heroes", "enemies")  # index: the winner code + 1
    reasons = K.REASONS
    g_winner, g_reason, g_round, g_wipe = K.G_WINNER, K.G_REASON, G_ROUND, K.G_WIPE
    return [
        KernelBattle(
            int(seed),
            winners[g[g_winner] + 1],
            reasons[g[g_reason]],
            g[g_round],
            g[g_wipe] == 1,
            dec,
            tuple(statuses[b]),
            tuple(zones[b]),
            tuple(resources[b]),
            tuple(conditions[b]),
            tuple(ko[b]),
            tuple(died[b]),
            tuple(dealt[b]),
            tuple(to_foes[b]),
            tuple(taken[b]),
        )
        for b, (seed, g, dec) in enumerate(
            zip(seeds, out_g.tolist(), out_dec.tolist(), strict=True)
        )
    ]


KERNEL = CairnKernel()

__all__ = ["KERNEL", "CairnKernel"]
