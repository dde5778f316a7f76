"""numba's variable liveness at the cost of one pass over the control flow, not of many.

numba computes which variables are alive at the entry of each block
(``numba.core.analysis.compute_live_map``) every time it places or strips the IR's
``del`` statements: several times per compiled function, after typing, before lowering,
around its rewrites. Its first step, the variables defined or used in any block that
reaches a block, it finds by sweeping every block's set into its successors until
nothing grows: as shipped (0.68) about seven sweeps of a kernel's battle loop, whose
sets hold thousands of names over hundreds of blocks — 1.9 s of the 16 CPU seconds of a
first Destiny Dice battle.

:func:`install` finds the same sets in one sweep: the blocks in topological order of
their strongly connected components (a loop's blocks reach one another, so they share
one set), each component taking its own blocks' names and its predecessors' finished
sets. The sets are the ones numba's sweeps end with — the least sets closed under those
unions —, and the rest of ``compute_live_map`` is numba's: the same maps, so the same
``del`` statements and machine code (a set's order is Python's, and string hashes vary
between processes for numba's sets too). numba's analysis functions
are module functions, so this holds for every function compiled in the process once a
kernel module is imported. A numba whose analysis is not the one this was written for
is left alone (:data:`TESTED`). ``docs/decisions/0016-kernel-compile-time.md`` has the
measurement.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

#: The numba versions (major, minor) whose ``compute_live_map`` this module matches.
TESTED = ((0, 60), (0, 68))
#: Set on numba's analysis module once installed.
_INSTALLED = "_escaramuza_liveness"
#: numba's own ``compute_live_map``, once :func:`install` has replaced it.
UPSTREAM: Any = None


def components(cfg: Any) -> list[list[int]]:
    """The strongly connected components of the blocks reachable from ``cfg``'s entry (a
    numba ``CFGraph``), in topological order (Tarjan's algorithm, without recursion)."""
    order = cfg.topo_order()
    reachable = set(order)
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()
    found: list[list[int]] = []
    for root in order:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter([n for n, _ in cfg.successors(root) if n in reachable]))]
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter([n for n, _ in cfg.successors(nxt) if n in reachable])))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    found.append(component)
    # Tarjan finds a component after every component it reaches.
    found.reverse()
    return found


def reaching(cfg: Any, var_use_map: Any, var_def_map: Any) -> defaultdict[int, set[str]]:
    """For each block reachable from the entry, the variables defined or used in a block
    that reaches it (itself included): numba's ``def_reach`` fixed point."""
    out: defaultdict[int, set[str]] = defaultdict(set)
    for component in components(cfg):
        members = set(component)
        names: set[str] = set()
        for block in component:
            names |= var_def_map[block]
            names |= var_use_map[block]
            for pred, _ in cfg.predecessors(block):
                if pred not in members and pred in out:
                    names |= out[pred]
        for block in component:
            out[block] = names
    return out


def compute_live_map(
    cfg: Any, blocks: Any, var_use_map: Any, var_def_map: Any
) -> dict[int, set[str]]:
    """numba's ``compute_live_map`` (the variables alive at the entry of each block) with
    its reaching definitions from :func:`reaching`; the backward sweeps are numba's."""
    topo_order = cfg.topo_order()
    def_reach_map = reaching(cfg, var_use_map, var_def_map)

    def progress(dct: dict[int, set[str]]) -> tuple[int, ...]:
        return tuple(len(v) for v in dct.values())

    def liveness(dct: dict[int, set[str]]) -> None:
        for offset in reversed(topo_order):
            live_vars = dct[offset]
            for inc_blk, _data in cfg.predecessors(offset):
                reachable = live_vars & def_reach_map[inc_blk]
                dct[inc_blk] |= reachable - var_def_map[inc_blk]

    live_map = {offset: set(var_use_map[offset]) for offset in blocks.keys()}
    old_point = None
    new_point = progress(live_map)
    while old_point != new_point:
        liveness(live_map)
        old_point = new_point
        new_point = progress(live_map)
    return live_map


def install() -> bool:
    """Install :func:`compute_live_map` into numba if its analysis is the one this was
    written for; whether it is in place."""
    try:
        import numba
        from numba.core import analysis, ir_utils
    except ImportError:
        return False
    if getattr(analysis, _INSTALLED, False):
        return True
    version = tuple(int(part) for part in numba.__version__.split(".")[:2])
    upstream = analysis.compute_live_map
    names = getattr(getattr(upstream, "__code__", None), "co_varnames", ())
    if (
        not TESTED[0] <= version <= TESTED[1]
        or names[:4] != ("cfg", "blocks", "var_use_map", "var_def_map")
        or ir_utils.compute_live_map is not upstream
    ):
        return False
    global UPSTREAM
    UPSTREAM = upstream
    analysis.compute_live_map = compute_live_map
    ir_utils.compute_live_map = compute_live_map
    setattr(analysis, _INSTALLED, True)
    return True
