"""Exact probabilities of one Cairn exchange, for the heuristic and GM explanations.

One exchange is every die aimed at one target in a side's turn: "se tiran
todos los dados de daño y se conserva el resultado más alto" (CA-06, and
CA-10 for a pair of weapons), minus the target's armour (CA-05), off PI, the
rest off FUE (CA-11). Everything is a :class:`fractions.Fraction`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from escaramuza.rules.cairn.scars import DOOMED_READINGS, scar_takes_out

_ONE = Fraction(1)

# The heuristic and the planner ask the same few questions on every decision (a pool
# of a handful of dice against one of a few targets), and exact Fraction arithmetic is
# slow, so the helpers below are memoised on hashable keys. A pool is keyed by its
# sorted dice: the kept highest die does not depend on the order they are listed in.
_CACHE = 16384


def _pool_key(dice: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(dice))


@lru_cache(maxsize=_CACHE)
def _keep_highest(dice: tuple[int, ...]) -> tuple[tuple[int, Fraction], ...]:
    if not dice:
        return ((0, _ONE),)
    out: list[tuple[int, Fraction]] = []
    below = Fraction(0)
    for k in range(1, max(dice) + 1):
        at_most = _ONE
        for s in dice:
            at_most *= Fraction(min(k, s), s)
        out.append((k, at_most - below))
        below = at_most
    return tuple(out)


def keep_highest_distribution(dice: Sequence[int]) -> dict[int, Fraction]:
    """P(highest face = k) for the dice ``dice`` (sizes); P(max ≤ k) = Π min(k, s)/s."""
    return dict(_keep_highest(_pool_key(dice)))


@lru_cache(maxsize=_CACHE)
def _exchange(
    dice: tuple[int, ...], armour: int, pi: int
) -> tuple[tuple[tuple[int, int], Fraction], ...]:
    out: dict[tuple[int, int], Fraction] = {}
    for face, p in _keep_highest(dice):
        damage = max(0, face - armour)
        key = (min(damage, pi), max(0, damage - pi))
        out[key] = out.get(key, Fraction(0)) + p
    return tuple(sorted(out.items()))


def exchange_distribution(
    dice: Sequence[int], armour: int, pi: int
) -> dict[tuple[int, int], Fraction]:
    """Distribution of (PI lost, FUE lost) when ``dice`` are all rolled at one target.

    ``pi`` is the target's current PI; damage = highest die − armour, never
    below 0; what PI cannot absorb comes off FUE (CA-11). FUE lost is not
    capped at the target's FUE (a loss ≥ FUE is death, CA-14).
    """
    return dict(_exchange(_pool_key(dice), armour, pi))


def save_chance(score: int) -> Fraction:
    """CA-01 *(ext)*: d20 ≤ score succeeds; a 1 always succeeds, a 20 always fails."""
    return Fraction(min(max(score, 1), 19), 20)


def out_probability(
    dice: Sequence[int],
    armour: int,
    pi: int,
    fue: int,
    pc: bool = False,
    scars: bool = True,
    doomed: str = DOOMED_READINGS[0],
) -> Fraction:
    """P(the target is out of the fight after the exchange).

    Out = FUE reaches 0 (CA-14), or a failed FUE save with the new FUE
    (CA-11: Daño Crítico); for a PC also a Cicatrices entry that puts them
    out of action (11, and 12 unless the ``doomed`` option says otherwise — only
    reachable with at least 11 PI).
    """
    return _out_probability(_pool_key(dice), armour, pi, fue, pc, scars, doomed)


def _scar_out(pi_lost: int, pi: int, pc: bool, scars: bool, doomed: str) -> bool:
    """CA-13: an exchange that leaves a PC at exactly 0 PI reads a scar that takes it out."""
    return pc and scars and pi > 0 and pi_lost == pi and scar_takes_out(pi_lost, doomed)


@lru_cache(maxsize=_CACHE)
def _out_probability(
    dice: tuple[int, ...], armour: int, pi: int, fue: int, pc: bool, scars: bool, doomed: str
) -> Fraction:
    total = Fraction(0)
    for (pi_lost, fue_lost), p in _exchange(dice, armour, pi):
        if fue_lost > 0:
            left = fue - fue_lost
            total += p if left <= 0 else p * (1 - save_chance(left))
        elif _scar_out(pi_lost, pi, pc, scars, doomed):
            total += p
    return total


def expected_damage(dice: Sequence[int], armour: int, pi: int, fue: int) -> Fraction:
    """Expected PI + FUE lost, capped at what the target has (damage that matters)."""
    return _expected_damage(_pool_key(dice), armour, pi, fue)


@lru_cache(maxsize=_CACHE)
def _expected_damage(dice: tuple[int, ...], armour: int, pi: int, fue: int) -> Fraction:
    outcomes = _exchange(dice, armour, pi)
    return sum((p * (lost + min(over, fue)) for (lost, over), p in outcomes), Fraction(0))


def _out_threshold(
    face: int, armour: int, pi: int, fue: int, pc: bool, scars: bool, doomed: str
) -> int:
    """The target is out after an exchange whose kept die shows ``face`` iff d20 > this.

    20: never out; 0: always out; otherwise the FUE save's success range (CA-01:
    d20 ≤ FUE, a 1 always succeeds, a 20 always fails). Writing "out" as one
    threshold on the same d20 lets two exchanges be compared on the same save roll.
    """
    damage = max(0, face - armour)
    pi_lost = min(damage, pi)
    over = damage - pi_lost
    if over > 0:
        left = fue - over
        # CA-14: FUE 0 is death; CA-11: otherwise the save with the new FUE.
        return 0 if left <= 0 else min(max(left, 1), 19)
    if _scar_out(pi_lost, pi, pc, scars, doomed):
        return 0  # CA-13: Cicatrices 11 (and 12 by default) put a PC out of action
    return 20


@dataclass(frozen=True, slots=True)
class MarginalOdds:
    """What one more attack adds to the dice already aimed at the same target (CA-06).

    ``damage`` is the distribution of the EXTRA PI + FUE the target loses because of
    this attack (0 when the earlier dice would have done as much); ``p_hit`` is
    P(extra ≥ 1); ``p_drop`` is P(the target is out with this attack and would not
    have been without it, on the same dice and the same FUE save).
    """

    p_hit: Fraction
    expected_damage: Fraction
    p_drop: Fraction
    damage: dict[int, Fraction]


def marginal_exchange(
    before: Sequence[int],
    mine: Sequence[int],
    armour: int,
    pi: int,
    fue: int,
    pc: bool = False,
    scars: bool = True,
    doomed: str = DOOMED_READINGS[0],
) -> MarginalOdds:
    """Exact marginal odds of adding the dice ``mine`` to the pool ``before`` at one target.

    With ``before`` empty these are the single attack's own odds. Damage counts what
    the target loses, PI then FUE, capped at what it has (as :func:`expected_damage`).
    """
    cap = pi + fue

    def loss(face: int) -> int:
        return min(max(0, face - armour), cap)

    pool = dict(_keep_highest(_pool_key(before))) if before else {0: _ONE}
    damage: dict[int, Fraction] = {}
    drop = Fraction(0)
    for m, pm in pool.items():
        if not pm:
            continue
        t_without = _out_threshold(m, armour, pi, fue, pc, scars, doomed) if m else 20
        for x, px in _keep_highest(_pool_key(mine)):
            if not px:
                continue
            kept = max(m, x)
            p = pm * px
            extra = loss(kept) - loss(m)
            damage[extra] = damage.get(extra, Fraction(0)) + p
            t_with = _out_threshold(kept, armour, pi, fue, pc, scars, doomed)
            # Out with: d20 > t_with; not out without: d20 ≤ t_without.
            drop += p * Fraction(max(0, t_without - t_with), 20)
    damage = dict(sorted(damage.items()))
    return MarginalOdds(
        p_hit=sum((p for k, p in damage.items() if k >= 1), Fraction(0)),
        expected_damage=sum((k * p for k, p in damage.items()), Fraction(0)),
        p_drop=drop,
        damage=damage,
    )
