"""The legal list: the pending decision's legal actions, one row each, in the engine's order.

Every kernel's ``legal`` writes it, its ``apply`` and temperaments read it, and the
planner and the batched env hand its rows back as actions. A row is an engine
:class:`~escaramuza.rules.core.model.Action`'s fields as codes, in one layout
(:class:`LA`) for all four rulesets, so that ``la[i, LA.ITEM]`` is an attack's weapon in
each of them (docs/fast-path.md, "One dialect").
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import numpy as np

from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.kernel import BOUND, KernelRefusal
from escaramuza.rules.core.layout import Columns


class LA(Columns):
    """``la[i, LA.*]``: an engine ``Action``'s fields as codes, -1 where it has none."""

    VERB = (0, "verbs", "its verb, by its place in the ruleset's VERBS")
    TARGET = (-1, "combatants", "its target combatant")
    ZONE = (-1, "zones", "its zone")
    ITEM = (-1, BOUND, "its item (a weapon, a heal…), by its place on the actor's sheet")
    OPTION = (-1, BOUND, "its option, by its place in the ruleset's list of them")


#: The width of a legal-list row.
ACTION_WIDTH = LA.width()


@njit(cache=True, _nrt=False, inline="always")
def push(la: np.ndarray, n: int, verb: int, target: int, zone: int, item: int, option: int) -> int:
    """Row ``n`` of the legal list becomes the action ``(verb, target, zone, item,
    option)``; returns the next row's index."""
    la[n, LA.VERB] = verb
    la[n, LA.TARGET] = target
    la[n, LA.ZONE] = zone
    la[n, LA.ITEM] = item
    la[n, LA.OPTION] = option
    return n + 1


@njit(cache=True, _nrt=False)
def first_row(rows: np.ndarray, n: int, column: int, value: int) -> int:
    """The first of the ``n`` rows of ``rows`` whose ``column`` holds ``value`` — a
    temperament's first legal action of a verb — or -1 if none."""
    for i in range(n):
        if rows[i, column] == value:
            return i
    return -1


def action_row(
    action: object,
    verb: int,
    target: int,
    zone: int = -1,
    item: int = -1,
    option: int = -1,
    needs: Mapping[str, Collection[int]] | None = None,
) -> list[int]:
    """The legal-list row of an engine ``action`` from its fields' codes.

    ``needs`` names, per field (``"target"``, ``"zone"``, ``"item"``, ``"option"``), the
    verbs whose ``apply`` reads it: an action of such a verb without it is refused, since
    compiled code would read index -1, the last row, without a bounds check."""
    row = [verb, target, zone, item, option]
    for field, verbs in (needs or {}).items():
        if verb in verbs and row[LA[field.upper()]] < 0:
            raise KernelRefusal(f"{action} lacks the {field} its verb needs")
    return row
