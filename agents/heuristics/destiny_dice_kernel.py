"""Destiny Dice temperaments compiled, and the kernel joining them to the compiled rules.

The fast path (architecture.md): :mod:`escaramuza.agents.heuristics.destiny_dice`
function by function over the bundles of :mod:`escaramuza.rules.destiny_dice.kernel`
(its docstring lays them out), played by the shared loops (``rules.core.loops``):
whole battles (``agents.runner.play_battle``) and rollouts (``agents.search.MCTS.
rollout``). Every choice compares the numbers the engine compares: the exact odds are
the engine's own floats (tables built from ``exact.py``), PV fractions are the same
float divisions, and ties keep the first action as ``max`` / ``min`` do. The shared
``decide`` draws for the random agent and the ``random`` temperament; :func:`choose`
is every other temperament.

:func:`choose` and the temperaments inlined into it take the bundles; the helpers they
call take the arrays they read and are compiled once (``_pick_attack`` and
``_pick_move`` hand the pending actor's arrays to :func:`_best_attack` and
:func:`_best_move`).

``KERNEL`` joins them to the rules on the shared loops and Python side
(``rules.core.compiled.CompiledKernel``): it implements ``rules.core.kernel.Kernel``.
"""

from __future__ import annotations

import sys

import numpy as np

from escaramuza.rules.core import dialect
from escaramuza.rules.core.compiled import CompiledKernel
from escaramuza.rules.core.dialect import ACTIVE, DIST, DOWN, GLOBALS, OPTS, STAT, STATE, WEAPON
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.mechanics import first_row
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
    ROW,
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

#: Move keys (``_best_move``'s key functions), packed into one comparable integer.
K_APPROACH, K_AWAY, K_BRUTE, K_WARD = range(4)
_OFF = 1 << 20


# -- the temperaments (agents/heuristics/destiny_dice.py) ---------------------------
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
    mode: int,
    arg: int,
) -> int:
    """``max(attacks, key=attack_score)`` (first on ties) over ``c``'s ``verb`` rows;
    mode 1 keeps targets not in the actor's zone (cautious), mode 2 targets in zone
    ``arg`` (protector's guarding). -1 if there is none."""
    best = -1
    best_drop = 0.0
    best_ratio = 0.0
    for i in range(n):
        if la[i, ROW.VERB] != verb:
            continue
        t = la[i, ROW.TARGET]
        if mode == 1 and dist[cs[c, CS.ZONE], cs[t, CS.ZONE]] <= 0:
            continue
        if mode == 2 and cs[t, CS.ZONE] != arg:
            continue
        p, r = attack_score(weapon, opts, zones, odds, cs, c, t, la[i, ROW.ITEM])
        if best < 0 or p > best_drop or (p == best_drop and r > best_ratio):
            best, best_drop, best_ratio = i, p, r
    return best


@njit(cache=True, _nrt=False, inline="always")
def _pick_attack(s: tuple, d: tuple, la: np.ndarray, n: int, verb: int, mode: int, arg: int) -> int:
    """:func:`_best_attack` of the pending decision's actor."""
    return _best_attack(
        s[WEAPON],
        s[DIST],
        s[OPTS],
        s[ZONES],
        (s[PROF], s[EPL], s[DROP]),
        d[STATE],
        d[GLOBALS][G.ACTOR],
        la,
        n,
        verb,
        mode,
        arg,
    )


@njit(cache=True, _nrt=False, inline="always")
def _can_attack_from(
    stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, c: int, zone: int, mask: int
) -> bool:
    """_View.can_attack_from: a usable weapon (bands ``mask``) reaches an active foe."""
    for t in range(stat.shape[0]):
        if stat[t, ST.SIDE] != stat[c, ST.SIDE] and cs[t, CS.STATUS] == ACTIVE:
            if mask & (1 << band(dist[zone, cs[t, CS.ZONE]])):
                return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def _move_key(
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
    """_approach_key / _away_key / the brute's and the protector's keys for ``zone``."""
    if kind == K_APPROACH:
        can = 1 if _can_attack_from(stat, dist, cs, c, zone, mask) else 0
        if stat[c, ST.RANGED]:
            # Shooters want a shot, out of contact, in cover.
            near = 1 if foe_hops(stat, dist, cs, c, zone, 0) > 0 else 0
            return _pack(can, near, zones[zone, ZONE.COVER])
        return _pack(can, -foe_hops(stat, dist, cs, c, zone, 0), 0)
    if kind == K_AWAY:
        return _pack(
            zones[zone, ZONE.EXIT], foe_hops(stat, dist, cs, c, zone, 0), zones[zone, ZONE.COVER]
        )
    if kind == K_BRUTE:
        return _pack(-foe_hops(stat, dist, cs, c, zone, 0), 0, 0)
    return _pack(-dist[zone, arg], 0, 0)


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
    """_best_move for ``c``: the step with the highest key if it beats staying; -1
    otherwise."""
    mask = usable_band_mask(stat, weapon, cs, c) if kind == K_APPROACH else 0
    best = -1
    best_key = 0
    # Row n stands for staying put, keyed last: one _move_key call site (it is inlined,
    # and each site is another copy to compile).
    for i in range(n + 1):
        if i < n:
            if la[i, ROW.VERB] != verb:
                continue
            zone = la[i, ROW.ZONE]
        elif best < 0:
            return -1
        else:
            zone = cs[c, CS.ZONE]
        key = _move_key(stat, dist, zones, cs, c, zone, kind, arg, mask)
        if i == n:
            return best if best_key > key else -1
        if best < 0 or key > best_key:
            best, best_key = i, key
    return -1


@njit(cache=True, _nrt=False, inline="always")
def _pick_move(s: tuple, d: tuple, la: np.ndarray, n: int, verb: int, kind: int, arg: int) -> int:
    """:func:`_best_move` of the pending decision's actor."""
    return _best_move(
        s[STAT], s[WEAPON], s[DIST], s[ZONES], d[STATE], d[GLOBALS][G.ACTOR], la, n, verb, kind, arg
    )


@njit(cache=True, _nrt=False)
def _heal_worst(stat: np.ndarray, cs: np.ndarray, la: np.ndarray, n: int, threshold: float) -> int:
    """_heal_worst: the heal on the ally with the lowest PV fraction, down first."""
    best = -1
    best_up = 0
    best_frac = 0.0
    for i in range(n):
        if la[i, ROW.VERB] != CURAR:
            continue
        a = la[i, ROW.TARGET]
        frac = cs[a, CS.PV] / stat[a, ST.MAX_PV]
        down = cs[a, CS.STATUS] == DOWN
        if down or frac < threshold:
            up = 0 if down else 1
            if best < 0 or up < best_up or (up == best_up and frac < best_frac):
                best, best_up, best_frac = i, up, frac
    return best


@njit(cache=True, _nrt=False)
def _useful_help(
    stat: np.ndarray, weapon: np.ndarray, dist: np.ndarray, cs: np.ndarray, la: np.ndarray, n: int
) -> int:
    """_useful_help: the first ``ayudar`` whose ally can attack from where it stands."""
    for i in range(n):
        if la[i, ROW.VERB] == AYUDAR:
            a = la[i, ROW.TARGET]
            mask = usable_band_mask(stat, weapon, cs, a)
            if _can_attack_from(stat, dist, cs, a, cs[a, CS.ZONE], mask):
                return i
    return -1


@njit(cache=True, _nrt=False)
def _upkeep(la: np.ndarray, n: int) -> int:
    """_upkeep: recover the dropped weapon, else reload."""
    i = first_row(la, n, ROW.VERB, RECUPERAR)
    return i if i >= 0 else first_row(la, n, ROW.VERB, RECARGAR)


@njit(cache=True, _nrt=False, inline="always")
def _hurt(s: tuple, d: tuple, c: int) -> bool:
    """_hurt: below half its PV."""
    return d[STATE][c, CS.PV] * 2 < s[STAT][c, ST.MAX_PV]


@njit(cache=True, _nrt=False, inline="always")
def _side_broken(s: tuple, d: tuple, c: int) -> bool:
    """_side_broken: half of ``c``'s side or more is out of the fight."""
    members, out = side_out(s[STAT], d[STATE], c)
    return out * 2 >= members


@njit(cache=True, _nrt=False, inline="always")
def _press(s: tuple, d: tuple, la: np.ndarray, n: int) -> int:
    """The tactician's and the cautious' fallback: the best attack, else close in, else
    upkeep; -1 if none of them is legal."""
    i = _pick_attack(s, d, la, n, ATACAR, 0, 0)
    if i < 0:
        i = _pick_move(s, d, la, n, MOVER, K_APPROACH, 0)
    if i < 0:
        i = _upkeep(la, n)
    return i


@njit(cache=True, _nrt=False, inline="always")
def _tactician(s: tuple, d: tuple, la: np.ndarray, n: int) -> int:
    """_tactician: heal the fallen and the badly hurt, else the best attack, else close
    in, upkeep, a useful help, or end the turn."""
    i = _heal_worst(s[STAT], d[STATE], la, n, 1 / 3)
    if i < 0:
        i = _press(s, d, la, n)
    if i < 0:
        i = _useful_help(s[STAT], s[WEAPON], s[DIST], d[STATE], la, n)
    return i if i >= 0 else n - 1


@njit(cache=True, _nrt=False, inline="always")
def _brute(s: tuple, d: tuple, la: np.ndarray, n: int) -> int:
    """_brute: hit the nearest enemy (the weakest, the hardest blow), else step towards
    the nearest, else upkeep."""
    dist, prof, epl = s[DIST], s[PROF], s[EPL]
    cs, g = d[STATE], d[GLOBALS]
    c = g[G.ACTOR]
    if first_row(la, n, ROW.VERB, ATACAR) >= 0:
        # max by (-hops, -PV, expected damage), first on ties
        best = -1
        bh = 0
        bp = 0
        be = 0.0
        for i in range(n):
            if la[i, ROW.VERB] != ATACAR:
                continue
            t = la[i, ROW.TARGET]
            w = la[i, ROW.ITEM]
            h = -dist[cs[c, CS.ZONE], cs[t, CS.ZONE]]
            p = -cs[t, CS.PV]
            att_mod, extra = profile_mods(s[WEAPON], s[OPTS], s[ZONES], cs, c, t, w)
            e = epl[prof[c, w, t, att_mod + 2, extra]]
            if best < 0 or h > bh or (h == bh and (p > bp or (p == bp and e > be))):
                best, bh, bp, be = i, h, p, e
        return best
    i = _pick_move(s, d, la, n, MOVER, K_BRUTE, 0)
    if i < 0:
        i = _upkeep(la, n)
    return i if i >= 0 else n - 1


@njit(cache=True, _nrt=False, inline="always")
def _cautious(s: tuple, d: tuple, la: np.ndarray, n: int) -> int:
    """_cautious: below half its PV heal itself or step away; else attack from range,
    else any attack, else close in or upkeep."""
    c = d[GLOBALS][G.ACTOR]
    if _hurt(s, d, c):
        for i in range(n):
            if la[i, ROW.VERB] == CURAR and la[i, ROW.TARGET] == c:
                return i
        i = _pick_move(s, d, la, n, MOVER, K_AWAY, 0)
        if i >= 0:
            return i
    i = _pick_attack(s, d, la, n, ATACAR, 1, 0)
    if i < 0:
        i = _press(s, d, la, n)
    return i if i >= 0 else n - 1


@njit(cache=True, _nrt=False, inline="always")
def _coward(s: tuple, d: tuple, la: np.ndarray, n: int) -> int:
    """The coward hurt or on a broken side (unhurt, on a side holding, it plays
    :func:`_cautious`: :func:`choose` sends it there, so _cautious is compiled once)."""
    i = _pick_move(s, d, la, n, MOVER, K_AWAY, 0)
    if i < 0:
        # Cornered (no step takes it further away): it fights back.
        i = _pick_attack(s, d, la, n, ATACAR, 0, 0)
    return i if i >= 0 else n - 1


@njit(cache=True, _nrt=False, inline="always")
def _protector(s: tuple, d: tuple, la: np.ndarray, n: int) -> int:
    """_protector: heal allies below two thirds, strike whoever engages its most hurt
    ally, help, attack, else stay near that ally or upkeep."""
    stat = s[STAT]
    cs, g = d[STATE], d[GLOBALS]
    c = g[G.ACTOR]
    i = _heal_worst(s[STAT], d[STATE], la, n, 2 / 3)
    if i >= 0:
        return i
    ward = most_hurt_ally(stat, cs, c, CS.PV, ST.MAX_PV)
    if ward >= 0:
        i = _pick_attack(s, d, la, n, ATACAR, 2, cs[ward, CS.ZONE])
        if i >= 0:
            return i
    i = _useful_help(s[STAT], s[WEAPON], s[DIST], d[STATE], la, n)
    if i >= 0:
        return i
    i = _pick_attack(s, d, la, n, ATACAR, 0, 0)
    if i >= 0:
        return i
    if ward >= 0:
        i = _pick_move(s, d, la, n, MOVER, K_WARD, cs[ward, CS.ZONE])
        if i >= 0:
            return i
    i = _upkeep(la, n)
    return i if i >= 0 else n - 1


@njit(cache=True, _nrt=False, inline="always")
def choose(s: tuple, d: tuple, la: np.ndarray, n: int, mood: int, arng: np.ndarray) -> int:
    """choose: the row of the legal list temperament ``mood`` picks (never the random
    temperament, which the shared ``decide`` plays; no other one draws)."""
    g = d[GLOBALS]
    c = g[G.ACTOR]
    if g[G.KIND] == KIND_REACTION:
        # DD-08: a free attack is worth taking unless running is the plan.
        fleeing = mood == dialect.COWARD and (_hurt(s, d, c) or _side_broken(s, d, c))
        if not fleeing and first_row(la, n, ROW.VERB, CONTRA) >= 0:
            return _pick_attack(s, d, la, n, CONTRA, 0, 0)
        if fleeing or (mood == dialect.CAUTIOUS and _hurt(s, d, c)):
            i = _pick_move(s, d, la, n, REPOS, K_AWAY, 0)
            if i >= 0:
                return i
        return n - 1
    if mood == dialect.BRUTE:
        return _brute(s, d, la, n)
    if mood == dialect.COWARD:
        if _hurt(s, d, c) or _side_broken(s, d, c):
            return _coward(s, d, la, n)
        mood = dialect.CAUTIOUS  # the engine's coward: "not hurt nor broken: cautious"
    if mood == dialect.CAUTIOUS:
        return _cautious(s, d, la, n)
    if mood == dialect.PROTECTOR:
        return _protector(s, d, la, n)
    return _tactician(s, d, la, n)


# -- the Kernel -------------------------------------------------------------------------
KERNEL = CompiledKernel("destiny_dice", dk, sys.modules[__name__])

__all__ = ["KERNEL"]
