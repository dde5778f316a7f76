"""Donjon's temperaments compiled, and the kernel joining them to the compiled rules.

The fast path (architecture.md): :mod:`escaramuza.agents.heuristics.donjon` function by
function over the bundles of :mod:`escaramuza.rules.donjon.kernel` (its docstring lays
them out), played by the shared loops (``rules.core.loops``): whole battles
(``agents.runner.play_battle``) and rollouts (``agents.search.MCTS.rollout``). Every
choice compares the numbers the engine compares: the exact odds are the engine's own
floats (``OddsTables``), Heridas fractions the same float divisions, and the tactician's
tie-breaks are drawn from the agents' generator exactly where the engine draws them. The
shared ``decide`` plays the random agent and the ``random`` temperament; :func:`choose`
is every other temperament.

As in the rules, :func:`choose` and the steps inlined once each into it take the
bundles; every other helper takes the arrays it reads and is compiled once.

A decision that needs an odds entry not computed yet suspends its battle: the kernel
fills the entries it recorded and the shared loops play the battle again from the start
(:meth:`DonjonKernel.resolve`, :meth:`DonjonKernel.resolve_rollouts`).

``KERNEL`` (:class:`DonjonKernel`) is what the fast-path driver finds for ``donjon``.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from escaramuza.rules.core import dialect
from escaramuza.rules.core.compiled import CompiledKernel, Exported
from escaramuza.rules.core.dialect import ACTIVE, DIST, GLOBALS, STAT, STATE, WEAPON
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.kernel import KernelRefusal
from escaramuza.rules.core.loops import agent_random
from escaramuza.rules.donjon import kernel as dk
from escaramuza.rules.donjon.kernel import (
    ACERCARSE,
    ALEJARSE,
    ATACAR,
    CS,
    ESPERAR,
    HUIR,
    HURT_ODDS,
    KEY,
    KIND_DEFENSA,
    KIND_REPARTIR,
    KIND_RESISTIR,
    KIND_TURN,
    MELEE_KIND,
    MISS_SLOTS,
    MISSES,
    NONE,
    ODDS,
    PENALTIES,
    REMATAR,
    ST,
    SUSPEND_ODDS,
    SUSPEND_OVERFLOW,
    UNREACHABLE,
    WIN_ODDS,
    A,
    G,
    W,
    attack_pool,
    band_of,
    damage_pool,
    dodge_pool,
    lookup_hurt,
    lookup_win,
    move_pool,
    overflow,
    parry_pool,
    side_out,
    soak_pool,
)

if TYPE_CHECKING:
    from escaramuza.rules.core.scenario import Scenario

#: agents/heuristics/donjon.py: below this chance to hurt, moving beats swinging.
WORTH_ATTACKING = 0.08


# -- the temperaments (agents/heuristics/donjon.py) ------------------------------------------------
@njit(cache=True, _nrt=False)
def attack_hurt_chance(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    penalty: np.ndarray,
    hurt: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    misses: np.ndarray,
    actor: int,
    target: int,
    w: int,
) -> float:
    """P(this attack takes at least one Herida or attribute point off ``target``)."""
    band = band_of(dist[cs[actor, CS.ZONE], cs[target, CS.ZONE]])
    pool = attack_pool(stat, weapon, penalty, cs, actor, w, band)
    if pool == UNREACHABLE:
        return 0.0
    pool += cs[actor, CS.BONUS]
    defence = dodge_pool(stat, cs, target)
    if (
        weapon[actor, w, W.KIND] == MELEE_KIND
        and cs[target, CS.HELD] > 0
        and stat[target, ST.PARRY_WEAPON] != NONE
    ):
        # The defender may parry instead: count on the better of its two defences.
        defence = max(defence, parry_pool(stat, cs, target))
    return lookup_hurt(
        hurt,
        g,
        misses,
        max(0, pool),
        defence,
        damage_pool(stat, weapon, cs, actor, w),
        soak_pool(stat, cs, target),
        stat[actor, ST.PC],
        stat[target, ST.PC],
    )


@njit(cache=True, _nrt=False, inline="always")
def hurt_chance(s: tuple, d: tuple, actor: int, target: int, w: int) -> float:
    """:func:`attack_hurt_chance` on the battle's arrays."""
    stat, weapon, dist, penalty, hurt = s[STAT], s[WEAPON], s[DIST], s[PENALTIES], s[HURT_ODDS]
    cs, g, misses = d[STATE], d[GLOBALS], d[MISSES]
    return attack_hurt_chance(stat, weapon, dist, penalty, hurt, cs, g, misses, actor, target, w)


@njit(cache=True, _nrt=False)
def _nearest(stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, c: int) -> int:
    """The active foe fewest hops away; ties go to the lowest index (-1: none)."""
    best = NONE
    best_d = 0
    best_i = 0
    here = cs[c, CS.ZONE]
    for o in range(cs.shape[0]):
        if stat[o, ST.SIDE] == stat[c, ST.SIDE] or cs[o, CS.STATUS] != ACTIVE:
            continue
        hops = dist[here, cs[o, CS.ZONE]]
        if best == NONE or hops < best_d or (hops == best_d and stat[o, ST.INDEX] < best_i):
            best = o
            best_d = hops
            best_i = stat[o, ST.INDEX]
    return best


@njit(cache=True, _nrt=False, inline="always")
def _find(la: np.ndarray, n: int, column: int, value: int) -> int:
    """The first row whose ``column`` holds ``value`` (-1: none)."""
    for k in range(n):
        if la[k, column] == value:
            return k
    return NONE


@njit(cache=True, _nrt=False, inline="always")
def _step(la: np.ndarray, n: int, verb: int, target: int) -> int:
    """The row of ``verb`` on ``target`` (-1: not legal)."""
    for k in range(n):
        if la[k, A.VERB] == verb and la[k, A.TARGET] == target:
            return k
    return NONE


@njit(cache=True, _nrt=False)
def _no_swing(la: np.ndarray, n: int, verb: int, nearest: int, best: int) -> int:
    """A turn's end when it makes no attack it wants: ``verb`` (a step) on the nearest
    foe, a finishing blow, the ``best`` attack there is (-1: none), else esperar."""
    if nearest != NONE:
        k = _step(la, n, verb, nearest)
        if k != NONE:
            return k
    k = _find(la, n, A.VERB, REMATAR)
    if k != NONE:
        return k
    if best != NONE:
        return best
    return _find(la, n, A.VERB, ESPERAR)


@njit(cache=True, _nrt=False, inline="always")
def _hurt(stat: np.ndarray, cs: np.ndarray, c: int) -> bool:
    """Below half its Heridas."""
    return cs[c, CS.HERIDAS] * 2 < stat[c, ST.MAX_HERIDAS]


@njit(cache=True, _nrt=False)
def _side_broken(stat: np.ndarray, cs: np.ndarray, c: int) -> bool:
    """Half its side (of two or more) is out."""
    mine, out = side_out(stat, cs, c)
    return mine > 1 and 2 * out >= mine


@njit(cache=True, _nrt=False)
def _strength(stat: np.ndarray, cs: np.ndarray, side: int) -> float:
    """The pause's measure of a side: 1 + its Heridas fraction for each active member."""
    total = 0.0
    for c in range(cs.shape[0]):
        if stat[c, ST.SIDE] == side and cs[c, CS.STATUS] == ACTIVE:
            total += 1.0 + cs[c, CS.HERIDAS] / max(1, stat[c, ST.MAX_HERIDAS])
    return total


@njit(cache=True, _nrt=False, inline="always")
def _choose_turn(s: tuple, d: tuple, la: np.ndarray, n: int, arng: np.ndarray) -> int:
    """The tactician's turn: the attack most likely to hurt (ties by a draw), else the
    step to its best range, a finishing blow, the best attack there is, or esperar."""
    stat, dist = s[STAT], s[DIST]
    cs, g = d[STATE], d[GLOBALS]
    actor = g[G.ACTOR]
    best = NONE
    best_c = 0.0
    best_r = 0.0
    for k in range(n):
        if la[k, A.VERB] == ATACAR:
            chance = hurt_chance(s, d, actor, la[k, A.TARGET], la[k, A.ITEM])
            r = agent_random(arng, g, G.SUSPEND)
            if best == NONE or chance > best_c or (chance == best_c and r > best_r):
                best = k
                best_c = chance
                best_r = r
    if g[G.SUSPEND] != 0:
        return 0
    if best != NONE and best_c >= WORTH_ATTACKING:
        return best
    want = stat[actor, ST.BEST_BAND]
    nearest = _nearest(stat, dist, cs, actor)
    verb = NONE
    if nearest != NONE:
        here = band_of(dist[cs[actor, CS.ZONE], cs[nearest, CS.ZONE]])
        verb = ACERCARSE if here > want else (ALEJARSE if here < want else NONE)
    return _no_swing(la, n, verb, nearest, best)


@njit(cache=True, _nrt=False)
def _brute_turn(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    penalty: np.ndarray,
    cs: np.ndarray,
    actor: int,
    la: np.ndarray,
    n: int,
) -> int:
    """The brute's turn: the nearest foe's attack with most dice (``_dice``: attack and
    damage, how hard it swings), else closer to it."""
    best = NONE
    b0 = 0
    b1 = 0
    for k in range(n):
        if la[k, A.VERB] != ATACAR:
            continue
        target, w = la[k, A.TARGET], la[k, A.ITEM]
        hops = dist[cs[actor, CS.ZONE], cs[target, CS.ZONE]]
        pool = attack_pool(stat, weapon, penalty, cs, actor, w, band_of(hops))
        k0 = -hops
        k1 = (0 if pool == UNREACHABLE else pool) + damage_pool(stat, weapon, cs, actor, w)
        if best == NONE or k0 > b0 or (k0 == b0 and k1 > b1):
            best = k
            b0 = k0
            b1 = k1
    if best != NONE:
        return best
    return _no_swing(la, n, ACERCARSE, _nearest(stat, dist, cs, actor), NONE)


@njit(cache=True, _nrt=False)
def _cautious_turn(
    stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, actor: int, la: np.ndarray, n: int
) -> int:
    """The cautious turn's own part: hurt, or nearer the nearest foe than its best range,
    it backs away; else -1, the tactician's (:func:`choose` plays it, so the inlined
    tactician is compiled once)."""
    nearest = _nearest(stat, dist, cs, actor)
    if nearest != NONE:
        here = band_of(dist[cs[actor, CS.ZONE], cs[nearest, CS.ZONE]])
        if _hurt(stat, cs, actor) or here < stat[actor, ST.BEST_BAND]:
            return _step(la, n, ALEJARSE, nearest)
    return NONE


@njit(cache=True, _nrt=False)
def _coward_turn(
    stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, actor: int, la: np.ndarray, n: int
) -> int:
    """The coward's own part: hurt or with its side broken, ``_flee`` — ``huir`` if it
    can, else a step away from the nearest foe; else -1, and :func:`choose` plays it
    cautious. (After a failed flight the cautious turn finds nothing either: its only
    step is the one that failed; cornered, the coward fights back as the tactician.)"""
    if not (_hurt(stat, cs, actor) or _side_broken(stat, cs, actor)):
        return NONE
    k = _find(la, n, A.VERB, HUIR)
    if k != NONE:
        return k
    nearest = _nearest(stat, dist, cs, actor)
    if nearest == NONE:
        return NONE
    return _step(la, n, ALEJARSE, nearest)


@njit(cache=True, _nrt=False, inline="always")
def _protector_turn(s: tuple, d: tuple, la: np.ndarray, n: int) -> int:
    """The protector's own part: the foe nearest its most hurt ally, struck (the likeliest
    to hurt) or closed on; else -1, the tactician's (:func:`choose` plays it)."""
    stat = s[STAT]
    cs, g = d[STATE], d[GLOBALS]
    actor = g[G.ACTOR]
    side = stat[actor, ST.SIDE]
    ward = NONE
    ward_f = 0.0
    ward_i = 0
    any_foe = False
    for a in range(cs.shape[0]):
        if cs[a, CS.STATUS] != ACTIVE:
            continue
        if stat[a, ST.SIDE] != side:
            any_foe = True
        elif a != actor and cs[a, CS.HERIDAS] < stat[a, ST.MAX_HERIDAS]:
            f = cs[a, CS.HERIDAS] / stat[a, ST.MAX_HERIDAS]
            if ward == NONE or f < ward_f or (f == ward_f and stat[a, ST.INDEX] < ward_i):
                ward = a
                ward_f = f
                ward_i = stat[a, ST.INDEX]
    if ward == NONE or not any_foe:
        return NONE
    threat = _nearest(stat, s[DIST], cs, ward)
    best = NONE
    best_c = 0.0
    for k in range(n):
        if la[k, A.VERB] == ATACAR and la[k, A.TARGET] == threat:
            c = hurt_chance(s, d, actor, threat, la[k, A.ITEM])
            if best == NONE or c > best_c:
                best = k
                best_c = c
    if best != NONE:
        return best
    return _step(la, n, ACERCARSE, threat)


@njit(cache=True, _nrt=False, inline="always")
def _react(s: tuple, d: tuple, mood: int) -> int:
    """The ``defensa`` (0 parar, 1 esquivar) and ``resistir`` (0 resistir, 1 dejar):
    the tactician's reads the odds (``_choose_defence``: parry when a counter is likely,
    P ≥ ½, and at least as likely as a dodge; ``_choose_resist``: resist when the
    movement test is likely won and the move goes against it)."""
    stat, win = s[STAT], s[WIN_ODDS]
    cs, g, misses = d[STATE], d[GLOBALS], d[MISSES]
    me = g[G.ACTOR]
    if g[G.KIND] == KIND_DEFENSA:
        if mood == dialect.BRUTE:
            return 0
        if mood == dialect.COWARD:
            return 1
        attacker = g[G.ATTACKER]
        pool = attack_pool(stat, s[WEAPON], s[PENALTIES], cs, attacker, g[G.WEAPON], g[G.BAND])
        if pool == UNREACHABLE:
            pool = 0
        pool += cs[attacker, CS.BONUS]
        if pool < 0:
            overflow(g)  # the engine's exact odds refuse a negative pool
            return 0
        p_parry = 1.0 - lookup_win(win, g, misses, pool, parry_pool(stat, cs, me))
        p_dodge = 1.0 - lookup_win(win, g, misses, pool, dodge_pool(stat, cs, me))
        return 0 if p_parry >= 0.5 and p_parry >= p_dodge else 1
    if mood == dialect.BRUTE:
        return 1 if g[G.MOVE_VERB] == ACERCARSE else 0
    if mood == dialect.COWARD:
        return 1
    mover = g[G.MOVER]
    mine = move_pool(stat, cs, mover) + cs[mover, CS.BONUS]
    p_win = 1.0 - lookup_win(win, g, misses, mine, move_pool(stat, cs, me))
    want = stat[me, ST.BEST_BAND]
    if g[G.FROM_CONTACT] == 1:
        against_me = True
    elif g[G.MOVE_VERB] == ACERCARSE:
        against_me = want > 0
    else:
        against_me = want == 0
    return 0 if against_me and p_win > 0.5 else 1


@njit(cache=True, _nrt=False)
def _choose_spend(cs: np.ndarray, g: np.ndarray, la: np.ndarray, n: int) -> int:
    """``repartir``: Heridas, unless an attribute blow is better (the victim is at 0
    Heridas, or the successes left cannot drop it but can zero its Celeridad)."""
    victim = g[G.VICTIM]
    heridas = cs[victim, CS.HERIDAS]
    for j in range(g[G.PICKED_N]):
        # Already paid the fact for this attribute: keep lowering it.
        k = _find(la, n, A.ITEM, g[G.PICKED + j])
        if k != NONE and heridas > 0:
            return k
    if heridas == 0:
        for o in range(1, 5):
            k = _find(la, n, A.ITEM, o)
            if k != NONE:
                return k
    rem = g[G.REMAINING]
    on_heridas = _find(la, n, A.ITEM, 0)
    on_celeridad = _find(la, n, A.ITEM, 1)
    if (
        on_heridas != NONE
        and rem < heridas
        and on_celeridad != NONE
        and rem - 1 >= cs[victim, CS.CELERIDAD]
    ):
        # The blow cannot drop the victim but can take all its Celeridad.
        return on_celeridad
    if on_heridas != NONE:
        return on_heridas
    return 0


@njit(cache=True, _nrt=False)
def _pause(stat: np.ndarray, cs: np.ndarray, actor: int, mood: int) -> int:
    """DJ-07 ``continuar`` while its side is ahead (as the temperament reads it):
    0 continuar, 1 retirarse."""
    side = stat[actor, ST.SIDE]
    mine = _strength(stat, cs, side)
    theirs = _strength(stat, cs, 1 - side)
    if mood == dialect.BRUTE:
        go_on = True
    elif mood == dialect.COWARD:
        go_on = not (_hurt(stat, cs, actor) or _side_broken(stat, cs, actor)) and mine > theirs
    elif mood == dialect.CAUTIOUS:
        go_on = mine > theirs
    else:
        go_on = mine >= theirs
    return 0 if go_on else 1


@njit(cache=True, _nrt=False, inline="always")
def choose(s: tuple, d: tuple, la: np.ndarray, n: int, mood: int, arng: np.ndarray) -> int:
    """``donjon.choose``: the row of the legal list temperament ``mood`` picks for the
    pending decision (never the random temperament, which the shared ``decide`` plays).
    A turn: the brute's, else the temperament's own part (the coward's flight, then the
    cautious step away for the coward and the cautious; the protector's ward) and, where
    that gives nothing, the tactician's."""
    stat, dist = s[STAT], s[DIST]
    cs, g = d[STATE], d[GLOBALS]
    kind = g[G.KIND]
    actor = g[G.ACTOR]
    if kind == KIND_TURN:
        if mood == dialect.BRUTE:
            return _brute_turn(stat, s[WEAPON], dist, s[PENALTIES], cs, actor, la, n)
        k = NONE
        if mood == dialect.PROTECTOR:
            k = _protector_turn(s, d, la, n)
        elif mood == dialect.CAUTIOUS or mood == dialect.COWARD:
            if mood == dialect.COWARD:
                k = _coward_turn(stat, dist, cs, actor, la, n)
            if k == NONE:
                k = _cautious_turn(stat, dist, cs, actor, la, n)
        if k != NONE:
            return k
        return _choose_turn(s, d, la, n, arng)
    if kind == KIND_DEFENSA or kind == KIND_RESISTIR:
        return _react(s, d, mood)
    if kind == KIND_REPARTIR:
        return _choose_spend(cs, g, la, n)
    return _pause(stat, cs, actor, mood)


# -- the Kernel -------------------------------------------------------------------------------
class DonjonKernel(CompiledKernel):
    """The Donjon kernel: the generic one (``rules.core.compiled``) over the compiled
    rules and these temperaments, and what is Donjon's — the odds entries its battles
    stop on, and the scenarios it cannot play from their start."""

    #: A battle from empty tables meets its odds entries one after another, each found
    #: on its own pass (one battle of the ambush: 45 passes), a longer one more than the
    #: shared limit; no table holds more than MAX_TABLE entries, so this only stops a
    #: bug looping for ever.
    MAX_PASSES = 1 << 12
    #: The tactician draws a tie-break in nearly every battle: a first pass that
    #: stopped each battle at its first draw cost a duel a fifth of its time.
    AGENT_KEYS_FIRST = True

    def __init__(self) -> None:
        super().__init__("donjon", dk, sys.modules[__name__])

    def exported(self, scenario: Scenario) -> dk.DonjonExported:
        """The shared export cache's entry, holding the odds tables as they are now.

        Overridden: a table that grows is a new array, and the cached static bundle
        must take it up."""
        found = dk.as_exported(super().exported(scenario))
        tables = dk.odds_tables(found.die_size, found.all_tied)
        static = list(found.static)
        if static[HURT_ODDS] is tables.hurt and static[WIN_ODDS] is tables.win:
            return found
        static[HURT_ODDS], static[WIN_ODDS] = tables.hurt, tables.win
        fresh = dataclasses.replace(found, static=tuple(static))
        with self._lock:
            self._cache[id(scenario)] = fresh
        return fresh

    def refusal(self, scenario: Scenario, agents: Sequence[str]) -> str | None:
        """Overridden: a scenario whose combatants start with conditions or ráfaga data
        is not played from its start (the kernel's start assumes a fresh sheet), though
        a state of it can be resumed."""
        why = super().refusal(scenario, agents)
        if why is None:
            fresh = self.exported(scenario).fresh_start
            if fresh is not None:
                return f"{self.title} does not implement {fresh}"
        return why

    def resolve(self, exported: Exported, out_g: np.ndarray, todo: np.ndarray) -> None:
        """The battles ``todo`` marks stopped on odds entries (each recorded in its
        ``g[G.MISS]``): fill them. A battle that outgrows the kernel's pools is refused."""
        suspend = out_g[todo, G.SUSPEND]
        if (suspend == SUSPEND_OVERFLOW).any():
            raise KernelRefusal(f"{exported.scenario.name}: a battle outgrows the kernel's pools")
        if (suspend != SUSPEND_ODDS).any():
            super().resolve(exported, out_g, todo)
        self._fill(exported, out_g[todo, G.MISS : G.MISS + MISS_SLOTS * KEY].reshape(-1, KEY))

    def resolve_rollouts(
        self, exported: Exported, d: tuple[np.ndarray, ...], suspended: np.ndarray
    ) -> None:
        """The rollouts stopped on odds entries, each logged once in ``d``'s ``misses``:
        fill them and clear the log. A pass that logged none stopped on a pool beyond the
        kernel's arrays: a refusal."""
        log = d[MISSES]
        if not log[:, ODDS.TABLE].any():
            raise KernelRefusal(f"{self.title}: a pool beyond the kernel's arrays")
        keys = log.copy()
        log[:] = 0
        self._fill(exported, keys)

    @staticmethod
    def _fill(exported: Exported, keys: np.ndarray) -> None:
        """Compute the odds entries of ``keys`` (``ODDS`` rows; table 0: an empty row)."""
        found = dk.as_exported(exported)
        tables = dk.odds_tables(found.die_size, found.all_tied)
        for key in keys[keys[:, ODDS.TABLE] != 0].tolist():
            tables.fill(key)


KERNEL = DonjonKernel()

__all__ = ["KERNEL", "DonjonKernel", "choose"]
