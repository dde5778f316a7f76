"""Interned frozen values (rules/core/model.py): equal values, shared instances, a bounded table."""

from __future__ import annotations

import pytest

from escaramuza.rules.core import model
from escaramuza.rules.core.model import (
    Action,
    Decision,
    DecisionKind,
    Side,
    interned,
    interned_action,
)


@pytest.mark.parametrize(
    "fields",
    [
        {"verb": "atacar", "actor": "a", "target": "b", "item": "espada"},
        {"verb": "mover", "actor": "a", "zone": "z2"},
        {"verb": "repartir", "actor": "a", "option": "herida"},
        {"verb": "fin_turno", "actor": "a"},
    ],
)
def test_interned_action_equals_a_fresh_one_and_is_shared(fields: dict[str, str]) -> None:
    first = interned_action(**fields)
    assert first == Action(**fields)
    assert hash(first) == hash(Action(**fields))
    assert interned_action(**fields) is first
    args = (
        fields["verb"],
        fields["actor"],
        fields.get("target"),
        fields.get("zone"),
        fields.get("item"),
        fields.get("option"),
    )
    assert interned(Action, *args) is first


def test_interned_values_are_keyed_by_their_class_too() -> None:
    turn = interned(Decision, DecisionKind.TURN, "a", Side.HEROES, "turn")
    assert turn == Decision(DecisionKind.TURN, "a", Side.HEROES, "turn")
    assert interned(Decision, DecisionKind.TURN, "a", Side.HEROES, "turn") is turn
    # Same arguments, another class: another value.
    assert interned(tuple, ("a",)) == ("a",)
    assert interned(Decision, DecisionKind.TURN, "a", Side.ENEMIES, "turn") is not turn


def test_different_fields_give_different_actions() -> None:
    assert interned_action("atacar", "a", "b", item="x") != interned_action(
        "atacar", "a", "b", item="y"
    )
    # zone and item are not interchangeable although both are positional strings.
    assert interned_action("mover", "a", zone="z") != interned_action("mover", "a", item="z")


def test_the_table_is_emptied_past_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model, "_INTERNED", {})
    monkeypatch.setattr(model, "_MAX_INTERNED", 3)
    made = [interned_action("pasar", f"c{i}") for i in range(10)]
    assert len(model._INTERNED) <= 3
    # Still the right values after every clear.
    assert made == [Action("pasar", f"c{i}") for i in range(10)]


def test_identity_memo_builds_once_per_object_and_tells_equal_objects_apart() -> None:
    from escaramuza.rules.core.model import IdentityMemo

    calls: list[object] = []

    def build(obj: list[int]) -> int:
        calls.append(obj)
        return sum(obj)

    memo: IdentityMemo[list[int], int] = IdentityMemo(build, limit=2)
    a, b = [1, 2], [1, 2]  # equal but distinct (and unhashable) objects
    assert [memo(a), memo(a), memo(b)] == [3, 3, 3]
    assert [x is a for x in calls] == [True, False] and calls[1] is b
    # Past its limit the table is emptied, and values are rebuilt, still right.
    c = [5]
    assert memo(c) == 5
    assert len(memo._table) <= 2
    assert memo(a) == 3
