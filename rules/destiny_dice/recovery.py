"""Rests between battles (DD-17), for multi-battle playtests and campaigns."""

from __future__ import annotations

from collections.abc import Sequence

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import ConditionEnded, Event, Healed, ResourceChanged
from escaramuza.rules.core.i18n import N_, _f
from escaramuza.rules.core.model import Combatant, Status
from escaramuza.rules.core.rest import Recovery, no_rest

ENERGY_POOLS = ("pc", "pm", "pa")


def short_rest(c: Combatant, roller: Roller) -> list[Event]:
    """Descanso Corto: "Recuperas 1d4 Puntos de Vida (PV) y ADEMÁS recuperas 1 punto de
    Energía en cada característica (1 EC, 1 EM y 1 EA)." Capped at the maxima."""
    face = roller.roll(4, N_("short rest"))
    before = c.resources["pv"]
    c.resources["pv"] = min(before + face, c.maxima["pv"])
    events: list[Event] = [
        Healed(
            _f(
                "{c} takes a short rest: 1d4 = {face}, {before} → {pv} PV.",
                c.name,
                face,
                before,
                c.resources["pv"],
            ),
            c.id,
            c.resources["pv"] - before,
            "pv",
            c.id,
            c.resources["pv"],
        )
    ]
    events.extend(_energy(c, lambda value, cap: min(value + 1, cap)))
    if c.status is not Status.ACTIVE and c.resources["pv"] > 0 and c.status is Status.DOWN:
        c.status = Status.ACTIVE
    return events


def long_rest(c: Combatant) -> list[Event]:
    """Descanso Largo: "Recuperas todos los PV. Recuperas toda tu Energía"; persistent
    states last "hasta ... completar un Descanso Largo"."""
    before = c.resources["pv"]
    c.resources["pv"] = c.maxima["pv"]
    events: list[Event] = [
        Healed(
            _f("{c} takes a long rest: {before} → {pv} PV.", c.name, before, c.resources["pv"]),
            c.id,
            c.resources["pv"] - before,
            "pv",
            c.id,
            c.resources["pv"],
        )
    ]
    events.extend(_energy(c, lambda value, cap: cap))
    for name in sorted(c.conditions):
        del c.conditions[name]
        events.append(ConditionEnded(_f("{c} is no longer {name}.", c.name, name), c.id, name))
    if c.status is Status.DOWN:
        c.status = Status.ACTIVE
    return events


def _energy(c: Combatant, rule: object) -> list[Event]:
    events: list[Event] = []
    for pool in ENERGY_POOLS:
        before = c.resources[pool]
        c.resources[pool] = rule(before, c.maxima[pool])  # type: ignore[operator]
        events.append(
            ResourceChanged(
                _f(
                    "{c} recovers {gained} {pool} ({now}).",
                    c.name,
                    c.resources[pool] - before,
                    pool.upper(),
                    c.resources[pool],
                ),
                c.id,
                pool,
                c.resources[pool] - before,
                c.resources[pool],
            )
        )
    return events


def _short_rests(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    # DD-17 Descanso Corto for every living hero (the dead do not rest).
    return [e for c in party if c.status is not Status.DEAD for e in short_rest(c, roller)]


def _long_rests(party: Sequence[Combatant], roller: Roller) -> list[Event]:
    return [e for c in party if c.status is not Status.DEAD for e in long_rest(c)]


#: Between the fights of a day (rules/core/rest.py). DD-19: temporal states last "until
#: the start of the bearer's next turn"; persistent ones until cured or a long rest.
#: Potions' uses are the sheet's counters.
RECOVERY = Recovery(
    {"short": _short_rests, "long": _long_rests, "none": no_rest},
    ("pv", "pc", "pm", "pa"),
    ("uses:",),
    lambda condition: not condition.persistent,
)
