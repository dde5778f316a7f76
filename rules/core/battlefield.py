"""The battlefield: a networkx graph of zones whose edges are one movement action.

All-pairs hop distances are computed once, when the battlefield is built; the
battle loop reads them from a tuple table and never calls networkx
(architecture.md, "Battlefield").
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import networkx as nx

from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f

T = TypeVar("T")

#: Distance reported between zones that are not connected (never happens on a valid map).
UNREACHABLE = 10**6


class BattlefieldError(EscaramuzaError):
    """A battlefield that cannot be used (disconnected, unknown zone…)."""


@dataclass(frozen=True, slots=True)
class Zone:
    """One zone of the map with its attributes.

    ``cover`` is a level (0 none, 1 light, 2 heavy) a ruleset may use;
    ``exit`` marks a safe way out (Cairn's retreat, CA-17); ``difficult`` and
    ``elevation`` are recorded for rulesets and renderers that use them.
    """

    id: str
    name: str
    cover: int = 0
    exit: bool = False
    difficult: bool = False
    elevation: int = 0
    attrs: Mapping[str, Any] = field(default_factory=dict)


class Battlefield:
    """Immutable map of zones. Shared, never copied, by every clone of a battle state."""

    __slots__ = ("graph", "zones", "zone_ids", "index", "_dist", "_neighbours", "_derived")

    def __init__(self, zones: Iterable[Zone], links: Iterable[tuple[str, str, Mapping[str, Any]]]):
        graph: nx.Graph = nx.Graph()
        zone_list = list(zones)
        if not zone_list:
            raise BattlefieldError(_("the battlefield has no zones"))
        for zone in zone_list:
            if zone.id in graph:
                raise BattlefieldError(_f("zone {zone} is defined twice", repr(zone.id)))
            graph.add_node(zone.id, zone=zone)
        for a, b, attrs in links:
            for end in (a, b):
                if end not in graph:
                    raise BattlefieldError(
                        _f("link {a}–{b} names unknown zone {zone}", repr(a), repr(b), repr(end))
                    )
            if a == b:
                raise BattlefieldError(_f("link {a}–{b} joins a zone to itself", repr(a), repr(b)))
            graph.add_edge(a, b, **dict(attrs))
        if not nx.is_connected(graph):
            parts = sorted(sorted(c) for c in nx.connected_components(graph))
            raise BattlefieldError(
                _f(
                    "the map is disconnected: {parts} (every zone must be reachable)",
                    " | ".join(", ".join(p) for p in parts),
                )
            )
        self.graph = graph
        self.zones: dict[str, Zone] = {z.id: z for z in zone_list}
        self.zone_ids: tuple[str, ...] = tuple(z.id for z in zone_list)
        self.index: dict[str, int] = {zid: i for i, zid in enumerate(self.zone_ids)}
        lengths = dict(nx.all_pairs_shortest_path_length(graph))
        self._dist: dict[str, dict[str, int]] = {
            a: {b: lengths[a].get(b, UNREACHABLE) for b in self.zone_ids} for a in self.zone_ids
        }
        self._neighbours: dict[str, tuple[str, ...]] = {
            zid: tuple(sorted(graph.neighbors(zid), key=self.index.__getitem__))
            for zid in self.zone_ids
        }
        self._derived: dict[Hashable, Any] = {}

    def derived(self, key: Hashable, build: Callable[[Battlefield], T]) -> T:
        """What a ruleset derives from this map alone, built on first use and kept here.

        A Battlefield never changes after construction, so a table computed from it
        (bands by zone pair, movement options, …) stays valid as long as the map lives,
        and goes with it; ``key`` names the table (prefix it with the ruleset id).
        """
        found = self._derived.get(key)
        if found is None:
            found = self._derived[key] = build(self)
        return found

    def distance(self, a: str, b: str) -> int:
        """Hop distance between two zones (0 for the same zone)."""
        return self._dist[a][b]

    def distances_from(self, zone: str) -> Mapping[str, int]:
        """Hop distance from ``zone`` to every zone: the cached table's row (read-only).

        For loops that measure many zones from one place (a ruleset listing targets):
        one lookup of the row, then one per zone, instead of two per :meth:`distance`.
        """
        return self._dist[zone]

    def neighbours(self, zone: str) -> tuple[str, ...]:
        """Zones one movement action away, in map order (deterministic)."""
        return self._neighbours[zone]

    def zone(self, zone_id: str) -> Zone:
        try:
            return self.zones[zone_id]
        except KeyError:
            raise BattlefieldError(f"unknown zone {zone_id!r}") from None

    def require(self, zone_id: str) -> None:
        if zone_id not in self.zones:
            raise BattlefieldError(
                _f("unknown zone {zone} (zones: {known})", repr(zone_id), ", ".join(self.zone_ids))
            )

    def exits(self) -> tuple[str, ...]:
        return tuple(z for z in self.zone_ids if self.zones[z].exit)

    def step_towards(self, start: str, goal: str) -> str:
        """The neighbour of ``start`` on a shortest path to ``goal`` (first in map order)."""
        if start == goal:
            return start
        here = self._dist[start][goal]
        for n in self._neighbours[start]:
            if self._dist[n][goal] < here:
                return n
        return start

    def __len__(self) -> int:
        return len(self.zone_ids)

    def __repr__(self) -> str:
        return f"Battlefield({len(self.zone_ids)} zones, {self.graph.number_of_edges()} links)"
