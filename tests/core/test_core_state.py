"""Combatant and BattleState: cheap clones that are truly independent; small model values."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from escaramuza.rules.core.battlefield import Battlefield, Zone
from escaramuza.rules.core.errors import UnknownNameError
from escaramuza.rules.core.events import Note
from escaramuza.rules.core.model import (
    Action,
    Combatant,
    Condition,
    Decision,
    DecisionKind,
    Outcome,
    Side,
    Status,
)
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState


def make_state() -> BattleState:
    bf = Battlefield(
        [Zone("a", "A"), Zone("b", "B"), Zone("c", "C")], [("a", "b", {}), ("b", "c", {})]
    )
    stats = SimpleNamespace(cuerpo=8)
    combatants = (
        Combatant(
            "nara",
            "Nara",
            Side.HEROES,
            "a",
            0,
            stats,
            {"pv": 10, "pc": 0},
            {"pv": 10, "pc": 10},
            items=("espada",),
        ),
        Combatant("rival", "Rival", Side.ENEMIES, "c", 1, stats, {"pv": 6}, {"pv": 6}, pc=False),
        Combatant(
            "rival2",
            "Rival 2",
            Side.ENEMIES,
            "b",
            2,
            stats,
            {"pv": 6},
            {"pv": 6},
            status=Status.DOWN,
            pc=False,
        ),
    )
    scenario = Scenario(
        "test",
        "Test",
        "",
        SimpleNamespace(id="toy"),
        None,
        bf,
        combatants,
        20,
        "defeat_all",
        "test.yaml",
    )
    state = BattleState(scenario, [c.clone() for c in scenario.combatants])
    state.pending = Decision(DecisionKind.TURN, "nara", Side.HEROES)
    state.round = 2
    state.data["order"] = ("nara", "rival")
    state.log.append(Note("started"))
    state.combatants[0].conditions["envenenado"] = Condition("envenenado", 2)
    state.combatants[0].data["help"] = 1
    return state


def test_state_clone_is_independent() -> None:
    state = make_state()
    copy = state.clone()
    c = copy.get("nara")
    c.resources["pv"] = 3
    c.conditions["derribado"] = Condition("derribado")
    del c.conditions["envenenado"]
    c.data["help"] = 0
    c.zone = "b"
    c.status = Status.DOWN
    copy.data["order"] = ("rival",)
    copy.round = 5
    copy.pending = None
    copy.log.append(Note("only in the copy"))
    copy.combatants.pop()

    original = state.get("nara")
    assert original.resources == {"pv": 10, "pc": 0}
    assert set(original.conditions) == {"envenenado"}
    assert original.data == {"help": 1}
    assert original.zone == "a" and original.status is Status.ACTIVE
    assert state.data["order"] == ("nara", "rival")
    assert state.round == 2 and state.pending is not None
    assert [e.text for e in state.log] == ["started"]
    assert len(state.combatants) == 3


def test_state_clone_shares_only_immutable_parts() -> None:
    state = make_state()
    copy = state.clone()
    assert copy.scenario is state.scenario and copy.battlefield is state.battlefield
    assert copy.ruleset is state.ruleset and copy.options is state.options
    for old, new in zip(state.combatants, copy.combatants, strict=True):
        assert new is not old
        assert new.stats is old.stats  # shared validated stat block, never mutated
        assert new.resources is not old.resources and new.resources == old.resources
        assert new.conditions is not old.conditions and new.data is not old.data
        assert copy.by_id[new.id] is new
    assert copy.data is not state.data
    assert [e.text for e in copy.log] == ["started"] and copy.log is not state.log


def test_state_clone_without_log() -> None:
    copy = make_state().clone(keep_log=False)
    assert copy.log == []


def test_state_queries() -> None:
    state = make_state()
    assert [c.id for c in state.side(Side.ENEMIES)] == ["rival", "rival2"]
    assert [c.id for c in state.active()] == ["nara", "rival"]
    assert [c.id for c in state.active(Side.ENEMIES)] == ["rival"]
    assert state.distance(state.get("nara"), state.get("rival")) == 2
    assert state.acting is state.get("nara")
    assert not state.terminal
    state.outcome = Outcome(Side.HEROES, "defeated", 2)
    assert state.terminal
    with pytest.raises(UnknownNameError, match="unknown combatant 'x' .*nara, rival, rival2"):
        state.get("x")
    assert "round 2, pending nara" in repr(state)


def test_combatant_clone_and_flags() -> None:
    c = make_state().get("nara")
    assert c.active and c.has("envenenado") and not c.has("derribado")
    d = c.clone()
    assert d == c and d is not c
    # clone() sets the fields one by one (no __init__): none may be missed, and the
    # mutable ones are copies while the shared ones (stats, maxima) are the same objects.
    for f in dataclasses.fields(Combatant):
        mine, theirs = getattr(d, f.name), getattr(c, f.name)
        assert mine == theirs, f.name
        if f.name in ("resources", "conditions", "data"):
            assert mine is not theirs, f.name
    d.resources["pv"] = 0
    d.data["x"] = 1
    d.conditions.clear()
    assert c.resources["pv"] == 10 and "x" not in c.data and c.has("envenenado")


@pytest.mark.parametrize(
    ("action", "text", "as_dict"),
    [
        (
            Action("atacar", "nara", target="rival", item="espada"),
            "nara: atacar a rival con espada",
            {"verb": "atacar", "actor": "nara", "target": "rival", "item": "espada"},
        ),
        (
            Action("mover", "nara", zone="b"),
            "nara: mover hacia b",
            {"verb": "mover", "actor": "nara", "zone": "b"},
        ),
        (
            Action("contraatacar", "zara", option="reposition"),
            "zara: contraatacar (reposition)",
            {"verb": "contraatacar", "actor": "zara", "option": "reposition"},
        ),
        (Action("esperar", "rex"), "rex: esperar", {"verb": "esperar", "actor": "rex"}),
    ],
)
def test_action_text_and_dict(action: Action, text: str, as_dict: dict[str, str]) -> None:
    assert str(action) == text
    assert action.to_dict() == as_dict
    assert action == Action(**as_dict)
    assert hash(action) == hash(Action(**as_dict))


def test_side_other() -> None:
    assert Side.HEROES.other is Side.ENEMIES and Side.ENEMIES.other is Side.HEROES
    assert Side("heroes") is Side.HEROES
