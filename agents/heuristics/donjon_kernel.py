"""Donjon's temperaments compiled, and the battle and rollout loops of its kernel.

The fast path (architecture.md): each function below mirrors the function of
``agents/heuristics/donjon.py`` with the same name, over the arrays of
``rules/donjon/kernel.py``; the loops mirror ``agents.runner.play_battle`` and
``agents.search.MCTS._descend``. Agent tie-breaks come from the agents' generator
(``mt``: ``random.Random`` draw for draw) exactly where the engine draws them, and the
odds the temperaments compare are the engine's own floats (``OddsTables``).

``KERNEL`` (:class:`DonjonKernel`) is what the fast-path driver finds for ``donjon``.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from escaramuza.agents.heuristic import TEMPERAMENTS
from escaramuza.rules.core import mt
from escaramuza.rules.core.jit import copy_into, njit
from escaramuza.rules.core.kernel import (
    BOUND,
    WINNERS,
    BattleColumns,
    KernelBattle,
    KernelRefusal,
    RolloutBatch,
    check_range,
    refusing,
)
from escaramuza.rules.donjon import kernel as K
from escaramuza.rules.donjon.kernel import (
    ACERCARSE,
    AGU,
    ALEJARSE,
    AT_ATT,
    AT_BAND,
    AT_TGT,
    AT_WPN,
    ATACAR,
    BESTBAND,
    BONUS,
    CEL,
    CONT,
    COUNT,
    DEALT,
    DECISIONS,
    DIED,
    DIS,
    DONE,
    ERR,
    ERR_MISS_HP,
    ERR_MISS_WP,
    ERR_NONE,
    ERR_OVERFLOW,
    ESPERAR,
    HUIR,
    INCONSC,
    INDEX,
    KO,
    MAXH,
    MV_FROMC,
    MV_MOVER,
    MV_VERB,
    NONE,
    P_DEFENCE,
    P_RESIST,
    P_SPEND,
    P_TURN,
    PACTOR,
    PARRYW,
    PC,
    PKIND,
    QUEBR,
    REASON,
    REMATAR,
    ROUND,
    SIDE,
    SP_NPICK,
    SP_PICK,
    SP_REM,
    SP_VICTIM,
    ST_ACTIVE,
    STATUS,
    TAKEN,
    TEMPER,
    TOFOES,
    VIR,
    WINNER,
    WIPE,
    ZONE,
    H,
    Static,
    attack_pool,
    band_of,
    damage_pool,
    dodge_pool,
    kjit,
    lookup_hp,
    lookup_wp,
    move_pool,
    parry_pool,
    soak_pool,
)

if TYPE_CHECKING:
    from escaramuza.rules.core.model import Action
    from escaramuza.rules.core.scenario import Scenario
    from escaramuza.rules.core.state import BattleState

T_TACTICIAN, T_BRUTE, T_CAUTIOUS, T_COWARD, T_PROTECTOR, T_RANDOM = 0, 1, 2, 3, 4, 5
#: An agent of ``play_battles``: the RandomAgent, or the heuristic (scenario temperaments).
A_RANDOM_AGENT, A_SCENARIO = -2, -1
#: agents/heuristics/donjon.py: below this chance to hurt, moving beats swinging.
WORTH_ATTACKING = 0.08
_UNREACHABLE = -(1 << 39)


# -- temperaments (agents/heuristics/donjon.py) ------------------------------------------------
@kjit
def attack_hurt_chance(ci, cs, g, wt, wd, pen, dist, hp, actor, target, w):
    """P(this attack takes at least one Herida or attribute point off ``target``)."""
    band = band_of(dist[ci[actor, ZONE], ci[target, ZONE]])
    pool = attack_pool(ci, cs, wt, pen, actor, w, band)
    if pool < _UNREACHABLE:
        return 0.0
    pool += ci[actor, BONUS]
    defence = dodge_pool(ci, cs, target)
    if wt[actor, w] == K.K_MELEE and ci[target, K.NINIT] > 0 and cs[target, PARRYW] != NONE:
        # The defender may parry instead: count on the better of its two defences.
        defence = max(defence, parry_pool(ci, cs, target))
    return lookup_hp(
        g,
        hp,
        max(0, pool),
        defence,
        damage_pool(ci, cs, wd, actor, w),
        soak_pool(ci, cs, target),
        cs[actor, PC],
        cs[target, PC],
    )


@kjit
def _nearest(ci, cs, dist, c):
    """The active foe fewest hops away; ties go to the lowest index."""
    best = NONE
    best_d = 0
    best_i = 0
    here = ci[c, ZONE]
    for o in range(ci.shape[0]):
        if cs[o, SIDE] == cs[c, SIDE] or ci[o, STATUS] != ST_ACTIVE:
            continue
        d = dist[here, ci[o, ZONE]]
        if best == NONE or d < best_d or (d == best_d and cs[o, INDEX] < best_i):
            best = o
            best_d = d
            best_i = cs[o, INDEX]
    return best


@kjit
def _step(av, at, n, verb, target):
    for k in range(n):
        if av[k] == verb and at[k] == target:
            return k
    return NONE


@kjit
def _first(av, n, verb):
    for k in range(n):
        if av[k] == verb:
            return k
    return NONE


@kjit
def _hurt(ci, cs, c):
    return ci[c, H] * 2 < cs[c, MAXH]


@kjit
def _side_broken(ci, cs, c):
    mine = 0
    out = 0
    for a in range(ci.shape[0]):
        if cs[a, SIDE] == cs[c, SIDE]:
            mine += 1
            if ci[a, STATUS] != ST_ACTIVE:
                out += 1
    return mine > 1 and 2 * out >= mine


@kjit
def _strength(ci, cs, side):
    total = 0.0
    for c in range(ci.shape[0]):
        if cs[c, SIDE] == side and ci[c, STATUS] == ST_ACTIVE:
            total += 1.0 + ci[c, H] / max(1, cs[c, MAXH])
    return total


@kjit
def _choose_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n):
    actor = g[PACTOR]
    best = NONE
    best_c = 0.0
    best_r = 0.0
    for k in range(n):
        if av[k] == ATACAR:
            chance = attack_hurt_chance(ci, cs, g, wt, wd, pen, dist, hp, actor, at[k], ai[k])
            r = mt.random_float(rng)
            if best == NONE or chance > best_c or (chance == best_c and r > best_r):
                best = k
                best_c = chance
                best_r = r
    if g[ERR] != ERR_NONE:
        return 0
    if best != NONE and best_c >= WORTH_ATTACKING:
        return best
    want = cs[actor, BESTBAND]
    nearest = _nearest(ci, cs, dist, actor)
    if nearest != NONE:
        here = band_of(dist[ci[actor, ZONE], ci[nearest, ZONE]])
        verb = ACERCARSE if here > want else (ALEJARSE if here < want else NONE)
        k = _step(av, at, n, verb, nearest)
        if k != NONE:
            return k
    k = _first(av, n, REMATAR)
    if k != NONE:
        return k
    if best != NONE:
        return best
    return _first(av, n, ESPERAR)


@kjit
def _dice(ci, cs, wt, wd, pen, dist, actor, target, w):
    """Attack + damage dice of an attack action (how hard the brute swings)."""
    pool = attack_pool(ci, cs, wt, pen, actor, w, band_of(dist[ci[actor, ZONE], ci[target, ZONE]]))
    if pool < _UNREACHABLE:
        pool = 0
    return pool + damage_pool(ci, cs, wd, actor, w)


@kjit
def _brute_turn(ci, cs, g, wt, wd, pen, dist, av, at, ai, n):
    actor = g[PACTOR]
    nearest = _nearest(ci, cs, dist, actor)
    best = NONE
    b0 = 0
    b1 = 0
    for k in range(n):
        if av[k] != ATACAR:
            continue
        k0 = -dist[ci[actor, ZONE], ci[at[k], ZONE]]
        k1 = _dice(ci, cs, wt, wd, pen, dist, actor, at[k], ai[k])
        if best == NONE or k0 > b0 or (k0 == b0 and k1 > b1):
            best = k
            b0 = k0
            b1 = k1
    if best != NONE:
        return best
    if nearest != NONE:
        k = _step(av, at, n, ACERCARSE, nearest)
        if k != NONE:
            return k
    k = _first(av, n, REMATAR)
    if k != NONE:
        return k
    return _first(av, n, ESPERAR)


@kjit
def _cautious_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n):
    actor = g[PACTOR]
    nearest = _nearest(ci, cs, dist, actor)
    if nearest != NONE:
        here = band_of(dist[ci[actor, ZONE], ci[nearest, ZONE]])
        if _hurt(ci, cs, actor) or here < cs[actor, BESTBAND]:
            k = _step(av, at, n, ALEJARSE, nearest)
            if k != NONE:
                return k
    return _choose_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n)


@kjit
def _coward_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n):
    actor = g[PACTOR]
    if not (_hurt(ci, cs, actor) or _side_broken(ci, cs, actor)):
        return _cautious_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n)
    # _flee: huir if it can, else a step away from the nearest foe.
    k = _first(av, n, HUIR)
    if k != NONE:
        return k
    nearest = _nearest(ci, cs, dist, actor)
    if nearest != NONE:
        k = _step(av, at, n, ALEJARSE, nearest)
        if k != NONE:
            return k
    return _choose_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n)


@kjit
def _protector_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n):
    actor = g[PACTOR]
    side = cs[actor, SIDE]
    ward = NONE
    ward_f = 0.0
    ward_i = 0
    any_foe = False
    for a in range(ci.shape[0]):
        if ci[a, STATUS] != ST_ACTIVE:
            continue
        if cs[a, SIDE] != side:
            any_foe = True
        elif a != actor and ci[a, H] < cs[a, MAXH]:
            f = ci[a, H] / cs[a, MAXH]
            if ward == NONE or f < ward_f or (f == ward_f and cs[a, INDEX] < ward_i):
                ward = a
                ward_f = f
                ward_i = cs[a, INDEX]
    if ward != NONE and any_foe:
        threat = _nearest(ci, cs, dist, ward)
        best = NONE
        best_c = 0.0
        for k in range(n):
            if av[k] == ATACAR and at[k] == threat:
                c = attack_hurt_chance(ci, cs, g, wt, wd, pen, dist, hp, actor, threat, ai[k])
                if best == NONE or c > best_c:
                    best = k
                    best_c = c
        if best != NONE:
            return best
        k = _step(av, at, n, ACERCARSE, threat)
        if k != NONE:
            return k
    return _choose_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n)


@kjit
def _choose_defence(ci, cs, g, wt, pen, wp):
    """Parry when a counter is likely (P ≥ ½) and at least as likely as a dodge."""
    me = g[PACTOR]
    attacker = g[AT_ATT]
    pool = attack_pool(ci, cs, wt, pen, attacker, g[AT_WPN], g[AT_BAND])
    if pool < _UNREACHABLE:
        pool = 0
    pool += ci[attacker, BONUS]
    if pool < 0:
        g[ERR] = ERR_OVERFLOW  # the engine's exact odds refuse a negative pool
        return 0
    p_parry = 1.0 - lookup_wp(g, wp, pool, parry_pool(ci, cs, me))
    p_dodge = 1.0 - lookup_wp(g, wp, pool, dodge_pool(ci, cs, me))
    return 0 if p_parry >= 0.5 and p_parry >= p_dodge else 1


@kjit
def _choose_resist(ci, cs, g, wp):
    """Resist when the movement test is likely won and the move goes against it."""
    me = g[PACTOR]
    mover = g[MV_MOVER]
    p_win = 1.0 - lookup_wp(
        g, wp, move_pool(ci, cs, mover) + ci[mover, BONUS], move_pool(ci, cs, me)
    )
    want = cs[me, BESTBAND]
    if g[MV_FROMC] == 1:
        against_me = True
    elif g[MV_VERB] == ACERCARSE:
        against_me = want > 0
    else:
        against_me = want == 0
    return 0 if against_me and p_win > 0.5 else 1


@kjit
def _react(ci, cs, g, wt, pen, wp, mood):
    """The ``defensa`` (0 parar, 1 esquivar) and ``resistir`` (0 resistir, 1 dejar)."""
    if g[PKIND] == P_DEFENCE:
        if mood == T_BRUTE:
            return 0
        if mood == T_COWARD:
            return 1
        return _choose_defence(ci, cs, g, wt, pen, wp)
    if mood == T_BRUTE:
        return 1 if g[MV_VERB] == ACERCARSE else 0
    if mood == T_COWARD:
        return 1
    return _choose_resist(ci, cs, g, wp)


@kjit
def _option(ai, n, option):
    for k in range(n):
        if ai[k] == option:
            return k
    return NONE


@kjit
def _choose_spend(ci, g, ai, n):
    victim = g[SP_VICTIM]
    heridas = ci[victim, H]
    for j in range(g[SP_NPICK]):
        # Already paid the fact for this attribute: keep lowering it.
        k = _option(ai, n, g[SP_PICK + j])
        if k != NONE and heridas > 0:
            return k
    if heridas == 0:
        for o in range(1, 5):
            k = _option(ai, n, o)
            if k != NONE:
                return k
    rem = g[SP_REM]
    on_heridas = _option(ai, n, 0)
    on_celeridad = _option(ai, n, 1)
    if on_heridas != NONE and rem < heridas and on_celeridad != NONE and rem - 1 >= ci[victim, CEL]:
        # The blow cannot drop the victim but can take all its Celeridad.
        return on_celeridad
    if on_heridas != NONE:
        return on_heridas
    return 0


@kjit
def _pause(ci, cs, g, mood):
    """DJ-07: 0 continuar, 1 retirarse."""
    actor = g[PACTOR]
    side = cs[actor, SIDE]
    mine = _strength(ci, cs, side)
    theirs = _strength(ci, cs, 1 - side)
    if mood == T_BRUTE:
        go_on = True
    elif mood == T_COWARD:
        go_on = not (_hurt(ci, cs, actor) or _side_broken(ci, cs, actor)) and mine > theirs
    elif mood == T_CAUTIOUS:
        go_on = mine > theirs
    else:
        go_on = mine >= theirs
    return 0 if go_on else 1


@kjit
def heuristic_choice(ci, cs, g, wt, wd, pen, dist, hp, wp, rng, av, at, ai, n, mood):
    """``agents.heuristic.heuristic_choice`` + ``donjon.choose``: the index of the pick."""
    if n == 1:
        return 0
    if mood == T_RANDOM:
        return mt.randbelow(rng, n)
    kind = g[PKIND]
    if kind == P_TURN:
        if mood == T_BRUTE:
            return _brute_turn(ci, cs, g, wt, wd, pen, dist, av, at, ai, n)
        if mood == T_CAUTIOUS:
            return _cautious_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n)
        if mood == T_COWARD:
            return _coward_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n)
        if mood == T_PROTECTOR:
            return _protector_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n)
        return _choose_turn(ci, cs, g, wt, wd, pen, dist, hp, rng, av, at, ai, n)
    if kind == P_DEFENCE or kind == P_RESIST:
        return _react(ci, cs, g, wt, pen, wp, mood)
    if kind == P_SPEND:
        return _choose_spend(ci, g, ai, n)
    return _pause(ci, cs, g, mood)


# -- loops -----------------------------------------------------------------------------------
@kjit
def _decide(ci, cs, g, wt, wd, pen, dist, hp, wp, rng, av, at, ai, n, mode):
    if mode == A_RANDOM_AGENT:
        return mt.randbelow(rng, n)
    mood = cs[g[PACTOR], TEMPER] if mode == A_SCENARIO else mode
    return heuristic_choice(ci, cs, g, wt, wd, pen, dist, hp, wp, rng, av, at, ai, n, mood)


@njit(cache=True)
def play_battles_kernel(
    cs,
    wt,
    wd,
    pen,
    dist,
    stepto,
    away,
    p,
    ci0,
    init0,
    g0,
    dice_keys,
    dice_key_len,
    agent_keys,
    agent_key_len,
    modes,
    hp,
    wp,
    out_g,
    out_ci,
    todo,
    slot,
    saved_init,
    saved_dice,
    saved_rng,
    used,
):
    """``agents.runner.play_battle`` for every seed ``todo[j]`` marks: the final ``g`` and
    ``ci`` rows; ``g[ERR]`` says a seed stopped on an odds miss or an overflow.

    A battle stopped by an odds miss is kept where it stopped — ``ci`` and ``g`` in its
    out rows, its ``init`` and both generators in ``saved_*[slot[j]]`` (``used[0]`` slots
    taken so far) — and resumes at that decision once the odds are filled, instead of
    being played again from the start (a big battle met dozens of misses while the
    tables filled). The heuristic writes nothing but the error while it decides; the
    agents' draws it made are undone by resetting the generator's index, exact when no
    block was drawn in the meantime (else, or with no slot free: from the start)."""
    n_c = ci0.shape[0]
    width = 4 * n_c * (wt.shape[1] + 2) + 8
    av = np.zeros(width, dtype=np.int64)
    at = np.zeros(width, dtype=np.int64)
    ai = np.zeros(width, dtype=np.int64)
    buf_a = np.zeros(K.MAX_POOL, dtype=np.int64)
    buf_d = np.zeros(K.MAX_POOL, dtype=np.int64)
    dice_lanes = np.zeros((mt.LANES, mt.STATE_SIZE), dtype=np.uint32)
    rng_lanes = np.zeros((mt.LANES, mt.STATE_SIZE), dtype=np.uint32)
    seeded = -1  # the group of eight battles whose generators the lanes hold
    for j in range(dice_keys.shape[0]):
        if not todo[j]:
            continue
        here = slot[j]
        if here >= 0:  # resume at the decision an odds miss stopped
            ci = out_ci[j].copy()
            g = out_g[j].copy()
            g[ERR] = ERR_NONE
            init = saved_init[here]
            dice = saved_dice[here]
            rng = saved_rng[here]
        else:
            # Both generators of eight battles are seeded together (mt.seed_lanes) when
            # all eight start afresh; a replay pass plays a few: one by one.
            group = j - j % mt.LANES
            lane = j - group
            if group != seeded:
                whole = group + mt.LANES <= todo.shape[0]
                for other in range(group, min(group + mt.LANES, todo.shape[0])):
                    whole = whole and todo[other] and slot[other] < 0
                if whole:
                    mt.seed_lanes(dice_lanes, dice_keys, dice_key_len, group)
                    mt.seed_lanes(rng_lanes, agent_keys, agent_key_len, group)
                    seeded = group
                else:
                    mt.seed_key(dice_lanes[lane], dice_keys[j, : dice_key_len[j]])
                    mt.seed_key(rng_lanes[lane], agent_keys[j, : agent_key_len[j]])
            ci = ci0.copy()
            init = init0.copy()
            g = g0.copy()
            dice = dice_lanes[lane]
            rng = rng_lanes[lane]
            K.start(ci, init, cs, g, p, dice, buf_a, buf_d)
        while g[DONE] == 0 and g[ERR] == ERR_NONE:
            n = K.legal_actions(ci, cs, g, wt, pen, dist, away, av, at, ai)
            index = rng[mt.N]
            k = _decide(
                ci, cs, g, wt, wd, pen, dist, hp, wp, rng, av, at, ai, n, modes[cs[g[PACTOR], SIDE]]
            )
            if g[ERR] != ERR_NONE:
                missed = g[ERR] == ERR_MISS_HP or g[ERR] == ERR_MISS_WP
                if missed and rng[mt.N] >= index:
                    rng[mt.N] = index  # the decision's tie-break draws, undone
                    if here < 0 and used[0] < saved_dice.shape[0]:
                        here = used[0]
                        used[0] += 1
                    if here >= 0:
                        copy_into(saved_init[here], init)
                        copy_into(saved_dice[here], dice)
                        copy_into(saved_rng[here], rng)
                else:
                    here = -1
                slot[j] = here
                break
            K.apply(
                ci,
                init,
                cs,
                g,
                wt,
                wd,
                pen,
                dist,
                stepto,
                away,
                p,
                dice,
                buf_a,
                buf_d,
                av[k],
                at[k],
                ai[k],
            )
            g[DECISIONS] += 1
        copy_into(out_g[j], g)
        copy_into(out_ci[j], ci)


@kjit
def _walk_update(ci, cs, g, walk, actor):
    """``agents.search._Walk.update``: walk = (tracking, left_turn, knocked_out)."""
    if g[DONE] == 1:
        side = cs[actor, SIDE]
        active = ci[actor, STATUS] == ST_ACTIVE
        winner = g[WINNER]
        lost = (winner != NONE and winner != side) or (winner == NONE and not active)
        walk[2] = 1 if lost or not active else 0
        walk[0] = 0
        return
    if ci[actor, STATUS] != ST_ACTIVE:
        walk[2] = 1
        walk[0] = 0
        return
    if g[PACTOR] != actor:
        walk[1] = 1
    elif walk[1] == 1 and g[PKIND] == P_TURN:
        walk[0] = 0


@kjit
def _side_strength(ci, cs, side):
    """``agents.search.side_strength`` (health = Heridas)."""
    total = 0.0
    n = 0
    for c in range(ci.shape[0]):
        if cs[c, SIDE] != side:
            continue
        n += 1
        if ci[c, STATUS] != ST_ACTIVE:
            continue
        top = cs[c, MAXH]
        frac = ci[c, H] / top if top > 0 else 1.0
        total += 0.5 + 0.5 * min(max(frac, 0.0), 1.0)
    return total / n if n else 0.0


# nogil: the planner splits a batch over threads (agents/search.py, _Rollouts._batch).
@njit(cache=True, nogil=True)
def rollouts_kernel(
    cs,
    wt,
    wd,
    pen,
    dist,
    stepto,
    away,
    p,
    ci0,
    init0,
    g0,
    acts,
    seeds,
    seed_keys,
    seed_key_len,
    stop_round,
    own_mood,
    search_side,
    root_actor,
    max_decisions,
    hp,
    wp,
    out,
    errs,
    todo,
):
    """``MCTS._descend`` below an empty tree for every (action, seed) ``todo`` marks:
    out[a, s] = (winner ±1/0, finished, own, foe, actor_out)."""
    n_c = ci0.shape[0]
    width = 4 * n_c * (wt.shape[1] + 2) + 8
    av = np.zeros(width, dtype=np.int64)
    at = np.zeros(width, dtype=np.int64)
    ai = np.zeros(width, dtype=np.int64)
    buf_a = np.zeros(K.MAX_POOL, dtype=np.int64)
    buf_d = np.zeros(K.MAX_POOL, dtype=np.int64)
    dice = np.zeros(mt.STATE_SIZE, dtype=np.uint32)
    rng = np.zeros(mt.STATE_SIZE, dtype=np.uint32)
    walk = np.zeros(3, dtype=np.int64)
    for a in range(acts.shape[0]):
        for s in range(seeds.shape[0]):
            if not todo[a, s]:
                continue
            ci = ci0.copy()
            init = init0.copy()
            g = g0.copy()
            # MCTS._descend: RandomRoller(seed) and random.Random(seed), two generators.
            mt.seed_key(dice, seed_keys[s, : seed_key_len[s]])
            mt.seed_key(rng, seed_keys[s, : seed_key_len[s]])
            walk[0] = 1
            walk[1] = 0
            walk[2] = 0
            verb, target, item = acts[a, 0], acts[a, 1], acts[a, 2]
            decisions = 0
            while True:
                K.apply(
                    ci,
                    init,
                    cs,
                    g,
                    wt,
                    wd,
                    pen,
                    dist,
                    stepto,
                    away,
                    p,
                    dice,
                    buf_a,
                    buf_d,
                    verb,
                    target,
                    item,
                )
                decisions += 1
                if g[ERR] != ERR_NONE:
                    break
                if walk[0] == 1:
                    _walk_update(ci, cs, g, walk, root_actor)
                if g[DONE] == 1 or g[ROUND] >= stop_round or decisions >= max_decisions:
                    break
                n = K.legal_actions(ci, cs, g, wt, pen, dist, away, av, at, ai)
                side = cs[g[PACTOR], SIDE]
                mood = cs[g[PACTOR], TEMPER]
                if side == search_side and own_mood >= 0:
                    mood = own_mood
                k = heuristic_choice(ci, cs, g, wt, wd, pen, dist, hp, wp, rng, av, at, ai, n, mood)
                if g[ERR] != ERR_NONE:
                    break
                verb, target, item = av[k], at[k], ai[k]
            for j in range(8):  # not a slice assignment (rules.core.jit.copy_into)
                errs[a, s, j] = g[ERR + j]
            if g[ERR] != ERR_NONE:
                continue
            winner = g[WINNER] if g[DONE] == 1 else NONE
            out[a, s, 0] = 0.0 if winner == NONE else (1.0 if winner == search_side else -1.0)
            out[a, s, 1] = g[DONE]
            out[a, s, 2] = _side_strength(ci, cs, search_side)
            out[a, s, 3] = _side_strength(ci, cs, 1 - search_side)
            out[a, s, 4] = walk[2]


# -- the Kernel protocol -----------------------------------------------------------------------
#: Battles of a chunk that may wait, stopped by an odds miss, to resume where they
#: stopped (play_battles_kernel); beyond, a miss replays its battle from the start.
RESUME_SLOTS = 1024


def agent_mode(spec: str) -> int | None:
    """The kernel code of an agent spec (``make_agent`` names), None if not supported."""
    if spec == "random":
        return A_RANDOM_AGENT
    if spec == "heuristic":
        return A_SCENARIO
    mood = spec.split(":", 1)[1] if spec.startswith("heuristic:") else spec
    if mood in TEMPERAMENTS:
        return TEMPERAMENTS.index(mood)
    return None


class DonjonKernel:
    """The Donjon kernel (``rules.core.kernel.Kernel``)."""

    ruleset_id = "donjon"

    def __init__(self) -> None:
        self._static: dict[int, tuple[object, Static]] = {}

    def static(self, scenario: Scenario) -> Static:
        """The scenario's static arrays (kept while the scenario object lives)."""
        found = self._static.get(id(scenario))
        if found is None or found[0] is not scenario:
            found = (scenario, K.export_scenario(scenario))
            self._static[id(scenario)] = found
        return found[1]

    def refusal(self, scenario: Scenario, agents: Sequence[str]) -> str | None:
        if scenario.ruleset.id != "donjon":
            return f"ruleset {scenario.ruleset.id!r} is not Donjon"
        for spec in agents:
            if agent_mode(spec) is None:
                return (
                    f"agent {spec!r} is not compiled (kernel agents: random, heuristic, "
                    "heuristic:T)"
                )
        for c in scenario.combatants:
            if c.conditions:
                return f"{c.id} starts with conditions ({', '.join(c.conditions)})"
            if c.data.get("init") or c.data.get("bonus") or c.data.get("acted") != (0, 0):
                return f"{c.id} starts with ráfaga data"
        if scenario.victory not in ("defeat_all", "survive"):
            return f"victory {scenario.victory!r}"
        try:
            # The kernel boundary: every number of the scenario within what the arrays and
            # the pools hold (rules.donjon.kernel.check_scenario, _export_combatant).
            with refusing():
                K.initial_arrays(scenario, self.static(scenario))
        except KernelRefusal as exc:
            return str(exc)
        return None

    # -- battles -------------------------------------------------------------------------
    def play_battles(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> list[KernelBattle]:
        st, seeds, out_g, out_ci = self._play(scenario, agents, seeds)
        # Thousands of small tuples: the cyclic collector would walk them again and again
        # (a tenth of the time); none of them can be part of a cycle.
        paused = gc.isenabled()
        gc.disable()
        try:
            out = _read_back(st, seeds, out_g, out_ci)
        finally:
            if paused:
                gc.enable()
        return out

    def play_columns(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> BattleColumns:
        _, _, out_g, out_ci = self._play(scenario, agents, seeds)
        winner = out_g[:, WINNER]  # NONE, else an index of K.SIDES (heroes, enemies)
        return BattleColumns(
            winner=np.where(winner == NONE, WINNERS.index(None), winner),
            reason=out_g[:, REASON],
            reasons=K.REASONS,
            rounds=out_g[:, K.OROUNDS],
            wipe=out_g[:, WIPE] == 1,
            ko_round=out_ci[:, :, KO],
            died=out_ci[:, :, DIED] != 0,
            dealt=out_ci[:, :, DEALT],
            dealt_to_foes=out_ci[:, :, TOFOES],
            taken=out_ci[:, :, TAKEN],
        )

    def _play(
        self, scenario: Scenario, agents: Sequence[str], seeds: Sequence[int]
    ) -> tuple[Static, list[int], np.ndarray, np.ndarray]:
        """The kernel's final arrays of one battle per seed (``g`` and each combatant's
        row), with the seeds as ints."""
        why = self.refusal(scenario, agents)
        if why is not None:
            raise KernelRefusal(f"donjon kernel: {why}")
        st = self.static(scenario)
        tables = K.odds_tables(st.die_size, st.all_tied)
        ci0, init0, g0 = K.initial_arrays(scenario, st)
        seeds = [int(s) for s in seeds]
        dice_keys, dice_lens = mt.seed_keys(seeds)
        keys, lens = mt.agent_keys(seeds)
        modes = np.array([agent_mode(agents[0]), agent_mode(agents[1])], dtype=np.int64)
        ns = len(seeds)
        out_g = np.zeros((ns, K.NG), dtype=np.int64)
        out_ci = np.zeros((ns, *ci0.shape), dtype=np.int64)
        todo = np.ones(ns, dtype=np.bool_)
        # Where battles stopped by an odds miss wait to resume (play_battles_kernel).
        slot = np.full(ns, -1, dtype=np.int64)
        room = min(ns, RESUME_SLOTS)
        saved_init = np.zeros((room, *init0.shape), dtype=init0.dtype)
        saved_dice = mt.new_state(room)
        saved_rng = mt.new_state(room)
        used = np.zeros(1, dtype=np.int64)
        while todo.any():
            play_battles_kernel(
                st.cs,
                st.wt,
                st.wd,
                st.pen,
                st.dist,
                st.stepto,
                st.away,
                st.p,
                ci0,
                init0,
                g0,
                dice_keys,
                dice_lens,
                keys,
                lens,
                modes,
                tables.hp,
                tables.wp,
                out_g,
                out_ci,
                todo,
                slot,
                saved_init,
                saved_dice,
                saved_rng,
                used,
            )
            todo[:] = False
            for j in np.flatnonzero(out_g[:, ERR] != ERR_NONE).tolist():
                err = out_g[j, ERR]
                if err in (ERR_MISS_HP, ERR_MISS_WP):
                    tables.fill(out_g[j])
                    todo[j] = True
                elif err == ERR_OVERFLOW:
                    # Pools beyond the arrays (hundreds of dice): never in a real battle.
                    raise KernelRefusal(
                        f"donjon kernel: seed {seeds[j]} outgrows the kernel's pools"
                    )
        return st, seeds, out_g, out_ci

    # -- rollouts ------------------------------------------------------------------------
    def export_state(self, state: BattleState) -> tuple[Static, np.ndarray, np.ndarray, np.ndarray]:
        """``ci``/``init``/``g`` of an engine state waiting on a decision (KernelRefusal if
        the kernel cannot resume it)."""
        why = self.refusal(state.scenario, ())
        if why is not None and "starts with" not in why:
            raise KernelRefusal(f"donjon kernel: {why}")
        if state.outcome is not None or state.pending is None:
            raise KernelRefusal("donjon kernel: the battle is over")
        try:
            with refusing():
                return self._export_state(self.static(state.scenario), state)
        except KernelRefusal as exc:
            raise KernelRefusal(f"donjon kernel: {exc}") from None

    @staticmethod
    def _export_state(
        st: Static, state: BattleState
    ) -> tuple[Static, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`export_state`'s arrays, every value checked against the range the kernel
        indexes: combatants' rows (``K._export_combatant``), the round within the round
        limit, the count a face of the die, the pending decision's actor and what it waits
        on (combatants, a weapon of the attacker, a band, a zone, at most four attributes
        named by a fact); a turn's actor holds the number called."""
        ci, init, g = K.new_arrays(st)
        index = {cid: i for i, cid in enumerate(st.ids)}
        if tuple(c.id for c in state.combatants) != st.ids:
            raise KernelRefusal("the state's combatants are not the scenario's")
        for i, c in enumerate(state.combatants):
            K._export_combatant(ci, init, st, i, c, zero_counters=True)
        data = state.data
        pending = state.pending
        assert pending is not None
        check_range(state.round, 1, int(st.p[K.RLIMIT]), "round")
        check_range(data.get("count", 0), 0, st.die_size, "count")
        check_range(state.turn, 0, BOUND, "turn")
        g[ROUND] = state.round
        g[COUNT] = data.get("count", 0)
        g[K.TURN] = state.turn
        if pending.name not in K.PENDING_NAMES[1:]:
            raise KernelRefusal(f"pending decision {pending.name!r}")
        g[PKIND] = K.PENDING_NAMES.index(pending.name)
        g[PACTOR] = index[pending.actor]
        if K.SIDES.index(pending.side) != st.cs[g[PACTOR], K.SIDE]:
            raise KernelRefusal("the pending decision's side is not its actor's")
        if g[PKIND] == K.P_TURN and g[COUNT] not in init[g[PACTOR], : ci[g[PACTOR], K.NINIT]]:
            raise KernelRefusal(f"{pending.actor} does not hold the number called")
        g[WINNER] = NONE
        g[AT_ATT] = g[MV_MOVER] = g[K.SP_DEALER] = NONE
        attack = data.get("attack")
        if attack is not None:
            actor = index[attack.attacker]
            g[AT_ATT] = actor
            g[AT_TGT] = index[attack.target]
            g[AT_WPN] = st.weapon_names[actor].index(attack.weapon)
            check_range(attack.band, 0, 3, "the attack's band")
            g[AT_BAND] = attack.band
        move = data.get("move")
        if move is not None:
            if move.verb not in ("acercarse", "alejarse", "huir"):
                raise KernelRefusal(f"a move by {move.verb!r}")
            g[MV_MOVER] = index[move.mover]
            g[K.MV_RES] = index[move.resister] if move.resister else NONE
            g[MV_VERB] = K.VERBS.index(move.verb)
            g[K.MV_TO] = st.zone_ids.index(move.to_zone) if move.to_zone else NONE
            g[MV_FROMC] = 1 if move.from_contact else 0
        spend = data.get("spend")
        if spend is not None:
            g[K.SP_DEALER] = index[spend.dealer]
            g[SP_VICTIM] = index[spend.victim]
            check_range(spend.remaining, 0, BOUND, "successes to spend")
            g[SP_REM] = spend.remaining
            # SP_PICK holds the four attributes, each named at most once.
            picked = tuple(spend.picked)
            if len(set(picked)) != len(picked) or not set(picked) <= set(K.SPEND_OPTIONS[1:]):
                raise KernelRefusal(f"attributes named by a fact: {list(picked)}")
            g[SP_NPICK] = len(picked)
            for j, name in enumerate(picked):
                g[SP_PICK + j] = K.SPEND_OPTIONS.index(name)
        continuing = tuple(data.get("continuing", ()))
        if not set(continuing) <= {"heroes", "enemies"} or len(set(continuing)) != len(continuing):
            raise KernelRefusal(f"continuing {list(continuing)}")
        g[CONT] = len(continuing)
        # Who decides a reaction or a spending is the one it waits on.
        needs = {
            K.P_DEFENCE: (attack, AT_TGT),
            K.P_RESIST: (move, K.MV_RES),
            K.P_SPEND: (spend, K.SP_DEALER),
        }
        if g[PKIND] in needs:
            waits, who = needs[g[PKIND]]
            if waits is None or g[who] != g[PACTOR]:
                raise KernelRefusal(
                    f"pending {pending.name!r} of {pending.actor}: not what the state waits on"
                )
        return st, ci, init, g

    @staticmethod
    def encode_action(st: Static, action: Action) -> tuple[int, int, int]:
        """(verb, target index, item) of an engine action."""
        verb = K.VERBS.index(action.verb)
        target = st.ids.index(action.target) if action.target else NONE
        item = NONE
        if action.item:
            item = st.weapon_names[st.ids.index(action.actor)].index(action.item)
        elif action.option:
            item = K.SPEND_OPTIONS.index(action.option)
        # What apply reads of each verb is there (an index of -1 would read the last row).
        needs = (
            target if verb in (K.ATACAR, K.REMATAR, K.ACERCARSE, K.ALEJARSE) else 0,
            item if verb in (K.ATACAR, K.REMATAR, K.REPARTIR) else 0,
        )
        if min(needs) < 0:
            raise KernelRefusal(f"{action} lacks what {action.verb} needs")
        return verb, target, item

    def rollouts(
        self,
        state: BattleState,
        actions: Sequence[Action],
        seeds: Sequence[int],
        horizon: int | None,
        own_temperament: str | None,
        max_decisions: int,
    ) -> RolloutBatch:
        st, ci0, init0, g0 = self.export_state(state)
        pending = state.pending
        assert pending is not None
        if own_temperament is not None and own_temperament not in TEMPERAMENTS:
            raise KernelRefusal(f"donjon kernel: temperament {own_temperament!r}")
        own = TEMPERAMENTS.index(own_temperament) if own_temperament is not None else -1
        with refusing("donjon kernel"):
            acts = np.array([self.encode_action(st, a) for a in actions], dtype=np.int64)
        acts = acts.reshape(len(actions), 3)
        keys, lens = mt.seed_keys([int(s) for s in seeds])
        # Rounds never pass the round limit (at most BOUND): capping the stop round and the
        # decision cap at 2**62 changes no rollout and keeps them int64.
        stop = min(state.round + horizon, 1 << 62) if horizon is not None else 1 << 62
        max_decisions = min(max_decisions, 1 << 62)
        tables = K.odds_tables(st.die_size, st.all_tied)
        na, ns = len(actions), len(seeds)
        out = np.zeros((na, ns, 5))
        errs = np.zeros((na, ns, 8), dtype=np.int64)
        todo = np.ones((na, ns), dtype=np.bool_)
        side = K.SIDES.index(pending.side)
        actor = st.ids.index(pending.actor)
        while todo.any():
            rollouts_kernel(
                st.cs,
                st.wt,
                st.wd,
                st.pen,
                st.dist,
                st.stepto,
                st.away,
                st.p,
                ci0,
                init0,
                g0,
                acts,
                np.arange(ns, dtype=np.int64),
                keys,
                lens,
                stop,
                own,
                side,
                actor,
                max_decisions,
                tables.hp,
                tables.wp,
                out,
                errs,
                todo,
            )
            todo[:] = False
            for a in range(na):
                for s in range(ns):
                    err = errs[a, s, 0]
                    if err in (ERR_MISS_HP, ERR_MISS_WP):
                        g = np.zeros(K.NG, dtype=np.int64)
                        g[ERR : ERR + 8] = errs[a, s]
                        tables.fill(g)
                        todo[a, s] = True
                    elif err == ERR_OVERFLOW:
                        raise KernelRefusal("donjon kernel: a pool beyond the kernel's arrays")
        return RolloutBatch(
            winner=out[:, :, 0].astype(np.int64),
            finished=out[:, :, 1].astype(np.bool_),
            own=out[:, :, 2].copy(),
            foe=out[:, :, 3].copy(),
            actor_out=out[:, :, 4].astype(np.bool_),
        )


def _read_back(
    st: Static, seeds: list[int], out_g: np.ndarray, out_ci: np.ndarray
) -> list[KernelBattle]:
    """Final arrays → KernelBattles, column by column (one ``tolist`` a column, tuples
    built by ``zip`` and ``map``: the per-battle Python is most of a short battle's cost)."""
    n = out_ci.shape[1]

    def col(c: int) -> list[list[int]]:
        return out_ci[:, :, c].tolist()

    status, zone, agu, cel, dis, her, vir = (col(c) for c in (STATUS, ZONE, AGU, CEL, DIS, H, VIR))
    inconsc, quebr, ko, died, dealt, tofoes, taken = (
        col(c) for c in (INCONSC, QUEBR, KO, DIED, DEALT, TOFOES, TAKEN)
    )
    g = out_g[:, [WINNER, REASON, K.OROUNDS, WIPE, DECISIONS]].tolist()
    names = [
        (name,) * n for name in ("aguante", "celeridad", "discernimiento", "heridas", "virilidad")
    ]
    status_of = _STATUS_NAMES.__getitem__
    zone_of = st.zone_ids.__getitem__
    out: list[KernelBattle] = []
    for j, seed in enumerate(seeds):
        winner, reason, rounds, wipe, decisions = g[j]
        out.append(
            KernelBattle(
                seed,
                None if winner == NONE else _SIDE_NAMES[winner],
                K.REASONS[reason],
                rounds,
                wipe == 1,
                decisions,
                tuple(map(status_of, status[j])),
                tuple(map(zone_of, zone[j])),
                # Combatant.resources as sorted (name, value) pairs.
                tuple(
                    zip(
                        zip(names[0], agu[j], strict=True),
                        zip(names[1], cel[j], strict=True),
                        zip(names[2], dis[j], strict=True),
                        zip(names[3], her[j], strict=True),
                        zip(names[4], vir[j], strict=True),
                        strict=True,
                    )
                ),
                tuple(map(_condition_pairs, inconsc[j], quebr[j])),
                tuple(ko[j]),
                tuple(map(bool, died[j])),
                tuple(dealt[j]),
                tuple(tofoes[j]),
                tuple(taken[j]),
            )
        )
    return out


def _condition_pairs(inconsciente: int, quebrado: int) -> tuple[tuple[str, int], ...]:
    return _CONDITIONS[inconsciente][quebrado]


_STATUS_NAMES = tuple(s.value for s in K.STATUS_CODES)
_SIDE_NAMES = tuple(s.value for s in K.SIDES)
#: Final conditions as sorted (name, value) pairs, by (inconsciente, quebrado).
_CONDITIONS = (
    ((), (("quebrado", 0),)),
    ((("inconsciente", 0),), (("inconsciente", 0), ("quebrado", 0))),
)

KERNEL = DonjonKernel()

__all__ = ["KERNEL", "DonjonKernel", "heuristic_choice"]
