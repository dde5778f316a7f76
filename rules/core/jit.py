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

Every kernel function is compiled without the two wrappers numba gives each compiled
function for being called from outside compiled code: the one that unboxes Python
arguments (``no_cpython_wrapper``) and the C-callable one (``no_cfunc_wrapper``). The
kernels call one another from compiled code only, and a wrapper is compiled code of its
own: unboxing a bundle of 80 arrays is a large function, optimised and turned into
machine code for every helper — about a quarter of a first compile. A call from Python
(an entry point such as a batched step, or a test calling a helper) goes to a twin of
the function compiled with the wrappers on its first call and cached apart
(:class:`InternalDispatcher`): the same code, so the same results. A function compiled
for compiled callers keeps its optimised IR for them to link and no machine code of its
own (rules/core/ir_only.py).

Everything else is numba's own ``njit``: the same options (``cache``, ``inline``,
``_nrt``…), the same on-disk cache, the same dispatcher otherwise.

Beside it, two helpers that stand in for numpy operations whose numba implementations
are slow to compile for what the kernels do with them: :func:`copy_into` (an
array-to-slice assignment) and :func:`sort_in_place` (``np.sort`` of a few numbers).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import sys
import threading
import types as pytypes
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, cast

from numba import njit as _numba_njit
from numba.core import errors, types
from numba.core.caching import CompileResultCacheImpl, FunctionCache
from numba.core.registry import CPUDispatcher

from escaramuza.rules.core import inlining, ir_only, liveness, option_lookup

# Before any kernel compiles: inlining at the cost of the inlined code (rules/core/inlining.py),
# compiler options read at the cost of a dict (rules/core/option_lookup.py), liveness in
# one pass over the blocks (rules/core/liveness.py).
inlining.install()
option_lookup.install()
liveness.install()
#: The pipeline of kernel functions called from compiled code: numba's, keeping their IR
#: without machine code (rules/core/ir_only.py); numba's own if this numba is not the one
#: it was written for.
INTERNAL_PIPELINE: dict[str, Any] = (
    {"pipeline_class": ir_only.IROnlyCompiler} if ir_only.install() else {}
)

#: The rules' source tree (rules/): the kernels of the rules, mt, this module and the
#: modules their constants come from. Code elsewhere that compiles kernel functions on
#: top of the rules (the compiled temperaments) registers its own tree with
#: :func:`register_sources`; this layer names no other layer's folders.
RULES_SOURCES = Path(__file__).resolve().parents[1]
#: The attribute :func:`instantiate` sets on a template's copy: the owner module's name.
INSTANCE_ATTRIBUTE = "__escaramuza_owner__"
#: Every registered source tree (:func:`register_sources`), the rules' first.
KERNEL_SOURCES: list[Path] = [RULES_SOURCES]


def register_sources(root: Path | str) -> None:
    """Register ``root`` as a tree of kernel sources compiled on top of the rules: a
    function defined under it is cached with the digest of ``root`` and of the rules'
    tree. Called by a package's ``__init__`` before any of its modules defines a kernel
    function, so the stamp a function gets never depends on the order of imports."""
    path = Path(root).resolve()
    if path not in KERNEL_SOURCES:
        KERNEL_SOURCES.append(path)


def sources_stamp(roots: Iterable[Path]) -> str:
    """A digest of every ``.py`` file under ``roots`` (path and content)."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(Path(root).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@functools.cache
def _stamp_of(roots: tuple[Path, ...]) -> str:
    return sources_stamp(roots)


def stamp_roots(source: Path | str) -> tuple[Path, ...]:
    """The trees whose code a kernel function defined in ``source`` may be built from:
    the rules' tree, and the registered tree holding ``source`` if it is not under the
    rules (the rules never call code above them)."""
    path = Path(source).resolve()
    own = [r for r in KERNEL_SOURCES[1:] if path.is_relative_to(r)]
    return (RULES_SOURCES, *own[:1])


def kernel_sources_stamp(source: Path | str | None = None) -> str:
    """:func:`sources_stamp` of :func:`stamp_roots` of ``source`` (default: the rules'
    tree alone), computed once per process and set of trees."""
    return _stamp_of(stamp_roots(source) if source is not None else (RULES_SOURCES,))


def _defined_in(py_func: Any) -> str:
    """The file a kernel function's code belongs to: its module's, so that a loop
    template instantiated for a ruleset (:func:`instantiate`) counts as that ruleset's."""
    module = sys.modules.get(getattr(py_func, "__module__", "") or "")
    return getattr(module, "__file__", None) or inspect.getfile(py_func)


class _KernelSourcesLocator:
    """numba's cache locator for a function, with the kernels' sources in its stamp.

    numba's cache checks only the file a function is defined in: a battle loop of a
    temperaments' kernel compiled with the rules of rules/<ruleset>/kernel.py inlined
    into it (and every callee's code linked in) would be loaded stale after an edit of
    the rules alone — a silently different battle. Every kernel function's cache entry
    is stamped with the digest of the trees its code may come from (:func:`stamp_roots`),
    so editing any of them recompiles them all once (docs/fast-path.md, "Compilation
    and numba's cache")."""

    def __init__(self, inner: Any, stamp: str) -> None:  # a numba locator
        self._inner = inner
        self._stamp = stamp

    def get_source_stamp(self) -> Any:  # numba's: any picklable object
        return (self._inner.get_source_stamp(), self._stamp)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _KernelCacheImpl(CompileResultCacheImpl):
    #: Appended to the cache files' names of the compilations it stores.
    variant = ""

    def __init__(self, py_func: Any) -> None:
        self._stamp = kernel_sources_stamp(_defined_in(py_func))
        super().__init__(py_func)  # type: ignore[no-untyped-call]
        owner = getattr(py_func, INSTANCE_ATTRIBUTE, None)
        if owner is not None or self.variant:
            # numba names a cache file after the function's source file and qualified
            # name, the same for every instance of a template: without the owner's name
            # one ruleset's loop would load another's machine code. A function's
            # compilation for Python calls and for compiled calls differ (the wrappers,
            # :class:`InternalDispatcher`), under the same signature: the variant keeps
            # them apart.
            module = Path(inspect.getfile(py_func)).stem
            qualname = f"{owner if owner is not None else module}.{py_func.__qualname__}"
            abiflags = getattr(sys, "abiflags", "")
            self._filename_base = self.get_filename_base(qualname + self.variant, abiflags)  # type: ignore[no-untyped-call]

    @property
    def locator(self) -> Any:
        return _KernelSourcesLocator(self._locator, self._stamp)


class _PythonCallCacheImpl(_KernelCacheImpl):
    variant = "~python"


class _KernelFunctionCache(FunctionCache):
    _impl_class = _KernelCacheImpl


class _PythonCallFunctionCache(FunctionCache):
    _impl_class = _PythonCallCacheImpl


def _plain(ty: Any) -> Any:  # a numba type
    """A call argument's type for compiling the callee: without a literal value, and a
    layout's column (an ``IntEnumMember`` of a ``rules.core.layout.Columns`` class) as
    its plain integer. Otherwise a helper shared by the rulesets (``agent_draw``) would
    be compiled once per ruleset's layout class, and numba's cache index would pickle a
    reference to each class: loading it would import every ruleset's kernel module, and
    fail outright for a class whose module is not importable (a test's)."""
    ty = types.unliteral(ty)
    if isinstance(ty, types.IntEnumMember):
        return ty.dtype
    return ty


class PlainArgsDispatcher(CPUDispatcher):
    """A CPU dispatcher whose calls from jitted code compile for unliteral argument types,
    cached with the kernels' sources in the stamp (:class:`_KernelSourcesLocator`)."""

    def enable_caching(self, python_calls: bool = False) -> None:
        """Cache compilations on disk, under the names for Python calls (a twin's,
        :class:`InternalDispatcher`) or for compiled calls."""
        kind = _PythonCallFunctionCache if python_calls else _KernelFunctionCache
        self._cache = kind(self.py_func)

    def get_call_template(self, args: Any, kws: Any) -> Any:  # numba's types
        plain = tuple(_plain(a) for a in args)
        plain_kws = {k: _plain(v) for k, v in kws.items()}
        if plain != tuple(args) or plain_kws != dict(kws):
            try:
                return super().get_call_template(plain, plain_kws)
            except errors.TypingError:
                pass  # this call needs its literals (never the case in the kernels)
        return super().get_call_template(args, kws)


#: The options that leave out numba's wrappers for calls from outside compiled code.
WITHOUT_WRAPPERS: dict[str, Any] = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


class InternalDispatcher(PlainArgsDispatcher):
    """A :class:`PlainArgsDispatcher` compiled without numba's wrappers
    (:data:`WITHOUT_WRAPPERS`): it is called from compiled code. Called from Python, it
    hands the call to its twin, the same function compiled with the wrappers (numba's
    own call path would jump to a wrapper that does not exist), made on the first such
    call and cached under its own file names."""

    #: Set by :func:`njit`: the options the function was compiled with, wrappers aside.
    _options: dict[str, Any]
    _cached: bool
    #: The twin compiled with the wrappers, once the function has been called from Python.
    python_twin: Any = None
    _twin_lock = threading.Lock()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        twin = self.python_twin
        if twin is None:
            with self._twin_lock:
                twin = self.python_twin
                if twin is None:
                    twin = _numba_njit(**self._twin_options())(self.py_func)
                    twin.__class__ = PlainArgsDispatcher
                    if getattr(self, "_cached", False):
                        twin.enable_caching(python_calls=True)
                    self.python_twin = twin
        return twin(*args, **kwargs)

    def _twin_options(self) -> dict[str, Any]:
        """The options :func:`njit` was given, wrappers aside; for a dispatcher numba
        rebuilt from a pickle (another process's), its target options less the wrappers'
        and ``nopython`` (which ``numba.njit`` sets itself)."""
        options = getattr(self, "_options", None)
        if options is None:
            skip = {*WITHOUT_WRAPPERS, "nopython"}
            options = {k: v for k, v in self.targetoptions.items() if k not in skip}
        return options


def njit(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit`` with :class:`InternalDispatcher`; used as ``@njit`` or
    ``@njit(cache=True, ...)`` exactly like numba's."""

    # numba is not asked for its own cache: it would set one up (a locator, a write test
    # of the cache folder) only for this dispatcher to replace it with the kernels' own.
    cache = bool(options.get("cache"))
    rest = {k: v for k, v in options.items() if k != "cache"}

    def wrap(f: Callable[..., Any]) -> Any:
        dispatcher = _numba_njit(**{**rest, **WITHOUT_WRAPPERS, **INTERNAL_PIPELINE})(f)
        if isinstance(dispatcher, CPUDispatcher):  # not with NUMBA_DISABLE_JIT
            dispatcher.__class__ = InternalDispatcher
            internal = cast(InternalDispatcher, dispatcher)
            internal._options = rest
            internal._cached = cache
            if cache:
                internal.enable_caching()
        return dispatcher

    return wrap if func is None else wrap(func)


@njit(cache=True, _nrt=False)
def copy_into(dst: Any, src: Any) -> None:  # numba arrays
    """``dst[...] = src`` for two arrays of the same shape and dtype, element by element
    in C order.

    numba compiles an array-to-slice assignment with its broadcasting checks, whose
    error message formats both shapes — about 2 s of string code compiled into every
    kernel that used one (the callers' arrays always have the same shape). Indexing
    ``flat`` rather than a reshaped view: a reshape calls numba's C helper every time
    (a tenth of a batched env's step went to copies and that helper)."""
    for i in range(dst.size):
        dst.flat[i] = src.flat[i]


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


def instantiate(
    template: Callable[..., Any], owner: str, bound: dict[str, Any], **options: Any
) -> Any:
    """Compile a copy of the plain-Python ``template`` whose global names in ``bound``
    are replaced (a ruleset's ``legal``, ``apply``, its layouts…), as a kernel function
    of module ``owner`` (:func:`njit` with ``options``).

    This is how one loop is written once and compiled for each ruleset: numba resolves
    a function's globals when it compiles it, so the copy calls the ruleset's compiled
    rules directly, inlined as any callee. A closure would do the same but numba's cache
    keys a closure on its cells' pickled contents, which differ between processes; the
    copy has no cells, and its cache file carries the owner's name
    (:class:`_KernelCacheImpl`)."""
    namespace = dict(template.__globals__)
    namespace.update(bound)
    copy = pytypes.FunctionType(
        template.__code__, namespace, template.__name__, template.__defaults__
    )
    copy.__qualname__ = template.__qualname__
    copy.__doc__ = template.__doc__
    copy.__module__ = owner
    setattr(copy, INSTANCE_ATTRIBUTE, owner)
    return njit(**options)(copy)
