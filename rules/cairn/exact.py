"""Exact probabilities of one Cairn exchange, for the heuristic and GM explanations.

One exchange is every die aimed at one target in a side's turn: "se tiran
todos los dados de daño y se conserva el resultado más alto" (CA-06, and
CA-10 for a pair of weapons), minus the target's armour (CA-05), off PI, the
rest off FUE (CA-11). Everything is a :class:`fractions.Fraction`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

_ONE = Fraction(1)


def keep_highest_distribution(dice: Sequence[int]) -> dict[int, Fraction]:
    """P(highest face = k) for the dice ``dice`` (sizes); P(max ≤ k) = Π min(k, s)/s."""
    if not dice:
        return {0: _ONE}
    top = max(dice)
    out: dict[int, Fraction] = {}
    below = Fraction(0)
    for k in range(1, top + 1):
        at_most = _ONE
        for s in dice:
            at_most *= Fraction(min(k, s), s)
        out[k] = at_most - below
        below = at_most
    return out


def exchange_distribution(
    dice: Sequence[int], armour: int, pi: int
) -> dict[tuple[int, int], Fraction]:
    """Distribution of (PI lost, FUE lost) when ``dice`` are all rolled at one target.

    ``pi`` is the target's current PI; damage = highest die − armour, never
    below 0; what PI cannot absorb comes off FUE (CA-11). FUE lost is not
    capped at the target's FUE (a loss ≥ FUE is death, CA-14).
    """
    out: dict[tuple[int, int], Fraction] = {}
    for face, p in keep_highest_distribution(dice).items():
        damage = max(0, face - armour)
        key = (min(damage, pi), max(0, damage - pi))
        out[key] = out.get(key, Fraction(0)) + p
    return dict(sorted(out.items()))


def save_chance(score: int) -> Fraction:
    """CA-01 *(ext)*: d20 ≤ score succeeds; a 1 always succeeds, a 20 always fails."""
    return Fraction(min(max(score, 1), 19), 20)


def out_probability(
    dice: Sequence[int], armour: int, pi: int, fue: int, pc: bool = False, scars: bool = True
) -> Fraction:
    """P(the target is out of the fight after the exchange).

    Out = FUE reaches 0 (CA-14), or a failed FUE save with the new FUE
    (CA-11: Daño Crítico); for a PC also a Cicatrices entry that puts them
    out of action (11, 12 — only reachable with at least 11 PI).
    """
    total = Fraction(0)
    for (pi_lost, fue_lost), p in exchange_distribution(dice, armour, pi).items():
        if fue_lost > 0:
            left = fue - fue_lost
            total += p if left <= 0 else p * (1 - save_chance(left))
        elif pc and scars and pi > 0 and pi_lost == pi and pi_lost >= 11:
            total += p
    return total


def expected_damage(dice: Sequence[int], armour: int, pi: int, fue: int) -> Fraction:
    """Expected PI + FUE lost, capped at what the target has (damage that matters)."""
    return sum(
        (p * (pi_lost + min(fue_lost, fue))
         for (pi_lost, fue_lost), p in exchange_distribution(dice, armour, pi).items()),
        Fraction(0),
    )
