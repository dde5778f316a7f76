"""Exact probabilities of 2d10 + MHC rolls, for explanations and the heuristic.

Everything is enumerated over the 100 (or 1000, with a Dado Exprés) equally likely
dice outcomes with :class:`fractions.Fraction`, so the answers are exact, and cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product
from types import MappingProxyType
from typing import Literal

from escaramuza.rules.core.dice import DiceExpr
from escaramuza.rules.core.ruleset import Odds
from escaramuza.rules.sistema_2d10.rolls import DEGREES, is_critical, is_fumble, judge, verdict
from escaramuza.rules.sistema_2d10.tables import Tables

#: How a Dado Exprés is used (S2-05 "Se puede declarar su uso antes o después de realizar
#: la tirada"): ``none``; ``before`` (always rolled); ``after`` (rolled only when the two
#: dice failed and were not a pifia — the best use after seeing them).
ExpresUse = Literal["none", "before", "after"]

_D10 = range(1, 11)


@dataclass(frozen=True, slots=True)
class SkillOdds:
    """P(success), P(crítico), P(pifia) and P(success?, degree) of one skill roll."""

    p_success: Fraction
    p_critical: Fraction
    p_fumble: Fraction
    #: ((success, degree), probability) for every success flag and degree, fixed order.
    degrees: tuple[tuple[tuple[bool, str], Fraction], ...]

    def degree(self, success: bool, degree: str) -> Fraction:
        for key, p in self.degrees:
            if key == (success, degree):
                return p
        raise KeyError((success, degree))


def skill_odds(bonus: int, difficulty: int, expres: ExpresUse = "none") -> SkillOdds:
    """Exact odds of 2d10 + ``bonus`` (MHC + MS) against ``difficulty`` (S2-01…S2-05)."""
    return _skill_odds(difficulty - bonus, expres)


def _two_dice() -> tuple[tuple[int, bool, bool, int], ...]:
    """The 100 equally likely rolls of the two dice grouped by what judging them reads:
    (sum, crítico, pifia, how many of the 100)."""
    groups: dict[tuple[int, bool, bool], int] = {}
    for a, b in product(_D10, _D10):
        key = (a + b, is_critical((a, b)), is_fumble((a, b)))
        groups[key] = groups.get(key, 0) + 1
    return tuple((total, crit, fum, n) for (total, crit, fum), n in groups.items())


#: :func:`_two_dice`, once.
_TWO_DICE = _two_dice()


@lru_cache(maxsize=4096)
def _skill_odds(need: int, expres: ExpresUse) -> SkillOdds:
    """:func:`skill_odds` of a roll that needs ``need`` on its dice: the odds depend on
    the difficulty less the bonus only (:func:`~escaramuza.rules.sistema_2d10.rolls.judge`
    judges the margin)."""
    # Counted in thousandths: each of the 100 two-dice outcomes weighs 10/1000, split into
    # ten 1/1000 shares when the Dado Exprés is rolled. Integer sums turned into Fractions
    # once are the same exact values as summing Fractions, at a fraction of the cost (a
    # process's first battles compute a few hundred of these); outcomes judged alike
    # (same sum, crítico and pifia) are judged once and counted by their number.
    counts: dict[tuple[bool, str], int] = {(s, d): 0 for s in (False, True) for d in DEGREES}
    success = critical = fumble = 0
    for total, crit, fum, times in _TWO_DICE:
        base = verdict(total - need, crit, fum)
        spend = expres == "before" or (expres == "after" and not base[0] and not fum)
        outcomes = [verdict(total + c - need, crit, fum) for c in _D10] if spend else [base]
        each = 10 // len(outcomes) * times
        for result in outcomes:
            counts[result] += each
            success += each if result[0] else 0
            critical += each if crit else 0
            fumble += each if fum else 0
    return SkillOdds(
        Fraction(success, 1000),
        Fraction(critical, 1000),
        Fraction(fumble, 1000),
        tuple((key, Fraction(n, 1000)) for key, n in counts.items()),
    )


def success_probability(bonus: int, difficulty: int, expres: ExpresUse = "none") -> Fraction:
    """P(2d10 + bonus succeeds against difficulty), crítico and pifia included."""
    return skill_odds(bonus, difficulty, expres).p_success


def block_probability(
    defence_bonus: int,
    attack_total: int,
    attack_critical: bool = False,
    rule: Literal["ge", "gt"] = "ge",
    expres: ExpresUse = "none",
) -> Fraction:
    """P(an active defence blocks an attack whose total is known) (S2-08).

    The defence is a skill roll against the attack total (``ge``: a tie blocks). A
    crítico attack is only blocked by a crítico defence *(default)*.
    """
    if attack_critical:
        return Fraction(1, 100)
    difficulty = attack_total + (1 if rule == "gt" else 0)
    return success_probability(defence_bonus, difficulty, expres)


@lru_cache(maxsize=8192)
def hit_probability(
    attack_bonus: int,
    passive: int,
    defence_bonus: int | None = None,
    passive_rule: Literal["ge", "gt"] = "ge",
    block_rule: Literal["ge", "gt"] = "ge",
    attack_expres: ExpresUse = "none",
    defence_expres: ExpresUse = "none",
) -> Fraction:
    """P(an attack hits): it must beat the passive defence (10 + MHC) and, when
    ``defence_bonus`` is given, survive the defender's active defence (S2-08)."""
    weight = Fraction(1, 100)
    need = passive + (1 if passive_rule == "gt" else 0)
    total_p = Fraction(0)
    for a, b in product(_D10, _D10):
        base = judge((a, b), attack_bonus, need)
        spend = attack_expres == "before" or (
            attack_expres == "after" and not base.success and not base.fumble
        )
        outcomes = [judge((a, b, c), attack_bonus, need) for c in _D10] if spend else [base]
        each = weight / len(outcomes)
        for result in outcomes:
            if not result.success:
                continue
            if defence_bonus is None:
                total_p += each
            else:
                blocked = block_probability(
                    defence_bonus, result.total, result.critical, block_rule, defence_expres
                )
                total_p += each * (1 - blocked)
    return total_p


@lru_cache(maxsize=4096)
def expected_damage(damage: DiceExpr, ca: int, multiplier: int = 1) -> float:
    """E[max(0, damage − CA) × multiplier] (S2-11, S2-12)."""
    return sum(p * max(0, v - ca) * multiplier for v, p in damage.distribution().items())


def location_expected_damage(
    damage: DiceExpr, ca: int, tables: Tables, aimed: str | None = None
) -> float:
    """Expected damage of a hit: at the aimed location, or averaged over the d10 table."""
    if aimed is not None:
        return expected_damage(damage, ca, tables.multiplier(aimed))
    return sum(expected_damage(damage, ca, loc.multiplier) for loc in tables.location_by_face) / 10


@lru_cache(maxsize=4096)
def hit_damage_distribution(
    damage: DiceExpr, ca: int, multipliers: tuple[int, ...]
) -> tuple[tuple[int, float], ...]:
    """Distribution of the damage one hit deals: (daño − CA, min 0) × the location's
    multiplier (S2-11, S2-12), the multiplier drawn uniformly from ``multipliers`` — the
    ten d10 faces of the location table, or the one aimed location (S2-13).

    Returned as sorted ``(damage, probability)`` pairs (immutable, so it can be cached).
    """
    out: dict[int, float] = {}
    share = 1 / len(multipliers)
    for value, p in damage.distribution().items():
        for mult in multipliers:
            dealt = max(0, value - ca) * mult
            out[dealt] = out.get(dealt, 0.0) + p * share
    return tuple(sorted(out.items()))


@lru_cache(maxsize=1024)
def pain_knockout_probability(aguante_bonus: int, difficulty: int, p_out_on_gdf: float) -> float:
    """P(a prueba de Aguante sends the target out of the fight) (S2-14, S2-15).

    The test fails — and the GDF table is rolled — unless it succeeds against
    ``difficulty`` (a total exactly equal only stuns, which is a success here); the GDF
    roll then takes it out with ``p_out_on_gdf`` (inconsciente and moribundo faces / 10).
    No Dado Exprés is assumed on the test.
    """
    return float(1 - success_probability(aguante_bonus, difficulty)) * p_out_on_gdf


def attack_outcome(
    p_hit: float,
    hit_damage: tuple[tuple[int, float], ...],
    pv: int,
    p_pain_out: float,
) -> tuple[float, float, dict[int, float]]:
    """(expected damage, P(drop), damage distribution) of an attack that hits with ``p_hit``.

    Drop = the blow takes the target from ``pv`` to 0 (S2-11 *(default)* down), or it
    costs half or more of ``pv`` and the prueba de Aguante ends in an out-of-the-fight GDF
    (``p_pain_out``, see :func:`pain_knockout_probability`). The damage distribution
    counts what the blow deals (not capped at the PV left), 0 for a miss or a block.
    """
    dist: dict[int, float] = {0: 1 - p_hit}
    p_drop = 0.0
    for dealt, q in hit_damage:
        dist[dealt] = dist.get(dealt, 0.0) + p_hit * q
        if dealt >= pv:
            p_drop += p_hit * q
        elif dealt > 0 and 2 * dealt >= pv:
            # S2-14 "la mitad o más de sus Puntos de Vitalidad actuales".
            p_drop += p_hit * q * p_pain_out
    dist = {k: v for k, v in sorted(dist.items()) if v > 0}
    return sum(k * v for k, v in dist.items()), p_drop, dist


def pv_lost(blow: Odds, pv: int) -> Odds:
    """The odds of a blow (:func:`attack_odds`) as the PV its target loses, at most the
    ``pv`` it has: S2-11 "El resultado se resta de los Puntos de Vitalidad", and at 0 PV the
    target is down *(default)*, so a blow of 9 on a target at 3 PV costs it 3 (the
    :class:`Odds` contract: "the resource the target loses"). P(hit) and P(drop) are the
    blow's own."""
    dist: dict[int, float] = {}
    for dealt, p in (blow.damage or {}).items():
        lost = min(dealt, pv)
        dist[lost] = dist.get(lost, 0.0) + p
    expected = sum(k * v for k, v in dist.items())
    return Odds(blow.p_hit, expected, blow.p_drop, MappingProxyType(dist))


@lru_cache(maxsize=65536)
def attack_odds(
    attack_bonus: int,
    passive: int,
    defence_bonus: int | None,
    passive_rule: Literal["ge", "gt"],
    block_rule: Literal["ge", "gt"],
    damage: DiceExpr,
    ca: int,
    multipliers: tuple[int, ...],
    pv: int,
    aguante_bonus: int,
    aguante_difficulty: int,
    p_out_on_gdf: float,
) -> Odds:
    """Exact :class:`Odds` of one attack from plain numbers (cached: the heuristic and the
    suggestions ask for the same few attacks again and again).

    :func:`hit_probability` (passive and, if ``defence_bonus`` is given, active defence),
    :func:`hit_damage_distribution` and :func:`attack_outcome` with the
    :func:`pain_knockout_probability` of the target. No Dado Exprés on any roll.
    """
    p_hit = float(hit_probability(attack_bonus, passive, defence_bonus, passive_rule, block_rule))
    hit_damage = hit_damage_distribution(damage, ca, multipliers)
    p_pain_out = pain_knockout_probability(aguante_bonus, aguante_difficulty, p_out_on_gdf)
    expected, p_drop, dist = attack_outcome(p_hit, hit_damage, pv, p_pain_out)
    # Read-only: the same cached object is handed to every caller.
    return Odds(p_hit, expected, p_drop, MappingProxyType(dist))
