"""Scenario models for Donjon: the ``options`` block and a combatant's stat block.

Everything the seed leaves to the character sheet is an explicit field
(DJ-21: "Heridas are a scenario field (the seed gives no formula)").
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from escaramuza.rules.core.scenario import MAX_WEAPONS, Bool, Int

#: The four attributes, in sheet order; also the attribute options of DJ-17.
ATTRIBUTES: tuple[str, ...] = ("celeridad", "virilidad", "aguante", "discernimiento")

MELEE = "cuerpo_a_cuerpo"
RANGED = "distancia"
THROWN = "arrojadiza"
WeaponKind = Literal["cuerpo_a_cuerpo", "distancia", "arrojadiza"]

#: Weapon used when a stat block lists none (a bare-handed fighter, Nivel de Daño 0).
UNARMED = "puños"

# Bounds of a stat block (docs/scenario-format.md, "Bounds of values and sizes"). Every
# number here is a count of dice. Two things make a Donjon battle expensive: the dice a
# ráfaga hands out as actions (Nivel + Discernimiento, DJ-04), and the exact odds of the
# heuristic's opposed tests (rules/donjon/exact.py), whose cost grows with about the fifth
# power of the pools (Celeridad + ataque against a dodge; Virilidad + Nivel de Daño + dano
# + the attack's successes against Aguante + armadura + resistencia) times the die size.
# The shipped fighters have Nivel 2 to 4, Habilidades, weapons and armour of 0 to 3.

#: Highest attribute: "Attributes (1–6)".
MAX_ATTRIBUTE = 6
#: Highest Habilidad, weapon Nivel de Daño and armadura Nivel de Daño: the attributes' scale.
MAX_SKILL = 6
#: Highest Nivel: initiative rolls Nivel + Discernimiento dice, one action per die (DJ-04).
MAX_LEVEL = 10
#: Most Heridas.
MAX_HERIDAS = 100
#: Most dice of a stealthy approach's successes, or of a difficulty pool (DJ-02, DJ-04).
MAX_BONUS_DICE = 20
#: Largest die size: the d20 the seed plays with; DJ-05 lets a table use a smaller one.
MAX_DIE_SIZE = 20


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Dificultades(_Strict):
    """DJ-02 *(default)*: dice the GM rolls against an unopposed test."""

    facil: Int = Field(1, ge=0, le=MAX_BONUS_DICE, description="DJ-02: dice of a Fácil test.")
    media: Int = Field(
        3,
        ge=0,
        le=MAX_BONUS_DICE,
        description="DJ-02: dice of a Media test (the initiative abilities roll against it).",
    )
    dificil: Int = Field(5, ge=0, le=MAX_BONUS_DICE, description="DJ-02: dice of a Difícil test.")


class DonjonOptions(_Strict):
    """The ``options:`` block of a Donjon scenario."""

    die_size: Int = Field(
        20,
        ge=4,
        le=MAX_DIE_SIZE,
        description='DJ-05: the die of every pool and of the countdown, "Si están usando '
        "dados que no sean de veinte caras, la cuenta atrás del DJ comienza en el mayor "
        'número del dado."',
    )
    all_tied: Literal["defender", "attacker"] = Field(
        "defender", description="DJ-01 *(default)*: who wins when every die ties."
    )
    dificultades: Dificultades = Field(
        default_factory=Dificultades,
        description="DJ-02 *(default)*: the dice the DJ rolls against an unopposed test.",
    )


class Attributes(_Strict):
    """Attributes (1–6), each a number of d20 in a pool."""

    celeridad: Int = Field(ge=1, le=MAX_ATTRIBUTE)
    virilidad: Int = Field(ge=1, le=MAX_ATTRIBUTE)
    aguante: Int = Field(ge=1, le=MAX_ATTRIBUTE)
    discernimiento: Int = Field(ge=1, le=MAX_ATTRIBUTE)


class Skills(_Strict):
    """Habilidades by the role they play in a combat pool (dice added to it).

    ``ataque``: attack and parry (DJ-13, DJ-14); ``esquivar``: dodge (DJ-15);
    ``movimiento``: movement tests (DJ-10); ``dano``: damage tests (DJ-16);
    ``resistencia``: the "Habilidad pertinente" added to Aguante against damage
    (DJ-16); ``iniciativa``: an ability such as Espadachín Veloz, rolled as an
    unopposed test whose successes are bonus initiative dice (DJ-04).
    """

    ataque: Int = Field(0, ge=0, le=MAX_SKILL)
    esquivar: Int = Field(0, ge=0, le=MAX_SKILL)
    movimiento: Int = Field(0, ge=0, le=MAX_SKILL)
    dano: Int = Field(0, ge=0, le=MAX_SKILL)
    resistencia: Int = Field(0, ge=0, le=MAX_SKILL)
    iniciativa: Int = Field(0, ge=0, le=MAX_SKILL)


class Weapon(_Strict):
    """A weapon: its ``kind`` sets the distances it reaches (DJ-12), ``damage`` its Nivel
    de Daño (DJ-16)."""

    name: str = Field(pattern=r"^[^\s].*$", max_length=40)
    kind: WeaponKind = MELEE
    damage: Int = Field(0, ge=0, le=MAX_SKILL)


#: The implicit weapon of a combatant without ``weapons``.
FISTS: tuple[Weapon, ...] = (Weapon(name=UNARMED),)


class DonjonStats(_Strict):
    """A combatant's Donjon keys in a scenario file."""

    #: Nivel (DJ-04: initiative is "su Nivel más su Discernimiento").
    level: Int = Field(ge=1, le=MAX_LEVEL)
    heridas: Int = Field(ge=1, le=MAX_HERIDAS)
    attributes: Attributes
    skills: Skills = Field(default_factory=Skills)
    weapons: tuple[Weapon, ...] = Field((), max_length=MAX_WEAPONS)
    #: Nivel de Daño of the armadura (DJ-16).
    armour: Int = Field(0, ge=0, le=MAX_SKILL)
    #: PJ (true) or PNJ (false); by default heroes are PJ and enemies PNJ.
    pc: Bool | None = None
    #: DJ-04: successes of a stealthy approach, bonus dice on the first initiative only.
    sorpresa: Int = Field(0, ge=0, le=MAX_BONUS_DICE)

    @property
    def weapons_or_fists(self) -> tuple[Weapon, ...]:
        """The weapons carried; bare hands when the sheet lists none."""
        return self.weapons or FISTS
