"""The toy ruleset of :mod:`tests.core.toy_kernel` with blows one point harder: the same
loop templates compiled for a second owner, to show the two never share machine code
(numba's cache names a file after the template's source, not its owner)."""

from __future__ import annotations

from escaramuza.rules.core.jit import instantiate
from escaramuza.rules.core.loops import compile_loops
from tests.core.toy_kernel import CS, ST, G, choose, legal, reset, start
from tests.core.toy_kernel import apply as apply_a

BONUS = 1

apply = instantiate(apply_a.py_func, __name__, {"BONUS": BONUS}, cache=True, _nrt=False)

LOOPS = compile_loops(
    __name__,
    reset=reset,
    start=start,
    legal=legal,
    apply=apply,
    choose=choose,
    health=(int(CS.PV), int(ST.MAXPV)),
    ST=ST,
    CS=CS,
    G=G,
)
