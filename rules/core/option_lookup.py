"""numba's compiler options read at the cost of a dict, not of a hundred properties.

numba keeps the typing of every ``@overload`` implementation (``min``, ``len``, array
methods…) in a cache keyed by the call's types *and the compiler options in force* (a
``TargetConfig``). As shipped (0.68), a lookup pays for the options twice:

* the options' hash is ``hash(tuple(sorted(self.values())))`` — the sorted option
  *names*, the same for every object of one class, rebuilt from a hundred property reads
  at every lookup;
* two options compare by ``values()``, each option read through its property, even when
  they are one object, and when only a few options are set on either.

A kernel's first compile makes about 45,000 such lookups (a Destiny Dice batched env:
about 2.5 s of 45). :func:`install` keeps both results and changes their cost only: the
hash is the same number, computed from the class's option names; ``values()`` is the
same dict, read from the stored values with each option's default; equality is the same
comparison, made at once for an object and itself and over the options set on either
object otherwise. numba's ``TargetConfig`` is one
class, so this holds for every function compiled in the process once a kernel module is
imported. A numba whose ``TargetConfig`` is not the one this was written for is left
alone (:data:`TESTED`). ``docs/decisions/0016-kernel-compile-time.md`` has the
measurement.
"""

from __future__ import annotations

from typing import Any

#: The numba versions (major, minor) whose ``TargetConfig`` this module matches.
TESTED = ((0, 60), (0, 68))
#: Set on numba's TargetConfig once installed.
_INSTALLED = "_escaramuza_option_lookup"


def values(self: Any) -> dict[str, Any]:
    """``TargetConfig.values``: every option's value, its default where it is not set."""
    stored = self._values
    return {name: stored.get(name, option.default) for name, option in self.options.items()}


def same_values(one: Any, other: Any) -> bool:
    """``values(one) == values(other)``. Of one class's options, only those set on either
    object can differ (an option set on neither is its default on both), so only those
    are read: a handful, not the hundred ``values`` builds."""
    options = one.options
    if other.options is not options:
        return values(one) == values(other)
    mine, theirs = one._values, other._values
    if mine == theirs:
        return True
    for name in mine.keys() | theirs.keys():
        option = options.get(name)
        if option is None:
            return values(one) == values(other)
        if mine.get(name, option.default) != theirs.get(name, option.default):
            return False
    return True


def option_hash(self: Any) -> int:
    """``TargetConfig.__hash__``: the hash of the sorted option names, as numba's."""
    return hash(tuple(sorted(self.options)))


def install() -> bool:
    """Install the faster ``values``, ``__eq__`` and ``__hash__`` into numba's
    ``TargetConfig`` if it is the one they were written for; whether they are in place."""
    try:
        import numba
        from numba.core import targetconfig
    except ImportError:
        return False
    config: Any = targetconfig.TargetConfig
    if getattr(config, _INSTALLED, False):
        return True
    version = tuple(int(part) for part in numba.__version__.split(".")[:2])
    if (
        not TESTED[0] <= version <= TESTED[1]
        or "_values" not in getattr(config, "__slots__", ())
        or not all(callable(vars(config).get(n)) for n in ("values", "__eq__", "__hash__"))
    ):
        return False

    def equal(self: Any, other: Any) -> Any:
        """``TargetConfig.__eq__``: the same values (an object is equal to itself)."""
        if self is other:
            return True
        if isinstance(other, config):
            return same_values(self, other)
        return NotImplemented

    config.values = values
    config.__eq__ = equal
    config.__hash__ = option_hash
    setattr(config, _INSTALLED, True)
    return True
