"""S2-01 … S2-04: the skill roll, MHC, crítico/pifia and degrees (pure judge + engine)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.sistema_2d10.rolls import DIFFICULTIES, degree_of, judge, mhc
from tests.rules.sistema_2d10.conftest import BASE


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


@pytest.mark.parametrize(
    ("fighter", "field", "total"),
    [
        # The weapon's Habilidad and Característica: espada 71 + destreza 30.
        ({"skills": {"espada": 71}}, "weapons[0]: skills.espada + attributes.destreza", 101),
        # Initiative pairs two Características (S2-06): sentidos 80 + reflejos 30.
        ({"attributes": {"sentidos": 80}}, "attributes.sentidos + attributes.reflejos", 110),
        # The active defence (S2-08) and the Aguante test (S2-14).
        ({"skills": {"esquivar": 100}}, "skills.esquivar + attributes.reflejos", 130),
        ({"attributes": {"aguante": 90}}, "skills.resistencia_al_dolor + attributes.aguante", 120),
    ],
)
def test_s202_two_scores_past_100_are_refused_by_field(
    tools: Any, fighter: dict[str, Any], field: str, total: int
) -> None:
    """S2-02 "De la suma de estos dos valores se puede obtener un valor entre 1 y 100": a
    sheet whose pair adds up past 100 (an MHC past 10) is refused, naming the pair."""
    sheet = copy.deepcopy(fighter)
    for group in ("attributes", "skills"):
        if group in sheet:
            sheet[group] = {**BASE[group], **sheet[group]}
    with pytest.raises(ScenarioError) as caught:
        tools.duel(foe=sheet)
    message = str(caught.value)
    assert f"combatants[1].{field}: add up to {total}" in message
    assert "1 to 100 (S2-02)" in message
    # At exactly 100 the sheet loads: the MHC is 10.
    for group, scores in fighter.items():
        for name in scores:
            sheet[group][name] -= total - 100
    prof = tools.duel(foe=sheet).combatants[1].data["profile"]
    assert 10 in (prof.iniciativa, prof.defensa_cac, prof.aguante, prof.weapons[0].mhc)
