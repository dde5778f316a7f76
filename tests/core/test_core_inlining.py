"""rules/core/inlining.py: numba's inlining with each callee's IR built once and its
scope copied once — the same compiled results as numba's own inliner, in less time."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from escaramuza.rules.core import inlining

#: Helpers inlined at several sites and nested three deep, with loops and branches: the
#: shape of the kernels' rule helpers. Compiled from this text with and without the change.
TOY = """
import numpy as np
from numba import njit

@njit(inline="always")
def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x

@njit(inline="always")
def bonus(a, k):
    total = 0
    for j in range(a.shape[0]):
        if a[j] % 3 == k:
            total += clamp(a[j] - k, 0, 7)
    return total

@njit(inline="always")
def score(a, k, m):
    s = bonus(a, k) - bonus(a, m)
    if s > 0:
        return clamp(s, 1, 20) + bonus(a, (k + m) % 3)
    return clamp(-s, 0, 5)

@njit
def run(a):
    out = np.zeros(9, dtype=np.int64)
    for k in range(3):
        for m in range(3):
            out[3 * k + m] = score(a, k, m) + score(a, m, k) * 2
    return out
"""


def _run_toy(inputs: list[list[int]]) -> list[list[int]]:
    namespace: dict[str, Any] = {}
    exec(compile(TOY, "toy_inlining", "exec"), namespace)
    return [namespace["run"](np.array(a, dtype=np.int64)).tolist() for a in inputs]


def test_it_is_installed_for_the_numba_it_was_written_for() -> None:
    import numba
    from numba.core.inline_closurecall import InlineWorker

    version = tuple(int(p) for p in numba.__version__.split(".")[:2])
    assert inlining.TESTED[0] <= version <= inlining.TESTED[1], numba.__version__
    assert inlining.install() is True
    assert getattr(InlineWorker, inlining._INSTALLED) is True


def test_a_deep_copy_of_ir_shares_its_source_locations() -> None:
    """Copied instructions keep the original's ``ir.Loc`` (never edited in place) and
    are themselves new objects."""
    import copy

    from numba.core import ir

    assert inlining.install() is True
    loc = ir.Loc("toy.py", 3, 1)
    scope = ir.Scope(None, loc)
    target = ir.Var(scope, "x", loc)
    assign = ir.Assign(ir.Const(1, loc), target, loc)
    copied = copy.deepcopy(assign)
    assert copied is not assign and copied.target is not target
    assert copied.loc is loc and copied.target.loc is loc and copied.value.loc is loc
    assert str(copied) == str(assign)


def test_a_block_copied_while_inlining_is_not_copied_again() -> None:
    """Inside one inlining (``inline_ir``), a deep copy of a block that inlining copied is
    the block itself (numba's second copy, which its callers discard); a block from
    outside, or any block outside an inlining, is copied as Python would."""
    import copy

    from numba.core import ir

    assert inlining.install() is True
    loc = ir.Loc("toy.py", 1, 1)
    scope = ir.Scope(None, loc)
    block = ir.Block(scope, loc)
    block.append(ir.Assign(ir.Const(1, loc), ir.Var(scope, "x", loc), loc))
    block.append(ir.Return(ir.Var(scope, "x", loc), loc))
    outside = copy.deepcopy(block)
    assert outside is not block and outside.body[0] is not block.body[0]
    assert copy.deepcopy(outside) is not outside
    inlining._session.scopes, inlining._session.blocks = {}, {}
    try:
        first = copy.deepcopy(block)
        assert first is not block and first.body[0] is not block.body[0]
        assert [str(i) for i in first.body] == [str(i) for i in block.body]
        assert copy.deepcopy(first) is first
    finally:
        inlining._session.scopes = inlining._session.blocks = None


@pytest.mark.compile
def test_nested_inlined_helpers_give_numbas_own_results() -> None:
    """The toy compiled here (the change installed) and in a fresh interpreter that never
    imports escaramuza (numba's own inliner) computes the same on 200 random arrays."""
    gen = np.random.default_rng(7)
    inputs = [gen.integers(-20, 40, gen.integers(0, 12)).tolist() for _ in range(200)]
    assert inlining.install()
    ours = _run_toy(inputs)
    code = (
        "import json, sys\n"
        "import numpy as np\n"
        "ns = {}\n"
        f"exec(compile({TOY!r}, 'toy_inlining', 'exec'), ns)\n"
        "inputs = json.loads(sys.stdin.read())\n"
        "assert 'escaramuza' not in sys.modules\n"
        "print(json.dumps([ns['run'](np.array(a, dtype=np.int64)).tolist() for a in inputs]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(inputs),
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    assert json.loads(done.stdout) == ours
    assert any(any(v != 0 for v in row) for row in ours)  # the toy is not trivially zero


@pytest.mark.compile
def test_a_callee_inlined_at_several_sites_is_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from numba.core.inline_closurecall import InlineWorker

    assert inlining.install()
    built: list[str] = []
    upstream = InlineWorker.run_untyped_passes

    def counting(self: Any, func: Any, enable_ssa: bool = False) -> Any:
        built.append(func.__name__)
        return upstream(self, func, enable_ssa)

    monkeypatch.setattr(InlineWorker, "run_untyped_passes", counting)
    _run_toy([[1, 2, 3]])
    # numba's own inliner builds clamp's IR at each of its sites, and again inside every
    # build of bonus and of score; here each callee is built once.
    assert sorted(built) == ["bonus", "clamp", "score"]
