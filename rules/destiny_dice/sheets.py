"""Scenario models for Destiny Dice: rule options, stat blocks, weapons, healing; and the
immutable :class:`Sheet` each combatant carries, built from its stat block once.

Values the seed leaves to the character sheet (PV, dice, armour, weapons) are
explicit fields; nothing is derived by an invented formula.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator, model_validator

from escaramuza.rules.core.dice import (
    MAX_DICE_TEXT,
    STANDARD_DICE,
    DiceError,
    parse_dice,
    parse_die,
)
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.scenario import MAX_WEAPONS, NOT_A_BOOL, Bool, Int

Band = Literal["cuerpo_a_cuerpo", "cerca", "lejos"]

#: A weapon's kind, in the seed's words (DD-06: "armas cuerpo a cuerpo", "armas a
#: distancia"); the same values as Donjon's and Sistema 2d10's (docs/scenario-format.md).
MELEE = "cuerpo_a_cuerpo"
RANGED = "distancia"
WeaponKind = Literal["cuerpo_a_cuerpo", "distancia"]
BANDS: tuple[Band, ...] = ("cuerpo_a_cuerpo", "cerca", "lejos")

#: "Ligera +1 Req. d4 · Media +2 Req. d6 · Pesada +3 Req. d8, (2M)" (DD-12).
TIERS: dict[str, tuple[int, int]] = {"ligera": (1, 4), "media": (2, 6), "pesada": (3, 8)}

#: Conditions of the seed's table (DD-19). Temporal ones end at the start of the
#: bearer's next turn, but Desarmado, which ends with ``recuperar_arma`` (a reading:
#: ``ruleset.TURN_START_ENDS``); persistent ones need a cure or a long rest.
TEMPORAL = ("derribado", "inmovil", "paralizado", "desarmado")
PERSISTENT = ("ciego", "asustado", "envenenado")
CONDITIONS = TEMPORAL + PERSISTENT

# Bounds of a stat block (docs/scenario-format.md, "Bounds of values and sizes"). The seed
# writes PV in the tens (Brann 16, a Saqueador 10), armadura and escudo +1 or +2, weapon
# bonuses +1 to +3 and energy that a hit raises by 2; these leave a boss room and keep
# every value, and a battle's sums of them, far inside a kernel's int64.

#: Largest PV (the same bound as Sistema 2d10's Puntos de Vitalidad).
MAX_PV = 999
#: Largest armadura, and largest escudo: with both, a d12 Defensa already beats any attack.
MAX_ARMOUR = 10
#: Largest special modifier of a weapon's damage, either sign (DD-11).
MAX_WEAPON_BONUS = 10
#: Largest Energía pool, maximum and heal cost (DD-14: a hit earns 2).
MAX_ENERGY = 100
#: Most uses of one heal (potions, kits).
MAX_HEAL_USES = 99
#: Most heals on one stat block (twice the shipped sheets' most, as weapons).
MAX_HEALS = 4


#: A characteristic die as written in a scenario (``d8``, or its size); the validator
#: below turns it into the size, so the JSON Schema (``escaramuza schema``) describes
#: the written form, not the int.
Die = Annotated[
    int,
    WithJsonSchema(
        {
            "anyOf": [
                {
                    "type": "string",
                    "pattern": rf"^\s*(1\s*)?[dD]\s*({'|'.join(map(str, STANDARD_DICE))})\s*$",
                },
                {"type": "integer", "enum": list(STANDARD_DICE)},
            ],
            "description": "one die: " + ", ".join(f"d{d}" for d in STANDARD_DICE),
        }
    ),
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _die(value: object) -> int:
    try:
        return parse_die(value)  # type: ignore[arg-type]
    except DiceError as exc:
        raise ValueError(str(exc)) from None


def _dice_text(value: str) -> str:
    try:
        parse_dice(value)
    except DiceError as exc:
        raise ValueError(str(exc)) from None
    return value


class Options(_Strict):
    """Named rule options (docs/rulesets/destiny_dice.md) with their defaults."""

    ties_favor: Literal["attacker", "defender"] = Field(
        "attacker",
        description="DD-10: who wins a tie of Ataque and Defensa: ``attacker``, the rule text "
        '("Si Ataque ≥ Defensa: ¡IMPACTO!"), or ``defender``, the Zara example, where 7 = 7 '
        "is blocked.",
    )
    help_bonus: Int = Field(
        1,
        ge=1,
        le=2,
        description='DD-04: what a help adds, "+1 a su próxima tirada (o +2 si tu descripción '
        'es muy ingeniosa)".',
    )
    jam_on_one: Bool = Field(
        True,
        description="DD-18 *(default)*: a 1 on the d20 when shooting always jams the weapon "
        '(the GM "puede decidir").',
    )
    cover_defense: Int = Field(
        0,
        ge=0,
        le=3,
        description="Not in the seed (0: no effect): a zone's ``cover`` level times this is "
        "added to Defensa against ranged attacks, a house rule a scenario may switch on.",
    )
    fumble_damage: Literal["always", "defence_wins"] = Field(
        "always",
        description='DD-09 reading: "Aunque tu Defensa supere al Ataque, recibes 1 punto de '
        'daño" — ``always`` takes the point whether or not the attack hits, '
        "``defence_wins`` only when the defence wins.",
    )


class ConditionSpec(_Strict):
    """A state to inflict (on hit) or to start with."""

    name: Literal[
        "derribado", "ciego", "inmovil", "paralizado", "asustado", "desarmado", "envenenado"
    ]
    #: "Envenenado (X)": X is a die expression ("1", "1d4", "1d6").
    x: str | None = Field(None, max_length=MAX_DICE_TEXT)

    _check_x = field_validator("x")(lambda cls, v: v if v is None else _dice_text(v))

    @model_validator(mode="after")
    def _x_only_for_poison(self) -> ConditionSpec:
        if self.name == "envenenado" and self.x is None:
            raise ValueError(_("envenenado needs x, the damage per turn (e.g. '1' or '1d4')"))
        if self.name != "envenenado" and self.x is not None:
            raise ValueError(_f("{name} takes no x", self.name))
        return self


class WeaponSpec(_Strict):
    """A weapon or attack spell.

    ``tier`` sets the damage bonus and the die requirement (DD-12); ``desarmado``
    is fists and kicks (damage = die − 1, minimum 1, DD-11). ``kind`` picks the
    characteristic: "Cuerpo para armas cuerpo a cuerpo, Mente para armas a distancia"
    (DD-06). ``bands`` are the
    distance bands it reaches (DD-05). ``bonus`` is a special modifier applied
    after (magic weapons, abilities). ``shoots`` marks firearms, bows and
    crossbows, which jam on a d20 of 1 (DD-18); spells do not shoot.
    """

    name: str = Field(min_length=1)
    tier: Literal["desarmado", "ligera", "media", "pesada"]
    kind: WeaponKind = MELEE
    bands: list[Band] | None = Field(None, max_length=len(BANDS))
    bonus: Int = Field(0, ge=-MAX_WEAPON_BONUS, le=MAX_WEAPON_BONUS)
    shoots: Bool | None = None
    inflicts: ConditionSpec | None = None

    @model_validator(mode="after")
    def _defaults(self) -> WeaponSpec:
        if self.bands is None:
            if self.kind == RANGED:
                raise ValueError(_("a ranged weapon must list the bands it reaches (cerca, lejos)"))
            self.bands = ["cuerpo_a_cuerpo"]
        if not self.bands:
            raise ValueError(_("bands must name at least one band"))
        if self.shoots is None:
            self.shoots = self.kind == RANGED
        return self


#: Energía a heal spends from one pool.
EnergyCost = Annotated[int, Field(ge=0, le=MAX_ENERGY), NOT_A_BOOL]


class HealSpec(_Strict):
    """A way to heal an ally: medicine, a potion or a healing spell (DD-16).

    The seed gives no amounts ("según sus efectos"), so each heal states its dice.
    ``uses`` limits potions and kits; ``cost`` spends energy (e.g. ``{pa: 1}``).
    """

    name: str = Field(min_length=1)
    heal: str = Field(max_length=MAX_DICE_TEXT)
    bands: list[Band] = Field(default_factory=lambda: ["cuerpo_a_cuerpo"], max_length=len(BANDS))
    uses: Annotated[int, Field(ge=1, le=MAX_HEAL_USES), NOT_A_BOOL] | None = None
    cost: dict[Literal["pc", "pm", "pa"], EnergyCost] = Field(default_factory=dict)
    cures: list[Literal["envenenado", "ciego", "asustado"]] = Field(
        default_factory=list, max_length=len(PERSISTENT)
    )

    _check_heal = field_validator("heal")(lambda cls, v: _dice_text(v))


class Energy(_Strict):
    pc: Int = Field(0, ge=0, le=MAX_ENERGY)
    pm: Int = Field(0, ge=0, le=MAX_ENERGY)
    pa: Int = Field(0, ge=0, le=MAX_ENERGY)


class Stats(_Strict):
    """A Destiny Dice stat block (hero or enemy).

    Heroes defend with their Cuerpo die; enemies with the Defensa die of the
    bestiary (DD-06), so ``defensa`` is required for enemies and refused for heroes.
    """

    cuerpo: Die
    mente: Die
    alma: Die
    defensa: Die | None = None
    pv: Int = Field(ge=1, le=MAX_PV)
    #: PV at the start of the battle, when below ``pv``.
    pv_current: Annotated[int, Field(ge=0, le=MAX_PV), NOT_A_BOOL] | None = None
    #: DD-06: "Modificadores de armadura y escudo se suman al resultado de la tirada de
    #: Defensa".
    armour: Int = Field(0, ge=0, le=MAX_ARMOUR)
    shield: Int = Field(0, ge=0, le=MAX_ARMOUR)
    #: PC/PM/PA earned by hitting (DD-14) and EC/EM/EA recovered by rests (DD-17) are
    #: read as the same three Energía pools; the seed gives no maximum, so it is a field.
    energy: Energy = Field(default_factory=Energy)
    energy_max: Int = Field(10, ge=0, le=MAX_ENERGY)
    weapons: list[WeaponSpec] = Field(default_factory=list, max_length=MAX_WEAPONS)
    heals: list[HealSpec] = Field(default_factory=list, max_length=MAX_HEALS)
    #: As many entries as the seed has conditions (DD-19).
    conditions: list[ConditionSpec] = Field(default_factory=list, max_length=len(CONDITIONS))

    _check_dice = field_validator("cuerpo", "mente", "alma", "defensa", mode="before")(
        lambda cls, v: v if v is None else _die(v)
    )

    @model_validator(mode="after")
    def _check(self) -> Stats:
        names = [w.name for w in self.weapons] + [h.name for h in self.heals]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(_f("item name {name} is used twice", repr(name)))
        if self.pv_current is not None and self.pv_current > self.pv:
            raise ValueError(_("pv_current cannot exceed pv"))
        return self


UNARMED = "puños"


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon as the hot loop needs it (bands as indices, dice resolved)."""

    name: str
    characteristic: str  # "cuerpo" | "mente"
    bands: frozenset[int]
    tier_bonus: int
    extra: int
    unarmed: bool
    shoots: bool
    inflicts: str | None
    inflicts_x: str | None


@dataclass(frozen=True, slots=True)
class Heal:
    name: str
    heal: str
    bands: frozenset[int]
    uses: int | None
    cost: tuple[tuple[str, int], ...]
    cures: tuple[str, ...]
    #: The ``Combatant.data`` key counting uses left (built once: legal_actions reads it).
    uses_key: str = ""


@dataclass(frozen=True, slots=True)
class Sheet:
    """The immutable part of a combatant, shared by every clone."""

    cuerpo: int
    mente: int
    alma: int
    defensa: int
    defence_bonus: int
    weapons: dict[str, Weapon]
    heals: dict[str, Heal]
    #: The static part of the learner features (dice, armour, carries a ranged weapon).
    static_features: tuple[float, ...] = ()
    #: Derived from ``weapons`` once (:func:`sheet_tables`) for the hot loop: band index →
    #: names of the weapons reaching it, in ``weapons`` order; every band some weapon
    #: reaches; (name, ``Combatant.data`` jam key) of each weapon that shoots (DD-18).
    by_band: tuple[tuple[str, ...], ...] = ((), (), ())
    all_bands: frozenset[int] = frozenset()
    jam_keys: tuple[tuple[str, str], ...] = ()
    #: Carries a weapon rolled with Mente (a shooter, for the heuristic).
    ranged: Bool = False

    def die(self, characteristic: str) -> int:
        return self.cuerpo if characteristic == "cuerpo" else self.mente


def sheet_tables(
    weapons: dict[str, Weapon],
) -> tuple[tuple[tuple[str, ...], ...], frozenset[int], tuple[tuple[str, str], ...]]:
    """``Sheet.by_band``, ``all_bands`` and ``jam_keys`` of a weapon table."""
    by_band = tuple(
        tuple(name for name, w in weapons.items() if band in w.bands) for band in range(len(BANDS))
    )
    all_bands = frozenset(band for w in weapons.values() for band in w.bands)
    jam_keys = tuple((name, f"jam:{name}") for name, w in weapons.items() if w.shoots)
    return by_band, all_bands, jam_keys


def make_weapon(spec: WeaponSpec) -> Weapon:
    unarmed = spec.tier == "desarmado"
    return Weapon(
        name=spec.name,
        characteristic="cuerpo" if spec.kind == MELEE else "mente",
        bands=frozenset(BANDS.index(b) for b in spec.bands or ()),
        tier_bonus=0 if unarmed else TIERS[spec.tier][0],
        extra=spec.bonus,
        unarmed=unarmed,
        shoots=bool(spec.shoots),
        inflicts=spec.inflicts.name if spec.inflicts else None,
        inflicts_x=spec.inflicts.x if spec.inflicts else None,
    )


def make_heal(spec: HealSpec) -> Heal:
    return Heal(
        spec.name,
        spec.heal,
        frozenset(BANDS.index(b) for b in spec.bands),
        spec.uses,
        tuple(sorted(spec.cost.items())),
        tuple(spec.cures),
        f"uses:{spec.name}",
    )
