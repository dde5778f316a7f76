"""The Sistema 2d10 temperaments compiled with numba.

architecture.md, "The fast path": ``agents/heuristics/sistema_2d10.py`` function by
function over the bundles of ``rules/sistema_2d10/kernel.py`` (its docstring lists them),
drawing the agents' choices from the agents' generator as ``heuristic_choice`` does
(``rules.core.loops.agent_draw``), so a kernel battle is the engine's battle. Decisions
compare the same numbers as the engine: the exact odds come from the same integer counts
and the same float operations in the same order (``kernel.attack_odds``), the heuristic's
thresholds are its own constants, and one table follows the rules' in the static bundle,
at :data:`HURTS`: ``p_hurts`` of every (attacker, weapon, target), P(daño > CA).

:func:`choose` is the loops' hook (``rules.core.loops``); :data:`KERNEL`, a
:class:`~escaramuza.rules.core.compiled.CompiledKernel` that appends that table to the
rules' export, is the driver's kernel.
"""

from __future__ import annotations

import dataclasses
import sys
from fractions import Fraction

import numpy as np

from escaramuza.agents.heuristics import sistema_2d10 as heuristic
from escaramuza.agents.heuristics.sistema_2d10 import AWAY, CLOSE, FLEE, GUARD, NEAR
from escaramuza.agents.heuristics.vocabulary_kernel import first_of
from escaramuza.rules.core import dialect
from escaramuza.rules.core.compiled import CompiledKernel, Exported
from escaramuza.rules.core.dialect import ACTIVE, DIST, GLOBALS, OPTS, STAT, STATE, WEAPON
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.legal import LA
from escaramuza.rules.core.loops import TEMPERAMENTS, agent_draw
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.sistema_2d10 import kernel as k
from escaramuza.rules.sistema_2d10.kernel import (
    ACTIVE_DEFENCE,
    AGUANTE,
    ATACAR,
    CEDER_DADO,
    CS,
    DEFENSA_COMPLETA,
    EXPRES_AFTER,
    EXPRES_BEFORE,
    MOVER,
    OPT,
    PASAR,
    PICKS,
    PLACES,
    SCORES,
    ST,
    SUCC,
    ZONE,
    ZONES,
    G,
    W,
    foe_hops,
    most_hurt_ally,
    side_out,
)

#: Temperaments that defend actively against any blow that can hurt (``WARY``).
WARY = tuple(TEMPERAMENTS.index(t) for t in heuristic.WARY)
#: The index lists of ``picks`` (the dynamic bundle's): attacks, moves, a subset of
#: either, close-in moves, the best attacks' tie.
PICK_ATTACKS, PICK_MOVES, PICK_SOME, PICK_CLOSE, PICK_TOP = 0, 1, 2, 3, 4
#: The static bundle's place of ``hurts[a, w, t]`` (the module's docstring): after the
#: rules' tables.
HURTS = ZONES + 1
#: ``k.attack_terms``' shape, for a (target, weapon) not worked out yet (never read): the
#: attack loops work out each pair's terms at one call site, not one before the loop too
#: (each site inlines them: about 600 statements of a first compile).
NO_TERMS = (0, 0, False, 0, 0.0)


def block_min() -> int:
    """The fewest thousandths ``p_block >= BLOCK_THRESHOLD`` accepts (a Fraction against a
    float, compared exactly as the engine compares them)."""
    return next(c for c in range(1002) if Fraction(c, 1000) >= heuristic.BLOCK_THRESHOLD)


#: The heuristic's thresholds: the tactician and the brute defend from this P(hurt),
#: when the block is at least this many thousandths; a Dado Exprés after the roll from
#: this P(flip).
HURT_THRESHOLD = heuristic.HURT_THRESHOLD
BLOCK_MIN = block_min()
FLIP_THRESHOLD = heuristic.FLIP_THRESHOLD


# -- the vocabulary's Sistema 2d10 words ---------------------------------------------


@njit(cache=True, _nrt=False)
def gap(stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, c: int, zone: int) -> int:
    """``gap``: hops still to cover before the nearest foe is in reach of a weapon."""
    return foe_hops(stat, dist, cs, c, zone, stat[c, ST.REACH])


@njit(cache=True, _nrt=False)
def can_shoot_from(stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, c: int, zone: int) -> bool:
    """``can_shoot_from``: a ranged weapon reaches a foe not in ``zone``."""
    ranged = stat[c, ST.RANGED]
    if ranged == 0:
        return False
    for f in range(cs.shape[0]):
        if cs[f, CS.STATUS] == ACTIVE and stat[f, ST.SIDE] != stat[c, ST.SIDE]:
            hops = dist[zone, cs[f, CS.ZONE]]
            if 0 < hops <= ranged:
                return True
    return False


@njit(cache=True, _nrt=False)
def hurt(stat: np.ndarray, cs: np.ndarray, c: int) -> bool:
    """``hurt``: below half its PV."""
    return cs[c, CS.PV] * 2 < stat[c, ST.PV]


@njit(cache=True, _nrt=False)
def very_hurt(stat: np.ndarray, cs: np.ndarray, c: int) -> bool:
    """``very_hurt``: at a third of its PV or less."""
    return cs[c, CS.PV] * 3 <= stat[c, ST.PV]


@njit(cache=True, _nrt=False)
def side_broken(stat: np.ndarray, cs: np.ndarray, c: int) -> bool:
    """``side_broken``: half its side or more out of the fight."""
    members, out = side_out(stat, cs, c)
    return out * 2 >= members


@njit(cache=True, _nrt=False)
def tactical_score(cs: np.ndarray, t: int, p_hit: float, expected: float, p_drop: float) -> float:
    """``tactical_score``: P(drop) + min(P(hit), E[damage] / PV)."""
    value = expected / np.float64(max(1, cs[t, CS.PV]))
    return p_drop + (value if value < p_hit else p_hit)


@njit(cache=True, _nrt=False)
def best_attack(
    s: tuple,
    d: tuple,
    c: int,
    la: np.ndarray,
    idx: np.ndarray,
    cnt: int,
    arng: np.ndarray,
) -> int:
    """``best_attack`` over ``la[idx[:cnt]]``: the best tactical score if > 0 (ties by
    ``rng.randrange``); -1 for none."""
    if cnt == 0:
        return -1
    cs, g, picks, scores = d[STATE], d[GLOBALS], d[PICKS], d[SCORES]
    best = -np.inf
    # The aimed variants of one (target, weapon) are listed together: their shared
    # terms once, as Sistema2d10.attack_odds_many does.
    t_last, w_last = -1, -1
    terms = NO_TERMS
    for m in range(cnt):
        i = idx[m]
        t, w = la[i, LA.TARGET], la[i, LA.ITEM]
        if t != t_last or w != w_last:
            terms = k.attack_terms(s, cs, c, w, t)
            t_last, w_last = t, w
        p_hit, expected, p_drop = k.aimed_odds(s, cs, c, w, t, la[i, LA.OPTION], terms)
        scores[m] = tactical_score(cs, t, p_hit, expected, p_drop)
        if m == 0 or scores[m] > best:
            best = scores[m]
    if best <= 0:
        return -1
    top = picks[PICK_TOP]
    ntop = 0
    for m in range(cnt):
        if scores[m] >= best - 1e-12:
            top[ntop] = idx[m]
            ntop += 1
    if ntop > 1:
        return top[agent_draw(arng, g, G.SUSPEND, ntop)]
    return top[0]


@njit(cache=True, _nrt=False, inline="always")
def brute_attack(s: tuple, d: tuple, c: int, la: np.ndarray, idx: np.ndarray, cnt: int) -> int:
    """``brute_attack``: on the nearest target it can reach, the most expected damage."""
    dist = s[DIST]
    cs = d[STATE]
    if cnt == 0:
        return -1
    here = cs[c, CS.ZONE]
    near = -1
    for m in range(cnt):
        hops = dist[here, cs[la[idx[m], LA.TARGET], CS.ZONE]]
        if near < 0 or hops < near:
            near = hops
    best = -1
    best_v = 0.0
    t_last, w_last = -1, -1
    terms = NO_TERMS
    for m in range(cnt):
        i = idx[m]
        t, w = la[i, LA.TARGET], la[i, LA.ITEM]
        if dist[here, cs[t, CS.ZONE]] != near:
            continue
        if t != t_last or w != w_last:
            terms = k.attack_terms(s, cs, c, w, t)
            t_last, w_last = t, w
        v = k.aimed_odds(s, cs, c, w, t, la[i, LA.OPTION], terms)[1]
        if best < 0 or v > best_v:
            best = i
            best_v = v
    return best


@njit(cache=True, _nrt=False)
def move_key(
    stat: np.ndarray,
    dist: np.ndarray,
    zones: np.ndarray,
    cs: np.ndarray,
    c: int,
    zone: int,
    kind: int,
    threat: int,
) -> tuple[int, int, int]:
    """``move_key``'s ``kind`` of key for ``zone``, as a 3-integer tuple."""
    if kind == CLOSE:
        return -gap(stat, dist, cs, c, zone), 0, 0
    if kind == NEAR:
        return -foe_hops(stat, dist, cs, c, zone, 0), 0, 0
    if kind == AWAY:
        shoots = 1 if can_shoot_from(stat, dist, cs, c, zone) else 0
        return foe_hops(stat, dist, cs, c, zone, 0), shoots, 0
    if kind == FLEE:
        far = foe_hops(stat, dist, cs, c, zone, 0)
        return zones[zone, ZONE.EXIT], far, -zones[zone, ZONE.TO_EXIT]
    return -max(0, dist[zone, cs[threat, CS.ZONE]] - stat[c, ST.REACH]), 0, 0


@njit(cache=True, _nrt=False)
def best_move(
    stat: np.ndarray,
    dist: np.ndarray,
    zones: np.ndarray,
    cs: np.ndarray,
    c: int,
    la: np.ndarray,
    idx: np.ndarray,
    cnt: int,
    kind: int,
    threat: int,
) -> int:
    """``best_move``: the first move of ``la[idx[:cnt]]`` with the highest key, if it
    beats staying; -1 otherwise."""
    if cnt == 0:
        return -1
    best = idx[0]
    bk = move_key(stat, dist, zones, cs, c, la[best, LA.ZONE], kind, threat)
    for m in range(1, cnt):
        key = move_key(stat, dist, zones, cs, c, la[idx[m], LA.ZONE], kind, threat)
        if key > bk:
            best = idx[m]
            bk = key
    stay = move_key(stat, dist, zones, cs, c, cs[c, CS.ZONE], kind, threat)
    return best if bk > stay else -1


@njit(cache=True, _nrt=False)
def of_verb(la: np.ndarray, cnt: int, verb: int, out: np.ndarray) -> int:
    """``of_verb``: the rows of ``verb`` into ``out``, in order; returns how many."""
    m = 0
    for i in range(cnt):
        if la[i, LA.VERB] == verb:
            out[m] = i
            m += 1
    return m


@njit(cache=True, _nrt=False)
def full_or_pass(la: np.ndarray, cnt: int) -> int:
    """``full_or_pass``: defensa completa, else pasar, else the last action."""
    i = first_of(la, cnt, DEFENSA_COMPLETA)
    if i < 0:
        i = first_of(la, cnt, PASAR)
    return i if i >= 0 else cnt - 1


@njit(cache=True, _nrt=False)
def end_turn(la: np.ndarray, cnt: int) -> int:
    """``end_turn``: pasar, else the last action."""
    i = first_of(la, cnt, PASAR)
    return i if i >= 0 else cnt - 1


@njit(cache=True, _nrt=False, inline="always")
def close_in(s: tuple, d: tuple, c: int, la: np.ndarray, cnt: int) -> int:
    """``close_in``: a step that brings the nearest foe closer to a weapon's reach."""
    moves = d[PICKS][PICK_CLOSE]
    nm = of_verb(la, cnt, MOVER, moves)
    return best_move(s[STAT], s[DIST], s[ZONES], d[STATE], c, la, moves, nm, CLOSE, -1)


@njit(cache=True, _nrt=False)
def spare_die(cs: np.ndarray, c: int, la: np.ndarray, cnt: int) -> int:
    """``spare_die``: holding two or more, a Dado Exprés to the first ally offered one."""
    if cs[c, CS.DADOS_EXPRES] < 2:
        return -1
    return first_of(la, cnt, CEDER_DADO)


@njit(cache=True, _nrt=False)
def gift_die(stat: np.ndarray, cs: np.ndarray, la: np.ndarray, cnt: int) -> int:
    """``gift_die``: to the most hurt ally offered a Dado Exprés (``min`` by PV fraction);
    -1 for none."""
    gift = -1
    g_v = 0.0
    for i in range(cnt):
        if la[i, LA.VERB] == CEDER_DADO:
            ally = la[i, LA.TARGET]
            v = cs[ally, CS.PV] / stat[ally, ST.PV]
            if gift < 0 or v < g_v:
                gift = i
                g_v = v
    return gift


@njit(cache=True, _nrt=False)
def from_range(
    dist: np.ndarray,
    cs: np.ndarray,
    c: int,
    la: np.ndarray,
    idx: np.ndarray,
    cnt: int,
    out: np.ndarray,
) -> int:
    """``from_range``: the rows of ``la[idx[:cnt]]`` on targets out of ``c``'s zone, into
    ``out``; returns how many."""
    m = 0
    for j in range(cnt):
        if dist[cs[c, CS.ZONE], cs[la[idx[j], LA.TARGET], CS.ZONE]] > 0:
            out[m] = idx[j]
            m += 1
    return m


@njit(cache=True, _nrt=False)
def aimed_at(la: np.ndarray, idx: np.ndarray, cnt: int, target: int, out: np.ndarray) -> int:
    """``aimed_at``: the rows of ``la[idx[:cnt]]`` on ``target``, into ``out``; returns
    how many."""
    m = 0
    for j in range(cnt):
        if la[idx[j], LA.TARGET] == target:
            out[m] = idx[j]
            m += 1
    return m


@njit(cache=True, _nrt=False)
def shot_step(
    stat: np.ndarray,
    dist: np.ndarray,
    cs: np.ndarray,
    c: int,
    la: np.ndarray,
    idx: np.ndarray,
    cnt: int,
) -> int:
    """``shot_step``: the first step out of contact to a zone ``c`` can still shoot from."""
    for j in range(cnt):
        z = la[idx[j], LA.ZONE]
        if foe_hops(stat, dist, cs, c, z, 0) > 0 and can_shoot_from(stat, dist, cs, c, z):
            return idx[j]
    return -1


@njit(cache=True, _nrt=False)
def safe_moves(
    stat: np.ndarray,
    dist: np.ndarray,
    cs: np.ndarray,
    c: int,
    la: np.ndarray,
    cnt: int,
    out: np.ndarray,
) -> int:
    """``safe_moves``: the steps keeping at least the current distance to the nearest
    foe, into ``out``; returns how many."""
    here = foe_hops(stat, dist, cs, c, cs[c, CS.ZONE], 0)
    m = 0
    for i in range(cnt):
        if la[i, LA.VERB] == MOVER and foe_hops(stat, dist, cs, c, la[i, LA.ZONE], 0) >= here:
            out[m] = i
            m += 1
    return m


@njit(cache=True, _nrt=False, inline="always")
def threat_of(s: tuple, cs: np.ndarray, foe: int, ward: int) -> float:
    """``threat_of``: the largest expected damage of a free attack ``foe`` can make on
    ``ward``."""
    stat, weapon, dist = s[STAT], s[WEAPON], s[DIST]
    hops = dist[cs[foe, CS.ZONE], cs[ward, CS.ZONE]]
    best = 0.0
    found = False
    for w in range(stat[foe, ST.WEAPONS]):
        if weapon[foe, w, W.REACH] >= hops:
            v = k.attack_odds(s, cs, foe, w, ward, -1)[1]
            if not found or v > best:
                best = v
                found = True
    return best


@njit(cache=True, _nrt=False, inline="always")
def threat_to(s: tuple, cs: np.ndarray, c: int, ward: int) -> int:
    """``threat_to``: the foe with the largest (``threat_of``, −distance to the ward),
    first on ties."""
    stat, dist = s[STAT], s[DIST]
    threat = -1
    t_v = 0.0
    t_d = 0
    for f in range(cs.shape[0]):
        if cs[f, CS.STATUS] == ACTIVE and stat[f, ST.SIDE] != stat[c, ST.SIDE]:
            v = threat_of(s, cs, f, ward)
            hops = -dist[cs[f, CS.ZONE], cs[ward, CS.ZONE]]
            if threat < 0 or v > t_v or (v == t_v and hops > t_d):
                threat = f
                t_v = v
                t_d = hops
    return threat


# -- reactions ----------------------------------------------------------------------


@njit(cache=True, _nrt=False, inline="always")
def defend(s: tuple, d: tuple, mood: int) -> int:
    """``defend``: 0 (defender) or 1 (no_defender)."""
    stat, weapon, opts, places, succ_table = s[STAT], s[WEAPON], s[OPTS], s[PLACES], s[SUCC]
    cs, g = d[STATE], d[GLOBALS]
    a, w, t = g[G.ATTACKER], g[G.WEAPON], g[G.TARGET]
    kind = weapon[a, w, W.KIND]
    if g[G.CRITICAL] == 1:
        blocks = opts[OPT.CRITICAL_BLOCK]  # only a crítico blocks a crítico
    else:
        mode = 1 if cs[t, CS.DADOS_EXPRES] > 0 else 0
        defence = k.defence_bonus(stat, cs, opts, places, t, kind)
        blocks = k.succ(succ_table, mode, g[G.TOTAL] + opts[OPT.ACTIVE_GT] - defence)
    p = s[HURTS][a, w, t]
    wary = False
    for m in WARY:
        if mood == m:
            wary = True
    worth = p > 0 if wary else p >= HURT_THRESHOLD
    return 0 if worth and blocks >= BLOCK_MIN else 1


@njit(cache=True, _nrt=False, inline="always")
def expres(s: tuple, g: np.ndarray) -> int:
    """``expres``: 0 (gastar) after the roll when the die flips it often enough."""
    if g[G.KIND] != EXPRES_AFTER:
        return 1
    stat, weapon, opts = s[STAT], s[WEAPON], s[OPTS]
    total, success, critical, fumble = k.judge_pending(stat, weapon, opts, g)
    difficulty = k.difficulty_of(stat, weapon, opts, g)
    if critical or fumble:
        flip = 0.0
    elif g[G.PURPOSE] == AGUANTE and total == difficulty:
        flip = 1.0
    elif success:
        flip = 0.0
    else:
        need = difficulty - total
        flip = max(0, 11 - need) / 10 if need <= 10 else 0.0
    return 0 if flip >= FLIP_THRESHOLD else 1


# -- temperaments -------------------------------------------------------------------


@njit(cache=True, _nrt=False, inline="always")
def tactician(s: tuple, d: tuple, c: int, la: np.ndarray, cnt: int, arng: np.ndarray) -> int:
    cs, picks = d[STATE], d[PICKS]
    attacks = picks[PICK_ATTACKS]
    na = of_verb(la, cnt, ATACAR, attacks)
    i = best_attack(s, d, c, la, attacks, na, arng)
    if i < 0:
        i = close_in(s, d, c, la, cnt)
    if i < 0:
        i = spare_die(cs, c, la, cnt)
    return i if i >= 0 else full_or_pass(la, cnt)


@njit(cache=True, _nrt=False, inline="always")
def brute(s: tuple, d: tuple, c: int, la: np.ndarray, cnt: int) -> int:
    stat, dist, zones = s[STAT], s[DIST], s[ZONES]
    cs, picks = d[STATE], d[PICKS]
    attacks = picks[PICK_ATTACKS]
    na = of_verb(la, cnt, ATACAR, attacks)
    i = brute_attack(s, d, c, la, attacks, na)
    if i < 0:
        moves = picks[PICK_MOVES]
        nm = of_verb(la, cnt, MOVER, moves)
        i = best_move(stat, dist, zones, cs, c, la, moves, nm, NEAR, -1)
    # "never defends fully": no defensa completa, it just ends the turn.
    return i if i >= 0 else end_turn(la, cnt)


@njit(cache=True, _nrt=False, inline="always")
def cautious(
    s: tuple,
    d: tuple,
    c: int,
    la: np.ndarray,
    cnt: int,
    arng: np.ndarray,
    advance: bool,
) -> int:
    """The cautious temperament (``advance`` False: the coward unhurt, its side holding)."""
    stat, dist, zones = s[STAT], s[DIST], s[ZONES]
    cs, picks = d[STATE], d[PICKS]
    full = first_of(la, cnt, DEFENSA_COMPLETA)
    if very_hurt(stat, cs, c) and full >= 0:
        return full
    moves = picks[PICK_MOVES]
    nm = of_verb(la, cnt, MOVER, moves)
    if hurt(stat, cs, c):
        i = best_move(stat, dist, zones, cs, c, la, moves, nm, AWAY, -1)
        if i >= 0:
            return i
        if full >= 0:
            return full
    attacks = picks[PICK_ATTACKS]
    na = of_verb(la, cnt, ATACAR, attacks)
    i = -1
    if foe_hops(stat, dist, cs, c, cs[c, CS.ZONE], 0) == 0 and not hurt(stat, cs, c):
        # Keep the firearm's range: step out of contact to a zone it can still shoot from.
        i = shot_step(stat, dist, cs, c, la, moves, nm)
    if i < 0:
        ranged = picks[PICK_SOME]
        i = best_attack(s, d, c, la, ranged, from_range(dist, cs, c, la, attacks, na, ranged), arng)
    if i < 0:
        i = best_attack(s, d, c, la, attacks, na, arng)
    if i < 0 and advance:
        i = close_in(s, d, c, la, cnt)
    return i if i >= 0 else full_or_pass(la, cnt)


@njit(cache=True, _nrt=False, inline="always")
def coward(s: tuple, d: tuple, c: int, la: np.ndarray, cnt: int, arng: np.ndarray) -> int:
    """The coward hurt or on a broken side (otherwise :func:`choose` plays it cautious,
    never advancing, so the inlined cautious is compiled once)."""
    stat, dist, zones = s[STAT], s[DIST], s[ZONES]
    cs, picks = d[STATE], d[PICKS]
    # "never advances": only steps that keep at least the current distance.
    safe = picks[PICK_SOME]
    i = best_move(
        stat, dist, zones, cs, c, la, safe, safe_moves(stat, dist, cs, c, la, cnt, safe), FLEE, -1
    )
    if i < 0:
        # Cornered: it fights back if it can, else it cowers in defensa completa.
        attacks = picks[PICK_ATTACKS]
        i = best_attack(s, d, c, la, attacks, of_verb(la, cnt, ATACAR, attacks), arng)
    return i if i >= 0 else full_or_pass(la, cnt)


@njit(cache=True, _nrt=False, inline="always")
def protector(s: tuple, d: tuple, c: int, la: np.ndarray, cnt: int, arng: np.ndarray) -> int:
    stat, dist, zones = s[STAT], s[DIST], s[ZONES]
    cs, picks = d[STATE], d[PICKS]
    ward = most_hurt_ally(stat, cs, c, CS.PV, ST.PV)
    threat = threat_to(s, cs, c, ward) if ward >= 0 else -1
    attacks = picks[PICK_ATTACKS]
    na = of_verb(la, cnt, ATACAR, attacks)
    i = -1
    if threat >= 0:
        guard = picks[PICK_SOME]
        i = best_attack(s, d, c, la, guard, aimed_at(la, attacks, na, threat, guard), arng)
    if i < 0:
        i = gift_die(stat, cs, la, cnt)
    if i < 0 and threat >= 0:
        moves = picks[PICK_MOVES]
        i = best_move(
            stat, dist, zones, cs, c, la, moves, of_verb(la, cnt, MOVER, moves), GUARD, threat
        )
    if i < 0:
        i = best_attack(s, d, c, la, attacks, na, arng)
    if i < 0:
        i = close_in(s, d, c, la, cnt)
    return i if i >= 0 else full_or_pass(la, cnt)


# -- the loops' hooks (rules.core.loops) ----------------------------------------------


@njit(cache=True, _nrt=False, inline="always")
def choose(s: tuple, d: tuple, la: np.ndarray, n: int, mood: int, arng: np.ndarray) -> int:
    """``choose`` of ``agents/heuristics/sistema_2d10.py`` for temperament ``mood``."""
    stat, cs, g = s[STAT], d[STATE], d[GLOBALS]
    kind = g[G.KIND]
    if kind == ACTIVE_DEFENCE:
        return defend(s, d, mood)
    if kind == EXPRES_BEFORE or kind == EXPRES_AFTER:
        return expres(s, g)
    c = g[G.ACTOR]
    if mood == dialect.BRUTE:
        return brute(s, d, c, la, n)
    advance = True
    if mood == dialect.COWARD:
        if hurt(stat, cs, c) or side_broken(stat, cs, c):
            return coward(s, d, c, la, n, arng)
        mood = dialect.CAUTIOUS  # the coward unhurt, its side holding: cautious, no advance
        advance = False
    if mood == dialect.CAUTIOUS:
        return cautious(s, d, c, la, n, arng, advance)
    if mood == dialect.PROTECTOR:
        return protector(s, d, c, la, n, arng)
    return tactician(s, d, c, la, n, arng)


# -- the kernel ------------------------------------------------------------------------


def hurts_table(scenario: Scenario, maxw: int) -> np.ndarray:
    """``hurts[a, w, t]`` (the module's docstring): ``heuristic.p_hurts`` of every
    (attacker, weapon, target), summed as the engine sums it."""
    combatants = scenario.combatants
    n = len(combatants)
    hurts = np.zeros((n, maxw, n), np.float64)
    for a, attacker in enumerate(combatants):
        for w, wp in enumerate(attacker.data["profile"].weapons):
            dist = wp.damage.distribution()
            for t, target in enumerate(combatants):
                ca = target.stats.ca
                hurts[a, w, t] = sum(p for v, p in dist.items() if v > ca)
    return hurts


class Sistema2d10Kernel(CompiledKernel):
    """The Sistema 2d10 kernel (S2-01 … S2-15 and the five temperaments + random): the
    shared one, whose export carries the temperaments' table (:data:`HURTS`)."""

    def __init__(self) -> None:
        super().__init__("sistema_2d10", k, sys.modules[__name__])

    def export_scenario(self, scenario: Scenario) -> Exported:
        exported = k.export_scenario(scenario)
        hurts = hurts_table(scenario, exported.static[WEAPON].shape[1])
        static = (*exported.static, hurts)
        assert len(static) == HURTS + 1
        return dataclasses.replace(exported, static=static)


KERNEL = Sistema2d10Kernel()

__all__ = ["KERNEL", "Sistema2d10Kernel"]
