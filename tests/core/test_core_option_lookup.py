"""rules/core/option_lookup.py: numba's compiler options compare and hash as upstream's.

Upstream's three methods are restated here from numba 0.68's ``TargetConfig`` (each a
line) and compared with the installed ones on option objects set in different ways.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from escaramuza.rules.core import option_lookup


def _upstream_values(config: Any) -> dict[str, Any]:
    return {k: getattr(config, k) for k in config.options}


def _upstream_hash(config: Any) -> int:
    return hash(tuple(sorted(_upstream_values(config))))


def _flags(**options: Any) -> Any:
    from numba.core.compiler import Flags

    flags = Flags()
    for name, value in options.items():
        setattr(flags, name, value)
    return flags


def test_it_is_installed_for_the_numba_it_was_written_for() -> None:
    import numba
    from numba.core.targetconfig import TargetConfig

    version = tuple(int(p) for p in numba.__version__.split(".")[:2])
    assert option_lookup.TESTED[0] <= version <= option_lookup.TESTED[1], numba.__version__
    assert option_lookup.install() is True
    assert getattr(TargetConfig, option_lookup._INSTALLED) is True
    assert TargetConfig.values is option_lookup.values


@pytest.mark.parametrize(
    "options",
    [{}, {"nrt": True}, {"nrt": False, "boundscheck": True}, {"no_cpython_wrapper": True}],
)
def test_values_and_hash_are_upstreams(options: dict[str, Any]) -> None:
    assert option_lookup.install() is True
    flags = _flags(**options)
    assert flags.values() == _upstream_values(flags)
    assert hash(flags) == _upstream_hash(flags)
    for name, value in options.items():
        assert flags.values()[name] == value


def test_equality_is_by_value_as_upstream() -> None:
    """An option set to its default equals one left unset (upstream compares values);
    one set otherwise differs; an object equals itself; a non-option is not equal."""
    assert option_lookup.install() is True
    default_nrt = _flags().nrt
    assert _flags() == _flags(nrt=default_nrt)
    assert _flags() != _flags(nrt=not default_nrt)
    assert _flags(nrt=True, boundscheck=True) == _flags(boundscheck=True, nrt=True)
    flags = _flags(nrt=True)
    assert flags == flags
    assert (flags == "nrt") is False
    # A dict keyed by options finds an equal one built separately, as numba's caches do.
    cache = {(1, _flags(nrt=True)): "hit"}
    assert cache[(1, _flags(nrt=True))] == "hit"
    assert (1, _flags(nrt=False)) not in cache


def _bool_options() -> list[str]:
    from numba.core.compiler import Flags

    return sorted(n for n, o in Flags.options.items() if o.type is bool)


@given(data=st.data())
@settings(max_examples=200, deadline=None)
def test_equality_over_any_options_set_is_upstreams(data: Any) -> None:
    """Equality reads only the options set on either object; over any options set on
    either (to their defaults or not), it is upstream's comparison of every value."""
    assert option_lookup.install() is True
    names = _bool_options()
    one = data.draw(st.dictionaries(st.sampled_from(names), st.booleans(), max_size=6))
    other = data.draw(st.dictionaries(st.sampled_from(names), st.booleans(), max_size=6))
    a, b = _flags(**one), _flags(**other)
    assert (a == b) is (_upstream_values(a) == _upstream_values(b))
    assert (b == a) is (a == b)
