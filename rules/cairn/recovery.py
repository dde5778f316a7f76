"""CA-20 *(ext)* Rest between fights, for adventuring days (``escaramuza campaign``).

The combat seed says what lasts: "La pérdida total de DES y VOL deja al personaje
incapaz de actuar hasta que sea restaurada mediante un descanso prolongado" (CA-14),
and a PC in Daño Crítico "Si se le proporciona ayuda (como vendajes), se
estabilizará. Si se deja sin tratamiento, morirá dentro de una hora" (CA-12). How much
a short rest between two fights of the same day gives back is the published game's
*(ext)*: "resting for a few moments and having a drink of water restores lost PI",
but a *privado* (deprived) character cannot recover PI. So, between fights:

* every living PC who is not ``privado`` gets back all its PI (up to its maximum);
* lost FUE, DES and VOL stay lost (only a "descanso prolongado" restores them, and an
  adventuring day has none), and so do the Cicatrices and their conditions
  (``privado``, ``desjarretado``, ``fuera_de_accion``): scars persist;
* a PC in Daño Crítico (``dano_critico``) or with a mortal wound (Cicatrices #11) is
  stabilised when a companion is still on their feet to bandage them (it stays out
  of the day's fights, crawling) and dies within the hour otherwise;
* a PC who cannot act (down: paralizado, delirante, out of action) stays down.
"""

from __future__ import annotations

from collections.abc import Sequence

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import Event, Healed, Note, StatusChanged
from escaramuza.rules.core.i18n import _f
from escaramuza.rules.core.model import Combatant, Status
from escaramuza.rules.core.rest import Recovery, no_rest

#: CA-12: the condition of a PC dying within the hour unless a companion tends it.
CRITICAL = "dano_critico"
#: CA-13 #11 Herida mortal: "dies within the hour unless healed", like Daño Crítico.
MORTAL_WOUND = 11
#: ``Combatant.data`` key where an adventuring day keeps the Cicatrices entries a PC
#: has suffered (their numbers, in order), so scars persist from fight to fight.
SCARS = "scars"


def rest(party: Sequence[Combatant]) -> list[Event]:
    """CA-20 *(ext)*: the rest between two fights of one day (see the module docstring)."""
    events: list[Event] = []
    helpers = any(c.status is Status.ACTIVE for c in party)
    for c in party:
        if c.status is Status.DEAD:
            continue
        dying = c.status is Status.DOWN and (
            CRITICAL in c.conditions or MORTAL_WOUND in c.data.get(SCARS, ())
        )
        if dying and not helpers:
            # CA-12: "Si se deja sin tratamiento, morirá dentro de una hora."
            c.status = Status.DEAD
            events.append(
                StatusChanged(
                    _f("{c} is left untreated and dies within the hour.", c.name), c.id, "dead"
                )
            )
            continue
        if dying:
            events.append(Note(_f("{c} is bandaged and stabilised, but can only crawl.", c.name)))
        if "privado" in c.conditions:
            events.append(Note(_f("{c} is privado and recovers no PI.", c.name)))
            continue
        lost = c.maxima["pi"] - c.resources["pi"]
        if lost > 0:
            c.resources["pi"] = c.maxima["pi"]
            events.append(
                Healed(
                    _f("{c} rests and recovers {lost} PI.", c.name, lost),
                    c.id,
                    lost,
                    "pi",
                    c.id,
                    c.resources["pi"],
                )
            )
    return events


def _rest(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    return rest(party)


#: Between the fights of a day (rules/core/rest.py). CA-14/CA-13: lost attributes and
#: the Cicatrices' conditions persist.
RECOVERY = Recovery({"rest": _rest, "none": no_rest}, ("pi", "fue", "des", "vol"), (SCARS,))
