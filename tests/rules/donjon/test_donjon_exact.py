"""DJ-01 opposed tests: single resolutions, and the exact distribution against brute force."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.donjon.exact import (
    attack_damage_distribution,
    expected_damage,
    hurt_probability,
    opposed_distribution,
    opposed_test,
    win_probability,
)


def test_dj01_opposed_test_worked_example() -> None:
    # rules-notes DJ-01: 5,11,15,18,19,19 vs 7,9,10,16 ⇒ 3 successes (18, 19, 19 beat 16).
    result = opposed_test([5, 11, 15, 18, 19, 19], [7, 9, 10, 16])
    assert (result.winner, result.successes) == ("attacker", 3)


@pytest.mark.parametrize(
    ("attacker", "defender", "all_tied", "winner", "successes"),
    [
        ([19, 15, 3], [19, 12], "defender", "attacker", 2),  # 19s set aside; 15 > 12; +1 aside
        ([19], [19, 12], "defender", "defender", 2),  # set aside; 12 vs nothing; +1 aside
        ([4, 4, 2], [4, 3], "defender", "attacker", 2),  # 4/4 aside; 4 > 3; +1 aside
        ([20, 5, 5], [7, 6], "defender", "attacker", 1),  # only the 20 beats 7
        ([3, 8], [9], "defender", "defender", 1),
        ([10, 10], [10, 10], "defender", "defender", 0),  # every die tied (default)
        ([12, 8], [12, 8], "attacker", "attacker", 0),  # every die tied, option flipped
        ([], [5], "defender", "defender", 1),  # an empty pool loses to anything
        ([3, 1], [], "defender", "attacker", 2),
        ([], [], "defender", "defender", 0),
    ],
)
def test_dj01_opposed_test_rows(
    attacker: list[int], defender: list[int], all_tied: str, winner: str, successes: int
) -> None:
    result = opposed_test(attacker, defender, all_tied)
    assert (result.winner, result.successes) == (winner, successes)


def _brute_resolve(a: tuple[int, ...], d: tuple[int, ...]) -> tuple[str, int]:
    """An independent reading of DJ-01: strip equal top dice, compare, count above the rest."""
    a_left, d_left = sorted(a), sorted(d)
    aside = 0
    while a_left and d_left and a_left[-1] == d_left[-1]:
        a_left.pop()
        d_left.pop()
        aside += 1
    a_top = a_left[-1] if a_left else 0
    d_top = d_left[-1] if d_left else 0
    if a_top == d_top:
        return ("defender", 0)
    if a_top > d_top:
        return ("attacker", aside + sum(x > d_top for x in a_left))
    return ("defender", aside + sum(x > a_top for x in d_left))


def _multisets(n: int, sides: int) -> Counter[tuple[int, ...]]:
    """Every ordered roll of n dice, folded into sorted multisets with their counts."""
    return Counter(tuple(sorted(f)) for f in product(range(1, sides + 1), repeat=n))


@pytest.mark.parametrize(("n", "m"), [(1, 1), (2, 1), (1, 2), (2, 2), (3, 2), (0, 2), (2, 0)])
def test_dj01_distribution_matches_enumeration(n: int, m: int) -> None:
    sides = 20
    total = sides ** (n + m)
    brute: Counter[tuple[str, int]] = Counter()
    for a, wa in _multisets(n, sides).items():
        for d, wd in _multisets(m, sides).items():
            brute[_brute_resolve(a, d)] += wa * wd
    exact = opposed_distribution(n, m, sides)
    assert set(exact) == set(brute)
    for key, count in brute.items():
        assert exact[key] == pytest.approx(count / total, abs=1e-12)


def test_dj01_distribution_matches_sampling() -> None:
    n, m, samples = 6, 4, 20_000
    roller = RandomRoller(2024)
    seen: Counter[tuple[str, int]] = Counter()
    for _ in range(samples):
        a = [roller.roll(20) for _ in range(n)]
        d = [roller.roll(20) for _ in range(m)]
        r = opposed_test(a, d)
        seen[(r.winner, r.successes)] += 1
    exact = opposed_distribution(n, m)
    for key in set(exact) | set(seen):
        p = exact.get(key, 0.0)
        # 5 standard errors of a binomial proportion (plus a floor for tiny p).
        tol = 5 * math.sqrt(max(p * (1 - p), 1e-4) / samples)
        assert seen[key] / samples == pytest.approx(p, abs=tol), key


@pytest.mark.parametrize(("n", "m"), [(1, 1), (4, 4), (7, 3), (3, 7), (12, 12)])
def test_dj01_distribution_is_a_distribution(n: int, m: int) -> None:
    dist = opposed_distribution(n, m)
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-9)
    assert all(p >= 0 for p in dist.values())
    # Successes never exceed the winner's pool.
    assert all(s <= (n if who == "attacker" else m) for who, s in dist)


def test_dj01_one_die_each_closed_form() -> None:
    # 1d20 vs 1d20: attacker wins iff strictly higher: (1 - 1/20) / 2 = 0.475.
    assert win_probability(1, 1) == pytest.approx(0.475)
    assert opposed_distribution(1, 1)[("defender", 0)] == pytest.approx(1 / 20)


def test_dj03_hurt_probability_uses_attack_successes_as_damage_dice() -> None:
    # Computed independently: sum over attack successes s of P(s) * P(damage + s wins).
    attack = opposed_distribution(3, 2)
    expected = sum(
        p * win_probability(1 + s, 3) for (who, s), p in attack.items() if who == "attacker"
    )
    assert hurt_probability(3, 2, 1, 3) == pytest.approx(expected)
    # A won test always has at least one success, so even a pool of 0 damage dice rolls the
    # carried successes (DJ-03) and a PC's minimum die (DJ-19) changes nothing here.
    assert hurt_probability(2, 2, 0, 2, min_damage_dice=1) == hurt_probability(2, 2, 0, 2) > 0
    assert expected_damage(3, 2, 1, 3) > 0


def _brute_attack_damage(
    attack: int,
    defence: int,
    damage: int,
    soak: int,
    sides: int,
    min_damage: int,
    min_soak: int,
) -> dict[int, Fraction]:
    """Every face of the attack test, then every face of the damage test that follows.

    DJ-03: the attack's successes join the damage pool; DJ-19: a PJ's damage pool and its
    resistance pool are at least ``min_damage`` / ``min_soak`` dice.
    """
    out: dict[int, Fraction] = {}
    faces = range(1, sides + 1)
    for a in product(faces, repeat=attack):
        for d in product(faces, repeat=defence):
            who, s = _brute_resolve(a, d)
            if who != "attacker":
                continue
            w = Fraction(1, sides ** (attack + defence))
            pool, resist = max(min_damage, damage + s), max(min_soak, soak)
            for x in product(faces, repeat=pool):
                for y in product(faces, repeat=resist):
                    who2, k = _brute_resolve(x, y)
                    if who2 == "attacker":
                        out[k] = out.get(k, Fraction(0)) + w / sides ** (pool + resist)
    return out


@pytest.mark.parametrize(
    ("attack", "defence", "damage", "soak", "min_damage", "min_soak"),
    [
        (2, 1, 1, 0, 0, 1),  # PNJ on a PJ at Aguante 0: the PJ resists with one die
        (2, 1, 1, 0, 0, 0),  # PNJ on a PNJ at Aguante 0: no die to resist with
        (2, 1, 0, 0, 1, 1),  # PJ on a PJ, both pools empty: one die each
        (1, 2, 0, 2, 1, 0),  # PJ with no damage dice on a PNJ
        (2, 2, 1, 2, 0, 1),  # the floor is below the pool: it changes nothing
    ],
)
def test_dj19_attack_damage_distribution_matches_enumeration(
    attack: int, defence: int, damage: int, soak: int, min_damage: int, min_soak: int
) -> None:
    sides = 4
    want = _brute_attack_damage(attack, defence, damage, soak, sides, min_damage, min_soak)
    got = attack_damage_distribution(
        attack, defence, damage, soak, sides, min_damage_dice=min_damage, min_soak_dice=min_soak
    )
    assert got == pytest.approx({k: float(v) for k, v in want.items()}, abs=1e-12)
    assert hurt_probability(
        attack, defence, damage, soak, sides, min_damage_dice=min_damage, min_soak_dice=min_soak
    ) == pytest.approx(float(sum(want.values())))
    mean = sum((k * p for k, p in want.items()), Fraction(0))
    assert expected_damage(
        attack, defence, damage, soak, sides, min_damage_dice=min_damage, min_soak_dice=min_soak
    ) == pytest.approx(float(mean))


def test_dj19_the_resistance_die_lowers_the_chance_to_hurt_a_pj() -> None:
    # Against no die every won damage test hurts; against one die it can be lost.
    assert hurt_probability(2, 1, 1, 0, min_soak_dice=1) < hurt_probability(2, 1, 1, 0)
