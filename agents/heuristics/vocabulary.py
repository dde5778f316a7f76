"""The temperaments' vocabulary: the small helpers every ruleset's scripted play is written with.

A ruleset's temperaments exist twice, over the engine's objects
(``agents/heuristics/<ruleset>.py``, the specification) and compiled over arrays
(``<ruleset>_kernel.py``); both are written with the same helpers under the same names, so
that they read line for line. The helpers every ruleset shares are here, over the engine's
objects; :func:`foe_hops`, :func:`side_out` and :func:`most_hurt_ally` have compiled
namesakes over the arrays in :mod:`escaramuza.rules.core.mechanics`, :func:`first_of`
and :func:`first_on` in :mod:`escaramuza.agents.heuristics.vocabulary_kernel`,
:func:`nearest_foe` in the kernel reading it, while :func:`best_by` and
:func:`best_move` take a key function, which a kernel writes as its own loop (its
``best_attack``, and its ``best_move`` over its compiled ``move_key``). Each ruleset writes
the notions it reads its own way (``hurt``, ``side_broken``, ``best_attack``,
``best_move``, ``move_key``, ``end_turn``) under these names in both of its files
(docs/fast-path.md, "Adding a ruleset's kernel: what to write, what is shared").

Conventions of both sides: a helper that picks an action returns it, or None — the
compiled one its row, or -1; ties keep the first action, as ``max`` and ``min`` do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from escaramuza.rules.core.model import Action, Combatant, Status
from escaramuza.rules.core.state import BattleState

#: The legal actions of a decision by verb, in their order (the compiled side's ``la, n``
#: and a verb's code).
ByVerb = dict[str, list[Action]]


def by_verb(actions: Iterable[Action]) -> ByVerb:
    """The legal actions grouped by verb, each group in the legal list's order."""
    out: ByVerb = {}
    for a in actions:
        out.setdefault(a.verb, []).append(a)
    return out


def of_verb(actions: Iterable[Action], verb: str) -> list[Action]:
    """The legal actions of ``verb``, in their order."""
    return [a for a in actions if a.verb == verb]


def first_of(actions: Iterable[Action], verb: str) -> Action | None:
    """The first legal action of ``verb``, or None (compiled:
    ``heuristics.vocabulary_kernel.first_of``)."""
    return next((a for a in actions if a.verb == verb), None)


def first_on(actions: Iterable[Action], verb: str, target: Combatant) -> Action | None:
    """The first legal action of ``verb`` on ``target`` (a step towards or away from it, a
    heal of it), or None (compiled: ``heuristics.vocabulary_kernel.first_on``)."""
    return next((a for a in actions if a.verb == verb and a.target == target.id), None)


def foes(state: BattleState, c: Combatant) -> list[Combatant]:
    """The active combatants of the other side, in the scenario's order."""
    active = Status.ACTIVE
    return [f for f in state.combatants if f.side is not c.side and f.status is active]


def foe_hops(state: BattleState, c: Combatant, zone: str, reach: int = 0) -> int:
    """The fewest hops from ``zone`` to an active foe of ``c``, less ``reach`` (never below
    0); 0 with no foe standing (compiled: ``mechanics.foe_hops``)."""
    hops = state.battlefield.distances_from(zone)
    return min((max(0, hops[f.zone] - reach) for f in foes(state, c)), default=0)


def nearest_foe(state: BattleState, c: Combatant) -> Combatant | None:
    """The active foe fewest hops from ``c``, the first in table order (``index``) on ties;
    None with none standing."""
    hops = state.battlefield.distances_from(c.zone)
    best: Combatant | None = None
    best_key = (0, 0)
    for f in foes(state, c):
        key = (hops[f.zone], f.index)
        if best is None or key < best_key:
            best, best_key = f, key
    return best


def side_out(state: BattleState, c: Combatant) -> tuple[int, int]:
    """How many combatants ``c``'s side has, and how many of them are out of the fight (not
    active): what "its side breaks" reads (compiled: ``mechanics.side_out``)."""
    members = out = 0
    for a in state.combatants:
        if a.side is c.side:
            members += 1
            out += a.status is not Status.ACTIVE
    return members, out


def most_hurt_ally(state: BattleState, c: Combatant, resource: str) -> Combatant | None:
    """The active ally of ``c`` (not ``c``) with the least fraction of ``resource`` left, the
    first on ties; None if it has none (compiled: ``mechanics.most_hurt_ally``)."""
    ward: Combatant | None = None
    ward_fraction = 0.0
    for a in state.combatants:
        if a.side is c.side and a.status is Status.ACTIVE and a is not c:
            fraction = a.resources[resource] / a.maxima[resource]
            if ward is None or fraction < ward_fraction:
                ward, ward_fraction = a, fraction
    return ward


def best_by(actions: Iterable[Action], key: Callable[[Action], Any]) -> Action | None:
    """The action with the highest ``key``, the first on ties; None if there is none."""
    best: Action | None = None
    best_key: Any = None
    for a in actions:
        k = key(a)
        if best is None or k > best_key:
            best, best_key = a, k
    return best


def best_move(
    c: Combatant, moves: Iterable[Action], key: Callable[[str], tuple[Any, ...]]
) -> Action | None:
    """The move whose zone has the highest ``key``, the first on ties, if it beats staying
    where ``c`` stands; None otherwise (each zone's key computed once)."""
    best: Action | None = None
    best_key: tuple[Any, ...] = ()
    for move in moves:
        k = key(str(move.zone))
        if best is None or k > best_key:
            best, best_key = move, k
    return best if best is not None and best_key > key(c.zone) else None
