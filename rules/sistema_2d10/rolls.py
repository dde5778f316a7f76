"""The basic mechanic: a 2d10 + MHC + MS skill roll, criticals, pifias and degrees.

Pure functions, no state: the engine, the exact helpers and the heuristic all judge
a roll here, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

#: S2-01 "Dificultades: Fácil 5, Normal 13, Complicada 16, Difícil 19, Muy difícil 22,
#: Extrema 25".
DIFFICULTIES: dict[str, int] = {
    "facil": 5,
    "normal": 13,
    "complicada": 16,
    "dificil": 19,
    "muy_dificil": 22,
    "extrema": 25,
}

JUSTO = "justo"
SEGURO = "seguro"
APLASTANTE = "aplastante"
DEGREES: tuple[str, ...] = (JUSTO, SEGURO, APLASTANTE)


def mhc(habilidad: int, caracteristica: int) -> int:
    """S2-02: "se utiliza la decena como modificador" — the tens digit of the sum (47 ⇒ +4)."""
    return (habilidad + caracteristica) // 10


def degree_of(points: int) -> str:
    """S2-04 "Por 0 o 3 puntos: justo; de 4 a 9: seguro; +10 puntos: aplastante".

    ``points`` is the margin of a success (total − difficulty, ≥ 0) or the shortfall of a
    failure (difficulty − total, ≥ 1).
    """
    if points >= 10:
        return APLASTANTE
    if points >= 4:
        return SEGURO
    return JUSTO


def is_critical(faces: tuple[int, ...]) -> bool:
    """S2-03 "Crítico: 10 en ambos dados" — judged on the two natural dice.

    *(default)* a Dado Exprés is a third die added to the total; it never makes or unmakes
    a crítico or a pifia ("Sin aplicar modificadores", the seed's own wording).
    """
    return faces[0] == 10 and faces[1] == 10


def is_fumble(faces: tuple[int, ...]) -> bool:
    """S2-03 "Pifia: 1 en ambos dados" — judged on the two natural dice."""
    return faces[0] == 1 and faces[1] == 1


@dataclass(frozen=True, slots=True)
class SkillResult:
    """One judged skill roll. ``faces``: the two natural d10 then the Dado Exprés, if any."""

    faces: tuple[int, ...]
    bonus: int
    total: int
    difficulty: int
    success: bool
    degree: str
    critical: bool
    fumble: bool

    @property
    def label(self) -> str:
        if self.critical:
            return f"crítico (éxito {self.degree})"
        if self.fumble:
            return f"pifia (fallo {self.degree})"
        return f"{'éxito' if self.success else 'fallo'} {self.degree}"


def judge(faces: tuple[int, ...], bonus: int, difficulty: int) -> SkillResult:
    """S2-01/S2-03/S2-04: total = dice + MHC + MS; success when total ≥ difficulty.

    A crítico succeeds and a pifia fails "regardless of modifiers" (S2-03). *(default)*
    their degree is the margin's degree when the margin agrees with the forced result,
    else "justo" (the seed gives no degree to a forced result).
    """
    total = sum(faces) + bonus
    critical = is_critical(faces)
    fumble = is_fumble(faces)
    success, degree = verdict(total - difficulty, critical, fumble)
    return SkillResult(faces, bonus, total, difficulty, success, degree, critical, fumble)


def verdict(margin: int, critical: bool, fumble: bool) -> tuple[bool, str]:
    """Success and degree of a roll whose total is ``margin`` above the difficulty (below
    it if negative), crítico or pifia as given: S2-03's forced results, S2-04's degree of
    the margin or shortfall (:func:`judge`'s rule, and ``exact``'s odds)."""
    if critical:
        success = True
    elif fumble:
        success = False
    else:
        success = margin >= 0
    if success:
        return True, degree_of(margin) if margin >= 0 else JUSTO
    return False, degree_of(-margin) if margin < 0 else JUSTO
