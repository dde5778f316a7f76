"""The exact exchange helpers against brute-force enumeration (CA-05, CA-06, CA-10, CA-11)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from escaramuza.rules.cairn.exact import (
    exchange_distribution,
    expected_damage,
    keep_highest_distribution,
    out_probability,
    save_chance,
)

ROWS = [
    ((6,), 0, 4),
    ((6, 6), 1, 3),
    ((8, 4, 6), 2, 2),
    ((12,), 1, 0),
    ((4,), 3, 5),
    ((10, 8), 0, 6),
    ((), 0, 4),
]


def brute(dice: tuple[int, ...], armour: int, pi: int) -> dict[tuple[int, int], Fraction]:
    out: dict[tuple[int, int], Fraction] = {}
    combos = list(product(*(range(1, s + 1) for s in dice)))
    for faces in combos:
        damage = max(0, max(faces, default=0) - armour)
        pi_lost = min(damage, pi)
        key = (pi_lost, damage - pi_lost)
        out[key] = out.get(key, Fraction(0)) + Fraction(1, len(combos))
    return out


@pytest.mark.parametrize(("dice", "armour", "pi"), ROWS)
def test_ca06_exchange_distribution_matches_enumeration(
    dice: tuple[int, ...], armour: int, pi: int
) -> None:
    got = exchange_distribution(dice, armour, pi)
    assert got == brute(dice, armour, pi)
    assert sum(got.values()) == 1


@pytest.mark.parametrize("dice", [(6,), (8, 8), (4, 6, 12)])
def test_ca10_keep_highest_matches_enumeration(dice: tuple[int, ...]) -> None:
    combos = list(product(*(range(1, s + 1) for s in dice)))
    expected: dict[int, Fraction] = {}
    for faces in combos:
        expected[max(faces)] = expected.get(max(faces), Fraction(0)) + Fraction(1, len(combos))
    got = {k: v for k, v in keep_highest_distribution(dice).items() if v}
    assert got == expected


@pytest.mark.parametrize(
    ("score", "chance"),
    [(10, Fraction(10, 20)), (0, Fraction(1, 20)), (20, Fraction(19, 20)), (1, Fraction(1, 20))],
)
def test_ca01_save_chance(score: int, chance: Fraction) -> None:
    assert save_chance(score) == chance


@pytest.mark.parametrize(
    ("dice", "armour", "pi", "fue"),
    [((6,), 0, 4, 10), ((8, 6), 1, 2, 3), ((12,), 0, 0, 6), ((4,), 0, 4, 10)],
)
def test_ca11_out_probability_matches_enumeration(
    dice: tuple[int, ...], armour: int, pi: int, fue: int
) -> None:
    # Every die face and every d20 of the FUE save, counted.
    combos = list(product(*(range(1, s + 1) for s in dice), range(1, 21)))
    out = Fraction(0)
    for *faces, d20 in combos:
        over = max(0, max(faces) - armour - pi)
        if over == 0:
            continue
        left = fue - over
        passed = d20 == 1 or (d20 != 20 and d20 <= left)
        if left <= 0 or not passed:
            out += Fraction(1, len(combos))
    assert out_probability(dice, armour, pi, fue) == out


def test_ca13_out_probability_counts_out_of_action_scars() -> None:
    # A PC at 11 PI hit by a d12 at armour 0: a 11 reads Herida mortal (out); a 12 puts
    # 1 past PI (FUE save with FUE 10 → 9, fails on 10..20 = 11/20).
    assert out_probability((12,), 0, 11, 10, pc=True) == Fraction(1, 12) + Fraction(1, 12) * (
        Fraction(11, 20)
    )
    assert out_probability((12,), 0, 11, 10, pc=False) == Fraction(1, 12) * Fraction(11, 20)


@pytest.mark.parametrize(("doomed", "scar_out"), [("out_of_action", True), ("event", False)])
def test_ca13_out_probability_follows_the_doomed_option(doomed: str, scar_out: bool) -> None:
    # A PC at 12 PI hit by a d12 at armour 0: only a 12 leaves it at exactly 0 PI, reading
    # Cicatrices #12 (Condenado); nothing goes past PI, so no FUE save. Out iff the option
    # takes the doomed PC out.
    expected = Fraction(1, 12) if scar_out else Fraction(0)
    assert out_probability((12,), 0, 12, 10, True, True, doomed) == expected
    # Entry 11 is out either way: a PC at 11 PI, a d12 showing 11 (and 12: FUE save).
    assert out_probability((12,), 0, 11, 10, True, True, doomed) == Fraction(1, 12) + (
        Fraction(1, 12) * Fraction(11, 20)
    )


def test_ca05_expected_damage_small_case() -> None:
    # d6 vs armour 1, PI 2, FUE 1: damage 0,1,2,3,4,5 for faces 1..6, capped at 3 total.
    assert expected_damage((6,), 1, 2, 1) == Fraction(0 + 1 + 2 + 3 + 3 + 3, 6)
