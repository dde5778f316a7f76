"""Cairn's rules compiled with numba: the fast path's arrays and rule functions.

architecture.md, "The fast path": the engine (:mod:`escaramuza.rules.cairn.ruleset`,
:mod:`~escaramuza.rules.cairn.combat`) is the specification; each function here is the
engine function of the same name over plain arrays, drawing the same dice in the same
order from the same generator (:mod:`escaramuza.rules.core.mt`), and cites the same
rule id. Nothing here narrates: the only bookkeeping kept beside the rules is what
``escaramuza.playtest.records.record_from_events`` reads from the events (damage dealt and
taken, knock-out round, death, wipe).

The loops' hooks are :func:`reset`, :func:`start`, :func:`legal` and :func:`apply`
(``rules.core.loops``: the battle and rollout loops are the shared ones); the compiled
temperaments live in ``agents/heuristics/cairn_kernel.py`` (rules never import agents).

The bundles (``rules.core.dialect``; small int codes instead of strings, each array's
columns declared once below):

* static ``s = (stat, weapon, dist, opts, zone, scar, step)`` — ``stat[c, ST.*]`` the
  combatant's stat block; ``weapon[c, w, W.*]`` its weapons in ``weapons_of`` order (the
  fists, CA-07, when it has none); ``dist[z, z']`` the hops between two zones;
  ``opts[OPT.*]`` the scenario's options, round limit and victory; ``zone[z, ZONE.*]`` each
  zone's cover, exit and nearest exit, in ``zone_ids`` order; ``scar[k, SCAR.*]`` the
  Cicatrices entry read for ``k`` PI lost (CA-13), built from
  :mod:`escaramuza.rules.cairn.scars` with the scenario's ``doomed`` reading
  (:func:`scar_table`); ``step[z, z']`` the zone one step from ``z`` toward ``z'``
  (``compiled.zone_steps``: an attack's move, CA-04).
* dynamic ``d = (cs, g, log, queue, decl, hits, pools, scores)`` — ``cs[c, CS.*]``
  resources, status, zone, conditions (a bit per ``CONDITIONS`` entry) and the playtest
  counters; ``g[G.*]`` the battle (round, side turn, queue head, declarations, outcome,
  morale); ``log`` the damage log (``rules.core.loops.DAMAGE``: a row per engine
  ``Damaged`` event); ``queue[i]`` who declares this side turn, in order (the pending
  decision is ``queue[g[G.QHEAD]]``, kept in ``G.ACTOR``); ``decl[i]`` the side's
  declarations, resolved together (CA-02), each a legal-list row and its actor; then
  scratch: ``hits[k, HIT.*]`` the dice aimed at each target (:func:`declared_hits`), and
  the temperaments' ``pools[c, POOL.*]`` (the dice already declared on each target,
  ``combat.declared_pools``) and ``scores[i]`` (one per legal action).
* a legal-list row is ``la[i, LA.*]`` (``rules.core.legal``), in ``Cairn.actions_for``
  order.

The rules take the bundles; the helpers the temperaments call for every legal action
(:func:`attack_dice`, :func:`is_blast`, :func:`in_blast`) take the arrays they read,
which a compiled call passes cheaply (a bundle goes as every field of every array).

Every value is checked on its way in (``Columns.put``, ``rules.core.kernel.check_range``;
docs/fast-path.md, "The kernel boundary"): the compiled code indexes by these numbers
without bounds checks, and the exact odds of the temperaments are int64 sums over a
pool's dice (``agents/heuristics/cairn_kernel.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from escaramuza.rules.cairn import scars
from escaramuza.rules.cairn.combat import CONDITIONS, reach_of, weapons_of
from escaramuza.rules.cairn.ruleset import Cairn
from escaramuza.rules.cairn.sheets import CAIRN_DICE, RANGED, UNARMED
from escaramuza.rules.core import compiled, mt
from escaramuza.rules.core.compiled import Exported
from escaramuza.rules.core.dialect import (
    ACTIVE,
    DEAD,
    DIST,
    DOWN,
    ENEMIES,
    FLED,
    GLOBALS,
    HEAD,
    HEROES,
    KIND_TURN,
    LOG,
    OPTS,
    RUNNING,
    STAT,
    STATE,
    WEAPON,
)
from escaramuza.rules.core.jit import copy_into, njit
from escaramuza.rules.core.kernel import BOUND, KernelRefusal, check_range
from escaramuza.rules.core.layout import Columns
from escaramuza.rules.core.legal import ACTION_WIDTH, LA, push
from escaramuza.rules.core.loops import new_damage_log
from escaramuza.rules.core.mechanics import compile_mechanics
from escaramuza.rules.core.model import Action, Combatant, Side
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState

#: What messages call this ruleset ("the Cairn kernel").
TITLE = Cairn.name

# -- codes --------------------------------------------------------------------------
ATTACK, MOVE, FLEE, WAIT = 0, 1, 2, 3
#: The verbs' names, by code.
VERBS: tuple[str, ...] = ("atacar", "mover", "huir", "esperar")
#: What the resolution reads of each verb's declaration (``rules.core.legal.action_row``).
NEEDS = {"target": (ATTACK,), "item": (ATTACK,), "zone": (MOVE,)}
#: Condition bits, in ``combat.CONDITIONS`` order.
PERDIO_TURNO, PRIVADO, DESJARRETADO, DANO_CRITICO, FUERA_DE_ACCION = 1, 2, 4, 8, 16
ALL_CONDITIONS = (1 << len(CONDITIONS)) - 1
#: ``opts[OPT.BOTH_MODIFIERS]``: an attack both Impedido and Mejorado.
BOTH_CODES: dict[str, int] = {"cancel": 0, "impaired": 1, "enhanced": 2}
#: The engine's resources, each with its ``CS`` column's name.
RESOURCES = compiled.kernel_resources(Cairn)
#: The first resource and its maximum (``agents.search.side_strength``'s health).
HEALTH = ("PI", "MAX_PI")
#: A damage log's ``DAMAGE.RESOURCE``: a resource's index in ``Cairn.resources``.
R_PI, R_FUE = (list(Cairn.resources).index(r) for r in ("pi", "fue"))
#: Places of the ruleset's own arrays in the bundles (``rules.core.dialect``).
ZONES, SCARS, STEPS = 4, 5, 6
QUEUE, DECL, HITS, POOLS, SCORES = 3, 4, 5, 6, 7
#: The dynamic arrays that are a battle's state (what :func:`reset` copies); the rest is
#: scratch, written before it is read in every call.
KEPT = (STATE, GLOBALS, QUEUE, DECL)

# -- the boundary (rules.core.kernel.check_range) -------------------------------------
#: PI, FUE, DES and VOL and their maxima. The exact odds (cairn_kernel.attack_gain) sum,
#: over up to a dozen targets, expected PI + FUE lost over a common denominator of up to
#: 2**40: PI + FUE ≤ 2**18 keeps those sums within 2**62.
MAX_RESOURCE = 1 << 17
#: The product of the die sizes of the most dice one side can aim at one target in a
#: side turn (each of its combatants' largest pool: its weapon's dice, or the d12 of an
#: enhanced attack): the exact odds count outcomes over it, 20 × it × (PI + FUE) ≤ 2**62.
MAX_POOL_PRODUCT = 1 << 36
#: The most combatants: a side this large could overflow the exact pool sums.
MAX_COMBATANTS = 12
#: The largest die a pool holds (CA-08's Mejorado d12): ``POOL.COUNT`` is indexed by it.
LARGEST_DIE = max(CAIRN_DICE)


# -- layouts ---------------------------------------------------------------------------
class ST(Columns):
    """``stat[c]``: the combatant's stat block (the scenario fixes it)."""

    SIDE, TEMPERAMENT = HEAD["ST"].values()
    PC = (0, 1, "a player character (CA-12's dano_critico, CA-13's Cicatrices)")
    DESTACAMENTO = (0, 1, "a destacamento (CA-16)")
    IMPAIRED = (0, 1, "its attacks are Impedido (CA-08)")
    HELPLESS = (0, 1, "attacks on it are Mejorado (CA-08)")
    WAIVE_FIRST_SAVE = (0, 1, "acts in round 1 without the DES save (CA-03)")
    ARMOUR = (0, BOUND, "armadura, taken off the damage (CA-10)")
    MAX_PI = (0, MAX_RESOURCE, "the most PI")
    MAX_FUE = (0, MAX_RESOURCE, "the most FUE")
    MAX_DES = (0, MAX_RESOURCE, "the most DES")
    MAX_VOL = (0, MAX_RESOURCE, "the most VOL")
    WEAPONS = (1, BOUND, "how many weapons it has (weapons_of: the fists when none)")


class W(Columns):
    """``weapon[c, w]``: one weapon, in ``weapons_of`` order."""

    DICE = (1, 2, "how many damage dice it rolls (CA-07, a pair CA-10)")
    D1 = (1, LARGEST_DIE, "the first die's sides (a CAIRN_DICE size)")
    D2 = (0, LARGEST_DIE, "the second die's sides (0: one die)")
    RANGED = (0, 1, "a ranged weapon (CA-07)")
    REACH = (0, BOUND, "the zones it strikes from where it stands (reach_of: melee 0)")
    BLAST = (0, 1, "Explosión (CA-09)")
    UNARMED = (0, 1, "the fists (CA-07: always a d4)")


class ZONE(Columns):
    """``zone[z]``: one zone of the battlefield, in ``zone_ids`` order."""

    COVER = (-BOUND, BOUND, "its cover level (CA-07 reading: shots into it Impedido)")
    EXIT = (0, 1, "an exit zone (CA-17)")
    TO_EXIT = (-1, BOUND, "hops to the nearest exit zone (-1 with none)")
    NEAREST_EXIT = (-1, "zones", "CA-17's way out: the nearest exit, first in map order")


class OPT(Columns):
    """``opts``: the scenario's options, round limit and victory."""

    ROUND_LIMIT, SURVIVE = HEAD["OPT"].values()
    FIRST_ROUND_SAVE = (0, 1, "every PC saves DES to act in round 1 (CA-03)")
    SCARS = (0, 1, "the Cicatrices table is read (CA-13)")
    MORALE = (0, 1, "the enemies' morale saves (CA-18)")
    COVER_IMPAIRS_AT = (-BOUND, BOUND, "the cover level from which shots are Impedido")
    BOTH_MODIFIERS = (0, len(BOTH_CODES) - 1, "an attack Impedido and Mejorado (BOTH_CODES)")


class SCAR(Columns):
    """``scar[k]``: the Cicatrices entry read for ``k`` PI lost (row 0 unused; a loss past
    the last row reads the last), as the engine's ``scar_for`` gives it."""

    CONDITIONS = (0, ALL_CONDITIONS, "the conditions it gives, a bit per CONDITIONS entry")
    OUT = (0, 1, "it takes the PC out of the fight: status down (out_of_action)")


class CS(Columns):
    """``cs[c]``: the combatant's changing state."""

    STATUS, ZONE, KO_ROUND, DIED, DEALT, DEALT_TO_FOES, TAKEN = HEAD["CS"].values()
    PI = (0, MAX_RESOURCE, "puntos de impacto left (CA-11)")
    FUE = (0, MAX_RESOURCE, "FUE left")
    DES = (0, MAX_RESOURCE, "DES left")
    VOL = (0, MAX_RESOURCE, "VOL left")
    COND = (0, ALL_CONDITIONS, "its conditions, a bit per CONDITIONS entry")


class G(Columns):
    """``g``: the battle (the pending decision's actor is ``queue[QHEAD]``; its kind
    always KIND_TURN while the battle runs)."""

    OUTCOME, REASON, ROUND, WIPE, ACTOR, KIND, SUSPEND, DECISIONS, DAMAGES = HEAD["G"].values()
    SIDE = (0, 1, "the side declaring")
    QHEAD = (0, MAX_COMBATANTS, "the place in queue of the one declaring")
    QLEN = (0, MAX_COMBATANTS, "how many declare this side turn")
    NDECL = (0, MAX_COMBATANTS, "declarations made this side turn")
    MORALE_FIRST = (0, 1, "the first casualty's morale saves were made (CA-18)")
    MORALE_HALF = (0, 1, "the half-strength morale saves were made (CA-18)")
    MORALE_LONE = (0, 1, "the lone foe's morale save was made (CA-18)")


#: A declaration ``decl[i]``: a legal-list row (``LA``; an attack's item is its weapon's
#: place in ``weapons_of``), then who declared it, in column ``DECL_ACTOR``.
DECL_ACTOR = ACTION_WIDTH
DECL_WIDTH = ACTION_WIDTH + 1


class HIT(Columns):
    """``hits[k]``: one attacker's dice aimed at one target (declared_hits)."""

    TARGET = (0, "combatants", "who the dice are aimed at")
    ATTACKER = (0, "combatants", "who rolls them")
    DICE = (1, 2, "how many dice")
    D1 = (1, LARGEST_DIE, "the first die's sides")
    D2 = (0, LARGEST_DIE, "the second die's sides")


class POOL(Columns):
    """``pools[t]``: the dice the side declaring already aims at ``t`` (CA-06,
    ``combat.declared_pools``), and that pool's value as the temperaments cache it (the
    target's PI and FUE do not change while one combatant declares)."""

    COUNT = (0, BOUND, "how many dice of s sides, at COUNT + s", LARGEST_DIE + 1)
    VALID = (0, 1, "P, E and Q hold this pool's value")
    P = (0, BOUND, "P(out) × 20 Q (exact.out_probability)")
    E = (0, BOUND, "E[damage] × Q (exact.expected_damage)")
    Q = (1, BOUND, "the product of the pool's die sizes")


# -- export (plain Python, once per scenario / per state) ------------------------------
@dataclass(frozen=True, slots=True)
class CairnExported(compiled.NamedExport):
    """A scenario's bundles and the names the kernel indexes (each combatant's weapon
    names are ``weapons_of``'s)."""


#: What each fight effect of a Cicatrices entry does (``combat.read_scar``): the
#: condition it gives and whether it takes the PC out (status down).
SCAR_EFFECTS: dict[str, tuple[str, bool]] = {
    "deprived": ("privado", False),
    "hamstrung": ("desjarretado", False),
    "out_of_action": ("fuera_de_accion", True),
}


def scar_table(doomed: str) -> np.ndarray:
    """``scar``: each Cicatrices entry as ``scars.scar_for`` reads it for this ``doomed``
    reading — the engine's own table, so an edit of it is an edit of the kernel's. An
    effect the kernel does not know is a refusal."""
    entries = len(scars.CICATRICES)
    table = SCAR.new(entries + 1)
    for lost in range(1, entries + 1):
        scar = scars.scar_for(lost, doomed)
        mask = 0
        out = False
        for effect in scar.effects:
            if effect not in SCAR_EFFECTS:
                raise KernelRefusal(f"Cicatrices #{scar.entry}: effect {effect!r}")
            condition, takes_out = SCAR_EFFECTS[effect]
            mask |= 1 << CONDITIONS.index(condition)
            out = out or takes_out
        SCAR.put(table[lost], f"Cicatrices #{scar.entry}", conditions=mask, out=int(out))
    return table


def check_static(scenario: Scenario, weapons: list[tuple[Any, ...]]) -> None:
    """What the layouts do not check: the weapons' dice, and the largest pool one side can
    aim at one target (KernelRefusal naming it)."""
    largest = {HEROES: 1, ENEMIES: 1}
    for c, ws in zip(scenario.combatants, weapons, strict=True):
        most = 12  # an enhanced attack (CA-08, CA-16) rolls a d12
        for w in ws:
            if len(w.dice) > 2:
                raise KernelRefusal(f"combatant {c.id}: weapon {w.name} rolls more than two dice")
            for d in w.dice:
                if d not in CAIRN_DICE:
                    raise KernelRefusal(f"{c.id}: {w.name} rolls a d{d}, not a Cairn die")
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


def export_scenario(scenario: Scenario) -> CairnExported:
    """The scenario's static bundle and its start (before the first round), or a refusal
    naming what the kernel does not hold."""
    combatants = scenario.combatants
    n = len(combatants)
    if n > MAX_COMBATANTS:
        raise KernelRefusal(f"{n} combatants (the Cairn kernel plays at most {MAX_COMBATANTS})")
    bf = scenario.battlefield
    nz = len(bf.zone_ids)
    dims = {"combatants": n, "zones": nz}
    weapons = [weapons_of(c) for c in combatants]
    check_static(scenario, weapons)
    nw = max((len(w) for w in weapons), default=1)
    stat = ST.new(n)
    weapon = W.new(n, nw)
    for i, c in enumerate(combatants):
        s = c.stats
        ST.put(
            stat[i],
            c.id,
            dims,
            **compiled.stat_head(c),
            pc=int(c.pc),
            destacamento=int(s.destacamento),
            impaired=int(s.impaired),
            helpless=int(s.helpless),
            waive_first_save=int(s.waive_first_save),
            armour=s.armour,
            max_pi=c.maxima["pi"],
            max_fue=c.maxima["fue"],
            max_des=c.maxima["des"],
            max_vol=c.maxima["vol"],
            weapons=len(weapons[i]),
        )
        for j, w in enumerate(weapons[i]):
            W.put(
                weapon[i, j],
                f"{c.id}: {w.name}",
                dims,
                dice=len(w.dice),
                d1=w.dice[0],
                d2=w.dice[1] if len(w.dice) > 1 else 0,
                ranged=int(w.kind == RANGED),
                reach=reach_of(w),
                blast=int(w.blast),
                unarmed=int(w is UNARMED),
            )
    dist = compiled.zone_hops(bf)
    zone = ZONE.new(nz)
    exits = bf.exits()
    for a, z in enumerate(bf.zone_ids):
        # Cairn._retreat's destination, and the distance actions_for and retreat read.
        out = min(exits, key=lambda e: (bf.distance(z, e), bf.index[e]), default=None)
        ZONE.put(
            zone[a],
            f"zone {z}",
            dims,
            cover=bf.zones[z].cover,
            exit=int(bf.zones[z].exit),
            to_exit=-1 if out is None else bf.distance(z, out),
            nearest_exit=-1 if out is None else bf.index[out],
        )
    o = scenario.options
    opts = OPT.new()
    OPT.put(
        opts,
        "options",
        dims,
        first_round_save=int(o.first_round_save),
        scars=int(o.scars),
        morale=int(o.morale),
        cover_impairs_at=o.cover_impairs_at,
        both_modifiers=BOTH_CODES[o.both_modifiers],
        round_limit=scenario.round_limit,
        survive=int(scenario.victory == "survive"),
    )
    ids = {c.id: i for i, c in enumerate(combatants)}
    zones = dict(bf.index)
    cs = CS.new(n)
    for i, c in enumerate(combatants):
        _export_combatant(stat, ids, zones, cs, i, c)
    g = G.new()
    g[G.OUTCOME] = RUNNING
    actions = n * nw + nz + 2  # attacks (targets × weapons), moves, the retreat, waiting
    return CairnExported(
        scenario,
        (stat, weapon, dist, opts, zone, scar_table(o.doomed), compiled.zone_steps(bf)),
        (cs, g, new_damage_log(), np.zeros(n, dtype=np.int64), _decl(n), *_scratch(n, actions)),
        actions,
        ids,
        zones,
        tuple(tuple(w.name for w in ws) for ws in weapons),
    )


def _scratch(n: int, actions: int) -> tuple[np.ndarray, ...]:
    """``hits``, ``pools`` and ``scores`` of ``n`` combatants: the dynamic bundle's
    arrays after ``decl`` (the module's docstring)."""
    return HIT.new(n * n), POOL.new(n), np.zeros(actions, dtype=np.float64)


def condition_mask(c: Combatant) -> int:
    """``c``'s conditions as bits; a condition the kernel does not know, or one with a
    value (Cairn's carry none), is a refusal."""
    mask = 0
    for name, cond in c.conditions.items():
        if name not in CONDITIONS:
            raise KernelRefusal(f"{c.id}: condition {name!r}")
        check_range(cond.value, 0, 0, f"{c.id}: {name} value")
        mask |= 1 << CONDITIONS.index(name)
    return mask


def _export_combatant(
    stat: np.ndarray,
    ids: dict[str, int],
    zones: dict[str, int],
    cs: np.ndarray,
    i: int,
    c: Combatant,
) -> None:
    """Row ``i`` of ``cs``: status and zone, resources (within 0 and their maxima) and
    conditions."""
    head = compiled.combatant_head(ids, zones, i, c)
    maxima = {name: int(stat[i, ST[f"MAX_{column}"]]) for name, column in RESOURCES}
    compiled.put_resources(cs[i], CS, c, RESOURCES, maxima)
    CS.put(cs[i], c.id, {"zones": len(zones)}, **head, cond=condition_mask(c))


def export_state(exported: Exported, state: BattleState) -> tuple[np.ndarray, ...]:
    """The dynamic bundle of an engine state waiting on a declaration (about the cost of
    one clone).

    Refuses (KernelRefusal) a finished battle and any value outside what the arrays hold
    and the compiled rules index: besides each combatant's row, the round within the round
    limit, the side declaring, its queue (headed by the pending actor) and its
    declarations — distinct combatants of that side, at most one row each."""
    exported = compiled.exported_as(exported, CairnExported)
    stat = exported.static[STAT]
    n = compiled.resumable(exported, state, int(exported.static[OPTS][OPT.ROUND_LIMIT]))
    cs = CS.new(n)
    for i, c in enumerate(state.combatants):
        _export_combatant(stat, exported.ids, exported.zones, cs, i, c)
    g = G.new()
    data = state.data
    side = data.get("side", "heroes")
    if side not in ("heroes", "enemies"):
        raise KernelRefusal(f"side {side!r}")
    side_code = HEROES if side == "heroes" else ENEMIES
    q = data.get("queue", ())
    declared = data.get("declared", ())
    actors = [*q, *(a.actor for a in declared)]
    if len(set(actors)) != len(actors):
        raise KernelRefusal(f"queue {list(q)} and declarations name a combatant twice")
    for cid in actors:
        if stat[exported.ids[cid], ST.SIDE] != side_code:
            raise KernelRefusal(f"{cid} declares in the {side}' side turn")
    pending = state.pending
    if pending is None or not q or q[0] != pending.actor:
        raise KernelRefusal(f"queue {list(q)} is not headed by the pending actor")
    compiled.check_pending_side(exported, pending)
    queue = np.zeros(n, dtype=np.int64)
    for j, cid in enumerate(q):
        queue[j] = exported.ids[cid]
    decl = _decl(n)
    for j, a in enumerate(declared):
        decl[j] = encode_action(exported, a)
    G.put(
        g,
        "state",
        {"combatants": n},
        outcome=RUNNING,
        round=state.round,
        actor=queue[0],
        kind=KIND_TURN,
        side=side_code,
        qlen=len(q),
        ndecl=len(declared),
        morale_first=int(bool(data.get("morale_first"))),
        morale_half=int(bool(data.get("morale_half"))),
        morale_lone=int(bool(data.get("morale_lone"))),
    )
    return (cs, g, new_damage_log(), queue, decl, *_scratch(n, exported.actions))


def encode_action(exported: CairnExported, action: Action) -> np.ndarray:
    """An engine :class:`Action` as the kernel's declaration row: its legal-list row,
    then its actor."""
    row = compiled.named_action_row(exported, action, VERBS, needs=NEEDS)
    return np.array([*row, exported.ids[action.actor]], dtype=np.int64)


def _decl(n: int) -> np.ndarray:
    """Room for ``n`` declarations."""
    return np.zeros((n, DECL_WIDTH), dtype=np.int64)


def action_row(exported: Exported, state: BattleState, action: Action) -> list[int]:
    """The legal-list row of an engine action."""
    exported = compiled.exported_as(exported, CairnExported)
    return [int(v) for v in encode_action(exported, action)[:ACTION_WIDTH]]


#: Every condition mask's sorted (name, value) pairs (Cairn's conditions carry no value).
_CONDITION_PAIRS = compiled.flag_conditions(CONDITIONS)


def conditions(row: Any) -> tuple[tuple[str, int], ...]:
    """A final ``cs`` row's conditions as sorted ``(name, value)`` pairs."""
    return _CONDITION_PAIRS[row[CS.COND]]


# -- the shared mechanics (rules.core.mechanics) ---------------------------------------------
@njit(cache=True, _nrt=False)
def on_battle_end(stat: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    """No side turn is open once the battle is over."""
    g[G.QLEN] = 0
    g[G.QHEAD] = 0


_mechanics = compile_mechanics(__name__, ST=ST, CS=CS, G=G, OPT=OPT, on_battle_end=on_battle_end)
set_status, deal = _mechanics.set_status, _mechanics.deal
begin_round, check_end = _mechanics.begin_round, _mechanics.check_end
side_out, foe_hops = _mechanics.side_out, _mechanics.foe_hops


# -- CA-01 saves ---------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def save(dice: np.ndarray, cs: np.ndarray, c: np.int64, column: np.int64) -> bool:
    """CA-01 *(ext)*: d20 ≤ the attribute succeeds; 1 always succeeds, 20 always fails."""
    face = mt.roll(dice, 20)
    return face == 1 or (face != 20 and face <= cs[c, column])


# -- attack dice (CA-05 … CA-10, CA-16) -----------------------------------------------
@njit(cache=True, _nrt=False)
def attack_dice(
    stat: np.ndarray,
    weapon: np.ndarray,
    zone: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    a: np.int64,
    t: np.int64,
    w: np.int64,
) -> tuple[int, int, int]:
    """``combat.attack_dice``: (count, die, die) one attacker rolls at one target."""
    if weapon[a, w, W.UNARMED] == 1:
        return 1, 4, 0  # CA-07: unarmed is always d4
    impaired = stat[a, ST.IMPAIRED] == 1
    # CA-07 reading: a ranged attack into a zone with cover.
    if (
        weapon[a, w, W.RANGED] == 1
        and zone[cs[t, CS.ZONE], ZONE.COVER] >= opts[OPT.COVER_IMPAIRS_AT]
    ):
        impaired = True
    # CA-16: an individual against a destacamento (blast excluded).
    if (
        stat[t, ST.DESTACAMENTO] == 1
        and stat[a, ST.DESTACAMENTO] == 0
        and weapon[a, w, W.BLAST] == 0
    ):
        impaired = True
    # CA-08 helpless target; CA-16 a destacamento against an individual.
    enhanced = stat[t, ST.HELPLESS] == 1 or (
        stat[a, ST.DESTACAMENTO] == 1 and stat[t, ST.DESTACAMENTO] == 0
    )
    mod = 0
    if impaired and enhanced:
        mod = opts[OPT.BOTH_MODIFIERS]
    elif impaired:
        mod = 1
    elif enhanced:
        mod = 2
    if mod == 1:
        return 1, 4, 0
    if mod == 2:
        return 1, 12, 0
    return weapon[a, w, W.DICE], weapon[a, w, W.D1], weapon[a, w, W.D2]


@njit(cache=True, _nrt=False)
def is_blast(stat: np.ndarray, weapon: np.ndarray, a: np.int64, t: np.int64, w: np.int64) -> bool:
    """CA-09 Explosión, or CA-16: a destacamento's attack on an individual."""
    return weapon[a, w, W.BLAST] == 1 or (
        stat[a, ST.DESTACAMENTO] == 1 and stat[t, ST.DESTACAMENTO] == 0
    )


@njit(cache=True, _nrt=False)
def in_blast(
    stat: np.ndarray,
    weapon: np.ndarray,
    cs: np.ndarray,
    a: np.int64,
    t: np.int64,
    w: np.int64,
    c: np.int64,
) -> bool:
    """``combat.blast_targets`` membership: active opponents in the target's zone."""
    return (
        cs[c, CS.STATUS] == ACTIVE
        and stat[c, ST.SIDE] != stat[a, ST.SIDE]
        and cs[c, CS.ZONE] == cs[t, CS.ZONE]
        and (weapon[a, w, W.BLAST] == 1 or stat[c, ST.DESTACAMENTO] == 0)
    )


@njit(cache=True, _nrt=False)
def declared_hits(
    stat: np.ndarray,
    weapon: np.ndarray,
    zone: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    decl: np.ndarray,
    hits: np.ndarray,
    standing: bool,
) -> int:
    """The dice of the side's declared attacks (CA-05/06/09), in declaration order: a row
    ``hits[k]`` per combatant an attack strikes (its target, or each one in its blast),
    with the dice its attacker rolls at it; with ``standing`` only the attacks whose
    attacker and target are still active (``resolve_attacks``; the temperaments'
    ``combat.declared_pools`` counts them all). Returns how many rows."""
    k = 0
    for i in range(g[G.NDECL]):
        if decl[i, LA.VERB] != ATTACK:
            continue
        a, t, w = decl[i, DECL_ACTOR], decl[i, LA.TARGET], decl[i, LA.ITEM]
        if standing and (cs[a, CS.STATUS] != ACTIVE or cs[t, CS.STATUS] != ACTIVE):
            continue
        blast = is_blast(stat, weapon, a, t, w)
        # Everyone it strikes: its target, or each one in its blast.
        lo, hi = (0, cs.shape[0]) if blast else (t, t + 1)
        for c in range(lo, hi):
            if blast and not in_blast(stat, weapon, cs, a, t, w, c):
                continue
            hits[k, HIT.TARGET] = c
            hits[k, HIT.ATTACKER] = a
            hits[k, HIT.DICE], hits[k, HIT.D1], hits[k, HIT.D2] = attack_dice(
                stat, weapon, zone, opts, cs, a, c, w
            )
            k += 1
    return k


# -- damage (CA-11 … CA-14) ---------------------------------------------------------------
@njit(cache=True, _nrt=False)
def read_scar(
    stat: np.ndarray, scar: np.ndarray, cs: np.ndarray, g: np.ndarray, t: int, pi_lost: int
) -> None:
    """CA-13: the Cicatrices entry for the PI lost (past the table, its last entry) and
    its fight effects: its conditions, then out of the fight if it takes the PC out."""
    entry = min(pi_lost, scar.shape[0] - 1)
    cs[t, CS.COND] |= scar[entry, SCAR.CONDITIONS]
    if scar[entry, SCAR.OUT] == 1:
        set_status(stat, cs, g, t, DOWN)


@njit(cache=True, _nrt=False)
def critical_damage(stat: np.ndarray, cs: np.ndarray, g: np.ndarray, t: int) -> None:
    """CA-12 (CA-16 for a destacamento): what a failed FUE save means."""
    if stat[t, ST.DESTACAMENTO] == 1:
        set_status(stat, cs, g, t, FLED)
    elif stat[t, ST.PC] == 1:
        cs[t, CS.COND] |= DANO_CRITICO
        set_status(stat, cs, g, t, DOWN)
    else:
        set_status(stat, cs, g, t, DEAD)


@njit(cache=True, _nrt=False)
def apply_damage(
    stat: np.ndarray,
    opts: np.ndarray,
    scar: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    log: np.ndarray,
    dice: np.ndarray,
    t: int,
    damage: int,
    src: int,
) -> None:
    """CA-11: damage (net of armour) to PI, the rest to FUE with the FUE save; each of
    ``combat.apply_damage``'s ``Damaged`` events is a :func:`deal`."""
    if damage <= 0:
        return
    pi = cs[t, CS.PI]
    to_pi = min(damage, pi)
    over = damage - to_pi
    if to_pi > 0:
        cs[t, CS.PI] = pi - to_pi
        deal(stat, cs, g, log, t, R_PI, to_pi, src)
    if over == 0:
        # CA-13: "Si un ataque causa que un PC se quede con exactamente 0 PI".
        if to_pi > 0 and cs[t, CS.PI] == 0 and stat[t, ST.PC] == 1 and opts[OPT.SCARS] == 1:
            read_scar(stat, scar, cs, g, t, to_pi)
        return
    fue = cs[t, CS.FUE]
    new = max(0, fue - over)
    cs[t, CS.FUE] = new
    deal(stat, cs, g, log, t, R_FUE, fue - new, src)
    if new == 0:
        set_status(stat, cs, g, t, DEAD)  # CA-14: FUE 0 is death
        return
    if not save(dice, cs, t, CS.FUE):
        critical_damage(stat, cs, g, t)


# -- legal actions (CA-04) ----------------------------------------------------------------
@njit(cache=True, _nrt=False)
def in_reach(weapon: np.ndarray, a: np.int64, w: np.int64, hops: np.int64, mobile: bool) -> bool:
    """``combat.in_reach``: ``a``'s weapon ``w`` strikes a combatant ``hops`` zones away —
    within its reach, or one zone beyond when ``a`` is ``mobile`` (not desjarretado,
    CA-13): the move, then the attack (CA-04)."""
    reach = weapon[a, w, W.REACH]
    return hops <= reach or (hops == reach + 1 and mobile)


@njit(cache=True, _nrt=False)
def attack_zone(
    weapon: np.ndarray,
    dist: np.ndarray,
    step: np.ndarray,
    cs: np.ndarray,
    a: np.int64,
    t: np.int64,
    w: np.int64,
) -> int:
    """``combat.attack_zone``: where ``a`` strikes ``t`` from with weapon ``w`` — its zone
    when ``t`` is in reach, else one step toward ``t`` (CA-04)."""
    here, there = cs[a, CS.ZONE], cs[t, CS.ZONE]
    if dist[here, there] <= weapon[a, w, W.REACH]:
        return here
    return step[here, there]


@njit(cache=True, _nrt=False, inline="always")
def legal(s: tuple, d: tuple, la: np.ndarray) -> int:
    """``Cairn.actions_for`` of the pending decision's combatant, in its order: attacks
    (targets in scenario order, weapons in order), moves (zones in map order), the
    retreat, waiting, into ``la``; returns the count."""
    stat, weapon, dist, zone = s[STAT], s[WEAPON], s[DIST], s[ZONES]
    cs, g = d[STATE], d[GLOBALS]
    me = g[G.ACTOR]
    n = 0
    here = cs[me, CS.ZONE]
    mobile = (cs[me, CS.COND] & DESJARRETADO) == 0
    side = stat[me, ST.SIDE]
    for t in range(cs.shape[0]):
        if cs[t, CS.STATUS] != ACTIVE or stat[t, ST.SIDE] == side:
            continue
        hops = dist[here, cs[t, CS.ZONE]]
        for w in range(stat[me, ST.WEAPONS]):
            if in_reach(weapon, me, w, hops, mobile):
                push(la, n, ATTACK, t, -1, w, -1)
                n += 1
    nz = dist.shape[0]
    if mobile:
        for z in range(nz):
            h = dist[here, z]
            if 1 <= h <= 2:
                push(la, n, MOVE, -1, z, -1, -1)
                n += 1
    if 0 <= zone[here, ZONE.TO_EXIT] <= (1 if mobile else 0):
        push(la, n, FLEE, -1, -1, -1, -1)
        n += 1
    push(la, n, WAIT, -1, -1, -1, -1)
    return n + 1


# -- turn structure (CA-02, CA-03) ----------------------------------------------------------
@njit(cache=True, _nrt=False)
def open_side_turn(
    stat: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    queue: np.ndarray,
    dice: np.ndarray,
    side: int,
) -> None:
    """``Cairn.begin_side_turn``: the first-round DES saves (CA-03), then the queue of
    those able to declare, in scenario order."""
    g[G.SIDE] = side
    g[G.NDECL] = 0
    n = cs.shape[0]
    if g[G.ROUND] == 1 and opts[OPT.FIRST_ROUND_SAVE] == 1:
        for c in range(n):
            if (
                stat[c, ST.SIDE] == side
                and cs[c, CS.STATUS] == ACTIVE
                and stat[c, ST.PC] == 1
                and stat[c, ST.WAIVE_FIRST_SAVE] == 0
            ):
                # CA-03: "cada PJ debe realizar una tirada de salvación de DES para poder
                # actuar … Los PCs que no superen la tirada pierden su turno".
                if not save(dice, cs, c, CS.DES):
                    cs[c, CS.COND] |= PERDIO_TURNO
    q = 0
    for c in range(n):
        if (
            stat[c, ST.SIDE] == side
            and cs[c, CS.STATUS] == ACTIVE
            and (cs[c, CS.COND] & PERDIO_TURNO) == 0
        ):
            queue[q] = c
            q += 1
    g[G.QHEAD] = 0
    g[G.QLEN] = q
    if q > 0:
        g[G.ACTOR] = queue[0]


@njit(cache=True, _nrt=False)
def close_side_turn(stat: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    side = g[G.SIDE]
    for c in range(cs.shape[0]):
        if stat[c, ST.SIDE] == side:
            cs[c, CS.COND] &= ~PERDIO_TURNO
    g[G.NDECL] = 0
    g[G.QLEN] = 0
    g[G.QHEAD] = 0


@njit(cache=True, _nrt=False)
def next_side_turn(
    stat: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    queue: np.ndarray,
    dice: np.ndarray,
) -> None:
    """Open the next side turn that has someone to declare (or end the battle)."""
    side = g[G.SIDE]
    while g[G.OUTCOME] == RUNNING:
        if side == HEROES:
            side = ENEMIES
        else:
            begin_round(stat, opts, cs, g)
            if g[G.OUTCOME] != RUNNING:
                break
            side = HEROES
        open_side_turn(stat, opts, cs, g, queue, dice, side)
        if g[G.QLEN] > 0:
            break
        close_side_turn(stat, cs, g)


@njit(cache=True, _nrt=False, inline="always")
def reset(s: tuple, d: tuple, d0: tuple) -> None:
    """``d`` becomes the state ``d0`` (its scratch arrays need no copy; nor its damage
    log, which holds none of ``d0``'s rows)."""
    copy_into(d[STATE], d0[STATE])
    copy_into(d[GLOBALS], d0[GLOBALS])
    copy_into(d[QUEUE], d0[QUEUE])
    copy_into(d[DECL], d0[DECL])


@njit(cache=True, _nrt=False)
def start(s: tuple, d: tuple, dice: np.ndarray) -> None:
    """``Cairn.start``: round 1, the heroes' side turn first (CA-02)."""
    stat, opts = s[STAT], s[OPTS]
    cs, g, queue = d[STATE], d[GLOBALS], d[QUEUE]
    g[G.KIND] = KIND_TURN
    begin_round(stat, opts, cs, g)
    if g[G.OUTCOME] != RUNNING:
        return
    open_side_turn(stat, opts, cs, g, queue, dice, HEROES)
    if g[G.QLEN] == 0:
        close_side_turn(stat, cs, g)
        next_side_turn(stat, opts, cs, g, queue, dice)


# -- resolution ------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _retreat(
    stat: np.ndarray, zone: np.ndarray, cs: np.ndarray, g: np.ndarray, dice: np.ndarray, a: int
) -> None:
    """CA-17: to the nearest exit zone (then map order), then the DES save."""
    here = cs[a, CS.ZONE]
    if zone[here, ZONE.EXIT] == 0:
        cs[a, CS.ZONE] = zone[here, ZONE.NEAREST_EXIT]
    if save(dice, cs, a, CS.DES):
        set_status(stat, cs, g, a, FLED)


@njit(cache=True, _nrt=False, inline="always")
def resolve_attacks(s: tuple, d: tuple, dice: np.ndarray) -> None:
    """CA-05/06/09: pool every die aimed at each target (declaration order), then each
    target in scenario order keeps the highest, minus armour. The pools are fixed before
    any damage (simultaneous), in ``hits``."""
    stat, weapon, opts, zone = s[STAT], s[WEAPON], s[OPTS], s[ZONES]
    cs, g, decl, hits = d[STATE], d[GLOBALS], d[DECL], d[HITS]
    n = cs.shape[0]
    k = declared_hits(stat, weapon, zone, opts, cs, g, decl, hits, True)
    for t in range(n):
        if cs[t, CS.STATUS] != ACTIVE:
            continue
        best = 0
        source = -1
        for j in range(k):
            if hits[j, HIT.TARGET] != t:
                continue
            if source < 0:
                source = hits[j, HIT.ATTACKER]
            face = mt.roll(dice, hits[j, HIT.D1])
            if hits[j, HIT.DICE] == 2:
                f2 = mt.roll(dice, hits[j, HIT.D2])
                if f2 > face:
                    face = f2
            if face > best:
                best = face
                source = hits[j, HIT.ATTACKER]
        if source < 0:
            continue
        damage = max(0, best - stat[t, ST.ARMOUR])
        apply_damage(stat, opts, s[SCARS], cs, g, d[LOG], dice, t, damage, source)


@njit(cache=True, _nrt=False)
def _fighting_members(stat: np.ndarray, cs: np.ndarray, group: np.ndarray) -> int:
    """Mark the enemies' non-PC members still fighting; return how many."""
    active = 0
    for c in range(cs.shape[0]):
        group[c] = (
            stat[c, ST.SIDE] == ENEMIES and stat[c, ST.PC] == 0 and cs[c, CS.STATUS] == ACTIVE
        )
        if group[c]:
            active += 1
    return active


@njit(cache=True, _nrt=False)
def _morale_saves(
    stat: np.ndarray, cs: np.ndarray, g: np.ndarray, dice: np.ndarray, group: np.ndarray
) -> None:
    for c in range(cs.shape[0]):
        if group[c] and not save(dice, cs, c, CS.VOL):
            set_status(stat, cs, g, c, FLED)


@njit(cache=True, _nrt=False)
def morale(
    stat: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    dice: np.ndarray,
    group: np.ndarray,
) -> None:
    """CA-18 *(ext, option morale)*: VOL saves on the first casualty, at half strength,
    and for a lone foe at 0 PI; a failed save flees at once. ``group``: scratch, one
    per combatant."""
    if opts[OPT.MORALE] == 0:
        return
    n = cs.shape[0]
    members = 0
    last = -1
    for c in range(n):
        if stat[c, ST.SIDE] == ENEMIES and stat[c, ST.PC] == 0:
            members += 1
            last = c
    if members == 0:
        return
    for c in range(n):
        group[c] = 0
    if members == 1:
        if cs[last, CS.STATUS] == ACTIVE and cs[last, CS.PI] == 0 and g[G.MORALE_LONE] == 0:
            g[G.MORALE_LONE] = 1
            group[last] = 1
            _morale_saves(stat, cs, g, dice, group)
        return
    active = _fighting_members(stat, cs, group)
    if active < members and g[G.MORALE_FIRST] == 0:
        g[G.MORALE_FIRST] = 1
        _morale_saves(stat, cs, g, dice, group)
    active = _fighting_members(stat, cs, group)
    if active > 0 and 2 * active <= members and g[G.MORALE_HALF] == 0:
        g[G.MORALE_HALF] = 1
        _morale_saves(stat, cs, g, dice, group)


@njit(cache=True, _nrt=False, inline="always")
def resolve(s: tuple, d: tuple, dice: np.ndarray) -> None:
    """``Cairn.resolve``: the side's declarations together (CA-02): movement in
    declaration order, then the attacks, then morale."""
    stat, weapon, dist, opts, zone = s[STAT], s[WEAPON], s[DIST], s[OPTS], s[ZONES]
    cs, g, decl = d[STATE], d[GLOBALS], d[DECL]
    for i in range(g[G.NDECL]):
        a = decl[i, DECL_ACTOR]
        if cs[a, CS.STATUS] != ACTIVE:
            continue
        verb = decl[i, LA.VERB]
        if verb == MOVE:
            cs[a, CS.ZONE] = decl[i, LA.ZONE]
        elif verb == ATTACK:
            # CA-04: an attack beyond the weapon's reach makes the turn's move first.
            cs[a, CS.ZONE] = attack_zone(
                weapon, dist, s[STEPS], cs, a, decl[i, LA.TARGET], decl[i, LA.ITEM]
            )
        elif verb == FLEE:
            _retreat(stat, zone, cs, g, dice, a)
    resolve_attacks(s, d, dice)
    # morale's scratch: a column of the attacks' scratch, which they are done with.
    morale(stat, opts, cs, g, dice, d[HITS][:, HIT.TARGET])


@njit(cache=True, _nrt=False, inline="always")
def apply(s: tuple, d: tuple, row: np.ndarray, dice: np.ndarray) -> None:
    """``Cairn.apply``: the pending combatant declares ``row``; the side's last
    declaration resolves them all, then the next side turn opens (or the battle ends)."""
    stat, opts = s[STAT], s[OPTS]
    cs, g, queue, decl = d[STATE], d[GLOBALS], d[QUEUE], d[DECL]
    i = g[G.NDECL]
    for k in range(ACTION_WIDTH):
        decl[i, k] = row[k]
    decl[i, DECL_ACTOR] = g[G.ACTOR]
    g[G.NDECL] = i + 1
    g[G.QHEAD] += 1
    if g[G.QHEAD] < g[G.QLEN]:
        g[G.ACTOR] = queue[g[G.QHEAD]]
        return
    resolve(s, d, dice)
    close_side_turn(stat, cs, g)
    check_end(stat, cs, g)
    if g[G.OUTCOME] == RUNNING:
        next_side_turn(stat, opts, cs, g, queue, dice)
