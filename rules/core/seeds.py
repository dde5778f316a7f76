"""The seeds a user may give: one definition for every command's ``--seed``, the web
API's requests and a state file's ``meta.seed``, so whatever seed the tool accepts it can
save in a state file and load back.

A seed is an integer from 0 to :data:`MAX_SEED` (2**63 - 1): numpy's ``SeedSequence``
(the playtest's battles) takes no negative one, a state file spells at most
:data:`~escaramuza.rules.core.parsers.MAX_INT_DIGITS` (19) digits, and the kernels seed
their Mersenne Twister from one 64-bit word (:func:`escaramuza.rules.core.mt.seed_keys`).
"""

from __future__ import annotations

from escaramuza.rules.core.errors import EscaramuzaError, clip
from escaramuza.rules.core.i18n import _f

#: Largest seed: the largest signed 64-bit integer.
MAX_SEED = (1 << 63) - 1


#: Largest ``meta.steps`` of a state file: the GM session's applied decisions, which it
#: adds to its seed (one generator per decision). Far beyond any battle, and far below
#: :data:`MAX_SEED`, so a session never steps past what its own state file loads back
#: (at ``MAX_SEED`` the next decision's save would be refused).
MAX_STEPS = 10**12


def seed_problem(value: object, top: int = MAX_SEED) -> str | None:
    """Why ``value`` is not a seed (an error message's reason), or None if it is one;
    with ``top`` :data:`MAX_STEPS`, why it is not a state file's ``meta.steps``."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= top:
        return None
    return _f("expected an integer from 0 to {top}, got {value}", top, clip(repr(value), 80))


def check_seed(value: int, option: str = "--seed") -> int:
    """``value`` if it is a seed, else :class:`EscaramuzaError` naming ``option``."""
    reason = seed_problem(value)
    if reason is not None:
        raise EscaramuzaError(f"{option}: {reason}")
    return value


__all__ = ["MAX_SEED", "MAX_STEPS", "check_seed", "seed_problem"]
