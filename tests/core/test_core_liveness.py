"""rules/core/liveness.py: numba's variable liveness, the same maps in one sweep.

The installed ``compute_live_map`` is compared with numba's own (kept by ``install``)
on control flow graphs drawn at random — loops, nested loops, blocks no path reaches,
edges back to the entry — and on the IR of functions numba compiles.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from escaramuza.rules.core import liveness

NAMES = [f"v{i}" for i in range(8)]


def _graph(n: int, edges: list[tuple[int, int]]) -> Any:  # a numba CFGraph
    from numba.core.controlflow import CFGraph

    cfg = CFGraph()
    for node in range(n):
        cfg.add_node(node * 2)  # numba's block labels are bytecode offsets
    for a, b in edges:
        cfg.add_edge(a * 2, b * 2)
    cfg.set_entry_point(0)
    cfg.process()
    return cfg


@st.composite
def flows(draw: Any) -> tuple[Any, dict[int, None], dict[int, set[str]], dict[int, set[str]]]:
    n = draw(st.integers(1, 14))
    edges = [
        (a, b)
        for a in range(n)
        for b in draw(st.sets(st.integers(0, n - 1), max_size=3))
        if b != 0 or draw(st.booleans())
    ]
    order = draw(st.permutations(range(n)))
    blocks = {node * 2: None for node in order}
    names = st.sets(st.sampled_from(NAMES), max_size=4)
    uses = {node * 2: draw(names) for node in range(n)}
    defs = {node * 2: draw(names) for node in range(n)}
    return _graph(n, edges), blocks, uses, defs


def test_it_is_installed_for_the_numba_it_was_written_for() -> None:
    import numba
    from numba.core import analysis, ir_utils

    import escaramuza.rules.core.jit  # noqa: F401  (installs it)

    version = tuple(int(p) for p in numba.__version__.split(".")[:2])
    assert liveness.TESTED[0] <= version <= liveness.TESTED[1], numba.__version__
    assert liveness.install() is True
    assert analysis.compute_live_map is liveness.compute_live_map
    assert ir_utils.compute_live_map is liveness.compute_live_map
    assert liveness.UPSTREAM is not None and liveness.UPSTREAM is not liveness.compute_live_map


@settings(max_examples=300, deadline=None)
@given(flows())
def test_the_live_maps_are_numbas(
    flow: tuple[Any, dict[int, None], dict[int, set[str]], dict[int, set[str]]],
) -> None:
    assert liveness.install() is True
    cfg, blocks, uses, defs = flow
    ours = liveness.compute_live_map(cfg, blocks, uses, defs)
    theirs = liveness.UPSTREAM(cfg, blocks, uses, defs)
    assert ours == theirs
    assert list(ours) == list(theirs)


def test_a_loop_shares_what_reaches_it_and_an_unreachable_block_gets_nothing() -> None:
    # 0 -> 2 -> 4 -> 2 (a loop), 4 -> 6; 8 reaches 6 but nothing reaches 8.
    cfg = _graph(5, [(0, 1), (1, 2), (2, 1), (2, 3), (4, 3)])
    uses = {0: set(), 2: {"a"}, 4: {"b"}, 6: {"c"}, 8: set()}
    defs = {0: {"a", "b"}, 2: set(), 4: {"c"}, 6: set(), 8: {"x"}}
    reach = liveness.reaching(cfg, uses, defs)
    assert reach[2] == reach[4] == {"a", "b", "c"}
    assert reach[6] == {"a", "b", "c"}
    assert 8 not in reach
    assert [sorted(c) for c in liveness.components(cfg)] == [[0], [2, 4], [6]]


def test_compiled_functions_see_the_same_maps() -> None:
    """The IR of a function with nested loops, ``break`` and ``continue``: numba's own
    blocks, use and def maps."""
    from numba.core import analysis
    from numba.core.compiler import run_frontend

    def nested(n: int) -> int:
        total = 0
        for i in range(n):
            if i % 3 == 0:
                continue
            j = 0
            while j < i:
                if total > 100:
                    break
                total += j
                j += 1
        return total

    ir = run_frontend(nested)
    cfg = analysis.compute_cfg_from_blocks(ir.blocks)
    usedefs = analysis.compute_use_defs(ir.blocks)
    assert liveness.install() is True
    ours = liveness.compute_live_map(cfg, ir.blocks, usedefs.usemap, usedefs.defmap)
    theirs = liveness.UPSTREAM(cfg, ir.blocks, usedefs.usemap, usedefs.defmap)
    assert ours == theirs and list(ours) == list(theirs)
