"""Kernel functions called from compiled code only, kept as LLVM IR without machine code.

numba turns every function it compiles into machine code: its library's module is added
to the JIT engine and emitted (register allocation, instruction selection) right after
its optimisation. A kernel helper compiled for compiled callers (``InternalDispatcher``,
rules/core/jit.py) is never run from that code: each caller links the helper's optimised
IR into its own module (``linkonce_odr``, so LLVM may inline it), optimises the whole
and emits it as one — that is the code that runs. Emitting the helpers' own machine code
took 5.5–6.2 of the 32–40 CPU s of a Sistema 2d10 batched env's first compile (1.7–2.7
s are left, the entry points'), for the same observations step for step.

:class:`IROnlyLibrary` is numba's JIT library finalised without the engine: linked and
optimised as before, never added to the engine nor emitted. Callers link the IR the
optimiser left (numba's own library hands them a copy taken after emission, which runs
codegen's IR passes over the module: their machine code differs in detail, not in
speed). It has no function address (``get_pointer_to_function`` is 0, as it already was
for a function without wrappers) and no environment to set (its code never runs). Its
cache entry is the IR callers link (``"ir-only"``), where numba stores machine code and
that IR; :func:`install` lets numba's library loader read it.

:class:`IROnlyCompiler` is the pipeline ``InternalDispatcher`` compiles with: numba's
own nopython pipeline with one pass before lowering that gives the function an
:class:`IROnlyLibrary`. A function called from Python goes to its twin, compiled by
numba's default pipeline, with machine code as ever; so does an ``InternalDispatcher``
numba rebuilt from another process's pickle (it has the default pipeline).
"""

from __future__ import annotations

from typing import Any

import llvmlite.binding as ll  # type: ignore[import-untyped]
import numba
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import Compiler, DefaultPassBuilder
from numba.core.compiler_machinery import LoweringPass, register_pass
from numba.core.typed_passes import AnnotateTypes

#: The numba versions (major, minor) whose code libraries this module matches.
TESTED = ((0, 60), (0, 68))
#: The serialisation kind of an :class:`IROnlyLibrary`'s cache entry.
KIND = "ir-only"
#: Set on numba's JIT library class once installed.
_INSTALLED = "_escaramuza_ir_only"


def supported() -> bool:
    """Whether this numba's code libraries are the ones this module was written for."""
    version = tuple(int(part) for part in numba.__version__.split(".")[:2])
    return TESTED[0] <= version <= TESTED[1] and all(
        callable(getattr(JITCodeLibrary, name, None))
        for name in (
            "_finalize_final_module",
            "_finalize_dynamic_globals",
            "_verify_declare_only_symbols",
            "_get_module_for_linking",
            "_unserialize",
        )
    )


class _NoEnvironment:
    """An :class:`IROnlyLibrary`'s codegen as its callers see it: numba's, but setting an
    environment (the address of a global the engine never holds) does nothing."""

    def __init__(self, codegen: Any) -> None:  # numba's JIT codegen
        self._codegen = codegen

    def set_env(self, env_name: str, env: Any) -> None:
        """Nothing: the library's code is never run, only linked into its callers."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._codegen, name)


class IROnlyLibrary(JITCodeLibrary):
    """numba's JIT library, finalised without machine code (module docstring)."""

    def _finalize_final_module(self) -> None:
        # numba's finalisation less the engine: what it checks of the module, not adding
        # it to the engine nor emitting it.
        this: Any = self
        this._finalize_dynamic_globals()
        this._verify_declare_only_symbols()
        this._finalized = True

    def get_pointer_to_function(self, name: str) -> int:
        return 0

    @property
    def codegen(self) -> Any:
        return _NoEnvironment(self._codegen)

    def serialize_using_object_code(self) -> tuple[str, str, bytes]:
        """The cache entry: the IR callers link (numba's has machine code too)."""
        this: Any = self
        this._ensure_finalized()
        return (this.name, KIND, this._get_module_for_linking().as_bitcode())

    @classmethod
    def from_linking_ir(cls, codegen: Any, name: str, bitcode: bytes) -> Any:
        """The library of a cache entry :meth:`serialize_using_object_code` wrote."""
        make: Any = cls
        self = make(codegen, name)
        self._shared_module = ll.parse_bitcode(bitcode)
        self._final_module = self._shared_module
        self._finalized = True
        return self


@register_pass(mutates_CFG=False, analysis_only=False)
class IROnlyLowering(LoweringPass):
    """Gives a function compiled without numba's wrappers an :class:`IROnlyLibrary`,
    which numba's lowering, next, fills and finalises."""

    _name = "escaramuza_ir_only_library"

    def __init__(self) -> None:  # abstract in numba's CompilerPass
        LoweringPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        flags = state.flags
        if state.library is None and flags.no_cpython_wrapper and flags.no_cfunc_wrapper:
            make: Any = IROnlyLibrary
            library = make(state.targetctx.codegen(), state.func_id.func_qualname)
            library.enable_object_caching()  # as numba's lowering does, for its cache
            state.library = library
        return False


class IROnlyCompiler(Compiler):
    """numba's nopython pipeline with :class:`IROnlyLowering` before lowering."""

    def define_pipelines(self) -> list[Any]:
        state: Any = self.state
        if state.flags.force_pyobject:
            return list(Compiler.define_pipelines(self))
        pipeline = DefaultPassBuilder.define_nopython_pipeline(state)
        pipeline.add_pass_after(IROnlyLowering, AnnotateTypes)
        pipeline.finalize()
        return [pipeline]


def install() -> bool:
    """Let numba's library loader read an :class:`IROnlyLibrary`'s cache entry (every
    other kind is numba's own); whether :class:`IROnlyCompiler` may be used."""
    if not supported():
        return False
    library: Any = JITCodeLibrary
    if getattr(library, _INSTALLED, False):
        return True
    numbas = library._unserialize

    def unserialize(cls: Any, codegen: Any, state: Any) -> Any:
        name, kind, data = state
        if kind == KIND:
            return IROnlyLibrary.from_linking_ir(codegen, name, data)
        return numbas(codegen, state)

    library._unserialize = classmethod(unserialize)
    setattr(library, _INSTALLED, True)
    return True
