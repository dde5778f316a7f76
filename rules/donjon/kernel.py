"""Donjon's rules compiled (the fast path): the engine's ``ruleset.py`` over plain arrays.

architecture.md, "The fast path": the engine is the specification and this module plays
the same rules with numba, one compiled function per engine rule, named like it and citing
the same rule id, so the two read side by side. The temperaments and the battle loop that
joins them to these rules are in ``agents/heuristics/donjon_kernel.py`` (rules never import
agents); that module exposes ``KERNEL``.

The state of a battle is a struct of arrays (small integer codes, no strings):

* ``ci[n, NCI]`` — each combatant's changing values (zone, status, the five resources of
  ``Donjon.resources``, carried bonus dice, initiative count and DJ-06 ``acted``), its two
  conditions and the playtest counters of ``escaramuza.playtest.records.record_from_events``;
* ``init[n, MAX_INIT]`` — each combatant's initiative numbers left, highest first;
* ``g[NG]`` — the round, the number called, the pending decision and what it waits on
  (``state.data``'s attack, move, spend and continuing), the outcome, an error code;
* static arrays built once per scenario by :func:`export_scenario` (stat blocks, weapons,
  the DJ-12 penalty table, the map's distances and steps).

Dice come from :mod:`escaramuza.rules.core.mt` (the engine's ``random.Random``, draw for
draw). The heuristics' exact odds are the engine's own floats, looked up in tables filled
from ``exact.hurt_probability`` / ``exact.win_probability`` (:class:`OddsTables`): a
lookup that is not filled yet stops the battle with ``ERR_MISS_*`` and the key, the driver
fills the entry with the engine's function and plays the seed again from the start.

Every value is checked on its way in (``rules.core.kernel.check_range``; the bounds below
and docs/fast-path.md, "The kernel boundary"): the compiled code indexes its arrays and
the odds tables by these numbers (pools are sums of them) without bounds checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from escaramuza.rules.core import mt
from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.kernel import BOUND, KernelRefusal, check_range
from escaramuza.rules.core.model import Side, Status
from escaramuza.rules.donjon.combat import PENALTY
from escaramuza.rules.donjon.exact import hurt_probability, win_probability
from escaramuza.rules.donjon.stats import ATTRIBUTES, MELEE, RANGED, THROWN

# -- codes ---------------------------------------------------------------------------
#: Status codes, in ``Status`` order (playtest's KNOCKED_OUT = down, defeated, dead).
ST_ACTIVE, ST_DOWN, ST_DEFEATED, ST_DEAD, ST_FLED = 0, 1, 2, 3, 4
STATUS_CODES: tuple[Status, ...] = (
    Status.ACTIVE,
    Status.DOWN,
    Status.DEFEATED,
    Status.DEAD,
    Status.FLED,
)
HEROES, ENEMIES = 0, 1
SIDES: tuple[Side, ...] = (Side.HEROES, Side.ENEMIES)
WEAPON_KINDS: tuple[str, ...] = (MELEE, THROWN, RANGED)
K_MELEE = 0

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
#: DJ-17 ``repartir`` options: 0 Heridas, 1..4 the attributes in sheet order.
SPEND_OPTIONS: tuple[str, ...] = ("heridas", *ATTRIBUTES)

# Pending decisions (Donjon.decision_names).
P_NONE, P_TURN, P_DEFENCE, P_RESIST, P_SPEND, P_CONTINUE = 0, 1, 2, 3, 4, 5
PENDING_NAMES: tuple[str, ...] = ("", "turn", "defensa", "resistir", "repartir", "continuar")

# Outcome reasons (Outcome.reason).
R_DEFEATED, R_MUTUAL, R_TIMEOUT, R_WITHDRAWAL = 0, 1, 2, 3
REASONS: tuple[str, ...] = ("defeated", "mutual", "timeout", "withdrawal")

# Per-combatant changing columns (ci). H..DIS are Donjon.resources in order, so spend
# option o (0 Heridas, 1..4 attributes) is column H + o.
ZONE, STATUS, H, CEL, VIR, AGU, DIS, BONUS, NINIT, ACTED_AT, ACTED_TIMES = range(11)
INCONSC, QUEBR, KO, DIED, DEALT, TOFOES, TAKEN = range(11, 18)
NCI = 18

# Per-combatant static columns (cs).
SIDE, PC, NIVEL, MAXH, HAT, HESQ, HMOV, HDANO, HRES, HINI, ARMOR, SORP, NW, PARRYW = range(14)
BESTBAND, TEMPER, INDEX = 14, 15, 16
NCS = 17

# Globals (g).
ROUND, COUNT, TURN, PKIND, PACTOR = 0, 1, 2, 3, 4
AT_ATT, AT_TGT, AT_WPN, AT_BAND = 5, 6, 7, 8
MV_MOVER, MV_RES, MV_VERB, MV_TO, MV_FROMC = 9, 10, 11, 12, 13
SP_DEALER, SP_VICTIM, SP_REM, SP_NPICK, SP_PICK = 14, 15, 16, 17, 18  # SP_PICK..+3
CONT, DONE, WINNER, REASON, OROUNDS, WIPE, ERR, MISS_T, MISS_K = 22, 23, 24, 25, 26, 27, 28, 29, 30
DECISIONS = 40
NG = 42

# Parameters (p).
DIE, TIED_ATT, MEDIA, RLIMIT, SURVIVE, DIE_BITS = 0, 1, 2, 3, 4, 5
NP = 6

# Error codes: a missing odds entry (fill and replay) or a size the arrays do not hold.
ERR_NONE, ERR_MISS_HP, ERR_MISS_WP, ERR_OVERFLOW = 0, 1, 2, 3
#: Initiative numbers a combatant may hold (DJ-04 pools are Nivel ≤ 20 + 6 + bonuses).
MAX_INIT = 96
#: Dice a single pool may roll in the kernel (else the seed runs on the engine).
MAX_POOL = 256
NONE = -1

# -- the boundary (rules.core.kernel.check_range) -------------------------------------
#: A pool is the sum of a few of these (an attribute, a skill, a weapon's damage, the
#: armour, the carried dice): each at most MAX_POOL, so a sum beyond the kernel's pools
#: is a clean overflow (ERR_OVERFLOW, a refusal) and never an index out of its array.
MAX_PART = MAX_POOL
#: A die's faces: ``roll_die`` takes ``getrandbits`` of its bit length (at most 32), and
#: the initiative count runs from it down.
MAX_DIE = 1 << 16
#: The odds tables grow (doubling) to the largest key asked; a table of more entries than
#: this is a refusal rather than gigabytes of NaN.
MAX_TABLE = 1 << 25

#: The compiled rules' decorator. ``_nrt=False``: these functions never allocate, and
#: without numba's reference counting an array argument costs nothing to pass — with it,
#: each call increments and decrements the count of every array it is given (~15 here),
#: which measured as ~20 ns an array a call, most of a decision's time.
kjit = njit(cache=True, _nrt=False)

TEMPERAMENT_CODES: tuple[str, ...] = (
    "tactician",
    "brute",
    "cautious",
    "coward",
    "protector",
    "random",
)


# -- export --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Static:
    """A scenario's fixed arrays (built once per scenario, read by every battle)."""

    ids: tuple[str, ...]
    zone_ids: tuple[str, ...]
    weapon_names: tuple[tuple[str, ...], ...]
    cs: np.ndarray  # int64[n, NCS]
    wt: np.ndarray  # int64[n, W] weapon kind codes
    wd: np.ndarray  # int64[n, W] Nivel de Daño
    pen: np.ndarray  # int64[3, 4] DJ-12 penalties, -1 where the weapon cannot attack
    dist: np.ndarray  # int64[Z, Z] hops
    stepto: np.ndarray  # int64[Z, Z] Battlefield.step_towards
    away: np.ndarray  # int64[Z, Z] Donjon._away_zone, -1 for None
    p: np.ndarray  # int64[NP]
    die_size: int
    all_tied: str


def _best_band(weapons: tuple) -> int:
    # agents/heuristics/donjon.py _best_band: max by (damage, melee), first of equals.
    best = max(weapons, key=lambda a: (a.damage, a.kind == MELEE))
    return 0 if best.kind == MELEE else 1


def export_scenario(scenario: object) -> Static:
    """The static arrays of a Donjon scenario (its combatants as the scenario lists them)."""
    combatants = scenario.combatants  # type: ignore[attr-defined]
    bf = scenario.battlefield  # type: ignore[attr-defined]
    opts = scenario.options  # type: ignore[attr-defined]
    n = len(combatants)
    check_scenario(scenario)
    width = max(len(c.stats.weapons_or_fists) for c in combatants)
    cs = np.zeros((n, NCS), dtype=np.int64)
    wt = np.zeros((n, width), dtype=np.int64)
    wd = np.zeros((n, width), dtype=np.int64)
    names: list[tuple[str, ...]] = []
    for i, c in enumerate(combatants):
        s = c.stats
        h = s.skills
        parry = NONE
        for w, arma in enumerate(s.weapons_or_fists):
            wt[i, w] = WEAPON_KINDS.index(arma.kind)
            wd[i, w] = arma.damage
            # combat._parry_weapon: the melee weapon of highest damage, first of equals.
            if arma.kind == MELEE and (parry == NONE or arma.damage > wd[i, parry]):
                parry = w
        names.append(tuple(a.name for a in s.weapons_or_fists))
        temper = c.temperament
        cs[i] = (
            SIDES.index(c.side),
            1 if c.pc else 0,
            s.level,
            c.maxima["heridas"],
            h.ataque,
            h.esquivar,
            h.movimiento,
            h.dano,
            h.resistencia,
            h.iniciativa,
            s.armour,
            s.sorpresa,
            len(s.weapons_or_fists),
            parry,
            _best_band(s.weapons_or_fists),
            TEMPERAMENT_CODES.index(temper) if temper in TEMPERAMENT_CODES else 0,
            c.index,
        )
    pen = np.full((3, 4), NONE, dtype=np.int64)
    for k, kind in enumerate(WEAPON_KINDS):
        for band, value in enumerate(PENALTY[kind]):
            if value is not None:
                pen[k, band] = value
    zones = bf.zone_ids
    nz = len(zones)
    dist = np.zeros((nz, nz), dtype=np.int64)
    stepto = np.zeros((nz, nz), dtype=np.int64)
    away = np.full((nz, nz), NONE, dtype=np.int64)
    for a, za in enumerate(zones):
        for b, zb in enumerate(zones):
            here = bf.distance(za, zb)
            dist[a, b] = here
            stepto[a, b] = bf.index[bf.step_towards(za, zb)]
            for z in bf.neighbours(za):
                if bf.distance(z, zb) > here:
                    away[a, b] = bf.index[z]
                    break
    p = np.zeros(NP, dtype=np.int64)
    p[DIE] = opts.die_size
    p[TIED_ATT] = 1 if opts.all_tied == "attacker" else 0
    p[MEDIA] = opts.dificultades.media
    p[RLIMIT] = scenario.round_limit  # type: ignore[attr-defined]
    p[SURVIVE] = 1 if scenario.victory == "survive" else 0  # type: ignore[attr-defined]
    p[DIE_BITS] = int(opts.die_size).bit_length()
    return Static(
        tuple(c.id for c in combatants),
        zones,
        tuple(names),
        cs,
        wt,
        wd,
        pen,
        dist,
        stepto,
        away,
        p,
        opts.die_size,
        opts.all_tied,
    )


def check_scenario(scenario: object) -> None:
    """The scenario's numbers against the module's bounds (KernelRefusal naming the
    field): every part of a pool, the maxima, the die and the round limit."""
    opts = scenario.options  # type: ignore[attr-defined]
    check_range(opts.die_size, 2, MAX_DIE, "die_size")
    check_range(opts.dificultades.media, 0, MAX_PART, "dificultades.media")
    check_range(scenario.round_limit, 1, BOUND, "round_limit")  # type: ignore[attr-defined]
    for c in scenario.combatants:  # type: ignore[attr-defined]
        s = c.stats
        check_range(c.maxima["heridas"], 0, BOUND, f"{c.id}: maximum heridas")
        for name in ATTRIBUTES:
            check_range(c.maxima[name], 0, MAX_PART, f"{c.id}: maximum {name}")
        for name in ("ataque", "esquivar", "movimiento", "dano", "resistencia", "iniciativa"):
            check_range(getattr(s.skills, name), 0, MAX_PART, f"{c.id}: {name}")
        check_range(s.level, 0, MAX_PART, f"{c.id}: level")
        check_range(s.armour, 0, MAX_PART, f"{c.id}: armour")
        check_range(s.sorpresa, 0, MAX_PART, f"{c.id}: sorpresa")
        for arma in s.weapons_or_fists:
            check_range(arma.damage, 0, MAX_PART, f"{c.id}: {arma.name} damage")


def new_arrays(st: Static) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Empty ``ci``, ``init`` and ``g`` arrays for a battle of ``st``'s scenario."""
    n = st.cs.shape[0]
    return (
        np.zeros((n, NCI), dtype=np.int64),
        np.zeros((n, MAX_INIT), dtype=np.int64),
        np.zeros(NG, dtype=np.int64),
    )


def initial_arrays(scenario: object, st: Static) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``ci``/``init``/``g`` of a battle not yet started (``new_battle`` before ``start``)."""
    ci, init, g = new_arrays(st)
    for i, c in enumerate(scenario.combatants):  # type: ignore[attr-defined]
        _export_combatant(ci, init, st, i, c, zero_counters=True)
    g[WINNER] = NONE
    return ci, init, g


_KNOCKED_OUT = (ST_DOWN, ST_DEFEATED, ST_DEAD)


def _export_combatant(
    ci: np.ndarray, init: np.ndarray, st: Static, i: int, c: object, zero_counters: bool
) -> None:
    """Row ``i`` of ``ci`` and ``init``; KernelRefusal for a value out of the kernel's
    range: resources within 0 and their maxima (the scenario's), carried dice within a
    pool, initiative numbers faces of the die (highest first, at most MAX_INIT), the
    conditions the kernel knows (without values)."""
    cid = c.id  # type: ignore[attr-defined]
    if cid != st.ids[i]:
        raise KernelRefusal(f"combatant {cid!r} is not the scenario's #{i}")
    r = c.resources  # type: ignore[attr-defined]
    maxima = c.maxima  # type: ignore[attr-defined]
    if set(r) != set(SPEND_OPTIONS) or set(maxima) != set(SPEND_OPTIONS):
        raise KernelRefusal(f"{cid}: resources {sorted(r)}")
    if maxima["heridas"] != st.cs[i, MAXH]:
        raise KernelRefusal(f"{cid}: maximum heridas {maxima['heridas']} is not the scenario's")
    status = STATUS_CODES.index(c.status)  # type: ignore[attr-defined]
    ci[i, ZONE] = st.zone_ids.index(c.zone)  # type: ignore[attr-defined]
    ci[i, STATUS] = status
    for o, name in enumerate(SPEND_OPTIONS):
        check_range(maxima[name], 0, BOUND if o == 0 else MAX_PART, f"{cid}: maximum {name}")
        check_range(r[name], 0, maxima[name], f"{cid}: {name}")
        ci[i, H + o] = r[name]
    data = c.data  # type: ignore[attr-defined]
    check_range(data["bonus"], 0, MAX_PART, f"{cid}: bonus")
    ci[i, BONUS] = data["bonus"]
    numbers = tuple(data["init"])
    check_range(len(numbers), 0, MAX_INIT, f"{cid}: initiative numbers held")
    check_range(numbers, 1, st.die_size, f"{cid}: initiative")
    if list(numbers) != sorted(numbers, reverse=True):
        raise KernelRefusal(f"{cid}: initiative {list(numbers)} is not highest first")
    ci[i, NINIT] = len(numbers)
    init[i, : len(numbers)] = numbers
    acted_at, times = data["acted"]
    check_range(acted_at, 0, st.die_size, f"{cid}: acted at")
    check_range(times, 0, BOUND, f"{cid}: acted times")
    ci[i, ACTED_AT], ci[i, ACTED_TIMES] = acted_at, times
    conds = c.conditions  # type: ignore[attr-defined]
    for name, cond in conds.items():
        if name not in ("inconsciente", "quebrado"):
            raise KernelRefusal(f"{cid}: condition {name!r}")
        check_range(cond.value, 0, 0, f"{cid}: {name} value")
    ci[i, INCONSC] = 1 if "inconsciente" in conds else 0
    ci[i, QUEBR] = 1 if "quebrado" in conds else 0
    if zero_counters:
        ci[i, KO] = 0 if status in _KNOCKED_OUT else NONE
        ci[i, DIED] = 1 if status == ST_DEAD else 0


# -- odds tables -----------------------------------------------------------------------
@dataclass(slots=True)
class OddsTables:
    """The engine's exact odds as the heuristics ask for them, filled on demand.

    ``hp[a, d, dmg, soak, fa, ft]`` = ``exact.hurt_probability(a, d, dmg, soak, die, tied,
    fa, ft)`` and ``wp[a, d]`` = ``exact.win_probability(a, d, die, tied)``: the very floats
    the engine's heuristic compares (NaN = not asked yet).
    """

    die_size: int
    all_tied: str
    hp: np.ndarray = field(default_factory=lambda: np.full((24, 20, 24, 20, 2, 2), np.nan))
    wp: np.ndarray = field(default_factory=lambda: np.full((40, 40), np.nan))

    def fill(self, g: np.ndarray) -> None:
        """Compute the entry a battle stopped on (``g[ERR]``, key in ``g[MISS_K:]``)."""
        err = int(g[ERR])
        key = tuple(int(x) for x in g[MISS_K : MISS_K + 6])
        if err == ERR_MISS_HP:
            self.hp = _grown(self.hp, key)
            a, d, dmg, soak, fa, ft = key
            self.hp[key] = hurt_probability(a, d, dmg, soak, self.die_size, self.all_tied, fa, ft)
        elif err == ERR_MISS_WP:
            a, d = key[:2]
            self.wp = _grown(self.wp, (a, d))
            self.wp[a, d] = win_probability(a, d, self.die_size, self.all_tied)
        else:
            raise ValueError(f"not an odds miss: error code {err}")


def _grown(table: np.ndarray, key: tuple[int, ...]) -> np.ndarray:
    shape = tuple(
        max(s, k + 1 if k + 1 <= s else 2 * (k + 1)) for s, k in zip(table.shape, key, strict=False)
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


@kjit
def lookup_hp(
    g: np.ndarray, hp: np.ndarray, a: int, d: int, dmg: int, soak: int, fa: int, ft: int
) -> float:
    """``exact.hurt_probability`` from the table, or a recorded miss (returns 0.0); a key
    outside 0…MAX_POOL (a pool the kernel cannot roll) records an overflow instead."""
    s = hp.shape
    if 0 <= a < s[0] and 0 <= d < s[1] and 0 <= dmg < s[2] and 0 <= soak < s[3]:
        v = hp[a, d, dmg, soak, fa, ft]
        if not math.isnan(v):
            return v
    if min(a, d, dmg, soak) < 0 or max(a, d, dmg, soak) > MAX_POOL:
        if g[ERR] == ERR_NONE:
            g[ERR] = ERR_OVERFLOW
        return 0.0
    if g[ERR] == ERR_NONE:
        g[ERR] = ERR_MISS_HP
        g[MISS_K] = a
        g[MISS_K + 1] = d
        g[MISS_K + 2] = dmg
        g[MISS_K + 3] = soak
        g[MISS_K + 4] = fa
        g[MISS_K + 5] = ft
    return 0.0


@kjit
def lookup_wp(g: np.ndarray, wp: np.ndarray, a: int, d: int) -> float:
    """``exact.win_probability`` from the table, or a recorded miss (returns 0.0); a key
    outside 0…MAX_POOL records an overflow instead."""
    if 0 <= a < wp.shape[0] and 0 <= d < wp.shape[1]:
        v = wp[a, d]
        if not math.isnan(v):
            return v
    if min(a, d) < 0 or max(a, d) > MAX_POOL:
        if g[ERR] == ERR_NONE:
            g[ERR] = ERR_OVERFLOW
        return 0.0
    if g[ERR] == ERR_NONE:
        g[ERR] = ERR_MISS_WP
        g[MISS_K] = a
        g[MISS_K + 1] = d
    return 0.0


# -- pools (combat.py) -------------------------------------------------------------------
@kjit
def attack_pool(
    ci: np.ndarray, cs: np.ndarray, wt: np.ndarray, pen: np.ndarray, c: int, w: int, band: int
) -> int:
    """DJ-13: Celeridad + ataque − the DJ-12 penalty; NONE (-1 << 40) when out of reach."""
    penalty = pen[wt[c, w], band]
    if penalty < 0:
        return -(1 << 40)
    return ci[c, CEL] + cs[c, HAT] - penalty


@kjit
def parry_pool(ci: np.ndarray, cs: np.ndarray, c: int) -> int:
    """DJ-14: Celeridad + ataque."""
    return ci[c, CEL] + cs[c, HAT]


@kjit
def dodge_pool(ci: np.ndarray, cs: np.ndarray, c: int) -> int:
    """DJ-15: Celeridad + esquivar."""
    return ci[c, CEL] + cs[c, HESQ]


@kjit
def move_pool(ci: np.ndarray, cs: np.ndarray, c: int) -> int:
    """DJ-10: Celeridad + movimiento."""
    return ci[c, CEL] + cs[c, HMOV]


@kjit
def damage_pool(ci: np.ndarray, cs: np.ndarray, wd: np.ndarray, c: int, w: int) -> int:
    """DJ-16: Virilidad + the weapon's dano + the damage ability."""
    return ci[c, VIR] + wd[c, w] + cs[c, HDANO]


@kjit
def soak_pool(ci: np.ndarray, cs: np.ndarray, c: int) -> int:
    """DJ-16: Aguante + armadura + resistencia."""
    return ci[c, AGU] + cs[c, ARMOR] + cs[c, HRES]


@kjit
def free_attack_weapon(
    ci: np.ndarray, cs: np.ndarray, wt: np.ndarray, wd: np.ndarray, pen: np.ndarray, c: int
) -> int:
    """*(default)* DJ-11 free attack weapon: most attack (at contact) + damage dice."""
    best = NONE
    best_dice = 0
    for w in range(cs[c, NW]):
        if pen[wt[c, w], 0] < 0:
            continue
        dice = attack_pool(ci, cs, wt, pen, c, w, 0) + damage_pool(ci, cs, wd, c, w)
        if best == NONE or dice > best_dice:
            best = w
            best_dice = dice
    return best


@kjit
def band_of(hops: int) -> int:
    """DJ-09: hops → en contacto 0, a una acción 1, a dos acciones 2, fuera del alcance 3."""
    return hops if hops < 3 else 3


@kjit
def can_react(ci: np.ndarray, c: int) -> bool:
    return ci[c, STATUS] == ST_ACTIVE and ci[c, NINIT] > 0


# -- dice (DJ-01) --------------------------------------------------------------------------
@kjit
def roll_die(dice: np.ndarray, sides: int, bits: int) -> int:
    """``RandomRoller.roll(sides)``: ``mt.roll`` with ``sides.bit_length()`` worked out once
    (``getrandbits(k)`` for k ≤ 32 is one word's top k bits; the same rejection loop)."""
    shift = np.uint32(32 - bits)
    r = mt.genrand_uint32(dice) >> shift
    while r >= sides:
        r = mt.genrand_uint32(dice) >> shift
    return np.int64(r) + 1


@kjit
def roll_pool(dice: np.ndarray, g: np.ndarray, p: np.ndarray, buf: np.ndarray, count: int) -> int:
    """``roll_pool``: ``count`` dice into ``buf`` sorted highest first; returns the count."""
    if count > buf.shape[0]:
        g[ERR] = ERR_OVERFLOW
        count = buf.shape[0]
    sides = p[DIE]
    bits = p[DIE_BITS]
    for k in range(count):
        x = roll_die(dice, sides, bits)
        j = k
        while j > 0 and buf[j - 1] < x:
            buf[j] = buf[j - 1]
            j -= 1
        buf[j] = x
    return count


@kjit
def opposed(
    dice: np.ndarray,
    g: np.ndarray,
    p: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
    a_dice: int,
    d_dice: int,
) -> tuple[int, int]:
    """``Donjon._opposed`` + ``exact.opposed_sorted`` (DJ-01): attacker's pool rolled first.

    Returns (winner: 0 attacker / 1 defender, successes).
    """
    la = roll_pool(dice, g, p, buf_a, max(0, a_dice))
    ld = roll_pool(dice, g, p, buf_d, max(0, d_dice))
    i = 0
    while i < la and i < ld and buf_a[i] == buf_d[i]:
        i += 1
    if i < la and (i >= ld or buf_a[i] > buf_d[i]):
        top = buf_d[i] if i < ld else 0
        s = i
        for k in range(i, la):
            if buf_a[k] <= top:
                break
            s += 1
        return 0, s
    if i < ld:
        top = buf_a[i] if i < la else 0
        s = i
        for k in range(i, ld):
            if buf_d[k] <= top:
                break
            s += 1
        return 1, s
    # Every die tied: the all_tied option's side wins with nothing to spend.
    return (0 if p[TIED_ATT] == 1 else 1), 0


# -- bookkeeping -----------------------------------------------------------------------------
@kjit
def set_status(ci: np.ndarray, cs: np.ndarray, g: np.ndarray, c: int, status: int) -> None:
    """``Ruleset.set_status`` and what playtest's record reads from its StatusChanged."""
    ci[c, STATUS] = status
    if status == ST_DOWN or status == ST_DEFEATED or status == ST_DEAD:
        if ci[c, KO] == NONE:
            ci[c, KO] = g[ROUND]
    if status == ST_DEAD:
        ci[c, DIED] = 1
    if g[WIPE] == 0:
        heroes = 0
        out = 0
        for i in range(ci.shape[0]):
            if cs[i, SIDE] == HEROES:
                heroes += 1
                s = ci[i, STATUS]
                if s == ST_DOWN or s == ST_DEFEATED or s == ST_DEAD:
                    out += 1
        if heroes > 0 and out == heroes:
            g[WIPE] = 1


@kjit
def finish(g: np.ndarray, winner: int, reason: int) -> None:
    """``Ruleset.finish``."""
    g[DONE] = 1
    g[WINNER] = winner
    g[REASON] = reason
    g[OROUNDS] = g[ROUND]
    g[PKIND] = P_NONE


@kjit
def check_end(ci: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    """``Ruleset.check_end``: a side with nobody active loses."""
    if g[DONE] == 1:
        return
    heroes = False
    enemies = False
    for c in range(ci.shape[0]):
        if ci[c, STATUS] == ST_ACTIVE:
            if cs[c, SIDE] == HEROES:
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
        finish(g, NONE, R_MUTUAL)


@kjit
def begin_round(ci: np.ndarray, cs: np.ndarray, g: np.ndarray, p: np.ndarray) -> None:
    """``Ruleset.begin_round``: the round limit ends the battle (survive: heroes win)."""
    g[ROUND] += 1
    if g[ROUND] > p[RLIMIT]:
        g[ROUND] = p[RLIMIT]
        winner = NONE
        if p[SURVIVE] == 1:
            for c in range(ci.shape[0]):
                if cs[c, SIDE] == HEROES and ci[c, STATUS] == ST_ACTIVE:
                    winner = HEROES
                    break
        finish(g, winner, R_TIMEOUT)


# -- ráfaga (DJ-04..07) ------------------------------------------------------------------------
@kjit
def roll_initiative(
    ci: np.ndarray,
    init: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
    c: int,
    first: bool,
) -> None:
    """DJ-04: Nivel + Discernimiento dice; sorpresa (first ráfaga) and an initiative
    ability's unopposed Media test (DJ-02) add bonus dice."""
    bonus = 0
    if first and cs[c, SORP] > 0:
        bonus += cs[c, SORP]
    skill = cs[c, HINI]
    if skill > 0:
        who, s = opposed(dice, g, p, buf_a, buf_d, skill + ci[c, CEL], p[MEDIA])
        if who == 0:
            bonus += s
    pool = cs[c, NIVEL] + ci[c, DIS] + bonus
    if pool > MAX_INIT:
        g[ERR] = ERR_OVERFLOW
        return
    n = roll_pool(dice, g, p, buf_a, pool)
    for k in range(n):
        init[c, k] = buf_a[k]
    ci[c, NINIT] = n


@kjit
def new_rafaga(
    ci: np.ndarray,
    init: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
) -> None:
    """``Donjon._new_rafaga``: a new round, everyone's initiative, the count from the top."""
    begin_round(ci, cs, g, p)
    if g[DONE] == 1:
        return
    first = g[ROUND] == 1
    for c in range(ci.shape[0]):
        ci[c, ACTED_AT] = 0
        ci[c, ACTED_TIMES] = 0
        if ci[c, STATUS] != ST_ACTIVE:
            ci[c, NINIT] = 0
            continue
        roll_initiative(ci, init, cs, g, p, dice, buf_a, buf_d, c, first)
        if g[ERR] != ERR_NONE:
            return
    g[TURN] = 0
    g[COUNT] = p[DIE]
    advance(ci, init, cs, g)


@kjit
def advance(ci: np.ndarray, init: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    """``Donjon._advance`` (DJ-05, DJ-06): the highest number held at or below the count;
    among its holders fewest actions on it first, then PJ before PNJ, then table order."""
    current = g[COUNT]
    count = 0
    best = NONE
    k0 = 0
    k1 = 0
    k2 = 0
    for c in range(ci.shape[0]):
        if ci[c, STATUS] != ST_ACTIVE:
            continue
        top = 0
        for k in range(ci[c, NINIT]):
            x = init[c, k]
            if top < x <= current:
                top = x
        if top == 0 or top < count:
            continue
        t0 = ci[c, ACTED_TIMES] if ci[c, ACTED_AT] == top else 0
        t1 = 0 if cs[c, PC] == 1 else 1
        t2 = cs[c, INDEX]
        if top > count or t0 < k0 or (t0 == k0 and (t1 < k1 or (t1 == k1 and t2 < k2))):
            count = top
            best = c
            k0 = t0
            k1 = t1
            k2 = t2
    if best != NONE:
        g[COUNT] = count
        g[PKIND] = P_TURN
        g[PACTOR] = best
        return
    g[COUNT] = 0
    g[CONT] = 0
    ask_continue(ci, cs, g, HEROES)


@kjit
def ask_continue(ci: np.ndarray, cs: np.ndarray, g: np.ndarray, side: int) -> None:
    """``Donjon._ask_continue`` (DJ-07): the side's first active combatant decides."""
    for c in range(ci.shape[0]):
        if cs[c, SIDE] == side and ci[c, STATUS] == ST_ACTIVE:
            g[PKIND] = P_CONTINUE
            g[PACTOR] = c
            return
    g[ERR] = ERR_OVERFLOW  # the engine raises IndexError here: not a battle to copy


@kjit
def after(ci: np.ndarray, init: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    """``Donjon._after``: end the battle if a side is out, else call the next number."""
    g[AT_ATT] = NONE
    g[MV_MOVER] = NONE
    g[SP_DEALER] = NONE
    check_end(ci, cs, g)
    if g[DONE] == 0:
        advance(ci, init, cs, g)


# -- legal actions ---------------------------------------------------------------------------
@kjit
def _push(
    av: np.ndarray, at: np.ndarray, ai: np.ndarray, k: int, verb: int, target: int, item: int
) -> int:
    av[k] = verb
    at[k] = target
    ai[k] = item
    return k + 1


@kjit
def _weapon_actions(
    ci: np.ndarray,
    cs: np.ndarray,
    wt: np.ndarray,
    pen: np.ndarray,
    dist: np.ndarray,
    a: int,
    verb: int,
    av: np.ndarray,
    at: np.ndarray,
    ai: np.ndarray,
    k: int,
) -> int:
    """``atacar`` on each active foe (DJ-12: in reach and at least one die left after the
    penalty) or ``rematar`` on each unconscious one (in reach), weapons in sheet order."""
    za = ci[a, ZONE]
    dice = ci[a, CEL] + cs[a, HAT] + ci[a, BONUS]
    wanted = ST_ACTIVE if verb == ATACAR else ST_DOWN
    for o in range(ci.shape[0]):
        if cs[o, SIDE] == cs[a, SIDE] or ci[o, STATUS] != wanted:
            continue
        band = band_of(dist[za, ci[o, ZONE]])
        for w in range(cs[a, NW]):
            penalty = pen[wt[a, w], band]
            if penalty >= 0 and (verb == REMATAR or dice - penalty >= 1):
                k = _push(av, at, ai, k, verb, o, w)
    return k


@kjit
def _step_actions(
    ci: np.ndarray,
    cs: np.ndarray,
    dist: np.ndarray,
    away: np.ndarray,
    a: int,
    verb: int,
    av: np.ndarray,
    at: np.ndarray,
    ai: np.ndarray,
    k: int,
) -> int:
    """``acercarse`` (not yet in contact) or ``alejarse`` (a step away exists, within
    range) for each active foe (DJ-10)."""
    za = ci[a, ZONE]
    for o in range(ci.shape[0]):
        if cs[o, SIDE] == cs[a, SIDE] or ci[o, STATUS] != ST_ACTIVE:
            continue
        zo = ci[o, ZONE]
        if verb == ACERCARSE:
            if dist[za, zo] > 0:
                k = _push(av, at, ai, k, verb, o, NONE)
        elif band_of(dist[za, zo]) < 3 and away[za, zo] != NONE:
            k = _push(av, at, ai, k, verb, o, NONE)
    return k


@kjit
def turn_actions(
    ci: np.ndarray,
    cs: np.ndarray,
    wt: np.ndarray,
    pen: np.ndarray,
    dist: np.ndarray,
    away: np.ndarray,
    a: int,
    av: np.ndarray,
    at: np.ndarray,
    ai: np.ndarray,
) -> int:
    """``Donjon._turn_actions``: attacks, finishing blows, steps closer, steps away (each
    opponent in table order), huir from a dos acciones or more, esperar."""
    k = _weapon_actions(ci, cs, wt, pen, dist, a, ATACAR, av, at, ai, 0)
    k = _weapon_actions(ci, cs, wt, pen, dist, a, REMATAR, av, at, ai, k)
    k = _step_actions(ci, cs, dist, away, a, ACERCARSE, av, at, ai, k)
    k = _step_actions(ci, cs, dist, away, a, ALEJARSE, av, at, ai, k)
    nearest = 3
    for o in range(ci.shape[0]):
        if cs[o, SIDE] != cs[a, SIDE] and ci[o, STATUS] == ST_ACTIVE:
            nearest = min(nearest, band_of(dist[ci[a, ZONE], ci[o, ZONE]]))
    if nearest >= 2:
        k = _push(av, at, ai, k, HUIR, NONE, NONE)
    return _push(av, at, ai, k, ESPERAR, NONE, NONE)


@kjit
def spend_options(
    ci: np.ndarray, g: np.ndarray, av: np.ndarray, at: np.ndarray, ai: np.ndarray
) -> int:
    """``Donjon._spend_options`` (DJ-17): Heridas while any, an attribute above 0 (its
    first success a fact unless the victim is at 0 Heridas)."""
    victim = g[SP_VICTIM]
    k = 0
    heridas = ci[victim, H]
    if heridas > 0:
        av[k] = REPARTIR
        at[k] = NONE
        ai[k] = 0
        k += 1
    for o in range(1, 5):
        if ci[victim, H + o] <= 0:
            continue
        picked = False
        for j in range(g[SP_NPICK]):
            if g[SP_PICK + j] == o:
                picked = True
        if heridas > 0 and not picked and g[SP_REM] < 2:
            continue
        av[k] = REPARTIR
        at[k] = NONE
        ai[k] = o
        k += 1
    return k


@kjit
def legal_actions(
    ci: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    wt: np.ndarray,
    pen: np.ndarray,
    dist: np.ndarray,
    away: np.ndarray,
    av: np.ndarray,
    at: np.ndarray,
    ai: np.ndarray,
) -> int:
    """``Donjon.legal_actions``, in the engine's order; returns how many."""
    kind = g[PKIND]
    if kind == P_TURN:
        return turn_actions(ci, cs, wt, pen, dist, away, g[PACTOR], av, at, ai)
    if kind == P_SPEND:
        return spend_options(ci, g, av, at, ai)
    if kind == P_DEFENCE:
        av[0] = PARAR
        av[1] = ESQUIVAR
    elif kind == P_RESIST:
        av[0] = RESISTIR
        av[1] = DEJAR
    else:
        av[0] = CONTINUAR
        av[1] = RETIRARSE
    at[0] = NONE
    at[1] = NONE
    ai[0] = NONE
    ai[1] = NONE
    return 2


# -- apply ---------------------------------------------------------------------------------------
@kjit
def apply(
    ci: np.ndarray,
    init: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    wt: np.ndarray,
    wd: np.ndarray,
    pen: np.ndarray,
    dist: np.ndarray,
    stepto: np.ndarray,
    away: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
    verb: int,
    target: int,
    item: int,
) -> None:
    """``Donjon.apply``: one action of the pending decision."""
    kind = g[PKIND]
    if kind == P_TURN:
        apply_turn(
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
    elif kind == P_DEFENCE:
        resolve_attack(ci, init, cs, g, wt, wd, pen, p, dice, buf_a, buf_d, verb == PARAR)
    elif kind == P_RESIST:
        resolve_move(ci, init, cs, g, wt, wd, pen, dist, p, dice, buf_a, buf_d, verb == RESISTIR)
    elif kind == P_SPEND:
        apply_spend(ci, init, cs, g, item)
    else:
        apply_continue(ci, init, cs, g, p, dice, buf_a, buf_d, verb == CONTINUAR)


@kjit
def apply_turn(
    ci: np.ndarray,
    init: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    wt: np.ndarray,
    wd: np.ndarray,
    pen: np.ndarray,
    dist: np.ndarray,
    stepto: np.ndarray,
    away: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
    verb: int,
    target: int,
    item: int,
) -> None:
    """``Donjon._apply_turn``: spend the number called (DJ-05), then act."""
    actor = g[PACTOR]
    count = g[COUNT]
    n = ci[actor, NINIT]
    i = 0
    while i < n and init[actor, i] != count:
        i += 1
    for k in range(i, n - 1):
        init[actor, k] = init[actor, k + 1]
    ci[actor, NINIT] = n - 1
    if ci[actor, ACTED_AT] == count:
        ci[actor, ACTED_TIMES] += 1
    else:
        ci[actor, ACTED_AT] = count
        ci[actor, ACTED_TIMES] = 1
    g[TURN] += 1
    if verb == ATACAR:
        declare_attack(
            ci, init, cs, g, wt, wd, pen, dist, p, dice, buf_a, buf_d, actor, target, item
        )
    elif verb == REMATAR:
        # DJ-18: "Solo toma un ataque, que no requiere de Prueba alguna, para matar al PNJ".
        set_status(ci, cs, g, target, ST_DEAD)
        after(ci, init, cs, g)
    elif verb == ACERCARSE or verb == ALEJARSE or verb == HUIR:
        declare_move(
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
            actor,
            verb,
            target,
        )
    else:
        after(ci, init, cs, g)


@kjit
def declare_attack(
    ci: np.ndarray,
    init: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    wt: np.ndarray,
    wd: np.ndarray,
    pen: np.ndarray,
    dist: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
    actor: int,
    target: int,
    w: int,
) -> None:
    """``Donjon._declare_attack``: a melee attack on a foe who can parry waits for its
    reaction (DJ-14); anything else is resolved against a dodge (DJ-15)."""
    g[AT_ATT] = actor
    g[AT_TGT] = target
    g[AT_WPN] = w
    g[AT_BAND] = band_of(dist[ci[actor, ZONE], ci[target, ZONE]])
    if wt[actor, w] == K_MELEE and can_react(ci, target) and cs[target, PARRYW] != NONE:
        g[PKIND] = P_DEFENCE
        g[PACTOR] = target
        return
    resolve_attack(ci, init, cs, g, wt, wd, pen, p, dice, buf_a, buf_d, False)


@kjit
def cross_off(ci: np.ndarray, init: np.ndarray, c: int) -> None:
    """DJ-10/DJ-14: cross off the next initiative number."""
    n = ci[c, NINIT]
    for k in range(n - 1):
        init[c, k] = init[c, k + 1]
    ci[c, NINIT] = n - 1


@kjit
def resolve_attack(
    ci: np.ndarray,
    init: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    wt: np.ndarray,
    wd: np.ndarray,
    pen: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
    parry: bool,
) -> None:
    """``Donjon._resolve_attack``: the Prueba de Ataque (DJ-13) against a parry (DJ-14,
    the winner damages the loser) or a dodge (DJ-15, its successes lost)."""
    actor = g[AT_ATT]
    target = g[AT_TGT]
    w = g[AT_WPN]
    if parry:
        cross_off(ci, init, target)
    pool = attack_pool(ci, cs, wt, pen, actor, w, g[AT_BAND])
    if pool < -(1 << 39):
        pool = 0
    bonus = ci[actor, BONUS]
    ci[actor, BONUS] = 0
    d_pool = parry_pool(ci, cs, target) if parry else dodge_pool(ci, cs, target)
    who, s = opposed(dice, g, p, buf_a, buf_d, pool + bonus, d_pool)
    if who == 0:
        damage(ci, cs, g, wd, p, dice, buf_a, buf_d, actor, target, w, s)
    elif parry:
        damage(ci, cs, g, wd, p, dice, buf_a, buf_d, target, actor, cs[target, PARRYW], s)
    if g[SP_DEALER] == NONE:
        after(ci, init, cs, g)


@kjit
def damage(
    ci: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    wd: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
    dealer: int,
    victim: int,
    w: int,
    carried: int,
) -> None:
    """``Donjon._damage`` (DJ-16, DJ-03 carried successes, DJ-19 floor and breaking)."""
    floor_d = 1 if cs[dealer, PC] == 1 else 0
    floor_v = 1 if cs[victim, PC] == 1 else 0
    pool = max(0, floor_d, damage_pool(ci, cs, wd, dealer, w) + carried)
    soak = max(0, floor_v, soak_pool(ci, cs, victim))
    at_zero = ci[victim, H] == 0
    who, s = opposed(dice, g, p, buf_a, buf_d, pool, soak)
    if who != 0 or s == 0:
        return
    if cs[victim, PC] == 1 and cs[dealer, PC] == 0 and at_zero and s == pool:
        # DJ-19: every one of a PNJ's damage dice an éxito breaks a PJ already at 0.
        ci[victim, QUEBR] = 1
        set_status(ci, cs, g, victim, ST_DOWN)
        return
    g[SP_DEALER] = dealer
    g[SP_VICTIM] = victim
    g[SP_REM] = s
    g[SP_NPICK] = 0
    next_spend(ci, cs, g)


@kjit
def next_spend(ci: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    """``Donjon._next_spend``: ask for the next success or close the spending."""
    victim = g[SP_VICTIM]
    if g[SP_REM] > 0 and ci[victim, STATUS] == ST_ACTIVE and _has_spend_option(ci, g):
        g[PKIND] = P_SPEND
        g[PACTOR] = g[SP_DEALER]
        return
    g[SP_DEALER] = NONE


@kjit
def _has_spend_option(ci: np.ndarray, g: np.ndarray) -> bool:
    victim = g[SP_VICTIM]
    heridas = ci[victim, H]
    if heridas > 0:
        return True
    # At 0 Heridas no attribute needs a fact: any attribute above 0 is an option.
    for o in range(1, 5):
        if ci[victim, H + o] > 0:
            return True
    return False


@kjit
def apply_spend(
    ci: np.ndarray, init: np.ndarray, cs: np.ndarray, g: np.ndarray, option: int
) -> None:
    """``Donjon._apply_spend`` (DJ-17, DJ-18): one success on Heridas, a fact, or a point
    off an attribute."""
    dealer = g[SP_DEALER]
    victim = g[SP_VICTIM]
    g[SP_REM] -= 1
    if option == 0:
        ci[victim, H] -= 1
        _count_damage(ci, cs, dealer, victim)
        if ci[victim, H] == 0 and cs[victim, PC] == 0:
            ci[victim, INCONSC] = 1
            set_status(ci, cs, g, victim, ST_DOWN)
    else:
        picked = False
        for j in range(g[SP_NPICK]):
            if g[SP_PICK + j] == option:
                picked = True
        if ci[victim, H] > 0 and not picked:
            g[SP_PICK + g[SP_NPICK]] = option
            g[SP_NPICK] += 1
        else:
            ci[victim, H + option] -= 1
            _count_damage(ci, cs, dealer, victim)
    next_spend(ci, cs, g)
    if g[SP_DEALER] == NONE:
        after(ci, init, cs, g)


@kjit
def _count_damage(ci: np.ndarray, cs: np.ndarray, dealer: int, victim: int) -> None:
    # playtest.record_from_events: a Damaged event of amount 1.
    ci[victim, TAKEN] += 1
    ci[dealer, DEALT] += 1
    if cs[dealer, SIDE] != cs[victim, SIDE]:
        ci[dealer, TOFOES] += 1


@kjit
def declare_move(
    ci: np.ndarray,
    init: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    wt: np.ndarray,
    wd: np.ndarray,
    pen: np.ndarray,
    dist: np.ndarray,
    stepto: np.ndarray,
    away: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
    actor: int,
    verb: int,
    target: int,
) -> None:
    """``Donjon._declare_move`` (DJ-10, DJ-11): the opponent who may resist."""
    za = ci[actor, ZONE]
    resister = NONE
    from_contact = 0
    to_zone = NONE
    if verb == HUIR:
        # *(default)* the nearest opponent who can still react may pursue.
        best_d = 0
        for o in range(ci.shape[0]):
            if cs[o, SIDE] == cs[actor, SIDE] or not can_react(ci, o):
                continue
            d = dist[za, ci[o, ZONE]]
            if resister == NONE or d < best_d:
                resister = o
                best_d = d
    else:
        zo = ci[target, ZONE]
        to_zone = stepto[za, zo] if verb == ACERCARSE else away[za, zo]
        if can_react(ci, target):
            resister = target
        from_contact = 1 if verb == ALEJARSE and za == zo else 0
    g[MV_MOVER] = actor
    g[MV_RES] = resister
    g[MV_VERB] = verb
    g[MV_TO] = to_zone
    g[MV_FROMC] = from_contact
    if resister != NONE:
        g[PKIND] = P_RESIST
        g[PACTOR] = resister
        return
    resolve_move(ci, init, cs, g, wt, wd, pen, dist, p, dice, buf_a, buf_d, False)


@kjit
def resolve_move(
    ci: np.ndarray,
    init: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    wt: np.ndarray,
    wd: np.ndarray,
    pen: np.ndarray,
    dist: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
    resist: bool,
) -> None:
    """``Donjon._resolve_move``: a resisted move is a movement test (DJ-10); a failed
    escape from contact gives a free attack (DJ-11); won successes carry to the next test."""
    mover = g[MV_MOVER]
    if resist:
        resister = g[MV_RES]
        cross_off(ci, init, resister)
        bonus = ci[mover, BONUS]
        ci[mover, BONUS] = 0
        who, s = opposed(
            dice, g, p, buf_a, buf_d, move_pool(ci, cs, mover) + bonus, move_pool(ci, cs, resister)
        )
        if who != 0:
            if g[MV_FROMC] == 1:
                free_attack(ci, cs, g, wt, wd, pen, p, dice, buf_a, buf_d, resister, mover, s)
            if g[SP_DEALER] == NONE:
                after(ci, init, cs, g)
            return
        ci[mover, BONUS] = s
    carry_out_move(ci, cs, g, dist, mover)
    after(ci, init, cs, g)


@kjit
def carry_out_move(
    ci: np.ndarray, cs: np.ndarray, g: np.ndarray, dist: np.ndarray, mover: int
) -> None:
    """``Donjon._carry_out_move``: huir leaves; a step fuera del alcance of every active
    foe leaves too (DJ-11)."""
    to = g[MV_TO]
    if to == NONE:
        set_status(ci, cs, g, mover, ST_FLED)
        return
    ci[mover, ZONE] = to
    for o in range(ci.shape[0]):
        if cs[o, SIDE] != cs[mover, SIDE] and ci[o, STATUS] == ST_ACTIVE:
            if dist[to, ci[o, ZONE]] < 3:
                return
    set_status(ci, cs, g, mover, ST_FLED)


@kjit
def free_attack(
    ci: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    wt: np.ndarray,
    wd: np.ndarray,
    pen: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
    attacker: int,
    target: int,
    successes: int,
) -> None:
    """``Donjon._free_attack`` (DJ-11): movement successes as bonus dice, dodge only."""
    w = free_attack_weapon(ci, cs, wt, wd, pen, attacker)
    if w == NONE:
        return
    pool = attack_pool(ci, cs, wt, pen, attacker, w, 0) + successes
    if pool < 1:
        return
    who, s = opposed(dice, g, p, buf_a, buf_d, pool, dodge_pool(ci, cs, target))
    if who == 0:
        damage(ci, cs, g, wd, p, dice, buf_a, buf_d, attacker, target, w, s)


@kjit
def apply_continue(
    ci: np.ndarray,
    init: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
    going_on: bool,
) -> None:
    """``Donjon._apply_continue`` (DJ-07): heroes answer, then enemies; a new ráfaga if
    either goes on, else a draw by withdrawal."""
    side = cs[g[PACTOR], SIDE]
    if going_on:
        g[CONT] += 1
    if side == HEROES:
        ask_continue(ci, cs, g, ENEMIES)
        return
    if g[CONT] > 0:
        new_rafaga(ci, init, cs, g, p, dice, buf_a, buf_d)
    else:
        finish(g, NONE, R_WITHDRAWAL)


@kjit
def start(
    ci: np.ndarray,
    init: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    p: np.ndarray,
    dice: np.ndarray,
    buf_a: np.ndarray,
    buf_d: np.ndarray,
) -> None:
    """``Donjon.start``: the first ráfaga."""
    g[AT_ATT] = NONE
    g[MV_MOVER] = NONE
    g[SP_DEALER] = NONE
    g[WINNER] = NONE
    new_rafaga(ci, init, cs, g, p, dice, buf_a, buf_d)


def new_dice_state(seed: int) -> np.ndarray:
    """The dice generator of battle ``seed`` (``RandomRoller(seed)``)."""
    state = mt.new_state()
    mt.seed_key(state, mt.key_of(seed))
    return state
