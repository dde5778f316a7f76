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

:mod:`escaramuza.agents.heuristics.donjon` line for line: the same functions, the same
order of steps, the same helpers (the vocabulary, docs/fast-path.md). As in the rules,
:func:`choose` and the temperaments inlined once each into it take the bundles; every
helper takes the arrays it reads and is compiled once.

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

from escaramuza.agents.heuristics.vocabulary_kernel import first_of, first_on
from escaramuza.rules.core import dialect
from escaramuza.rules.core.compiled import CompiledKernel, Exported
from escaramuza.rules.core.dialect import ACTIVE, DIST, GLOBALS, STAT, STATE, WEAPON
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.kernel import KernelRefusal
from escaramuza.rules.core.legal import LA, first_row
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
#: The rows of a reaction's and of the pause's two choices, in the legal list's order.
PARAR, ESQUIVAR = 0, 1
RESISTIR, DEJAR = 0, 1
CONTINUAR, RETIRARSE = 0, 1


# -- the vocabulary's Donjon words (agents/heuristics/donjon.py) -------------------------------
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


@njit(cache=True, _nrt=False)
def hurt(stat: np.ndarray, cs: np.ndarray, c: int) -> bool:
    """``hurt``: below half its Heridas."""
    return cs[c, CS.HERIDAS] * 2 < stat[c, ST.MAX_HERIDAS]


@njit(cache=True, _nrt=False)
def side_broken(stat: np.ndarray, cs: np.ndarray, c: int) -> bool:
    """``side_broken``: half its side (of two or more) is out."""
    members, out = side_out(stat, cs, c)
    return members > 1 and 2 * out >= members


@njit(cache=True, _nrt=False)
def strength(stat: np.ndarray, cs: np.ndarray, side: int) -> float:
    """``strength``: 1 + its Heridas fraction for each active member of ``side``."""
    total = 0.0
    for c in range(cs.shape[0]):
        if stat[c, ST.SIDE] == side and cs[c, CS.STATUS] == ACTIVE:
            total += 1.0 + cs[c, CS.HERIDAS] / max(1, stat[c, ST.MAX_HERIDAS])
    return total


@njit(cache=True, _nrt=False)
def nearest_foe(stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, c: int) -> int:
    """``nearest_foe``: the active foe fewest hops away; ties go to the lowest index (-1:
    none)."""
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


@njit(cache=True, _nrt=False)
def end_turn(la: np.ndarray, n: int) -> int:
    """``end_turn``: esperar."""
    return first_of(la, n, ESPERAR)


@njit(cache=True, _nrt=False)
def best_attack(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    penalty: np.ndarray,
    hurt_odds: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    misses: np.ndarray,
    c: int,
    la: np.ndarray,
    n: int,
    arng: np.ndarray,
    target: int,
) -> tuple[int, float]:
    """``best_attack``: the attack most likely to hurt and that chance, ties broken by a
    draw (one from the agents' generator an attack, in order); -1 and 0 with none. On
    ``target`` alone (not -1): only the attacks on it, the first on ties, no draw."""
    best = NONE
    best_c = 0.0
    best_r = 0.0
    for k in range(n):
        if la[k, LA.VERB] == ATACAR and (target == NONE or la[k, LA.TARGET] == target):
            chance = attack_hurt_chance(
                stat,
                weapon,
                dist,
                penalty,
                hurt_odds,
                cs,
                g,
                misses,
                c,
                la[k, LA.TARGET],
                la[k, LA.ITEM],
            )
            r = agent_random(arng, g, G.SUSPEND) if target == NONE else 0.0
            if best == NONE or chance > best_c or (chance == best_c and r > best_r):
                best = k
                best_c = chance
                best_r = r
    return best, best_c


@njit(cache=True, _nrt=False)
def range_step(stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, c: int, nearest: int) -> int:
    """``range_step``: the step to ``c``'s best range from ``nearest`` (acercarse,
    alejarse, or -1)."""
    if nearest == NONE:
        return NONE
    here = band_of(dist[cs[c, CS.ZONE], cs[nearest, CS.ZONE]])
    want = stat[c, ST.BEST_BAND]
    return ACERCARSE if here > want else (ALEJARSE if here < want else NONE)


@njit(cache=True, _nrt=False)
def no_swing(la: np.ndarray, n: int, verb: int, nearest: int, best: int) -> int:
    """``no_swing``: ``verb`` (a step) on the nearest foe, a finishing blow, the ``best``
    attack there is (-1: none), else esperar."""
    i = first_on(la, n, verb, nearest) if nearest != NONE else NONE
    if i == NONE:
        i = first_of(la, n, REMATAR)
    if i == NONE:
        i = best
    return i if i != NONE else end_turn(la, n)


@njit(cache=True, _nrt=False)
def brute_attack(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    penalty: np.ndarray,
    cs: np.ndarray,
    c: int,
    la: np.ndarray,
    n: int,
) -> int:
    """``brute_attack``: on the nearest foe, with the most dice (``dice``: attack and
    damage, how hard it swings)."""
    best = NONE
    b0 = 0
    b1 = 0
    for k in range(n):
        if la[k, LA.VERB] != ATACAR:
            continue
        target, w = la[k, LA.TARGET], la[k, LA.ITEM]
        hops = dist[cs[c, CS.ZONE], cs[target, CS.ZONE]]
        pool = attack_pool(stat, weapon, penalty, cs, c, w, band_of(hops))
        k0 = -hops
        k1 = (0 if pool == UNREACHABLE else pool) + damage_pool(stat, weapon, cs, c, w)
        if best == NONE or k0 > b0 or (k0 == b0 and k1 > b1):
            best = k
            b0 = k0
            b1 = k1
    return best


@njit(cache=True, _nrt=False)
def flee(stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, c: int, la: np.ndarray, n: int) -> int:
    """``flee``: ``huir`` if it can, else a step away from the nearest foe (-1: none)."""
    i = first_of(la, n, HUIR)
    if i == NONE:
        nearest = nearest_foe(stat, dist, cs, c)
        i = first_on(la, n, ALEJARSE, nearest) if nearest != NONE else NONE
    return i


@njit(cache=True, _nrt=False)
def ward_of(stat: np.ndarray, cs: np.ndarray, c: int) -> int:
    """``ward_of``: the ally with the least Heridas fraction, if any is hurt (-1: none)."""
    ward = NONE
    ward_f = 0.0
    ward_i = 0
    for a in range(cs.shape[0]):
        if cs[a, CS.STATUS] != ACTIVE or stat[a, ST.SIDE] != stat[c, ST.SIDE] or a == c:
            continue
        if cs[a, CS.HERIDAS] < stat[a, ST.MAX_HERIDAS]:
            f = cs[a, CS.HERIDAS] / stat[a, ST.MAX_HERIDAS]
            if ward == NONE or f < ward_f or (f == ward_f and stat[a, ST.INDEX] < ward_i):
                ward = a
                ward_f = f
                ward_i = stat[a, ST.INDEX]
    return ward


# -- the turn's temperaments ---------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def tactician(s: tuple, d: tuple, c: int, la: np.ndarray, n: int, arng: np.ndarray) -> int:
    """The attack most likely to hurt (ties by a draw), else the step to its best range,
    a finishing blow, the best attack there is, or esperar."""
    stat, weapon, dist, penalty, hurt_odds = s[STAT], s[WEAPON], s[DIST], s[PENALTIES], s[HURT_ODDS]
    cs, g, misses = d[STATE], d[GLOBALS], d[MISSES]
    best, chance = best_attack(
        stat, weapon, dist, penalty, hurt_odds, cs, g, misses, c, la, n, arng, NONE
    )
    if g[G.SUSPEND] != 0:
        return 0
    if best != NONE and chance >= WORTH_ATTACKING:
        return best
    nearest = nearest_foe(stat, dist, cs, c)
    return no_swing(la, n, range_step(stat, dist, cs, c, nearest), nearest, best)


@njit(cache=True, _nrt=False, inline="always")
def brute(s: tuple, d: tuple, c: int, la: np.ndarray, n: int) -> int:
    """The nearest foe's attack with most dice, else closer to it."""
    stat, dist, cs = s[STAT], s[DIST], d[STATE]
    i = brute_attack(stat, s[WEAPON], dist, s[PENALTIES], cs, c, la, n)
    return i if i != NONE else no_swing(la, n, ACERCARSE, nearest_foe(stat, dist, cs, c), NONE)


@njit(cache=True, _nrt=False, inline="always")
def cautious(s: tuple, d: tuple, c: int, la: np.ndarray, n: int) -> int:
    """Hurt, or nearer the nearest foe than its best range, it backs away; else -1, the
    tactician's (:func:`choose` plays it, so the inlined tactician is compiled once)."""
    stat, dist, cs = s[STAT], s[DIST], d[STATE]
    nearest = nearest_foe(stat, dist, cs, c)
    if nearest != NONE and (
        hurt(stat, cs, c)
        or band_of(dist[cs[c, CS.ZONE], cs[nearest, CS.ZONE]]) < stat[c, ST.BEST_BAND]
    ):
        return first_on(la, n, ALEJARSE, nearest)
    return NONE


@njit(cache=True, _nrt=False, inline="always")
def coward(s: tuple, d: tuple, c: int, la: np.ndarray, n: int) -> int:
    """Hurt or with its side broken, it flees; else -1, and :func:`choose` plays it
    cautious."""
    stat, dist, cs = s[STAT], s[DIST], d[STATE]
    if not (hurt(stat, cs, c) or side_broken(stat, cs, c)):
        return NONE
    return flee(stat, dist, cs, c, la, n)


@njit(cache=True, _nrt=False, inline="always")
def protector(s: tuple, d: tuple, c: int, la: np.ndarray, n: int, arng: np.ndarray) -> int:
    """The foe nearest its most hurt ally, struck (the likeliest to hurt) or closed on;
    else -1, the tactician's."""
    stat, weapon, dist, penalty, hurt_odds = s[STAT], s[WEAPON], s[DIST], s[PENALTIES], s[HURT_ODDS]
    cs, g, misses = d[STATE], d[GLOBALS], d[MISSES]
    ward = ward_of(stat, cs, c)
    threat = nearest_foe(stat, dist, cs, ward) if ward != NONE else NONE
    if threat == NONE:
        return NONE
    i, _ = best_attack(
        stat, weapon, dist, penalty, hurt_odds, cs, g, misses, c, la, n, arng, threat
    )
    return i if i != NONE else first_on(la, n, ACERCARSE, threat)


# -- reactions, the spend and the pause ----------------------------------------------------------
@njit(cache=True, _nrt=False)
def defence(
    stat: np.ndarray,
    weapon: np.ndarray,
    penalty: np.ndarray,
    win: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    misses: np.ndarray,
    c: int,
) -> int:
    """``defence``: parry when a counter is likely (P ≥ ½) and at least as likely as a
    dodge."""
    attacker = g[G.ATTACKER]
    pool = attack_pool(stat, weapon, penalty, cs, attacker, g[G.WEAPON], g[G.BAND])
    if pool == UNREACHABLE:
        pool = 0
    pool += cs[attacker, CS.BONUS]
    if pool < 0:
        overflow(g)  # the engine's exact odds refuse a negative pool
        return PARAR
    p_parry = 1.0 - lookup_win(win, g, misses, pool, parry_pool(stat, cs, c))
    p_dodge = 1.0 - lookup_win(win, g, misses, pool, dodge_pool(stat, cs, c))
    return PARAR if p_parry >= 0.5 and p_parry >= p_dodge else ESQUIVAR


@njit(cache=True, _nrt=False)
def resist(
    stat: np.ndarray, win: np.ndarray, cs: np.ndarray, g: np.ndarray, misses: np.ndarray, c: int
) -> int:
    """``resist``: when the movement test is likely won and the move goes against it."""
    mover = g[G.MOVER]
    mine = move_pool(stat, cs, mover) + cs[mover, CS.BONUS]
    p_win = 1.0 - lookup_win(win, g, misses, mine, move_pool(stat, cs, c))
    want = stat[c, ST.BEST_BAND]
    if g[G.FROM_CONTACT] == 1:
        against_me = True
    elif g[G.MOVE_VERB] == ACERCARSE:
        against_me = want > 0
    else:
        against_me = want == 0
    return RESISTIR if against_me and p_win > 0.5 else DEJAR


@njit(cache=True, _nrt=False, inline="always")
def react(s: tuple, d: tuple, c: int, mood: int) -> int:
    """The ``defensa`` and ``resistir`` reactions for each temperament."""
    stat, win = s[STAT], s[WIN_ODDS]
    cs, g, misses = d[STATE], d[GLOBALS], d[MISSES]
    if g[G.KIND] == KIND_DEFENSA:
        if mood == dialect.BRUTE:
            return PARAR
        if mood == dialect.COWARD:
            return ESQUIVAR  # keeps its numbers for running
        return defence(stat, s[WEAPON], s[PENALTIES], win, cs, g, misses, c)
    if mood == dialect.BRUTE:
        return DEJAR if g[G.MOVE_VERB] == ACERCARSE else RESISTIR
    if mood == dialect.COWARD:
        return DEJAR
    return resist(stat, win, cs, g, misses, c)


@njit(cache=True, _nrt=False)
def spend(cs: np.ndarray, g: np.ndarray, la: np.ndarray, n: int) -> int:
    """``spend`` (``repartir``): Heridas, unless an attribute blow is better (the victim
    is at 0 Heridas, or the successes left cannot drop it but can zero its Celeridad)."""
    victim = g[G.VICTIM]
    heridas = cs[victim, CS.HERIDAS]
    for j in range(g[G.PICKED_N]):
        # Already paid the fact for this attribute: keep lowering it.
        k = first_row(la, n, LA.OPTION, g[G.PICKED + j])
        if k != NONE and heridas > 0:
            return k
    if heridas == 0:
        for o in range(1, 5):
            k = first_row(la, n, LA.OPTION, o)
            if k != NONE:
                return k
    rem = g[G.REMAINING]
    on_heridas = first_row(la, n, LA.OPTION, 0)
    on_celeridad = first_row(la, n, LA.OPTION, 1)
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
def pause(stat: np.ndarray, cs: np.ndarray, c: int, mood: int) -> int:
    """DJ-07 ``pause``: continue while its side is ahead (as the temperament reads it),
    or withdraw."""
    mine = strength(stat, cs, stat[c, ST.SIDE])
    theirs = strength(stat, cs, 1 - stat[c, ST.SIDE])
    if mood == dialect.BRUTE:
        go_on = True
    elif mood == dialect.COWARD:
        go_on = not (hurt(stat, cs, c) or side_broken(stat, cs, c)) and mine > theirs
    elif mood == dialect.CAUTIOUS:
        go_on = mine > theirs
    else:
        go_on = mine >= theirs
    return CONTINUAR if go_on else RETIRARSE


@njit(cache=True, _nrt=False, inline="always")
def choose(s: tuple, d: tuple, la: np.ndarray, n: int, mood: int, arng: np.ndarray) -> int:
    """``donjon.choose``: the row of the legal list temperament ``mood`` picks for the
    pending decision (never the random temperament, which the shared ``decide`` plays).
    A turn: the brute's, else the temperament's own part (the coward's flight, then the
    cautious step away for the coward and the cautious; the protector's ward) and, where
    that gives nothing, the tactician's."""
    stat, cs, g = s[STAT], d[STATE], d[GLOBALS]
    c = g[G.ACTOR]
    kind = g[G.KIND]
    if kind == KIND_TURN:
        if mood == dialect.BRUTE:
            return brute(s, d, c, la, n)
        i = NONE
        if mood == dialect.PROTECTOR:
            i = protector(s, d, c, la, n, arng)
        elif mood == dialect.CAUTIOUS or mood == dialect.COWARD:
            if mood == dialect.COWARD:
                i = coward(s, d, c, la, n)
            if i == NONE:
                i = cautious(s, d, c, la, n)
        return i if i != NONE else tactician(s, d, c, la, n, arng)
    if kind == KIND_DEFENSA or kind == KIND_RESISTIR:
        return react(s, d, c, mood)
    if kind == KIND_REPARTIR:
        return spend(cs, g, la, n)
    return pause(stat, cs, c, mood)


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
