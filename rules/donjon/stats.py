"""Scenario models for Donjon: the ``options`` block and a combatant's stat block.

Everything the seed leaves to the character sheet is an explicit field
(DJ-21: "Heridas are a scenario field (the seed gives no formula)").
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

#: The four attributes, in sheet order; also the attribute options of DJ-17.
ATTRIBUTES: tuple[str, ...] = ("celeridad", "virilidad", "aguante", "discernimiento")

MELEE = "cuerpo_a_cuerpo"
RANGED = "distancia"
THROWN = "arrojadiza"
WeaponKind = Literal["cuerpo_a_cuerpo", "distancia", "arrojadiza"]

#: Weapon used when a stat block lists none (a bare-handed fighter, Nivel de Daño 0).
UNARMED = "puños"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Dificultades(_Strict):
    """DJ-02 *(default)*: dice the GM rolls against an unopposed test."""

    facil: int = Field(1, ge=0, le=20)
    media: int = Field(3, ge=0, le=20)
    dificil: int = Field(5, ge=0, le=20)


class DonjonOptions(_Strict):
    """The ``options:`` block of a Donjon scenario."""

    #: DJ-05: "Si están usando dados que no sean de veinte caras, la cuenta atrás del DJ
    #: comienza en el mayor número del dado." Pools and the countdown use this die.
    die_size: int = Field(20, ge=4, le=100)
    #: DJ-01 *(default)*: who wins when every die ties.
    all_tied: Literal["defender", "attacker"] = "defender"
    #: DJ-02 *(default)*: difficulty pools (the initiative abilities roll against ``media``).
    dificultades: Dificultades = Field(default_factory=Dificultades)


class Attributes(_Strict):
    """Attributes (1–6), each a number of d20 in a pool."""

    celeridad: int = Field(ge=1, le=6)
    virilidad: int = Field(ge=1, le=6)
    aguante: int = Field(ge=1, le=6)
    discernimiento: int = Field(ge=1, le=6)


class Skills(_Strict):
    """Habilidades by the role they play in a combat pool (dice added to it).

    ``ataque``: attack and parry (DJ-13, DJ-14); ``esquivar``: dodge (DJ-15);
    ``movimiento``: movement tests (DJ-10); ``dano``: damage tests (DJ-16);
    ``resistencia``: the "Habilidad pertinente" added to Aguante against damage
    (DJ-16); ``iniciativa``: an ability such as Espadachín Veloz, rolled as an
    unopposed test whose successes are bonus initiative dice (DJ-04).
    """

    ataque: int = Field(0, ge=0, le=10)
    esquivar: int = Field(0, ge=0, le=10)
    movimiento: int = Field(0, ge=0, le=10)
    dano: int = Field(0, ge=0, le=10)
    resistencia: int = Field(0, ge=0, le=10)
    iniciativa: int = Field(0, ge=0, le=10)


class Weapon(_Strict):
    """A weapon: its ``kind`` sets the distances it reaches (DJ-12), ``damage`` its Nivel
    de Daño (DJ-16)."""

    name: str = Field(pattern=r"^[^\s].*$", max_length=40)
    kind: WeaponKind = MELEE
    damage: int = Field(0, ge=0, le=10)


#: The implicit weapon of a combatant without ``weapons``.
FISTS: tuple[Weapon, ...] = (Weapon(name=UNARMED),)


class DonjonStats(_Strict):
    """A combatant's Donjon keys in a scenario file."""

    #: Nivel (DJ-04: initiative is "su Nivel más su Discernimiento").
    level: int = Field(ge=1, le=20)
    heridas: int = Field(ge=1, le=100)
    attributes: Attributes
    skills: Skills = Field(default_factory=Skills)
    weapons: tuple[Weapon, ...] = ()
    #: Nivel de Daño of the armadura (DJ-16).
    armour: int = Field(0, ge=0, le=10)
    #: PJ (true) or PNJ (false); by default heroes are PJ and enemies PNJ.
    pc: bool | None = None
    #: DJ-04: successes of a stealthy approach, bonus dice on the first initiative only.
    sorpresa: int = Field(0, ge=0, le=20)

    @property
    def weapons_or_fists(self) -> tuple[Weapon, ...]:
        """The weapons carried; bare hands when the sheet lists none."""
        return self.weapons or FISTS
