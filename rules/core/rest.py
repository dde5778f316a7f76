"""What happens to the heroes between two fights of one adventuring day.

``escaramuza campaign`` plays encounters one after another with the same heroes. Each
ruleset declares what carries from one fight to the next and what each rest gives back
(a :class:`Recovery`, ``RECOVERY`` in the module its ``Ruleset.recovery`` names, its
``recovery.py``); this module applies them. Each rest is the ruleset's own rule (cited
where it is implemented):

* Destiny Dice — ``short`` *(default)*: DD-17 Descanso Corto (+1d4 PV, +1 EC, EM, EA);
  ``long``: DD-17 Descanso Largo; ``none``.
* Donjon — ``scene`` *(default)*: DJ-20, one attribute die or one Herida at the start of
  each scene; ``none``.
* Cairn — ``rest`` *(default)*: CA-20 *(ext)*, PI back, attributes and scars stay;
  ``none``.
* Sistema 2d10 — ``none`` *(default: the seed has no recovery between fights)*;
  ``full``: the GM's house option, every PV and every GDF effect healed.

What carries (:func:`carry`): the resources the rules let a character lose for longer
than a fight, the conditions that outlast a fight, the status (the dead stay dead) and
the sheet's own counters (a Destiny Dice potion's uses). Per-fight bookkeeping (a
Sistema 2d10 turn's actions, Donjon's initiative dice, a Destiny Dice ally's help)
starts fresh, as in any new fight.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import Event
from escaramuza.rules.core.model import Combatant, Condition

#: A rest applied to the whole party (every hero of the day, the fallen included).
Rest = Callable[[Sequence[Combatant], Roller], list[Event]]


def no_rest(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    """The ``none`` rest every ruleset offers: nothing is given back."""
    return []


@dataclass(frozen=True, slots=True)
class Recovery:
    """One ruleset's between-fights rules."""

    #: Rests by name; the first is the default.
    rests: dict[str, Rest]
    #: Resources that carry from fight to fight (the others start as the sheet says).
    resources: tuple[str, ...]
    #: Prefixes of ``Combatant.data`` keys that carry (the sheet's own counters).
    data: tuple[str, ...] = ()
    #: Whether a condition ends with the fight (it lasts rounds or one turn).
    fight_only: Callable[[Condition], bool] = lambda condition: False


def recovery(ruleset_id: str) -> Recovery:
    """``ruleset_id``'s between-fights rules: the ``RECOVERY`` of the module its
    ``Ruleset.recovery`` names, imported on first use. KeyError for a ruleset without
    one (day files and ``campaign`` refuse it)."""
    from escaramuza.rules import get_ruleset

    module = get_ruleset(ruleset_id).recovery
    if module is None:
        raise KeyError(ruleset_id)
    spec: Recovery = importlib.import_module(module).RECOVERY
    return spec


def rests(ruleset_id: str) -> tuple[str, ...]:
    """The rests a ruleset knows, the default first."""
    return tuple(recovery(ruleset_id).rests)


def rest(ruleset_id: str, kind: str, party: Sequence[Combatant], roller: Roller) -> list[Event]:
    """Apply rest ``kind`` of ``ruleset_id`` to the whole party; return its events."""
    return recovery(ruleset_id).rests[kind](party, roller)


def carry(ruleset_id: str, fresh: Combatant, previous: Combatant) -> Combatant:
    """``fresh`` (a hero as the next encounter places it) with what ``previous`` (the same
    hero after the last fight and rest) carries: resources, lasting conditions, status
    and the sheet's counters. ``fresh`` is changed in place and returned."""
    spec = recovery(ruleset_id)
    for key in spec.resources:
        fresh.resources[key] = previous.resources[key]
    fresh.conditions = {
        name: c for name, c in previous.conditions.items() if not spec.fight_only(c)
    }
    fresh.status = previous.status
    for key, value in previous.data.items():
        if key.startswith(spec.data):
            fresh.data[key] = value
    return fresh
