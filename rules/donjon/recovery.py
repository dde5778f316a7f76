"""DJ-20 healing between scenes, for the multi-battle tools (seed "Curación").

"Los personajes jugadores recuperan un dado o una Herida al principio de cada
escena. El daño a los Atributos siempre es el primero en sanar, comenzando por
el más bajo. Una vez que todos los Atributos están curados, se regeneran las
Heridas. Entre aventuras, siempre se cura todo el daño."
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import Event, Healed, StatusChanged
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.model import Combatant, Status
from escaramuza.rules.core.rest import Recovery, no_rest
from escaramuza.rules.donjon.sheets import ATTRIBUTES


def _heal_one(c: Combatant, between_adventures: bool) -> list[Event]:
    events: list[Event] = []
    if not c.pc or c.status is Status.DEAD:
        # Only "Los personajes jugadores" heal; the dead stay dead.
        return events
    if between_adventures:
        for key in (*ATTRIBUTES, "heridas"):
            lost = c.maxima[key] - c.resources[key]
            if lost > 0:
                c.resources[key] = c.maxima[key]
                events.append(
                    Healed(
                        _f(
                            "{c} heals all {key} between adventures (+{lost}).",
                            c.name,
                            key,
                            lost,
                        ),
                        c.id,
                        lost,
                        key,
                        "",
                        c.resources[key],
                    )
                )
        if c.status is Status.DOWN:
            c.status = Status.ACTIVE
            c.conditions.pop("quebrado", None)
            c.conditions.pop("inconsciente", None)
            events.append(StatusChanged(_f("{c} is on their feet again.", c.name), c.id, "active"))
        return events
    # "comenzando por el más bajo": the lowest damaged attribute first, sheet order on ties.
    damaged = [k for k in ATTRIBUTES if c.resources[k] < c.maxima[k]]
    if damaged:
        key = min(damaged, key=lambda k: (c.resources[k], ATTRIBUTES.index(k)))
    elif c.resources["heridas"] < c.maxima["heridas"]:
        key = "heridas"
    else:
        return events
    c.resources[key] += 1
    text = (
        _("{c} recovers one die of {key} at the start of the scene ({key} {now}/{max}).")
        if key != "heridas"
        else _("{c} recovers one Herida at the start of the scene ({key} {now}/{max}).")
    )
    events.append(
        Healed(
            text.format(c=c.name, key=key, now=c.resources[key], max=c.maxima[key]),
            c.id,
            1,
            key,
            "",
            c.resources[key],
        )
    )
    return events


def heal_between_scenes(target: Any, between_adventures: bool = False) -> list[Event]:
    """Heal PCs as at the start of a new scene (DJ-20) and return the events.

    ``target`` is a :class:`Combatant`, an iterable of them, or a battle state
    (anything with ``combatants``). Each PC recovers one attribute die (the
    lowest damaged attribute first) or, with no attribute damage, one Herida.
    ``between_adventures`` heals everything and wakes downed PCs. NPCs do not heal.
    """
    if isinstance(target, Combatant):
        group: Iterable[Combatant] = (target,)
    elif hasattr(target, "combatants"):
        group = target.combatants
    else:
        group = target
    events: list[Event] = []
    for c in group:
        events.extend(_heal_one(c, between_adventures))
    return events


def _scene_rest(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    # DJ-20: "recuperan un dado o una Herida al principio de cada escena".
    return heal_between_scenes(party)


#: Between the fights of a day (rules/core/rest.py). DJ-20: damage to attributes and
#: Heridas is what heals; inconsciente and quebrado go with the downed status they
#: describe.
RECOVERY = Recovery(
    {"scene": _scene_rest, "none": no_rest},
    ("heridas", "celeridad", "virilidad", "aguante", "discernimiento"),
)
