"""Destiny Dice compiled (the fast path): the rules of :mod:`.ruleset` over plain arrays.

architecture.md, "The fast path": the engine is the specification and this module is
the same rules, compiled with numba, function by function (each names the engine
method it mirrors and its rule id). The temperaments and the battle/rollout loops that
join them to these rules are in ``agents/heuristics/destiny_dice_kernel.py`` (rules/
never imports agents/). Nothing here narrates: a battle is arrays in, arrays out.

Dice come from :mod:`escaramuza.rules.core.mt` (CPython's MT19937, draw for draw) in
exactly the order the engine rolls them, so one seed plays one battle on both.

Layout (all ``int64`` unless said):

* ``K`` — the scenario, built once (:func:`export_scenario`): ``S[c, S_*]`` stat block
  per combatant (scenario order), ``WS[c, w, W_*]`` weapons (``Sheet.weapons`` order),
  ``HS[c, h, H_*]`` heals, ``ZS[z, Z_*]`` zones (cover, exit, neighbours in map order),
  ``DIST[z, z]`` hops, ``OPT[O_*]`` options, and the exact-odds tables ``PROF`` (profile
  id of attacker × weapon × defender × attack modifier × defence extra), ``EPL``
  (``exact.expected_pv_loss``) and ``DROP`` (``exact.drop_probability`` by PV, its last
  column standing for every PV from there up: the reader clamps the index): the
  engine's own floats, so the heuristics compare identical numbers.
* ``ST`` — one battle's changing state: ``D[c, D_*]`` per combatant (zone, status,
  PV/PC/PM/PA, conditions as a bit mask, fear source, ayuda, jams, poison dice and the
  playtest counters), ``U[c, h]`` uses left, ``G[G_*]`` round/turn/pending/outcome,
  ``ORD`` the initiative order.
* Dice expressions (heals, Envenenado X) are ``[modifier, terms, (count, sides, sign)…]``.

Every value is checked on its way in (``rules.core.kernel.check_range``; the bounds below
and docs/fast-path.md, "The kernel boundary"): the compiled code indexes its tables by
these numbers without bounds checks and adds them in int64.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from escaramuza.rules.core.dice import parse_dice
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.kernel import BOUND, check_range
from escaramuza.rules.core.model import Combatant, DecisionKind, Side, Status
from escaramuza.rules.core.mt import roll
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.destiny_dice.exact import (
    AttackProfile,
    drop_probability,
    expected_pv_loss,
    pv_loss_distribution,
)
from escaramuza.rules.destiny_dice.stats import CONDITIONS

# -- codes --------------------------------------------------------------------------
#: Condition bits, in stats.CONDITIONS order.
COND_BIT = {name: i for i, name in enumerate(CONDITIONS)}
DERRIBADO = COND_BIT["derribado"]
INMOVIL = COND_BIT["inmovil"]
PARALIZADO = COND_BIT["paralizado"]
DESARMADO = COND_BIT["desarmado"]
CIEGO = COND_BIT["ciego"]
ASUSTADO = COND_BIT["asustado"]
ENVENENADO = COND_BIT["envenenado"]

STATUSES = (Status.ACTIVE, Status.DOWN, Status.DEFEATED)
ACTIVE, DOWN, DEFEATED = 0, 1, 2

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

TEMPERAMENT_CODES = {
    "tactician": 0,
    "brute": 1,
    "cautious": 2,
    "coward": 3,
    "protector": 4,
    "random": 5,
}

#: Outcome winner codes and reasons.
HEROES, ENEMIES, DRAW = 0, 1, 2
REASONS = ("defeated", "mutual", "timeout")
DEFEATED_R, MUTUAL_R, TIMEOUT_R = 0, 1, 2
#: playtest.NEVER: a combatant never knocked out.
NEVER = -1

# dice expressions: modifier, number of terms, then (count, sides, sign) per term
MAX_TERMS = 4
DX = 2 + 3 * MAX_TERMS

# S columns (static per combatant)
S_SIDE, S_HERO, S_CUERPO, S_MENTE, S_ALMA, S_DEFENSA, S_DEFBONUS = range(7)
S_MAXPV, S_EMAX, S_NW, S_NH, S_TEMP, S_RANGED = range(7, 13)
NS = 13
# WS columns (per weapon)
W_CHAR, W_B0, W_TIER, W_EXTRA, W_UNARMED, W_SHOOTS, W_INFL, W_DICE = 0, 1, 4, 5, 6, 7, 8, 9
NWS = W_DICE + DX
# HS columns (per heal)
H_B0, H_USES, H_COST, H_CURES, H_DICE = 0, 3, 4, 7, 8
NHS = H_DICE + DX
# ZS columns
Z_COVER, Z_EXIT, Z_NDEG, Z_NBR = 0, 1, 2, 3
# OPT
O_TIES_ATT, O_HELP, O_JAM, O_COVERDEF, O_FUMBLE_ALWAYS, O_LIMIT, O_SURVIVE, O_NC = range(8)
NOPT = 8
# D columns (dynamic per combatant)
D_ZONE, D_STATUS, D_PV, D_PC, D_PM, D_PA, D_COND, D_FEAR, D_AYUDA, D_JAM = range(10)
D_KO, D_DEALT, D_TOFOES, D_TAKEN, D_POISON = range(10, 15)
#: The initiative roll (scratch for start()).
D_INIT = D_POISON + DX
ND = D_INIT + 1
# G (globals)
G_ROUND, G_TURN, G_NORDER, G_ACTOR, G_MOVED, G_ACTED, G_RVS = range(7)
G_PKIND, G_PACTOR, G_OUT, G_REASON, G_WIPE, G_DEC = range(7, 13)
NG = 13
PK_NONE, PK_TURN, PK_REACTION = 0, 1, 2
#: Largest help bonus / ayuda value the profile tables cover (Options.help_bonus <= 2).
MAX_AYUDA = 2

# -- the boundary (rules.core.kernel.check_range): what the tables and int64 hold -------
#: Characteristic and defence dice: the exact odds loop over every pair of faces.
MAX_DIE = 1 << 10
#: A weapon's tier and special bonus: the most PV one attack can take (die + tier +
#: bonus + the fumble point) is the width of DROP, so it stays a small table.
MAX_BONUS = 1 << 10
#: A zone's cover: PROF's defence-extra axis is ``3 + cover_defense × cover`` wide, and
#: the move keys pack a zone's cover in 21 bits (``_pack``).
MAX_COVER = 16
#: Options.cover_defense's own range (the profile tables' extent).
MAX_COVER_DEFENSE = 3
#: Dice of a heal or of Envenenado X: terms' dice counts and faces.
MAX_COUNT = 1 << 10
MAX_SIDES = 1 << 20
#: PROF's entries (combatants² × weapons × attack modifiers × defence extras).
MAX_PROFILES = 1 << 24


class UnsupportedFeature(ValueError):
    """A scenario or state feature the kernel does not implement (the refusal's reason)."""


def _check(value: object, lo: int, hi: int, what: str) -> None:
    """rules.core.kernel.check_range, refusing with this module's UnsupportedFeature."""
    check_range(value, lo, hi, what, UnsupportedFeature)


def dice_code(text: str | int | None, what: str) -> np.ndarray:
    """A dice expression as the kernel rolls it (DiceExpr.roll: terms in order)."""
    expr = parse_dice(text if text is not None else "1")
    out = np.zeros(DX, dtype=np.int64)
    if len(expr.terms) > MAX_TERMS:
        raise UnsupportedFeature(f"{what}: dice {expr.text!r} has more than {MAX_TERMS} terms")
    _check(expr.modifier, -BOUND, BOUND, f"{what}: dice {expr.text!r} modifier")
    out[0] = expr.modifier
    out[1] = len(expr.terms)
    for i, term in enumerate(expr.terms):
        if term.keep is not None:
            raise UnsupportedFeature(f"{what}: dice {expr.text!r} keeps the highest (kh)")
        _check(term.count, 1, MAX_COUNT, f"{what}: dice {expr.text!r} count")
        _check(term.sides, 1, MAX_SIDES, f"{what}: dice {expr.text!r} faces")
        _check(term.sign, -1, 1, f"{what}: dice {expr.text!r} sign")
        out[2 + 3 * i : 5 + 3 * i] = (term.count, term.sides, term.sign)
    return out


# -- export: scenario (once) and state (per call) -----------------------------------
def export_scenario(scenario: Any) -> tuple[np.ndarray, ...]:
    """``K``: the scenario's static arrays and exact-odds tables (see the module doc)."""
    combatants: list[Combatant] = list(scenario.combatants)
    field = scenario.battlefield
    options = scenario.options
    zone_ids = field.zone_ids
    zindex = field.index
    nc, nz = len(combatants), len(zone_ids)
    nw = max(len(c.stats.weapons) for c in combatants)
    nh = max([len(c.stats.heals) for c in combatants] + [1])
    S = np.zeros((nc, NS), dtype=np.int64)
    WS = np.zeros((nc, nw, NWS), dtype=np.int64)
    HS = np.zeros((nc, nh, NHS), dtype=np.int64)
    if nw > 62:
        raise UnsupportedFeature("more than 62 weapons on one stat block")
    for i, c in enumerate(combatants):
        sheet = c.stats
        temperament = TEMPERAMENT_CODES.get(c.temperament)
        if temperament is None:
            raise UnsupportedFeature(f"{c.id}: temperament {c.temperament!r}")
        for name in ("cuerpo", "mente", "alma", "defensa"):
            _check(getattr(sheet, name), 1, MAX_DIE, f"{c.id}: {name} die")
        _check(sheet.defence_bonus, -BOUND, BOUND, f"{c.id}: defence bonus")
        _check(c.maxima["pv"], 1, BOUND, f"{c.id}: maximum pv")
        for pool in ("pc", "pm", "pa"):
            _check(c.maxima[pool], 0, BOUND, f"{c.id}: maximum {pool}")
        S[i] = (
            0 if c.side is Side.HEROES else 1,
            int(c.pc),
            sheet.cuerpo,
            sheet.mente,
            sheet.alma,
            sheet.defensa,
            sheet.defence_bonus,
            c.maxima["pv"],
            c.maxima["pc"],
            len(sheet.weapons),
            len(sheet.heals),
            temperament,
            int(sheet.ranged),
        )
        if not (c.maxima["pc"] == c.maxima["pm"] == c.maxima["pa"]):
            raise UnsupportedFeature(f"{c.id}: energy pools with different maxima")
        if c.pc != (c.side is Side.HEROES):
            raise UnsupportedFeature(f"{c.id}: a player character on the enemies' side")
        _export_weapons(c, WS[i])
        _export_heals(c, HS[i])
    maxdeg = max(len(field.neighbours(z)) for z in zone_ids)
    ZS = np.zeros((nz, Z_NBR + maxdeg), dtype=np.int64)
    DIST = np.zeros((nz, nz), dtype=np.int64)
    for a, z in enumerate(zone_ids):
        zone = field.zones[z]
        nbrs = field.neighbours(z)
        _check(zone.cover, 0, MAX_COVER, f"zone {z}: cover")
        ZS[a, Z_COVER] = zone.cover
        ZS[a, Z_EXIT] = int(zone.exit)
        ZS[a, Z_NDEG] = len(nbrs)
        for k, n in enumerate(nbrs):
            ZS[a, Z_NBR + k] = zindex[n]
        hops = field.distances_from(z)
        for b, z2 in enumerate(zone_ids):
            DIST[a, b] = hops[z2]
    OPT = np.array(
        [
            int(options.ties_favor == "attacker"),
            options.help_bonus,
            int(bool(options.jam_on_one)),
            options.cover_defense,
            int(options.fumble_damage == "always"),
            scenario.round_limit,
            int(scenario.victory == "survive"),
            nc,
        ],
        dtype=np.int64,
    )
    _check(options.help_bonus, 0, MAX_AYUDA, "help_bonus")
    _check(options.cover_defense, 0, MAX_COVER_DEFENSE, "cover_defense")
    _check(scenario.round_limit, 1, BOUND, "round_limit")
    PROF, EPL, DROP = _profile_tables(scenario, nw, int(ZS[:, Z_COVER].max()))
    return (S, WS, HS, ZS, DIST, OPT, PROF, EPL, DROP)


def _export_weapons(c: Combatant, WS: np.ndarray) -> None:
    """``WS[c]``: the sheet's weapons in ``Sheet.weapons`` order."""
    for j, w in enumerate(c.stats.weapons.values()):
        row = WS[j]
        row[W_CHAR] = 0 if w.characteristic == "cuerpo" else 1
        for b in w.bands:
            row[W_B0 + b] = 1
        _check(w.tier_bonus, -MAX_BONUS, MAX_BONUS, f"{c.id}: {w.name} tier bonus")
        _check(w.extra, -MAX_BONUS, MAX_BONUS, f"{c.id}: {w.name} bonus")
        row[W_TIER] = w.tier_bonus
        row[W_EXTRA] = w.extra
        row[W_UNARMED] = int(w.unarmed)
        row[W_SHOOTS] = int(w.shoots)
        row[W_INFL] = COND_BIT[w.inflicts] if w.inflicts else -1
        if w.inflicts == "envenenado":
            row[W_DICE:] = dice_code(w.inflicts_x, f"{c.id}: {w.name} inflicts")


def _export_heals(c: Combatant, HS: np.ndarray) -> None:
    """``HS[c]``: the sheet's heals in ``Sheet.heals`` order."""
    for j, h in enumerate(c.stats.heals.values()):
        row = HS[j]
        for b in h.bands:
            row[H_B0 + b] = 1
        if h.uses is not None:
            _check(h.uses, 0, BOUND, f"{c.id}: heal {h.name} uses")
        row[H_USES] = -1 if h.uses is None else h.uses
        cost = dict(h.cost)
        unknown = set(cost) - {"pc", "pm", "pa"}
        if unknown:
            raise UnsupportedFeature(f"{c.id}: heal {h.name} costs {sorted(unknown)}")
        for pool, value in cost.items():
            _check(value, -BOUND, BOUND, f"{c.id}: heal {h.name} cost in {pool}")
        row[H_COST : H_COST + 3] = (cost.get("pc", 0), cost.get("pm", 0), cost.get("pa", 0))
        row[H_CURES] = sum(1 << COND_BIT[name] for name in h.cures)
        row[H_DICE:] = dice_code(h.heal, f"{c.id}: heal {h.name}")


def _profile_tables(
    scenario: Any, nw: int, max_cover: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PROF, EPL, DROP: every AttackProfile an attack of this scenario can have
    (:func:`attack_profiles`), with the engine's own exact.py floats.

    ``DROP[p, pv]`` is ``drop_probability(p, pv)`` for pv up to the table's last column,
    which stands for every PV from there up (``attack_score`` clamps the index): an
    attack takes at most the largest loss of its distribution, so from one PV past it
    the probability is 0 (an empty sum, as the engine's). The width is one past the
    largest loss of any profile or the largest PV of the scenario, whichever is smaller:
    never O(PV)."""
    PROF, ids = attack_profiles(scenario, nw, max_cover)
    max_pv = max(c.maxima["pv"] for c in scenario.combatants)
    max_loss = max((max(pv_loss_distribution(p)) for p in ids), default=0)
    width = min(max_pv, max_loss + 1) + 1
    EPL = np.zeros(len(ids), dtype=np.float64)
    DROP = np.zeros((len(ids), width), dtype=np.float64)
    for p, pid in ids.items():
        EPL[pid] = expected_pv_loss(p)
        for pv in range(width):
            DROP[pid, pv] = drop_probability(p, pv)
    return PROF, EPL, DROP


def attack_profiles(
    scenario: Any, nw: int, max_cover: int
) -> tuple[np.ndarray, dict[AttackProfile, int]]:
    """PROF and the profiles it numbers: the AttackProfile of attacker × weapon ×
    defender × attack modifier (ayuda − 2·Ciego, in [−2, MAX_AYUDA]) × defence extra
    (ayuda + cover term); -1 where the two are on one side."""
    combatants = list(scenario.combatants)
    options = scenario.options
    nc = len(combatants)
    n_dm = MAX_AYUDA + 1 + options.cover_defense * max_cover
    size = nc * nw * nc * (MAX_AYUDA + 3) * n_dm
    if size > MAX_PROFILES:
        raise UnsupportedFeature(f"{size} attack profiles (the tables hold {MAX_PROFILES})")
    PROF = np.full((nc, nw, nc, MAX_AYUDA + 3, n_dm), -1, dtype=np.int64)
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
                        PROF[i, j, k, am + 2, dm] = ids.setdefault(p, len(ids))
    return PROF, ids


def export_combatants(combatants: list[Combatant], nh: int) -> tuple[np.ndarray, np.ndarray]:
    """``D`` and ``U`` of combatants in scenario order (cost about one clone)."""
    index = {c.id: i for i, c in enumerate(combatants)}
    D = np.zeros((len(combatants), ND), dtype=np.int64)
    U = np.zeros((len(combatants), nh), dtype=np.int64)
    for i, c in enumerate(combatants):
        row = D[i]
        row[D_ZONE] = -1  # set by the caller (zone index of the battlefield)
        row[D_STATUS] = STATUSES.index(c.status) if c.status in STATUSES else -1
        if row[D_STATUS] < 0:
            raise UnsupportedFeature(f"{c.id}: status {c.status.value}")
        res = c.resources
        if set(res) != {"pv", "pc", "pm", "pa"}:
            raise UnsupportedFeature(f"{c.id}: resources {sorted(res)}")
        for name in ("pv", "pc", "pm", "pa"):
            _check(res[name], 0, c.maxima[name], f"{c.id}: {name}")
        row[D_PV], row[D_PC], row[D_PM], row[D_PA] = res["pv"], res["pc"], res["pm"], res["pa"]
        _export_conditions(c, row, index)
        _export_data(c, row, U[i])
        row[D_KO] = NEVER
    return D, U


def _export_conditions(c: Combatant, row: np.ndarray, index: dict[str, int]) -> None:
    """``D[c]``'s conditions (a bit each), Asustado's source and Envenenado's dice."""
    mask = 0
    for name, cond in c.conditions.items():
        if name not in COND_BIT:
            raise UnsupportedFeature(f"{c.id}: condition {name!r}")
        if cond.value:
            raise UnsupportedFeature(f"{c.id}: condition {name} with a value")
        mask |= 1 << COND_BIT[name]
    row[D_COND] = mask
    fear = c.conditions.get("asustado")
    row[D_FEAR] = -1
    if fear is not None and fear.source:
        if fear.source not in index:
            raise UnsupportedFeature(f"{c.id}: asustado of {fear.source!r}, not a combatant")
        row[D_FEAR] = index[fear.source]
    poison = c.conditions.get("envenenado")
    if poison is not None:
        row[D_POISON : D_POISON + DX] = dice_code(poison.dice, f"{c.id}: envenenado")


def _export_data(c: Combatant, row: np.ndarray, uses: np.ndarray) -> None:
    """``D[c]``'s ayuda and jammed weapons, and ``U[c]``: the heals' uses left."""
    jam = 0
    for key, value in c.data.items():
        if key == "ayuda":
            _check(value, 0, MAX_AYUDA, f"{c.id}: ayuda")
            row[D_AYUDA] = value
        elif key.startswith("jam:"):
            names = list(c.stats.weapons)
            name = key[4:]
            if value and name in names and c.stats.weapons[name].shoots:
                jam |= 1 << names.index(name)
            elif value:
                raise UnsupportedFeature(f"{c.id}: {key}")
        elif key.startswith("uses:"):
            heals = list(c.stats.heals)
            name = key[5:]
            if name not in heals:
                raise UnsupportedFeature(f"{c.id}: {key}")
            _check(value, 0, BOUND, f"{c.id}: {key}")
            uses[heals.index(name)] = value
        else:
            raise UnsupportedFeature(f"{c.id}: data {key!r}")
    row[D_JAM] = jam


def export_state(state: BattleState, nh: int) -> tuple[np.ndarray, ...]:
    """``ST`` of an engine state: (D, U, G, ORD). Refuses what it cannot resume, and any
    value outside the range the compiled rules index or add (the module's bounds):
    resources within 0 and their maxima (the scenario's), the round within the round
    limit, the turn an entry of the order, the order distinct combatants, the turn's
    actor and a reaction's attacker combatants."""
    combatants = state.combatants
    scenario = state.scenario
    if [c.id for c in combatants] != [c.id for c in scenario.combatants]:
        raise UnsupportedFeature("combatants differ from the scenario's")
    for c, c0 in zip(combatants, scenario.combatants, strict=True):
        if c.maxima != c0.maxima:
            raise UnsupportedFeature(f"{c.id}: maxima {c.maxima} are not the scenario's")
    D, U = export_combatants(combatants, nh)
    zindex = state.battlefield.index
    index = {c.id: i for i, c in enumerate(combatants)}
    for i, c in enumerate(combatants):
        D[i, D_ZONE] = zindex[c.zone]
    G = np.zeros(NG, dtype=np.int64)
    ORD = np.zeros(len(combatants), dtype=np.int64)
    data = state.data
    order = state.order
    _check(state.round, 1, scenario.round_limit, "round")
    _check(len(order), 1, len(combatants), "turn order length")
    if len(set(order)) != len(order):
        raise UnsupportedFeature(f"turn order {list(order)} names a combatant twice")
    _check(state.turn, 0, len(order) - 1, "turn")
    G[G_ROUND] = state.round
    G[G_TURN] = state.turn
    G[G_NORDER] = len(order)
    for k, cid in enumerate(order):
        ORD[k] = index[cid]
    actor = data.get("turn_actor")
    if actor is None:
        raise UnsupportedFeature("no turn_actor")
    G[G_ACTOR] = index[actor]
    G[G_MOVED] = int(bool(data.get("moved", True)))
    G[G_ACTED] = int(bool(data.get("acted", True)))
    vs = data.get("reaction_vs")
    G[G_RVS] = -1 if vs is None else index[vs]
    pending = state.pending
    if state.outcome is not None or pending is None:
        raise UnsupportedFeature("the battle has no pending decision")
    if pending.kind is DecisionKind.TURN and pending.name == "turn":
        G[G_PKIND] = PK_TURN
    elif pending.kind is DecisionKind.REACTION and pending.name == "defensa_perfecta":
        if vs is None:
            raise UnsupportedFeature("a perfect-defence reaction without its attacker")
        G[G_PKIND] = PK_REACTION
    else:
        raise UnsupportedFeature(f"pending decision {pending.name!r}")
    G[G_PACTOR] = index[pending.actor]
    G[G_OUT] = -1
    return D, U, G, ORD


# -- compiled rules -----------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def band(hops: int) -> int:
    """DD-05: 0 hops cuerpo a cuerpo, 1 cerca, 2 or more lejos (DestinyDice.band)."""
    return hops if hops < 2 else 2


@njit(cache=True, _nrt=False)
def roll_expr(mt: np.ndarray, X: np.ndarray, base: int) -> int:
    """DiceExpr.roll: the modifier plus every term's dice, rolled in order."""
    total = X[base]
    for t in range(X[base + 1]):
        count = X[base + 2 + 3 * t]
        sides = X[base + 3 + 3 * t]
        s = 0
        for _ in range(count):
            s += roll(mt, sides)
        total += X[base + 4 + 3 * t] * s
    return total


@njit(cache=True, _nrt=False, inline="always")
def all_heroes_out(K: tuple, ST: tuple) -> bool:
    """playtest.record_from_events' wipe test: every hero knocked out at once."""
    S = K[0]
    D = ST[0]
    any_hero = False
    for i in range(S.shape[0]):
        if S[i, S_SIDE] == HEROES:
            any_hero = True
            if D[i, D_STATUS] == ACTIVE:
                return False
    return any_hero


@njit(cache=True, _nrt=False)
def set_status(K: tuple, ST: tuple, c: int, status: int) -> None:
    """Ruleset.set_status plus what its StatusChanged event means to the playtest
    counters (first knock-out round, wipe)."""
    D, G = ST[0], ST[2]
    D[c, D_STATUS] = status
    if status != ACTIVE and D[c, D_KO] == NEVER:
        D[c, D_KO] = G[G_ROUND]
    if G[G_WIPE] == 0 and all_heroes_out(K, ST):
        G[G_WIPE] = 1


@njit(cache=True, _nrt=False)
def damage(K: tuple, ST: tuple, c: int, amount: int, source: int) -> None:
    """DestinyDice._damage (DD-15, DD-16) and its Damaged event's counters."""
    S = K[0]
    D = ST[0]
    before = D[c, D_PV]
    after = before - amount
    if after < 0:
        after = 0
    D[c, D_PV] = after
    lost = before - after
    D[c, D_TAKEN] += lost
    if source >= 0:
        D[source, D_DEALT] += lost
        if S[source, S_SIDE] != S[c, S_SIDE]:
            D[source, D_TOFOES] += lost
    if after == 0 and D[c, D_STATUS] == ACTIVE:
        set_status(K, ST, c, DOWN if S[c, S_HERO] else DEFEATED)


@njit(cache=True, _nrt=False)
def finish(K: tuple, ST: tuple, winner: int, reason: int) -> None:
    """Ruleset.finish + DestinyDice.on_battle_end: downed heroes wake with 1 PV (DD-16)."""
    S = K[0]
    D, G = ST[0], ST[2]
    G[G_OUT] = winner
    G[G_REASON] = reason
    G[G_PKIND] = PK_NONE
    for i in range(S.shape[0]):
        if S[i, S_HERO] and D[i, D_STATUS] == DOWN:
            D[i, D_PV] = 1
            set_status(K, ST, i, ACTIVE)


@njit(cache=True, _nrt=False)
def check_end(K: tuple, ST: tuple) -> None:
    """Ruleset.check_end: one side with nobody able to fight ends the battle."""
    S = K[0]
    D, G = ST[0], ST[2]
    if G[G_OUT] >= 0:
        return
    heroes = False
    enemies = False
    for i in range(S.shape[0]):
        if D[i, D_STATUS] == ACTIVE:
            if S[i, S_SIDE] == HEROES:
                heroes = True
            else:
                enemies = True
    if heroes and enemies:
        return
    if heroes:
        finish(K, ST, HEROES, DEFEATED_R)
    elif enemies:
        finish(K, ST, ENEMIES, DEFEATED_R)
    else:
        finish(K, ST, DRAW, MUTUAL_R)


@njit(cache=True, _nrt=False)
def begin_round(K: tuple, ST: tuple) -> None:
    """Ruleset.begin_round: the round limit ends the battle (timeout_winner)."""
    S, OPT = K[0], K[5]
    D, G = ST[0], ST[2]
    G[G_ROUND] += 1
    if G[G_ROUND] > OPT[O_LIMIT]:
        G[G_ROUND] = OPT[O_LIMIT]
        winner = DRAW
        if OPT[O_SURVIVE]:
            for i in range(S.shape[0]):
                if S[i, S_SIDE] == HEROES and D[i, D_STATUS] == ACTIVE:
                    winner = HEROES
                    break
        finish(K, ST, winner, TIMEOUT_R)


@njit(cache=True, _nrt=False)
def start(K: tuple, ST: tuple, mt: np.ndarray) -> None:
    """DestinyDice.start: DD-01 initiative (Mente), DD-02 ties heroes first, then
    scenario order; then the first turn."""
    S = K[0]
    D, G, ORD = ST[0], ST[2], ST[3]
    nc = S.shape[0]
    n = 0
    for i in range(nc):
        if D[i, D_STATUS] != ACTIVE:
            continue
        D[i, D_INIT] = roll(mt, S[i, S_MENTE])
        # insertion by (-roll, side, index): stable, scenario order breaks the last tie
        k = n
        while k > 0:
            j = ORD[k - 1]
            rj, ri = D[j, D_INIT], D[i, D_INIT]
            if rj > ri or (rj == ri and S[j, S_SIDE] <= S[i, S_SIDE]):
                break
            ORD[k] = j
            k -= 1
        ORD[k] = i
        n += 1
    G[G_NORDER] = n
    G[G_TURN] = -1
    G[G_ACTOR] = -1
    G[G_MOVED] = 1
    G[G_ACTED] = 1
    begin_round(K, ST)
    if G[G_OUT] < 0:
        advance(K, ST, mt)


@njit(cache=True, _nrt=False, inline="always")
def advance(K: tuple, ST: tuple, mt: np.ndarray) -> None:
    """DestinyDice._advance: the next combatant able to act, starting rounds as needed."""
    D, G, ORD = ST[0], ST[2], ST[3]
    G[G_PKIND] = PK_NONE
    while G[G_OUT] < 0:
        G[G_TURN] += 1
        if G[G_TURN] >= G[G_NORDER]:
            G[G_TURN] = 0
            begin_round(K, ST)
            if G[G_OUT] >= 0:
                return
        c = ORD[G[G_TURN]]
        if D[c, D_STATUS] != ACTIVE:
            continue
        if start_turn(K, ST, c, mt):
            G[G_PKIND] = PK_TURN
            G[G_PACTOR] = c
            return
        check_end(K, ST)


@njit(cache=True, _nrt=False)
def start_turn(K: tuple, ST: tuple, c: int, mt: np.ndarray) -> bool:
    """DestinyDice._start_turn (DD-19): Envenenado's damage, then the temporal states
    end and apply to this turn. True if ``c`` has a choice to make."""
    D, G = ST[0], ST[2]
    moved = False
    acted = False
    if D[c, D_COND] & (1 << ENVENENADO):
        total = roll_expr(mt, D[c], D_POISON)
        damage(K, ST, c, total, -1)
        if D[c, D_STATUS] != ACTIVE:
            return False
    cond = D[c, D_COND]
    if cond:
        if cond & (1 << PARALIZADO):
            moved = True
            acted = True
        if cond & (1 << DERRIBADO):
            acted = True
        if cond & (1 << INMOVIL):
            moved = True
        D[c, D_COND] = cond & ~((1 << PARALIZADO) | (1 << DERRIBADO) | (1 << INMOVIL))
    G[G_ACTOR] = c
    G[G_MOVED] = 1 if moved else 0
    G[G_ACTED] = 1 if acted else 0
    return not (moved and acted)


@njit(cache=True, _nrt=False, inline="always")
def weapon_usable(WS: np.ndarray, D: np.ndarray, c: int, w: int) -> bool:
    """DestinyDice._usable_weapons: Desarmado leaves only unarmed attacks; a jammed
    weapon that shoots waits for ``recargar`` (DD-18)."""
    if D[c, D_COND] & (1 << DESARMADO) and not WS[c, w, W_UNARMED]:
        return False
    if WS[c, w, W_SHOOTS] and D[c, D_JAM] & (1 << w):
        return False
    return True


@njit(cache=True, _nrt=False, inline="always")
def usable_band_mask(K: tuple, ST: tuple, c: int) -> int:
    """DestinyDice.usable_bands as a bit mask."""
    S, WS = K[0], K[1]
    D = ST[0]
    mask = 0
    for w in range(S[c, S_NW]):
        if weapon_usable(WS, D, c, w):
            for b in range(3):
                if WS[c, w, W_B0 + b]:
                    mask |= 1 << b
    return mask


@njit(cache=True, _nrt=False, inline="always")
def _push(LA: np.ndarray, n: int, verb: int, target: int, item: int, zone: int) -> int:
    LA[n, 0] = verb
    LA[n, 1] = target
    LA[n, 2] = item
    LA[n, 3] = zone
    return n + 1


@njit(cache=True, _nrt=False)
def _attacks(K: tuple, ST: tuple, c: int, verb: int, only: int, LA: np.ndarray, n: int) -> int:
    """DestinyDice._attacks: every active foe (scenario order) × usable weapon reaching
    its band (weapons order); ``only`` >= 0 keeps that target (the counterattack)."""
    S, WS, DIST = K[0], K[1], K[4]
    D = ST[0]
    zc = D[c, D_ZONE]
    for t in range(S.shape[0]):
        if S[t, S_SIDE] == S[c, S_SIDE] or D[t, D_STATUS] != ACTIVE:
            continue
        if only >= 0 and t != only:
            continue
        b = band(DIST[zc, D[t, D_ZONE]])
        for w in range(S[c, S_NW]):
            if WS[c, w, W_B0 + b] and weapon_usable(WS, D, c, w):
                n = _push(LA, n, verb, t, w, -1)
    return n


@njit(cache=True, _nrt=False)
def _steps(K: tuple, zone: int, verb: int, LA: np.ndarray, n: int) -> int:
    """``_steps``: ``verb`` to each neighbour of ``zone``, in map order."""
    ZS = K[3]
    for k in range(ZS[zone, Z_NDEG]):
        n = _push(LA, n, verb, -1, -1, ZS[zone, Z_NBR + k])
    return n


@njit(cache=True, _nrt=False)
def _helps(K: tuple, ST: tuple, c: int, LA: np.ndarray, n: int) -> int:
    """DestinyDice._helps: DD-04 gives no range; an active ally within cerca."""
    S, DIST = K[0], K[4]
    D = ST[0]
    zc = D[c, D_ZONE]
    for a in range(S.shape[0]):
        if (
            S[a, S_SIDE] == S[c, S_SIDE]
            and D[a, D_STATUS] == ACTIVE
            and a != c
            and DIST[zc, D[a, D_ZONE]] <= 1
        ):
            n = _push(LA, n, AYUDAR, a, -1, -1)
    return n


@njit(cache=True, _nrt=False)
def _heals(K: tuple, ST: tuple, c: int, LA: np.ndarray, n: int) -> int:
    """DestinyDice._heals: each heal with uses and energy left, on every hurt (or
    curable) ally, active or down, within the heal's bands."""
    S, HS, DIST = K[0], K[2], K[4]
    D, U = ST[0], ST[1]
    zc = D[c, D_ZONE]
    for h in range(S[c, S_NH]):
        if HS[c, h, H_USES] >= 0 and U[c, h] <= 0:
            continue
        if (
            D[c, D_PC] < HS[c, h, H_COST]
            or D[c, D_PM] < HS[c, h, H_COST + 1]
            or D[c, D_PA] < HS[c, h, H_COST + 2]
        ):
            continue
        for a in range(S.shape[0]):
            if S[a, S_SIDE] != S[c, S_SIDE] or D[a, D_STATUS] == DEFEATED:
                continue
            hurt = D[a, D_PV] < S[a, S_MAXPV] or (D[a, D_COND] & HS[c, h, H_CURES]) != 0
            if hurt and HS[c, h, H_B0 + band(DIST[zc, D[a, D_ZONE]])]:
                n = _push(LA, n, CURAR, a, h, -1)
    return n


@njit(cache=True, _nrt=False, inline="always")
def legal_actions(K: tuple, ST: tuple, LA: np.ndarray) -> int:
    """DestinyDice.legal_actions in its exact order; rows (verb, target, item, zone)."""
    S, WS = K[0], K[1]
    D, G = ST[0], ST[2]
    c = G[G_PACTOR]
    n = 0
    zc = D[c, D_ZONE]
    cond = D[c, D_COND]
    if G[G_PKIND] == PK_REACTION:
        # DD-08: "puedes realizar un Contraataque inmediato (gratis) o reposicionarte".
        if not cond & (1 << PARALIZADO):
            vs = G[G_RVS]
            if D[vs, D_STATUS] == ACTIVE:
                n = _attacks(K, ST, c, CONTRA, vs, LA, n)
            if not cond & ((1 << DERRIBADO) | (1 << INMOVIL)):
                n = _steps(K, zc, REPOS, LA, n)
        return _push(LA, n, PASAR, -1, -1, -1)
    if not G[G_MOVED] and not cond & (1 << DERRIBADO):
        n = _steps(K, zc, MOVER, LA, n)
    if not G[G_ACTED]:
        n = _attacks(K, ST, c, ATACAR, -1, LA, n)
        n = _helps(K, ST, c, LA, n)
        n = _heals(K, ST, c, LA, n)
        for w in range(S[c, S_NW]):
            if WS[c, w, W_SHOOTS] and D[c, D_JAM] & (1 << w):
                n = _push(LA, n, RECARGAR, -1, w, -1)
        if cond & (1 << DESARMADO):
            n = _push(LA, n, RECUPERAR, -1, -1, -1)
    return _push(LA, n, FIN, -1, -1, -1)


@njit(cache=True, _nrt=False, inline="always")
def move(K: tuple, ST: tuple, c: int, zone: int, mt: np.ndarray) -> None:
    """DestinyDice._move: Asustado needs "Alma (Voluntad) Dif 5" to approach its source."""
    S, DIST = K[0], K[4]
    D = ST[0]
    src = D[c, D_FEAR]
    if D[c, D_COND] & (1 << ASUSTADO) and src >= 0:
        sz = D[src, D_ZONE]
        if D[src, D_STATUS] == ACTIVE and DIST[zone, sz] < DIST[D[c, D_ZONE], sz]:
            bonus = D[c, D_AYUDA]
            D[c, D_AYUDA] = 0
            face = roll(mt, S[c, S_ALMA])
            if face + bonus < 5:
                return
    D[c, D_ZONE] = zone


@njit(cache=True, _nrt=False, inline="always")
def profile_mods(K: tuple, ST: tuple, att: int, dfn: int, w: int) -> tuple[int, int]:
    """DestinyDice.profile's variable part: (att_mod, defence extra beyond the armour)
    — help, Ciego −2, and cover against ranged attacks."""
    WS, ZS, OPT = K[1], K[3], K[5]
    D = ST[0]
    att_mod = D[att, D_AYUDA]
    if D[att, D_COND] & (1 << CIEGO):
        att_mod -= 2
    extra = D[dfn, D_AYUDA]
    if WS[att, w, W_CHAR] == 1:
        extra += OPT[O_COVERDEF] * ZS[D[dfn, D_ZONE], Z_COVER]
    return att_mod, extra


@njit(cache=True, _nrt=False, inline="always")
def attack(K: tuple, ST: tuple, att: int, dfn: int, w: int, mt: np.ndarray) -> None:
    """DestinyDice.attack: DD-06 … DD-11, DD-14, DD-18, and DD-08's reaction."""
    S, WS, OPT = K[0], K[1], K[5]
    D, G = ST[0], ST[2]
    att_mod, extra = profile_mods(K, ST, att, dfn, w)
    def_mod = S[dfn, S_DEFBONUS] + extra
    ranged = WS[att, w, W_CHAR] == 1
    die = S[att, S_MENTE] if ranged else S[att, S_CUERPO]
    D[att, D_AYUDA] = 0
    a = roll(mt, die)
    d20a = roll(mt, 20)
    if WS[att, w, W_SHOOTS] and d20a == 1:
        # DD-18: "Si sacas 1 en el Dado del Destino al disparar, fallas automáticamente".
        if OPT[O_JAM]:
            D[att, D_JAM] |= 1 << w
        return
    D[dfn, D_AYUDA] = 0
    d = roll(mt, S[dfn, S_DEFENSA])
    d20d = roll(mt, 20)
    att_total = a + att_mod
    def_total = d + def_mod
    hit = att_total > def_total or (att_total == def_total and OPT[O_TIES_ATT] == 1)
    if hit:
        _hit(K, ST, att, dfn, w, die, mt)
    if d20d == 1 and D[dfn, D_STATUS] == ACTIVE and (not hit or OPT[O_FUMBLE_ALWAYS]):
        # DD-09: "Aunque tu Defensa supere al Ataque, recibes 1 punto de daño automático".
        damage(K, ST, dfn, 1, att)
    if not hit and d20d == 20 and D[dfn, D_STATUS] == ACTIVE:
        # DD-08: the reaction is the defender's decision.
        G[G_RVS] = att
        G[G_PKIND] = PK_REACTION
        G[G_PACTOR] = dfn


@njit(cache=True, _nrt=False, inline="always")
def _hit(K: tuple, ST: tuple, att: int, dfn: int, w: int, die: int, mt: np.ndarray) -> None:
    """DestinyDice._hit: DD-11 damage, DD-14 energy, the weapon's state."""
    S, WS = K[0], K[1]
    D = ST[0]
    face = roll(mt, die)
    if WS[att, w, W_UNARMED]:
        base = face - 1 if face - 1 > 1 else 1
    else:
        base = face + WS[att, w, W_TIER]
    dmg = base + WS[att, w, W_EXTRA]
    if dmg < 0:
        dmg = 0
    damage(K, ST, dfn, dmg, att)
    # DD-14: "Brann gana 2 PC por impactar."
    pool = D_PC if WS[att, w, W_CHAR] == 0 else D_PM
    gain = D[att, pool] + 2
    D[att, pool] = gain if gain < S[att, S_EMAX] else S[att, S_EMAX]
    infl = WS[att, w, W_INFL]
    if infl >= 0 and D[dfn, D_STATUS] == ACTIVE:
        D[dfn, D_COND] |= 1 << infl
        if infl == ASUSTADO:
            D[dfn, D_FEAR] = att
        if infl == ENVENENADO:
            for k in range(DX):
                D[dfn, D_POISON + k] = WS[att, w, W_DICE + k]


@njit(cache=True, _nrt=False, inline="always")
def heal(K: tuple, ST: tuple, c: int, ally: int, h: int, mt: np.ndarray) -> None:
    """DestinyDice._heal (DD-16: a healed hero is back at once)."""
    S, HS = K[0], K[2]
    D, U = ST[0], ST[1]
    if HS[c, h, H_USES] >= 0:
        U[c, h] -= 1
    D[c, D_PC] -= HS[c, h, H_COST]
    D[c, D_PM] -= HS[c, h, H_COST + 1]
    D[c, D_PA] -= HS[c, h, H_COST + 2]
    total = roll_expr(mt, HS[c, h], H_DICE)
    pv = D[ally, D_PV] + (total if total > 0 else 0)
    D[ally, D_PV] = pv if pv < S[ally, S_MAXPV] else S[ally, S_MAXPV]
    D[ally, D_COND] &= ~HS[c, h, H_CURES]
    if D[ally, D_STATUS] == DOWN and D[ally, D_PV] > 0:
        set_status(K, ST, ally, ACTIVE)


@njit(cache=True, _nrt=False, inline="always")
def apply(
    K: tuple, ST: tuple, verb: int, target: int, item: int, zone: int, mt: np.ndarray
) -> None:
    """DestinyDice.apply: one action of the pending decision."""
    OPT = K[5]
    D, G = ST[0], ST[2]
    c = G[G_PACTOR]
    G[G_PKIND] = PK_NONE
    # One call site each for move and advance: this function is compiled into the
    # battle and rollout loops (inline), and every call site is another copy of them.
    if verb == FIN:
        pass
    elif verb == MOVER or verb == REPOS:
        move(K, ST, c, zone, mt)
        if verb == MOVER:
            G[G_MOVED] = 1
    elif verb == ATACAR or verb == CONTRA:
        attack(K, ST, c, target, item, mt)
        if verb == ATACAR:
            G[G_ACTED] = 1
    elif verb == PASAR:
        pass
    else:
        if verb == AYUDAR:
            bonus = OPT[O_HELP]
            if D[target, D_AYUDA] < bonus:
                D[target, D_AYUDA] = bonus
        elif verb == CURAR:
            heal(K, ST, c, target, item, mt)
        elif verb == RECARGAR:
            D[c, D_JAM] &= ~(1 << item)
        elif verb == RECUPERAR:
            D[c, D_COND] &= ~(1 << DESARMADO)
        G[G_ACTED] = 1
    if verb != FIN:
        check_end(K, ST)
    if verb == FIN or G[G_OUT] < 0 and G[G_PKIND] == PK_NONE:
        # DestinyDice._continue_turn
        actor = G[G_ACTOR]
        can_move = not G[G_MOVED] and not D[actor, D_COND] & (1 << DERRIBADO)
        if verb != FIN and D[actor, D_STATUS] == ACTIVE and (can_move or not G[G_ACTED]):
            G[G_PKIND] = PK_TURN
            G[G_PACTOR] = actor
        else:
            advance(K, ST, mt)
