"""The temperaments' vocabulary compiled: the helpers every ruleset's compiled temperaments
share, over the legal list's rows.

The compiled namesakes of :mod:`escaramuza.agents.heuristics.vocabulary`'s helpers that
read only the legal list (``la, n``, a verb's code), so that one function serves the four
``<ruleset>_kernel.py`` as the Python one serves the four ``<ruleset>.py``; those reading
the field (``foe_hops``, ``side_out``, ``most_hurt_ally``) are compiled per ruleset's
layouts in :mod:`escaramuza.rules.core.mechanics`. Like their neighbours they take arrays
and ints, not the bundles, so that each compiles once (decision 0020); a row is returned,
none is -1.
"""

from __future__ import annotations

import numpy as np

from escaramuza.rules.core.jit import njit
from escaramuza.rules.core.legal import LA, first_row


@njit(cache=True, _nrt=False)
def first_of(la: np.ndarray, n: int, verb: int) -> int:
    """``first_of``: the first of the ``n`` rows of ``verb``, -1 for none."""
    return first_row(la, n, LA.VERB, verb)


@njit(cache=True, _nrt=False)
def first_on(la: np.ndarray, n: int, verb: int, target: int) -> int:
    """``first_on``: the first of the ``n`` rows of ``verb`` on ``target`` (a step
    towards or away from it, a heal of it), -1 for none."""
    for i in range(n):
        if la[i, LA.VERB] == verb and la[i, LA.TARGET] == target:
            return i
    return -1
