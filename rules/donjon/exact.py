"""Donjon's Ley de los Éxitos: one opposed test, and its exact distribution.

DJ-01 *(ext)*: both sides roll their pools of d20; the highest single die
wins; the successes are the winner's dice above the loser's highest die.
Equal highest dice are set aside pairwise and the next ones compared; the
set-aside dice of the eventual winner count as successes. When every die ties
(or both pools are empty) the defender wins with 0 successes *(default,
option ``all_tied``)*.

:func:`opposed_distribution` gives the exact probability of every
(winner, successes) pair for two pool sizes without enumerating faces: it walks
the faces from the highest down (a dynamic programme over "how many dice of
each pool are still below the current face"), so a 12-against-12 test costs a
few milliseconds once and is cached afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from math import comb

ATTACKER = "attacker"
DEFENDER = "defender"
_TIE = "tie"


@dataclass(frozen=True, slots=True)
class OpposedResult:
    """The outcome of one opposed test (DJ-01)."""

    winner: str
    successes: int
    set_aside: int = 0

    @property
    def attacker_won(self) -> bool:
        return self.winner == ATTACKER


def opposed_test(
    attacker: Sequence[int], defender: Sequence[int], all_tied: str = DEFENDER
) -> OpposedResult:
    """Resolve one opposed test from the faces both sides rolled (DJ-01).

    "successes = the winner's dice above the loser's highest die" — the loser's
    highest die *after* the tied pairs were set aside; the set-aside pairs are
    added back for the winner.
    """
    return opposed_sorted(sorted(attacker, reverse=True), sorted(defender, reverse=True), all_tied)


def opposed_sorted(a: Sequence[int], d: Sequence[int], all_tied: str = DEFENDER) -> OpposedResult:
    """:func:`opposed_test` of faces already sorted highest first (the ruleset sorts them
    once for both the narration and the test)."""
    i = 0
    while i < len(a) and i < len(d) and a[i] == d[i]:
        i += 1
    if i < len(a) and (i >= len(d) or a[i] > d[i]):
        winner, win_dice, lose_dice = ATTACKER, a, d
    elif i < len(d):
        winner, win_dice, lose_dice = DEFENDER, d, a
    else:
        # Every die tied: the default gives the test to the defender, with nothing to spend.
        return OpposedResult(all_tied, 0, i)
    top = lose_dice[i] if i < len(lose_dice) else 0
    # The winner's dice are sorted highest first: count them down to the first one ≤ top.
    successes = i
    for x in win_dice[i:]:
        if x <= top:
            break
        successes += 1
    return OpposedResult(winner, successes, i)


# -- exact distribution -------------------------------------------------------
Dist = dict[tuple[str, int], float]


@cache
def _binomials(r: int, v: int) -> tuple[float, ...]:
    """P(exactly k of r dice show face v | every die shows at most v), k = 0..r."""
    p = 1.0 / v
    q = 1.0 - p
    return tuple(comb(r, k) * p**k * q ** (r - k) for k in range(r + 1))


@cache
def _above_loser(win: int, lose: int, v: int) -> tuple[float, ...]:
    """Distribution of how many of ``win`` dice (all ≤ v) beat the highest of ``lose`` dice.

    Once a winner is known this is the rest of the success count: the faces
    are walked down until the loser shows its highest remaining die.
    """
    if lose == 0:
        return tuple(1.0 if k == win else 0.0 for k in range(win + 1))
    out = [0.0] * (win + 1)
    if v <= 1:
        out[0] = 1.0
        return tuple(out)
    p_none = ((v - 1) / v) ** lose
    out[0] += 1.0 - p_none
    for a, pa in enumerate(_binomials(win, v)):
        if pa == 0.0:
            continue
        sub = _above_loser(win - a, lose, v - 1)
        for k, pk in enumerate(sub):
            if pk:
                out[a + k] += p_none * pa * pk
    return tuple(out)


@cache
def _from_face(ra: int, rb: int, v: int) -> tuple[tuple[tuple[str, int], float], ...]:
    """(winner, successes) distribution while the pools are still tied, faces ≤ v remain.

    Successes here exclude the pairs already set aside above ``v``; the caller
    shifts them (tie outcomes are never shifted: all tied ⇒ 0 successes).
    """
    if ra == 0 and rb == 0:
        return (((_TIE, 0), 1.0),)
    if ra == 0:
        return (((DEFENDER, rb), 1.0),)
    if rb == 0:
        return (((ATTACKER, ra), 1.0),)
    out: Dist = {}
    pas = _binomials(ra, v)
    pbs = _binomials(rb, v)
    for a, pa in enumerate(pas):
        if pa == 0.0:
            continue
        for b, pb in enumerate(pbs):
            if pb == 0.0:
                continue
            p = pa * pb
            if a == b:
                for (who, s), ps in _from_face(ra - a, rb - b, v - 1):
                    key = (who, s + a) if who != _TIE else (who, 0)
                    out[key] = out.get(key, 0.0) + p * ps
            elif a > b:
                for k, pk in enumerate(_above_loser(ra - a, rb - b, v - 1)):
                    if pk:
                        key = (ATTACKER, a + k)
                        out[key] = out.get(key, 0.0) + p * pk
            else:
                for k, pk in enumerate(_above_loser(rb - b, ra - a, v - 1)):
                    if pk:
                        key = (DEFENDER, b + k)
                        out[key] = out.get(key, 0.0) + p * pk
    return tuple(sorted(out.items()))


@cache
def opposed_distribution(
    attacker_dice: int, defender_dice: int, sides: int = 20, all_tied: str = DEFENDER
) -> dict[tuple[str, int], float]:
    """Exact P(winner, successes) of an opposed test of two pools of ``sides``-faced dice.

    Keys are ``("attacker" | "defender", successes)``; the values sum to 1.
    Cached: callers must not mutate the returned dict.
    """
    if attacker_dice < 0 or defender_dice < 0:
        raise ValueError("pool sizes cannot be negative")
    out: Dist = {}
    for (who, s), p in _from_face(attacker_dice, defender_dice, sides):
        key = (all_tied, 0) if who == _TIE else (who, s)
        out[key] = out.get(key, 0.0) + p
    return dict(sorted(out.items()))


@cache
def win_probability(
    attacker_dice: int, defender_dice: int, sides: int = 20, all_tied: str = DEFENDER
) -> float:
    """P(the attacker wins the opposed test).

    Cached like :func:`opposed_distribution` it sums (a float of four ints/strings): the
    heuristic asks it for every parry and resistance.
    """
    dist = opposed_distribution(attacker_dice, defender_dice, sides, all_tied)
    return sum(p for (who, _), p in dist.items() if who == ATTACKER)


def successes_distribution(
    attacker_dice: int, defender_dice: int, sides: int = 20, all_tied: str = DEFENDER
) -> dict[int, float]:
    """P(the attacker wins with exactly s successes), for s ≥ 0 (losses are left out)."""
    dist = opposed_distribution(attacker_dice, defender_dice, sides, all_tied)
    return {s: p for (who, s), p in dist.items() if who == ATTACKER}


@cache
def attack_damage_distribution(
    attack_dice: int,
    defence_dice: int,
    damage_dice: int,
    soak_dice: int,
    sides: int = 20,
    all_tied: str = DEFENDER,
    min_damage_dice: int = 0,
    min_soak_dice: int = 0,
) -> dict[int, float]:
    """P(the attack hits AND its damage test is won with exactly k successes), k ≥ 0.

    DJ-03: the attack's successes are bonus dice for the damage test (DJ-16).
    ``min_damage_dice`` is 1 for a PJ dealer and ``min_soak_dice`` 1 for a PJ victim
    (DJ-19: a PJ rolls at least one die in every damage test, dealing and resisting).
    Misses and lost damage tests are left out.
    """
    out: dict[int, float] = {}
    soak = max(0, min_soak_dice, soak_dice)
    for s, p in successes_distribution(attack_dice, defence_dice, sides, all_tied).items():
        pool = max(min_damage_dice, damage_dice + s)
        for k, q in successes_distribution(pool, soak, sides, all_tied).items():
            out[k] = out.get(k, 0.0) + p * q
    return out


@cache
def hurt_probability(
    attack_dice: int,
    defence_dice: int,
    damage_dice: int,
    soak_dice: int,
    sides: int = 20,
    all_tied: str = DEFENDER,
    min_damage_dice: int = 0,
    min_soak_dice: int = 0,
) -> float:
    """P(an attack hits and its damage test is won): the chance to take Heridas off."""
    dist = attack_damage_distribution(
        attack_dice,
        defence_dice,
        damage_dice,
        soak_dice,
        sides,
        all_tied,
        min_damage_dice,
        min_soak_dice,
    )
    return sum(dist.values())


@cache
def expected_damage(
    attack_dice: int,
    defence_dice: int,
    damage_dice: int,
    soak_dice: int,
    sides: int = 20,
    all_tied: str = DEFENDER,
    min_damage_dice: int = 0,
    min_soak_dice: int = 0,
) -> float:
    """Expected damage successes of an attack (attack test, then damage test)."""
    dist = attack_damage_distribution(
        attack_dice,
        defence_dice,
        damage_dice,
        soak_dice,
        sides,
        all_tied,
        min_damage_dice,
        min_soak_dice,
    )
    return sum(k * q for k, q in dist.items())


# -- one attack, start to finish (for Ruleset.odds) -----------------------------
#: (damage successes, every damage die a success) → probability.
Outcomes = dict[tuple[int, bool], float]


@cache
def damage_test_outcomes(
    pool: int, soak_dice: int, sides: int = 20, all_tied: str = DEFENDER
) -> dict[tuple[int, bool], float]:
    """One damage test (DJ-16): P(successes k, every one of the ``pool`` dice a success).

    A test the dealer does not win, or wins with 0 successes, is ``(0, False)``:
    "the victim shrugs off the blow". The flag is what DJ-19 needs to break a PJ.
    Cached: callers must not mutate the returned dict.
    """
    out: dict[tuple[int, bool], float] = {}
    for (who, s), p in opposed_distribution(pool, soak_dice, sides, all_tied).items():
        key = (s, pool >= 1 and s == pool) if who == ATTACKER and s > 0 else (0, False)
        out[key] = out.get(key, 0.0) + p
    return out


def damage_after(
    won: dict[int, float],
    damage_dice: int,
    soak_dice: int,
    sides: int = 20,
    all_tied: str = DEFENDER,
    min_damage_dice: int = 0,
    min_soak_dice: int = 0,
) -> Outcomes:
    """Outcomes of a damage test that follows a test won with ``s`` successes w.p. ``won[s]``.

    DJ-03: those successes are bonus damage dice; the rest of the probability
    (the test lost) deals nothing. ``min_damage_dice`` is 1 for a PJ dealer and
    ``min_soak_dice`` 1 for a PJ victim (DJ-19, both sides of the damage test).
    """
    out: Outcomes = {(0, False): max(0.0, 1.0 - sum(won.values()))}
    soak = max(0, min_soak_dice, soak_dice)
    for s, p in won.items():
        pool = max(0, min_damage_dice, damage_dice + s)
        for key, q in damage_test_outcomes(pool, soak, sides, all_tied).items():
            out[key] = out.get(key, 0.0) + p * q
    return out


def defender_wins(
    attacker_dice: int, defender_dice: int, sides: int = 20, all_tied: str = DEFENDER
) -> dict[int, float]:
    """P(the defender wins with exactly s successes) — a won parry or a won resistance."""
    dist = opposed_distribution(attacker_dice, defender_dice, sides, all_tied)
    return {s: p for (who, s), p in dist.items() if who == DEFENDER}
