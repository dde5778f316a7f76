"""The kernels' ``njit``: numba's, compiling each helper once rather than once per constant.

numba types a constant argument at a call site as a literal (``Literal[int](2)``), and a
jitted callee is compiled once for every distinct tuple of argument types it is called
with — so a helper called as ``finish(K, ST, 0, 0)``, ``finish(K, ST, 1, 0)`` and
``finish(K, ST, side, 2)`` was compiled three times, its callees with it. In the Destiny
Dice kernel 30 such duplicate compilations were about a third of the first compile
(docs/fast-path.md, "Compilation and numba's cache"). The kernels never need a literal
argument (no helper indexes a heterogeneous tuple with a parameter), so this dispatcher
asks for the compilation with the literals widened to their plain types
(:func:`numba.core.types.unliteral`) and keeps numba's literal typing only as a fallback
for a call that does not type without it. The results are the same; a literal
specialisation only let LLVM fold a constant it now receives as an argument (run time
moved by 0–4 %), and the callees that are small enough are still inlined by LLVM.

Everything else is numba's own ``njit``: the same options (``cache``, ``inline``,
``_nrt``…), the same on-disk cache, the same dispatcher otherwise.

Beside it, two helpers that stand in for numpy operations whose numba implementations
are slow to compile for what the kernels do with them: :func:`copy_into` (an
array-to-slice assignment) and :func:`sort_in_place` (``np.sort`` of a few numbers).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from numba import njit as _numba_njit
from numba.core import errors, types
from numba.core.caching import CompileResultCacheImpl, FunctionCache
from numba.core.registry import CPUDispatcher

#: The source trees whose code and constants a kernel's machine code is built from: the
#: rules (kernels, mt, this module, and the modules their constants come from) and the
#: temperaments' kernels. (rules/core/jit.py → rules/ and agents/heuristics/.)
KERNEL_SOURCES = (
    Path(__file__).resolve().parents[1],
    Path(__file__).resolve().parents[2] / "agents" / "heuristics",
)


def sources_stamp(roots: Iterable[Path]) -> str:
    """A digest of every ``.py`` file under ``roots`` (path and content)."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(Path(root).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@functools.cache
def kernel_sources_stamp() -> str:
    """:func:`sources_stamp` of :data:`KERNEL_SOURCES`, once per process."""
    return sources_stamp(KERNEL_SOURCES)


class _KernelSourcesLocator:
    """numba's cache locator for a function, with the kernels' sources in its stamp.

    numba's cache checks only the file a function is defined in: a battle loop in
    agents/heuristics/ compiled with the rules of rules/<ruleset>/kernel.py inlined
    into it (and every callee's code linked in) would be loaded stale after an edit of
    the rules alone — a silently different battle. Every kernel function's cache entry
    is stamped with the digest of all the kernel sources as well, so editing any of
    them recompiles them all once (docs/fast-path.md, "Compilation and numba's cache")."""

    def __init__(self, inner: Any) -> None:  # a numba locator
        self._inner = inner

    def get_source_stamp(self) -> Any:  # numba's: any picklable object
        return (self._inner.get_source_stamp(), kernel_sources_stamp())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _KernelCacheImpl(CompileResultCacheImpl):
    @property
    def locator(self) -> Any:
        return _KernelSourcesLocator(self._locator)


class _KernelFunctionCache(FunctionCache):
    _impl_class = _KernelCacheImpl


class PlainArgsDispatcher(CPUDispatcher):
    """A CPU dispatcher whose calls from jitted code compile for unliteral argument types,
    cached with the kernels' sources in the stamp (:class:`_KernelSourcesLocator`)."""

    def enable_caching(self) -> None:
        self._cache = _KernelFunctionCache(self.py_func)

    def get_call_template(self, args: Any, kws: Any) -> Any:  # numba's types
        plain = tuple(types.unliteral(a) for a in args)
        plain_kws = {k: types.unliteral(v) for k, v in kws.items()}
        if plain != tuple(args) or plain_kws != dict(kws):
            try:
                return super().get_call_template(plain, plain_kws)
            except errors.TypingError:
                pass  # this call needs its literals (never the case in the kernels)
        return super().get_call_template(args, kws)


def njit(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit`` with :class:`PlainArgsDispatcher`; used as ``@njit`` or
    ``@njit(cache=True, ...)`` exactly like numba's."""

    def wrap(f: Callable[..., Any]) -> Any:
        dispatcher = _numba_njit(**options)(f)
        if isinstance(dispatcher, CPUDispatcher):  # not with NUMBA_DISABLE_JIT
            dispatcher.__class__ = PlainArgsDispatcher
            if options.get("cache"):
                dispatcher.enable_caching()  # numba enabled its own cache before the swap
        return dispatcher

    return wrap if func is None else wrap(func)


@njit(cache=True, _nrt=False)
def copy_into(dst: Any, src: Any) -> None:  # numba arrays
    """``dst[...] = src`` for two C-contiguous arrays of the same shape and dtype.

    numba compiles an array-to-slice assignment with its broadcasting checks, whose
    error message formats both shapes — about 2 s of string code compiled into every
    kernel that used one (the callers' arrays always have the same shape)."""
    d = dst.reshape(dst.size)
    s = src.reshape(src.size)
    for i in range(d.size):
        d[i] = s[i]


@njit(cache=True, _nrt=False)
def sort_in_place(a: Any) -> None:  # a numba array
    """Sort a short 1-d array ascending, in place (insertion sort).

    The kernels sort a handful of dice or initiative keys; numba's ``np.sort`` /
    ``np.argsort`` compile its quicksort (about 2 s of a first compile) for that."""
    for i in range(1, a.size):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x
