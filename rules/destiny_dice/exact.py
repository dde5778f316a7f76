"""Exact odds of a Destiny Dice attack, for the heuristic and GM explanations.

Everything is computed by summing over the faces of the few dice involved, so
the numbers are exact fractions (as floats), not samples.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import NamedTuple


class AttackProfile(NamedTuple):
    """Everything that decides one attack's odds.

    ``att_mod`` adds to the attack roll (help, Ciego −2); ``def_mod`` to the
    defence roll (armour, shield, help, cover). ``damage_die`` is the
    characteristic die rolled again for damage; ``tier_bonus`` the weapon's bonus
    (0 for unarmed); ``extra`` the special modifier applied after (DD-11).

    A named tuple rather than a frozen dataclass: it keys every memoised helper
    below, and a tuple's hash and construction run in C, several times cheaper
    than a dataclass's generated ``__hash__``/``__init__`` — the heuristic and the
    planner build and look up profiles on every decision.
    """

    att_die: int
    def_die: int
    att_mod: int = 0
    def_mod: int = 0
    unarmed: bool = False
    tier_bonus: int = 0
    extra: int = 0
    shooting: bool = False
    ties_favor: str = "attacker"
    fumble_damage: str = "always"


# The profiles met in play are few (dice × small modifiers), so every helper is memoised
# on the frozen profile: the heuristic and the planner ask the same questions constantly.
@lru_cache(maxsize=65536)
def hit_probability(p: AttackProfile) -> float:
    """P(the attack hits): P(Ataque ≥ Defensa) (or > with ``ties_favor=defender``),
    times 19/20 when shooting, since a d20 of 1 misses automatically (DD-18)."""
    wins = 0
    for a in range(1, p.att_die + 1):
        for d in range(1, p.def_die + 1):
            att, dfn = a + p.att_mod, d + p.def_mod
            if att > dfn or (att == dfn and p.ties_favor == "attacker"):
                wins += 1
    p_hit = wins / (p.att_die * p.def_die)
    return p_hit * (19 / 20) if p.shooting else p_hit


@lru_cache(maxsize=65536)
def damage_distribution(p: AttackProfile) -> dict[int, float]:
    """Damage of a hit: second roll of the die + bonus; unarmed die − 1, minimum 1."""
    out: dict[int, float] = {}
    for face in range(1, p.att_die + 1):
        base = max(face - 1, 1) if p.unarmed else face + p.tier_bonus
        dmg = max(base + p.extra, 0)
        out[dmg] = out.get(dmg, 0.0) + 1 / p.att_die
    return dict(sorted(out.items()))


@lru_cache(maxsize=65536)
def pv_loss_distribution(p: AttackProfile) -> dict[int, float]:
    """PV the defender loses to one attack, including the Fallo Defensivo point (DD-09)."""
    p_hit = hit_probability(p)
    dmg = damage_distribution(p)
    fumble = 1 / 20
    out: dict[int, float] = {}

    def add(k: int, q: float) -> None:
        out[k] = out.get(k, 0.0) + q

    # A shooter's d20 of 1 is an automatic miss and the defence is not rolled (no fumble).
    p_rolled = 19 / 20 if p.shooting else 1.0
    p_hit_given_rolled = p_hit / p_rolled
    for value, q in dmg.items():
        add(value, p_rolled * p_hit_given_rolled * q * (1 - fumble))
        extra = 1 if p.fumble_damage == "always" else 0
        add(value + extra, p_rolled * p_hit_given_rolled * q * fumble)
    miss = p_rolled * (1 - p_hit_given_rolled)
    add(0, miss * (1 - fumble))
    add(1, miss * fumble)
    add(0, 1 - p_rolled)
    return {k: v for k, v in sorted(out.items()) if v > 0}


@lru_cache(maxsize=65536)
def expected_pv_loss(p: AttackProfile) -> float:
    return sum(k * v for k, v in pv_loss_distribution(p).items())


@lru_cache(maxsize=65536)
def pv_lost_distribution(p: AttackProfile, pv: int) -> Mapping[int, float]:
    """The PV a defender at ``pv`` loses to one attack: :func:`pv_loss_distribution` with
    every loss past ``pv`` counted as ``pv`` ("Si tus PV bajan a 0, caes Fuera de
    Combate": PV stop at 0). What a GM is shown; the temperaments read the uncapped sums.
    Read-only: the cached mapping is handed to every caller."""
    out: dict[int, float] = {}
    for k, q in pv_loss_distribution(p).items():
        out[min(k, pv)] = out.get(min(k, pv), 0.0) + q
    return MappingProxyType(out)


@lru_cache(maxsize=65536)
def drop_probability(p: AttackProfile, pv: int) -> float:
    """P(one attack takes the defender from ``pv`` to 0)."""
    return sum(v for k, v in pv_loss_distribution(p).items() if k >= pv)
