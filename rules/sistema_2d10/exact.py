"""Exact probabilities of 2d10 + MHC rolls, for explanations and the heuristic.

Everything is enumerated over the 100 (or 1000, with a Dado Exprés) equally likely
dice outcomes with :class:`fractions.Fraction`, so the answers are exact, and cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Literal

from escaramuza.rules.core.dice import DiceExpr
from escaramuza.rules.sistema_2d10.rolls import DEGREES, judge
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


@lru_cache(maxsize=4096)
def skill_odds(bonus: int, difficulty: int, expres: ExpresUse = "none") -> SkillOdds:
    """Exact odds of 2d10 + ``bonus`` (MHC + MS) against ``difficulty`` (S2-01…S2-05)."""
    weight = Fraction(1, 100)
    counts: dict[tuple[bool, str], Fraction] = {
        (s, d): Fraction(0) for s in (False, True) for d in DEGREES
    }
    p_success = p_critical = p_fumble = Fraction(0)
    for a, b in product(_D10, _D10):
        base = judge((a, b), bonus, difficulty)
        spend = expres == "before" or (expres == "after" and not base.success and not base.fumble)
        outcomes = [judge((a, b, c), bonus, difficulty) for c in _D10] if spend else [base]
        each = weight / len(outcomes)
        for result in outcomes:
            counts[(result.success, result.degree)] += each
            p_success += each if result.success else 0
            p_critical += each if result.critical else 0
            p_fumble += each if result.fumble else 0
    return SkillOdds(p_success, p_critical, p_fumble, tuple(counts.items()))


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
def expected_damage(dano: DiceExpr, ca: int, multiplier: int = 1) -> float:
    """E[max(0, damage − CA) × multiplier] (S2-11, S2-12)."""
    return sum(p * max(0, v - ca) * multiplier for v, p in dano.distribution().items())


def location_expected_damage(
    dano: DiceExpr, ca: int, tables: Tables, aimed: str | None = None
) -> float:
    """Expected damage of a hit: at the aimed location, or averaged over the d10 table."""
    if aimed is not None:
        return expected_damage(dano, ca, tables.multiplier(aimed))
    return sum(expected_damage(dano, ca, loc.multiplier) for loc in tables.location_by_face) / 10
