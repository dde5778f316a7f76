"""S2-01 … S2-04: the skill roll, MHC, crítico/pifia and degrees (pure judge + engine)."""

from __future__ import annotations

import pytest

from escaramuza.rules.sistema_2d10.rolls import DIFFICULTIES, degree_of, judge, mhc


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("facil", 5),
        ("normal", 13),
        ("complicada", 16),
        ("dificil", 19),
        ("muy_dificil", 22),
        ("extrema", 25),
    ],
)
def test_s201_difficulty_ladder_from_the_seed(name: str, value: int) -> None:
    assert DIFFICULTIES[name] == value


@pytest.mark.parametrize(
    ("faces", "bonus", "difficulty", "total", "success"),
    [
        ((5, 4), 4, 13, 13, True),  # equals the difficulty: "iguala o supera" ⇒ éxito
        ((5, 3), 4, 13, 12, False),
        ((2, 3), 0, 5, 5, True),  # Fácil 5
        ((9, 9), 6, 25, 24, False),  # Extrema 25
        ((9, 9), 7, 25, 25, True),
        ((6, 6), -3, 13, 9, False),  # a negative MS counts
        ((4, 5, 7), 2, 16, 18, True),  # a Dado Exprés adds its face
    ],
)
def test_s201_total_is_dice_plus_mhc_plus_ms_and_ge_succeeds(
    faces: tuple[int, ...], bonus: int, difficulty: int, total: int, success: bool
) -> None:
    result = judge(faces, bonus, difficulty)
    assert (result.total, result.success) == (total, success)


@pytest.mark.parametrize(
    ("habilidad", "caracteristica", "expected"),
    [
        (25, 22, 4),
        (40, 7, 4),
        (9, 0, 0),
        (5, 4, 0),
        (10, 0, 1),
        (50, 50, 10),
        (19, 20, 3),
        (35, 34, 6),
    ],
)
def test_s202_mhc_is_the_tens_digit_of_the_sum(
    habilidad: int, caracteristica: int, expected: int
) -> None:
    assert mhc(habilidad, caracteristica) == expected


@pytest.mark.parametrize(
    ("faces", "bonus", "difficulty", "success", "critical", "fumble"),
    [
        ((10, 10), -30, 25, True, True, False),  # crítico whatever the modifiers
        ((1, 1), 40, 5, False, False, True),  # pifia whatever the modifiers
        ((10, 9), 0, 25, False, False, False),
        ((10, 9, 10), 0, 5, True, False, False),  # the Dado Exprés never makes a crítico
        ((1, 1, 10), 20, 5, False, False, True),  # ... nor rescues a pifia
        ((1, 2, 1), 20, 5, True, False, False),
    ],
)
def test_s203_critico_and_pifia_on_the_natural_dice(
    faces: tuple[int, ...],
    bonus: int,
    difficulty: int,
    success: bool,
    critical: bool,
    fumble: bool,
) -> None:
    result = judge(faces, bonus, difficulty)
    assert (result.success, result.critical, result.fumble) == (success, critical, fumble)


@pytest.mark.parametrize(
    ("points", "degree"),
    [
        (0, "justo"),
        (1, "justo"),
        (3, "justo"),
        (4, "seguro"),
        (9, "seguro"),
        (10, "aplastante"),
        (17, "aplastante"),
    ],
)
def test_s204_degree_bands(points: int, degree: str) -> None:
    assert degree_of(points) == degree


@pytest.mark.parametrize(
    ("faces", "bonus", "difficulty", "success", "degree"),
    [
        ((5, 5), 3, 13, True, "justo"),  # margin 0
        ((6, 5), 5, 13, True, "justo"),  # margin 3
        ((6, 6), 5, 13, True, "seguro"),  # margin 4
        ((9, 5), 5, 13, True, "seguro"),  # margin 6
        ((10, 9), 8, 13, True, "aplastante"),  # margin 14
        ((5, 4), 3, 13, False, "justo"),  # short by 1
        ((3, 2), 3, 13, False, "seguro"),  # short by 5
        ((2, 2), -2, 13, False, "aplastante"),  # short by 11
        ((10, 10), -20, 13, True, "justo"),  # forced crítico below the difficulty
        ((1, 1), 20, 13, False, "justo"),  # forced pifia above the difficulty
    ],
)
def test_s204_degree_of_success_or_failure(
    faces: tuple[int, int], bonus: int, difficulty: int, success: bool, degree: str
) -> None:
    result = judge(faces, bonus, difficulty)
    assert (result.success, result.degree) == (success, degree)
