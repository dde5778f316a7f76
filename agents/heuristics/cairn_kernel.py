"""Cairn's heuristic temperaments compiled with numba, and the Cairn kernel.

Each function mirrors the one of the same name in :mod:`escaramuza.agents.heuristics.cairn`
(the specification), over the bundles of :mod:`escaramuza.rules.cairn.kernel`, drawing its
tie-breaks from the agents' generator exactly where the engine's heuristic does. The
loops' hooks here are :func:`choose` and :func:`strength`; :class:`CairnKernel` joins
them with the rules' hooks on the shared loops (``rules.core.loops``) and the shared
Python side (``rules.core.compiled``).

Exact odds: the engine scores attacks with :class:`fractions.Fraction` sums
(:mod:`escaramuza.rules.cairn.exact`) turned into floats. Here the same quantities are
exact integers over a common denominator — P(out) over ``20·Q`` and the expected damage
over ``Q`` (``Q`` the product of the pool's die sizes) — divided once, as two exact
floats (reduced to lowest terms first where they would not be), so that every score is
the engine's float: single-attack
expected damage is the correctly rounded ``E/Q`` (the same float as ``float(Fraction)``),
and a gain, P(out) + 3/100·E, the correctly rounded ratio of two integers, as the
engine's ``float`` of its Fraction (ties, ``max`` firsts and the tactician's 1e-12 band
compare alike).
"""

from __future__ import annotations

import sys

import numpy as np

from escaramuza.agents.heuristics.cairn import (
    ADVANCE,
    AWAY,
    CLOSE_WEIGHT,
    COVER_WEIGHT,
    DAMAGE_WEIGHT,
    GUARD,
    NEARER,
    POST,
)
from escaramuza.agents.heuristics.vocabulary_kernel import first_of
from escaramuza.rules.cairn import kernel as K
from escaramuza.rules.cairn.kernel import (
    ATTACK,
    CS,
    DECL,
    DESJARRETADO,
    FLEE,
    HIT,
    HITS,
    MOVE,
    OPT,
    POOL,
    POOLS,
    SCAR,
    SCARS,
    SCORES,
    ST,
    STEPS,
    ZONE,
    ZONES,
    G,
    W,
    attack_dice,
    attack_zone,
    declared_hits,
    foe_hops,
    in_blast,
    in_reach,
    is_blast,
    side_out,
)
from escaramuza.rules.cairn.sheets import CAIRN_DICE
from escaramuza.rules.core import dialect
from escaramuza.rules.core.compiled import CompiledKernel
from escaramuza.rules.core.dialect import ACTIVE, DIST, GLOBALS, OPTS, STAT, STATE, WEAPON
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.legal import LA
from escaramuza.rules.core.loops import agent_draw

#: The temperament's damage weight as integers (``agents.heuristics.cairn.DAMAGE_WEIGHT``,
#: an exact Fraction): a gain ``(X + W·Y) / D`` is ``(W_DEN·X + W_NUM·Y) / (W_DEN·D)``.
W_NUM = DAMAGE_WEIGHT.numerator
W_DEN = DAMAGE_WEIGHT.denominator
#: The weight as a float, for the sum past the exact range.
W_FLOAT = float(DAMAGE_WEIGHT)
#: :func:`best_attack`'s ``post`` when it takes every attack (unread: not ``posted``).
NO_POST = (0, 0, 0)
#: Integers below this are exact float64 values.
EXACT_FLOAT = 1 << 53
#: The largest term :func:`attack_gain` sums exactly (the common denominator's bound).
SMALL_TERM = 1 << 40


# -- exact odds (rules/cairn/exact.py) ----------------------------------------------------
@njit(cache=True, _nrt=False)
def _scar_out(scar: np.ndarray, pi_lost: np.int64, pi: np.int64, pc: bool, scars: bool) -> bool:
    """exact._scar_out: a PC left at exactly 0 PI reads a Cicatrices entry that takes it
    out (the ``scar`` table's; past its last row, the last)."""
    if not (pc and scars and pi > 0 and pi_lost == pi):
        return False
    return scar[min(pi_lost, scar.shape[0] - 1), SCAR.OUT] == 1


@njit(cache=True, _nrt=False)
def pool_value(
    pool: np.ndarray,
    armour: int,
    pi: int,
    fue: int,
    pc: bool,
    scars: bool,
    scar: np.ndarray,
) -> tuple[int, int, int]:
    """``_value`` of the pool with ``pool[POOL.COUNT + s]`` dice of ``s`` sides: ``(P, E,
    Q)`` with P(out) = P / (20 Q) and E[damage] = E / Q (exact.out_probability,
    expected_damage).

    P(highest ≤ k) = Π min(k, s)/s (exact._keep_highest); a Cairn die is one of
    ``CAIRN_DICE`` (CA-07's fists and Impedido are d4, Mejorado d12)."""
    q = 1
    top = 0
    dice = 0
    for s in CAIRN_DICE:
        for _ in range(pool[POOL.COUNT + s]):
            q *= s
        if pool[POOL.COUNT + s] > 0:
            top = s
        dice += pool[POOL.COUNT + s]
    if top == 0:
        return 0, 0, 1
    prev = 0
    p_num = 0
    e_num = 0
    # Π min(k, s) over the dice: the sides of those smaller than k multiplied together
    # (``rolled``), times k for each of the others (``dice`` of them) — the same
    # integers, without a pass over every die size for every k.
    rolled = 1
    for k in range(1, top + 1):
        at_most = rolled
        for _ in range(dice):
            at_most *= k
        # From k + 1 on, the dice of k sides are among the smaller ones.
        for _ in range(pool[POOL.COUNT + k]):
            rolled *= k
        dice -= pool[POOL.COUNT + k]
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
        elif _scar_out(scar, lost, pi, pc, scars):
            p_num += 20 * count
        e_num += count * (lost + min(over, fue))
    return p_num, e_num, q


@njit(cache=True, _nrt=False)
def _gcd(a: np.int64, b: np.int64) -> np.int64:
    a = abs(a)
    b = abs(b)
    while b:
        a, b = b, a % b
    return a


@njit(cache=True, _nrt=False)
def added_terms(
    before: np.ndarray,
    n: np.int64,
    d1: np.int64,
    d2: np.int64,
    armour: np.int64,
    pi: np.int64,
    fue: np.int64,
    pc: bool,
    scars: bool,
    scar: np.ndarray,
) -> tuple[int, int, int]:
    """``_added_value`` as ``(X, Y, D)``: the gain is (X + DAMAGE_WEIGHT·Y) / D, not
    reduced. ``before`` is a ``pools`` row (its value cached in it)."""
    if before[POOL.VALID] == 0:
        p_b, e_b, q_b = pool_value(before, armour, pi, fue, pc, scars, scar)
        before[POOL.VALID] = 1
        before[POOL.P] = p_b
        before[POOL.E] = e_b
        before[POOL.Q] = q_b
    p_b = before[POOL.P]
    e_b = before[POOL.E]
    # The pool with my dice added, in place and then restored (no allocation).
    before[POOL.COUNT + d1] += 1
    q_m = d1
    if n == 2:
        before[POOL.COUNT + d2] += 1
        q_m *= d2
    p_a, e_a, q_a = pool_value(before, armour, pi, fue, pc, scars, scar)
    before[POOL.COUNT + d1] -= 1
    if n == 2:
        before[POOL.COUNT + d2] -= 1
    return p_a - p_b * q_m, 20 * (e_a - e_b * q_m), 20 * q_a


@njit(cache=True, _nrt=False)
def expected_single(
    stat: np.ndarray,
    weapon: np.ndarray,
    zone: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    a: np.int64,
    t: np.int64,
    w: np.int64,
) -> float:
    """``single_damage``: E[PI + FUE] of this attack alone (exact.expected_damage of its
    one or two dice, keep-highest), the correctly rounded E/Q — the float the engine's
    ``float(Fraction)`` gives."""
    n, d1, d2 = attack_dice(stat, weapon, zone, opts, cs, a, t, w)
    if n == 1:
        d2 = 1  # a one-faced "second die" leaves the keep-highest distribution as it is
    armour = stat[t, ST.ARMOUR]
    pi = cs[t, CS.PI]
    fue = cs[t, CS.FUE]
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
def declared_pools(hits: np.ndarray, k: int, pools: np.ndarray) -> None:
    """``combat.declared_pools`` of the side declaring, from its ``k`` rows of
    :func:`declared_hits`: ``pools[t, POOL.COUNT + s]`` dice of ``s`` sides already aimed
    at ``t`` this side turn (CA-06)."""
    pools[:, :] = 0
    for j in range(k):
        t = hits[j, HIT.TARGET]
        pools[t, POOL.COUNT + hits[j, HIT.D1]] += 1
        if hits[j, HIT.DICE] == 2:
            pools[t, POOL.COUNT + hits[j, HIT.D2]] += 1


@njit(cache=True, _nrt=False)
def attack_gain(
    stat: np.ndarray,
    weapon: np.ndarray,
    zone: np.ndarray,
    opts: np.ndarray,
    scar: np.ndarray,
    cs: np.ndarray,
    pools: np.ndarray,
    me: np.int64,
    t: np.int64,
    w: np.int64,
) -> float:
    """What this attack adds on top of the dice already declared (CA-06, ``pools``),
    summed over everyone it reaches (the engine sums the Fractions, then takes one
    float)."""
    blast = is_blast(stat, weapon, me, t, w)
    scars = opts[OPT.SCARS] == 1
    big_x = 0
    big_y = 0
    big_d = 1
    approx = 0.0
    exact = True
    # Everyone it reaches: its target, or each one in its blast.
    lo, hi = (0, cs.shape[0]) if blast else (t, t + 1)
    for c in range(lo, hi):
        if blast and not in_blast(stat, weapon, cs, me, t, w, c):
            continue
        n, d1, d2 = attack_dice(stat, weapon, zone, opts, cs, me, c, w)
        x, y, dd = added_terms(
            pools[c],
            n,
            d1,
            d2,
            stat[c, ST.ARMOUR],
            cs[c, CS.PI],
            cs[c, CS.FUE],
            stat[c, ST.PC] == 1,
            scars,
            scar,
        )
        if not blast and abs(x) <= SMALL_TERM and abs(y) <= SMALL_TERM and dd <= SMALL_TERM:
            # One target: (X + W·Y) / D is the same ratio whether or not it is reduced,
            # and while both terms are exact floats one division rounds it as the sum
            # below would (its int64 divisions for the gcd cost more than the odds).
            # Past those bounds the sum decides, exactly as it always does.
            num = W_DEN * x + W_NUM * y
            den = W_DEN * dd
            if abs(num) < EXACT_FLOAT and den < EXACT_FLOAT:
                return np.float64(num) / np.float64(den)
        r = _gcd(_gcd(x, y), dd)
        if r > 1:
            x //= r
            y //= r
            dd //= r
        approx += (np.float64(x) + W_FLOAT * np.float64(y)) / np.float64(dd)
        if exact:
            # Common denominator while it stays exact in int64 (always, for pools of a
            # few dice; the float sum above is only the fallback).
            r = _gcd(big_d, dd)
            lcm = big_d // r * dd
            if lcm > SMALL_TERM or abs(big_x) > SMALL_TERM or abs(big_y) > SMALL_TERM:
                exact = False
                continue
            big_x = big_x * (lcm // big_d) + x * (lcm // dd)
            big_y = big_y * (lcm // big_d) + y * (lcm // dd)
            big_d = lcm
    if not exact:
        return approx
    r = _gcd(_gcd(big_x, big_y), big_d)
    if r > 1:
        big_x //= r
        big_y //= r
        big_d //= r
    num = W_DEN * big_x + W_NUM * big_y
    den = W_DEN * big_d
    if abs(num) >= EXACT_FLOAT or den >= EXACT_FLOAT:
        return approx
    # Both exact floats, so one division rounds the exact gain correctly, as the engine's
    # float(Fraction) does.
    return np.float64(num) / np.float64(den)


# -- the vocabulary's Cairn words (agents/heuristics/cairn.py) ----------------------------------
@njit(cache=True, _nrt=False)
def side_broken(stat: np.ndarray, cs: np.ndarray, me: np.int64) -> bool:
    """``side_broken``: fewer than half its side fighting, or a lone fighter at 0 PI."""
    members, out = side_out(stat, cs, me)
    if members == 1:
        return cs[me, CS.PI] == 0
    return 2 * (members - out) < members


@njit(cache=True, _nrt=False)
def half_out(stat: np.ndarray, cs: np.ndarray, me: np.int64) -> bool:
    """``half_out``: half or more of its side is out of the fight."""
    members, out = side_out(stat, cs, me)
    return members > 1 and 2 * out >= members


@njit(cache=True, _nrt=False)
def hurt(stat: np.ndarray, cs: np.ndarray, c: np.int64) -> bool:
    """``hurt``: below half its PI, or already bleeding FUE."""
    return 2 * cs[c, CS.PI] < stat[c, ST.MAX_PI] or cs[c, CS.FUE] < stat[c, ST.MAX_FUE]


@njit(cache=True, _nrt=False)
def health(stat: np.ndarray, cs: np.ndarray, c: np.int64) -> float:
    """``health``: PI + FUE left, as a fraction of the whole (1 with neither)."""
    top = stat[c, ST.MAX_PI] + stat[c, ST.MAX_FUE]
    if top == 0:
        return 1.0
    return np.float64(cs[c, CS.PI] + cs[c, CS.FUE]) / np.float64(top)


@njit(cache=True, _nrt=False)
def move_basis(
    stat: np.ndarray, weapon: np.ndarray, dist: np.ndarray, cs: np.ndarray, me: np.int64
) -> tuple[int, int]:
    """What :func:`move_score` reads that is the same for every move of ``me``, once a
    decision: the reach of its longest ranged weapon (:func:`shot_reach`, -1 without
    one) and the hops from its zone to the nearest enemy (``foe_hops``)."""
    return shot_reach(stat, weapon, me), foe_hops(stat, dist, cs, me, cs[me, CS.ZONE], 0)


@njit(cache=True, _nrt=False)
def move_score(
    stat: np.ndarray,
    dist: np.ndarray,
    zone: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    z: np.int64,
    reach: np.int64,
    here: np.int64,
) -> float:
    """``move_score``: into cover for a shooter in reach, else closer to the nearest
    enemy. What does not depend on the zone is the caller's, once for every move:
    ``reach`` and ``here`` (:func:`move_basis`)."""
    here_zone = cs[me, CS.ZONE]
    if reach >= 0 and here <= reach:
        if zone[here_zone, ZONE.COVER] > 0:
            return -0.01
        if foe_hops(stat, dist, cs, me, z, 0) > reach:
            return -0.01
        side = stat[me, ST.SIDE]
        enemies_there = 0
        for c in range(cs.shape[0]):
            if cs[c, CS.STATUS] == ACTIVE and stat[c, ST.SIDE] != side and cs[c, CS.ZONE] == z:
                enemies_there += 1
        return COVER_WEIGHT * zone[z, ZONE.COVER] - 0.1 * enemies_there
    closer = here - foe_hops(stat, dist, cs, me, z, 0)
    return CLOSE_WEIGHT * closer - 0.001 * dist[here_zone, z]


# Inlined into the tactician's loop over its legal actions: a compiled call passes every
# field of its nine arrays, which cost more than the little it does.
@njit(cache=True, _nrt=False, inline="always")
def action_score(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    opts: np.ndarray,
    zone: np.ndarray,
    scar: np.ndarray,
    cs: np.ndarray,
    pools: np.ndarray,
    me: np.int64,
    la: np.ndarray,
    i: int,
    reach: np.int64,
    here: np.int64,
) -> float:
    """``action_score`` of row ``i``: an attack's gain, a move's score (``reach`` and
    ``here``: :func:`move_score`'s), -1 to flee."""
    verb = la[i, LA.VERB]
    if verb == ATTACK:
        return attack_gain(
            stat, weapon, zone, opts, scar, cs, pools, me, la[i, LA.TARGET], la[i, LA.ITEM]
        )
    if verb == MOVE:
        return move_score(stat, dist, zone, cs, me, la[i, LA.ZONE], reach, here)
    if verb == FLEE:
        return -1.0
    return 0.0


@njit(cache=True, _nrt=False)
def draw_best(scores: np.ndarray, n: int, arng: np.ndarray, g: np.ndarray) -> int:
    """``draw_best``: a row drawn among the ``n`` scores within 1e-12 of the best (always
    one draw, from the agents' generator)."""
    top = scores[0]
    for i in range(1, n):
        if scores[i] > top:
            top = scores[i]
    floor = top - 1e-12
    count = 0
    for i in range(n):
        if scores[i] >= floor:
            count += 1
    pick = agent_draw(arng, g, G.SUSPEND, count)
    for i in range(n):
        if scores[i] >= floor:
            if pick == 0:
                return i
            pick -= 1
    return n - 1


@njit(cache=True, _nrt=False)
def retreat(zone: np.ndarray, cs: np.ndarray, me: np.int64, la: np.ndarray, n: int) -> int:
    """``retreat``: ``huir`` if legal, else the move getting nearest an exit (-1: none;
    with no exit every zone's ``ZONE.TO_EXIT`` is -1, so no move gets nearer)."""
    i = first_of(la, n, FLEE)
    if i >= 0:
        return i
    here = zone[cs[me, CS.ZONE], ZONE.TO_EXIT]
    best = -1
    best_d = 0
    for i in range(n):
        if la[i, LA.VERB] == MOVE:
            dz = zone[la[i, LA.ZONE], ZONE.TO_EXIT]
            if dz < here and (best < 0 or dz < best_d):
                best = i
                best_d = dz
    return best


@njit(cache=True, _nrt=False)
def move_key(
    stat: np.ndarray,
    dist: np.ndarray,
    zone: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    z: np.int64,
    kind: np.int64,
    reach: np.int64,
    guard: np.int64,
    post: np.int64,
) -> tuple[int, int, int]:
    """``move_key``'s ``kind`` of key for zone ``z``, as an int triple."""
    here = cs[me, CS.ZONE]
    if kind == NEARER:
        return -foe_hops(stat, dist, cs, me, z, 0), -dist[here, z], 0
    if kind == AWAY:
        return foe_hops(stat, dist, cs, me, z, 0), zone[z, ZONE.COVER], -dist[here, z]
    if kind == POST:
        near = foe_hops(stat, dist, cs, me, z, 0)
        return (1 if near <= reach else 0), (1 if near > 0 else 0), zone[z, ZONE.COVER]
    if kind == ADVANCE:
        return -foe_hops(stat, dist, cs, me, z, 0), zone[z, ZONE.COVER], 0
    return -dist[z, guard], -dist[z, post], 0


@njit(cache=True, _nrt=False)
def best_move(
    stat: np.ndarray,
    dist: np.ndarray,
    zone: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    la: np.ndarray,
    n: int,
    kind: np.int64,
    reach: np.int64,
    guard: np.int64,
    post: np.int64,
) -> int:
    """``best_move``: the first move with the highest :func:`move_key`, if it beats
    staying (-1)."""
    best = -1
    bk = (0, 0, 0)
    for i in range(n):
        if la[i, LA.VERB] != MOVE:
            continue
        k = move_key(stat, dist, zone, cs, me, la[i, LA.ZONE], kind, reach, guard, post)
        if best < 0 or k > bk:
            best = i
            bk = k
    if best < 0:
        return -1
    if bk > move_key(stat, dist, zone, cs, me, cs[me, CS.ZONE], kind, reach, guard, post):
        return best
    return -1


@njit(cache=True, _nrt=False)
def can_shoot(weapon: np.ndarray, me: np.int64, la: np.ndarray, n: int) -> bool:
    """``can_shoot``: one of ``me``'s legal attacks is with a ranged weapon."""
    for i in range(n):
        if la[i, LA.VERB] == ATTACK and weapon[me, la[i, LA.ITEM], W.RANGED] == 1:
            return True
    return False


@njit(cache=True, _nrt=False)
def shot_reach(stat: np.ndarray, weapon: np.ndarray, me: np.int64) -> int:
    """``shot_reach``: the reach of ``me``'s longest ranged weapon."""
    reach = -1
    for w in range(stat[me, ST.WEAPONS]):
        if weapon[me, w, W.RANGED] == 1 and weapon[me, w, W.REACH] > reach:
            reach = weapon[me, w, W.REACH]
    return reach


@njit(cache=True, _nrt=False)
def _best_attack(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    step: np.ndarray,
    zone: np.ndarray,
    opts: np.ndarray,
    scar: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    decl: np.ndarray,
    hits: np.ndarray,
    pools: np.ndarray,
    me: np.int64,
    la: np.ndarray,
    n: int,
    posted: bool,
    post: tuple[int, int, int],
) -> int:
    """:func:`best_attack` over the arrays."""
    k = declared_hits(stat, weapon, zone, opts, cs, g, decl, hits, False)
    declared_pools(hits, k, pools)
    reach = shot_reach(stat, weapon, me)
    best = -1
    top = 0.0
    for i in range(n):
        if la[i, LA.VERB] != ATTACK:
            continue
        if posted:
            w = la[i, LA.ITEM]
            if weapon[me, w, W.RANGED] == 0:
                continue
            z = attack_zone(weapon, dist, step, cs, me, la[i, LA.TARGET], w)
            if move_key(stat, dist, zone, cs, me, z, POST, reach, 0, 0) < post:
                continue
        gain = attack_gain(
            stat, weapon, zone, opts, scar, cs, pools, me, la[i, LA.TARGET], la[i, LA.ITEM]
        )
        if best < 0 or gain > top:
            best = i
            top = gain
    return best


@njit(cache=True, _nrt=False, inline="always")
def best_attack(
    s: tuple, d: tuple, me: np.int64, la: np.ndarray, n: int, posted: bool, post: tuple
) -> int:
    """``best_attack``: the first attack with the highest gain; when ``posted``, only the
    shots made from a zone whose ``POST`` :func:`move_key` is at least ``post``."""
    return _best_attack(
        s[STAT],
        s[WEAPON],
        s[DIST],
        s[STEPS],
        s[ZONES],
        s[OPTS],
        s[SCARS],
        d[STATE],
        d[GLOBALS],
        d[DECL],
        d[HITS],
        d[POOLS],
        me,
        la,
        n,
        posted,
        post,
    )


@njit(cache=True, _nrt=False)
def brute_attack(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    opts: np.ndarray,
    zone: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    la: np.ndarray,
    n: int,
) -> int:
    """``brute_attack``: the nearest target first, then the hardest hit alone."""
    here = cs[me, CS.ZONE]
    best = -1
    b1 = 0
    b2 = 0.0
    for i in range(n):
        if la[i, LA.VERB] != ATTACK:
            continue
        t = la[i, LA.TARGET]
        k1 = -dist[here, cs[t, CS.ZONE]]
        k2 = expected_single(stat, weapon, zone, opts, cs, me, t, la[i, LA.ITEM])
        if best < 0 or k1 > b1 or (k1 == b1 and k2 > b2):
            best = i
            b1 = k1
            b2 = k2
    return best


@njit(cache=True, _nrt=False)
def attack_on(
    stat: np.ndarray,
    weapon: np.ndarray,
    zone: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    la: np.ndarray,
    n: int,
    target: np.int64,
) -> int:
    """``attack_on``: the attack on ``target`` that alone takes most off it, the first."""
    best = -1
    top = 0.0
    for i in range(n):
        if la[i, LA.VERB] == ATTACK and la[i, LA.TARGET] == target:
            x = expected_single(stat, weapon, zone, opts, cs, me, target, la[i, LA.ITEM])
            if best < 0 or x > top:
                best = i
                top = x
    return best


@njit(cache=True, _nrt=False)
def end_turn(la: np.ndarray, n: int) -> int:
    """``end_turn``: ``esperar``, the legal list's last action."""
    return n - 1


@njit(cache=True, _nrt=False)
def ward_of(stat: np.ndarray, cs: np.ndarray, me: np.int64) -> int:
    """``ward_of``: ``me``'s most hurt active ally (by :func:`health`), if any is hurt."""
    ward = -1
    ward_h = 0.0
    for c in range(cs.shape[0]):
        if cs[c, CS.STATUS] == ACTIVE and stat[c, ST.SIDE] == stat[me, ST.SIDE] and c != me:
            h = health(stat, cs, c)
            if h < 1.0 and (ward < 0 or h < ward_h):
                ward = c
                ward_h = h
    return ward


@njit(cache=True, _nrt=False)
def threat_of(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    zone: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    foe: np.int64,
    ward: np.int64,
) -> float:
    """``threat_of``: expected PI + FUE ``foe`` can take off ``ward`` this turn (0 if out
    of reach): its ``actions_for`` attacks on the ward."""
    best = 0.0
    hops = dist[cs[foe, CS.ZONE], cs[ward, CS.ZONE]]
    mobile = (cs[foe, CS.COND] & DESJARRETADO) == 0
    for w in range(stat[foe, ST.WEAPONS]):
        if in_reach(weapon, foe, w, hops, mobile):
            x = expected_single(stat, weapon, zone, opts, cs, foe, ward, w)
            if x > best:
                best = x
    return best


@njit(cache=True, _nrt=False)
def threat_to(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    zone: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    ward: np.int64,
) -> int:
    """``threat_to``: the enemy threatening ``ward`` most, then the nearest to it (-1:
    none)."""
    worst = -1
    w_threat = 0.0
    w_dist = 0
    for f in range(cs.shape[0]):
        if cs[f, CS.STATUS] != ACTIVE or stat[f, ST.SIDE] == stat[me, ST.SIDE]:
            continue
        th = threat_of(stat, weapon, dist, zone, opts, cs, f, ward)
        hops = dist[cs[f, CS.ZONE], cs[ward, CS.ZONE]]
        if worst < 0 or th > w_threat or (th == w_threat and hops < w_dist):
            worst = f
            w_threat = th
            w_dist = hops
    return worst


# -- temperaments ------------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def tactician(s: tuple, d: tuple, me: np.int64, la: np.ndarray, n: int, arng: np.ndarray) -> int:
    stat, weapon, dist, opts, zone, scar = s[STAT], s[WEAPON], s[DIST], s[OPTS], s[ZONES], s[SCARS]
    cs, g, decl, hits, pools, scores = d[STATE], d[GLOBALS], d[DECL], d[HITS], d[POOLS], d[SCORES]
    if side_broken(stat, cs, me):
        i = retreat(zone, cs, me, la, n)
        if i >= 0:
            return i
    declared_pools(hits, declared_hits(stat, weapon, zone, opts, cs, g, decl, hits, False), pools)
    reach, here = move_basis(stat, weapon, dist, cs, me)
    for i in range(n):
        scores[i] = action_score(
            stat, weapon, dist, opts, zone, scar, cs, pools, me, la, i, reach, here
        )
    return draw_best(scores, n, arng, g)


@njit(cache=True, _nrt=False, inline="always")
def brute(s: tuple, d: tuple, me: np.int64, la: np.ndarray, n: int) -> int:
    stat, weapon, dist, opts, zone = s[STAT], s[WEAPON], s[DIST], s[OPTS], s[ZONES]
    cs = d[STATE]
    i = brute_attack(stat, weapon, dist, opts, zone, cs, me, la, n)
    if i < 0:
        i = best_move(stat, dist, zone, cs, me, la, n, NEARER, 0, 0, 0)
    return i if i >= 0 else end_turn(la, n)


@njit(cache=True, _nrt=False, inline="always")
def cautious(s: tuple, d: tuple, me: np.int64, la: np.ndarray, n: int) -> int:
    stat, weapon, dist, zone = s[STAT], s[WEAPON], s[DIST], s[ZONES]
    cs = d[STATE]
    ranged = can_shoot(weapon, me, la, n)
    if hurt(stat, cs, me):
        i = retreat(zone, cs, me, la, n)
        if i < 0 and ranged and foe_hops(stat, dist, cs, me, cs[me, CS.ZONE], 0) <= 1:
            i = best_move(stat, dist, zone, cs, me, la, n, AWAY, 0, 0, 0)
        if i >= 0:
            return i
    if ranged:
        reach = shot_reach(stat, weapon, me)
        i = best_move(stat, dist, zone, cs, me, la, n, POST, reach, 0, 0)
        at = la[i, LA.ZONE] if i >= 0 else cs[me, CS.ZONE]
        post = move_key(stat, dist, zone, cs, me, at, POST, reach, 0, 0)
        j = best_attack(s, d, me, la, n, True, post)
        i = j if j >= 0 else i
        return i if i >= 0 else end_turn(la, n)
    i = best_attack(s, d, me, la, n, False, NO_POST)
    if i < 0:
        i = best_move(stat, dist, zone, cs, me, la, n, ADVANCE, 0, 0, 0)
    return i if i >= 0 else end_turn(la, n)


@njit(cache=True, _nrt=False, inline="always")
def coward(s: tuple, d: tuple, me: np.int64, la: np.ndarray, n: int) -> int:
    """The coward hurt or with half its side out (otherwise :func:`choose` plays it
    cautious, so the inlined cautious is compiled once)."""
    stat, dist, zone = s[STAT], s[DIST], s[ZONES]
    cs = d[STATE]
    i = retreat(zone, cs, me, la, n)
    if i < 0:
        i = best_move(stat, dist, zone, cs, me, la, n, AWAY, 0, 0, 0)
    if i < 0:
        i = best_attack(s, d, me, la, n, False, NO_POST)
    return i if i >= 0 else end_turn(la, n)


@njit(cache=True, _nrt=False, inline="always")
def protector(s: tuple, d: tuple, me: np.int64, la: np.ndarray, n: int) -> int:
    """The protector's guard of its most hurt ally, or -1: it plays the tactician
    (:func:`choose` calls it, so the inlined tactician is compiled once)."""
    stat, weapon, dist, opts, zone = s[STAT], s[WEAPON], s[DIST], s[OPTS], s[ZONES]
    cs = d[STATE]
    ward = ward_of(stat, cs, me)
    worst = threat_to(stat, weapon, dist, zone, opts, cs, me, ward) if ward >= 0 else -1
    i = -1
    if ward >= 0 and worst >= 0:
        i = attack_on(stat, weapon, zone, opts, cs, me, la, n, worst)
        if i < 0:
            guard, post = cs[worst, CS.ZONE], cs[ward, CS.ZONE]
            i = best_move(stat, dist, zone, cs, me, la, n, GUARD, 0, guard, post)
    return i


@njit(cache=True, _nrt=False, inline="always")
def choose(s: tuple, d: tuple, la: np.ndarray, n: int, mood: int, arng: np.ndarray) -> int:
    """``cairn.choose`` for temperament ``mood`` (not random; ``n ≥ 2``): the chosen row
    of the pending decision's combatant."""
    stat = s[STAT]
    cs, g = d[STATE], d[GLOBALS]
    me = g[G.ACTOR]
    if mood == dialect.BRUTE:
        return brute(s, d, me, la, n)
    if mood == dialect.COWARD:
        if hurt(stat, cs, me) or half_out(stat, cs, me):
            return coward(s, d, me, la, n)
        mood = dialect.CAUTIOUS  # the coward unhurt, its side holding
    if mood == dialect.CAUTIOUS:
        return cautious(s, d, me, la, n)
    if mood == dialect.PROTECTOR:
        i = protector(s, d, me, la, n)
        if i >= 0:
            return i
    return tactician(s, d, me, la, n, arng)


# -- the Kernel -------------------------------------------------------------------------------
KERNEL = CompiledKernel("cairn", K, sys.modules[__name__])

__all__ = ["KERNEL"]
