"""Options and stat blocks of a Cairn scenario (pydantic models, extra fields forbidden).

A Cairn character is PI (Protección contra Impacto), three attributes FUE, DES
and VOL, an armour score and weapons given as damage dice. The seed leaves
every number to the character sheet, so they are explicit scenario fields;
CA-19 *(ext)* gives the typical foes, offered as ``template`` stat blocks.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from escaramuza.rules.core.i18n import _f
from escaramuza.rules.core.scenario import MAX_WEAPONS, Bool, Int

#: A weapon's kind, in the same words as the other rulesets' (docs/scenario-format.md):
#: a ``distancia`` weapon (sling, bow) attacks from where the wielder stands, up to
#: ``reach`` hops; a ``cuerpo_a_cuerpo`` one only in the wielder's zone.
MELEE = "cuerpo_a_cuerpo"
RANGED = "distancia"
WeaponKind = Literal["cuerpo_a_cuerpo", "distancia"]

#: Die sizes a Cairn weapon can roll.
CAIRN_DICE: tuple[int, ...] = (4, 6, 8, 10, 12)

_DAMAGE = re.compile(r"^d(\d+)(?:\s*\+\s*d(\d+))?$")
#: What :func:`parse_damage` accepts, as a JSON Schema pattern (case and the spaces
#: around the text, which it strips, included).
_DIE = "[dD](?:" + "|".join(map(str, CAIRN_DICE)) + ")"
DAMAGE_PATTERN = rf"^\s*{_DIE}(?:\s*\+\s*{_DIE})?\s*$"


def parse_damage(text: str) -> tuple[int, ...]:
    """Parse ``d8`` or ``d8+d6`` into die sizes.

    CA-10: "Si se ataca con dos armas al mismo tiempo, se tiran ambos dados de
    daño y se conserva el resultado más alto (indicado con un símbolo de suma,
    por ejemplo, d8+d8)" — so ``+`` here means keep-highest, not a sum, which
    is why this is not the core dice notation.
    """
    match = _DAMAGE.match(text.strip().lower())
    if not match:
        raise ValueError(
            _f("{text} is not Cairn damage notation (expected 'd8' or 'd8+d6')", repr(text))
        )
    sides = tuple(int(g) for g in match.groups() if g is not None)
    for s in sides:
        if s not in CAIRN_DICE:
            raise ValueError(
                _f("{text}: a Cairn damage die is one of d4, d6, d8, d10, d12", repr(text))
            )
    return sides


class CairnOptions(BaseModel):
    """The ``options`` block of a Cairn scenario."""

    model_config = ConfigDict(extra="forbid")

    first_round_save: Bool = Field(
        True, description="CA-03: every PC makes a DES save to act in the first round."
    )
    scars: Bool = Field(
        True,
        description="CA-13: roll on the Cicatrices table when an attack leaves a PC at "
        "exactly 0 PI.",
    )
    doomed: Literal["out_of_action", "event"] = Field(
        "out_of_action",
        description='CA-13 entry 12, Condenado (the book\'s "Doomed"; the seed has no table) '
        "in the fight: ``out_of_action`` *(default)* takes the PC out (``down``, "
        "``fuera_de_accion``); ``event`` only records the doom and the PC fights on at 0 PI.",
    )
    morale: Bool = Field(
        False, description="CA-18 *(ext)*: morale saves for the enemies; off by default."
    )
    cover_impairs_at: Int = Field(
        1,
        ge=1,
        le=3,
        description="CA-07 reading *(default)*: a ranged attack on a target standing in a "
        "zone whose ``cover`` is at least this level is Impedido; 3 switches cover off.",
    )
    both_modifiers: Literal["cancel", "impaired", "enhanced"] = Field(
        "cancel",
        description="*(default)* the seed is silent on an attack both Impedido and Mejorado: "
        "``cancel`` rolls the weapon's own die; the others let one side win.",
    )


class Weapon(BaseModel):
    """One weapon (or a pair, CA-10) of a combatant."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    #: The JSON Schema's pattern is :func:`parse_damage`'s grammar, so an editor refuses
    #: what the loader refuses (``2d6`` is not Cairn notation).
    damage: str = Field("d6", json_schema_extra={"pattern": DAMAGE_PATTERN})
    kind: WeaponKind = MELEE
    #: Hops a ``distancia`` weapon reaches *(default 3; the seed gives no ranges)*.
    reach: Int = Field(3, ge=0, le=20)
    #: CA-09 Explosión: every opponent in the target's zone, rolled separately.
    blast: Bool = False

    _dice: tuple[int, ...] = PrivateAttr(default=())

    @field_validator("damage")
    @classmethod
    def _valid_damage(cls, value: str) -> str:
        parse_damage(value)
        return value

    def model_post_init(self, context: Any, /) -> None:
        # Parsed once here so the hot loop never parses notation.
        self._dice = parse_damage(self.damage)

    @property
    def dice(self) -> tuple[int, ...]:
        # Read from the private-attribute dict directly: ``self._dice`` goes through
        # pydantic's ``__getattr__`` fallback, several times slower, and the heuristics ask
        # for a weapon's dice on every attack they weigh.
        return self.__pydantic_private__["_dice"]  # type: ignore[index,no-any-return]


#: "Los ataques desarmados siempre hacen 1d4 de daño" (CA-07).
UNARMED = Weapon(name="desarmado", damage="d4")

#: CA-19 *(ext)* typical foes; a combatant's ``template`` fills the fields it omits.
TEMPLATES: dict[str, dict[str, Any]] = {
    "goblin": {
        "pi": 4,
        "fue": 8,
        "des": 12,
        "vol": 8,
        "armour": 0,
        "weapons": [{"name": "daga", "damage": "d6"}],
    },
    "bandit": {
        "pi": 4,
        "fue": 12,
        "des": 12,
        "vol": 9,
        "armour": 1,
        "weapons": [{"name": "espada corta", "damage": "d6"}],
    },
    "bugbear": {
        "pi": 8,
        "fue": 14,
        "des": 12,
        "vol": 11,
        "armour": 1,
        "weapons": [{"name": "lucero del alba", "damage": "d8"}],
    },
}


_TEMPLATE_FIELDS = ("pi", "fue", "des", "vol")


def _template_schema(schema: dict[str, Any]) -> None:
    # The template is merged in before validation (``_apply_template``), so pi, fue, des
    # and vol are required only without one; the JSON Schema says so for editors.
    required = [key for key in schema.get("required", []) if key not in _TEMPLATE_FIELDS]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    schema["anyOf"] = [{"required": ["template"]}, {"required": list(_TEMPLATE_FIELDS)}]


class CairnStats(BaseModel):
    """A combatant's Cairn keys in a scenario file."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_template_schema)

    #: CA-19 typical stat block to start from (``goblin``, ``bandit``, ``bugbear``).
    template: Literal["goblin", "bandit", "bugbear"] | None = None
    pi: Int = Field(ge=0, le=40)
    fue: Int = Field(ge=1, le=20)
    des: Int = Field(ge=1, le=20)
    vol: Int = Field(ge=1, le=20)
    #: CA-05 "resta la armadura del objetivo"; CA-19 *(ext)*: "Armour ≤ 3".
    armour: Int = Field(0, ge=0, le=3)
    weapons: list[Weapon] = Field(default_factory=list, max_length=MAX_WEAPONS)
    #: CA-16: a group fought as one.
    destacamento: Bool = False
    #: A player character (CA-03, CA-12, CA-13). Default: heroes are PCs, enemies are not.
    pc: Bool | None = None
    #: CA-03: "habilidades u objetos pueden negar este requisito".
    waive_first_save: Bool = False
    #: CA-07: fights from weakness (bound hands…): every attack is Impedido.
    impaired: Bool = False
    #: CA-08: helpless (asleep, bound): attacks against it are Mejorado.
    helpless: Bool = False

    @model_validator(mode="before")
    @classmethod
    def _apply_template(cls, data: Any) -> Any:
        # A str check first: ``template: [goblin]`` is a list, which no dict can look up;
        # the field's own validation then names it.
        template = data.get("template") if isinstance(data, dict) else None
        if isinstance(template, str) and template in TEMPLATES:
            merged = dict(TEMPLATES[data["template"]])
            merged.update(data)
            return merged
        return data

    @field_validator("weapons")
    @classmethod
    def _unique_names(cls, value: list[Weapon]) -> list[Weapon]:
        names = [w.name for w in value]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(_f("weapon name {name} is used twice", repr(name)))
            if name == UNARMED.name:
                raise ValueError(_f("{name} is reserved for unarmed attacks", repr(name)))
        return value
