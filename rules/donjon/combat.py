"""Pools and distances: the numbers an action's tests are made of (seed "Atacar y defenderse",
"Distancia y movimiento", "Daño y heridas").

Pure functions of a combatant's current values; the ruleset and the heuristic
both use them, so a suggestion and the roll it predicts count the same dice.
"""

from __future__ import annotations

from dataclasses import dataclass

from escaramuza.rules.core.model import Combatant, IdentityMemo
from escaramuza.rules.donjon.sheets import MELEE, RANGED, THROWN, DonjonStats, Weapon

#: DJ-09: "Tu personaje siempre estará a una de las siguientes distancias de sus oponentes".
BAND_NAMES: tuple[str, ...] = (
    "en contacto",
    "a una acción",
    "a dos acciones",
    "fuera del alcance",
)
CONTACT, ONE_ACTION, TWO_ACTIONS, OUT_OF_RANGE = 0, 1, 2, 3

# DJ-12, one row per band: the dice a weapon kind loses, None where it cannot attack.
# "a dos acciones ... penalización de 3 dados para atacar con un arma de distancia, no puede
# arrojar un arma arrojadiza y no puede atacar en cuerpo a cuerpo"; "a una acción ... no tiene
# penalización al atacar con armas de distancia o armas arrojadizas, pero no puede atacar
# cuerpo a cuerpo"; "en contacto ... 6 dados para los ataques con armas de distancia, 3 dados
# para las armas arrojadizas y puede atacar normalmente en cuerpo a cuerpo".
PENALTY: dict[str, tuple[int | None, ...]] = {
    MELEE: (0, None, None, None),
    THROWN: (3, 0, None, None),
    RANGED: (6, 0, 3, None),
}


def band_of(hops: int) -> int:
    """DJ-09: hop distance → en contacto (0), a una acción (1), a dos acciones (2), fuera (≥3)."""
    return hops if hops < OUT_OF_RANGE else OUT_OF_RANGE


def range_penalty(kind: str, band: int) -> int | None:
    """DJ-12: dice lost attacking with a ``kind`` weapon at ``band``; None if it cannot."""
    return PENALTY[kind][band]


def stats(c: Combatant) -> DonjonStats:
    return c.stats  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class Profile:
    """What a stat block fixes for a whole battle, worked out once per block.

    Valid for as long as the block lives: a ``DonjonStats`` is a frozen pydantic model
    (``_Strict``: ``frozen=True``) that rulesets share and never mutate (architecture.md,
    "Combatant.stats"), and everything here is a function of the block alone.
    """

    stats: DonjonStats
    #: Weapon by ``nombre`` (names are unique per sheet: ``build_combatant`` checks it).
    by_name: dict[str, Weapon]
    #: :func:`parry_weapon`'s answer.
    parry: Weapon | None


def _build_profile(s: DonjonStats) -> Profile:
    by_name: dict[str, Weapon] = {}
    for weapon in s.weapons_or_fists:
        by_name.setdefault(weapon.name, weapon)  # first of a name, as the old scan found
    return Profile(s, by_name, _parry_weapon(s))


#: A stat block's profile: a function of the frozen block alone, which nobody mutates.
_profile_of: IdentityMemo[DonjonStats, Profile] = IdentityMemo(_build_profile)


def profile(c: Combatant) -> Profile:
    """The cached :class:`Profile` of ``c``'s stat block."""
    return _profile_of(c.stats)


def weapon(c: Combatant, name: str) -> Weapon:
    weapon = profile(c).by_name.get(name)
    if weapon is None:
        raise KeyError(f"{c.id} carries no weapon {name!r}")
    return weapon


def attack_pool(c: Combatant, weapon: Weapon, band: int) -> int | None:
    """DJ-13: Celeridad + attack ability − the DJ-12 penalty (None: out of the weapon's reach).

    Carried bonus dice (DJ-10 movement successes) are added by the caller.
    """
    penalty = PENALTY[weapon.kind][band]
    if penalty is None:
        return None
    return c.resources["celeridad"] + c.stats.skills.ataque - penalty


def parry_pool(c: Combatant) -> int:
    """DJ-14: "se defiende tirando su Celeridad más cualquier Habilidad apropiada para atacar"."""
    return c.resources["celeridad"] + c.stats.skills.ataque


def dodge_pool(c: Combatant) -> int:
    """DJ-15: "Celeridad, más cualquier tipo de Habilidad defensiva o para esquivar"."""
    return c.resources["celeridad"] + c.stats.skills.esquivar


def move_pool(c: Combatant) -> int:
    """DJ-10: "Tira la Celeridad de tu personaje, más alguna Habilidad pertinente"."""
    return c.resources["celeridad"] + c.stats.skills.movimiento


def damage_pool(c: Combatant, weapon: Weapon) -> int:
    """DJ-16: Virilidad + the weapon's Nivel de Daño + ability (bonus dice added by the caller)."""
    return c.resources["virilidad"] + weapon.damage + c.stats.skills.dano


def soak_pool(c: Combatant) -> int:
    """DJ-16: "el Aguante de tu oponente, más el Nivel de Daño de su armadura, más la Habilidad"."""
    s = c.stats
    return c.resources["aguante"] + s.armour + s.skills.resistencia


def damage_test_floor(c: Combatant) -> int:
    """DJ-19: the fewest dice ``c`` rolls in a Prueba de Daño, dealing or resisting.

    "Los PJ siempre tiran un dado en las Pruebas de Daño, inclusive cuando su Aguante es
    reducido a cero": the sentence names Aguante, the resisting pool, so the floor holds on
    both sides of the test. A PNJ has none.
    """
    return 1 if c.pc else 0


def initiative_pool(c: Combatant) -> int:
    """DJ-04: "una cantidad de dados igual a su Nivel más su Discernimiento"."""
    return stats(c).level + c.resources["discernimiento"]


def parry_weapon(c: Combatant) -> Weapon | None:
    """The melee weapon a parry and its counterattack use (highest Nivel de Daño), if any.

    DJ-14: "Tanto un arma cuerpo a cuerpo como un hechizo ... pueden utilizarse para
    defenderse activamente" — no melee weapon, no parry (spells are not simulated).
    """
    return profile(c).parry


def _parry_weapon(s: DonjonStats) -> Weapon | None:
    best: Weapon | None = None
    for weapon in s.weapons_or_fists:
        if weapon.kind == MELEE and (best is None or weapon.damage > best.damage):
            best = weapon
    return best


def free_attack_weapon(c: Combatant, successes: int) -> Weapon | None:
    """*(default)* The weapon of a DJ-11 free attack (in contact): of those it can roll at
    least one die with, the one with most dice; None if it can roll none.

    "puede utilizar los éxitos como bonificadores para el ataque gratuito": the pool is
    the attack pool at contact + the movement ``successes``, and an attack needs at least
    one die (DJ-12 default). Dice = attack pool at contact + damage pool (the successes
    add to every weapon alike); ties keep sheet order.
    """
    best: Weapon | None = None
    best_dice = 0
    for weapon in stats(c).weapons_or_fists:
        pool = attack_pool(c, weapon, CONTACT)
        if pool is None or pool + successes < 1:
            continue
        dice = pool + damage_pool(c, weapon)
        if best is None or dice > best_dice:
            best, best_dice = weapon, dice
    return best
