"""The toy ruleset of :mod:`tests.core.toy_kernel` with blows one point harder: the same
loop templates compiled for a second owner, to show the two never share machine code
(numba's cache names a file after the template's source, not its owner)."""

from __future__ import annotations

from escaramuza.rules.core.jit import instantiate
from tests.core.toy_kernel import apply as apply_a
from tests.core.toy_kernel import toy_loops

BONUS = 1

apply = instantiate(apply_a.py_func, __name__, {"BONUS": BONUS}, cache=True, _nrt=False)

LOOPS = toy_loops(__name__, apply)
