"""Destiny Dice temperaments compiled, and the kernel joining them to the compiled rules.

The fast path (architecture.md): :mod:`escaramuza.agents.heuristics.destiny_dice` line for
line — the same functions, the same order of steps, the same helpers (the vocabulary,
docs/fast-path.md) — over the bundles of :mod:`escaramuza.rules.destiny_dice.kernel` (its
docstring lays them out): where the engine passes ``state`` and a legal list by verb, this
passes the bundles ``s``, ``d`` or the arrays a helper reads, and the legal rows ``la, n``
with a verb's code; an action is its row, none is -1. Played by the shared loops
(``rules.core.loops``): whole battles (``agents.runner.play_battle``) and rollouts
(``agents.search.MCTS.rollout``). Every choice compares the numbers the engine compares:
the exact odds are the engine's own floats (tables built from ``exact.py``), PV fractions
are the same float divisions, and ties keep the first action as ``max`` / ``min`` do. The
shared ``decide`` draws for the random agent and the ``random`` temperament;
:func:`choose` is every other temperament.

:func:`choose`, the temperaments and the few helpers taking the bundles are inlined into
it; the helpers doing the work take the arrays they read and are compiled once
(:func:`best_attack` and :func:`best_move` hand the arrays to :func:`_best_attack` and
:func:`_best_move`).

``KERNEL`` joins them to the rules on the shared loops and Python side
(``rules.core.compiled.CompiledKernel``): it implements ``rules.core.kernel.Kernel``.
"""

from __future__ import annotations

import sys

import numpy as np

from escaramuza.agents.heuristics.destiny_dice import (
    ANY,
    APPROACH,
    AWAY,
    FROM_RANGE,
    GUARDING,
    NEARER,
    TOWARDS,
)
from escaramuza.agents.heuristics.vocabulary_kernel import first_of, first_on
from escaramuza.rules.core import dialect
from escaramuza.rules.core.compiled import CompiledKernel
from escaramuza.rules.core.dialect import ACTIVE, DIST, DOWN, GLOBALS, OPTS, STAT, STATE, WEAPON
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.legal import LA
from escaramuza.rules.destiny_dice import kernel as dk
from escaramuza.rules.destiny_dice.kernel import (
    ATACAR,
    AYUDAR,
    CONTRA,
    CS,
    CURAR,
    DROP,
    EPL,
    KIND_REACTION,
    MOVER,
    PROF,
    RECARGAR,
    RECUPERAR,
    REPOS,
    ST,
    ZONE,
    ZONES,
    G,
    band,
    foe_hops,
    most_hurt_ally,
    profile_mods,
    side_out,
    usable_band_mask,
)

_OFF = 1 << 20


# -- the vocabulary's Destiny Dice words (agents/heuristics/destiny_dice.py) ---------------
@njit(cache=True, _nrt=False, inline="always")
def _pack(a: int, b: int, c: int) -> int:
    """A 3-tuple key as one integer ordered like the tuple (fields within ±2**20)."""
    return ((a + _OFF) << 42) | ((b + _OFF) << 21) | (c + _OFF)


@njit(cache=True, _nrt=False, inline="always")
def attack_score(
    weapon: np.ndarray,
    opts: np.ndarray,
    zones: np.ndarray,
    odds: tuple,
    cs: np.ndarray,
    att: int,
    dfn: int,
    w: int,
) -> tuple[float, float]:
    """attack_score: (P(drop), expected PV lost / PV left), the engine's floats
    (``odds``: the exact-odds tables ``prof``, ``epl``, ``drop``)."""
    prof, epl, drop = odds
    att_mod, extra = profile_mods(weapon, opts, zones, cs, att, dfn, w)
    pid = prof[att, w, dfn, att_mod + 2, extra]
    pv = cs[dfn, CS.PV]
    # drop's last column stands for every PV from there up (dk._profile_tables).
    last = drop.shape[1] - 1
    return drop[pid, pv if pv < last else last], epl[pid] / (pv if pv > 1 else 1)


@njit(cache=True, _nrt=False)
def hurt(stat: np.ndarray, cs: np.ndarray, c: int) -> bool:
    """hurt: below half its PV."""
    return cs[c, CS.PV] * 2 < stat[c, ST.MAX_PV]


@njit(cache=True, _nrt=False)
def side_broken(stat: np.ndarray, cs: np.ndarray, c: int) -> bool:
    """side_broken: half of ``c``'s side or more is out of the fight."""
    members, out = side_out(stat, cs, c)
    return out * 2 >= members


@njit(cache=True, _nrt=False, inline="always")
def can_attack_from(
    stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, c: int, zone: int, mask: int
) -> bool:
    """_View.can_attack_from: a usable weapon (bands ``mask``) reaches an active foe."""
    for t in range(stat.shape[0]):
        if stat[t, ST.SIDE] != stat[c, ST.SIDE] and cs[t, CS.STATUS] == ACTIVE:
            if mask & (1 << band(dist[zone, cs[t, CS.ZONE]])):
                return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def move_key(
    stat: np.ndarray,
    dist: np.ndarray,
    zones: np.ndarray,
    cs: np.ndarray,
    c: int,
    zone: int,
    kind: int,
    arg: int,
    mask: int,
) -> int:
    """move_key's ``kind`` of key for ``zone`` (``arg``: the zone ``TOWARDS`` heads for),
    the tuple packed into one comparable integer."""
    if kind == TOWARDS:
        return _pack(-dist[zone, arg], 0, 0)
    if kind == APPROACH:
        can = 1 if can_attack_from(stat, dist, cs, c, zone, mask) else 0
        if stat[c, ST.RANGED]:
            # Shooters want a shot, out of contact, in cover.
            near = 1 if foe_hops(stat, dist, cs, c, zone, 0) > 0 else 0
            return _pack(can, near, zones[zone, ZONE.COVER])
        return _pack(can, -foe_hops(stat, dist, cs, c, zone, 0), 0)
    if kind == AWAY:
        return _pack(
            zones[zone, ZONE.EXIT], foe_hops(stat, dist, cs, c, zone, 0), zones[zone, ZONE.COVER]
        )
    return _pack(-foe_hops(stat, dist, cs, c, zone, 0), 0, 0)


@njit(cache=True, _nrt=False)
def _best_move(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    zones: np.ndarray,
    cs: np.ndarray,
    c: int,
    la: np.ndarray,
    n: int,
    verb: int,
    kind: int,
    arg: int,
) -> int:
    """best_move over ``c``'s ``verb`` rows keyed by :func:`move_key`."""
    mask = usable_band_mask(stat, weapon, cs, c) if kind == APPROACH else 0
    best = -1
    best_key = 0
    # Row n stands for staying put, keyed last: one move_key call site (it is inlined,
    # and each site is another copy to compile).
    for i in range(n + 1):
        if i < n:
            if la[i, LA.VERB] != verb:
                continue
            zone = la[i, LA.ZONE]
        elif best < 0:
            return -1
        else:
            zone = cs[c, CS.ZONE]
        key = move_key(stat, dist, zones, cs, c, zone, kind, arg, mask)
        if i == n:
            return best if best_key > key else -1
        if best < 0 or key > best_key:
            best, best_key = i, key
    return -1


@njit(cache=True, _nrt=False, inline="always")
def best_move(
    s: tuple, d: tuple, c: int, la: np.ndarray, n: int, verb: int, kind: int, arg: int
) -> int:
    """best_move (the vocabulary's) of ``c``'s ``verb`` rows by ``move_key(kind)``: the
    highest key, the first on ties, if it beats staying; -1 otherwise."""
    return _best_move(s[STAT], s[WEAPON], s[DIST], s[ZONES], d[STATE], c, la, n, verb, kind, arg)


@njit(cache=True, _nrt=False)
def _best_attack(
    weapon: np.ndarray,
    dist: np.ndarray,
    opts: np.ndarray,
    zones: np.ndarray,
    odds: tuple,
    cs: np.ndarray,
    c: int,
    la: np.ndarray,
    n: int,
    verb: int,
    among: int,
    zone: int,
) -> int:
    """best_attack over ``c``'s ``verb`` rows."""
    best = -1
    best_drop = 0.0
    best_ratio = 0.0
    for i in range(n):
        if la[i, LA.VERB] != verb:
            continue
        t = la[i, LA.TARGET]
        if among == FROM_RANGE and dist[cs[c, CS.ZONE], cs[t, CS.ZONE]] <= 0:
            continue
        if among == GUARDING and cs[t, CS.ZONE] != zone:
            continue
        p, r = attack_score(weapon, opts, zones, odds, cs, c, t, la[i, LA.ITEM])
        if best < 0 or p > best_drop or (p == best_drop and r > best_ratio):
            best, best_drop, best_ratio = i, p, r
    return best


@njit(cache=True, _nrt=False, inline="always")
def best_attack(
    s: tuple, d: tuple, c: int, la: np.ndarray, n: int, verb: int, among: int, zone: int
) -> int:
    """best_attack: the ``verb`` row with the best :func:`attack_score` (first on ties),
    of them all (``ANY``), on targets out of ``c``'s zone (``FROM_RANGE``), on targets in
    ``zone`` (``GUARDING``); -1 if there is none."""
    odds = (s[PROF], s[EPL], s[DROP])
    return _best_attack(
        s[WEAPON], s[DIST], s[OPTS], s[ZONES], odds, d[STATE], c, la, n, verb, among, zone
    )


@njit(cache=True, _nrt=False, inline="always")
def brute_attack(s: tuple, d: tuple, c: int, la: np.ndarray, n: int) -> int:
    """brute_attack: the nearest target, then the weakest, then the hardest hit (max by
    (-hops, -PV, expected damage), first on ties)."""
    dist, prof, epl = s[DIST], s[PROF], s[EPL]
    cs = d[STATE]
    best = -1
    bh = 0
    bp = 0
    be = 0.0
    for i in range(n):
        if la[i, LA.VERB] != ATACAR:
            continue
        t = la[i, LA.TARGET]
        w = la[i, LA.ITEM]
        h = -dist[cs[c, CS.ZONE], cs[t, CS.ZONE]]
        p = -cs[t, CS.PV]
        att_mod, extra = profile_mods(s[WEAPON], s[OPTS], s[ZONES], cs, c, t, w)
        e = epl[prof[c, w, t, att_mod + 2, extra]]
        if best < 0 or h > bh or (h == bh and (p > bp or (p == bp and e > be))):
            best, bh, bp, be = i, h, p, e
    return best


@njit(cache=True, _nrt=False)
def heal_worst(stat: np.ndarray, cs: np.ndarray, la: np.ndarray, n: int, threshold: float) -> int:
    """heal_worst: the heal on the ally with the lowest PV fraction, down first."""
    best = -1
    best_up = 0
    best_frac = 0.0
    for i in range(n):
        if la[i, LA.VERB] != CURAR:
            continue
        a = la[i, LA.TARGET]
        frac = cs[a, CS.PV] / stat[a, ST.MAX_PV]
        down = cs[a, CS.STATUS] == DOWN
        if down or frac < threshold:
            up = 0 if down else 1
            if best < 0 or up < best_up or (up == best_up and frac < best_frac):
                best, best_up, best_frac = i, up, frac
    return best


@njit(cache=True, _nrt=False)
def useful_help(
    stat: np.ndarray, weapon: np.ndarray, dist: np.ndarray, cs: np.ndarray, la: np.ndarray, n: int
) -> int:
    """useful_help: the first ``ayudar`` whose ally can attack from where it stands."""
    for i in range(n):
        if la[i, LA.VERB] == AYUDAR:
            a = la[i, LA.TARGET]
            mask = usable_band_mask(stat, weapon, cs, a)
            if can_attack_from(stat, dist, cs, a, cs[a, CS.ZONE], mask):
                return i
    return -1


@njit(cache=True, _nrt=False)
def upkeep(la: np.ndarray, n: int) -> int:
    """upkeep: recover the dropped weapon, else reload."""
    i = first_of(la, n, RECUPERAR)
    return i if i >= 0 else first_of(la, n, RECARGAR)


@njit(cache=True, _nrt=False)
def end_turn(la: np.ndarray, n: int) -> int:
    """end_turn: ``fin_turno`` on a turn, ``pasar`` on a reaction, the legal list's last."""
    return n - 1


@njit(cache=True, _nrt=False, inline="always")
def press(s: tuple, d: tuple, c: int, la: np.ndarray, n: int) -> int:
    """press: the best attack, else a step to attack from, else upkeep."""
    i = best_attack(s, d, c, la, n, ATACAR, ANY, 0)
    if i < 0:
        i = best_move(s, d, c, la, n, MOVER, APPROACH, 0)
    if i < 0:
        i = upkeep(la, n)
    return i


# -- the temperaments -----------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def tactician(s: tuple, d: tuple, c: int, la: np.ndarray, n: int) -> int:
    stat, weapon, dist = s[STAT], s[WEAPON], s[DIST]
    cs = d[STATE]
    i = heal_worst(stat, cs, la, n, 1 / 3)
    if i < 0:
        i = press(s, d, c, la, n)
    if i < 0:
        i = useful_help(stat, weapon, dist, cs, la, n)
    return i if i >= 0 else end_turn(la, n)


@njit(cache=True, _nrt=False, inline="always")
def brute(s: tuple, d: tuple, c: int, la: np.ndarray, n: int) -> int:
    i = brute_attack(s, d, c, la, n)
    if i < 0:
        i = best_move(s, d, c, la, n, MOVER, NEARER, 0)
    if i < 0:
        i = upkeep(la, n)
    return i if i >= 0 else end_turn(la, n)


@njit(cache=True, _nrt=False, inline="always")
def cautious(s: tuple, d: tuple, c: int, la: np.ndarray, n: int) -> int:
    stat, cs = s[STAT], d[STATE]
    i = -1
    if hurt(stat, cs, c):
        i = first_on(la, n, CURAR, c)
        if i < 0:
            i = best_move(s, d, c, la, n, MOVER, AWAY, 0)
    if i < 0:
        i = best_attack(s, d, c, la, n, ATACAR, FROM_RANGE, 0)
    if i < 0:
        i = press(s, d, c, la, n)
    return i if i >= 0 else end_turn(la, n)


@njit(cache=True, _nrt=False, inline="always")
def coward(s: tuple, d: tuple, c: int, la: np.ndarray, n: int) -> int:
    """The coward hurt or on a broken side (otherwise :func:`choose` plays it cautious, so
    the inlined cautious is compiled once)."""
    i = best_move(s, d, c, la, n, MOVER, AWAY, 0)
    if i < 0:
        # Cornered (no step takes it further away): it fights back.
        i = best_attack(s, d, c, la, n, ATACAR, ANY, 0)
    return i if i >= 0 else end_turn(la, n)


@njit(cache=True, _nrt=False, inline="always")
def protector(s: tuple, d: tuple, c: int, la: np.ndarray, n: int) -> int:
    stat, weapon, dist = s[STAT], s[WEAPON], s[DIST]
    cs = d[STATE]
    i = heal_worst(stat, cs, la, n, 2 / 3)
    ward = most_hurt_ally(stat, cs, c, CS.PV, ST.MAX_PV)
    if i < 0 and ward >= 0:
        i = best_attack(s, d, c, la, n, ATACAR, GUARDING, cs[ward, CS.ZONE])
    if i < 0:
        i = useful_help(stat, weapon, dist, cs, la, n)
    if i < 0:
        i = best_attack(s, d, c, la, n, ATACAR, ANY, 0)
    if i < 0 and ward >= 0:
        i = best_move(s, d, c, la, n, MOVER, TOWARDS, cs[ward, CS.ZONE])
    if i < 0:
        i = upkeep(la, n)
    return i if i >= 0 else end_turn(la, n)


@njit(cache=True, _nrt=False, inline="always")
def react(s: tuple, d: tuple, c: int, la: np.ndarray, n: int, mood: int) -> int:
    """react: DD-08's reaction to a perfect defence, a free attack unless running is the
    plan."""
    stat, cs = s[STAT], d[STATE]
    fleeing = mood == dialect.COWARD and (hurt(stat, cs, c) or side_broken(stat, cs, c))
    i = -1
    if not fleeing:
        i = best_attack(s, d, c, la, n, CONTRA, ANY, 0)
    if i < 0 and (fleeing or (mood == dialect.CAUTIOUS and hurt(stat, cs, c))):
        i = best_move(s, d, c, la, n, REPOS, AWAY, 0)
    return i if i >= 0 else end_turn(la, n)


@njit(cache=True, _nrt=False, inline="always")
def choose(s: tuple, d: tuple, la: np.ndarray, n: int, mood: int, arng: np.ndarray) -> int:
    """choose: the row of the legal list temperament ``mood`` picks (never the random
    temperament, which the shared ``decide`` plays; no other one draws)."""
    stat, cs, g = s[STAT], d[STATE], d[GLOBALS]
    c = g[G.ACTOR]
    if g[G.KIND] == KIND_REACTION:
        return react(s, d, c, la, n, mood)
    if mood == dialect.BRUTE:
        return brute(s, d, c, la, n)
    if mood == dialect.COWARD:
        if hurt(stat, cs, c) or side_broken(stat, cs, c):
            return coward(s, d, c, la, n)
        mood = dialect.CAUTIOUS  # the coward unhurt, on a side holding
    if mood == dialect.CAUTIOUS:
        return cautious(s, d, c, la, n)
    if mood == dialect.PROTECTOR:
        return protector(s, d, c, la, n)
    return tactician(s, d, c, la, n)


# -- the Kernel -------------------------------------------------------------------------
KERNEL = CompiledKernel("destiny_dice", dk, sys.modules[__name__])

__all__ = ["KERNEL"]
