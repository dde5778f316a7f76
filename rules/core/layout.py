"""Declared array layouts: a kernel array's columns, their ranges and meanings, once.

A kernel keeps a battle in a few integer arrays (docs/fast-path.md, "One dialect"):
the static bundle's per-combatant sheet ``stat[c, ST.*]`` and weapons
``weapon[c, w, W.*]``, the dynamic bundle's per-combatant state ``cs[c, CS.*]`` and
battle globals ``g[G.*]``. Each array's columns are declared once, as a
:class:`Columns` enum in the ruleset's kernel module::

    class CS(Columns):
        ZONE = (0, "zones", "the zone the combatant stands in (its index)")
        PV = (0, MAX_RESOURCE, "puntos de vida left")
        COND = (0, 1, "each condition, present or not", len(CONDITIONS))

A member is its first column's index (an ``int``: numba folds ``cs[c, CS.PV]`` to a
constant), numbered in declaration order; a member with a width spans that many
columns (``cs[c, CS.COND + k]``). From the declaration come the array's width
(:meth:`Columns.width`), new arrays (:meth:`Columns.new`), the writing of a row from
named values with the kernel boundary's range check (:meth:`Columns.put`), the check of
a whole array (:meth:`Columns.check`), reading a column back (:meth:`Columns.column`)
and the layout's documentation (:meth:`Columns.table`). A column can no longer drift
from its neighbour's number, and no value reaches compiled code unchecked.

A range's bound is an int or the name of a scenario dimension (``"zones"``,
``"combatants"``…) given when checking; a name's bound is that dimension minus one.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

import numpy as np

from escaramuza.rules.core.kernel import BOUND, KernelRefusal, check_range

Bound = int | str


class Columns(IntEnum):
    """One kernel array's declared columns (see the module's docstring).

    Members are declared as ``NAME = (lo, hi, meaning)`` or ``(lo, hi, meaning, width)``.
    """

    _spec: tuple[Bound, Bound, str, int]

    def __new__(cls, lo: Bound, hi: Bound, meaning: str, span: int = 1) -> Columns:
        members = list(cls.__members__.values())
        value = members[-1].value + members[-1].span if members else 0
        obj = int.__new__(cls, value)
        obj._value_ = value
        obj._spec = (lo, hi, meaning, span)
        return obj

    @property
    def lo(self) -> Bound:
        """The least value the column holds (an int or a dimension's name)."""
        return self._spec[0]

    @property
    def hi(self) -> Bound:
        """The greatest value the column holds (an int or a dimension's name)."""
        return self._spec[1]

    @property
    def meaning(self) -> str:
        """What the column holds, for the docs."""
        return self._spec[2]

    @property
    def span(self) -> int:
        """How many columns this member spans (1, or a wide column's width)."""
        return self._spec[3]

    @classmethod
    def width(cls) -> int:
        """The number of columns (the array's last dimension)."""
        last = list(cls)[-1]
        return int(last) + last.span

    @classmethod
    def new(cls, *rows: int) -> np.ndarray:
        """A zeroed int64 array of shape ``(*rows, width)``."""
        return np.zeros((*rows, cls.width()), dtype=np.int64)

    def bounds(self, dims: Mapping[str, int] | None = None) -> tuple[int, int]:
        """This column's ``(lo, hi)``, a dimension's name resolved through ``dims``."""

        def resolve(bound: Bound) -> int:
            if isinstance(bound, int):
                return bound
            if dims is None or bound not in dims:
                return BOUND
            return dims[bound] - 1

        return resolve(self.lo), resolve(self.hi)

    def label(self) -> str:
        """The column's name as messages and docs show it (``pv``)."""
        return self.name.lower()

    @classmethod
    def put(
        cls,
        row: np.ndarray,
        what: str,
        dims: Mapping[str, int] | None = None,
        error: type[Exception] = KernelRefusal,
        **values: Any,
    ) -> None:
        """Write ``values`` (column name in lower case → int, or a sequence of ints for a
        wide column) into ``row``, each checked against its declared range: out of
        range is ``error`` naming ``what`` and the column (``brann: pv -5 is outside
        0–12``)."""
        for name, value in values.items():
            column = cls[name.upper()]
            lo, hi = column.bounds(dims)
            check_range(value, lo, hi, f"{what}: {column.label()}", error)
            if column.span == 1:
                row[int(column)] = value
            else:
                items = list(value)
                if len(items) > column.span:
                    raise error(f"{what}: {column.label()} holds at most {column.span} values")
                row[int(column) : int(column) + len(items)] = items

    @classmethod
    def check(
        cls,
        array: np.ndarray,
        what: str,
        dims: Mapping[str, int] | None = None,
        error: type[Exception] = KernelRefusal,
    ) -> None:
        """Check every column of ``array`` (last dimension: this layout) against its
        range; the message names ``what``, the column and the row."""
        if array.shape[-1] != cls.width():
            raise error(f"{what}: {array.shape[-1]} columns, the layout declares {cls.width()}")
        for column in cls:
            lo, hi = column.bounds(dims)
            values = array[..., int(column) : int(column) + column.span]
            check_range(values, lo, hi, f"{what}: {column.label()}", error)

    @classmethod
    def column(cls, array: np.ndarray, name: str) -> np.ndarray:
        """Column ``name`` of ``array`` over its leading dimensions (a view; a wide
        column keeps its last dimension)."""
        column = cls[name.upper()]
        if column.span == 1:
            return array[..., int(column)]
        return array[..., int(column) : int(column) + column.span]

    @classmethod
    def table(cls) -> str:
        """The layout as a Markdown table: column, index, range, meaning."""
        lines = ["| column | index | range | meaning |", "| --- | ---: | --- | --- |"]
        for column in cls:
            index = str(int(column))
            if column.span > 1:
                index = f"{int(column)}–{int(column) + column.span - 1}"
            hi = column.hi if isinstance(column.hi, str) else _shown(column.hi)
            hi = f"{hi} − 1" if isinstance(column.hi, str) else hi
            lo = column.lo if isinstance(column.lo, str) else _shown(column.lo)
            lines.append(f"| `{column.label()}` | {index} | {lo} … {hi} | {column.meaning} |")
        return "\n".join(lines)


def _shown(n: int) -> str:
    m = abs(n)
    if m >= 1 << 20 and m & (m - 1) == 0:
        return f"{'-' if n < 0 else ''}2**{m.bit_length() - 1}"
    return str(n)
