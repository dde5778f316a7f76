"""Battlefield: hop distances, cached tables, deterministic steps, rejected maps."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest

from escaramuza.rules.core.battlefield import Battlefield, BattlefieldError, Zone
from escaramuza.rules.core.errors import EscaramuzaError


def make(zones: str, links: list[tuple[str, str]]) -> Battlefield:
    return Battlefield([Zone(z, z.upper()) for z in zones.split()], [(a, b, {}) for a, b in links])


CHAIN = ("a b c d", [("a", "b"), ("b", "c"), ("c", "d")])
# A diamond (two equal ways from a to d) plus a tail: d — e.
DIAMOND = ("a b c d e", [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("d", "e")])
STAR = ("hub n s e w", [("hub", "n"), ("hub", "s"), ("hub", "e"), ("hub", "w")])


def bfs_distance(links: list[tuple[str, str]], a: str, b: str) -> int:
    """Independent breadth-first search, to check the cached table against."""
    frontier, seen, hops = {a}, {a}, 0
    while b not in frontier:
        frontier = {y for x in frontier for p in links for y in p if x in p and y not in seen}
        seen |= frontier
        hops += 1
    return hops


@pytest.mark.parametrize(
    ("layout", "a", "b", "hops"),
    [
        (CHAIN, "a", "a", 0),
        (CHAIN, "a", "b", 1),
        (CHAIN, "a", "c", 2),
        (CHAIN, "a", "d", 3),
        (CHAIN, "d", "a", 3),
        (DIAMOND, "a", "d", 2),
        (DIAMOND, "b", "c", 2),
        (DIAMOND, "a", "e", 3),
        (STAR, "n", "s", 2),
        (STAR, "hub", "w", 1),
    ],
)
def test_battlefield_hop_distance(
    layout: tuple[str, list[tuple[str, str]]], a: str, b: str, hops: int
) -> None:
    assert make(*layout).distance(a, b) == hops


@pytest.mark.parametrize("layout", [CHAIN, DIAMOND, STAR])
def test_battlefield_distance_table_matches_bfs_and_is_symmetric(
    layout: tuple[str, list[tuple[str, str]]],
) -> None:
    bf = make(*layout)
    for a, b in itertools.product(bf.zone_ids, repeat=2):
        assert bf.distance(a, b) == bf.distance(b, a) == bfs_distance(layout[1], a, b)


@pytest.mark.parametrize("layout", [CHAIN, DIAMOND, STAR])
def test_battlefield_distances_from_is_the_row_of_every_zone(
    layout: tuple[str, list[tuple[str, str]]],
) -> None:
    bf = make(*layout)
    for a in bf.zone_ids:
        assert dict(bf.distances_from(a)) == {b: bfs_distance(layout[1], a, b) for b in bf.zone_ids}


@pytest.mark.parametrize(
    ("layout", "zone", "neighbours"),
    [
        (CHAIN, "a", ("b",)),
        (CHAIN, "b", ("a", "c")),
        (DIAMOND, "d", ("b", "c", "e")),
        (STAR, "hub", ("n", "s", "e", "w")),
    ],
)
def test_battlefield_neighbours_in_map_order(
    layout: tuple[str, list[tuple[str, str]]], zone: str, neighbours: tuple[str, ...]
) -> None:
    assert make(*layout).neighbours(zone) == neighbours


@pytest.mark.parametrize(
    ("layout", "start", "goal", "step"),
    [
        (CHAIN, "a", "d", "b"),
        (CHAIN, "d", "a", "c"),
        (CHAIN, "b", "b", "b"),
        # Two shortest ways: the first neighbour in map order is taken, every time.
        (DIAMOND, "a", "d", "b"),
        (DIAMOND, "e", "a", "d"),
        (DIAMOND, "d", "a", "b"),
        (STAR, "n", "w", "hub"),
    ],
)
def test_battlefield_step_towards_is_on_a_shortest_path(
    layout: tuple[str, list[tuple[str, str]]], start: str, goal: str, step: str
) -> None:
    bf = make(*layout)
    assert bf.step_towards(start, goal) == step
    if start != goal:
        assert bf.distance(step, goal) == bf.distance(start, goal) - 1


def test_battlefield_queries_never_call_networkx(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    real = nx.all_pairs_shortest_path_length

    def counting(graph: nx.Graph) -> object:
        calls["n"] += 1
        return real(graph)

    monkeypatch.setattr(nx, "all_pairs_shortest_path_length", counting)
    bf = make(*DIAMOND)
    assert calls["n"] == 1  # computed once, when the map is built

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("networkx called in the hot loop")

    for name in (
        "all_pairs_shortest_path_length",
        "shortest_path_length",
        "shortest_path",
        "has_path",
        "neighbors",
    ):
        monkeypatch.setattr(nx, name, forbidden)
    monkeypatch.setattr(nx.Graph, "neighbors", forbidden)
    for a, b in itertools.product(bf.zone_ids, repeat=2):
        bf.distance(a, b)
        bf.step_towards(a, b)
    for z in bf.zone_ids:
        bf.neighbours(z)


def test_battlefield_distances_are_cached_not_recomputed_from_the_graph() -> None:
    bf = make(*CHAIN)
    bf.graph.add_edge("a", "d")  # nobody should do this; it proves the table is a cache
    assert bf.distance("a", "d") == 3


def test_battlefield_zone_attributes_and_exits() -> None:
    bf = Battlefield(
        [
            Zone("hall", "Hall", cover=1),
            Zone("door", "Door", exit=True, difficult=True),
            Zone("roof", "Roof", elevation=2, cover=2),
        ],
        [("hall", "door", {"difficult": True}), ("hall", "roof", {})],
    )
    assert bf.zone("door").exit and bf.zone("door").difficult
    assert bf.zone("roof").cover == 2 and bf.zone("roof").elevation == 2
    assert bf.exits() == ("door",)
    assert bf.graph.edges["hall", "door"]["difficult"] is True
    assert len(bf) == 3 and bf.index == {"hall": 0, "door": 1, "roof": 2}
    assert "3 zones, 2 links" in repr(bf)


@pytest.mark.parametrize(
    ("zones", "links", "message"),
    [
        ("a b c", [("a", "b")], "disconnected: a, b | c"),
        ("a b c d", [("a", "b"), ("c", "d")], "disconnected: a, b | c, d"),
        ("a b", [("a", "x")], "unknown zone 'x'"),
        ("a b", [("y", "b")], "unknown zone 'y'"),
        ("a b", [("a", "a"), ("a", "b")], "joins a zone to itself"),
        ("a a", [], "defined twice"),
        ("", [], "no zones"),
    ],
)
def test_battlefield_rejects_bad_maps(
    zones: str, links: list[tuple[str, str]], message: str
) -> None:
    with pytest.raises(BattlefieldError, match=message):
        make(zones, links)


def test_battlefield_single_zone_is_fine() -> None:
    bf = make("arena", [])
    assert bf.distance("arena", "arena") == 0 and bf.neighbours("arena") == ()


def test_battlefield_unknown_zone_lookups() -> None:
    bf = make(*CHAIN)
    with pytest.raises(BattlefieldError, match="unknown zone 'z'"):
        bf.zone("z")
    with pytest.raises(BattlefieldError, match=r"unknown zone 'z' \(zones: a, b, c, d\)"):
        bf.require("z")
    bf.require("a")
    assert issubclass(BattlefieldError, EscaramuzaError)


def test_battlefield_derived_tables_are_built_once_per_map_and_key() -> None:
    builds: list[tuple[int, str]] = []

    def n_zones(bf: Battlefield) -> int:
        builds.append((id(bf), "n"))
        return len(bf.zone_ids)

    def n_links(bf: Battlefield) -> int:
        builds.append((id(bf), "links"))
        return bf.graph.number_of_edges()

    small = make("a b c", [("a", "b"), ("b", "c")])
    large = make("a b c d", [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")])
    assert [small.derived("t.n", n_zones) for _ in range(3)] == [3, 3, 3]
    assert large.derived("t.n", n_zones) == 4
    assert small.derived("t.links", n_links) == 2
    assert large.derived("t.links", n_links) == 4
    # One build per (map, key), whatever the number of calls.
    assert sorted(builds) == sorted(
        [(id(small), "n"), (id(large), "n"), (id(small), "links"), (id(large), "links")]
    )
