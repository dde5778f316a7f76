"""Scenario options and stat blocks (pydantic), and the per-combatant profile.

Values the seed leaves to the character sheet (PV, acciones por turno, CA, the
characteristic and skill scores) are explicit scenario fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from escaramuza.rules.core.dice import MAX_DICE_TEXT, DiceExpr
from escaramuza.rules.core.scenario import MAX_WEAPONS, NOT_A_BOOL, Bool, Int
from escaramuza.rules.sistema_2d10.tables import DEFAULT_TABLES

MELEE = "cuerpo_a_cuerpo"
RANGED = "distancia"

#: Características every stat block's ``attributes`` need: Reflejos + Sentidos
#: (initiative, S2-06), Reflejos (defence, S2-08) and Aguante (pain test, S2-14).
REQUIRED_ATTRIBUTES: tuple[str, ...] = ("reflejos", "sentidos", "aguante")

# Bounds of a stat block (docs/scenario-format.md, "Bounds of values and sizes"); PV, CA,
# actions and Dados Exprés keep the bounds they had.

#: Highest Característica or Habilidad score: S2-02 sums two of them into "un valor entre
#: 1 y 100" whose tens digit is the MHC.
MAX_SCORE = 100
#: Most Características, and most Habilidades, on one stat block (the shipped have 5).
MAX_SCORES = 32
#: Longest name of a Característica or Habilidad.
MAX_SCORE_NAME = 64

#: A Característica or Habilidad score.
Score = Annotated[int, Field(ge=0, le=MAX_SCORE), NOT_A_BOOL]
#: The name of a Característica or Habilidad.
ScoreName = Annotated[str, Field(min_length=1, max_length=MAX_SCORE_NAME)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Sistema2d10Options(_Strict):
    """The ``options:`` block of a Sistema 2d10 scenario; each field defaults to the seed's
    value or to the *(default)* (docs/rulesets/sistema_2d10.md)."""

    tables: str = Field(
        DEFAULT_TABLES,
        description="The tables file (S2-12, S2-13, S2-15): ``default`` (shipped) or a path, "
        "absolute or relative to the current directory when the scenario is loaded (not "
        "to the scenario file).",
    )
    passive_beats: Literal["ge", "gt"] = Field(
        "ge",
        description='S2-08 *(default)*: an attack total "beats" the defensa pasiva when it is '
        "≥ it (``ge``, as any difficulty, S2-01) or only when it exceeds it (``gt``).",
    )
    active_blocks: Literal["ge", "gt"] = Field(
        "ge",
        description="S2-08 *(default)*: an active defence total blocks when it is ≥ the "
        "attack total (``ge``) or only when it exceeds it (``gt``).",
    )
    full_defence_bonus: Int = Field(
        3,
        ge=0,
        le=10,
        description='S2-09: the bonus of full defence, "Obtendrá un +3 al resultado de sus '
        'tiradas para Esquivar".',
    )
    aguante_difficulty: Int = Field(
        16, ge=1, le=40, description='S2-14: the Aguante test, "a una dificultad de 16".'
    )
    stun_penalty: Int = Field(
        -2,
        ge=-10,
        le=0,
        description='S2-14 "quedará Aturdido durante el siguiente turno": the MS of that '
        "stun *(default: −2, the GDF default table's aturdido row)*.",
    )
    melee_defence_skill: str = Field(
        "esquivar",
        description='S2-08 "Reflejos + Esquivar o Evitar/Cubrir según el tipo de ataque" '
        "*(default)*: the defence skill against ``cuerpo_a_cuerpo`` attacks.",
    )
    ranged_defence_skill: str = Field(
        "cubrir",
        description="S2-08 *(default)*: the defence skill (Evitar/Cubrir) against "
        "``distancia`` attacks.",
    )

    @field_validator("tables")
    @classmethod
    def _resolve(cls, value: str) -> str:
        # Resolved once, at load time, so a later change of directory cannot move it.
        if value == DEFAULT_TABLES:
            return value
        return str(Path(value).expanduser().resolve())


class Weapon(_Strict):
    """An attack a combatant can make. ``skill`` (a Habilidad) and ``attribute`` (a
    Característica) name the scores whose sum's tens digit is the attack MHC (S2-02)."""

    name: str = Field(min_length=1)
    #: S2-08 "según el tipo de ataque": it picks the defence skill.
    kind: Literal["cuerpo_a_cuerpo", "distancia"] = MELEE
    skill: str
    attribute: str
    #: S2-11 "Se tira el daño del arma" — dice notation such as ``1d10+2``.
    damage: str = Field(max_length=MAX_DICE_TEXT)
    #: Reach in zone hops: 0 for cuerpo_a_cuerpo; a firearm reaches this many hops.
    reach: Int = Field(0, ge=0, le=10)


class Sistema2d10Stats(_Strict):
    """A combatant's Sistema 2d10 keys in a scenario file."""

    #: Puntos de Vitalidad (S2-11).
    pv: Int = Field(ge=1, le=999)
    #: S2-07 acciones por turno, 1–3 (a scenario field; the table is not in the seed).
    actions: Int = Field(ge=1, le=3)
    #: S2-10 extra actions from Técnicas: usable in the turn, no extra reflex defence.
    extra_actions: Int = Field(0, ge=0, le=3)
    #: S2-05 Dados Exprés at the start of the battle, and how many the bearer may hold.
    dados_expres: Int = Field(0, ge=0, le=10)
    dados_expres_max: Annotated[int, Field(ge=0, le=10), NOT_A_BOOL] | None = None
    #: S2-11 Capacidad de Absorción of the armadura and, for the log, its name.
    ca: Int = Field(0, ge=0, le=50)
    armour: str = ""
    #: Característica scores (0–100), e.g. reflejos, sentidos, aguante, destreza.
    attributes: dict[ScoreName, Score] = Field(max_length=MAX_SCORES)
    #: Habilidad scores (0–100), e.g. esquivar, cubrir, resistencia_al_dolor, espada.
    #: *(default)* a skill not listed is 0.
    skills: dict[ScoreName, Score] = Field(default_factory=dict, max_length=MAX_SCORES)
    weapons: list[Weapon] = Field(min_length=1, max_length=MAX_WEAPONS)
    pc: Bool = True


@dataclass(frozen=True, slots=True)
class WeaponProfile:
    """A weapon with its MHC and parsed damage, computed once per combatant."""

    name: str
    kind: str
    mhc: int
    damage: DiceExpr
    reach: int


@dataclass(frozen=True, slots=True)
class Profile:
    """The numbers a combatant rolls with, derived once from the stat block.

    Kept in ``Combatant.data["profile"]`` (immutable, so cheap to copy on clone).
    """

    iniciativa: int
    defensa_cac: int
    defensa_dist: int
    aguante: int
    weapons: tuple[WeaponProfile, ...]

    def weapon(self, name: str) -> WeaponProfile:
        for w in self.weapons:
            if w.name == name:
                return w
        raise KeyError(name)

    def defence(self, kind: str) -> int:
        return self.defensa_cac if kind == MELEE else self.defensa_dist
