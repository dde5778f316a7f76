"""S2-05 exact odds: P(success) and degrees of 2d10 + MHC, with and without a Dado Exprés,
checked against an enumeration written here, independently of the engine's judge."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from escaramuza.rules.core.dice import parse_dice
from escaramuza.rules.sistema_2d10.exact import (
    block_probability,
    expected_damage,
    hit_probability,
    location_expected_damage,
    skill_odds,
    success_probability,
)
from escaramuza.rules.sistema_2d10.tables import load_tables

D10 = range(1, 11)


def _band(points: int) -> str:
    # Seed: "Por 0 o 3 puntos ... justo; De 4 a 9 ... seguro; +10 puntos ... aplastante".
    return "aplastante" if points >= 10 else "seguro" if points >= 4 else "justo"


def _outcome(a: int, b: int, extra: int, bonus: int, diff: int) -> tuple[bool, str]:
    total = a + b + extra + bonus
    if a == 10 and b == 10:
        return True, _band(total - diff) if total >= diff else "justo"
    if a == 1 and b == 1:
        return False, _band(diff - total) if total < diff else "justo"
    if total >= diff:
        return True, _band(total - diff)
    return False, _band(diff - total)


def brute(bonus: int, diff: int, mode: str) -> dict[tuple[bool, str], Fraction]:
    out: dict[tuple[bool, str], Fraction] = {}
    for a, b in product(D10, D10):
        plain = _outcome(a, b, 0, bonus, diff)
        spend = mode == "before" or (mode == "after" and not plain[0] and not (a == 1 and b == 1))
        extras = list(D10) if spend else [0]
        for c in extras:
            key = _outcome(a, b, c, bonus, diff)
            out[key] = out.get(key, Fraction(0)) + Fraction(1, 100 * len(extras))
    return out


ROWS = [(bonus, diff) for bonus in (-3, 0, 4, 6, 9) for diff in (5, 13, 16, 22, 25, 30)]


@pytest.mark.parametrize("mode", ["none", "before", "after"])
@pytest.mark.parametrize(("bonus", "diff"), ROWS)
def test_s205_exact_odds_match_enumeration(bonus: int, diff: int, mode: str) -> None:
    expected = brute(bonus, diff, mode)
    odds = skill_odds(bonus, diff, mode)  # type: ignore[arg-type]
    got = {key: p for key, p in odds.degrees if p}
    assert got == expected
    assert odds.p_success == sum(p for (ok, _), p in expected.items() if ok)
    assert sum(p for _, p in odds.degrees) == 1


@pytest.mark.parametrize(
    ("bonus", "diff", "expected"),
    [
        (6, 16, Fraction(64, 100)),  # 2d10 ≥ 10: 9 + 10 + (9+…+1) = 64 pairs
        (0, 2, Fraction(99, 100)),  # only the pifia fails
        (0, 21, Fraction(1, 100)),  # only the crítico succeeds
        (-50, 5, Fraction(1, 100)),
        (50, 5, Fraction(99, 100)),
        (0, 11, Fraction(55, 100)),  # pairs summing ≥ 11: 10+9+…+1
    ],
)
def test_s201_s203_success_probability_closed_forms(
    bonus: int, diff: int, expected: Fraction
) -> None:
    assert success_probability(bonus, diff) == expected


def test_s205_dado_expres_after_is_never_worse_than_before_or_none() -> None:
    for bonus, diff in ROWS:
        none = success_probability(bonus, diff, "none")
        before = success_probability(bonus, diff, "before")
        after = success_probability(bonus, diff, "after")
        assert after >= before >= none


def test_s208_hit_probability_matches_attack_times_defence_enumeration() -> None:
    attack_bonus, passive, defence_bonus = 6, 16, 5
    expected = Fraction(0)
    for a, b in product(D10, D10):
        total = a + b + attack_bonus
        crit, fumble = a == b == 10, a == b == 1
        if fumble or not (crit or total >= passive):
            continue
        for c, d in product(D10, D10):
            dtotal = c + d + defence_bonus
            dcrit, dfumble = c == d == 10, c == d == 1
            blocked = dcrit if crit else (dcrit or (not dfumble and dtotal >= total))
            if not blocked:
                expected += Fraction(1, 10000)
    assert hit_probability(attack_bonus, passive, defence_bonus) == expected
    passive_only = sum(
        Fraction(1, 100)
        for a, b in product(D10, D10)
        if a == b == 10 or (not a == b == 1 and a + b + attack_bonus >= passive)
    )
    assert hit_probability(attack_bonus, passive) == passive_only


@pytest.mark.parametrize(
    ("bonus", "attack_total", "critical", "rule", "expected_pairs"),
    [
        (5, 15, False, "ge", 64),  # needs 2d10 ≥ 10
        (5, 15, False, "gt", 55),  # needs 2d10 ≥ 11
        (5, 15, True, "ge", 1),  # only a crítico stops a crítico
        (0, 40, False, "ge", 1),
    ],
)
def test_s208_block_probability(
    bonus: int, attack_total: int, critical: bool, rule: str, expected_pairs: int
) -> None:
    got = block_probability(bonus, attack_total, critical, rule)  # type: ignore[arg-type]
    assert got == Fraction(expected_pairs, 100)


def test_s211_s212_expected_damage_by_enumeration() -> None:
    dano = parse_dice("1d10+2")
    # E[max(0, d+2-4)] over d = 1..10 = (0+0+1+2+…+8)/10 = 3.6
    assert expected_damage(dano, 4) == pytest.approx(3.6)
    assert expected_damage(dano, 4, 3) == pytest.approx(10.8)
    tables = load_tables()
    # default table: one face ×2, one face ×3, eight ×1 ⇒ mean multiplier 1.3
    assert location_expected_damage(dano, 4, tables) == pytest.approx(3.6 * 1.3)
    assert location_expected_damage(dano, 4, tables, "cabeza") == pytest.approx(7.2)
