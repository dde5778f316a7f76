"""records_from_columns: a kernel chunk's arrays as the playtest's records."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from escaramuza.playtest.records import BattleRecord, CombatantRecord, records_from_columns
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.kernel import BattleColumns, KernelBattle


def _columns() -> BattleColumns:
    # Three battles, two combatants: a hero win, an enemy win with a wipe and a death,
    # a timeout draw.
    return BattleColumns(
        winner=np.array([0, 1, 2]),
        reason=np.array([0, 0, 1]),
        reasons=("defeated", "timeout"),
        rounds=np.array([3, 5, 10]),
        wipe=np.array([False, True, False]),
        ko_round=np.array([[-1, 3], [4, -1], [-1, -1]]),
        died=np.array([[False, False], [True, False], [False, False]]),
        dealt=np.array([[6, 0], [0, 7], [2, 2]]),
        dealt_to_foes=np.array([[6, 0], [0, 7], [2, 2]]),
        taken=np.array([[0, 6], [7, 0], [2, 2]]),
    )


def test_records_from_columns_field_by_field() -> None:
    records = records_from_columns(40, [111, 222, 333], _columns())
    assert records == [
        BattleRecord(
            40,
            111,
            "heroes",
            "defeated",
            3,
            False,
            (CombatantRecord(-1, False, 6, 6, 0), CombatantRecord(3, False, 0, 0, 6)),
        ),
        BattleRecord(
            41,
            222,
            "enemies",
            "defeated",
            5,
            True,
            (CombatantRecord(4, True, 0, 0, 7), CombatantRecord(-1, False, 7, 7, 0)),
        ),
        BattleRecord(
            42,
            333,
            None,
            "timeout",
            10,
            False,
            (CombatantRecord(-1, False, 2, 2, 2), CombatantRecord(-1, False, 2, 2, 2)),
        ),
    ]
    # Python values, not numpy scalars: the JSON and the statistics read them as such.
    assert all(type(r.rounds) is int and type(r.wipe) is bool for r in records)
    assert type(records[1].combatants[0].died) is bool
    # Equal rows are one shared (frozen) object; a pickled chunk round-trips equal.
    assert records[2].combatants[0] is records[2].combatants[1]
    assert pickle.loads(pickle.dumps(records)) == records


def test_records_from_columns_of_no_battles() -> None:
    empty = BattleColumns.of([])
    assert records_from_columns(0, [], empty) == []


def test_columns_of_kernel_battles_round_trip() -> None:
    battles = [
        KernelBattle(
            7,
            "enemies",
            "mutual",
            2,
            True,
            9,
            ("down", "active"),
            ("a", "b"),
            ((("pv", 0),), (("pv", 3),)),
            ((), ()),
            (2, -1),
            (False, False),
            (1, 4),
            (1, 4),
            (4, 1),
        ),
        KernelBattle(
            8,
            None,
            "timeout",
            10,
            False,
            30,
            ("active", "active"),
            ("a", "a"),
            ((("pv", 1),), (("pv", 1),)),
            ((), ()),
            (-1, -1),
            (False, True),
            (0, 0),
            (0, 0),
            (0, 0),
        ),
    ]
    records = records_from_columns(0, [7, 8], BattleColumns.of(battles))
    assert [(r.winner, r.reason, r.rounds, r.wipe) for r in records] == [
        ("enemies", "mutual", 2, True),
        (None, "timeout", 10, False),
    ]
    assert records[1].combatants[1] == CombatantRecord(-1, True, 0, 0, 0)


def test_a_chunk_of_the_wrong_length_is_an_error_not_a_shorter_playtest() -> None:
    with pytest.raises(EscaramuzaError, match="3 battles for 2 seeds"):
        records_from_columns(0, [1, 2], _columns())


@pytest.mark.parametrize(("combatants", "top"), [(2, 2), (12, 10**6)])
def test_line_ups_shared_or_built_per_battle_read_the_same(combatants: int, top: int) -> None:
    # Two combatants with small counts: each distinct line-up is one shared tuple. Twelve
    # with counts up to a million: the line-ups do not fit one integer, built one by one.
    rng = np.random.default_rng(combatants)
    n = 300
    counts = [rng.integers(0, top, size=(n, combatants)) for _ in range(3)]
    ko = rng.integers(-1, 1 if top == 2 else 4, size=(n, combatants))
    died = rng.integers(0, 2, size=(n, combatants)).astype(bool)
    columns = BattleColumns(
        winner=rng.integers(0, 3, size=n),
        reason=np.zeros(n, dtype=np.int64),
        reasons=("defeated",),
        rounds=rng.integers(1, 9, size=n),
        wipe=rng.integers(0, 2, size=n).astype(bool),
        ko_round=ko,
        died=died,
        dealt=counts[0],
        dealt_to_foes=counts[1],
        taken=counts[2],
    )
    records = records_from_columns(0, list(range(n)), columns)
    for b, record in enumerate(records):
        assert record.combatants == tuple(
            CombatantRecord(
                int(ko[b, c]),
                bool(died[b, c]),
                int(counts[0][b, c]),
                int(counts[1][b, c]),
                int(counts[2][b, c]),
            )
            for c in range(combatants)
        )
        assert record.wipe is bool(columns.wipe[b])
    if combatants == 2:  # 300 battles of 32 possible rows each: line-ups repeat
        same = [r.combatants for r in records]
        repeats = [(a, b) for a in range(n) for b in range(a) if same[a] == same[b]]
        assert repeats and all(same[a] is same[b] for a, b in repeats)
