"""Destiny Dice compiled (the fast path): the rules of :mod:`.ruleset` over plain arrays.

architecture.md, "The fast path": the engine is the specification and this module is
the same rules, compiled with numba, function by function (each names the engine
method it mirrors and its rule id). The loops' hooks are :func:`reset`, :func:`start`,
:func:`legal` and :func:`apply` (``rules.core.loops``: the battle and rollout loops are
the shared ones, as are the mechanics of ``rules.core.mechanics``); the compiled
temperaments live in ``agents/heuristics/destiny_dice_kernel.py`` (rules/ never imports
agents/). Nothing here narrates: a battle is arrays in, arrays out.

Dice come from :mod:`escaramuza.rules.core.mt` (CPython's MT19937, draw for draw) in
exactly the order the engine rolls them, so one seed plays one battle on both.

The bundles (``rules.core.dialect``; ``int64`` unless said), each array's columns
declared once below as a ``rules.core.layout.Columns``:

* static ``s = (stat, weapon, dist, opts, heals, zones, prof, epl, drop)``, built
  once per scenario (:func:`export_scenario`): ``stat[c, ST.*]`` the stat block of each
  combatant (scenario order); ``weapon[c, w, W.*]`` its weapons (``Sheet.weapons``
  order); ``dist[z, z]`` the hops between zones (a zone's neighbours are those one hop
  away); ``opts[OPT.*]`` the scenario's options; ``heals[c, h, HEAL.*]`` its heals
  (``Sheet.heals`` order); ``zones[z, ZONE.*]`` each zone's cover and exit; and the
  exact-odds tables ``prof`` (the profile id of attacker × weapon × defender × attack
  modifier × defence extra), ``epl`` (``exact.expected_pv_loss``, float64) and
  ``drop`` (``exact.drop_probability`` by PV, float64, its last column standing for
  every PV from there up: the reader clamps the index) — the engine's own floats, so
  the temperaments compare identical numbers.
* dynamic ``d = (cs, g, log, uses, order)``: ``cs[c, CS.*]`` what changes of each
  combatant (status, zone, PV/PC/PM/PA, conditions as a bit mask, fear sources, ayuda,
  jams, Envenenado's dice and the playtest counters), ``g[G.*]`` the battle's globals
  (round, turn, the pending decision, outcome), ``log`` the damage log
  (``rules.core.loops.DAMAGE``: one row per ``Damaged`` event), ``uses[c, h]`` each
  heal's uses left and ``order[k]`` the initiative order (its first ``g[G.ORDER_LEN]``
  entries).
* a legal-list row of ``la`` is ``la[i, LA.*]`` (``rules.core.legal``); dice expressions
  (heals, Envenenado X) are ``DICE`` rows.

The hooks, and the steps of ``apply`` inlined into it (:func:`advance`, :func:`move`,
:func:`attack` with its :func:`_hit`, :func:`heal`), take the bundles; every other
function takes the arrays it reads (a compiled call passes a bundle as every field of
every array) and is compiled once — but for the parts of :func:`legal`, inlined into
it: they run at every decision, and a Destiny Dice decision costs so little that
calling them, compiled apart, plays about 7 % fewer battles a second.

Every value is checked on its way in (``Columns.put``, ``rules.core.kernel.
check_range``; the bounds below and docs/fast-path.md, "The kernel boundary"): the
compiled code indexes its tables by these numbers without bounds checks and adds them
in int64.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from escaramuza.rules.core import compiled
from escaramuza.rules.core.compiled import Exported
from escaramuza.rules.core.dialect import (
    ACTIVE,
    DEFEATED,
    DIST,
    DOWN,
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
from escaramuza.rules.core.dice import parse_dice
from escaramuza.rules.core.jit import copy_into, njit
from escaramuza.rules.core.kernel import BOUND, KernelRefusal, check_range
from escaramuza.rules.core.layout import Columns
from escaramuza.rules.core.legal import LA, push
from escaramuza.rules.core.legal import action_row as legal_row
from escaramuza.rules.core.loops import copy_head, new_damage_log
from escaramuza.rules.core.mechanics import compile_mechanics
from escaramuza.rules.core.model import Action, Combatant, DecisionKind, Side, Status
from escaramuza.rules.core.mt import roll
from escaramuza.rules.core.scenario import MAX_COMBATANTS, Scenario
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.destiny_dice.exact import (
    AttackProfile,
    drop_probability,
    expected_pv_loss,
    pv_loss_distribution,
)
from escaramuza.rules.destiny_dice.ruleset import DestinyDice
from escaramuza.rules.destiny_dice.sheets import CONDITIONS

#: What messages call this ruleset ("the Destiny Dice kernel").
TITLE = DestinyDice.name

# -- codes --------------------------------------------------------------------------
#: Condition bits, in stats.CONDITIONS order.
COND_BIT = {name: i for i, name in enumerate(CONDITIONS)}
DERRIBADO = COND_BIT["derribado"]
INMOVIL = COND_BIT["inmovil"]
PARALIZADO = COND_BIT["paralizado"]
#: ``ruleset.STAY``'s bits: the states under which a combatant does not change zone.
STAY = (1 << DERRIBADO) | (1 << INMOVIL) | (1 << PARALIZADO)
DESARMADO = COND_BIT["desarmado"]
CIEGO = COND_BIT["ciego"]
ASUSTADO = COND_BIT["asustado"]
ENVENENADO = COND_BIT["envenenado"]

#: The statuses Destiny Dice's rules give (DD-15, DD-16: nobody dies or flees); a state
#: with another is refused.
RULESET_STATUSES = (Status.ACTIVE, Status.DOWN, Status.DEFEATED)

#: Verbs, in the engine's VerbSpec order.
VERBS = (
    "mover",
    "atacar",
    "ayudar",
    "curar",
    "recargar",
    "recuperar_arma",
    "fin_turno",
    "contraatacar",
    "reposicionar",
    "pasar",
)
MOVER, ATACAR, AYUDAR, CURAR, RECARGAR, RECUPERAR, FIN, CONTRA, REPOS, PASAR = range(10)
#: What ``apply`` reads of each verb's action (``rules.core.legal.action_row``).
NEEDS = {
    "target": (ATACAR, AYUDAR, CURAR, CONTRA),
    "item": (ATACAR, CURAR, RECARGAR, CONTRA),
    "zone": (MOVER, REPOS),
}

#: ``g[G.KIND]`` of DD-08's reaction (beside the dialect's KIND_NONE and KIND_TURN).
KIND_REACTION = KIND_TURN + 1

#: The engine's resources, each with its ``CS`` column's name.
RESOURCES = compiled.kernel_resources(DestinyDice)
#: The first resource and its maximum (``agents.search.side_strength``'s health).
HEALTH = ("PV", "MAX_PV")
#: ``DAMAGE.RESOURCE`` of the PV DestinyDice._damage takes: its ``Ruleset.resources`` index.
RESOURCE_PV = tuple(DestinyDice.resources).index("pv")
#: Places of the ruleset's own arrays in the bundles (``rules.core.dialect``).
HEALS, ZONES, PROF, EPL, DROP = 4, 5, 6, 7, 8
USES, ORDER = 3, 4
#: The dynamic arrays that are a battle's state (what :func:`reset` copies); the rest is
#: scratch, written before it is read in every call.
KEPT = (STATE, GLOBALS, USES, ORDER)

# -- the boundary (rules.core.kernel.check_range): what the tables and int64 hold -------
#: Largest help bonus / ayuda value the profile tables cover (Options.help_bonus <= 2).
MAX_AYUDA = 2
#: Characteristic and defence dice: the exact odds loop over every pair of faces.
MAX_DIE = 1 << 10
#: A weapon's tier and special bonus: the most PV one attack can take (die + tier +
#: bonus + the fumble point) is the width of ``drop``, so it stays a small table.
MAX_BONUS = 1 << 10
#: A zone's cover: ``prof``'s defence-extra axis is ``3 + cover_defense × cover`` wide,
#: and the move keys pack a zone's cover in 21 bits (the temperaments' ``_pack``).
MAX_COVER = 16
#: Options.cover_defense's own range (the profile tables' extent).
MAX_COVER_DEFENSE = 3
#: Dice of a heal or of Envenenado X: terms, and each term's dice counts and faces.
MAX_TERMS = 4
MAX_COUNT = 1 << 10
MAX_SIDES = 1 << 20
#: ``prof``'s entries (combatants² × weapons × attack modifiers × defence extras).
MAX_PROFILES = 1 << 24
#: Weapons on one stat block: ``CS.JAM`` holds a bit for each.
MAX_WEAPONS = 62
#: A legal list is never longer than this (moves + foes × weapons + allies × heals …).
MAX_ACTIONS = 4096


# -- the layouts ----------------------------------------------------------------------
class DICE(Columns):
    """A dice expression as the kernel rolls it (``DiceExpr.roll``: terms in order)."""

    MODIFIER = (-BOUND, BOUND, "the constant added to the dice")
    TERMS = (0, MAX_TERMS, "how many terms follow")
    TERM = (-1, MAX_SIDES, "each term's dice count, faces and sign (±1), in order", 3 * MAX_TERMS)


#: A DICE row's width (the wide columns holding one).
DX = DICE.width()


class ST(Columns):
    """``stat[c, ST.*]``: a combatant's stat block."""

    SIDE, TEMPERAMENT = HEAD["ST"].values()
    HERO = (0, 1, "a player character: at 0 PV down, not defeated (DD-16)")
    CUERPO = (1, MAX_DIE, "the Cuerpo die's faces (melee attacks)")
    MENTE = (1, MAX_DIE, "the Mente die's faces (initiative, ranged attacks)")
    ALMA = (1, MAX_DIE, "the Alma die's faces (Voluntad)")
    DEFENSA = (1, MAX_DIE, "the defence die's faces")
    DEFENCE_BONUS = (-BOUND, BOUND, "armour and shield, added to the defence roll")
    MAX_PV = (1, BOUND, "puntos de vida at most")
    EMAX = (0, BOUND, "PC, PM and PA at most (one maximum for the three)")
    WEAPONS = (0, MAX_WEAPONS, "how many weapons (rows of weapon[c])")
    HEALS = (0, BOUND, "how many heals (rows of heals[c])")
    RANGED = (0, 1, "the sheet fights at range (the approach wants a shot, in cover)")


class W(Columns):
    """``weapon[c, w, W.*]``: one weapon of a stat block."""

    CHAR = (0, 1, "the characteristic it rolls: 0 cuerpo (melee), 1 mente (ranged)")
    BAND = (0, 1, "it reaches each band: cuerpo a cuerpo, cerca, lejos (DD-05)", 3)
    TIER = (-MAX_BONUS, MAX_BONUS, "the tier's damage bonus")
    EXTRA = (-MAX_BONUS, MAX_BONUS, "the weapon's own damage bonus")
    UNARMED = (0, 1, "an unarmed attack (kept under Desarmado; the die − 1, at least 1)")
    SHOOTS = (0, 1, "it shoots: a Destino of 1 misses, and may jam it (DD-18)")
    INFLICTS = (-1, len(CONDITIONS) - 1, "the condition a hit inflicts (its bit), -1 none")
    DICE = (-BOUND, BOUND, "Envenenado X's dice, when it inflicts envenenado", DX)


class HEAL(Columns):
    """``heals[c, h, HEAL.*]``: one heal of a stat block."""

    BAND = (0, 1, "it reaches an ally in each band", 3)
    USES = (-1, BOUND, "uses a battle, -1 unlimited")
    COST = (-BOUND, BOUND, "its cost in PC, PM and PA", 3)
    CURES = (0, (1 << len(CONDITIONS)) - 1, "the conditions it ends, a bit each")
    DICE = (-BOUND, BOUND, "the PV it gives back", DX)


class ZONE(Columns):
    """``zones[z, ZONE.*]``: a zone of the battlefield."""

    COVER = (0, MAX_COVER, "its cover (defence against ranged attacks)")
    EXIT = (0, 1, "an exit (where the coward runs)")


class OPT(Columns):
    """``opts[OPT.*]``: the scenario's options and victory terms."""

    ROUND_LIMIT, SURVIVE = HEAD["OPT"].values()
    TIES_ATTACKER = (0, 1, "a tie hits (Options.ties_favor: attacker)")
    HELP_BONUS = (0, MAX_AYUDA, "what ayudar gives (DD-04)")
    JAM_ON_ONE = (0, 1, "a shot's Destino of 1 jams the weapon (DD-18)")
    COVER_DEFENSE = (0, MAX_COVER_DEFENSE, "defence a point of cover gives against ranged attacks")
    FUMBLE_ALWAYS = (0, 1, "a defence Destino of 1 hurts even when the attack hits (DD-09)")


class CS(Columns):
    """``cs[c, CS.*]``: what changes of a combatant during the battle."""

    STATUS, ZONE, KO_ROUND, DIED, DEALT, DEALT_TO_FOES, TAKEN = HEAD["CS"].values()
    PV = (0, BOUND, "puntos de vida left (at most ST.MAX_PV)")
    COND = (0, (1 << len(CONDITIONS)) - 1, "its conditions, a bit each (COND_BIT)")
    PC = (0, BOUND, "puntos de cuerpo left")
    PM = (0, BOUND, "puntos de mente left")
    PA = (0, BOUND, "puntos de alma left")
    FEAR = (
        -1,
        (1 << MAX_COMBATANTS) - 1,
        "whom its asustado fears, a bit each, -1 every foe (a state without source)",
    )
    AYUDA = (0, MAX_AYUDA, "the help it holds for its next roll (DD-04)")
    JAM = (0, (1 << MAX_WEAPONS) - 1, "its jammed weapons, a bit each (DD-18)")
    POISON = (-BOUND, BOUND, "Envenenado X's dice, rolled at its turn's start (DD-19)", DX)
    INIT = (0, MAX_DIE, "its initiative roll (start's scratch)")


class G(Columns):
    """``g[G.*]``: the battle's globals (the pending decision's kind: KIND_TURN or
    KIND_REACTION while the battle runs)."""

    OUTCOME, REASON, ROUND, WIPE, ACTOR, KIND, SUSPEND, DECISIONS, DAMAGES = HEAD["G"].values()
    TURN = (-1, "combatants", "the turn's entry in the order, -1 before the first")
    ORDER_LEN = (0, BOUND, "entries of the initiative order")
    TURN_ACTOR = (-1, "combatants", "whose turn it is, -1 before the first")
    MOVED = (0, 1, "the turn's move is spent")
    ACTED = (0, 1, "the turn's action is spent")
    REACTION_VS = (-1, "combatants", "the attacker a perfect defence answers (DD-08)")


def dice_code(text: str | int | None, what: str) -> np.ndarray:
    """A dice expression as a ``DICE`` row (DiceExpr.roll: terms in order)."""
    expr = parse_dice(text if text is not None else "1")
    out = DICE.new()
    if len(expr.terms) > MAX_TERMS:
        raise KernelRefusal(f"{what}: dice {expr.text!r} has more than {MAX_TERMS} terms")
    check_range(expr.modifier, -BOUND, BOUND, f"{what}: dice {expr.text!r} modifier")
    out[DICE.MODIFIER] = expr.modifier
    out[DICE.TERMS] = len(expr.terms)
    for i, term in enumerate(expr.terms):
        if term.keep is not None:
            raise KernelRefusal(f"{what}: dice {expr.text!r} keeps the highest (kh)")
        check_range(term.count, 1, MAX_COUNT, f"{what}: dice {expr.text!r} count")
        check_range(term.sides, 1, MAX_SIDES, f"{what}: dice {expr.text!r} faces")
        check_range(term.sign, -1, 1, f"{what}: dice {expr.text!r} sign")
        at = DICE.TERM + 3 * i
        out[at : at + 3] = (term.count, term.sides, term.sign)
    return out


# -- export: scenario (once) and state (per call) -----------------------------------
def export_scenario(scenario: Scenario) -> Exported:
    """The scenario's static bundle (exact-odds tables included), its dynamic bundle at
    the start (before initiative) and the legal list's capacity (see the module doc)."""
    combatants: list[Combatant] = list(scenario.combatants)
    field = scenario.battlefield
    options = scenario.options
    zone_ids = field.zone_ids
    nc, nz = len(combatants), len(zone_ids)
    nw = max(len(c.stats.weapons) for c in combatants)
    nh = max([len(c.stats.heals) for c in combatants] + [1])
    if nw > MAX_WEAPONS:
        raise KernelRefusal(f"more than {MAX_WEAPONS} weapons on one stat block")
    stat = ST.new(nc)
    weapon = W.new(nc, nw)
    heals = HEAL.new(nc, nh)
    for i, c in enumerate(combatants):
        sheet = c.stats
        check_range(c.maxima["pv"], 1, BOUND, f"{c.id}: maximum pv")
        for pool in ("pc", "pm", "pa"):
            check_range(c.maxima[pool], 0, BOUND, f"{c.id}: maximum {pool}")
        ST.put(
            stat[i],
            c.id,
            **compiled.stat_head(c),
            hero=int(c.pc),
            cuerpo=sheet.cuerpo,
            mente=sheet.mente,
            alma=sheet.alma,
            defensa=sheet.defensa,
            defence_bonus=sheet.defence_bonus,
            max_pv=c.maxima["pv"],
            emax=c.maxima["pc"],
            weapons=len(sheet.weapons),
            heals=len(sheet.heals),
            ranged=int(sheet.ranged),
        )
        if not (c.maxima["pc"] == c.maxima["pm"] == c.maxima["pa"]):
            raise KernelRefusal(f"{c.id}: energy pools with different maxima")
        if c.pc != (c.side is Side.HEROES):
            raise KernelRefusal(f"{c.id}: a player character on the enemies' side")
        _export_weapons(c, weapon[i])
        _export_heals(c, heals[i])
    maxdeg = max(len(field.neighbours(z)) for z in zone_ids)
    zones = ZONE.new(nz)
    dist = compiled.zone_hops(field)
    for a, z in enumerate(zone_ids):
        zone = field.zones[z]
        ZONE.put(zones[a], f"zone {z}", cover=zone.cover, exit=int(zone.exit))
        # _steps lists the zones one hop away in index order: the map's own order.
        if field.neighbours(z) != tuple(z2 for b, z2 in enumerate(zone_ids) if dist[a, b] == 1):
            raise KernelRefusal(f"zone {z}: neighbours out of map order")
    opts = OPT.new()
    OPT.put(
        opts,
        "scenario",
        ties_attacker=int(options.ties_favor == "attacker"),
        help_bonus=options.help_bonus,
        jam_on_one=int(bool(options.jam_on_one)),
        cover_defense=options.cover_defense,
        fumble_always=int(options.fumble_damage == "always"),
        round_limit=scenario.round_limit,
        survive=int(scenario.victory == "survive"),
    )
    prof, epl, drop = _profile_tables(scenario, nw, int(zones[:, ZONE.COVER].max()))
    static = (stat, weapon, dist, opts, heals, zones, prof, epl, drop)
    # The legal list's rows: moves, attacks (foes × weapons), helps, heals (allies ×
    # heals), reloads, recovering the weapon, ending the turn.
    most = maxdeg + 3 + nc * (nw + 1 + nh) + nw + 2
    if most > MAX_ACTIONS:
        raise KernelRefusal(f"legal lists of up to {most} actions (the kernel holds {MAX_ACTIONS})")
    return Exported(scenario, static, _start(static, scenario), most)


def _export_weapons(c: Combatant, weapon: np.ndarray) -> None:
    """``weapon[c]``: the sheet's weapons in ``Sheet.weapons`` order."""
    for j, w in enumerate(c.stats.weapons.values()):
        check_range(w.tier_bonus, -MAX_BONUS, MAX_BONUS, f"{c.id}: {w.name} tier bonus")
        check_range(w.extra, -MAX_BONUS, MAX_BONUS, f"{c.id}: {w.name} bonus")
        W.put(
            weapon[j],
            f"{c.id}: {w.name}",
            char=0 if w.characteristic == "cuerpo" else 1,
            band=[int(b in w.bands) for b in range(3)],
            tier=w.tier_bonus,
            extra=w.extra,
            unarmed=int(w.unarmed),
            shoots=int(w.shoots),
            inflicts=COND_BIT[w.inflicts] if w.inflicts else -1,
        )
        if w.inflicts == "envenenado":
            weapon[j, W.DICE :] = dice_code(w.inflicts_x, f"{c.id}: {w.name} inflicts")


def _export_heals(c: Combatant, heals: np.ndarray) -> None:
    """``heals[c]``: the sheet's heals in ``Sheet.heals`` order."""
    for j, h in enumerate(c.stats.heals.values()):
        if h.uses is not None:
            check_range(h.uses, 0, BOUND, f"{c.id}: heal {h.name} uses")
        cost = dict(h.cost)
        unknown = set(cost) - {"pc", "pm", "pa"}
        if unknown:
            raise KernelRefusal(f"{c.id}: heal {h.name} costs {sorted(unknown)}")
        for pool, value in cost.items():
            check_range(value, -BOUND, BOUND, f"{c.id}: heal {h.name} cost in {pool}")
        HEAL.put(
            heals[j],
            f"{c.id}: heal {h.name}",
            band=[int(b in h.bands) for b in range(3)],
            uses=-1 if h.uses is None else h.uses,
            cost=[cost.get("pc", 0), cost.get("pm", 0), cost.get("pa", 0)],
            cures=sum(1 << COND_BIT[name] for name in h.cures),
        )
        heals[j, HEAL.DICE :] = dice_code(h.heal, f"{c.id}: heal {h.name}")


def _profile_tables(
    scenario: Scenario, nw: int, max_cover: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``prof``, ``epl``, ``drop``: every AttackProfile an attack of this scenario can
    have (:func:`attack_profiles`), with the engine's own exact.py floats.

    ``drop[p, pv]`` is ``drop_probability(p, pv)`` for pv up to the table's last
    column, which stands for every PV from there up (``attack_score`` clamps the index):
    an attack takes at most the largest loss of its distribution, so from one PV past it
    the probability is 0 (an empty sum, as the engine's). The width is one past the
    largest loss of any profile or the largest PV of the scenario, whichever is smaller:
    never O(PV)."""
    prof, ids = attack_profiles(scenario, nw, max_cover)
    max_pv = max(c.maxima["pv"] for c in scenario.combatants)
    max_loss = max((max(pv_loss_distribution(p)) for p in ids), default=0)
    width = min(max_pv, max_loss + 1) + 1
    epl = np.zeros(len(ids), dtype=np.float64)
    drop = np.zeros((len(ids), width), dtype=np.float64)
    for p, pid in ids.items():
        epl[pid] = expected_pv_loss(p)
        for pv in range(width):
            drop[pid, pv] = drop_probability(p, pv)
    return prof, epl, drop


def attack_profiles(
    scenario: Scenario, nw: int, max_cover: int
) -> tuple[np.ndarray, dict[AttackProfile, int]]:
    """``prof`` and the profiles it numbers: the AttackProfile of attacker × weapon ×
    defender × attack modifier (ayuda − 2·Ciego, in [−2, MAX_AYUDA]) × defence extra
    (ayuda + cover term); -1 where the two are on one side."""
    combatants = list(scenario.combatants)
    options = scenario.options
    nc = len(combatants)
    n_dm = MAX_AYUDA + 1 + options.cover_defense * max_cover
    size = nc * nw * nc * (MAX_AYUDA + 3) * n_dm
    if size > MAX_PROFILES:
        raise KernelRefusal(f"{size} attack profiles (the tables hold {MAX_PROFILES})")
    prof = np.full((nc, nw, nc, MAX_AYUDA + 3, n_dm), -1, dtype=np.int64)
    ids: dict[AttackProfile, int] = {}
    for i, att in enumerate(combatants):
        for j, w in enumerate(att.stats.weapons.values()):
            att_die = att.stats.die(w.characteristic)
            for k, dfn in enumerate(combatants):
                if dfn.side is att.side:
                    continue
                for am in range(-2, MAX_AYUDA + 1):
                    for dm in range(n_dm):
                        p = AttackProfile(
                            att_die,
                            dfn.stats.defensa,
                            am,
                            dfn.stats.defence_bonus + dm,
                            w.unarmed,
                            w.tier_bonus,
                            w.extra,
                            w.shoots,
                            options.ties_favor,
                            options.fumble_damage,
                        )
                        prof[i, j, k, am + 2, dm] = ids.setdefault(p, len(ids))
    return prof, ids


def _start(s: tuple, scenario: Scenario) -> tuple[np.ndarray, ...]:
    """The dynamic bundle at the scenario's start, before initiative: as
    ``agents.runner.play_battle`` finds it (the knock-out round of whoever starts out
    of the fight is round 0, a wipe already so if no hero starts standing)."""
    stat, heals = s[STAT], s[HEALS]
    combatants = scenario.combatants
    cs = CS.new(len(combatants))
    uses = np.zeros(heals.shape[:2], dtype=np.int64)
    export_combatants(scenario, combatants, scenario.battlefield.index, cs, uses)
    g = G.new()
    g[G.OUTCOME] = RUNNING
    heroes = stat[:, ST.SIDE] == HEROES
    g[G.WIPE] = int(bool(heroes.any() and (cs[heroes, CS.STATUS] != ACTIVE).all()))
    order = np.zeros(len(combatants), dtype=np.int64)
    return cs, g, new_damage_log(), uses, order


def export_combatants(
    scenario: Scenario,
    combatants: Sequence[Combatant],
    zones: dict[str, int],
    cs: np.ndarray,
    uses: np.ndarray,
) -> None:
    """Fill the zeroed ``cs`` and ``uses`` with ``combatants``, the scenario's in its
    order (cost about one clone; ``zones``: the battlefield's zone index). Each value
    written is checked (or an index by construction) first."""
    ids = {c.id: i for i, c in enumerate(scenario.combatants)}
    for i, c in enumerate(combatants):
        if c.status not in RULESET_STATUSES:
            raise KernelRefusal(f"{c.id}: status {c.status.value}")
        head = compiled.combatant_head(ids, zones, i, c)
        row = cs[i]
        for column, value in head.items():
            row[CS[column.upper()]] = value
        compiled.put_resources(row, CS, c, RESOURCES, c.maxima)
        _export_conditions(c, row, ids)
        _export_data(c, row, uses[i])


def _export_conditions(c: Combatant, row: np.ndarray, index: dict[str, int]) -> None:
    """``cs[c]``'s conditions (a bit each), Asustado's source and Envenenado's dice."""
    mask = 0
    for name, cond in c.conditions.items():
        if name not in COND_BIT:
            raise KernelRefusal(f"{c.id}: condition {name!r}")
        if cond.value:
            raise KernelRefusal(f"{c.id}: condition {name} with a value")
        mask |= 1 << COND_BIT[name]
    row[CS.COND] = mask
    fear = c.conditions.get("asustado")
    row[CS.FEAR] = -1
    if fear is not None and fear.source:
        feared = 0
        for source in fear.sources():
            if source not in index:
                raise KernelRefusal(f"{c.id}: asustado of {source!r}, not a combatant")
            feared |= 1 << index[source]
        row[CS.FEAR] = feared
    poison = c.conditions.get("envenenado")
    if poison is not None:
        row[CS.POISON : CS.POISON + DX] = dice_code(poison.dice, f"{c.id}: envenenado")


def _export_data(c: Combatant, row: np.ndarray, uses: np.ndarray) -> None:
    """``cs[c]``'s ayuda and jammed weapons, and ``uses[c]``: the heals' uses left."""
    jam = 0
    for key, value in c.data.items():
        if key == "ayuda":
            check_range(value, 0, MAX_AYUDA, f"{c.id}: ayuda")
            row[CS.AYUDA] = value
        elif key.startswith("jam:"):
            names = list(c.stats.weapons)
            name = key[4:]
            if value and name in names and c.stats.weapons[name].shoots:
                jam |= 1 << names.index(name)
            elif value:
                raise KernelRefusal(f"{c.id}: {key}")
        elif key.startswith("uses:"):
            heals = list(c.stats.heals)
            name = key[5:]
            if name not in heals:
                raise KernelRefusal(f"{c.id}: {key}")
            check_range(value, 0, BOUND, f"{c.id}: {key}")
            uses[heals.index(name)] = value
        else:
            raise KernelRefusal(f"{c.id}: data {key!r}")
    row[CS.JAM] = jam


def export_state(exported: Exported, state: BattleState) -> tuple[np.ndarray, ...]:
    """The dynamic bundle ``(cs, g, log, uses, order)`` of an engine state (an empty
    damage log). Refuses what it cannot resume (``compiled.resumable``), and any value
    outside the range the compiled rules index or add (the module's bounds): the
    scenario's combatants in its order, their resources within 0 and their maxima (the
    scenario's), the turn an entry of the order, the order distinct combatants, the
    turn's actor and a reaction's attacker combatants.

    The planner exports a state for every batch of rollouts: ``g`` is written after
    checking each value it takes (or it is an index by construction), not through
    ``G.put``, which costs as much as the rest of this export."""
    combatants = state.combatants
    scenario = state.scenario
    n = compiled.resumable(exported, state, scenario.round_limit)
    for c, c0 in zip(combatants, scenario.combatants, strict=True):
        if c.maxima != c0.maxima:
            raise KernelRefusal(f"{c.id}: maxima {c.maxima} are not the scenario's")
    start = exported.start
    cs, g, uses, order = (np.zeros_like(start[k]) for k in (STATE, GLOBALS, USES, ORDER))
    export_combatants(scenario, combatants, state.battlefield.index, cs, uses)
    index = {c.id: i for i, c in enumerate(combatants)}
    data = state.data
    turn_order = state.order
    check_range(len(turn_order), 1, n, "turn order length")
    if len(set(turn_order)) != len(turn_order):
        raise KernelRefusal(f"turn order {list(turn_order)} names a combatant twice")
    check_range(state.turn, 0, len(turn_order) - 1, "turn")
    for k, cid in enumerate(turn_order):
        order[k] = index[cid]
    actor = data.get("turn_actor")
    if actor is None:
        raise KernelRefusal("no turn_actor")
    vs = data.get("reaction_vs")
    pending = state.pending
    assert pending is not None  # resumable refuses a state with none
    if pending.kind is DecisionKind.TURN and pending.name == "turn":
        g[G.KIND] = KIND_TURN
    elif pending.kind is DecisionKind.REACTION and pending.name == "defensa_perfecta":
        if vs is None:
            raise KernelRefusal("a perfect-defence reaction without its attacker")
        g[G.KIND] = KIND_REACTION
    else:
        raise KernelRefusal(f"pending decision {pending.name!r}")
    g[G.OUTCOME] = RUNNING
    g[G.ROUND] = state.round
    g[G.TURN] = state.turn
    g[G.ORDER_LEN] = len(turn_order)
    g[G.TURN_ACTOR] = index[actor]
    g[G.MOVED] = int(bool(data.get("moved", True)))
    g[G.ACTED] = int(bool(data.get("acted", True)))
    g[G.REACTION_VS] = -1 if vs is None else index[vs]
    g[G.ACTOR] = index[pending.actor]
    return cs, g, new_damage_log(), uses, order


def action_row(exported: Exported, state: BattleState, action: Action) -> list[int]:
    """The legal-list row of an engine action."""
    index = {c.id: i for i, c in enumerate(state.combatants)}
    actor = state.combatants[compiled.name_code(index, action.actor, action, "actor")]
    names = actor.stats.heals if action.verb == "curar" else actor.stats.weapons
    return legal_row(
        action,
        compiled.name_code(VERBS, action.verb, action, "verb"),
        compiled.name_code(index, action.target, action, "target"),
        compiled.name_code(state.battlefield.index, action.zone, action, "zone"),
        compiled.name_code(tuple(names), action.item, action, "item"),
        needs=NEEDS,
    )


#: Every condition mask's sorted (name, value) pairs.
_CONDITIONS = compiled.flag_conditions(CONDITIONS)


def conditions(row: Any) -> tuple[tuple[str, int], ...]:
    """A final ``cs`` row's conditions as sorted ``(name, value)`` pairs (none of
    Destiny Dice's carries a value)."""
    return _CONDITIONS[row[CS.COND]]


# -- compiled rules -----------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def band(hops: int) -> int:
    """DD-05: 0 hops cuerpo a cuerpo, 1 cerca, 2 or more lejos (DestinyDice.band)."""
    return hops if hops < 2 else 2


@njit(cache=True, _nrt=False)
def roll_expr(dice: np.ndarray, x: np.ndarray, base: int) -> int:
    """DiceExpr.roll of the ``DICE`` row at ``x[base:]``: the modifier plus every
    term's dice, rolled in order."""
    total = x[base + DICE.MODIFIER]
    for t in range(x[base + DICE.TERMS]):
        at = base + DICE.TERM + 3 * t
        count = x[at]
        sides = x[at + 1]
        rolled = 0
        for _ in range(count):
            rolled += roll(dice, sides)
        total += x[at + 2] * rolled
    return total


# -- the shared mechanics (rules.core.mechanics) ---------------------------------------
@njit(cache=True, _nrt=False)
def on_battle_end(stat: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    """DestinyDice.on_battle_end (DD-16): downed heroes wake with 1 PV as the fight ends
    (the engine sets the status itself: its StatusChanged counts for nothing)."""
    for i in range(cs.shape[0]):
        if stat[i, ST.HERO] and cs[i, CS.STATUS] == DOWN:
            cs[i, CS.PV] = 1
            cs[i, CS.STATUS] = ACTIVE


_mechanics = compile_mechanics(__name__, ST=ST, CS=CS, G=G, OPT=OPT, on_battle_end=on_battle_end)
set_status, deal = _mechanics.set_status, _mechanics.deal
begin_round, check_end = _mechanics.begin_round, _mechanics.check_end
side_out, most_hurt_ally = _mechanics.side_out, _mechanics.most_hurt_ally
foe_hops = _mechanics.foe_hops


@njit(cache=True, _nrt=False)
def damage(
    stat: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    log: np.ndarray,
    c: int,
    amount: int,
    source: int,
) -> None:
    """DestinyDice._damage (DD-15, DD-16): the PV lost, its Damaged event (a
    :func:`deal`; ``source`` -1 for Envenenado's), and at 0 PV a hero down, an enemy
    defeated."""
    before = cs[c, CS.PV]
    after = before - amount if before > amount else 0
    cs[c, CS.PV] = after
    deal(stat, cs, g, log, c, RESOURCE_PV, before - after, source)
    if after == 0 and cs[c, CS.STATUS] == ACTIVE:
        set_status(stat, cs, g, c, DOWN if stat[c, ST.HERO] else DEFEATED)


# -- the turn (DD-01, DD-02, DD-19) ------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def reset(s: tuple, d: tuple, d0: tuple) -> None:
    """``d`` becomes the state ``d0``: a battle's start, or a rollout's."""
    copy_head(d, d0)
    copy_into(d[USES], d0[USES])
    copy_into(d[ORDER], d0[ORDER])


@njit(cache=True, _nrt=False)
def start(s: tuple, d: tuple, dice: np.ndarray) -> None:
    """DestinyDice.start: DD-01 initiative (Mente) of everyone in the fight, DD-02 ties
    heroes first, then scenario order; then the first turn."""
    stat = s[STAT]
    cs, g, order = d[STATE], d[GLOBALS], d[ORDER]
    nc = stat.shape[0]
    n = 0
    for i in range(nc):
        # combat.IN_THE_FIGHT: a hero down rolls too (DD-16), a defeated enemy does not.
        if cs[i, CS.STATUS] != ACTIVE and cs[i, CS.STATUS] != DOWN:
            continue
        cs[i, CS.INIT] = roll(dice, stat[i, ST.MENTE])
        # insertion by (-roll, side, index): stable, scenario order breaks the last tie
        k = n
        while k > 0:
            j = order[k - 1]
            rj, ri = cs[j, CS.INIT], cs[i, CS.INIT]
            if rj > ri or (rj == ri and stat[j, ST.SIDE] <= stat[i, ST.SIDE]):
                break
            order[k] = j
            k -= 1
        order[k] = i
        n += 1
    g[G.ORDER_LEN] = n
    g[G.TURN] = -1
    g[G.TURN_ACTOR] = -1
    g[G.MOVED] = 1
    g[G.ACTED] = 1
    begin_round(stat, s[OPTS], cs, g)
    if g[G.OUTCOME] == RUNNING:
        advance(s, d, dice)


@njit(cache=True, _nrt=False, inline="always")
def advance(s: tuple, d: tuple, dice: np.ndarray) -> None:
    """DestinyDice._advance: the next combatant able to act, starting rounds as needed."""
    stat, opts = s[STAT], s[OPTS]
    cs, g, log, order = d[STATE], d[GLOBALS], d[LOG], d[ORDER]
    g[G.KIND] = KIND_NONE
    while g[G.OUTCOME] == RUNNING:
        g[G.TURN] += 1
        if g[G.TURN] >= g[G.ORDER_LEN]:
            g[G.TURN] = 0
            begin_round(stat, opts, cs, g)
            if g[G.OUTCOME] != RUNNING:
                return
        c = order[g[G.TURN]]
        if cs[c, CS.STATUS] != ACTIVE:
            # Its turn's start comes all the same: the temporal states end (DD-19).
            cs[c, CS.COND] &= ~STAY
            continue
        if start_turn(stat, cs, g, log, c, dice):
            g[G.KIND] = KIND_TURN
            g[G.ACTOR] = c
            return
        check_end(stat, cs, g)


@njit(cache=True, _nrt=False)
def start_turn(
    stat: np.ndarray, cs: np.ndarray, g: np.ndarray, log: np.ndarray, c: int, dice: np.ndarray
) -> bool:
    """DestinyDice._start_turn (DD-19): the temporal states end and apply to this turn,
    then Envenenado's damage. True if ``c`` has a choice to make."""
    moved = False
    acted = False
    cond = cs[c, CS.COND]
    if cond:
        if cond & (1 << PARALIZADO):
            moved = True
            acted = True
        if cond & (1 << DERRIBADO):
            acted = True
        if cond & (1 << INMOVIL):
            moved = True
        cs[c, CS.COND] = cond & ~STAY
        if cond & (1 << ENVENENADO):
            total = roll_expr(dice, cs[c], CS.POISON)
            damage(stat, cs, g, log, c, total, -1)
            if cs[c, CS.STATUS] != ACTIVE:
                return False
    g[G.TURN_ACTOR] = c
    g[G.MOVED] = 1 if moved else 0
    g[G.ACTED] = 1 if acted else 0
    return not (moved and acted)


@njit(cache=True, _nrt=False, inline="always")
def weapon_usable(weapon: np.ndarray, cs: np.ndarray, c: int, w: int) -> bool:
    """DestinyDice._usable_weapons: Desarmado leaves only unarmed attacks; a jammed
    weapon that shoots waits for ``recargar`` (DD-18)."""
    if cs[c, CS.COND] & (1 << DESARMADO) and not weapon[c, w, W.UNARMED]:
        return False
    if weapon[c, w, W.SHOOTS] and cs[c, CS.JAM] & (1 << w):
        return False
    return True


@njit(cache=True, _nrt=False, inline="always")
def usable_band_mask(stat: np.ndarray, weapon: np.ndarray, cs: np.ndarray, c: int) -> int:
    """DestinyDice.usable_bands as a bit mask."""
    mask = 0
    for w in range(stat[c, ST.WEAPONS]):
        if weapon_usable(weapon, cs, c, w):
            for b in range(3):
                if weapon[c, w, W.BAND + b]:
                    mask |= 1 << b
    return mask


@njit(cache=True, _nrt=False, inline="always")
def _attacks(
    stat: np.ndarray,
    weapon: np.ndarray,
    dist: np.ndarray,
    cs: np.ndarray,
    c: int,
    verb: int,
    only: int,
    la: np.ndarray,
    n: int,
) -> int:
    """DestinyDice._attacks: every active foe (scenario order) × usable weapon reaching
    its band (weapons order); ``only`` >= 0 keeps that target (the counterattack)."""
    zc = cs[c, CS.ZONE]
    for t in range(stat.shape[0]):
        if stat[t, ST.SIDE] == stat[c, ST.SIDE] or cs[t, CS.STATUS] != ACTIVE:
            continue
        if only >= 0 and t != only:
            continue
        b = band(dist[zc, cs[t, CS.ZONE]])
        for w in range(stat[c, ST.WEAPONS]):
            if weapon[c, w, W.BAND + b] and weapon_usable(weapon, cs, c, w):
                n = push(la, n, verb, t, -1, w, -1)
    return n


@njit(cache=True, _nrt=False, inline="always")
def _steps(dist: np.ndarray, zone: int, verb: int, la: np.ndarray, n: int) -> int:
    """``_steps``: ``verb`` to each neighbour of ``zone`` (one hop away), in map order."""
    for z in range(dist.shape[0]):
        if dist[zone, z] == 1:
            n = push(la, n, verb, -1, z, -1, -1)
    return n


@njit(cache=True, _nrt=False, inline="always")
def _helps(
    stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, c: int, la: np.ndarray, n: int
) -> int:
    """DestinyDice._helps: DD-04 gives no range; an active ally within cerca."""
    zc = cs[c, CS.ZONE]
    for a in range(stat.shape[0]):
        if (
            stat[a, ST.SIDE] == stat[c, ST.SIDE]
            and cs[a, CS.STATUS] == ACTIVE
            and a != c
            and dist[zc, cs[a, CS.ZONE]] <= 1
        ):
            n = push(la, n, AYUDAR, a, -1, -1, -1)
    return n


@njit(cache=True, _nrt=False, inline="always")
def _heals(
    stat: np.ndarray,
    dist: np.ndarray,
    heals: np.ndarray,
    cs: np.ndarray,
    uses: np.ndarray,
    c: int,
    la: np.ndarray,
    n: int,
) -> int:
    """DestinyDice._heals: each heal with uses and energy left, on every hurt (or
    curable) ally, active or down, within the heal's bands."""
    zc = cs[c, CS.ZONE]
    for h in range(stat[c, ST.HEALS]):
        if heals[c, h, HEAL.USES] >= 0 and uses[c, h] <= 0:
            continue
        if (
            cs[c, CS.PC] < heals[c, h, HEAL.COST]
            or cs[c, CS.PM] < heals[c, h, HEAL.COST + 1]
            or cs[c, CS.PA] < heals[c, h, HEAL.COST + 2]
        ):
            continue
        for a in range(stat.shape[0]):
            if stat[a, ST.SIDE] != stat[c, ST.SIDE] or cs[a, CS.STATUS] == DEFEATED:
                continue
            hurt = (
                cs[a, CS.PV] < stat[a, ST.MAX_PV] or (cs[a, CS.COND] & heals[c, h, HEAL.CURES]) != 0
            )
            if hurt and heals[c, h, HEAL.BAND + band(dist[zc, cs[a, CS.ZONE]])]:
                n = push(la, n, CURAR, a, -1, h, -1)
    return n


@njit(cache=True, _nrt=False, inline="always")
def legal(s: tuple, d: tuple, la: np.ndarray) -> int:
    """DestinyDice.legal_actions in its exact order, one ``la`` row each: their number."""
    stat, weapon, dist = s[STAT], s[WEAPON], s[DIST]
    cs, g = d[STATE], d[GLOBALS]
    c = g[G.ACTOR]
    n = 0
    zc = cs[c, CS.ZONE]
    cond = cs[c, CS.COND]
    if g[G.KIND] == KIND_REACTION:
        # DD-08: "puedes realizar un Contraataque inmediato (gratis) o reposicionarte".
        if not cond & (1 << PARALIZADO):
            vs = g[G.REACTION_VS]
            if cs[vs, CS.STATUS] == ACTIVE:
                n = _attacks(stat, weapon, dist, cs, c, CONTRA, vs, la, n)
            if not cond & ((1 << DERRIBADO) | (1 << INMOVIL)):
                n = _steps(dist, zc, REPOS, la, n)
        return push(la, n, PASAR, -1, -1, -1, -1)
    if not g[G.MOVED] and not cond & STAY:
        n = _steps(dist, zc, MOVER, la, n)
    if not g[G.ACTED] and not cond & (1 << PARALIZADO):
        n = _attacks(stat, weapon, dist, cs, c, ATACAR, -1, la, n)
        n = _helps(stat, dist, cs, c, la, n)
        n = _heals(stat, dist, s[HEALS], cs, d[USES], c, la, n)
        for w in range(stat[c, ST.WEAPONS]):
            if weapon[c, w, W.SHOOTS] and cs[c, CS.JAM] & (1 << w):
                n = push(la, n, RECARGAR, -1, -1, w, -1)
        if cond & (1 << DESARMADO):
            n = push(la, n, RECUPERAR, -1, -1, -1, -1)
    return push(la, n, FIN, -1, -1, -1, -1)


@njit(cache=True, _nrt=False, inline="always")
def move(s: tuple, d: tuple, c: int, zone: int, dice: np.ndarray) -> None:
    """DestinyDice._move: Asustado needs "Alma (Voluntad) Dif 5" to approach what it fears."""
    stat, dist = s[STAT], s[DIST]
    cs = d[STATE]
    if cs[c, CS.COND] & (1 << ASUSTADO):
        # DestinyDice._feared_approached: its sources (a bit each), or (-1) every active foe.
        src = cs[c, CS.FEAR]
        zc = cs[c, CS.ZONE]
        approached = False
        for f in range(stat.shape[0]):
            feared = (src >> f) & 1 == 1 if src >= 0 else stat[f, ST.SIDE] != stat[c, ST.SIDE]
            fz = cs[f, CS.ZONE]
            if feared and cs[f, CS.STATUS] == ACTIVE and dist[zone, fz] < dist[zc, fz]:
                approached = True
                break
        if approached:
            bonus = cs[c, CS.AYUDA]
            cs[c, CS.AYUDA] = 0
            face = roll(dice, stat[c, ST.ALMA])
            if face + bonus < 5:
                return
    cs[c, CS.ZONE] = zone


@njit(cache=True, _nrt=False, inline="always")
def profile_mods(
    weapon: np.ndarray,
    opts: np.ndarray,
    zones: np.ndarray,
    cs: np.ndarray,
    att: int,
    dfn: int,
    w: int,
) -> tuple[int, int]:
    """DestinyDice.profile's variable part: (att_mod, defence extra beyond the armour)
    — help, Ciego −2, and cover against ranged attacks."""
    att_mod = cs[att, CS.AYUDA]
    if cs[att, CS.COND] & (1 << CIEGO):
        att_mod -= 2
    extra = cs[dfn, CS.AYUDA]
    if weapon[att, w, W.CHAR] == 1:
        extra += opts[OPT.COVER_DEFENSE] * zones[cs[dfn, CS.ZONE], ZONE.COVER]
    return att_mod, extra


@njit(cache=True, _nrt=False, inline="always")
def attack(s: tuple, d: tuple, att: int, dfn: int, w: int, dice: np.ndarray) -> None:
    """DestinyDice.attack: DD-06 … DD-11, DD-14, DD-18, and DD-08's reaction."""
    stat, weapon, opts = s[STAT], s[WEAPON], s[OPTS]
    cs, g = d[STATE], d[GLOBALS]
    att_mod, extra = profile_mods(weapon, opts, s[ZONES], cs, att, dfn, w)
    def_mod = stat[dfn, ST.DEFENCE_BONUS] + extra
    ranged = weapon[att, w, W.CHAR] == 1
    die = stat[att, ST.MENTE] if ranged else stat[att, ST.CUERPO]
    cs[att, CS.AYUDA] = 0
    a = roll(dice, die)
    d20a = roll(dice, 20)
    if weapon[att, w, W.SHOOTS] and d20a == 1:
        # DD-18: "Si sacas 1 en el Dado del Destino al disparar, fallas automáticamente".
        if opts[OPT.JAM_ON_ONE]:
            cs[att, CS.JAM] |= 1 << w
        return
    cs[dfn, CS.AYUDA] = 0
    dr = roll(dice, stat[dfn, ST.DEFENSA])
    d20d = roll(dice, 20)
    att_total = a + att_mod
    def_total = dr + def_mod
    hit = att_total > def_total or (att_total == def_total and opts[OPT.TIES_ATTACKER] == 1)
    if hit:
        _hit(s, d, att, dfn, w, die, dice)
    if d20d == 1 and cs[dfn, CS.STATUS] == ACTIVE and (not hit or opts[OPT.FUMBLE_ALWAYS]):
        # DD-09: "Aunque tu Defensa supere al Ataque, recibes 1 punto de daño automático".
        damage(stat, cs, g, d[LOG], dfn, 1, att)
    if not hit and d20d == 20 and cs[dfn, CS.STATUS] == ACTIVE:
        # DD-08: the reaction is the defender's decision.
        g[G.REACTION_VS] = att
        g[G.KIND] = KIND_REACTION
        g[G.ACTOR] = dfn


@njit(cache=True, _nrt=False, inline="always")
def _hit(
    s: tuple,
    d: tuple,
    att: int,
    dfn: int,
    w: int,
    die: int,
    dice: np.ndarray,
) -> None:
    """DestinyDice._hit: DD-11 damage, DD-14 energy, the weapon's state."""
    stat, weapon = s[STAT], s[WEAPON]
    cs = d[STATE]
    face = roll(dice, die)
    if weapon[att, w, W.UNARMED]:
        base = face - 1 if face - 1 > 1 else 1
    else:
        base = face + weapon[att, w, W.TIER]
    dmg = base + weapon[att, w, W.EXTRA]
    if dmg < 0:
        dmg = 0
    damage(stat, cs, d[GLOBALS], d[LOG], dfn, dmg, att)
    # DD-14: "Brann gana 2 PC por impactar."
    pool = CS.PC if weapon[att, w, W.CHAR] == 0 else CS.PM
    gain = cs[att, pool] + 2
    cs[att, pool] = gain if gain < stat[att, ST.EMAX] else stat[att, ST.EMAX]
    inflicts = weapon[att, w, W.INFLICTS]
    if inflicts >= 0 and cs[dfn, CS.STATUS] == ACTIVE:
        if inflicts == ASUSTADO:
            # combat.frightened_by: a new fear adds its source; one of every foe (-1) stays.
            if not cs[dfn, CS.COND] & (1 << ASUSTADO):
                cs[dfn, CS.FEAR] = 1 << att
            elif cs[dfn, CS.FEAR] >= 0:
                cs[dfn, CS.FEAR] |= 1 << att
        cs[dfn, CS.COND] |= 1 << inflicts
        if inflicts == ENVENENADO:
            for k in range(DX):
                cs[dfn, CS.POISON + k] = weapon[att, w, W.DICE + k]


@njit(cache=True, _nrt=False, inline="always")
def heal(s: tuple, d: tuple, c: int, ally: int, h: int, dice: np.ndarray) -> None:
    """DestinyDice._heal (DD-16: a healed hero is back at once)."""
    stat, heals = s[STAT], s[HEALS]
    cs, uses = d[STATE], d[USES]
    if heals[c, h, HEAL.USES] >= 0:
        uses[c, h] -= 1
    cs[c, CS.PC] -= heals[c, h, HEAL.COST]
    cs[c, CS.PM] -= heals[c, h, HEAL.COST + 1]
    cs[c, CS.PA] -= heals[c, h, HEAL.COST + 2]
    total = roll_expr(dice, heals[c, h], HEAL.DICE)
    pv = cs[ally, CS.PV] + (total if total > 0 else 0)
    cs[ally, CS.PV] = pv if pv < stat[ally, ST.MAX_PV] else stat[ally, ST.MAX_PV]
    cs[ally, CS.COND] &= ~heals[c, h, HEAL.CURES]
    if cs[ally, CS.STATUS] == DOWN and cs[ally, CS.PV] > 0:
        set_status(stat, cs, d[GLOBALS], ally, ACTIVE)


@njit(cache=True, _nrt=False, inline="always")
def apply(s: tuple, d: tuple, row: np.ndarray, dice: np.ndarray) -> None:
    """DestinyDice.apply: the pending decision's action ``row``, up to the next
    decision or the end."""
    opts = s[OPTS]
    cs, g = d[STATE], d[GLOBALS]
    verb, target, item, zone = row[LA.VERB], row[LA.TARGET], row[LA.ITEM], row[LA.ZONE]
    c = g[G.ACTOR]
    g[G.KIND] = KIND_NONE
    # One call site each for move and advance: this function is compiled into the
    # battle and rollout loops (inline), and every call site is another copy of them.
    if verb == FIN:
        pass
    elif verb == MOVER or verb == REPOS:
        move(s, d, c, zone, dice)
        if verb == MOVER:
            g[G.MOVED] = 1
    elif verb == ATACAR or verb == CONTRA:
        attack(s, d, c, target, item, dice)
        if verb == ATACAR:
            g[G.ACTED] = 1
    elif verb == PASAR:
        pass
    else:
        if verb == AYUDAR:
            bonus = opts[OPT.HELP_BONUS]
            if cs[target, CS.AYUDA] < bonus:
                cs[target, CS.AYUDA] = bonus
        elif verb == CURAR:
            heal(s, d, c, target, item, dice)
        elif verb == RECARGAR:
            cs[c, CS.JAM] &= ~(1 << item)
        elif verb == RECUPERAR:
            cs[c, CS.COND] &= ~(1 << DESARMADO)
        g[G.ACTED] = 1
    if verb != FIN:
        check_end(s[STAT], cs, g)
    if verb == FIN or g[G.OUTCOME] == RUNNING and g[G.KIND] == KIND_NONE:
        # DestinyDice._continue_turn
        actor = g[G.TURN_ACTOR]
        can_move = not g[G.MOVED] and not cs[actor, CS.COND] & STAY
        can_act = not g[G.ACTED] and not cs[actor, CS.COND] & (1 << PARALIZADO)
        if verb != FIN and cs[actor, CS.STATUS] == ACTIVE and (can_move or can_act):
            g[G.KIND] = KIND_TURN
            g[G.ACTOR] = actor
        else:
            advance(s, d, dice)
