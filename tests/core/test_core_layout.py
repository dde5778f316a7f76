"""Declared layouts (rules.core.layout): numbering, ranges, checked writes, docs."""

from __future__ import annotations

import numpy as np
import pytest

from escaramuza.rules.core.kernel import KernelRefusal
from escaramuza.rules.core.layout import Columns


class CS(Columns):
    ZONE = (0, "zones", "the zone's index")
    PV = (0, 12, "puntos de vida left")
    COND = (0, 1, "each condition, present or not", 3)
    KO = (-1, 1 << 40, "round of the knock-out")


def test_members_are_column_indices_in_declaration_order_with_spans() -> None:
    assert [int(c) for c in CS] == [0, 1, 2, 5]
    assert CS.width() == 6
    assert CS.new(4, 3).shape == (4, 3, 6)
    assert CS.new(2).dtype == np.int64
    assert CS.PV.meaning == "puntos de vida left"


def test_put_writes_checked_values_and_names_what_is_out_of_range() -> None:
    row = CS.new()
    CS.put(row, "brann", {"zones": 4}, zone=3, pv=12, cond=[1, 0, 1], ko=-1)
    assert row.tolist() == [3, 12, 1, 0, 1, -1]
    with pytest.raises(KernelRefusal, match="brann: pv -5 is outside 0–12"):
        CS.put(row, "brann", pv=-5)
    with pytest.raises(KernelRefusal, match="brann: zone 4 is outside 0–3"):
        CS.put(row, "brann", {"zones": 4}, zone=4)
    with pytest.raises(KernelRefusal, match="at most 3 values"):
        CS.put(row, "brann", cond=[0, 0, 0, 0])
    with pytest.raises(KernelRefusal, match="not an integer"):
        CS.put(row, "brann", pv="7")
    with pytest.raises(KeyError):
        CS.put(row, "brann", hp=3)  # not a declared column


def test_a_python_int_too_big_for_int64_is_refused_before_it_is_stored() -> None:
    row = CS.new()
    with pytest.raises(KernelRefusal, match="ko"):
        CS.put(row, "brann", ko=1 << 70)


def test_check_names_the_column_and_the_row() -> None:
    cs = CS.new(3)
    cs[:, CS.ZONE] = [0, 1, 2]
    CS.check(cs, "state", {"zones": 3})
    cs[2, CS.COND + 1] = 2
    with pytest.raises(KernelRefusal, match=r"state: cond\[2, 1\] 2 is outside 0–1"):
        CS.check(cs, "state", {"zones": 3})
    with pytest.raises(KernelRefusal, match="5 columns, the layout declares 6"):
        CS.check(np.zeros((2, 5), dtype=np.int64), "state")


def test_column_reads_back_a_view() -> None:
    cs = CS.new(2, 4)
    cs[..., CS.PV] = 7
    assert CS.column(cs, "pv").shape == (2, 4)
    assert CS.column(cs, "cond").shape == (2, 4, 3)
    assert (CS.column(cs, "pv") == 7).all()


def test_the_table_documents_every_column() -> None:
    table = CS.table().splitlines()
    assert table[2] == "| `zone` | 0 | 0 … zones − 1 | the zone's index |"
    assert table[4] == "| `cond` | 2–4 | 0 … 1 | each condition, present or not |"
    assert table[5] == "| `ko` | 5 | -1 … 2**40 | round of the knock-out |"
    assert len(table) == 2 + len(CS)
