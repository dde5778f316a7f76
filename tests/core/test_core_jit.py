"""The kernels' njit (escaramuza.rules.core.jit): one compilation per helper, not one per
constant; copy_into; every kernel function uses it."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numba import njit as numba_njit
from numba.core.registry import CPUDispatcher

from escaramuza.rules.core.jit import (
    KERNEL_SOURCES,
    RULES_SOURCES,
    InternalDispatcher,
    PlainArgsDispatcher,
    copy_into,
    kernel_sources_stamp,
    njit,
    sort_in_place,
    sources_stamp,
    stamp_roots,
)
from escaramuza.rules.core.layout import Columns

pytestmark = pytest.mark.compile

KERNEL_MODULES = (
    "escaramuza.rules.core.mt",
    "escaramuza.rules.destiny_dice.kernel",
    "escaramuza.rules.cairn.kernel",
    "escaramuza.rules.donjon.kernel",
    "escaramuza.rules.sistema_2d10.kernel",
    "escaramuza.agents.heuristics.destiny_dice_kernel",
    "escaramuza.agents.heuristics.cairn_kernel",
    "escaramuza.agents.heuristics.donjon_kernel",
    "escaramuza.agents.heuristics.sistema_2d10_kernel",
)


def _add(a: int, b: int) -> int:
    return a + b


def test_a_helper_called_with_different_constants_compiles_once() -> None:
    ours = njit(_add)
    theirs = numba_njit(_add)

    @numba_njit
    def call_ours(x: int) -> int:
        return ours(x, 3) + ours(x, 4) + ours(x, 5)

    @numba_njit
    def call_theirs(x: int) -> int:
        return theirs(x, 3) + theirs(x, 4) + theirs(x, 5)

    assert call_ours(1) == call_theirs(1) == 15
    # numba's own dispatcher compiles one specialisation per literal; ours one in all.
    assert len(theirs.signatures) == 3
    assert len(ours.signatures) == 1
    assert "Literal" not in str(ours.signatures[0])


def test_a_call_that_needs_its_literal_still_types() -> None:
    @njit
    def pick(t: tuple[int, float], i: int) -> float:
        return t[i]  # a heterogeneous tuple indexed by the argument: literal only

    @numba_njit
    def caller() -> float:
        return pick((1, 2.5), 1) + pick((1, 2.5), 0)

    assert caller() == 3.5


def test_the_decorator_takes_numbas_options() -> None:
    f = njit(cache=False, inline="always")(_add)
    assert isinstance(f, PlainArgsDispatcher)
    assert f.targetoptions["inline"] == "always"
    assert f(2, 3) == 5


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 5)])
def test_copy_into_is_the_slice_assignment(shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(shape))
    src = rng.integers(-100, 100, size=shape)
    dst = np.zeros(shape, dtype=np.int64)
    copy_into(dst, src)
    assert np.array_equal(dst, src)
    assert dst is not src
    # into a row of a bigger array, as the kernels write their outputs
    out = np.zeros((3, *shape), dtype=np.int64)
    copy_into(out[1], src)
    assert np.array_equal(out[1], src)
    assert not out[0].any() and not out[2].any()


@pytest.mark.parametrize("size", [0, 1, 2, 5, 17, 64])
def test_sort_in_place_is_numpys_sort(size: int) -> None:
    rng = np.random.default_rng(size)
    for _ in range(20):
        a = rng.integers(-5, 6, size=size)  # duplicates and negatives
        want = np.sort(a)
        sort_in_place(a)
        assert np.array_equal(a, want)


@pytest.mark.parametrize("name", KERNEL_MODULES)
def test_every_kernel_function_compiles_with_plain_arguments(name: str) -> None:
    module = importlib.import_module(name)
    jitted = [v for v in vars(module).values() if isinstance(v, CPUDispatcher)]
    assert jitted, name
    numba_own = [
        v.py_func.__qualname__
        for v in jitted
        if type(v) is not InternalDispatcher and v.py_func.__module__ == name
    ]
    assert numba_own == []


def _wrappers(dispatcher: Any) -> list[str]:
    """The names of numba's Python-call and C-call wrappers in a dispatcher's machine
    code (the function's mangled name in the ``cpython`` namespace, and after ``cfunc.``)."""
    return [
        fn.name
        for cres in dispatcher.overloads.values()
        for fn in cres.library.get_defined_functions()
        if fn.name.startswith(("_ZN7cpython", "cfunc."))
    ]


def _has_machine_code(dispatcher: Any) -> bool:
    """Whether the JIT engine holds machine code for one of a dispatcher's compilations
    (their function symbols)."""
    return any(
        cres.library._codegen._engine.is_symbol_defined(cres.fndesc.mangled_name)
        for cres in dispatcher.overloads.values()
    )


def test_a_kernel_function_called_from_compiled_code_has_no_wrappers_nor_machine_code() -> None:
    """Its callers link its IR and emit it with theirs: neither numba's wrappers nor its
    own machine code would ever run. numba's own njit compiles and emits both."""
    ours = njit(_add)
    theirs = numba_njit(_add)

    @numba_njit
    def call_both(x: int) -> int:
        return ours(x, 3) + theirs(x, 3)

    assert call_both(1) == 8
    assert _wrappers(ours) == []
    assert len(_wrappers(theirs)) == 2  # numba's own: both wrappers
    assert ours.overloads and not _has_machine_code(ours)
    assert _has_machine_code(theirs)
    assert _has_machine_code(call_both)


def test_a_kernel_function_called_from_python_runs_its_twin() -> None:
    """Called from Python, the function is compiled a second time with the wrappers
    (numba's own call path would jump to a wrapper that does not exist); a compiled
    caller keeps the one without."""
    ours = njit(_add)

    @numba_njit
    def call(x: int) -> int:
        return ours(x, 3)

    assert ours(2, 5) == 7
    assert ours(2, b=6) == 8
    assert call(4) == 7
    assert _wrappers(ours) == []
    twin = ours.python_twin
    assert type(twin) is PlainArgsDispatcher
    assert len(_wrappers(twin)) == 2
    assert ours(1, 1) == 2 and ours.python_twin is twin  # made once


# -- the cache's stamp covers every kernel source --------------------------------------
def test_sources_stamp_follows_content_and_files(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("X = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("Y = 2\n")
    first = sources_stamp([tmp_path])
    assert sources_stamp([tmp_path]) == first
    (tmp_path / "sub" / "b.py").write_text("Y = 3\n")
    edited = sources_stamp([tmp_path])
    assert edited != first
    (tmp_path / "c.py").write_text("")
    assert sources_stamp([tmp_path]) not in (first, edited)
    (tmp_path / "notes.txt").write_text("not code")
    assert sources_stamp([tmp_path]) == sources_stamp([tmp_path])


@pytest.mark.parametrize("name", KERNEL_MODULES)
def test_every_kernel_module_is_under_the_stamped_sources(name: str) -> None:
    path = Path(importlib.import_module(name).__file__ or "").resolve()
    assert any(path.is_relative_to(root) for root in KERNEL_SOURCES), path


def test_a_cached_function_is_stamped_with_the_kernel_sources() -> None:
    from escaramuza.rules.core import mt

    stamp = mt.seed_key._cache._impl.locator.get_source_stamp()
    assert stamp[1] == kernel_sources_stamp()
    assert stamp[1] == kernel_sources_stamp(mt.__file__)


def test_the_temperaments_kernels_are_stamped_with_their_tree_and_the_rules() -> None:
    import escaramuza.agents.heuristics as heuristics
    from escaramuza.agents.heuristics import cairn_kernel

    tree = Path(heuristics.__file__).resolve().parent
    assert tree in KERNEL_SOURCES
    assert stamp_roots(cairn_kernel.__file__) == (RULES_SOURCES, tree)
    stamp = cairn_kernel.choose._cache._impl.locator.get_source_stamp()
    assert stamp[1] == kernel_sources_stamp(cairn_kernel.__file__)
    assert stamp[1] != kernel_sources_stamp()


PICKLED = """
import base64, pickle
from escaramuza.rules.core.jit import copy_into
print(base64.b64encode(pickle.dumps(copy_into)).decode())
"""


def test_a_kernel_function_pickled_in_another_process_runs_from_python(tmp_path: Path) -> None:
    """numba rebuilds a dispatcher pickled by another process from its function and
    target options alone: its Python calls still find their twin's options."""
    import base64
    import pickle

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", PICKLED], env=env, capture_output=True, text=True, check=True
    )
    rebuilt = pickle.loads(base64.b64decode(done.stdout.strip()))
    assert rebuilt is not copy_into
    dst = np.zeros(4)
    rebuilt(dst, np.arange(4.0))
    assert dst.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert _wrappers(rebuilt.python_twin) != []


CALLEE = """
from escaramuza.rules.core.jit import njit

@njit(cache=True)
def value():
    return {value}
"""
CALLER = """
from escaramuza.rules.core.jit import njit
from callee import value

@njit(cache=True)
def twice():
    return 2 * value()
"""
RUN = """
import sys
from pathlib import Path
import escaramuza.rules.core.jit as jit
jit.register_sources(Path(sys.argv[1]))
from caller import twice
from callee import value
print(twice() + 100 * value())
"""


def _run_script(script: str, code: Path, cache: Path) -> str:
    """What ``script`` prints, run in a new process with the modules of ``code`` importable
    (PYTHONPATH) and numba's cache in ``cache``; ``code`` is its first argument."""
    path = os.pathsep.join(filter(None, (str(code), os.environ.get("PYTHONPATH"))))
    env = {**os.environ, "PYTHONPATH": path, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", script, str(code)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_editing_a_callee_recompiles_its_callers_from_the_cache(tmp_path: Path) -> None:
    """numba alone would load ``twice`` from its cache after ``value`` changed (its own
    file did not), with the old ``value`` compiled into it."""
    code = tmp_path / "code"
    code.mkdir()
    (code / "callee.py").write_text(CALLEE.format(value=1))
    (code / "caller.py").write_text(CALLER)

    def run() -> str:
        return _run_script(RUN, code, tmp_path / "cache")

    assert run() == "102"
    # From the cache: ``value`` compiled for compiled callers (linked into ``twice``) and
    # for Python calls are two entries, each under its own file names.
    assert run() == "102"
    names = sorted(p.name for p in (tmp_path / "cache").rglob("*.nbi"))
    assert len(names) == 3, names
    assert sum("~python" in n for n in names) == 2  # ``twice`` and ``value``, from Python
    (code / "callee.py").write_text(CALLEE.format(value=5))
    assert run() == "510"


LINKER = """
import sys
from pathlib import Path
import escaramuza.rules.core.jit as jit
jit.register_sources(Path(sys.argv[1]))
from callee import value

@jit.njit
def thrice():  # not cached: compiled in each run, with ``value`` as the cache has it
    return 3 * value()

result = thrice()
(compiled,) = value.overloads.values()
print(result, sum(value.stats.cache_hits.values()), type(compiled.library).__name__)
"""


def test_a_cached_kernel_function_is_linked_from_its_ir_into_a_new_caller(
    tmp_path: Path,
) -> None:
    """A function compiled for compiled callers is cached as the IR they link, loaded
    as such in another process, and linked into a caller compiled there."""
    code = tmp_path / "code"
    code.mkdir()
    (code / "callee.py").write_text(CALLEE.format(value=2))

    def run() -> str:
        return _run_script(LINKER, code, tmp_path / "cache")

    assert run() == "6 0 IROnlyLibrary"  # compiled, and cached
    assert run() == "6 1 IROnlyLibrary"  # from the cache
    (code / "callee.py").write_text(CALLEE.format(value=7))
    assert run() == "21 0 IROnlyLibrary"


class _Cols(Columns):
    A = (0, 1, "a column")
    B = (0, 1, "another")


@njit
def _plus_one(x: int) -> int:
    return x + 1


@njit
def _calls_with_a_column() -> int:
    return _plus_one(_Cols.B)  # type: ignore[no-any-return]


def test_a_layout_column_passed_to_a_helper_is_compiled_as_a_plain_int() -> None:
    """A helper shared by the rulesets must not be compiled per layout class: numba's
    cache index would then pickle each class and import (or fail to import) its module."""
    assert _calls_with_a_column() == 2
    assert [tuple(str(t) for t in sig) for sig in _plus_one.signatures] == [("int64",)]
