"""Recovery between fights in Sistema 2d10, for adventuring days (``escaramuza campaign``).

The seed gives no recovery between fights: it says only that the GDF effects "duran
hasta que el daño es sanado" (S2-15) and that spent Dados Exprés come back "según
criterio del MZ" (S2-05); no rate of healing, no rest. So the default between two
fights of a day is ``none`` (PV, GDF effects and spent Dados Exprés carry as they are),
and ``full`` is the GM's documented house option: all the damage is healed (every PV
back, the GDF effects end with it, a downed but living character stands up), as a
healer or a long pause would do. Dados Exprés are not given back by either.
"""

from __future__ import annotations

from collections.abc import Sequence

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import ConditionEnded, Event, Healed, StatusChanged
from escaramuza.rules.core.i18n import _f
from escaramuza.rules.core.model import Combatant, Status
from escaramuza.rules.core.rest import Recovery, no_rest


def heal_fully(party: Sequence[Combatant]) -> list[Event]:
    """The ``full`` house option: "hasta que el daño es sanado" — heal it all."""
    events: list[Event] = []
    for c in party:
        if c.status is Status.DEAD:
            continue
        lost = c.maxima["pv"] - c.resources["pv"]
        if lost > 0:
            c.resources["pv"] = c.maxima["pv"]
            events.append(
                Healed(
                    _f("{c} is healed: +{lost} PV.", c.name, lost),
                    c.id,
                    lost,
                    "pv",
                    "",
                    c.resources["pv"],
                )
            )
        for name in sorted(c.conditions):
            del c.conditions[name]
            events.append(ConditionEnded(_f("{c} is no longer {name}.", c.name, name), c.id, name))
        if c.status is Status.DOWN:
            c.status = Status.ACTIVE
            events.append(StatusChanged(_f("{c} is on their feet again.", c.name), c.id, "active"))
    return events


def _full_rest(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    return heal_fully(party)


#: Between the fights of a day (rules/core/rest.py). S2-15: GDF effects last "hasta que
#: el daño es sanado"; S2-14's exact-16 stun is for the next turn only and full defence
#: for one turn. Spent Dados Exprés stay spent.
RECOVERY = Recovery(
    {"none": no_rest, "full": _full_rest},
    ("pv", "dados_expres"),
    (),
    lambda condition: condition.name in ("aturdido_16", "defensa_completa"),
)
