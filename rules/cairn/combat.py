"""Saves, attack dice, damage, Daño Crítico, Cicatrices and attribute loss.

Each function cites the seed sentence (or the *(default)* where the seed is silent) it follows.
They mutate one combatant and return the events; the turn structure that calls
them is in :mod:`escaramuza.rules.cairn.ruleset`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from escaramuza.rules.cairn.scars import scar_for
from escaramuza.rules.cairn.sheets import RANGED, UNARMED, Weapon
from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import (
    ConditionApplied,
    Damaged,
    Event,
    Note,
    Rolled,
    StatusChanged,
)
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.model import Combatant, Condition, Side, Status

if TYPE_CHECKING:
    from escaramuza.rules.core.state import BattleState

#: Conditions the engine applies (and the env observes), in a fixed order.
CONDITIONS: tuple[str, ...] = (
    "perdio_turno",  # CA-03: failed the first-round DES save
    "privado",  # CA-13: deprived (Golpeado, Herida mortal)
    "desjarretado",  # CA-13: hamstrung, cannot move
    "dano_critico",  # CA-12: a PC crawling, out of the fight
    "fuera_de_accion",  # CA-13: out of action (Herida mortal, Condenado)
    "paralizado",  # CA-14: DES 0
    "delirante",  # CA-14: VOL 0
)

ATTRIBUTES: dict[str, str] = {"fue": "FUE", "des": "DES", "vol": "VOL"}


@dataclass(frozen=True, slots=True)
class ScarSuffered(Event):
    """CA-13: a Cicatrices entry read for a PC left at exactly 0 PI."""

    target: str = ""
    entry: int = 0
    scar: str = ""


def set_status(c: Combatant, status: Status, text: str, source: str = "") -> StatusChanged:
    c.status = status
    return StatusChanged(text, c.id, status.value, source)


def apply_condition(c: Combatant, name: str, text: str, source: str | None = None) -> Event:
    c.conditions[name] = Condition(name, source=source, persistent=True)
    return ConditionApplied(text, c.id, name)


def save(roller: Roller, c: Combatant, attribute: str, why: str) -> tuple[bool, Rolled]:
    """CA-01 *(ext)*: d20 ≤ the attribute succeeds; 1 always succeeds, 20 always fails."""
    score = c.resources[attribute]
    face = roller.roll(20, _f("{c} {attr} save ({why})", c.id, ATTRIBUTES[attribute], why))
    ok = face == 1 or (face != 20 and face <= score)
    text = (
        _f(
            "{c} rolls a {attr} save ({why}): d20 = {face} against {attr} {score} — passes.",
            c.name,
            ATTRIBUTES[attribute],
            why,
            face,
            score,
        )
        if ok
        else _f(
            "{c} rolls a {attr} save ({why}): d20 = {face} against {attr} {score} — fails.",
            c.name,
            ATTRIBUTES[attribute],
            why,
            face,
            score,
        )
    )
    return ok, Rolled(text, c.id, f"{attribute} save", (face,), face)


# -- attack dice (CA-05 … CA-10, CA-16) ------------------------------------------


def weapons_of(c: Combatant) -> tuple[Weapon, ...]:
    """The combatant's weapons; with none, its fists (CA-07: "desarmados … 1d4")."""
    return tuple(c.stats.weapons) or (UNARMED,)


def weapon_named(c: Combatant, name: str) -> Weapon:
    for w in weapons_of(c):
        if w.name == name:
            return w
    raise KeyError(f"{c.id} has no weapon {name!r}")


# -- reach and the move before the attack (CA-04) ------------------------------------


def reach_of(weapon: Weapon) -> int:
    """Hops ``weapon`` strikes from where its wielder stands: a ``distancia`` weapon's
    ``reach``; any other only its own zone (0)."""
    return weapon.reach if weapon.kind == RANGED else 0


def in_reach(weapon: Weapon, hops: int, mobile: bool) -> bool:
    """Whether ``weapon`` strikes a combatant ``hops`` zones away this turn: within its
    reach, or one zone beyond it when the wielder is ``mobile`` (not desjarretado,
    CA-13) — CA-04: "puede moverse hasta 12 metros y realizar una acción", the move
    (one zone step) then the attack, for a blade or a bow alike."""
    reach = reach_of(weapon)
    return hops <= reach or (hops == reach + 1 and mobile)


def attack_zone(state: BattleState, attacker: Combatant, target: Combatant, weapon: Weapon) -> str:
    """Where ``attacker`` strikes ``target`` from: where it stands when the target is in
    ``weapon``'s reach, else after the turn's move (CA-04), one zone toward the target —
    the first neighbour in map order on a shortest path (``Battlefield.step_towards``;
    for a melee attacker, the target's own zone)."""
    bf = state.battlefield
    if bf.distance(attacker.zone, target.zone) <= reach_of(weapon):
        return attacker.zone
    return bf.step_towards(attacker.zone, target.zone)


def attack_modifier(
    state: BattleState, attacker: Combatant, target: Combatant, weapon: Weapon
) -> tuple[str, str]:
    """``(normal|impaired|enhanced, why)`` for one attacker's die against one target."""
    impaired: list[str] = []
    enhanced: list[str] = []
    if attacker.stats.impaired:
        impaired.append(_("fights from weakness"))
    # CA-07 reading: "luchando … a través de cobertura": a ranged attack into a zone
    # with cover is made through that cover (the target's zone, not the shooter's).
    cover = state.battlefield.zones[target.zone].cover
    if weapon.kind == RANGED and cover >= state.options.cover_impairs_at:
        impaired.append(_f("target in cover {cover}", cover))
    # CA-16: "Los ataques contra destacamentos por parte de un solo individuo se
    # consideran Impedidos (excluyendo el daño por Explosión)."
    if target.stats.destacamento and not attacker.stats.destacamento and not weapon.blast:
        impaired.append(_("an individual against a destacamento"))
    # CA-08: "contra un oponente indefenso" / CA-16 "ataques contra individuos por
    # parte de destacamentos se consideran Mejorados".
    if target.stats.helpless:
        enhanced.append(_("helpless target"))
    if attacker.stats.destacamento and not target.stats.destacamento:
        enhanced.append(_("a destacamento against an individual"))
    if impaired and enhanced:
        rule = state.options.both_modifiers
        why = "; ".join(impaired + enhanced)
        return ("normal" if rule == "cancel" else rule), why
    if impaired:
        return "impaired", "; ".join(impaired)
    if enhanced:
        return "enhanced", "; ".join(enhanced)
    return "normal", ""


def attack_dice(
    state: BattleState, attacker: Combatant, target: Combatant, weapon: Weapon
) -> tuple[tuple[int, ...], str]:
    """The dice one attacker rolls at one target, and why they are not the weapon's."""
    if weapon is UNARMED:
        return (4,), _("unarmed")
    mod, why = attack_modifier(state, attacker, target, weapon)
    if mod == "impaired":
        # "el atacante debe tirar 1d4 de daño independientemente del dado de su arma"
        return (4,), f"Impedido: {why}"
    if mod == "enhanced":
        return (12,), f"Mejorado: {why}"
    return weapon.dice, why


def is_blast(attacker: Combatant, target: Combatant, weapon: Weapon) -> bool:
    """CA-09 Explosión, or CA-16: a destacamento's attack on an individual is blast."""
    return weapon.blast or (attacker.stats.destacamento and not target.stats.destacamento)


def blast_targets(
    state: BattleState, attacker: Combatant, target: Combatant, weapon: Weapon
) -> list[Combatant]:
    """Everyone the blast reaches: the opponents in the target's zone *(default area)*.

    A destacamento's own blast (CA-16) is against individuals, so it does not
    reach other destacamentos; a blast weapon reaches everyone there.
    """
    return [
        c
        for c in state.combatants
        if c.active
        and c.side is not attacker.side
        and c.zone == target.zone
        and (weapon.blast or not c.stats.destacamento)
    ]


# -- damage (CA-11 … CA-14) ------------------------------------------------------


def apply_damage(
    state: BattleState, target: Combatant, damage: int, source: str, roller: Roller
) -> list[Event]:
    """Take ``damage`` (already net of armour) to PI, then FUE with the save (CA-11)."""
    if damage <= 0:
        return [
            Note(
                _f(
                    "{target}'s armadura {armadura} stops it: no damage.",
                    target.name,
                    target.stats.armour,
                )
            )
        ]
    events: list[Event] = []
    pi = target.resources["pi"]
    to_pi = min(damage, pi)
    over = damage - to_pi
    if to_pi:
        target.resources["pi"] = pi - to_pi
        events.append(
            Damaged(
                _f("{target} loses {to_pi} PI ({left} left).", target.name, to_pi, pi - to_pi),
                target.id,
                to_pi,
                "pi",
                source,
                pi - to_pi,
            )
        )
    if over == 0:
        # CA-13: "Si un ataque causa que un PC se quede con exactamente 0 PI".
        if to_pi and target.resources["pi"] == 0 and target.pc and state.options.scars:
            events.extend(read_scar(state, target, to_pi, source))
        return events
    # CA-11: "de quedar más puntos de daño, se restarían de su FUE".
    fue = target.resources["fue"]
    new = max(0, fue - over)
    target.resources["fue"] = new
    events.append(
        Damaged(
            _f(
                "{target} takes {over} damage past 0 PI to FUE ({new} left).",
                target.name,
                over,
                new,
            ),
            target.id,
            fue - new,
            "fue",
            source,
            new,
        )
    )
    if new == 0:
        events.extend(attribute_zero(target, "fue", source))
        return events
    # CA-11: "debe realizar inmediatamente una tirada de salvación de FUE … utilizando
    # su nueva puntuación de FUE".
    ok, rolled = save(roller, target, "fue", "Daño Crítico")
    events.append(rolled)
    if not ok:
        events.extend(critical_damage(target, source))
    return events


def critical_damage(target: Combatant, source: str) -> list[Event]:
    """CA-12 (and CA-16 for a destacamento): what a failed FUE save means."""
    if target.stats.destacamento:
        # CA-16: "Cuando un destacamento sufre Daño Crítico, se retira" *(default: it
        # withdraws, leaving the fight)*.
        return [
            set_status(
                target,
                Status.FLED,
                _f(
                    "{target} suffers Daño Crítico and the destacamento routs.",
                    target.name,
                ),
                source,
            )
        ]
    if target.pc:
        # "no puede hacer nada más que arrastrarse débilmente, luchando por su vida".
        return [
            apply_condition(
                target,
                "dano_critico",
                _f(
                    "{target} suffers Daño Crítico: crawling, dying within the hour "
                    "unless treated.",
                    target.name,
                ),
                source,
            ),
            set_status(
                target,
                Status.DOWN,
                _f(
                    "{target} is out of the fight.",
                    target.name,
                ),
                source,
            ),
        ]
    # "Los PNJS y monstruos que no superen una tirada de salvación de Daño Crítico se
    # consideran muertos".
    return [
        set_status(
            target, Status.DEAD, _f("{target} suffers Daño Crítico and dies.", target.name), source
        )
    ]


def attribute_zero(c: Combatant, attribute: str, source: str = "") -> list[Event]:
    """CA-14: FUE 0 is death (a destacamento is destroyed); DES 0 paralysed; VOL 0
    delirious — both leave the character unable to act (one still fighting goes down;
    one already down or gone stays so, with the condition)."""
    if attribute == "fue":
        text = (
            _("{c} is at FUE 0 and the destacamento is destroyed.")
            if c.stats.destacamento
            else _("{c} is at FUE 0 and dies.")
        )
        return [set_status(c, Status.DEAD, text.format(c=c.name), source)]
    name = "paralizado" if attribute == "des" else "delirante"
    events: list[Event] = [
        apply_condition(
            c,
            name,
            _f(
                "{c} is at {attr} 0: {name}.",
                c.name,
                ATTRIBUTES[attribute],
                name,
            ),
            source,
        )
    ]
    if c.active:
        events.append(set_status(c, Status.DOWN, _f("{c} cannot act.", c.name), source))
    return events


def lose_attribute(c: Combatant, attribute: str, amount: int, source: str = "") -> list[Event]:
    """Take ``amount`` off an attribute (never below 0), with CA-14 at 0."""
    old = c.resources[attribute]
    new = max(0, old - amount)
    c.resources[attribute] = new
    events: list[Event] = [
        Damaged(
            _f(
                "{c} loses {lost} {attr} ({new} left).",
                c.name,
                old - new,
                ATTRIBUTES[attribute],
                new,
            ),
            c.id,
            old - new,
            attribute,
            source,
            new,
        )
    ]
    # CA-14: "Si la FUE de un PJ se reduce a 0, muere" — a PC already down (crawling
    # after Daño Crítico, paralizado, out of action) too: only the dead lose nothing more.
    if new == 0 and old > 0 and c.status is not Status.DEAD:
        events.extend(attribute_zero(c, attribute, source))
    return events


def damage_outside_combat(c: Combatant, amount: int, attribute: str = "fue") -> list[Event]:
    """CA-15: "Si un PJ recibiría daño fuera del combate, en su lugar recibiría daño
    en un Atributo (normalmente FUE)" — PI are not touched."""
    return lose_attribute(c, attribute, amount, "")


def read_scar(state: BattleState, target: Combatant, pi_lost: int, source: str) -> list[Event]:
    """CA-13: read the Cicatrices entry for the PI lost and apply its fight effects."""
    scar = scar_for(pi_lost, state.options.doomed)
    events: list[Event] = [
        ScarSuffered(
            _f(
                "{t} is left at exactly 0 PI after losing {lost}: Cicatrices #{entry} {name} — "
                "{text}.",
                target.name,
                pi_lost,
                scar.entry,
                scar.name,
                _(scar.text),
            ),
            target.id,
            scar.entry,
            scar.name,
        )
    ]
    if "deprived" in scar.effects:
        events.append(
            apply_condition(
                target,
                "privado",
                _f(
                    "{target} is privado.",
                    target.name,
                ),
                source,
            )
        )
    if "hamstrung" in scar.effects:
        events.append(
            apply_condition(
                target,
                "desjarretado",
                _f(
                    "{target} is hamstrung and cannot move.",
                    target.name,
                ),
                source,
            )
        )
    if "out_of_action" in scar.effects:
        events.append(
            apply_condition(
                target, "fuera_de_accion", _f("{target} is out of action.", target.name), source
            )
        )
        events.append(
            set_status(
                target,
                Status.DOWN,
                _f(
                    "{target} is out of the fight.",
                    target.name,
                ),
                source,
            )
        )
    return events


def declared_pools(
    state: BattleState, side: Side, exclude: str | None = None
) -> dict[str, list[int]]:
    """Dice already aimed at each target by ``side``'s declarations this side turn.

    CA-06: "se tiran todos los dados de daño y se conserva el resultado más alto"
    — a later declaration adds to these pools. ``exclude`` leaves out one
    combatant's own declaration. Empty when ``side`` is not the side declaring.
    """
    pools: dict[str, list[int]] = {}
    if state.data.get("side") != side.value:
        return pools
    for a in state.data.get("declared", ()):
        if a.verb != "atacar" or a.target is None or a.item is None or a.actor == exclude:
            continue
        attacker, target = state.by_id[a.actor], state.by_id[a.target]
        weapon = weapon_named(attacker, a.item)
        hit = (
            blast_targets(state, attacker, target, weapon)
            if is_blast(attacker, target, weapon)
            else [target]
        )
        for t in hit:
            pools.setdefault(t.id, []).extend(attack_dice(state, attacker, t, weapon)[0])
    return pools
