"""numba's ``inline="always"`` at the cost of the code it inlines, not of its square.

The kernels inline their small rule helpers into the loops (decision 0016): numba does it
before typing, at each call site, and as shipped (0.68) it pays twice over for each site:

* it rebuilds the callee's IR from its bytecode and runs the untyped passes over it —
  which inline the callee's own ``inline="always"`` callees the same way, so a helper
  nested three deep is rebuilt at every site of every caller;
* it deep-copies the callee's blocks one at a time, and each copy takes the callee's
  whole variable scope with it: blocks × variables, which grows as inlining grows the
  callee.

:func:`install` changes both, for the untyped inlining the kernels use and nothing else:
the callee's IR after its untyped passes is built once per function and compiler flags
and kept (numba copies it before changing it, at every site, as before), and while one
callee is inlined its scope is copied once and shared by its copied blocks (as the
original blocks share it). A third change: a deep copy of IR shares its source
locations (``ir.Loc``) instead of rebuilding one per instruction — numba never changes a
location in place (a new line is a new ``Loc``); the rebuilding cost the 2d10 kernel's
first compile 2-5 s of about 50. A fourth: numba's ``inline_ir`` copies the callee's
blocks twice at every site, the first copy to inline, the second to return unchanged —
and both of numba's callers (the untyped and the typed inlining passes) discard that
return; while one callee is inlined, a deep copy of a block the first copy made is that
block itself, so the second copy costs nothing. numba's inliner is one class, so this
holds for every function compiled in the process once a kernel module is imported. The
machine code is the same: the kernels' equality with the engine is tested battle by
battle, and ``tests/core/test_core_inlining.py`` compiles nested inlined helpers both ways. A numba
whose inliner is not the one this was written for is left alone (:data:`TESTED`).
``docs/decisions/0016-kernel-compile-time.md`` has the measurements.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

#: The numba versions (major, minor) whose inliner this module matches.
TESTED = ((0, 60), (0, 68))
#: Set on numba's InlineWorker once installed.
_INSTALLED = "_escaramuza_linear_inlining"

#: The callee IRs after their untyped passes, by (function, compiler flags).
_untyped_ir: dict[tuple[Any, tuple[tuple[str, str], ...]], Any] = {}
#: While one callee is being inlined: ``scopes``, the scopes copied, and ``blocks``, the
#: blocks copied (None outside).
_session = threading.local()


def _flags_key(flags: Any) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((name, repr(value)) for name, value in flags.values().items()))


def _same_location(self: Any, memo: dict[int, Any]) -> Any:
    """A source location's deep copy: itself (numba replaces locations, never edits them)."""
    return self


def _plain_deepcopy(obj: Any, memo: dict[int, Any]) -> Any:
    """Python's default deep copy of an object with a ``__dict__``: a new instance, in
    ``memo`` before its attributes are copied (an attribute may lead back to it)."""
    cls: Any = type(obj)
    new = cls.__new__(cls)
    memo[id(obj)] = new
    for name, value in obj.__dict__.items():
        setattr(new, name, copy.deepcopy(value, memo))
    return new


def _scope_deepcopy(self: Any, memo: dict[int, Any]) -> Any:
    """Python's default deep copy of the scope, remembered for the inlining session."""
    scopes: dict[int, tuple[Any, Any]] | None = getattr(_session, "scopes", None)
    if scopes is not None and id(self) in scopes:
        shared = scopes[id(self)][1]
        memo[id(self)] = shared
        return shared
    new = _plain_deepcopy(self, memo)
    if scopes is not None:
        scopes[id(self)] = (self, new)  # the original kept alive: its id stays its own
    return new


def _block_deepcopy(self: Any, memo: dict[int, Any]) -> Any:
    """Python's default deep copy of the block; a block this inlining session copied is
    not copied again: that second copy is ``inline_ir``'s return, which numba discards."""
    blocks: dict[int, Any] | None = getattr(_session, "blocks", None)
    if blocks is not None and id(self) in blocks:
        return self
    new = _plain_deepcopy(self, memo)
    if blocks is not None:
        blocks[id(new)] = new  # kept alive: its id stays its own
    return new


def install() -> bool:
    """Install the four changes into numba if its inliner is the one they were written
    for; whether they are in place."""
    try:
        import numba
        from numba.core import inline_closurecall, ir
    except ImportError:
        return False
    worker: Any = inline_closurecall.InlineWorker
    scope_class: Any = ir.Scope
    block_class: Any = ir.Block
    if getattr(worker, _INSTALLED, False):
        return True
    version = tuple(int(part) for part in numba.__version__.split(".")[:2])
    expected = ("inline_function", "inline_ir", "run_untyped_passes")
    if (
        not TESTED[0] <= version <= TESTED[1]
        or not all(callable(getattr(worker, name, None)) for name in expected)
        or "__deepcopy__" in vars(scope_class)
        or "__deepcopy__" in vars(block_class)
    ):
        return False
    upstream_function: Any = worker.inline_function
    upstream_ir: Any = worker.inline_ir

    def inline_function(
        self: Any, caller_ir: Any, block: Any, i: int, function: Any, arg_typs: Any = None
    ) -> Any:
        typed = arg_typs is not None or getattr(self, "_permit_update_type_and_call_maps", True)
        if typed:
            return upstream_function(self, caller_ir, block, i, function, arg_typs)
        # run_untyped_passes turns SSA off in these flags (the caller's); so does a reuse.
        self.flags.enable_ssa = False
        key = (function, _flags_key(self.flags))
        callee_ir = _untyped_ir.get(key)
        if callee_ir is None:
            callee_ir = _untyped_ir[key] = self.run_untyped_passes(function)
        return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars)

    def inline_ir(self: Any, *args: Any, **kwargs: Any) -> Any:
        outer = getattr(_session, "scopes", None), getattr(_session, "blocks", None)
        _session.scopes, _session.blocks = {}, {}
        try:
            return upstream_ir(self, *args, **kwargs)
        finally:
            _session.scopes, _session.blocks = outer

    worker.inline_function = inline_function
    worker.inline_ir = inline_ir
    scope_class.__deepcopy__ = _scope_deepcopy
    block_class.__deepcopy__ = _block_deepcopy
    loc_class: Any = ir.Loc
    if "__deepcopy__" not in vars(loc_class):
        loc_class.__deepcopy__ = _same_location
    setattr(worker, _INSTALLED, True)
    return True
