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

Small helpers are inlined (``inline="always"``) as the rules' are (see
``rules.donjon.kernel``: a call copies both bundles).

A decision that needs an odds entry not computed yet suspends its battle: the kernel
fills the entries it recorded and the shared loops play the battle again from the start
(:meth:`DonjonKernel.resolve`, :meth:`DonjonKernel.resolve_rollouts`).

``KERNEL`` (:class:`DonjonKernel`) is what the fast-path driver finds for ``donjon``.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from escaramuza.rules.core import mt
from escaramuza.rules.core.compiled import MAX_PASSES, CompiledKernel, Exported, agent_code
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.kernel import KernelRefusal, RolloutBatch
from escaramuza.rules.core.loops import (
    A_KEY,
    A_KEYLEN,
    A_SEEDED,
    SUSPEND_AGENT_KEY,
    SUSPEND_CAP,
    TEMPERAMENTS,
    Loops,
    compile_loops,
    new_agent_rng,
)
from escaramuza.rules.donjon import kernel as dk
from escaramuza.rules.donjon.kernel import (
    ACERCARSE,
    ACTION_WIDTH,
    ACTIVE,
    ALEJARSE,
    ATACAR,
    CS,
    ESPERAR,
    HUIR,
    KEY,
    KIND_DEFENSA,
    KIND_REPARTIR,
    KIND_RESISTIR,
    KIND_TURN,
    MELEE_KIND,
    MISS_SLOTS,
    NONE,
    ODDS,
    REMATAR,
    ST,
    SUSPEND_ODDS,
    SUSPEND_OVERFLOW,
    UNREACHABLE,
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
    soak_pool,
)

if TYPE_CHECKING:
    from escaramuza.rules.core.model import Action
    from escaramuza.rules.core.scenario import Scenario
    from escaramuza.rules.core.state import BattleState

TACTICIAN, BRUTE, CAUTIOUS, COWARD, PROTECTOR = (
    TEMPERAMENTS.index(name) for name in ("tactician", "brute", "cautious", "coward", "protector")
)
#: agents/heuristics/donjon.py: below this chance to hurt, moving beats swinging.
WORTH_ATTACKING = 0.08


# -- the temperaments (agents/heuristics/donjon.py) ------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def tie_break(arng: np.ndarray, g: np.ndarray) -> float:
    """``rng.random()`` of the agents' generator, seeded at its first draw as the shared
    loops' draws are; without its key the battle suspends for it (and 0.0 is returned)."""
    if arng[A_SEEDED] == 0:
        length = arng[A_KEYLEN]
        if length == 0:
            g[G.SUSPEND] = SUSPEND_AGENT_KEY
            return 0.0
        mt.seed_key(arng, arng[A_KEY : A_KEY + length])
        arng[A_SEEDED] = 1
    return mt.random_float(arng)


@njit(cache=True, _nrt=False, inline="always")
def attack_hurt_chance(s: tuple, d: tuple, actor: int, target: int, w: int) -> float:
    """P(this attack takes at least one Herida or attribute point off ``target``)."""
    stat, weapon, dist = s[0], s[1], s[2]
    cs = d[0]
    band = band_of(dist[cs[actor, CS.ZONE], cs[target, CS.ZONE]])
    pool = attack_pool(s, d, actor, w, band)
    if pool == UNREACHABLE:
        return 0.0
    pool += cs[actor, CS.BONUS]
    defence = dodge_pool(s, d, target)
    if (
        weapon[actor, w, W.KIND] == MELEE_KIND
        and cs[target, CS.HELD] > 0
        and stat[target, ST.PARRY_WEAPON] != NONE
    ):
        # The defender may parry instead: count on the better of its two defences.
        defence = max(defence, parry_pool(s, d, target))
    return lookup_hurt(
        s,
        d,
        max(0, pool),
        defence,
        damage_pool(s, d, actor, w),
        soak_pool(s, d, target),
        stat[actor, ST.PC],
        stat[target, ST.PC],
    )


@njit(cache=True, _nrt=False, inline="always")
def _nearest(s: tuple, d: tuple, c: int) -> int:
    """The active foe fewest hops away; ties go to the lowest index (-1: none)."""
    stat, dist = s[0], s[2]
    cs = d[0]
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
def _step(la: np.ndarray, n: int, verb: int, target: int) -> int:
    """The row of ``verb`` on ``target`` (-1: not legal)."""
    for k in range(n):
        if la[k, A.VERB] == verb and la[k, A.TARGET] == target:
            return k
    return NONE


@njit(cache=True, _nrt=False, inline="always")
def _first(la: np.ndarray, n: int, verb: int) -> int:
    """The first row of ``verb`` (-1: none)."""
    for k in range(n):
        if la[k, A.VERB] == verb:
            return k
    return NONE


@njit(cache=True, _nrt=False, inline="always")
def _hurt(s: tuple, d: tuple, c: int) -> bool:
    """Below half its Heridas."""
    return d[0][c, CS.HERIDAS] * 2 < s[0][c, ST.MAX_HERIDAS]


@njit(cache=True, _nrt=False, inline="always")
def _side_broken(s: tuple, d: tuple, c: int) -> bool:
    """Half its side (of two or more) is out."""
    stat = s[0]
    cs = d[0]
    mine = 0
    out = 0
    for a in range(cs.shape[0]):
        if stat[a, ST.SIDE] == stat[c, ST.SIDE]:
            mine += 1
            if cs[a, CS.STATUS] != ACTIVE:
                out += 1
    return mine > 1 and 2 * out >= mine


@njit(cache=True, _nrt=False)
def _strength(s: tuple, d: tuple, side: int) -> float:
    """The pause's measure of a side: 1 + its Heridas fraction for each active member."""
    stat = s[0]
    cs = d[0]
    total = 0.0
    for c in range(cs.shape[0]):
        if stat[c, ST.SIDE] == side and cs[c, CS.STATUS] == ACTIVE:
            total += 1.0 + cs[c, CS.HERIDAS] / max(1, stat[c, ST.MAX_HERIDAS])
    return total


@njit(cache=True, _nrt=False)
def _choose_turn(s: tuple, d: tuple, la: np.ndarray, n: int, arng: np.ndarray) -> int:
    """The tactician's turn: the attack most likely to hurt (ties by a draw), else the
    step to its best range, a finishing blow, the best attack there is, or esperar."""
    stat, dist = s[0], s[2]
    cs, g = d[0], d[1]
    actor = g[G.ACTOR]
    best = NONE
    best_c = 0.0
    best_r = 0.0
    for k in range(n):
        if la[k, A.VERB] == ATACAR:
            chance = attack_hurt_chance(s, d, actor, la[k, A.TARGET], la[k, A.ITEM])
            r = tie_break(arng, g)
            if best == NONE or chance > best_c or (chance == best_c and r > best_r):
                best = k
                best_c = chance
                best_r = r
    if g[G.SUSPEND] != 0:
        return 0
    if best != NONE and best_c >= WORTH_ATTACKING:
        return best
    want = stat[actor, ST.BEST_BAND]
    nearest = _nearest(s, d, actor)
    if nearest != NONE:
        here = band_of(dist[cs[actor, CS.ZONE], cs[nearest, CS.ZONE]])
        verb = ACERCARSE if here > want else (ALEJARSE if here < want else NONE)
        k = _step(la, n, verb, nearest)
        if k != NONE:
            return k
    k = _first(la, n, REMATAR)
    if k != NONE:
        return k
    if best != NONE:
        return best
    return _first(la, n, ESPERAR)


@njit(cache=True, _nrt=False)
def _dice(s: tuple, d: tuple, actor: int, target: int, w: int) -> int:
    """Attack + damage dice of an attack action (how hard the brute swings)."""
    dist = s[2]
    cs = d[0]
    pool = attack_pool(s, d, actor, w, band_of(dist[cs[actor, CS.ZONE], cs[target, CS.ZONE]]))
    if pool == UNREACHABLE:
        pool = 0
    return pool + damage_pool(s, d, actor, w)


@njit(cache=True, _nrt=False)
def _brute_turn(s: tuple, d: tuple, la: np.ndarray, n: int) -> int:
    """The brute's turn: the nearest foe's attack with most dice, else closer to it."""
    dist = s[2]
    cs, g = d[0], d[1]
    actor = g[G.ACTOR]
    nearest = _nearest(s, d, actor)
    best = NONE
    b0 = 0
    b1 = 0
    for k in range(n):
        if la[k, A.VERB] != ATACAR:
            continue
        target = la[k, A.TARGET]
        k0 = -dist[cs[actor, CS.ZONE], cs[target, CS.ZONE]]
        k1 = _dice(s, d, actor, target, la[k, A.ITEM])
        if best == NONE or k0 > b0 or (k0 == b0 and k1 > b1):
            best = k
            b0 = k0
            b1 = k1
    if best != NONE:
        return best
    if nearest != NONE:
        k = _step(la, n, ACERCARSE, nearest)
        if k != NONE:
            return k
    k = _first(la, n, REMATAR)
    if k != NONE:
        return k
    return _first(la, n, ESPERAR)


@njit(cache=True, _nrt=False)
def _cautious_turn(s: tuple, d: tuple, la: np.ndarray, n: int, arng: np.ndarray) -> int:
    """The cautious turn: hurt, or nearer the nearest foe than its best range, it backs
    away; else the tactician's."""
    stat, dist = s[0], s[2]
    cs, g = d[0], d[1]
    actor = g[G.ACTOR]
    nearest = _nearest(s, d, actor)
    if nearest != NONE:
        here = band_of(dist[cs[actor, CS.ZONE], cs[nearest, CS.ZONE]])
        if _hurt(s, d, actor) or here < stat[actor, ST.BEST_BAND]:
            k = _step(la, n, ALEJARSE, nearest)
            if k != NONE:
                return k
    return _choose_turn(s, d, la, n, arng)


@njit(cache=True, _nrt=False)
def _coward_turn(s: tuple, d: tuple, la: np.ndarray, n: int, arng: np.ndarray) -> int:
    """The coward's turn: cautious until hurt or its side is broken, then ``_flee``."""
    g = d[1]
    actor = g[G.ACTOR]
    if not (_hurt(s, d, actor) or _side_broken(s, d, actor)):
        return _cautious_turn(s, d, la, n, arng)
    # _flee: huir if it can, else a step away from the nearest foe.
    k = _first(la, n, HUIR)
    if k != NONE:
        return k
    nearest = _nearest(s, d, actor)
    if nearest != NONE:
        k = _step(la, n, ALEJARSE, nearest)
        if k != NONE:
            return k
    return _choose_turn(s, d, la, n, arng)


@njit(cache=True, _nrt=False)
def _protector_turn(s: tuple, d: tuple, la: np.ndarray, n: int, arng: np.ndarray) -> int:
    """The protector's turn: the foe nearest its most hurt ally, struck (the likeliest
    to hurt) or closed on; else the tactician's."""
    stat = s[0]
    cs, g = d[0], d[1]
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
    if ward != NONE and any_foe:
        threat = _nearest(s, d, ward)
        best = NONE
        best_c = 0.0
        for k in range(n):
            if la[k, A.VERB] == ATACAR and la[k, A.TARGET] == threat:
                c = attack_hurt_chance(s, d, actor, threat, la[k, A.ITEM])
                if best == NONE or c > best_c:
                    best = k
                    best_c = c
        if best != NONE:
            return best
        k = _step(la, n, ACERCARSE, threat)
        if k != NONE:
            return k
    return _choose_turn(s, d, la, n, arng)


@njit(cache=True, _nrt=False)
def _choose_defence(s: tuple, d: tuple) -> int:
    """Parry when a counter is likely (P ≥ ½) and at least as likely as a dodge:
    0 parar, 1 esquivar."""
    cs, g = d[0], d[1]
    me = g[G.ACTOR]
    attacker = g[G.ATTACKER]
    pool = attack_pool(s, d, attacker, g[G.WEAPON], g[G.BAND])
    if pool == UNREACHABLE:
        pool = 0
    pool += cs[attacker, CS.BONUS]
    if pool < 0:
        overflow(g)  # the engine's exact odds refuse a negative pool
        return 0
    p_parry = 1.0 - lookup_win(s, d, pool, parry_pool(s, d, me))
    p_dodge = 1.0 - lookup_win(s, d, pool, dodge_pool(s, d, me))
    return 0 if p_parry >= 0.5 and p_parry >= p_dodge else 1


@njit(cache=True, _nrt=False)
def _choose_resist(s: tuple, d: tuple) -> int:
    """Resist when the movement test is likely won and the move goes against it:
    0 resistir, 1 dejar."""
    stat = s[0]
    cs, g = d[0], d[1]
    me = g[G.ACTOR]
    mover = g[G.MOVER]
    p_win = 1.0 - lookup_win(
        s, d, move_pool(s, d, mover) + cs[mover, CS.BONUS], move_pool(s, d, me)
    )
    want = stat[me, ST.BEST_BAND]
    if g[G.FROM_CONTACT] == 1:
        against_me = True
    elif g[G.MOVE_VERB] == ACERCARSE:
        against_me = want > 0
    else:
        against_me = want == 0
    return 0 if against_me and p_win > 0.5 else 1


@njit(cache=True, _nrt=False)
def _react(s: tuple, d: tuple, mood: int) -> int:
    """The ``defensa`` (0 parar, 1 esquivar) and ``resistir`` (0 resistir, 1 dejar)."""
    g = d[1]
    if g[G.KIND] == KIND_DEFENSA:
        if mood == BRUTE:
            return 0
        if mood == COWARD:
            return 1
        return _choose_defence(s, d)
    if mood == BRUTE:
        return 1 if g[G.MOVE_VERB] == ACERCARSE else 0
    if mood == COWARD:
        return 1
    return _choose_resist(s, d)


@njit(cache=True, _nrt=False, inline="always")
def _option(la: np.ndarray, n: int, option: int) -> int:
    """The row spending on ``option`` (0 Heridas, 1..4 an attribute; -1: not legal)."""
    for k in range(n):
        if la[k, A.ITEM] == option:
            return k
    return NONE


@njit(cache=True, _nrt=False)
def _choose_spend(d: tuple, la: np.ndarray, n: int) -> int:
    """``repartir``: Heridas, unless an attribute blow is better (the victim is at 0
    Heridas, or the successes left cannot drop it but can zero its Celeridad)."""
    cs, g = d[0], d[1]
    victim = g[G.VICTIM]
    heridas = cs[victim, CS.HERIDAS]
    for j in range(g[G.PICKED_N]):
        # Already paid the fact for this attribute: keep lowering it.
        k = _option(la, n, g[G.PICKED + j])
        if k != NONE and heridas > 0:
            return k
    if heridas == 0:
        for o in range(1, 5):
            k = _option(la, n, o)
            if k != NONE:
                return k
    rem = g[G.REMAINING]
    on_heridas = _option(la, n, 0)
    on_celeridad = _option(la, n, 1)
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
def _pause(s: tuple, d: tuple, mood: int) -> int:
    """DJ-07 ``continuar`` while its side is ahead (as the temperament reads it):
    0 continuar, 1 retirarse."""
    stat = s[0]
    g = d[1]
    actor = g[G.ACTOR]
    side = stat[actor, ST.SIDE]
    mine = _strength(s, d, side)
    theirs = _strength(s, d, 1 - side)
    if mood == BRUTE:
        go_on = True
    elif mood == COWARD:
        go_on = not (_hurt(s, d, actor) or _side_broken(s, d, actor)) and mine > theirs
    elif mood == CAUTIOUS:
        go_on = mine > theirs
    else:
        go_on = mine >= theirs
    return 0 if go_on else 1


@njit(cache=True, _nrt=False)
def choose(s: tuple, d: tuple, la: np.ndarray, n: int, mood: int, arng: np.ndarray) -> int:
    """``donjon.choose``: the row of the legal list temperament ``mood`` picks for the
    pending decision (never the random temperament, which the shared ``decide`` plays)."""
    kind = d[1][G.KIND]
    if kind == KIND_TURN:
        if mood == BRUTE:
            return _brute_turn(s, d, la, n)
        if mood == CAUTIOUS:
            return _cautious_turn(s, d, la, n, arng)
        if mood == COWARD:
            return _coward_turn(s, d, la, n, arng)
        if mood == PROTECTOR:
            return _protector_turn(s, d, la, n, arng)
        return _choose_turn(s, d, la, n, arng)
    if kind == KIND_DEFENSA or kind == KIND_RESISTIR:
        return _react(s, d, mood)
    if kind == KIND_REPARTIR:
        return _choose_spend(d, la, n)
    return _pause(s, d, mood)


@njit(cache=True, _nrt=False)
def strength(s: tuple, d: tuple, side: int) -> float:
    """``agents.search.side_strength`` (health = Heridas), summed in the same order."""
    stat = s[0]
    cs = d[0]
    total = 0.0
    n = 0
    for c in range(cs.shape[0]):
        if stat[c, ST.SIDE] != side:
            continue
        n += 1
        if cs[c, CS.STATUS] != ACTIVE:
            continue
        top = stat[c, ST.MAX_HERIDAS]
        frac = cs[c, CS.HERIDAS] / top if top > 0 else 1.0
        total += 0.5 + 0.5 * min(max(frac, 0.0), 1.0)
    return total / n if n else 0.0


# -- the Kernel -------------------------------------------------------------------------------
#: Passes of a batch of rollouts that may fill odds entries before it starts over (below
#: the shared MAX_PASSES, after which the batch would be refused).
RESTART_PASSES = MAX_PASSES // 2
#: Passes of a chunk of battles: each fills the odds entries its battles stopped on, and
#: no table holds more than MAX_TABLE of them; this only stops a bug looping for ever.
MAX_ODDS_PASSES = 1 << 12


class _Restart(Exception):
    """A batch of rollouts must start over: an odds table grew (the arrays its passes
    were given are stale) or it ran :data:`RESTART_PASSES` passes."""


class DonjonKernel(CompiledKernel):
    """The Donjon kernel (``rules.core.kernel.Kernel``) on the shared Python side and
    loops; its own part is the export (``rules.donjon.kernel``) and the odds entries its
    battles stop on."""

    ruleset_id = "donjon"
    title = "the Donjon kernel"
    ST, CS, G = ST, CS, G
    ACTION_WIDTH = dk.ACTION_WIDTH
    REASONS = dk.REASONS
    STATUSES = tuple(status.value for status in dk.STATUSES)
    RESOURCES = tuple((name, name) for name in sorted(dk.SPEND_OPTIONS))
    DAMAGE_LOG = dk.DAMAGE_LOG

    def __init__(self) -> None:
        super().__init__()
        self._passes = threading.local()

    def compile(self) -> Loops:
        return compile_loops(
            __name__,
            reset=dk.reset,
            start=dk.start,
            legal=dk.legal,
            apply=dk.apply,
            choose=choose,
            strength=strength,
            ST=ST,
            CS=CS,
            G=G,
        )

    def export_scenario(self, scenario: Scenario) -> Exported:
        return dk.export_scenario(scenario)

    def export_state(self, exported: Exported, state: BattleState) -> tuple[np.ndarray, ...]:
        assert isinstance(exported, dk.DonjonExported)
        return dk.export_state(exported, state)

    def action_row(self, exported: Exported, state: BattleState, action: Action) -> list[int]:
        assert isinstance(exported, dk.DonjonExported)
        return dk.action_row(exported, state, action)

    def conditions(self, row: Sequence[int]) -> tuple[tuple[str, int], ...]:
        return dk.conditions(row)

    # -- the odds entries battles stop on ------------------------------------------------
    def exported(self, scenario: Scenario) -> dk.DonjonExported:
        """The shared export cache's entry, holding the odds tables as they are now.

        Overridden: a table that grows is a new array, and the cached static bundle
        must take it up."""
        found = super().exported(scenario)
        assert isinstance(found, dk.DonjonExported)
        tables = dk.odds_tables(found.die_size, found.all_tied)
        static = found.static
        if static[7] is tables.hurt and static[8] is tables.win:
            return found
        fresh = dataclasses.replace(found, static=(*static[:7], tables.hurt, tables.win))
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

    def _play(
        self, exported: Exported, agents: Sequence[str], seeds: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Overridden: the shared replay (``CompiledKernel._play``) with two differences.
        The agents' keys are given from the first pass: the tactician draws a tie-break
        in nearly every battle, and a first pass that stopped each battle at its first
        draw cost a duel a fifth of its time. And passes go on while battles stop on odds
        entries (each pass takes up the tables as they have grown): a battle of the
        ambush from empty tables meets 60–80 entries one after another, each found on its
        own pass, more than the shared MAX_PASSES."""
        why = self.refusal(exported.scenario, agents)
        if why is not None:
            raise KernelRefusal(why)
        codes = np.array([agent_code(spec) for spec in agents], dtype=np.int64)
        n = len(seeds)
        dice_keys, dice_len = mt.seed_keys(seeds)
        agent_keys, agent_len = mt.agent_keys([int(seed) for seed in seeds])
        out_cs = CS.new(n, exported.start[0].shape[0])
        out_g = G.new(n)
        d = self.scratch(exported)
        la = np.zeros((exported.actions, ACTION_WIDTH), dtype=np.int64)
        lanes = mt.new_state(mt.LANES)
        arng = new_agent_rng(agent_keys.shape[1])
        todo = np.ones(n, dtype=np.bool_)
        for _ in range(MAX_ODDS_PASSES):
            exported = self.exported(exported.scenario)
            self.loops.play_battles(
                exported.static,
                d,
                exported.start,
                la,
                codes,
                todo,
                dice_keys,
                dice_len,
                agent_keys,
                agent_len,
                lanes,
                arng,
                out_cs,
                out_g,
            )
            suspend = out_g[:, G.SUSPEND]
            todo = suspend != 0
            if not todo.any():
                return out_cs, out_g
            if (suspend == SUSPEND_CAP).any():
                raise KernelRefusal(f"{exported.scenario.name}: a battle did not end")
            self.resolve(exported, out_g, todo)
        raise KernelRefusal(f"{exported.scenario.name}: battles kept suspending")

    def resolve(self, exported: Exported, out_g: np.ndarray, todo: np.ndarray) -> None:
        """The battles ``todo`` marks stopped on odds entries (each recorded in its
        ``g[G.MISS]``): fill them. A battle that outgrows the kernel's pools is refused."""
        suspend = out_g[todo, G.SUSPEND]
        if (suspend == SUSPEND_OVERFLOW).any():
            raise KernelRefusal(f"{exported.scenario.name}: a battle outgrows the kernel's pools")
        if (suspend != SUSPEND_ODDS).any():
            super().resolve(exported, out_g, todo)
        self._fill(exported, out_g[todo, G.MISS : G.MISS + MISS_SLOTS * KEY].reshape(-1, KEY))

    def rollouts(
        self,
        state: BattleState,
        actions: Sequence[Action],
        seeds: Sequence[int],
        horizon: int | None,
        own_temperament: str | None,
        max_decisions: int,
    ) -> RolloutBatch:
        """Overridden: the shared rollouts, started over whenever
        :meth:`resolve_rollouts` asks (:class:`_Restart`) while the odds tables gain
        entries (else the rollouts keep stopping on entries that are there: a refusal)."""
        while True:
            self._passes.count = 0
            before = dk.entries_filled()
            try:
                return super().rollouts(
                    state, actions, seeds, horizon, own_temperament, max_decisions
                )
            except _Restart:
                if dk.entries_filled() == before:
                    raise KernelRefusal(
                        f"{self.title}: rollouts kept stopping on odds entries already filled"
                    ) from None

    def resolve_rollouts(
        self, exported: Exported, d: tuple[np.ndarray, ...], suspended: np.ndarray
    ) -> None:
        """The rollouts stopped on odds entries, each logged once in ``d``'s ``misses``:
        fill them (and clear the log); :class:`_Restart` when a table grew or the
        batch ran :data:`RESTART_PASSES` passes. A pass that logged none stopped on a
        pool beyond the kernel's arrays: a refusal."""
        log = d[4]
        if not log[:, ODDS.TABLE].any():
            raise KernelRefusal(f"{self.title}: a pool beyond the kernel's arrays")
        keys = log.copy()
        log[:] = 0
        self._fill(exported, keys)
        self._passes.count = getattr(self._passes, "count", 0) + 1
        now = self.exported(exported.scenario).static
        stale = exported.static[7] is not now[7] or exported.static[8] is not now[8]
        if stale or self._passes.count >= RESTART_PASSES:
            raise _Restart

    @staticmethod
    def _fill(exported: Exported, keys: np.ndarray) -> None:
        """Compute the odds entries of ``keys`` (``ODDS`` rows; table 0: an empty row)."""
        assert isinstance(exported, dk.DonjonExported)
        tables = dk.odds_tables(exported.die_size, exported.all_tied)
        for key in keys[keys[:, ODDS.TABLE] != 0].tolist():
            tables.fill(key)


KERNEL = DonjonKernel()

__all__ = ["KERNEL", "DonjonKernel", "choose", "strength"]
