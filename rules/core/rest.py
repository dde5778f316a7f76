"""What happens to the heroes between two fights of one adventuring day.

``escaramuza campaign`` plays encounters one after another with the same heroes; this
module says, per ruleset, what carries from one fight to the next and what each rest
gives back. Each rest is the ruleset's own rule (cited where it is implemented):

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import Event
from escaramuza.rules.core.model import Combatant, Condition

#: A rest applied to the whole party (every hero of the day, the fallen included).
Rest = Callable[[Sequence[Combatant], Roller], list[Event]]


def _none(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    return []


def _dd_short(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    from escaramuza.rules.core.model import Status
    from escaramuza.rules.destiny_dice.recovery import short_rest

    # DD-17 Descanso Corto for every living hero (the dead do not rest).
    return [e for c in party if c.status is not Status.DEAD for e in short_rest(c, roller)]


def _dd_long(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    from escaramuza.rules.core.model import Status
    from escaramuza.rules.destiny_dice.recovery import long_rest

    return [e for c in party if c.status is not Status.DEAD for e in long_rest(c)]


def _dj_scene(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    from escaramuza.rules.donjon.recovery import heal_between_scenes

    # DJ-20: "recuperan un dado o una Herida al principio de cada escena".
    return heal_between_scenes(party)


def _ca_rest(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    from escaramuza.rules.cairn.recovery import rest

    return rest(party)


def _s2_full(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    from escaramuza.rules.sistema_2d10.recovery import heal_fully

    return heal_fully(party)


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


RECOVERY: dict[str, Recovery] = {
    # DD-19: temporal states last "until the start of the bearer's next turn"; persistent
    # ones until cured or a long rest. Potions' uses are the sheet's counters.
    "destiny_dice": Recovery(
        {"short": _dd_short, "long": _dd_long, "none": _none},
        ("pv", "pc", "pm", "pa"),
        ("uses:",),
        lambda condition: not condition.persistent,
    ),
    # DJ-20: damage to attributes and Heridas is what heals; inconsciente and quebrado
    # go with the downed status they describe.
    "donjon": Recovery(
        {"scene": _dj_scene, "none": _none},
        ("heridas", "celeridad", "virilidad", "aguante", "discernimiento"),
    ),
    # CA-14/CA-13: lost attributes and the Cicatrices' conditions persist.
    "cairn": Recovery({"rest": _ca_rest, "none": _none}, ("pi", "fue", "des", "vol"), ("scars",)),
    # S2-15: GDF effects last "hasta que el daño es sanado"; S2-14's exact-16 stun is for
    # the next turn only and full defence for one turn. Spent Dados Exprés stay spent.
    "sistema_2d10": Recovery(
        {"none": _none, "full": _s2_full},
        ("pv", "dados_expres"),
        (),
        lambda condition: condition.name in ("aturdido_16", "defensa_completa"),
    ),
}


def rests(ruleset_id: str) -> tuple[str, ...]:
    """The rests a ruleset knows, the default first."""
    return tuple(RECOVERY[ruleset_id].rests)


def rest(ruleset_id: str, kind: str, party: Sequence[Combatant], roller: Roller) -> list[Event]:
    """Apply rest ``kind`` of ``ruleset_id`` to the whole party; return its events."""
    return RECOVERY[ruleset_id].rests[kind](party, roller)


def carry(ruleset_id: str, fresh: Combatant, previous: Combatant) -> Combatant:
    """``fresh`` (a hero as the next encounter places it) with what ``previous`` (the same
    hero after the last fight and rest) carries: resources, lasting conditions, status
    and the sheet's counters. ``fresh`` is changed in place and returned."""
    spec = RECOVERY[ruleset_id]
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
