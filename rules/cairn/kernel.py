"""Cairn's rules compiled with numba: the fast path's arrays and rule functions.

architecture.md, "The fast path": the engine (:mod:`escaramuza.rules.cairn.ruleset`,
:mod:`~escaramuza.rules.cairn.combat`) is the specification; each function here is the
engine function of the same name over plain arrays, drawing the same dice in the same
order from the same generator (:mod:`escaramuza.rules.core.mt`), and cites the same
rule id. Nothing here narrates: the only bookkeeping kept beside the rules is what
``escaramuza.playtest.records.record_from_events`` reads from the events (damage dealt and
taken, knock-out round, death, wipe).

The compiled temperaments and the battle loop joining them with these rules live in
``agents/heuristics/cairn_kernel.py`` (rules never import agents).

Layout (small int codes instead of strings):

* ``cstat[c, C_*]`` — the combatant's stat block; ``wpn[c, w, W_*]`` its weapons in
  ``weapons_of`` order (the fists, CA-07, when it has none).
* ``dist[z, z']``, ``zcover[z]``, ``zexit[z]`` — the battlefield in ``zone_ids`` order.
* ``opts[O_*]`` — the scenario options, round limit and victory.
* ``cs[c, S_*]`` — resources, status, zone, conditions (a bit per ``CONDITIONS`` entry)
  and the playtest counters; ``g[G_*]`` — round, side turn, queue, declarations,
  outcome, morale flags; ``queue[i]`` — who declares; ``decl[i, D_*]`` — the side's
  declarations, resolved together (CA-02).

Every value is checked on its way in (``rules.core.kernel.check_range``; the bounds below
and docs/fast-path.md, "The kernel boundary"): the compiled code indexes by these numbers
without bounds checks, and the exact odds of the temperaments are int64 sums over a
pool's dice (``agents/heuristics/cairn_kernel.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from escaramuza.rules.cairn.combat import CONDITIONS, weapons_of
from escaramuza.rules.cairn.stats import CAIRN_DICE, RANGED, UNARMED
from escaramuza.rules.core import mt
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.kernel import BOUND, KernelRefusal, check_range
from escaramuza.rules.core.model import Side, Status
from escaramuza.rules.core.state import BattleState

# -- codes --------------------------------------------------------------------------
HEROES, ENEMIES = 0, 1
ACTIVE, DOWN, DEFEATED, DEAD, FLED = 0, 1, 2, 3, 4
STATUSES: tuple[Status, ...] = (
    Status.ACTIVE,
    Status.DOWN,
    Status.DEFEATED,
    Status.DEAD,
    Status.FLED,
)
ATTACK, MOVE, FLEE, WAIT = 0, 1, 2, 3
#: Condition bits, in ``combat.CONDITIONS`` order.
PERDIO_TURNO, PRIVADO, DESJARRETADO, DANO_CRITICO, FUERA_DE_ACCION = 1, 2, 4, 8, 16
NEVER = -1
REASONS: tuple[str, ...] = ("defeated", "mutual", "timeout")
R_DEFEATED, R_MUTUAL, R_TIMEOUT = 0, 1, 2
TEMPERAMENT_CODES: dict[str, int] = {
    "tactician": 0,
    "brute": 1,
    "cautious": 2,
    "coward": 3,
    "protector": 4,
    "random": 5,
}

# cstat columns
C_SIDE, C_PC, C_DESTAC, C_IMPAIRED, C_HELPLESS, C_WAIVE, C_ARMOUR = 0, 1, 2, 3, 4, 5, 6
C_MAXPI, C_MAXFUE, C_MAXDES, C_MAXVOL, C_TEMPER, C_NW = 7, 8, 9, 10, 11, 12
N_CSTAT = 13
# wpn columns
W_NDICE, W_D1, W_D2, W_RANGED, W_REACH, W_BLAST, W_UNARMED = 0, 1, 2, 3, 4, 5, 6
N_WPN = 7
# opts
O_FIRST, O_SCARS, O_DOOMED_OUT, O_MORALE, O_COVER_AT, O_BOTH, O_LIMIT, O_SURVIVE = range(8)
N_OPTS = 8
BOTH_CODES: dict[str, int] = {"cancel": 0, "impaired": 1, "enhanced": 2}
# cs columns
S_PI, S_FUE, S_DES, S_VOL, S_STATUS, S_ZONE, S_COND = 0, 1, 2, 3, 4, 5, 6
S_KO, S_DIED, S_DEALT, S_TOFOES, S_TAKEN = 7, 8, 9, 10, 11
N_CS = 12
# g
G_ROUND, G_SIDE, G_QHEAD, G_QLEN, G_NDECL, G_DONE, G_WINNER, G_REASON = range(8)
G_MFIRST, G_MHALF, G_MLONE, G_WIPE, G_NEEDKEY = 8, 9, 10, 11, 12
N_G = 13
# decl columns
D_VERB, D_TARGET, D_ZONE, D_ITEM, D_ACTOR = 0, 1, 2, 3, 4
N_DECL = 5

#: The verbs' names, by code.
VERBS: tuple[str, ...] = ("atacar", "mover", "huir", "esperar")

# -- the boundary (rules.core.kernel.check_range) -------------------------------------
#: PI, FUE, DES and VOL and their maxima. The exact odds (cairn_kernel.attack_gain) sum,
#: over up to a dozen targets, expected PI + FUE lost over a common denominator of up to
#: 2**40: PI + FUE ≤ 2**18 keeps those sums within 2**62.
MAX_RESOURCE = 1 << 17
#: The product of the die sizes of the most dice one side can aim at one target in a
#: side turn (each of its combatants' largest pool: its weapon's dice, or the d12 of an
#: enhanced attack): the exact odds count outcomes over it, 20 × it × (PI + FUE) ≤ 2**62.
MAX_POOL_PRODUCT = 1 << 36


# -- export (plain Python, once per scenario / per state) ------------------------------
class Static:
    """The arrays a scenario fixes (stat blocks, weapons, map, options)."""

    __slots__ = (
        "cstat",
        "wpn",
        "dist",
        "zcover",
        "zexit",
        "opts",
        "ids",
        "zone_ids",
        "weapon_names",
        "zone_index",
        "id_index",
    )

    def __init__(self, scenario: Any) -> None:
        bf = scenario.battlefield
        combatants = scenario.combatants
        n = len(combatants)
        self.zone_ids: tuple[str, ...] = bf.zone_ids
        self.zone_index: dict[str, int] = dict(bf.index)
        self.ids: tuple[str, ...] = tuple(c.id for c in combatants)
        self.id_index: dict[str, int] = {cid: i for i, cid in enumerate(self.ids)}
        nz = len(bf.zone_ids)
        self.dist = np.array(
            [[bf.distance(a, b) for b in bf.zone_ids] for a in bf.zone_ids], dtype=np.int64
        ).reshape(nz, nz)
        self.zcover = np.array([bf.zones[z].cover for z in bf.zone_ids], dtype=np.int64)
        self.zexit = np.array([1 if bf.zones[z].exit else 0 for z in bf.zone_ids], dtype=np.int64)
        weapons = [weapons_of(c) for c in combatants]
        check_static(scenario, weapons)
        nw = max((len(w) for w in weapons), default=1)
        self.cstat = np.zeros((n, N_CSTAT), dtype=np.int64)
        self.wpn = np.zeros((n, nw, N_WPN), dtype=np.int64)
        self.weapon_names: tuple[tuple[str, ...], ...] = tuple(
            tuple(w.name for w in ws) for ws in weapons
        )
        for i, c in enumerate(combatants):
            s = c.stats
            row = self.cstat[i]
            row[C_SIDE] = HEROES if c.side is Side.HEROES else ENEMIES
            row[C_PC] = int(c.pc)
            row[C_DESTAC] = int(s.destacamento)
            row[C_IMPAIRED] = int(s.impaired)
            row[C_HELPLESS] = int(s.helpless)
            row[C_WAIVE] = int(s.waive_first_save)
            row[C_ARMOUR] = s.armour
            row[C_MAXPI] = c.maxima["pi"]
            row[C_MAXFUE] = c.maxima["fue"]
            row[C_MAXDES] = c.maxima["des"]
            row[C_MAXVOL] = c.maxima["vol"]
            row[C_TEMPER] = TEMPERAMENT_CODES.get(c.temperament, 0)
            row[C_NW] = len(weapons[i])
            for j, w in enumerate(weapons[i]):
                dice = w.dice
                self.wpn[i, j, W_NDICE] = len(dice)
                self.wpn[i, j, W_D1] = dice[0]
                self.wpn[i, j, W_D2] = dice[1] if len(dice) > 1 else 0
                self.wpn[i, j, W_RANGED] = int(w.kind == RANGED)
                self.wpn[i, j, W_REACH] = w.reach
                self.wpn[i, j, W_BLAST] = int(w.blast)
                self.wpn[i, j, W_UNARMED] = int(w is UNARMED)
        o = scenario.options
        self.opts = np.zeros(N_OPTS, dtype=np.int64)
        self.opts[O_FIRST] = int(o.first_round_save)
        self.opts[O_SCARS] = int(o.scars)
        self.opts[O_DOOMED_OUT] = int(o.doomed == "out_of_action")
        self.opts[O_MORALE] = int(o.morale)
        self.opts[O_COVER_AT] = o.cover_impairs_at
        self.opts[O_BOTH] = BOTH_CODES[o.both_modifiers]
        self.opts[O_LIMIT] = scenario.round_limit
        self.opts[O_SURVIVE] = int(scenario.victory == "survive")


RESOURCES: tuple[str, ...] = ("pi", "fue", "des", "vol")


def check_static(scenario: Any, weapons: list[tuple[Any, ...]]) -> None:
    """The scenario's numbers against the module's bounds (KernelRefusal naming the
    field): maxima, armour, weapon dice and reach, the round limit, and the largest
    pool one side can aim at one target."""
    check_range(scenario.round_limit, 1, BOUND, "round_limit")
    check_range(scenario.options.cover_impairs_at, -BOUND, BOUND, "cover_impairs_at")
    for z in scenario.battlefield.zone_ids:
        check_range(scenario.battlefield.zones[z].cover, -BOUND, BOUND, f"zone {z}: cover")
    largest = {HEROES: 1, ENEMIES: 1}
    for c, ws in zip(scenario.combatants, weapons, strict=True):
        for name in RESOURCES:
            check_range(c.maxima[name], 0, MAX_RESOURCE, f"{c.id}: maximum {name}")
        check_range(c.stats.armour, 0, BOUND, f"{c.id}: armour")
        most = 12  # an enhanced attack (CA-08, CA-16) rolls a d12
        for w in ws:
            check_range(len(w.dice), 1, 2, f"{c.id}: {w.name} dice")
            for d in w.dice:
                if d not in CAIRN_DICE:
                    raise KernelRefusal(f"{c.id}: {w.name} rolls a d{d}, not a Cairn die")
            check_range(w.reach, 0, BOUND, f"{c.id}: {w.name} reach")
            most = max(most, int(np.prod(w.dice)))
        side = HEROES if c.side is Side.HEROES else ENEMIES
        largest[side] *= most
    for side, product in largest.items():
        if product > MAX_POOL_PRODUCT:
            raise KernelRefusal(
                f"the {('heroes', 'enemies')[side]}' pools on one target "
                f"count up to {product} outcomes (the exact odds hold "
                f"{MAX_POOL_PRODUCT})"
            )


def condition_mask(c: Any) -> int:
    """``c``'s conditions as bits; a condition the kernel does not know, or one with a
    value (Cairn's carry none), is a refusal."""
    mask = 0
    for name, cond in c.conditions.items():
        if name not in CONDITIONS:
            raise KernelRefusal(f"{c.id}: condition {name!r}")
        check_range(cond.value, 0, 0, f"{c.id}: {name} value")
        mask |= 1 << CONDITIONS.index(name)
    return mask


def _export_combatant(static: Static, cs: np.ndarray, i: int, c: Any) -> None:
    """Row ``i`` of ``cs``: resources (within 0 and their maxima), status, zone and
    conditions."""
    if c.id != static.ids[i]:
        raise KernelRefusal(f"combatant {c.id!r} is not the scenario's #{i}")
    r = c.resources
    if set(r) != set(RESOURCES):
        raise KernelRefusal(f"{c.id}: resources {sorted(r)}")
    top = static.cstat[i]
    for name, column, most in (
        ("pi", S_PI, C_MAXPI),
        ("fue", S_FUE, C_MAXFUE),
        ("des", S_DES, C_MAXDES),
        ("vol", S_VOL, C_MAXVOL),
    ):
        check_range(r[name], 0, int(top[most]), f"{c.id}: {name}")
        cs[i, column] = r[name]
    cs[i, S_STATUS] = STATUSES.index(c.status)
    cs[i, S_ZONE] = static.zone_index[c.zone]
    cs[i, S_COND] = condition_mask(c)


def export_state(static: Static, state: BattleState) -> tuple[np.ndarray, ...]:
    """``(cs, g, queue, decl)`` of an engine state (about the cost of one clone).

    Refuses (KernelRefusal) any value outside what the arrays hold and the compiled rules
    index: besides each combatant's row, the round within the round limit, the side
    declaring, its queue (headed by the pending actor) and its declarations — distinct
    combatants of that side, at most one row each."""
    n = len(static.ids)
    if len(state.combatants) != n:
        raise KernelRefusal("the state's combatants are not the scenario's")
    cs = np.zeros((n, N_CS), dtype=np.int64)
    for i, c in enumerate(state.combatants):
        _export_combatant(static, cs, i, c)
        cs[i, S_KO] = NEVER
    g = np.zeros(N_G, dtype=np.int64)
    check_range(state.round, 1, int(static.opts[O_LIMIT]), "round")
    g[G_ROUND] = state.round
    data = state.data
    side = data.get("side", "heroes")
    if side not in ("heroes", "enemies"):
        raise KernelRefusal(f"side {side!r}")
    g[G_SIDE] = HEROES if side == "heroes" else ENEMIES
    queue = np.zeros(n, dtype=np.int64)
    q = data.get("queue", ())
    declared = data.get("declared", ())
    actors = [*q, *(a.actor for a in declared)]
    if len(set(actors)) != len(actors):
        raise KernelRefusal(f"queue {list(q)} and declarations name a combatant twice")
    for cid in actors:
        if static.cstat[static.id_index[cid], C_SIDE] != g[G_SIDE]:
            raise KernelRefusal(f"{cid} declares in the {side}' side turn")
    pending = state.pending
    if pending is None or not q or q[0] != pending.actor:
        raise KernelRefusal(f"queue {list(q)} is not headed by the pending actor")
    for j, cid in enumerate(q):
        queue[j] = static.id_index[cid]
    g[G_QHEAD] = 0
    g[G_QLEN] = len(q)
    decl = np.zeros((n, N_DECL), dtype=np.int64)
    for j, a in enumerate(declared):
        decl[j] = encode_action(static, a)
        check_declared(static, decl[j], a)
    g[G_NDECL] = len(declared)
    g[G_MFIRST] = int(bool(data.get("morale_first")))
    g[G_MHALF] = int(bool(data.get("morale_half")))
    g[G_MLONE] = int(bool(data.get("morale_lone")))
    g[G_WINNER] = -1
    if state.outcome is not None:
        g[G_DONE] = 1
    return cs, g, queue, decl


def encode_action(static: Static, action: Any) -> np.ndarray:
    """An engine :class:`Action` as the kernel's ``(verb, target, zone, item, actor)`` row."""
    actor = static.id_index[action.actor]
    verb = VERBS.index(action.verb)
    target = static.id_index[action.target] if action.target is not None else -1
    zone = static.zone_index[action.zone] if action.zone is not None else -1
    item = static.weapon_names[actor].index(action.item) if action.item is not None else -1
    return np.array([verb, target, zone, item, actor], dtype=np.int64)


def check_declared(static: Static, row: np.ndarray, action: Any) -> None:
    """A declaration as the compiled resolution reads it: an attack names a target and one
    of the actor's weapons, a move a zone (the engine's declarations always do)."""
    verb, actor = int(row[D_VERB]), int(row[D_ACTOR])
    if verb == ATTACK:
        check_range(int(row[D_TARGET]), 0, len(static.ids) - 1, f"{action}: target")
        check_range(int(row[D_ITEM]), 0, int(static.cstat[actor, C_NW]) - 1, f"{action}: weapon")
    elif verb == MOVE:
        check_range(int(row[D_ZONE]), 0, len(static.zone_ids) - 1, f"{action}: zone")


def initial_state(static: Static, scenario: Any) -> np.ndarray:
    """``cs`` of the scenario's combatants before the battle starts."""
    n = len(static.ids)
    cs = np.zeros((n, N_CS), dtype=np.int64)
    for i, c in enumerate(scenario.combatants):
        _export_combatant(static, cs, i, c)
        # record_from_events: a combatant knocked out from the start counts round 0.
        cs[i, S_KO] = 0 if DOWN <= cs[i, S_STATUS] <= DEAD else NEVER
        cs[i, S_DIED] = int(c.status is Status.DEAD)
    return cs


# -- CA-01 saves, status changes ----------------------------------------------------------
@njit(cache=True, _nrt=False)
def _knocked_out(status: np.int64) -> bool:
    return status == DOWN or status == DEFEATED or status == DEAD


@njit(cache=True, _nrt=False)
def set_status(
    cstat: np.ndarray, cs: np.ndarray, g: np.ndarray, c: np.int64, status: np.int64
) -> None:
    """``combat.set_status`` plus what ``record_from_events`` reads of its
    ``StatusChanged``: the knock-out round, death, and the wipe test after each change."""
    cs[c, S_STATUS] = status
    if _knocked_out(status) and cs[c, S_KO] == NEVER:
        cs[c, S_KO] = g[G_ROUND]
    if status == DEAD:
        cs[c, S_DIED] = 1
    if g[G_WIPE] == 0:
        heroes = False
        out = True
        for i in range(cs.shape[0]):
            if cstat[i, C_SIDE] == HEROES:
                heroes = True
                if not _knocked_out(cs[i, S_STATUS]):
                    out = False
        if heroes and out:
            g[G_WIPE] = 1


@njit(cache=True, _nrt=False)
def save(dice: np.ndarray, cs: np.ndarray, c: np.int64, column: np.int64) -> bool:
    """CA-01 *(ext)*: d20 ≤ the attribute succeeds; 1 always succeeds, 20 always fails."""
    face = mt.roll(dice, 20)
    return face == 1 or (face != 20 and face <= cs[c, column])


# -- attack dice (CA-05 … CA-10, CA-16) -----------------------------------------------
@njit(cache=True, _nrt=False)
def attack_dice(
    cstat: np.ndarray,
    wpn: np.ndarray,
    zcover: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    a: np.int64,
    t: np.int64,
    w: np.int64,
) -> tuple[int, int, int]:
    """``combat.attack_dice``: (count, die, die) one attacker rolls at one target."""
    if wpn[a, w, W_UNARMED] == 1:
        return 1, 4, 0  # CA-07: unarmed is always d4
    impaired = cstat[a, C_IMPAIRED] == 1
    # CA-07 reading: a ranged attack into a zone with cover.
    if wpn[a, w, W_RANGED] == 1 and zcover[cs[t, S_ZONE]] >= opts[O_COVER_AT]:
        impaired = True
    # CA-16: an individual against a destacamento (blast excluded).
    if cstat[t, C_DESTAC] == 1 and cstat[a, C_DESTAC] == 0 and wpn[a, w, W_BLAST] == 0:
        impaired = True
    # CA-08 helpless target; CA-16 a destacamento against an individual.
    enhanced = cstat[t, C_HELPLESS] == 1 or (cstat[a, C_DESTAC] == 1 and cstat[t, C_DESTAC] == 0)
    mod = 0
    if impaired and enhanced:
        mod = opts[O_BOTH]
    elif impaired:
        mod = 1
    elif enhanced:
        mod = 2
    if mod == 1:
        return 1, 4, 0
    if mod == 2:
        return 1, 12, 0
    return wpn[a, w, W_NDICE], wpn[a, w, W_D1], wpn[a, w, W_D2]


@njit(cache=True, _nrt=False)
def is_blast(cstat: np.ndarray, wpn: np.ndarray, a: np.int64, t: np.int64, w: np.int64) -> bool:
    """CA-09 Explosión, or CA-16: a destacamento's attack on an individual."""
    return wpn[a, w, W_BLAST] == 1 or (cstat[a, C_DESTAC] == 1 and cstat[t, C_DESTAC] == 0)


@njit(cache=True, _nrt=False)
def in_blast(
    cstat: np.ndarray,
    wpn: np.ndarray,
    cs: np.ndarray,
    a: np.int64,
    t: np.int64,
    w: np.int64,
    c: np.int64,
) -> bool:
    """``combat.blast_targets`` membership: active opponents in the target's zone."""
    return (
        cs[c, S_STATUS] == ACTIVE
        and cstat[c, C_SIDE] != cstat[a, C_SIDE]
        and cs[c, S_ZONE] == cs[t, S_ZONE]
        and (wpn[a, w, W_BLAST] == 1 or cstat[c, C_DESTAC] == 0)
    )


# -- damage (CA-11 … CA-14) ---------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _damaged(
    cstat: np.ndarray, cs: np.ndarray, t: np.int64, src: np.int64, amount: np.int64
) -> None:
    # record_from_events: a Damaged event's amount, taken by the target and dealt by
    # its source (to a foe when the sides differ).
    cs[t, S_TAKEN] += amount
    if src >= 0:
        cs[src, S_DEALT] += amount
        if cstat[src, C_SIDE] != cstat[t, C_SIDE]:
            cs[src, S_TOFOES] += amount


@njit(cache=True, _nrt=False)
def read_scar(
    cstat: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    opts: np.ndarray,
    t: np.int64,
    pi_lost: np.int64,
) -> None:
    """CA-13: the Cicatrices entry for the PI lost (≥ 12 reads 12) and its fight effects."""
    entry = min(pi_lost, 12)
    if entry == 3:
        cs[t, S_COND] |= PRIVADO
    elif entry == 7:
        cs[t, S_COND] |= DESJARRETADO
    elif entry == 11:
        cs[t, S_COND] |= PRIVADO | FUERA_DE_ACCION
        set_status(cstat, cs, g, t, DOWN)
    elif entry == 12 and opts[O_DOOMED_OUT] == 1:
        cs[t, S_COND] |= FUERA_DE_ACCION
        set_status(cstat, cs, g, t, DOWN)


@njit(cache=True, _nrt=False)
def critical_damage(cstat: np.ndarray, cs: np.ndarray, g: np.ndarray, t: np.int64) -> None:
    """CA-12 (CA-16 for a destacamento): what a failed FUE save means."""
    if cstat[t, C_DESTAC] == 1:
        set_status(cstat, cs, g, t, FLED)
    elif cstat[t, C_PC] == 1:
        cs[t, S_COND] |= DANO_CRITICO
        set_status(cstat, cs, g, t, DOWN)
    else:
        set_status(cstat, cs, g, t, DEAD)


@njit(cache=True, _nrt=False)
def apply_damage(
    cstat: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    opts: np.ndarray,
    dice: np.ndarray,
    t: np.int64,
    damage: np.int64,
    src: np.int64,
) -> None:
    """CA-11: damage (net of armour) to PI, the rest to FUE with the FUE save."""
    if damage <= 0:
        return
    pi = cs[t, S_PI]
    to_pi = min(damage, pi)
    over = damage - to_pi
    if to_pi > 0:
        cs[t, S_PI] = pi - to_pi
        _damaged(cstat, cs, t, src, to_pi)
    if over == 0:
        # CA-13: "Si un ataque causa que un PC se quede con exactamente 0 PI".
        if to_pi > 0 and cs[t, S_PI] == 0 and cstat[t, C_PC] == 1 and opts[O_SCARS] == 1:
            read_scar(cstat, cs, g, opts, t, to_pi)
        return
    fue = cs[t, S_FUE]
    new = max(0, fue - over)
    cs[t, S_FUE] = new
    _damaged(cstat, cs, t, src, fue - new)
    if new == 0:
        set_status(cstat, cs, g, t, DEAD)  # CA-14: FUE 0 is death
        return
    if not save(dice, cs, t, S_FUE):
        critical_damage(cstat, cs, g, t)


# -- legal actions (CA-04) ----------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def legal_actions(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zexit: np.ndarray,
    cs: np.ndarray,
    me: np.int64,
    acts: np.ndarray,
) -> int:
    """``Cairn.actions_for`` in its order: attacks (targets in scenario order, weapons in
    order), moves (zones in map order), the retreat, waiting. Rows (verb, target, zone,
    item); returns the count."""
    n = 0
    here = cs[me, S_ZONE]
    mobile = (cs[me, S_COND] & DESJARRETADO) == 0
    side = cstat[me, C_SIDE]
    for t in range(cs.shape[0]):
        if cs[t, S_STATUS] != ACTIVE or cstat[t, C_SIDE] == side:
            continue
        hops = dist[here, cs[t, S_ZONE]]
        for w in range(cstat[me, C_NW]):
            if wpn[me, w, W_RANGED] == 1:
                ok = hops <= wpn[me, w, W_REACH]
            else:
                ok = hops == 0 or (hops == 1 and mobile)
            if ok:
                acts[n, 0] = ATTACK
                acts[n, 1] = t
                acts[n, 2] = -1
                acts[n, 3] = w
                n += 1
    nz = dist.shape[0]
    if mobile:
        for z in range(nz):
            h = dist[here, z]
            if 1 <= h <= 2:
                acts[n, 0] = MOVE
                acts[n, 1] = -1
                acts[n, 2] = z
                acts[n, 3] = -1
                n += 1
    nearest = -1
    for z in range(nz):
        if zexit[z] == 1 and (nearest < 0 or dist[here, z] < nearest):
            nearest = dist[here, z]
    if nearest >= 0 and nearest <= (1 if mobile else 0):
        acts[n, 0] = FLEE
        acts[n, 1] = -1
        acts[n, 2] = -1
        acts[n, 3] = -1
        n += 1
    acts[n, 0] = WAIT
    acts[n, 1] = -1
    acts[n, 2] = -1
    acts[n, 3] = -1
    return n + 1


# -- turn structure (CA-02, CA-03) ----------------------------------------------------------
@njit(cache=True, _nrt=False)
def finish(g: np.ndarray, winner: np.int64, reason: np.int64) -> None:
    g[G_DONE] = 1
    g[G_WINNER] = winner
    g[G_REASON] = reason
    g[G_QLEN] = 0
    g[G_QHEAD] = 0


@njit(cache=True, _nrt=False)
def begin_round(cstat: np.ndarray, cs: np.ndarray, g: np.ndarray, opts: np.ndarray) -> None:
    """``Ruleset.begin_round``: the next round, or the end on the round limit."""
    g[G_ROUND] += 1
    if g[G_ROUND] > opts[O_LIMIT]:
        g[G_ROUND] = opts[O_LIMIT]
        winner = -1
        if opts[O_SURVIVE] == 1:
            for i in range(cs.shape[0]):
                if cstat[i, C_SIDE] == HEROES and cs[i, S_STATUS] == ACTIVE:
                    winner = HEROES
        finish(g, winner, R_TIMEOUT)


@njit(cache=True, _nrt=False)
def open_side_turn(
    cstat: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    opts: np.ndarray,
    dice: np.ndarray,
    queue: np.ndarray,
    side: np.int64,
) -> None:
    g[G_SIDE] = side
    g[G_NDECL] = 0
    n = cs.shape[0]
    if g[G_ROUND] == 1 and opts[O_FIRST] == 1:
        for c in range(n):
            if (
                cstat[c, C_SIDE] == side
                and cs[c, S_STATUS] == ACTIVE
                and cstat[c, C_PC] == 1
                and cstat[c, C_WAIVE] == 0
            ):
                # CA-03: "cada PJ debe realizar una tirada de salvación de DES para poder
                # actuar … Los PCs que no superen la tirada pierden su turno".
                if not save(dice, cs, c, S_DES):
                    cs[c, S_COND] |= PERDIO_TURNO
    q = 0
    for c in range(n):
        if (
            cstat[c, C_SIDE] == side
            and cs[c, S_STATUS] == ACTIVE
            and (cs[c, S_COND] & PERDIO_TURNO) == 0
        ):
            queue[q] = c
            q += 1
    g[G_QHEAD] = 0
    g[G_QLEN] = q


@njit(cache=True, _nrt=False)
def close_side_turn(cstat: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    side = g[G_SIDE]
    for c in range(cs.shape[0]):
        if cstat[c, C_SIDE] == side:
            cs[c, S_COND] &= ~PERDIO_TURNO
    g[G_NDECL] = 0
    g[G_QLEN] = 0
    g[G_QHEAD] = 0


@njit(cache=True, _nrt=False)
def next_side_turn(
    cstat: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    opts: np.ndarray,
    dice: np.ndarray,
    queue: np.ndarray,
) -> None:
    """Open the next side turn that has someone to declare (or end the battle)."""
    side = g[G_SIDE]
    while g[G_DONE] == 0:
        if side == HEROES:
            side = ENEMIES
        else:
            begin_round(cstat, cs, g, opts)
            if g[G_DONE] == 1:
                break
            side = HEROES
        open_side_turn(cstat, cs, g, opts, dice, queue, side)
        if g[G_QLEN] > 0:
            break
        close_side_turn(cstat, cs, g)


@njit(cache=True, _nrt=False)
def start(
    cstat: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    opts: np.ndarray,
    dice: np.ndarray,
    queue: np.ndarray,
) -> None:
    """``Cairn.start``: round 1, the heroes' side turn first (CA-02)."""
    begin_round(cstat, cs, g, opts)
    if g[G_DONE] == 1:
        return
    open_side_turn(cstat, cs, g, opts, dice, queue, HEROES)
    if g[G_QLEN] == 0:
        close_side_turn(cstat, cs, g)
        next_side_turn(cstat, cs, g, opts, dice, queue)


@njit(cache=True, _nrt=False, inline="always")
def check_end(cstat: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    """``Ruleset.check_end``: a side with nobody able to fight loses."""
    if g[G_DONE] == 1:
        return
    heroes = False
    enemies = False
    for c in range(cs.shape[0]):
        if cs[c, S_STATUS] == ACTIVE:
            if cstat[c, C_SIDE] == HEROES:
                heroes = True
            else:
                enemies = True
    if heroes and enemies:
        return
    if heroes:
        finish(g, HEROES, R_DEFEATED)
    elif enemies:
        finish(g, ENEMIES, R_DEFEATED)
    else:
        finish(g, -1, R_MUTUAL)


# -- resolution ------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _retreat(
    cstat: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    dist: np.ndarray,
    zexit: np.ndarray,
    dice: np.ndarray,
    a: np.int64,
) -> None:
    """CA-17: to the nearest exit zone (then map order), then the DES save."""
    here = cs[a, S_ZONE]
    if zexit[here] == 0:
        best = -1
        for z in range(dist.shape[0]):
            if zexit[z] == 1 and (best < 0 or dist[here, z] < dist[here, best]):
                best = z
        cs[a, S_ZONE] = best
    if save(dice, cs, a, S_DES):
        set_status(cstat, cs, g, a, FLED)


@njit(cache=True, _nrt=False, inline="always")
def resolve_attacks(
    cstat: np.ndarray,
    wpn: np.ndarray,
    zcover: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    dice: np.ndarray,
    decl: np.ndarray,
    hits: np.ndarray,
) -> None:
    """CA-05/06/09: pool every die aimed at each target (declaration order), then each
    target in scenario order keeps the highest, minus armour. The pools are fixed before
    any damage (simultaneous), in ``hits``: scratch of (combatants², 5) rows (target,
    attacker, dice, first die's sides, second die's sides)."""
    n = cs.shape[0]
    nd = g[G_NDECL]
    hit_t = hits[:, 0]
    hit_a = hits[:, 1]
    hit_n = hits[:, 2]
    hit_d1 = hits[:, 3]
    hit_d2 = hits[:, 4]
    k = 0
    for d in range(nd):
        if decl[d, D_VERB] != ATTACK:
            continue
        a = decl[d, D_ACTOR]
        t = decl[d, D_TARGET]
        w = decl[d, D_ITEM]
        if cs[a, S_STATUS] != ACTIVE or cs[t, S_STATUS] != ACTIVE:
            continue
        blast = is_blast(cstat, wpn, a, t, w)
        for c in range(n):
            if (blast and in_blast(cstat, wpn, cs, a, t, w, c)) or (not blast and c == t):
                nn, d1, d2 = attack_dice(cstat, wpn, zcover, opts, cs, a, c, w)
                hit_t[k] = c
                hit_a[k] = a
                hit_n[k] = nn
                hit_d1[k] = d1
                hit_d2[k] = d2
                k += 1
    for t in range(n):
        if cs[t, S_STATUS] != ACTIVE:
            continue
        best = 0
        source = -1
        for j in range(k):
            if hit_t[j] != t:
                continue
            if source < 0:
                source = hit_a[j]
            face = mt.roll(dice, hit_d1[j])
            if hit_n[j] == 2:
                f2 = mt.roll(dice, hit_d2[j])
                if f2 > face:
                    face = f2
            if face > best:
                best = face
                source = hit_a[j]
        if source < 0:
            continue
        damage = max(0, best - cstat[t, C_ARMOUR])
        apply_damage(cstat, cs, g, opts, dice, t, damage, source)


@njit(cache=True, _nrt=False)
def _fighting_members(cstat: np.ndarray, cs: np.ndarray, group: np.ndarray) -> int:
    """Mark the enemies' non-PC members still fighting; return how many."""
    active = 0
    for c in range(cs.shape[0]):
        group[c] = cstat[c, C_SIDE] == ENEMIES and cstat[c, C_PC] == 0 and cs[c, S_STATUS] == ACTIVE
        if group[c]:
            active += 1
    return active


@njit(cache=True, _nrt=False)
def _morale_saves(
    cstat: np.ndarray, cs: np.ndarray, g: np.ndarray, dice: np.ndarray, group: np.ndarray
) -> None:
    for c in range(cs.shape[0]):
        if group[c] and not save(dice, cs, c, S_VOL):
            set_status(cstat, cs, g, c, FLED)


@njit(cache=True, _nrt=False)
def morale(
    cstat: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    opts: np.ndarray,
    dice: np.ndarray,
    group: np.ndarray,
) -> None:
    """CA-18 *(ext, option morale)*: VOL saves on the first casualty, at half strength,
    and for a lone foe at 0 PI; a failed save flees at once. ``group``: scratch, one
    per combatant."""
    if opts[O_MORALE] == 0:
        return
    n = cs.shape[0]
    members = 0
    last = -1
    for c in range(n):
        if cstat[c, C_SIDE] == ENEMIES and cstat[c, C_PC] == 0:
            members += 1
            last = c
    if members == 0:
        return
    for c in range(n):
        group[c] = 0
    if members == 1:
        if cs[last, S_STATUS] == ACTIVE and cs[last, S_PI] == 0 and g[G_MLONE] == 0:
            g[G_MLONE] = 1
            group[last] = 1
            _morale_saves(cstat, cs, g, dice, group)
        return
    active = _fighting_members(cstat, cs, group)
    if active < members and g[G_MFIRST] == 0:
        g[G_MFIRST] = 1
        _morale_saves(cstat, cs, g, dice, group)
    active = _fighting_members(cstat, cs, group)
    if active > 0 and 2 * active <= members and g[G_MHALF] == 0:
        g[G_MHALF] = 1
        _morale_saves(cstat, cs, g, dice, group)


@njit(cache=True, _nrt=False, inline="always")
def resolve(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    zexit: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    dice: np.ndarray,
    decl: np.ndarray,
    hits: np.ndarray,
) -> None:
    """``Cairn.resolve``: the side's declarations together (CA-02): movement in
    declaration order, then the attacks, then morale (``hits``: resolve_attacks')."""
    for d in range(g[G_NDECL]):
        a = decl[d, D_ACTOR]
        if cs[a, S_STATUS] != ACTIVE:
            continue
        verb = decl[d, D_VERB]
        if verb == MOVE:
            cs[a, S_ZONE] = decl[d, D_ZONE]
        elif verb == ATTACK:
            t = decl[d, D_TARGET]
            # CA-04: a melee attack closes one zone first.
            if wpn[a, decl[d, D_ITEM], W_RANGED] == 0 and cs[a, S_ZONE] != cs[t, S_ZONE]:
                cs[a, S_ZONE] = cs[t, S_ZONE]
        elif verb == FLEE:
            _retreat(cstat, cs, g, dist, zexit, dice, a)
    resolve_attacks(cstat, wpn, zcover, opts, cs, g, dice, decl, hits)
    # morale's scratch: a column of the attacks' scratch, which they are done with.
    morale(cstat, cs, g, opts, dice, hits[:, 0])


@njit(cache=True, _nrt=False, inline="always")
def apply(
    cstat: np.ndarray,
    wpn: np.ndarray,
    dist: np.ndarray,
    zcover: np.ndarray,
    zexit: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    dice: np.ndarray,
    queue: np.ndarray,
    decl: np.ndarray,
    hits: np.ndarray,
    actor: np.int64,
    act: np.ndarray,
) -> None:
    """``Cairn.apply``: declare; the last declaration of the side resolves them all
    (``hits``: scratch for resolve_attacks)."""
    d = g[G_NDECL]
    decl[d, D_VERB] = act[0]
    decl[d, D_TARGET] = act[1]
    decl[d, D_ZONE] = act[2]
    decl[d, D_ITEM] = act[3]
    decl[d, D_ACTOR] = actor
    g[G_NDECL] = d + 1
    g[G_QHEAD] += 1
    if g[G_QHEAD] < g[G_QLEN]:
        return
    resolve(cstat, wpn, dist, zcover, zexit, opts, cs, g, dice, decl, hits)
    close_side_turn(cstat, cs, g)
    check_end(cstat, cs, g)
    if g[G_DONE] == 0:
        next_side_turn(cstat, cs, g, opts, dice, queue)
