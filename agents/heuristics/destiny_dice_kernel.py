"""Destiny Dice temperaments compiled, and the kernel's battle and rollout loops.

The fast path (architecture.md): :mod:`escaramuza.agents.heuristics.destiny_dice`
function by function over the arrays of :mod:`escaramuza.rules.destiny_dice.kernel`,
joined to the compiled rules into whole battles (``agents.runner.play_battle``) and
rollouts (``agents.search.MCTS.rollout``). Every choice compares the numbers the engine
compares: the exact odds are the engine's own floats (tables built from ``exact.py``),
PV fractions are the same float divisions, and ties keep the first action as ``max`` /
``min`` do. Agents draw from ``random.Random(f"escaramuza-agents-{seed}")`` exactly
where the engine's do (the random agent always, the ``random`` temperament only with
more than one legal action).

``KERNEL`` (:class:`DestinyDiceKernel`) implements ``rules.core.kernel.Kernel``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from escaramuza.agents.heuristic import TEMPERAMENTS
from escaramuza.rules.core.jit import copy_into, njit
from escaramuza.rules.core.kernel import (
    WINNERS,
    BattleColumns,
    KernelBattle,
    KernelRefusal,
    RolloutBatch,
    refusing,
)
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.mt import (
    LANES,
    new_state,
    randbelow,
    seed_key,
    seed_keys,
    seed_lanes,
)
from escaramuza.rules.core.mt import agent_keys as mt_agent_keys
from escaramuza.rules.destiny_dice import kernel as dk
from escaramuza.rules.destiny_dice.kernel import (
    ACTIVE,
    ATACAR,
    AYUDAR,
    CONTRA,
    CURAR,
    D_COND,
    D_DEALT,
    D_KO,
    D_PA,
    D_PC,
    D_PM,
    D_PV,
    D_STATUS,
    D_TAKEN,
    D_TOFOES,
    D_ZONE,
    DOWN,
    G_DEC,
    G_OUT,
    G_PACTOR,
    G_PKIND,
    G_REASON,
    G_ROUND,
    G_WIPE,
    MOVER,
    PK_REACTION,
    PK_TURN,
    RECARGAR,
    RECUPERAR,
    REPOS,
    S_MAXPV,
    S_RANGED,
    S_SIDE,
    S_TEMP,
    Z_COVER,
    Z_EXIT,
    UnsupportedFeature,
    all_heroes_out,
    apply,
    band,
    legal_actions,
    profile_mods,
    start,
    usable_band_mask,
)

TACTICIAN, BRUTE, CAUTIOUS, COWARD, PROTECTOR, RANDOM = range(6)
#: Move keys (``_best_move``'s key functions), packed into one comparable integer.
K_APPROACH, K_AWAY, K_BRUTE, K_WARD = range(4)
_OFF = 1 << 20
#: agents.runner.MAX_DECISIONS: a longer battle is a ruleset bug.
MAX_DECISIONS = 200_000
#: A legal list is never longer than this (moves + foes × weapons + allies × heals …).
MAX_ACTIONS = 4096


# -- the temperaments (agents/heuristics/destiny_dice.py) ---------------------------
@njit(cache=True, _nrt=False, inline="always")
def _pack(a: int, b: int, c: int) -> int:
    """A 3-tuple key as one integer ordered like the tuple (fields within ±2**20)."""
    return ((a + _OFF) << 42) | ((b + _OFF) << 21) | (c + _OFF)


@njit(cache=True, _nrt=False, inline="always")
def attack_score(K: tuple, ST: tuple, att: int, dfn: int, w: int) -> tuple[float, float]:
    """attack_score: (P(drop), expected PV lost / PV left), the engine's floats."""
    PROF, EPL, DROP = K[6], K[7], K[8]
    D = ST[0]
    att_mod, extra = profile_mods(K, ST, att, dfn, w)
    pid = PROF[att, w, dfn, att_mod + 2, extra]
    pv = D[dfn, D_PV]
    # DROP's last column stands for every PV from there up (dk._profile_tables).
    last = DROP.shape[1] - 1
    return DROP[pid, pv if pv < last else last], EPL[pid] / (pv if pv > 1 else 1)


@njit(cache=True, _nrt=False)
def _best_attack(
    K: tuple, ST: tuple, LA: np.ndarray, n: int, verb: int, mode: int, arg: int
) -> int:
    """``max(attacks, key=attack_score)`` (first on ties) over the ``verb`` rows; mode 1
    keeps targets not in the actor's zone (cautious), mode 2 targets in zone ``arg``
    (protector's guarding). -1 if there is none."""
    DIST = K[4]
    D, G = ST[0], ST[2]
    c = G[G_PACTOR]
    best = -1
    bd = 0.0
    br = 0.0
    for i in range(n):
        if LA[i, 0] != verb:
            continue
        t = LA[i, 1]
        if mode == 1 and DIST[D[c, D_ZONE], D[t, D_ZONE]] <= 0:
            continue
        if mode == 2 and D[t, D_ZONE] != arg:
            continue
        d, r = attack_score(K, ST, c, t, LA[i, 2])
        if best < 0 or d > bd or (d == bd and r > br):
            best, bd, br = i, d, r
    return best


@njit(cache=True, _nrt=False, inline="always")
def _nearest(K: tuple, ST: tuple, c: int, zone: int) -> int:
    """_View.nearest: hops from ``zone`` to the closest active foe of ``c`` (0 if none)."""
    S, DIST = K[0], K[4]
    D = ST[0]
    best = -1
    for t in range(S.shape[0]):
        if S[t, S_SIDE] != S[c, S_SIDE] and D[t, D_STATUS] == ACTIVE:
            h = DIST[zone, D[t, D_ZONE]]
            if best < 0 or h < best:
                best = h
    return 0 if best < 0 else best


@njit(cache=True, _nrt=False, inline="always")
def _can_attack_from(K: tuple, ST: tuple, c: int, zone: int, mask: int) -> bool:
    """_View.can_attack_from: a usable weapon (bands ``mask``) reaches an active foe."""
    S, DIST = K[0], K[4]
    D = ST[0]
    for t in range(S.shape[0]):
        if S[t, S_SIDE] != S[c, S_SIDE] and D[t, D_STATUS] == ACTIVE:
            if mask & (1 << band(DIST[zone, D[t, D_ZONE]])):
                return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def _move_key(K: tuple, ST: tuple, c: int, zone: int, kind: int, arg: int, mask: int) -> int:
    """_approach_key / _away_key / the brute's and the protector's keys for ``zone``."""
    S, ZS, DIST = K[0], K[3], K[4]
    if kind == K_APPROACH:
        can = 1 if _can_attack_from(K, ST, c, zone, mask) else 0
        if S[c, S_RANGED]:
            # Shooters want a shot, out of contact, in cover.
            near = 1 if _nearest(K, ST, c, zone) > 0 else 0
            return _pack(can, near, ZS[zone, Z_COVER])
        return _pack(can, -_nearest(K, ST, c, zone), 0)
    if kind == K_AWAY:
        return _pack(ZS[zone, Z_EXIT], _nearest(K, ST, c, zone), ZS[zone, Z_COVER])
    if kind == K_BRUTE:
        return _pack(-_nearest(K, ST, c, zone), 0, 0)
    return _pack(-DIST[zone, arg], 0, 0)


@njit(cache=True, _nrt=False)
def _best_move(K: tuple, ST: tuple, LA: np.ndarray, n: int, verb: int, kind: int, arg: int) -> int:
    """_best_move: the step with the highest key if it beats staying; -1 otherwise."""
    D, G = ST[0], ST[2]
    c = G[G_PACTOR]
    mask = usable_band_mask(K, ST, c) if kind == K_APPROACH else 0
    best = -1
    best_key = 0
    # Row n stands for staying put, keyed last: one _move_key call site (it is inlined,
    # and each site is another copy to compile).
    for i in range(n + 1):
        if i < n:
            if LA[i, 0] != verb:
                continue
            zone = LA[i, 3]
        elif best < 0:
            return -1
        else:
            zone = D[c, D_ZONE]
        key = _move_key(K, ST, c, zone, kind, arg, mask)
        if i == n:
            return best if best_key > key else -1
        if best < 0 or key > best_key:
            best, best_key = i, key
    return -1


@njit(cache=True, _nrt=False)
def _heal_worst(K: tuple, ST: tuple, LA: np.ndarray, n: int, threshold: float) -> int:
    """_heal_worst: the heal on the ally with the lowest PV fraction, down first."""
    S = K[0]
    D = ST[0]
    best = -1
    best_up = 0
    best_frac = 0.0
    for i in range(n):
        if LA[i, 0] != CURAR:
            continue
        a = LA[i, 1]
        frac = D[a, D_PV] / S[a, S_MAXPV]
        down = D[a, D_STATUS] == DOWN
        if down or frac < threshold:
            up = 0 if down else 1
            if best < 0 or up < best_up or (up == best_up and frac < best_frac):
                best, best_up, best_frac = i, up, frac
    return best


@njit(cache=True, _nrt=False)
def _useful_help(K: tuple, ST: tuple, LA: np.ndarray, n: int) -> int:
    """_useful_help: the first ``ayudar`` whose ally can attack from where it stands."""
    D = ST[0]
    for i in range(n):
        if LA[i, 0] == AYUDAR:
            a = LA[i, 1]
            if _can_attack_from(K, ST, a, D[a, D_ZONE], usable_band_mask(K, ST, a)):
                return i
    return -1


@njit(cache=True, _nrt=False, inline="always")
def _first(LA: np.ndarray, n: int, verb: int) -> int:
    for i in range(n):
        if LA[i, 0] == verb:
            return i
    return -1


@njit(cache=True, _nrt=False)
def _upkeep(LA: np.ndarray, n: int) -> int:
    """_upkeep: recover the dropped weapon, else reload."""
    i = _first(LA, n, RECUPERAR)
    return i if i >= 0 else _first(LA, n, RECARGAR)


@njit(cache=True, _nrt=False, inline="always")
def _hurt(K: tuple, ST: tuple, c: int) -> bool:
    return ST[0][c, D_PV] * 2 < K[0][c, S_MAXPV]


@njit(cache=True, _nrt=False, inline="always")
def _side_broken(K: tuple, ST: tuple, c: int) -> bool:
    S = K[0]
    D = ST[0]
    mine = 0
    out = 0
    for a in range(S.shape[0]):
        if S[a, S_SIDE] == S[c, S_SIDE]:
            mine += 1
            if D[a, D_STATUS] != ACTIVE:
                out += 1
    return out * 2 >= mine


@njit(cache=True, _nrt=False, inline="always")
def _tactician(K: tuple, ST: tuple, LA: np.ndarray, n: int) -> int:
    i = _heal_worst(K, ST, LA, n, 1 / 3)
    if i >= 0:
        return i
    if _first(LA, n, ATACAR) >= 0:
        return _best_attack(K, ST, LA, n, ATACAR, 0, 0)
    i = _best_move(K, ST, LA, n, MOVER, K_APPROACH, 0)
    if i < 0:
        i = _upkeep(LA, n)
    if i < 0:
        i = _useful_help(K, ST, LA, n)
    return i if i >= 0 else n - 1


@njit(cache=True, _nrt=False, inline="always")
def _brute(K: tuple, ST: tuple, LA: np.ndarray, n: int) -> int:
    DIST, EPL, PROF = K[4], K[7], K[6]
    D, G = ST[0], ST[2]
    c = G[G_PACTOR]
    if _first(LA, n, ATACAR) >= 0:
        # max by (-hops, -PV, expected damage), first on ties
        best = -1
        bh = 0
        bp = 0
        be = 0.0
        for i in range(n):
            if LA[i, 0] != ATACAR:
                continue
            t = LA[i, 1]
            w = LA[i, 2]
            h = -DIST[D[c, D_ZONE], D[t, D_ZONE]]
            p = -D[t, D_PV]
            att_mod, extra = profile_mods(K, ST, c, t, w)
            e = EPL[PROF[c, w, t, att_mod + 2, extra]]
            if best < 0 or h > bh or (h == bh and (p > bp or (p == bp and e > be))):
                best, bh, bp, be = i, h, p, e
        return best
    i = _best_move(K, ST, LA, n, MOVER, K_BRUTE, 0)
    if i < 0:
        i = _upkeep(LA, n)
    return i if i >= 0 else n - 1


@njit(cache=True, _nrt=False, inline="always")
def _cautious(K: tuple, ST: tuple, LA: np.ndarray, n: int) -> int:
    G = ST[2]
    c = G[G_PACTOR]
    if _hurt(K, ST, c):
        for i in range(n):
            if LA[i, 0] == CURAR and LA[i, 1] == c:
                return i
        i = _best_move(K, ST, LA, n, MOVER, K_AWAY, 0)
        if i >= 0:
            return i
    i = _best_attack(K, ST, LA, n, ATACAR, 1, 0)
    if i >= 0:
        return i
    if _first(LA, n, ATACAR) >= 0:
        return _best_attack(K, ST, LA, n, ATACAR, 0, 0)
    i = _best_move(K, ST, LA, n, MOVER, K_APPROACH, 0)
    if i < 0:
        i = _upkeep(LA, n)
    return i if i >= 0 else n - 1


@njit(cache=True, _nrt=False, inline="always")
def _coward(K: tuple, ST: tuple, LA: np.ndarray, n: int) -> int:
    """The coward hurt or on a broken side (unhurt, on a side holding, it plays
    :func:`_cautious`: :func:`choose` sends it there, so _cautious is compiled once)."""
    i = _best_move(K, ST, LA, n, MOVER, K_AWAY, 0)
    if i >= 0:
        return i
    if _first(LA, n, ATACAR) >= 0:
        # Cornered (no step takes it further away): it fights back.
        return _best_attack(K, ST, LA, n, ATACAR, 0, 0)
    return n - 1


@njit(cache=True, _nrt=False, inline="always")
def _protector(K: tuple, ST: tuple, LA: np.ndarray, n: int) -> int:
    S = K[0]
    D, G = ST[0], ST[2]
    c = G[G_PACTOR]
    i = _heal_worst(K, ST, LA, n, 2 / 3)
    if i >= 0:
        return i
    ward = -1
    ward_frac = 0.0
    for a in range(S.shape[0]):
        if S[a, S_SIDE] == S[c, S_SIDE] and D[a, D_STATUS] == ACTIVE and a != c:
            frac = D[a, D_PV] / S[a, S_MAXPV]
            if ward < 0 or frac < ward_frac:
                ward, ward_frac = a, frac
    if ward >= 0:
        i = _best_attack(K, ST, LA, n, ATACAR, 2, D[ward, D_ZONE])
        if i >= 0:
            return i
    i = _useful_help(K, ST, LA, n)
    if i >= 0:
        return i
    if _first(LA, n, ATACAR) >= 0:
        return _best_attack(K, ST, LA, n, ATACAR, 0, 0)
    if ward >= 0:
        i = _best_move(K, ST, LA, n, MOVER, K_WARD, D[ward, D_ZONE])
        if i >= 0:
            return i
    i = _upkeep(LA, n)
    return i if i >= 0 else n - 1


@njit(cache=True, _nrt=False, inline="always")
def choose(K: tuple, ST: tuple, LA: np.ndarray, n: int, temperament: int) -> int:
    """choose: the row of the legal list the temperament picks."""
    G = ST[2]
    c = G[G_PACTOR]
    if G[G_PKIND] == PK_REACTION:
        # DD-08: a free attack is worth taking unless running is the plan.
        fleeing = temperament == COWARD and (_hurt(K, ST, c) or _side_broken(K, ST, c))
        if not fleeing and _first(LA, n, CONTRA) >= 0:
            return _best_attack(K, ST, LA, n, CONTRA, 0, 0)
        if fleeing or (temperament == CAUTIOUS and _hurt(K, ST, c)):
            i = _best_move(K, ST, LA, n, REPOS, K_AWAY, 0)
            if i >= 0:
                return i
        return n - 1
    if temperament == BRUTE:
        return _brute(K, ST, LA, n)
    if temperament == COWARD:
        if _hurt(K, ST, c) or _side_broken(K, ST, c):
            return _coward(K, ST, LA, n)
        temperament = CAUTIOUS  # the engine's coward: "not hurt nor broken: cautious"
    if temperament == CAUTIOUS:
        return _cautious(K, ST, LA, n)
    if temperament == PROTECTOR:
        return _protector(K, ST, LA, n)
    return _tactician(K, ST, LA, n)


@njit(cache=True, _nrt=False, inline="always")
def _without_temperament(
    n: int, mood: int, random_agent: bool, rng: np.ndarray, key: np.ndarray, seeded: bool
) -> tuple[int, bool]:
    """agents.heuristic.heuristic_choice up to the temperament — one legal action is no
    choice; the random temperament draws — and a RandomAgent, which draws at every
    decision: (the action's row or -1 for :func:`choose`, whether ``rng`` is seeded).
    The agents' generator is seeded with ``key`` at its first draw (most battles never
    draw). The loops call choose themselves: each level of calls around an inlined
    function is another copy of it for numba to compile."""
    if random_agent or (n > 1 and mood == RANDOM):
        if not seeded:
            seed_key(rng, key)
        return randbelow(rng, n), True
    return (0 if n == 1 else -1), seeded


# -- loops ----------------------------------------------------------------------------
# The loops run without numba's reference counts (_nrt=False): with them, every array
# taken out of a tuple or sliced — in the loop and in every rule and temperament
# compiled into it — paid a reference-count call pair. The caller allocates their
# scratch arrays (scratch_state).
@njit(cache=True, _nrt=False)
def play_many(
    K: tuple,
    ST: tuple,
    D0: np.ndarray,
    U0: np.ndarray,
    LA: np.ndarray,
    lanes: np.ndarray,
    rng: np.ndarray,
    dice_keys: np.ndarray,
    dice_len: np.ndarray,
    agent_keys: np.ndarray,
    agent_len: np.ndarray,
    kinds: np.ndarray,
    overrides: np.ndarray,
    out_g: np.ndarray,
    out_d: np.ndarray,
) -> None:
    """agents.runner.play_battle for each seed, from the scenario's start (D0, U0), in
    the scratch state ST, legal list LA, dice generators ``lanes`` and agents' ``rng``."""
    nc = D0.shape[0]
    S = K[0]
    D, U, G = ST[0], ST[1], ST[2]
    for b in range(dice_keys.shape[0]):
        copy_into(D, D0)
        copy_into(U, U0)
        G[:] = 0
        G[G_OUT] = -1
        for i in range(nc):
            D[i, D_KO] = -1 if D[i, D_STATUS] == ACTIVE else 0
        G[G_WIPE] = 1 if all_heroes_out(K, ST) else 0
        # The dice generators of eight battles are seeded together (mt.seed_lanes).
        if b % LANES == 0:
            seed_lanes(lanes, dice_keys, dice_len, b)
        dice = lanes[b % LANES]
        # The agents' generator is seeded at its first draw (heuristic temperaments other
        # than random never draw): the same draws, without seeding it for nothing.
        seeded = False
        start(K, ST, dice)
        decisions = 0
        while G[G_OUT] < 0 and decisions <= MAX_DECISIONS:
            n = legal_actions(K, ST, LA)
            c = G[G_PACTOR]
            side = S[c, S_SIDE]
            # agents.runner.play_battle's agent: a RandomAgent (kind 0) or a heuristic.
            mood = S[c, S_TEMP] if overrides[side] < 0 else overrides[side]
            i, seeded = _without_temperament(
                n, mood, kinds[side] == 0, rng, agent_keys[b, : agent_len[b]], seeded
            )
            if i < 0:
                i = choose(K, ST, LA, n, mood)
            apply(K, ST, LA[i, 0], LA[i, 1], LA[i, 2], LA[i, 3], dice)
            decisions += 1
        G[G_DEC] = decisions
        out_g[b, 0] = G[G_OUT]
        out_g[b, 1] = G[G_REASON]
        out_g[b, 2] = G[G_ROUND]
        out_g[b, 3] = G[G_WIPE]
        out_g[b, 4] = decisions
        for i in range(nc):
            out_d[b, i, 0] = D[i, D_ZONE]
            out_d[b, i, 1] = D[i, D_STATUS]
            out_d[b, i, 2] = D[i, D_PA]
            out_d[b, i, 3] = D[i, D_PC]
            out_d[b, i, 4] = D[i, D_PM]
            out_d[b, i, 5] = D[i, D_PV]
            out_d[b, i, 6] = D[i, D_COND]
            out_d[b, i, 7] = D[i, D_KO]
            out_d[b, i, 8] = D[i, D_DEALT]
            out_d[b, i, 9] = D[i, D_TOFOES]
            out_d[b, i, 10] = D[i, D_TAKEN]


@njit(cache=True, _nrt=False)
def side_strength(K: tuple, ST: tuple, side: int) -> float:
    """agents.search.side_strength, summed in the same order."""
    S = K[0]
    D = ST[0]
    total = 0.0
    n = 0
    for c in range(S.shape[0]):
        if S[c, S_SIDE] != side:
            continue
        n += 1
        if D[c, D_STATUS] != ACTIVE:
            continue
        top = S[c, S_MAXPV]
        frac = D[c, D_PV] / top if top > 0 else 1.0
        total += 0.5 + 0.5 * min(max(frac, 0.0), 1.0)
    return total / n if n else 0.0


# nogil: the planner splits a batch over threads (agents/search.py, _Rollouts._batch),
# each with its own scratch arrays; _nrt=False as play_many.
@njit(cache=True, nogil=True, _nrt=False)
def rollout_many(
    K: tuple,
    ST: tuple,
    D0: np.ndarray,
    U0: np.ndarray,
    G0: np.ndarray,
    ORD0: np.ndarray,
    LA: np.ndarray,
    dice: np.ndarray,
    rng: np.ndarray,
    acts: np.ndarray,
    seed_keys: np.ndarray,
    seed_len: np.ndarray,
    stop_round: int,
    own_temp: int,
    max_decisions: int,
    winner: np.ndarray,
    finished: np.ndarray,
    own: np.ndarray,
    foe: np.ndarray,
    actor_out: np.ndarray,
) -> None:
    """MCTS._descend below an empty tree, for every (action, seed): dice and tie-breaks
    from two generators seeded alike; the searching side plays ``own_temp`` (-1: each
    combatant's own), its foes in character; _Walk of the root actor. ``ST``, ``LA``,
    ``dice`` and ``rng`` are scratch (:func:`scratch`)."""
    S = K[0]
    D, U, G, ORD = ST
    actor = G0[G_PACTOR]
    side = S[actor, S_SIDE]
    for a in range(acts.shape[0]):
        for s in range(seed_keys.shape[0]):
            copy_into(D, D0)
            copy_into(U, U0)
            copy_into(G, G0)
            copy_into(ORD, ORD0)
            seed_key(dice, seed_keys[s, : seed_len[s]])
            seeded = False
            tracking = True
            left_turn = False
            out = False
            v = acts[a, 0]
            t = acts[a, 1]
            it = acts[a, 2]
            z = acts[a, 3]
            decisions = 0
            while True:
                apply(K, ST, v, t, it, z, dice)
                decisions += 1
                if tracking:
                    # _Walk.update
                    if G[G_OUT] >= 0:
                        lost = G[G_OUT] == 1 - S[actor, S_SIDE] or (
                            G[G_OUT] == 2 and D[actor, D_STATUS] != ACTIVE
                        )
                        out = lost or D[actor, D_STATUS] != ACTIVE
                        tracking = False
                    elif D[actor, D_STATUS] != ACTIVE:
                        out = True
                        tracking = False
                    elif G[G_PKIND] != 0:
                        if G[G_PACTOR] != actor:
                            left_turn = True
                        elif left_turn and G[G_PKIND] == PK_TURN:
                            tracking = False
                if G[G_OUT] >= 0 or G[G_ROUND] >= stop_round or decisions >= max_decisions:
                    break
                n = legal_actions(K, ST, LA)
                c = G[G_PACTOR]
                mood = S[c, S_TEMP]
                if S[c, S_SIDE] == side and own_temp >= 0:
                    mood = own_temp
                i, seeded = _without_temperament(
                    n, mood, False, rng, seed_keys[s, : seed_len[s]], seeded
                )
                if i < 0:
                    i = choose(K, ST, LA, n, mood)
                v, t, it, z = LA[i, 0], LA[i, 1], LA[i, 2], LA[i, 3]
            w = G[G_OUT]
            winner[a, s] = 1 if w == side else (-1 if w == 1 - side else 0)
            finished[a, s] = w >= 0
            own[a, s] = side_strength(K, ST, side)
            foe[a, s] = side_strength(K, ST, 1 - side)
            actor_out[a, s] = out


def scratch(
    D0: np.ndarray, U0: np.ndarray
) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
    """A battle's scratch arrays for the loops: the state tuple ``(D, U, G, ORD)``, the
    legal list and one generator's state."""
    state = (
        D0.copy(),
        U0.copy(),
        np.zeros(dk.NG, dtype=np.int64),
        np.zeros(D0.shape[0], dtype=np.int64),
    )
    return (state, np.zeros((MAX_ACTIONS, 4), dtype=np.int64), new_state())


# -- the Kernel -------------------------------------------------------------------------
_RESOURCE_NAMES = ("pa", "pc", "pm", "pv")  # sorted: KernelBattle's order


def parse_agent(spec: str) -> tuple[int, int]:
    """(kind, temperament override) of an agent spec: kind 0 RandomAgent, 1 heuristic."""
    if spec == "random":
        return 0, -1
    if spec == "heuristic":
        return 1, -1
    temperament = spec.split(":", 1)[1] if spec.startswith("heuristic:") else spec
    if temperament in TEMPERAMENTS:
        return 1, dk.TEMPERAMENT_CODES[temperament]
    raise UnsupportedFeature(f"agent {spec!r} (the kernel plays random and heuristic agents)")


class DestinyDiceKernel:
    """The Destiny Dice kernel (rules.core.kernel.Kernel)."""

    ruleset_id = "destiny_dice"

    def __init__(self) -> None:
        self._cache: dict[int, tuple[Any, tuple[np.ndarray, ...], np.ndarray, np.ndarray]] = {}

    def _export(self, scenario: Any) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
        hit = self._cache.get(id(scenario))
        if hit is not None and hit[0] is scenario:
            return hit[1], hit[2], hit[3]
        if getattr(scenario.ruleset, "id", None) != self.ruleset_id:
            raise UnsupportedFeature(f"ruleset {scenario.ruleset.id!r} is not destiny_dice")
        with refusing(scenario.name, UnsupportedFeature):
            K = dk.export_scenario(scenario)
            D0, U0 = dk.export_combatants(list(scenario.combatants), K[2].shape[1])
            zindex = scenario.battlefield.index
            for i, c in enumerate(scenario.combatants):
                D0[i, D_ZONE] = zindex[c.zone]
        # The legal list (LA) has MAX_ACTIONS rows: moves, attacks (foes × weapons),
        # helps, heals (allies × heals), reloads, recovering the weapon, ending the turn.
        S, WS, HS, ZS = K[0], K[1], K[2], K[3]
        nc = S.shape[0]
        most = ZS.shape[1] + nc * (WS.shape[1] + 1 + HS.shape[1]) + WS.shape[1] + 2
        if most > MAX_ACTIONS:
            raise UnsupportedFeature(
                f"legal lists of up to {most} actions (the kernel holds {MAX_ACTIONS})"
            )
        if len(self._cache) > 64:
            self._cache.clear()
        self._cache[id(scenario)] = (scenario, K, D0, U0)
        return K, D0, U0

    def refusal(self, scenario: Any, agents: Sequence[str]) -> str | None:
        try:
            self._export(scenario)
            for spec in agents:
                parse_agent(spec)
        except UnsupportedFeature as exc:
            return f"the Destiny Dice kernel does not implement {exc}"
        return None

    def play_battles(
        self, scenario: Any, agents: Sequence[str], seeds: Sequence[int]
    ) -> list[KernelBattle]:
        return self._read_back(scenario, seeds, *self._play(scenario, agents, seeds))

    def play_columns(
        self, scenario: Any, agents: Sequence[str], seeds: Sequence[int]
    ) -> BattleColumns:
        out_g, out_d = self._play(scenario, agents, seeds)
        return BattleColumns(
            winner=out_g[:, 0],  # a WINNERS code
            reason=out_g[:, 1],
            reasons=dk.REASONS,
            rounds=out_g[:, 2],
            wipe=out_g[:, 3] != 0,
            ko_round=out_d[:, :, 7],
            died=np.zeros(out_d.shape[:2], dtype=np.bool_),  # no one dies in Destiny Dice
            dealt=out_d[:, :, 8],
            dealt_to_foes=out_d[:, :, 9],
            taken=out_d[:, :, 10],
        )

    def _play(
        self, scenario: Any, agents: Sequence[str], seeds: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The kernel's final arrays of one battle per seed: ``out_g`` (winner, reason,
        rounds, wipe, decisions) and ``out_d`` (each combatant's row, _read_back's columns)."""
        reason = self.refusal(scenario, agents)
        if reason is not None:
            raise KernelRefusal(reason)
        K, D0, U0 = self._export(scenario)
        (k0, o0), (k1, o1) = parse_agent(agents[0]), parse_agent(agents[1])
        kinds = np.array([k0, k1], dtype=np.int64)
        overrides = np.array([o0, o1], dtype=np.int64)
        dice_keys, dice_len = seed_keys(seeds)
        if self._may_draw(K, kinds, overrides):
            agent_keys, agent_len = mt_agent_keys(seeds)
        else:  # no agent ever draws: the kernel never seeds their generator
            agent_keys = np.zeros((len(seeds), 1), dtype=np.uint32)
            agent_len = np.ones(len(seeds), dtype=np.int64)
        nc = D0.shape[0]
        out_g = np.zeros((len(seeds), 5), dtype=np.int64)
        out_d = np.zeros((len(seeds), nc, 11), dtype=np.int64)
        ST, LA, rng = scratch(D0, U0)
        lanes = new_state(LANES)
        play_many(
            K,
            ST,
            D0,
            U0,
            LA,
            lanes,
            rng,
            dice_keys,
            dice_len,
            agent_keys,
            agent_len,
            kinds,
            overrides,
            out_g,
            out_d,
        )
        if (out_g[:, 4] > MAX_DECISIONS).any():
            raise KernelRefusal(f"{scenario.name}: a battle did not end after {MAX_DECISIONS}")
        return out_g, out_d

    @staticmethod
    def _may_draw(K: tuple[np.ndarray, ...], kinds: np.ndarray, overrides: np.ndarray) -> bool:
        """Whether some agent may draw (random agent, or a ``random`` temperament)."""
        S = K[0]
        for side in (0, 1):
            if kinds[side] == 0 or overrides[side] == RANDOM:
                return True
            mine = S[:, S_SIDE] == side
            if overrides[side] < 0 and (S[mine, S_TEMP] == RANDOM).any():
                return True
        return False

    @staticmethod
    def _read_back(
        scenario: Any, seeds: Sequence[int], out_g: np.ndarray, out_d: np.ndarray
    ) -> list[KernelBattle]:
        zone_ids = scenario.battlefield.zone_ids
        statuses = [s.value for s in dk.STATUSES]
        conds: dict[int, tuple[tuple[str, int], ...]] = {}
        res_cache: dict[tuple[int, ...], tuple[tuple[str, int], ...]] = {}

        def resources(key: tuple[int, ...]) -> tuple[tuple[str, int], ...]:
            r = res_cache.get(key)
            if r is None:
                r = res_cache[key] = tuple(zip(_RESOURCE_NAMES, key, strict=True))
            return r

        def conditions(mask: int) -> tuple[tuple[str, int], ...]:
            c = conds.get(mask)
            if c is None:
                c = conds[mask] = tuple(
                    sorted((name, 0) for name, bit in dk.COND_BIT.items() if mask >> bit & 1)
                )
            return c

        never = (False,) * out_d.shape[1]
        out: list[KernelBattle] = []
        for seed, g, d in zip(seeds, out_g.tolist(), out_d.tolist(), strict=True):
            cols = list(zip(*d, strict=True))
            out.append(
                KernelBattle(
                    seed,
                    WINNERS[g[0]],
                    dk.REASONS[g[1]],
                    g[2],
                    bool(g[3]),
                    g[4],
                    tuple(map(statuses.__getitem__, cols[1])),
                    tuple(map(zone_ids.__getitem__, cols[0])),
                    tuple(map(resources, zip(cols[2], cols[3], cols[4], cols[5], strict=True))),
                    tuple(map(conditions, cols[6])),
                    cols[7],
                    never,
                    cols[8],
                    cols[9],
                    cols[10],
                )
            )
        return out

    @staticmethod
    def action_code(state: Any, action: Action) -> tuple[int, int, int, int]:
        """(verb, target, item, zone) of an engine action, as legal_actions rows hold it."""
        verb = dk.VERBS.index(action.verb)
        index = {c.id: i for i, c in enumerate(state.combatants)}
        target = index[action.target] if action.target is not None else -1
        zone = state.battlefield.index[action.zone] if action.zone is not None else -1
        item = -1
        if action.item is not None:
            actor = state.by_id[action.actor]
            names = list(actor.stats.heals if action.verb == "curar" else actor.stats.weapons)
            item = names.index(action.item)
        # What apply reads of each verb is there (an index of -1 would read the last row).
        needs = (
            target if verb in (ATACAR, AYUDAR, CURAR, CONTRA) else 0,
            item if verb in (ATACAR, CURAR, RECARGAR, CONTRA) else 0,
            zone if verb in (MOVER, REPOS) else 0,
        )
        if min(needs) < 0:
            raise UnsupportedFeature(f"{action} lacks what {action.verb} needs")
        return verb, target, item, zone

    def rollouts(
        self,
        state: Any,
        actions: Sequence[Action],
        seeds: Sequence[int],
        horizon: int | None,
        own_temperament: str | None,
        max_decisions: int,
    ) -> RolloutBatch:
        try:
            K, _, _ = self._export(state.scenario)
            with refusing(error=UnsupportedFeature):
                D0, U0, G0, ORD0 = dk.export_state(state, K[2].shape[1])
            own = -1
            if own_temperament is not None:
                if own_temperament not in TEMPERAMENTS:
                    raise UnsupportedFeature(f"own temperament {own_temperament!r}")
                own = dk.TEMPERAMENT_CODES[own_temperament]
            pending = state.pending
            for action in actions:
                if action.actor != pending.actor:
                    raise UnsupportedFeature(f"{action} is not the pending decision's")
            with refusing(error=UnsupportedFeature):
                acts = np.array([self.action_code(state, a) for a in actions], dtype=np.int64)
        except UnsupportedFeature as exc:
            raise KernelRefusal(
                f"the Destiny Dice kernel cannot resume this state: {exc}"
            ) from None
        keys, lengths = seed_keys(seeds)
        shape = (len(actions), len(seeds))
        winner = np.zeros(shape, dtype=np.int64)
        finished = np.zeros(shape, dtype=np.bool_)
        own_s = np.zeros(shape, dtype=np.float64)
        foe_s = np.zeros(shape, dtype=np.float64)
        actor_out = np.zeros(shape, dtype=np.bool_)
        # Rounds never pass the round limit (at most BOUND): capping the stop round and the
        # decision cap at 2**62 changes no rollout and keeps them int64.
        stop = min(state.round + horizon, 1 << 62) if horizon is not None else (1 << 62)
        max_decisions = min(max_decisions, 1 << 62)
        if len(actions) and len(seeds):
            ST, LA, rng = scratch(D0, U0)
            rollout_many(
                K,
                ST,
                D0,
                U0,
                G0,
                ORD0,
                LA,
                new_state(),
                rng,
                acts.reshape(-1, 4),
                keys,
                lengths,
                stop,
                own,
                max_decisions,
                winner,
                finished,
                own_s,
                foe_s,
                actor_out,
            )
        return RolloutBatch(winner, finished, own_s, foe_s, actor_out)


KERNEL = DestinyDiceKernel()
