"""The mechanics every ruleset shares, compiled once for all four kernels.

The engine writes these once, on :class:`~escaramuza.rules.core.ruleset.Ruleset`:
``begin_round`` (the round limit), ``timeout_winner``, ``check_end``, ``finish`` (with
the ruleset's ``on_battle_end``) and ``set_status``; and
``escaramuza.playtest.records.record_from_events`` reads the same things of every
ruleset's events — a ``StatusChanged`` (the first knock-out's round, a death, the wipe)
and a ``Damaged`` (damage dealt, dealt to foes, taken). Here they are written once too,
as templates over the arrays they read and the columns every layout starts with
(``rules.core.dialect.HEAD``), which :func:`compile_mechanics` compiles once for a
ruleset's layouts and its ``on_battle_end``. Beside them, what the temperaments of every
ruleset read of the field (:func:`side_out`, :func:`most_hurt_ally`, :func:`foe_hops`),
and what every read-back view (``rules/<ruleset>/kernel_view.py``) reads first of a
combatant (:func:`view_resources`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from escaramuza.rules.core.dialect import (
    ACTIVE,
    DEAD,
    DEFEATED,
    DOWN,
    DRAW,
    ENEMIES,
    HEROES,
    KIND_NONE,
    NEVER,
    R_DEFEATED,
    R_MUTUAL,
    R_TIMEOUT,
    RUNNING,
)
from escaramuza.rules.core.jit import instantiate, njit
from escaramuza.rules.core.layout import Columns
from escaramuza.rules.core.loops import check_required, record_damage


@njit(cache=True, _nrt=False)
def knocked_out(status: int) -> bool:
    """``records.KNOCKED_OUT``: down, defeated or dead (not active, not fled)."""
    return status == DOWN or status == DEFEATED or status == DEAD


@njit(cache=True, _nrt=False)
def no_battle_end(stat: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    """``Ruleset.on_battle_end`` of a ruleset that does nothing then."""


@njit(cache=True, _nrt=False)
def view_resources(cs: np.ndarray, c: int, columns: np.ndarray, values: np.ndarray) -> None:
    """``values[j]`` <- combatant ``c``'s resource in ``cs`` column ``columns[j]`` (a
    view's ``compiled.view_columns``), as float64: the first values every view's
    ``view_combatant`` writes."""
    for j in range(columns.shape[0]):
        values[j] = np.float64(cs[c, columns[j]])


# -- the templates (plain Python; compile_mechanics compiles them per ruleset) -------------
def heroes_out(stat: np.ndarray, cs: np.ndarray) -> bool:
    """``record_from_events``' wipe test: there are heroes and every one is knocked out."""
    any_hero = False
    for c in range(cs.shape[0]):
        if stat[c, ST.SIDE] == HEROES:
            any_hero = True
            if not knocked_out(cs[c, CS.STATUS]):
                return False
    return any_hero


def set_status(stat: np.ndarray, cs: np.ndarray, g: np.ndarray, c: int, status: int) -> None:
    """``Ruleset.set_status``, and what ``record_from_events`` reads of its
    ``StatusChanged``: the first knock-out's round, a death, the wipe."""
    cs[c, CS.STATUS] = status
    if knocked_out(status) and cs[c, CS.KO_ROUND] == NEVER:
        cs[c, CS.KO_ROUND] = g[G.ROUND]
    if status == DEAD:
        cs[c, CS.DIED] = 1
    if g[G.WIPE] == 0 and heroes_out(stat, cs):
        g[G.WIPE] = 1


def deal(
    stat: np.ndarray,
    cs: np.ndarray,
    g: np.ndarray,
    log: np.ndarray,
    target: int,
    resource: int,
    amount: int,
    source: int,
) -> None:
    """A ``Damaged`` event: ``target`` lost ``amount`` of resource ``resource`` (its index
    in ``Ruleset.resources``) to ``source`` (-1: nobody) — a row of the damage log ``log``,
    and what ``record_from_events`` counts (taken; dealt, and dealt to a foe)."""
    record_damage(log, g, G.DAMAGES, target, resource, amount, source)
    cs[target, CS.TAKEN] += amount
    if source >= 0:
        cs[source, CS.DEALT] += amount
        if stat[source, ST.SIDE] != stat[target, ST.SIDE]:
            cs[source, CS.DEALT_TO_FOES] += amount


def finish(stat: np.ndarray, cs: np.ndarray, g: np.ndarray, winner: int, reason: int) -> None:
    """``Ruleset.finish``: the winner (:data:`DRAW`: nobody) and the reason's code; no
    decision is pending; then the ruleset's ``on_battle_end``."""
    g[G.OUTCOME] = winner
    g[G.REASON] = reason
    g[G.KIND] = KIND_NONE
    on_battle_end(stat, cs, g)


def check_end(stat: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    """``Ruleset.check_end``: a side with nobody left able to fight loses (both: a draw)."""
    if g[G.OUTCOME] != RUNNING:
        return
    heroes = False
    enemies = False
    for c in range(cs.shape[0]):
        if cs[c, CS.STATUS] == ACTIVE:
            if stat[c, ST.SIDE] == HEROES:
                heroes = True
            else:
                enemies = True
    if heroes and enemies:
        return
    if heroes:
        finish(stat, cs, g, HEROES, R_DEFEATED)
    elif enemies:
        finish(stat, cs, g, ENEMIES, R_DEFEATED)
    else:
        finish(stat, cs, g, DRAW, R_MUTUAL)


def side_out(stat: np.ndarray, cs: np.ndarray, c: int) -> tuple[int, int]:
    """What the temperaments read of combatant ``c``'s side ("its side breaks"): how
    many combatants it has, and how many of them are out of the fight (not active)."""
    members = 0
    out = 0
    for a in range(cs.shape[0]):
        if stat[a, ST.SIDE] == stat[c, ST.SIDE]:
            members += 1
            if cs[a, CS.STATUS] != ACTIVE:
                out += 1
    return members, out


def most_hurt_ally(stat: np.ndarray, cs: np.ndarray, c: int, left: int, most: int) -> int:
    """What a protector guards: the active ally of combatant ``c`` (not ``c``) with the
    least fraction ``cs[a, left] / stat[a, most]`` of a resource left (its health), the
    first on ties; -1 if none."""
    ward = -1
    ward_fraction = 0.0
    for a in range(cs.shape[0]):
        if stat[a, ST.SIDE] == stat[c, ST.SIDE] and cs[a, CS.STATUS] == ACTIVE and a != c:
            fraction = cs[a, left] / stat[a, most]
            if ward < 0 or fraction < ward_fraction:
                ward = a
                ward_fraction = fraction
    return ward


def foe_hops(
    stat: np.ndarray, dist: np.ndarray, cs: np.ndarray, c: int, zone: int, reach: int
) -> int:
    """The temperaments' "nearest foe": the fewest hops from ``zone`` to an active foe of
    combatant ``c``, less ``reach`` (never below 0); 0 with no foe standing."""
    best = -1
    for f in range(cs.shape[0]):
        if cs[f, CS.STATUS] == ACTIVE and stat[f, ST.SIDE] != stat[c, ST.SIDE]:
            hops = max(0, dist[zone, cs[f, CS.ZONE]] - reach)
            if best < 0 or hops < best:
                best = hops
    return 0 if best < 0 else best


def begin_round(stat: np.ndarray, opts: np.ndarray, cs: np.ndarray, g: np.ndarray) -> None:
    """``Ruleset.begin_round``: the next round, or past the round limit the end, won as
    ``Ruleset.timeout_winner`` says (a ``survive`` scenario's heroes if one stands)."""
    g[G.ROUND] += 1
    if g[G.ROUND] > opts[OPT.ROUND_LIMIT]:
        g[G.ROUND] = opts[OPT.ROUND_LIMIT]
        winner = DRAW
        if opts[OPT.SURVIVE] == 1:
            for c in range(cs.shape[0]):
                if stat[c, ST.SIDE] == HEROES and cs[c, CS.STATUS] == ACTIVE:
                    winner = HEROES
        finish(stat, cs, g, winner, R_TIMEOUT)


class Mechanics:
    """A ruleset's compiled mechanics (:func:`compile_mechanics`)."""

    def __init__(self, functions: dict[str, Any]) -> None:
        self.set_status = functions["set_status"]
        self.deal = functions["deal"]
        self.finish = functions["finish"]
        self.check_end = functions["check_end"]
        self.begin_round = functions["begin_round"]
        self.side_out = functions["side_out"]
        self.most_hurt_ally = functions["most_hurt_ally"]
        self.foe_hops = functions["foe_hops"]


def compile_mechanics(
    owner: str,
    *,
    ST: type[Columns],
    CS: type[Columns],
    G: type[Columns],
    OPT: type[Columns],
    on_battle_end: Callable[..., Any] = no_battle_end,
) -> Mechanics:
    """The shared mechanics compiled for one ruleset (module ``owner``): over its layouts
    and its ``on_battle_end(stat, cs, g)`` (a compiled function; default: nothing)."""
    bound: dict[str, Any] = {"ST": ST, "CS": CS, "G": G, "OPT": OPT}
    check_required(owner, bound)
    bound["on_battle_end"] = on_battle_end
    for template in (
        heroes_out,
        set_status,
        deal,
        finish,
        check_end,
        begin_round,
        side_out,
        most_hurt_ally,
        foe_hops,
    ):
        bound[template.__name__] = instantiate(template, owner, bound, cache=True, _nrt=False)
    return Mechanics(bound)


# Names the templates read from the ruleset (bound by compile_mechanics); here so that the
# plain templates resolve for tools and fail clearly if called uncompiled.
def _unbound(*_: Any) -> Any:
    raise TypeError("a mechanics template runs only as compiled by compile_mechanics")


on_battle_end = _unbound
ST: Any = None
CS: Any = None
G: Any = None
OPT: Any = None
