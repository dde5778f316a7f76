"""Donjon's rules compiled (the fast path): the engine's ``Donjon`` over plain arrays.

architecture.md, "The fast path": the engine is the specification and this module plays
the same rules with numba, one compiled function per engine rule, named like it and citing
the same rule id, so the two read side by side. The temperaments are in
``agents/heuristics/donjon_kernel.py`` (rules never import agents), with the kernel that
joins them to these rules on the shared loops (``rules.core.loops``) and mechanics
(``rules.core.mechanics``: status changes, damage, the end and the round limit).

A battle is two bundles of integer arrays (``rules.core.dialect``; each array's columns
declared once below):

* static, built once per scenario (:func:`export_scenario`), ``s = (stat, weapon,
  dist, opts, penalty, step_to, away, hurt_odds, win_odds)``: each combatant's sheet
  ``stat[c, ST.*]``; its weapons in sheet order ``weapon[c, w, W.*]`` (fists when it
  has none); the hops between zones ``dist[z, y]``; the options ``opts[OPT.*]``; the
  DJ-12 penalty ``penalty[kind, band]`` (-1: the weapon cannot attack there);
  ``Battlefield.step_towards`` as ``step_to[z, y]`` and ``Donjon._away_zone`` as
  ``away[z, y]`` (-1: none); the heuristics' exact odds ``hurt_odds`` and ``win_odds``
  (:class:`OddsTables`);
* dynamic ``d = (cs, g, log, init, pools, misses)``: each combatant's changing values
  ``cs[c, CS.*]`` (status, zone, the playtest counters, the five resources, ráfaga
  data, conditions); the battle's globals ``g[G.*]`` (round, count, the pending
  decision and what it waits on — ``state.data``'s attack, move, spend and continuing —
  the outcome); the damage log (``rules.core.loops.DAMAGE``: a row per engine
  ``Damaged`` event); the initiative numbers each combatant holds, highest first,
  ``init[c, k]`` (``cs[c, CS.HELD]`` of them); and scratch: the two pools of an opposed
  test ``pools[2, MAX_POOL]`` and the log of odds entries found missing ``misses[k,
  ODDS.*]``.

A legal-list row is ``la[i, LA.*]`` (``rules.core.legal``).

Dice come from :mod:`escaramuza.rules.core.mt` (the engine's ``random.Random``, draw for
draw). The heuristics' exact odds are the engine's own floats, read from tables filled
with ``exact.hurt_probability`` / ``exact.win_probability`` as battles ask for them: a
lookup of an entry not computed yet suspends the battle (:data:`SUSPEND_ODDS`, the
entry in ``g[G.MISS]``), the driver fills it and plays the battle again from the start
(a battle is the same every time: its dice and its agents' draws are seeded).

The hooks (:func:`reset`, :func:`start`, :func:`legal`, :func:`apply`) take the bundles,
and so do the steps inlined once each into :func:`apply` (which carries on what the
engine's rules call at their ends); every other rule takes the arrays it reads and is
compiled once (a compiled call passes a bundle as every field of every array; numba
copies an inlined function at every call site).

Every value is checked on its way in (``Columns.put``, ``rules.core.kernel.check_range``;
docs/fast-path.md, "The kernel boundary"): the compiled code indexes its arrays and the
odds tables by these numbers (pools are sums of them) without bounds checks.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from escaramuza.rules.core import compiled, dialect, mt
from escaramuza.rules.core.compiled import Exported
from escaramuza.rules.core.dialect import (
    ACTIVE,
    DEAD,
    DIST,
    DOWN,
    DRAW,
    ENEMIES,
    FLED,
    GLOBALS,
    HEAD,
    HEROES,
    KIND_NONE,
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
from escaramuza.rules.core.legal import LA, push
from escaramuza.rules.core.loops import (
    SUSPEND_RULESET,
    copy_head,
    new_damage_log,
)
from escaramuza.rules.core.mechanics import compile_mechanics
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.donjon.combat import PENALTY
from escaramuza.rules.donjon.exact import hurt_probability, win_probability
from escaramuza.rules.donjon.ruleset import Donjon
from escaramuza.rules.donjon.sheets import ATTRIBUTES, MELEE, RANGED, THROWN

#: What messages call this ruleset ("the Donjon kernel").
TITLE = Donjon.name

# -- codes ---------------------------------------------------------------------------
#: Weapon kinds (``W.KIND``), the rows of ``penalty``.
MELEE_KIND = 0
WEAPON_KINDS: tuple[str, ...] = (MELEE, THROWN, RANGED)

# Verbs (Donjon.verbs).
ATACAR, REMATAR, ACERCARSE, ALEJARSE, HUIR, ESPERAR = 0, 1, 2, 3, 4, 5
PARAR, ESQUIVAR, RESISTIR, DEJAR, REPARTIR, CONTINUAR, RETIRARSE = 6, 7, 8, 9, 10, 11, 12
VERBS: tuple[str, ...] = (
    "atacar",
    "rematar",
    "acercarse",
    "alejarse",
    "huir",
    "esperar",
    "parar",
    "esquivar",
    "resistir",
    "dejar",
    "repartir",
    "continuar",
    "retirarse",
)
#: What ``apply`` reads of each verb's action (``rules.core.legal.action_row``).
NEEDS = {
    "target": (ATACAR, REMATAR, ACERCARSE, ALEJARSE),
    "item": (ATACAR, REMATAR),
    "option": (REPARTIR,),
}
#: DJ-17 ``repartir`` options: 0 Heridas, 1..4 the attributes in sheet order.
SPEND_OPTIONS: tuple[str, ...] = ("heridas", *ATTRIBUTES)
#: Each spend option's resource as a ``Damaged`` event names it: its index in
#: ``Donjon.resources`` (the damage log's ``DAMAGE.RESOURCE``).
SPEND_RESOURCE = np.array(
    [tuple(Donjon.resources).index(name) for name in SPEND_OPTIONS], dtype=np.int64
)
#: The engine's resources, each with its ``CS`` column's name.
RESOURCES = compiled.kernel_resources(Donjon)
#: The first resource and its maximum (``agents.search.side_strength``'s health).
HEALTH = ("HERIDAS", "MAX_HERIDAS")

#: Pending decisions (``g[G.KIND]``, Donjon.decision_names): none, a turn (the dialect's
#: codes), then the reactions and choices inside a ráfaga.
KIND_DEFENSA, KIND_RESISTIR, KIND_REPARTIR, KIND_CONTINUAR = 2, 3, 4, 5
PENDING_NAMES: tuple[str, ...] = ("", "turn", "defensa", "resistir", "repartir", "continuar")

#: Outcome reasons (``g[G.REASON]``, Outcome.reason): the dialect's, and a draw when
#: neither side goes on at the pause (DJ-07).
REASONS: tuple[str, ...] = (*dialect.REASONS, "withdrawal")
R_WITHDRAWAL = REASONS.index("withdrawal")

#: Why a battle stops for Python (``g[G.SUSPEND]``): an odds entry not computed yet
#: (filled, then the battle is played again), or a number beyond the kernel's arrays
#: (a refusal: the engine plays it).
SUSPEND_ODDS = SUSPEND_RULESET
SUSPEND_OVERFLOW = SUSPEND_RULESET + 1

#: Places of the ruleset's own arrays in the bundles (``rules.core.dialect``).
PENALTIES, STEP_TO, AWAY, HURT_ODDS, WIN_ODDS = 4, 5, 6, 7, 8
INIT, POOLS, MISSES = 3, 4, 5
#: The dynamic arrays that are a battle's state (what :func:`reset` copies); the rest is
#: scratch, written before it is read in every call (``misses`` only ever written in a
#: battle: a batch of rollouts reads its own).
KEPT = (STATE, GLOBALS, INIT)

#: Initiative numbers a combatant may hold (DJ-04 pools are Nivel ≤ 20 + 6 + bonuses).
MAX_INIT = 96
#: Dice a single pool may roll in the kernel (else the seed runs on the engine).
MAX_POOL = 256
NONE = -1
#: attack_pool of a weapon that cannot reach (the engine's ``None``).
UNREACHABLE = -(1 << 40)

# -- the boundary (rules.core.kernel.check_range) -------------------------------------
#: A pool is the sum of a few of these (an attribute, a skill, a weapon's damage, the
#: armour, the carried dice): each at most MAX_POOL, so a sum beyond the kernel's pools
#: is a clean overflow (SUSPEND_OVERFLOW, a refusal) and never an index out of its array.
MAX_PART = MAX_POOL
#: A die's faces: ``roll_die`` takes ``getrandbits`` of its bit length (at most 32), and
#: the initiative count runs from it down.
MAX_DIE = 1 << 16
#: The odds tables grow (doubling) to the largest key asked; a table of more entries than
#: this is a refusal rather than gigabytes of NaN.
MAX_TABLE = 1 << 25
#: Odds entries one decision may record as missing (``G.MISS``), and the log of one
#: batch of rollouts (``misses``): the rest are found on the next pass.
MISS_SLOTS = 8
LOG_SLOTS = 64


# -- layouts ---------------------------------------------------------------------------
class ST(Columns):
    """``stat[c, ST.*]``: a combatant's sheet (``DonjonStats``), fixed for the battle."""

    SIDE, TEMPERAMENT = HEAD["ST"].values()
    INDEX = (0, BOUND, "table order (Combatant.index: DJ-06 ties, nearest foe)")
    PC = (0, 1, "a player character (DJ-19: dice floors, breaking)")
    NIVEL = (0, MAX_PART, "Nivel (DJ-04 initiative dice)")
    MAX_HERIDAS = (0, BOUND, "the most Heridas")
    ATAQUE = (0, MAX_PART, "attack ability (DJ-13, DJ-14)")
    ESQUIVAR = (0, MAX_PART, "dodge ability (DJ-15)")
    MOVIMIENTO = (0, MAX_PART, "movement ability (DJ-10)")
    DANO = (0, MAX_PART, "damage ability (DJ-16)")
    RESISTENCIA = (0, MAX_PART, "resistance ability (DJ-16)")
    INICIATIVA = (0, MAX_PART, "initiative ability (DJ-04, a Media test)")
    ARMOUR = (0, MAX_PART, "armour level (DJ-16)")
    SORPRESA = (0, MAX_PART, "surprise dice on the first ráfaga (DJ-04)")
    WEAPONS = (1, BOUND, "weapons on the sheet (fists when none)")
    PARRY_WEAPON = (NONE, "weapons", "combat._parry_weapon, -1 none (DJ-14)")
    BEST_BAND = (0, 1, "the heuristics' best_band: 0 en contacto, 1 a una acción")


class W(Columns):
    """``weapon[c, w, W.*]``: a combatant's weapons in sheet order."""

    KIND = (0, len(WEAPON_KINDS) - 1, "melee, thrown, ranged (WEAPON_KINDS)")
    DAMAGE = (0, MAX_PART, "Nivel de Daño (DJ-16)")


class OPT(Columns):
    """``opts[OPT.*]``: the scenario's options and limits."""

    ROUND_LIMIT, SURVIVE = HEAD["OPT"].values()
    DIE_SIZE = (2, MAX_DIE, "faces of a die (DJ-05: the count runs from it)")
    DIE_BITS = (2, 17, "the die's bit length (roll_die)")
    TIED_ATTACKER = (0, 1, "all_tied: 1 the attacker wins, 0 the defender (DJ-01)")
    MEDIA = (0, MAX_PART, "dificultades.media, dice of a Media test (DJ-02)")


class CS(Columns):
    """``cs[c, CS.*]``: a combatant's changing values. HERIDAS…DISCERNIMIENTO are
    ``Donjon.resources`` in order, so spend option o (0 Heridas, 1..4 attributes) is
    column ``CS.HERIDAS + o``."""

    STATUS, ZONE, KO_ROUND, DIED, DEALT, DEALT_TO_FOES, TAKEN = HEAD["CS"].values()
    HERIDAS = (0, BOUND, "Heridas left")
    CELERIDAD = (0, MAX_PART, "Celeridad left")
    VIRILIDAD = (0, MAX_PART, "Virilidad left")
    AGUANTE = (0, MAX_PART, "Aguante left")
    DISCERNIMIENTO = (0, MAX_PART, "Discernimiento left")
    BONUS = (0, MAX_PART, "carried successes: bonus dice on its next test (DJ-03, DJ-10)")
    HELD = (0, MAX_INIT, "initiative numbers held this ráfaga (init[c, :held])")
    ACTED_AT = (0, "faces", "the number it last acted on (DJ-06)")
    ACTED_TIMES = (0, BOUND, "actions taken on that number (DJ-06)")
    INCONSCIENTE = (0, 1, "the condition inconsciente (DJ-18)")
    QUEBRADO = (0, 1, "the condition quebrado (DJ-19)")


class ODDS(Columns):
    """An odds entry found missing (``g[G.MISS]``, the ``misses`` log): which table and
    its key, ``hurt_odds[attack, defence, damage, soak, floor_attacker, floor_target]``
    or ``win_odds[attack, defence]``."""

    TABLE = (0, 2, "0 none, 1 hurt_odds, 2 win_odds")
    ATTACK = (0, MAX_POOL, "the attacker's pool")
    DEFENCE = (0, MAX_POOL, "the defender's pool")
    DAMAGE = (0, MAX_POOL, "the damage pool")
    SOAK = (0, MAX_POOL, "the soak pool")
    FLOOR_ATTACKER = (0, 1, "the dealer rolls at least one damage die (a PJ)")
    FLOOR_TARGET = (0, 1, "the victim rolls at least one soak die (a PJ)")


HURT_TABLE, WIN_TABLE = 1, 2
KEY = ODDS.width()


class G(Columns):
    """``g[G.*]``: the battle's globals (``BattleState`` and ``state.data``)."""

    OUTCOME, REASON, ROUND, WIPE, ACTOR, KIND, SUSPEND, DECISIONS, DAMAGES = HEAD["G"].values()
    COUNT = (0, "faces", "the number called (DJ-05)")
    TURN = (0, BOUND, "turns taken (state.turn)")
    ATTACKER = (NONE, "combatants", "the pending attack's attacker, -1 none")
    TARGET = (0, "combatants", "its target")
    WEAPON = (0, "weapons", "its weapon")
    BAND = (0, 3, "its band (DJ-09)")
    MOVER = (NONE, "combatants", "the pending move's mover, -1 none")
    RESISTER = (NONE, "combatants", "who may resist it (DJ-10), -1 nobody")
    MOVE_VERB = (0, len(VERBS) - 1, "acercarse, alejarse or huir")
    MOVE_TO = (NONE, "zones", "the zone it leads to, -1 out of the battle (huir)")
    FROM_CONTACT = (0, 1, "it leaves contact (DJ-11 free attack)")
    DEALER = (NONE, "combatants", "who spends damage successes (DJ-17), -1 none")
    VICTIM = (0, "combatants", "whom they hurt")
    REMAINING = (0, BOUND, "successes left to spend")
    PICKED_N = (0, 4, "attributes named by a fact")
    PICKED = (0, 4, "those attributes (spend options 1..4)", 4)
    CONTINUING = (0, 2, "sides that chose to continue at the pause (DJ-07)")
    MISS = (0, MAX_POOL, "odds entries this decision found missing (ODDS rows)", MISS_SLOTS * KEY)


# -- export (plain Python, once per scenario / per state) ------------------------------
@dataclass(frozen=True, slots=True)
class DonjonExported(compiled.NamedExport):
    """A Donjon scenario in the kernel's terms, with what the export of a state and the
    read-back need: the names the kernel indexes, the dimensions its ranges name, the
    odds tables' key and why the scenario cannot be played from its start (it can still
    be resumed mid-battle)."""

    dims: dict[str, int]
    die_size: int
    all_tied: str
    fresh_start: str | None


def _best_band(weapons: tuple[Any, ...]) -> int:
    # agents/heuristics/donjon.py _best_band: max by (damage, melee), first of equals.
    best = max(weapons, key=lambda a: (a.damage, a.kind == MELEE))
    return 0 if best.kind == MELEE else 1


def export_scenario(scenario: Scenario) -> DonjonExported:
    """The bundles of a Donjon scenario (its combatants as the scenario lists them), every
    number checked against the kernel's bounds (KernelRefusal naming the field)."""
    combatants = scenario.combatants
    bf = scenario.battlefield
    opts: Any = scenario.options
    n = len(combatants)
    if scenario.victory not in ("defeat_all", "survive"):
        raise KernelRefusal(f"victory {scenario.victory!r}")
    width = max(len(c.stats.weapons_or_fists) for c in combatants)
    dims = {
        "combatants": n,
        "zones": len(bf.zone_ids),
        "weapons": width,
        "faces": opts.die_size + 1,
    }
    o = OPT.new()
    OPT.put(o, "options", die_size=opts.die_size)
    OPT.put(
        o,
        "options",
        die_bits=int(opts.die_size).bit_length(),
        tied_attacker=1 if opts.all_tied == "attacker" else 0,
        media=opts.dificultades.media,
        round_limit=scenario.round_limit,
        survive=1 if scenario.victory == "survive" else 0,
    )
    stat = ST.new(n)
    weapon = W.new(n, width)
    names: list[tuple[str, ...]] = []
    for i, c in enumerate(combatants):
        s: Any = c.stats
        h = s.skills
        arms = s.weapons_or_fists
        parry = NONE
        for w, arma in enumerate(arms):
            W.put(
                weapon[i, w],
                f"{c.id}: {arma.name}",
                kind=WEAPON_KINDS.index(arma.kind),
                damage=arma.damage,
            )
            # combat._parry_weapon: the melee weapon of highest damage, first of equals.
            if arma.kind == MELEE and (parry == NONE or arma.damage > weapon[i, parry, W.DAMAGE]):
                parry = w
        names.append(tuple(a.name for a in arms))
        for name in ATTRIBUTES:
            check_range(c.maxima[name], 0, MAX_PART, f"{c.id}: maximum {name}")
        ST.put(
            stat[i],
            c.id,
            dims,
            **compiled.stat_head(c),
            index=c.index,
            pc=1 if c.pc else 0,
            nivel=s.level,
            max_heridas=c.maxima["heridas"],
            ataque=h.ataque,
            esquivar=h.esquivar,
            movimiento=h.movimiento,
            dano=h.dano,
            resistencia=h.resistencia,
            iniciativa=h.iniciativa,
            armour=s.armour,
            sorpresa=s.sorpresa,
            weapons=len(arms),
            parry_weapon=parry,
            best_band=_best_band(arms),
        )
    penalty = np.full((len(WEAPON_KINDS), 4), NONE, dtype=np.int64)
    for k, kind in enumerate(WEAPON_KINDS):
        for band, value in enumerate(PENALTY[kind]):
            if value is not None:
                penalty[k, band] = value
    dist, step_to, away = _map(bf)
    tables = odds_tables(opts.die_size, opts.all_tied)
    static = (stat, weapon, dist, o, penalty, step_to, away, tables.hurt, tables.win)
    ids = {c.id: i for i, c in enumerate(combatants)}
    zones = dict(bf.index)
    cs, g, init = CS.new(n), G.new(), np.zeros((n, MAX_INIT), dtype=np.int64)
    fresh_start = None
    for i, c in enumerate(combatants):
        _export_combatant(static, ids, zones, dims, cs, init, i, c)
        if c.conditions:
            fresh_start = f"{c.id} starts with conditions ({', '.join(c.conditions)})"
        elif c.data.get("init") or c.data.get("bonus") or c.data.get("acted") != (0, 0):
            fresh_start = f"{c.id} starts with ráfaga data"
    G.put(g, "the start", dims, outcome=RUNNING, attacker=NONE, mover=NONE, dealer=NONE)
    return DonjonExported(
        scenario,
        static,
        (cs, g, new_damage_log(), init, *_scratch()),
        2 * n * (width + 1) + 5,
        ids,
        zones,
        tuple(names),
        dims,
        opts.die_size,
        opts.all_tied,
        fresh_start,
    )


def _map(bf: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The battlefield's ``dist``, ``step_to`` and ``away`` tables (zone indices)."""
    zones = bf.zone_ids
    nz = len(zones)
    dist = compiled.zone_hops(bf)
    step_to = compiled.zone_steps(bf)
    away = np.full((nz, nz), NONE, dtype=np.int64)
    for a, za in enumerate(zones):
        for b, zb in enumerate(zones):
            here = dist[a, b]
            for z in bf.neighbours(za):
                if bf.distance(z, zb) > here:
                    away[a, b] = bf.index[z]
                    break
    return dist, step_to, away


def _scratch() -> tuple[np.ndarray, np.ndarray]:
    """A battle's scratch arrays: the two pools of an opposed test and the misses' log."""
    return np.zeros((2, MAX_POOL), dtype=np.int64), ODDS.new(LOG_SLOTS)


def _export_combatant(
    s: tuple[np.ndarray, ...],
    ids: dict[str, int],
    zones: dict[str, int],
    dims: dict[str, int],
    cs: np.ndarray,
    init: np.ndarray,
    i: int,
    c: Any,
) -> None:
    """Row ``i`` of ``cs`` and ``init`` from an engine combatant, the playtest counters
    from its status; KernelRefusal for a value out of the kernel's range: resources
    within 0 and their maxima (the scenario's), carried dice within a pool, initiative
    numbers faces of the die (highest first, at most MAX_INIT), the conditions the
    kernel knows (without values)."""
    stat, opts = s[STAT], s[OPTS]
    head = compiled.combatant_head(ids, zones, i, c)
    cid = c.id
    r = c.resources
    maxima = c.maxima
    if set(r) != set(SPEND_OPTIONS) or set(maxima) != set(SPEND_OPTIONS):
        raise KernelRefusal(f"{cid}: resources {sorted(r)}")
    if maxima["heridas"] != stat[i, ST.MAX_HERIDAS]:
        raise KernelRefusal(f"{cid}: maximum heridas {maxima['heridas']} is not the scenario's")
    for o, name in enumerate(SPEND_OPTIONS):
        check_range(maxima[name], 0, BOUND if o == 0 else MAX_PART, f"{cid}: maximum {name}")
        check_range(r[name], 0, maxima[name], f"{cid}: {name}")
    data = c.data
    numbers = tuple(data["init"])
    check_range(len(numbers), 0, MAX_INIT, f"{cid}: initiative numbers held")
    check_range(numbers, 1, int(opts[OPT.DIE_SIZE]), f"{cid}: initiative")
    if list(numbers) != sorted(numbers, reverse=True):
        raise KernelRefusal(f"{cid}: initiative {list(numbers)} is not highest first")
    init[i, : len(numbers)] = numbers
    conds = c.conditions
    for name, cond in conds.items():
        if name not in ("inconsciente", "quebrado"):
            raise KernelRefusal(f"{cid}: condition {name!r}")
        check_range(cond.value, 0, 0, f"{cid}: {name} value")
    acted_at, times = data["acted"]
    CS.put(
        cs[i],
        cid,
        dims,
        **head,
        **r,
        bonus=data["bonus"],
        held=len(numbers),
        acted_at=acted_at,
        acted_times=times,
        inconsciente=1 if "inconsciente" in conds else 0,
        quebrado=1 if "quebrado" in conds else 0,
    )


def export_state(exported: Exported, state: BattleState) -> tuple[np.ndarray, ...]:
    """The dynamic bundle of an engine state waiting on a decision, every value checked
    against the range the kernel indexes: combatants' rows (:func:`_export_combatant`),
    the round within the round limit, the count a face of the die, the pending decision's
    actor and what it waits on (combatants, a weapon of the attacker, a band, a zone, at
    most four attributes named by a fact); a turn's actor holds the number called."""
    exported = as_exported(exported)
    s = exported.static
    n = compiled.resumable(exported, state, int(s[OPTS][OPT.ROUND_LIMIT]))
    dims = exported.dims
    index = exported.ids
    cs, g, init = CS.new(n), G.new(), np.zeros((n, MAX_INIT), dtype=np.int64)
    for i, c in enumerate(state.combatants):
        _export_combatant(s, index, exported.zones, dims, cs, init, i, c)
    data = state.data
    pending = state.pending
    assert pending is not None  # resumable refuses a state waiting on nothing
    if pending.name not in PENDING_NAMES[1:]:
        raise KernelRefusal(f"pending decision {pending.name!r}")
    actor = index[pending.actor]
    kind = PENDING_NAMES.index(pending.name)
    G.put(
        g,
        "the state",
        dims,
        outcome=RUNNING,
        round=state.round,
        count=data.get("count", 0),
        turn=state.turn,
        kind=kind,
        actor=actor,
        attacker=NONE,
        mover=NONE,
        dealer=NONE,
    )
    compiled.check_pending_side(exported, pending)
    if kind == KIND_TURN and g[G.COUNT] not in init[actor, : cs[actor, CS.HELD]]:
        raise KernelRefusal(f"{pending.actor} does not hold the number called")
    attack = data.get("attack")
    if attack is not None:
        attacker = index[attack.attacker]
        G.put(
            g,
            "the pending attack",
            dims,
            attacker=attacker,
            target=index[attack.target],
            weapon=exported.weapon_names[attacker].index(attack.weapon),
            band=attack.band,
        )
    move = data.get("move")
    if move is not None:
        if move.verb not in ("acercarse", "alejarse", "huir"):
            raise KernelRefusal(f"a move by {move.verb!r}")
        G.put(
            g,
            "the pending move",
            dims,
            mover=index[move.mover],
            resister=index[move.resister] if move.resister else NONE,
            move_verb=VERBS.index(move.verb),
            move_to=exported.zones[move.to_zone] if move.to_zone else NONE,
            from_contact=1 if move.from_contact else 0,
        )
    spend = data.get("spend")
    if spend is not None:
        # G.PICKED holds the four attributes, each named at most once.
        picked = tuple(spend.picked)
        if len(set(picked)) != len(picked) or not set(picked) <= set(SPEND_OPTIONS[1:]):
            raise KernelRefusal(f"attributes named by a fact: {list(picked)}")
        G.put(
            g,
            "the pending spend",
            dims,
            dealer=index[spend.dealer],
            victim=index[spend.victim],
            remaining=spend.remaining,
            picked_n=len(picked),
            picked=[SPEND_OPTIONS.index(name) for name in picked],
        )
    continuing = tuple(data.get("continuing", ()))
    if not set(continuing) <= {"heroes", "enemies"} or len(set(continuing)) != len(continuing):
        raise KernelRefusal(f"continuing {list(continuing)}")
    g[G.CONTINUING] = len(continuing)
    # Who decides a reaction or a spending is the one it waits on.
    needs = {
        KIND_DEFENSA: (attack, G.TARGET),
        KIND_RESISTIR: (move, G.RESISTER),
        KIND_REPARTIR: (spend, G.DEALER),
    }
    if kind in needs:
        waits, who = needs[kind]
        if waits is None or g[who] != actor:
            raise KernelRefusal(
                f"pending {pending.name!r} of {pending.actor}: not what the state waits on"
            )
    return (cs, g, new_damage_log(), init, *_scratch())


def action_row(exported: Exported, state: BattleState, action: Action) -> list[int]:
    """The legal-list row of an engine action."""
    exported = as_exported(exported)
    option = compiled.name_code(SPEND_OPTIONS, action.option, action, "option")
    return compiled.named_action_row(exported, action, VERBS, option, NEEDS)


def as_exported(exported: Exported) -> DonjonExported:
    """``exported`` as this kernel made it (with the names it indexes)."""
    return compiled.exported_as(exported, DonjonExported)


#: A final ``cs`` row's conditions as sorted (name, value) pairs, by the mask of its
#: columns inconsciente (bit 0) and quebrado (bit 1).
_CONDITIONS = compiled.flag_conditions(("inconsciente", "quebrado"))


def conditions(row: Sequence[int]) -> tuple[tuple[str, int], ...]:
    """A final ``cs`` row's conditions as sorted ``(name, value)`` pairs."""
    return _CONDITIONS[row[CS.INCONSCIENTE] | row[CS.QUEBRADO] << 1]


# -- odds tables -----------------------------------------------------------------------
class OddsTables:
    """The engine's exact odds as the heuristics ask for them, filled on demand.

    ``hurt[a, d, dmg, soak, fa, ft]`` = ``exact.hurt_probability(a, d, dmg, soak, die,
    tied, fa, ft)`` and ``win[a, d]`` = ``exact.win_probability(a, d, die, tied)``: the
    very floats the engine's heuristic compares (NaN = not asked yet). One per die and
    tie rule, shared by every scenario of the process (:func:`odds_tables`); a table
    that grows is a new array, which the scenarios' static bundles then take up.
    """

    def __init__(self, die_size: int, all_tied: str) -> None:
        self.die_size = die_size
        self.all_tied = all_tied
        self.hurt = np.full((24, 20, 24, 20, 2, 2), np.nan)
        self.win = np.full((40, 40), np.nan)
        #: Entries computed so far (a replay that fills none makes no progress).
        self.filled = 0
        self._lock = threading.Lock()

    def fill(self, key: Sequence[int]) -> bool:
        """Compute the entry of an ``ODDS`` row unless it is there; whether it was new."""
        table, a, d, dmg, soak, fa, ft = (int(x) for x in key)
        with self._lock:
            if table == HURT_TABLE:
                at: tuple[int, ...] = (a, d, dmg, soak, fa, ft)
                self.hurt = _grown(self.hurt, at)
                if not math.isnan(self.hurt[at]):
                    return False
                self.hurt[at] = hurt_probability(
                    a, d, dmg, soak, self.die_size, self.all_tied, fa, ft
                )
            elif table == WIN_TABLE:
                self.win = _grown(self.win, (a, d))
                if not math.isnan(self.win[a, d]):
                    return False
                self.win[a, d] = win_probability(a, d, self.die_size, self.all_tied)
            else:
                raise ValueError(f"not an odds entry: table {table}")
            self.filled += 1
        return True


def _grown(table: np.ndarray, key: tuple[int, ...]) -> np.ndarray:
    """``table``, or a copy grown (each dimension doubled past ``key``) to hold it."""
    shape = tuple(
        max(s, k + 1 if k + 1 <= s else 2 * (k + 1)) for s, k in zip(table.shape, key, strict=True)
    )
    if shape == table.shape:
        return table
    if math.prod(shape) > MAX_TABLE:
        raise KernelRefusal(f"an odds table of {shape} entries (the kernel holds {MAX_TABLE})")
    out = np.full(shape, np.nan)
    out[tuple(slice(0, s) for s in table.shape)] = table
    return out


_TABLES: dict[tuple[int, str], OddsTables] = {}


def odds_tables(die_size: int, all_tied: str) -> OddsTables:
    """The process's odds tables for a die and a tie rule (shared by every scenario)."""
    found = _TABLES.get((die_size, all_tied))
    if found is None:
        found = _TABLES[(die_size, all_tied)] = OddsTables(die_size, all_tied)
    return found


def entries_filled() -> int:
    """Odds entries the process's tables computed so far."""
    return sum(tables.filled for tables in list(_TABLES.values()))


@njit(cache=True, _nrt=False)
def keep_key(
    row: np.ndarray, at: int, table: int, a: int, b: int, dmg: int, soak: int, fa: int, ft: int
) -> bool:
    """Write an odds key into ``row[at : at + KEY]`` (``ODDS``) if that slot is free or
    holds it already; whether it did."""
    if row[at + ODDS.TABLE] != 0 and not (
        row[at + ODDS.TABLE] == table
        and row[at + ODDS.ATTACK] == a
        and row[at + ODDS.DEFENCE] == b
        and row[at + ODDS.DAMAGE] == dmg
        and row[at + ODDS.SOAK] == soak
        and row[at + ODDS.FLOOR_ATTACKER] == fa
        and row[at + ODDS.FLOOR_TARGET] == ft
    ):
        return False
    row[at + ODDS.TABLE] = table
    row[at + ODDS.ATTACK] = a
    row[at + ODDS.DEFENCE] = b
    row[at + ODDS.DAMAGE] = dmg
    row[at + ODDS.SOAK] = soak
    row[at + ODDS.FLOOR_ATTACKER] = fa
    row[at + ODDS.FLOOR_TARGET] = ft
    return True


@njit(cache=True, _nrt=False)
def record_miss(
    g: np.ndarray,
    misses: np.ndarray,
    table: int,
    a: int,
    b: int,
    dmg: int,
    soak: int,
    fa: int,
    ft: int,
) -> None:
    """Suspend for a missing odds entry: its key into ``g[G.MISS]`` (for the battle's
    driver) and into the ``misses`` log (for a batch of rollouts), each once."""
    if g[G.SUSPEND] != SUSPEND_OVERFLOW:
        g[G.SUSPEND] = SUSPEND_ODDS
    for slot in range(MISS_SLOTS):
        if keep_key(g, G.MISS + slot * KEY, table, a, b, dmg, soak, fa, ft):
            break
    for k in range(misses.shape[0]):
        if keep_key(misses[k], 0, table, a, b, dmg, soak, fa, ft):
            break


@njit(cache=True, _nrt=False, inline="always")
def overflow(g: np.ndarray) -> None:
    """Suspend for a number beyond the kernel's arrays (the driver refuses the battle)."""
    g[G.SUSPEND] = SUSPEND_OVERFLOW


@njit(cache=True, _nrt=False)
def lookup_hurt(
    hurt: np.ndarray,
    g: np.ndarray,
    misses: np.ndarray,
    a: int,
    b: int,
    dmg: int,
    soak: int,
    fa: int,
    ft: int,
) -> float:
    """``exact.hurt_probability`` from the table ``hurt``, or a recorded miss (returns
    0.0); a key outside 0…MAX_POOL (a pool the kernel cannot roll) is an overflow
    instead."""
    shape = hurt.shape
    if 0 <= a < shape[0] and 0 <= b < shape[1] and 0 <= dmg < shape[2] and 0 <= soak < shape[3]:
        v = hurt[a, b, dmg, soak, fa, ft]
        if not math.isnan(v):
            return v
    if min(a, b, dmg, soak) < 0 or max(a, b, dmg, soak) > MAX_POOL:
        overflow(g)
    else:
        record_miss(g, misses, HURT_TABLE, a, b, dmg, soak, fa, ft)
    return 0.0


@njit(cache=True, _nrt=False)
def lookup_win(win: np.ndarray, g: np.ndarray, misses: np.ndarray, a: int, b: int) -> float:
    """``exact.win_probability`` from the table ``win``, or a recorded miss (returns
    0.0); a key outside 0…MAX_POOL is an overflow instead."""
    if 0 <= a < win.shape[0] and 0 <= b < win.shape[1]:
        v = win[a, b]
        if not math.isnan(v):
            return v
    if min(a, b) < 0 or max(a, b) > MAX_POOL:
        overflow(g)
    else:
        record_miss(g, misses, WIN_TABLE, a, b, 0, 0, 0, 0)
    return 0.0


# -- pools (combat.py) -------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def attack_pool(
    stat: np.ndarray,
    weapon: np.ndarray,
    penalty: np.ndarray,
    cs: np.ndarray,
    c: int,
    w: int,
    band: int,
) -> int:
    """DJ-13: Celeridad + ataque − the DJ-12 penalty; UNREACHABLE (the engine's None)
    where the weapon cannot attack."""
    p = penalty[weapon[c, w, W.KIND], band]
    if p < 0:
        return UNREACHABLE
    return cs[c, CS.CELERIDAD] + stat[c, ST.ATAQUE] - p


@njit(cache=True, _nrt=False, inline="always")
def parry_pool(stat: np.ndarray, cs: np.ndarray, c: int) -> int:
    """DJ-14: Celeridad + ataque."""
    return cs[c, CS.CELERIDAD] + stat[c, ST.ATAQUE]


@njit(cache=True, _nrt=False, inline="always")
def dodge_pool(stat: np.ndarray, cs: np.ndarray, c: int) -> int:
    """DJ-15: Celeridad + esquivar."""
    return cs[c, CS.CELERIDAD] + stat[c, ST.ESQUIVAR]


@njit(cache=True, _nrt=False, inline="always")
def move_pool(stat: np.ndarray, cs: np.ndarray, c: int) -> int:
    """DJ-10: Celeridad + movimiento."""
    return cs[c, CS.CELERIDAD] + stat[c, ST.MOVIMIENTO]


@njit(cache=True, _nrt=False, inline="always")
def damage_pool(stat: np.ndarray, weapon: np.ndarray, cs: np.ndarray, c: int, w: int) -> int:
    """DJ-16: Virilidad + the weapon's Nivel de Daño + the damage ability."""
    return cs[c, CS.VIRILIDAD] + weapon[c, w, W.DAMAGE] + stat[c, ST.DANO]


@njit(cache=True, _nrt=False, inline="always")
def soak_pool(stat: np.ndarray, cs: np.ndarray, c: int) -> int:
    """DJ-16: Aguante + armadura + resistencia."""
    return cs[c, CS.AGUANTE] + stat[c, ST.ARMOUR] + stat[c, ST.RESISTENCIA]


@njit(cache=True, _nrt=False)
def free_attack_weapon(
    stat: np.ndarray,
    weapon: np.ndarray,
    penalty: np.ndarray,
    cs: np.ndarray,
    c: int,
    successes: int,
) -> int:
    """``combat.free_attack_weapon`` *(default)* DJ-11: of the weapons whose pool at contact
    + the movement successes is at least one die, most attack + damage dice; NONE if none."""
    best = NONE
    best_dice = 0
    for w in range(stat[c, ST.WEAPONS]):
        pool = attack_pool(stat, weapon, penalty, cs, c, w, 0)
        if pool == UNREACHABLE or pool + successes < 1:
            continue
        dice = pool + damage_pool(stat, weapon, cs, c, w)
        if best == NONE or dice > best_dice:
            best = w
            best_dice = dice
    return best


@njit(cache=True, _nrt=False, inline="always")
def band_of(hops: int) -> int:
    """DJ-09: hops → en contacto 0, a una acción 1, a dos acciones 2, fuera del alcance 3."""
    return hops if hops < 3 else 3


@njit(cache=True, _nrt=False, inline="always")
def can_react(cs: np.ndarray, c: int) -> bool:
    """Active and holding an initiative number to cross off (DJ-10, DJ-14)."""
    return cs[c, CS.STATUS] == ACTIVE and cs[c, CS.HELD] > 0


# -- dice (DJ-01) --------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def roll_die(dice: np.ndarray, sides: int, bits: int) -> int:
    """``RandomRoller.roll(sides)``: ``mt.roll`` with ``sides.bit_length()`` worked out once
    (``getrandbits(k)`` for k ≤ 32 is one word's top k bits; the same rejection loop)."""
    shift = np.uint32(32 - bits)
    r = mt.genrand_uint32(dice) >> shift
    while r >= sides:
        r = mt.genrand_uint32(dice) >> shift
    return np.int64(r) + 1


@njit(cache=True, _nrt=False, inline="always")
def roll_pool(
    opts: np.ndarray, g: np.ndarray, pools: np.ndarray, dice: np.ndarray, row: int, count: int
) -> int:
    """``roll_pool``: ``count`` dice into ``pools[row]`` sorted highest first; returns the
    count (a pool beyond MAX_POOL dice is an overflow)."""
    if count > MAX_POOL:
        overflow(g)
        count = MAX_POOL
    sides = opts[OPT.DIE_SIZE]
    bits = opts[OPT.DIE_BITS]
    for k in range(count):
        x = roll_die(dice, sides, bits)
        j = k
        while j > 0 and pools[row, j - 1] < x:
            pools[row, j] = pools[row, j - 1]
            j -= 1
        pools[row, j] = x
    return count


@njit(cache=True, _nrt=False, inline="always")
def successes(pools: np.ndarray, w: int, n_winner: int, n_loser: int, i: int) -> int:
    """``exact.opposed_sorted``'s successes of the winner (row ``w`` of ``pools``, both
    pools highest first, equal up to ``i``): the pairs set aside, then its dice above
    the loser's die at ``i`` (above 0 past the loser's dice)."""
    top = pools[1 - w, i] if i < n_loser else 0
    n = i
    for k in range(i, n_winner):
        if pools[w, k] <= top:
            break
        n += 1
    return n


@njit(cache=True, _nrt=False)
def opposed(
    opts: np.ndarray, g: np.ndarray, pools: np.ndarray, dice: np.ndarray, a_dice: int, d_dice: int
) -> tuple[int, int]:
    """``Donjon._opposed`` + ``exact.opposed_sorted`` (DJ-01), the attacker's pool rolled
    first: (winner — 0 the attacker, 1 the defender —, successes)."""
    la = roll_pool(opts, g, pools, dice, 0, max(0, a_dice))
    ld = roll_pool(opts, g, pools, dice, 1, max(0, d_dice))
    i = 0
    while i < la and i < ld and pools[0, i] == pools[1, i]:
        i += 1
    if i < la and (i >= ld or pools[0, i] > pools[1, i]):
        return 0, successes(pools, 0, la, ld, i)
    if i < ld:
        return 1, successes(pools, 1, ld, la, i)
    # Every die tied: the all_tied option's side wins with nothing to spend.
    return (0 if opts[OPT.TIED_ATTACKER] == 1 else 1), 0


# -- the shared mechanics (rules.core.mechanics) ---------------------------------------------
_mechanics = compile_mechanics(__name__, ST=ST, CS=CS, G=G, OPT=OPT)
set_status, finish, deal = _mechanics.set_status, _mechanics.finish, _mechanics.deal
begin_round, check_end = _mechanics.begin_round, _mechanics.check_end
side_out = _mechanics.side_out


# -- ráfaga (DJ-04..07) ------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def roll_initiative(
    stat: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    init: np.ndarray,
    pools: np.ndarray,
    dice: np.ndarray,
    c: int,
    first: bool,
) -> None:
    """DJ-04: Nivel + Discernimiento dice; sorpresa (first ráfaga) and an initiative
    ability's unopposed Media test (DJ-02) add bonus dice."""
    bonus = 0
    if first and stat[c, ST.SORPRESA] > 0:
        bonus += stat[c, ST.SORPRESA]
    skill = stat[c, ST.INICIATIVA]
    if skill > 0:
        who, n = opposed(opts, g, pools, dice, skill + cs[c, CS.CELERIDAD], opts[OPT.MEDIA])
        if who == 0:
            bonus += n
    pool = stat[c, ST.NIVEL] + cs[c, CS.DISCERNIMIENTO] + bonus
    if pool > MAX_INIT:
        overflow(g)
        return
    held = roll_pool(opts, g, pools, dice, 0, pool)
    for k in range(held):
        init[c, k] = pools[0, k]
    cs[c, CS.HELD] = held


@njit(cache=True, _nrt=False)
def new_rafaga(
    stat: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    init: np.ndarray,
    pools: np.ndarray,
    dice: np.ndarray,
) -> None:
    """``Donjon._new_rafaga``: a new round, everyone's initiative, the count from the top."""
    begin_round(stat, opts, cs, g)
    if g[G.OUTCOME] != RUNNING:
        return
    first = g[G.ROUND] == 1
    for c in range(cs.shape[0]):
        cs[c, CS.ACTED_AT] = 0
        cs[c, CS.ACTED_TIMES] = 0
        if cs[c, CS.STATUS] != ACTIVE:
            cs[c, CS.HELD] = 0
            continue
        roll_initiative(stat, opts, cs, g, init, pools, dice, c, first)
        if g[G.SUSPEND] != 0:
            return
    g[G.TURN] = 0
    g[G.COUNT] = opts[OPT.DIE_SIZE]
    advance(stat, cs, g, init)


@njit(cache=True, _nrt=False)
def advance(stat: np.ndarray, cs: np.ndarray, g: np.ndarray, init: np.ndarray) -> None:
    """``Donjon._advance`` (DJ-05, DJ-06): the highest number held at or below the count;
    among its holders fewest actions on it first, then PJ before PNJ, then table order."""
    current = g[G.COUNT]
    count = 0
    best = NONE
    k0 = 0
    k1 = 0
    k2 = 0
    for c in range(cs.shape[0]):
        if cs[c, CS.STATUS] != ACTIVE:
            continue
        top = 0
        for k in range(cs[c, CS.HELD]):
            x = init[c, k]
            if top < x <= current:
                top = x
        if top == 0 or top < count:
            continue
        t0 = cs[c, CS.ACTED_TIMES] if cs[c, CS.ACTED_AT] == top else 0
        t1 = 0 if stat[c, ST.PC] == 1 else 1
        t2 = stat[c, ST.INDEX]
        if top > count or t0 < k0 or (t0 == k0 and (t1 < k1 or (t1 == k1 and t2 < k2))):
            count = top
            best = c
            k0 = t0
            k1 = t1
            k2 = t2
    if best != NONE:
        g[G.COUNT] = count
        g[G.KIND] = KIND_TURN
        g[G.ACTOR] = best
        return
    g[G.COUNT] = 0
    g[G.CONTINUING] = 0
    ask_continue(stat, cs, g, HEROES)


@njit(cache=True, _nrt=False)
def ask_continue(stat: np.ndarray, cs: np.ndarray, g: np.ndarray, side: int) -> None:
    """``Donjon._ask_continue`` (DJ-07): the side's first active combatant decides."""
    for c in range(cs.shape[0]):
        if stat[c, ST.SIDE] == side and cs[c, CS.STATUS] == ACTIVE:
            g[G.KIND] = KIND_CONTINUAR
            g[G.ACTOR] = c
            return
    overflow(g)  # the engine raises IndexError here: not a battle to copy


@njit(cache=True, _nrt=False)
def after(stat: np.ndarray, cs: np.ndarray, g: np.ndarray, init: np.ndarray) -> None:
    """``Donjon._after``: end the battle if a side is out, else call the next number."""
    g[G.ATTACKER] = NONE
    g[G.MOVER] = NONE
    g[G.DEALER] = NONE
    check_end(stat, cs, g)
    if g[G.OUTCOME] == RUNNING:
        advance(stat, cs, g, init)


# -- legal actions ---------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def turn_actions(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    penalty: np.ndarray,
    away: np.ndarray,
    cs: np.ndarray,
    la: np.ndarray,
    a: int,
) -> int:
    """``Donjon._turn_actions``: attacks (DJ-12: in reach and at least one die left after
    the penalty) on each active foe, finishing blows on each unconscious one (in reach),
    weapons in sheet order; steps closer (not yet in contact) and steps away (a step
    away exists, within range) for each active foe (DJ-10), in table order; huir from
    a dos acciones or more; esperar."""
    side = stat[a, ST.SIDE]
    za = cs[a, CS.ZONE]
    dice = cs[a, CS.CELERIDAD] + stat[a, ST.ATAQUE] + cs[a, CS.BONUS]
    k = 0
    for verb in (ATACAR, REMATAR):
        wanted = ACTIVE if verb == ATACAR else DOWN
        for o in range(cs.shape[0]):
            if stat[o, ST.SIDE] == side or cs[o, CS.STATUS] != wanted:
                continue
            band = band_of(dist[za, cs[o, CS.ZONE]])
            for w in range(stat[a, ST.WEAPONS]):
                p = penalty[weapon[a, w, W.KIND], band]
                if p >= 0 and (verb == REMATAR or dice - p >= 1):
                    k = push(la, k, verb, o, NONE, w, NONE)
    nearest = 3
    for verb in (ACERCARSE, ALEJARSE):
        for o in range(cs.shape[0]):
            if stat[o, ST.SIDE] == side or cs[o, CS.STATUS] != ACTIVE:
                continue
            zo = cs[o, CS.ZONE]
            nearest = min(nearest, band_of(dist[za, zo]))
            if verb == ACERCARSE:
                if dist[za, zo] > 0:
                    k = push(la, k, verb, o, NONE, NONE, NONE)
            elif band_of(dist[za, zo]) < 3 and away[za, zo] != NONE:
                k = push(la, k, verb, o, NONE, NONE, NONE)
    if nearest >= 2:
        k = push(la, k, HUIR, NONE, NONE, NONE, NONE)
    return push(la, k, ESPERAR, NONE, NONE, NONE, NONE)


@njit(cache=True, _nrt=False, inline="always")
def picked(g: np.ndarray, option: int) -> bool:
    """The attribute ``option`` was already named by a fact this spending (DJ-17)."""
    for j in range(g[G.PICKED_N]):
        if g[G.PICKED + j] == option:
            return True
    return False


@njit(cache=True, _nrt=False)
def spend_options(cs: np.ndarray, g: np.ndarray, la: np.ndarray) -> int:
    """``Donjon._spend_options`` (DJ-17): Heridas while any, an attribute above 0 (its
    first success a fact unless the victim is at 0 Heridas)."""
    victim = g[G.VICTIM]
    k = 0
    heridas = cs[victim, CS.HERIDAS]
    if heridas > 0:
        k = push(la, k, REPARTIR, NONE, NONE, NONE, 0)
    for o in range(1, 5):
        if cs[victim, CS.HERIDAS + o] <= 0:
            continue
        if heridas > 0 and not picked(g, o) and g[G.REMAINING] < 2:
            continue
        k = push(la, k, REPARTIR, NONE, NONE, NONE, o)
    return k


@njit(cache=True, _nrt=False, inline="always")
def legal(s: tuple, d: tuple, la: np.ndarray) -> int:
    """``Donjon.legal_actions``, in the engine's order, into ``la``; returns how many."""
    cs, g = d[STATE], d[GLOBALS]
    kind = g[G.KIND]
    if kind == KIND_TURN:
        return turn_actions(s[STAT], s[WEAPON], s[DIST], s[PENALTIES], s[AWAY], cs, la, g[G.ACTOR])
    if kind == KIND_REPARTIR:
        return spend_options(cs, g, la)
    if kind == KIND_DEFENSA:
        push(la, 0, PARAR, NONE, NONE, NONE, NONE)
        return push(la, 1, ESQUIVAR, NONE, NONE, NONE, NONE)
    if kind == KIND_RESISTIR:
        push(la, 0, RESISTIR, NONE, NONE, NONE, NONE)
        return push(la, 1, DEJAR, NONE, NONE, NONE, NONE)
    push(la, 0, CONTINUAR, NONE, NONE, NONE, NONE)
    return push(la, 1, RETIRARSE, NONE, NONE, NONE, NONE)


# -- apply ---------------------------------------------------------------------------------------
#: :func:`apply_turn`'s answer when the action waits for a reaction (defensa, resistir).
ASKED = -1


@njit(cache=True, _nrt=False, inline="always")
def apply(s: tuple, d: tuple, row: np.ndarray, dice: np.ndarray) -> None:
    """``Donjon.apply``: the action ``row`` of the pending decision, up to the next
    decision or the end.

    In the engine the rules go on into one another: ``_declare_attack`` resolves an
    attack nobody can parry, ``_declare_move`` a move nobody can resist, and an action
    that is over calls ``_after``. Here each rule returns what comes next and this
    function carries it on, so that each step below is inlined once into the loop: a
    turn's attack or move that nobody reacts to is resolved as its unanswered reaction."""
    stat, opts = s[STAT], s[OPTS]
    cs, g, init, pools = d[STATE], d[GLOBALS], d[INIT], d[POOLS]
    kind = g[G.KIND]
    verb = row[LA.VERB]
    if kind == KIND_TURN:
        kind = apply_turn(s, d, verb, row[LA.TARGET], row[LA.ITEM])
        verb = NONE
    if kind == KIND_DEFENSA:
        closed = resolve_attack(s, d, dice, verb == PARAR)
    elif kind == KIND_RESISTIR:
        closed = resolve_move(s, d, dice, verb == RESISTIR)
    elif kind == KIND_REPARTIR:
        closed = apply_spend(s, d, row[LA.OPTION])
    elif kind == KIND_CONTINUAR:
        apply_continue(stat, opts, cs, g, init, pools, dice, verb == CONTINUAR)
        closed = False
    else:
        closed = kind == KIND_NONE
    if closed:
        after(stat, cs, g, init)


@njit(cache=True, _nrt=False, inline="always")
def apply_turn(s: tuple, d: tuple, verb: int, target: int, item: int) -> int:
    """``Donjon._apply_turn``: spend the number called (DJ-05), then act. Returns what
    :func:`apply` goes on to: a reaction to resolve unanswered (``KIND_DEFENSA``,
    ``KIND_RESISTIR``), :data:`ASKED`, or ``KIND_NONE`` (the action is over)."""
    stat = s[STAT]
    cs, g, init = d[STATE], d[GLOBALS], d[INIT]
    actor = g[G.ACTOR]
    count = g[G.COUNT]
    n = cs[actor, CS.HELD]
    i = 0
    while i < n and init[actor, i] != count:
        i += 1
    for k in range(i, n - 1):
        init[actor, k] = init[actor, k + 1]
    cs[actor, CS.HELD] = n - 1
    if cs[actor, CS.ACTED_AT] == count:
        cs[actor, CS.ACTED_TIMES] += 1
    else:
        cs[actor, CS.ACTED_AT] = count
        cs[actor, CS.ACTED_TIMES] = 1
    g[G.TURN] += 1
    if verb == ATACAR:
        return declare_attack(stat, s[WEAPON], s[DIST], cs, g, actor, target, item)
    if verb == ACERCARSE or verb == ALEJARSE or verb == HUIR:
        return declare_move(stat, s[DIST], s[STEP_TO], s[AWAY], cs, g, actor, verb, target)
    if verb == REMATAR:
        # DJ-18: "Solo toma un ataque, que no requiere de Prueba alguna, para matar al PNJ".
        set_status(stat, cs, g, target, DEAD)
    return KIND_NONE


@njit(cache=True, _nrt=False)
def declare_attack(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    actor: int,
    target: int,
    w: int,
) -> int:
    """``Donjon._declare_attack``: a melee attack on a foe who can parry waits for its
    defensa (DJ-14, :data:`ASKED`); anything else is resolved against a dodge (DJ-15,
    ``KIND_DEFENSA`` unanswered)."""
    g[G.ATTACKER] = actor
    g[G.TARGET] = target
    g[G.WEAPON] = w
    g[G.BAND] = band_of(dist[cs[actor, CS.ZONE], cs[target, CS.ZONE]])
    if (
        weapon[actor, w, W.KIND] == MELEE_KIND
        and can_react(cs, target)
        and stat[target, ST.PARRY_WEAPON] != NONE
    ):
        g[G.KIND] = KIND_DEFENSA
        g[G.ACTOR] = target
        return ASKED
    return KIND_DEFENSA


@njit(cache=True, _nrt=False, inline="always")
def cross_off(cs: np.ndarray, init: np.ndarray, c: int) -> None:
    """DJ-10/DJ-14: cross off the next initiative number."""
    n = cs[c, CS.HELD]
    for k in range(n - 1):
        init[c, k] = init[c, k + 1]
    cs[c, CS.HELD] = n - 1


@njit(cache=True, _nrt=False, inline="always")
def resolve_attack(s: tuple, d: tuple, dice: np.ndarray, parry: bool) -> bool:
    """``Donjon._resolve_attack``: the Prueba de Ataque (DJ-13) against a parry (DJ-14,
    the winner damages the loser) or a dodge (DJ-15, its successes lost). Whether the
    action is over (no spending of damage waits)."""
    stat, weapon, opts = s[STAT], s[WEAPON], s[OPTS]
    cs, g, init, pools = d[STATE], d[GLOBALS], d[INIT], d[POOLS]
    actor = g[G.ATTACKER]
    target = g[G.TARGET]
    w = g[G.WEAPON]
    if parry:
        cross_off(cs, init, target)
    pool = attack_pool(stat, weapon, s[PENALTIES], cs, actor, w, g[G.BAND])
    if pool == UNREACHABLE:
        pool = 0
    bonus = cs[actor, CS.BONUS]
    cs[actor, CS.BONUS] = 0
    defence = parry_pool(stat, cs, target) if parry else dodge_pool(stat, cs, target)
    who, n = opposed(opts, g, pools, dice, pool + bonus, defence)
    if who == 0:
        damage(stat, weapon, opts, cs, g, pools, dice, actor, target, w, n)
    elif parry:
        parried = stat[target, ST.PARRY_WEAPON]
        damage(stat, weapon, opts, cs, g, pools, dice, target, actor, parried, n)
    return g[G.DEALER] == NONE


@njit(cache=True, _nrt=False)
def damage(
    stat: np.ndarray,
    weapon: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    pools: np.ndarray,
    dice: np.ndarray,
    dealer: int,
    victim: int,
    w: int,
    carried: int,
) -> None:
    """``Donjon._damage`` (DJ-16, DJ-03 carried successes, DJ-19 floor and breaking)."""
    floor_d = 1 if stat[dealer, ST.PC] == 1 else 0
    floor_v = 1 if stat[victim, ST.PC] == 1 else 0
    pool = max(0, floor_d, damage_pool(stat, weapon, cs, dealer, w) + carried)
    soak = max(0, floor_v, soak_pool(stat, cs, victim))
    at_zero = cs[victim, CS.HERIDAS] == 0
    who, n = opposed(opts, g, pools, dice, pool, soak)
    if who != 0 or n == 0:
        return
    if stat[victim, ST.PC] == 1 and stat[dealer, ST.PC] == 0 and at_zero and n == pool:
        # DJ-19: every one of a PNJ's damage dice an éxito breaks a PJ already at 0.
        cs[victim, CS.QUEBRADO] = 1
        set_status(stat, cs, g, victim, DOWN)
        return
    g[G.DEALER] = dealer
    g[G.VICTIM] = victim
    g[G.REMAINING] = n
    g[G.PICKED_N] = 0
    next_spend(cs, g)


@njit(cache=True, _nrt=False)
def next_spend(cs: np.ndarray, g: np.ndarray) -> None:
    """``Donjon._next_spend``: ask for the next success or close the spending (at 0
    Heridas no attribute needs a fact: any attribute above 0 is an option)."""
    victim = g[G.VICTIM]
    if g[G.REMAINING] > 0 and cs[victim, CS.STATUS] == ACTIVE:
        for o in range(5):
            if cs[victim, CS.HERIDAS + o] > 0:
                g[G.KIND] = KIND_REPARTIR
                g[G.ACTOR] = g[G.DEALER]
                return
    g[G.DEALER] = NONE


@njit(cache=True, _nrt=False, inline="always")
def apply_spend(s: tuple, d: tuple, option: int) -> bool:
    """``Donjon._apply_spend`` (DJ-17, DJ-18): one success on Heridas, a fact, or a point
    off an attribute; each point taken is a ``Damaged`` event (:func:`deal`). Whether
    the action is over (the spending closed)."""
    stat = s[STAT]
    cs, g, log = d[STATE], d[GLOBALS], d[LOG]
    dealer = g[G.DEALER]
    victim = g[G.VICTIM]
    g[G.REMAINING] -= 1
    if option == 0:
        cs[victim, CS.HERIDAS] -= 1
        deal(stat, cs, g, log, victim, SPEND_RESOURCE[option], 1, dealer)
        if cs[victim, CS.HERIDAS] == 0 and stat[victim, ST.PC] == 0:
            cs[victim, CS.INCONSCIENTE] = 1
            set_status(stat, cs, g, victim, DOWN)
    elif cs[victim, CS.HERIDAS] > 0 and not picked(g, option):
        g[G.PICKED + g[G.PICKED_N]] = option
        g[G.PICKED_N] += 1
    else:
        cs[victim, CS.HERIDAS + option] -= 1
        deal(stat, cs, g, log, victim, SPEND_RESOURCE[option], 1, dealer)
    next_spend(cs, g)
    return g[G.DEALER] == NONE


@njit(cache=True, _nrt=False)
def declare_move(
    stat: np.ndarray,
    dist: np.ndarray,
    step_to: np.ndarray,
    away: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    actor: int,
    verb: int,
    target: int,
) -> int:
    """``Donjon._declare_move`` (DJ-10, DJ-11): the opponent who may resist is asked
    (:data:`ASKED`); with nobody, the move is resolved (``KIND_RESISTIR`` unanswered)."""
    za = cs[actor, CS.ZONE]
    resister = NONE
    from_contact = 0
    to_zone = NONE
    if verb == HUIR:
        # *(default)* the nearest opponent who can still react may pursue.
        best_d = 0
        for o in range(cs.shape[0]):
            if stat[o, ST.SIDE] == stat[actor, ST.SIDE] or not can_react(cs, o):
                continue
            hops = dist[za, cs[o, CS.ZONE]]
            if resister == NONE or hops < best_d:
                resister = o
                best_d = hops
    else:
        zo = cs[target, CS.ZONE]
        to_zone = step_to[za, zo] if verb == ACERCARSE else away[za, zo]
        if can_react(cs, target):
            resister = target
        from_contact = 1 if verb == ALEJARSE and za == zo else 0
    g[G.MOVER] = actor
    g[G.RESISTER] = resister
    g[G.MOVE_VERB] = verb
    g[G.MOVE_TO] = to_zone
    g[G.FROM_CONTACT] = from_contact
    if resister != NONE:
        g[G.KIND] = KIND_RESISTIR
        g[G.ACTOR] = resister
        return ASKED
    return KIND_RESISTIR


@njit(cache=True, _nrt=False, inline="always")
def resolve_move(s: tuple, d: tuple, dice: np.ndarray, resist: bool) -> bool:
    """``Donjon._resolve_move``: a resisted move is a movement test (DJ-10); a failed
    escape from contact gives a free attack (DJ-11); won successes carry to the next test.
    Whether the action is over: a move carried out is; a stopped one unless its free
    attack's damage waits to be spent."""
    stat = s[STAT]
    cs, g, init, pools = d[STATE], d[GLOBALS], d[INIT], d[POOLS]
    mover = g[G.MOVER]
    moved = True
    if resist:
        resister = g[G.RESISTER]
        cross_off(cs, init, resister)
        bonus = cs[mover, CS.BONUS]
        cs[mover, CS.BONUS] = 0
        mine, theirs = move_pool(stat, cs, mover) + bonus, move_pool(stat, cs, resister)
        who, n = opposed(s[OPTS], g, pools, dice, mine, theirs)
        if who != 0:
            moved = False
            if g[G.FROM_CONTACT] == 1:
                free_attack(
                    stat, s[WEAPON], s[OPTS], s[PENALTIES], cs, g, pools, dice, resister, mover, n
                )
        else:
            cs[mover, CS.BONUS] = n
    if moved:
        carry_out_move(stat, s[DIST], cs, g, mover)
    return moved or g[G.DEALER] == NONE


@njit(cache=True, _nrt=False)
def carry_out_move(
    stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, g: np.ndarray, mover: int
) -> None:
    """``Donjon._carry_out_move``: huir leaves; a step fuera del alcance of every active
    foe leaves too (DJ-11)."""
    to = g[G.MOVE_TO]
    if to == NONE:
        set_status(stat, cs, g, mover, FLED)
        return
    cs[mover, CS.ZONE] = to
    for o in range(cs.shape[0]):
        if stat[o, ST.SIDE] != stat[mover, ST.SIDE] and cs[o, CS.STATUS] == ACTIVE:
            if dist[to, cs[o, CS.ZONE]] < 3:
                return
    set_status(stat, cs, g, mover, FLED)


@njit(cache=True, _nrt=False)
def free_attack(
    stat: np.ndarray,
    weapon: np.ndarray,
    opts: np.ndarray,
    penalty: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    pools: np.ndarray,
    dice: np.ndarray,
    attacker: int,
    target: int,
    successes: int,
) -> None:
    """``Donjon._free_attack`` (DJ-11): movement successes as bonus dice, dodge only."""
    w = free_attack_weapon(stat, weapon, penalty, cs, attacker, successes)
    if w == NONE:
        return
    pool = attack_pool(stat, weapon, penalty, cs, attacker, w, 0) + successes
    who, n = opposed(opts, g, pools, dice, pool, dodge_pool(stat, cs, target))
    if who == 0:
        damage(stat, weapon, opts, cs, g, pools, dice, attacker, target, w, n)


@njit(cache=True, _nrt=False)
def apply_continue(
    stat: np.ndarray,
    opts: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    init: np.ndarray,
    pools: np.ndarray,
    dice: np.ndarray,
    going_on: bool,
) -> None:
    """``Donjon._apply_continue`` (DJ-07): heroes answer, then enemies; a new ráfaga if
    either goes on, else a draw by withdrawal."""
    if going_on:
        g[G.CONTINUING] += 1
    if stat[g[G.ACTOR], ST.SIDE] == HEROES:
        ask_continue(stat, cs, g, ENEMIES)
    elif g[G.CONTINUING] > 0:
        new_rafaga(stat, opts, cs, g, init, pools, dice)
    else:
        finish(stat, cs, g, DRAW, R_WITHDRAWAL)


# -- the loops' hooks ------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def reset(s: tuple, d: tuple, d0: tuple) -> None:
    """A battle's state becomes ``d0``'s (its scratch — the damage log, pools and misses'
    log — is kept; the damage log's count ``g[G.DAMAGES]`` is ``d0``'s)."""
    copy_head(d, d0)
    copy_into(d[INIT], d0[INIT])


@njit(cache=True, _nrt=False)
def start(s: tuple, d: tuple, dice: np.ndarray) -> None:
    """``Donjon.start``: the first ráfaga (the start waits on no attack, move or
    spending: :func:`export_scenario`)."""
    new_rafaga(s[STAT], s[OPTS], d[STATE], d[GLOBALS], d[INIT], d[POOLS], dice)
