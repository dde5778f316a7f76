"""The hot loop's precomputed tables and interned values follow the state they describe.

``legal_actions`` reads per-sheet weapon tables (``Sheet.by_band``), falls back to a
filtered list while a weapon is jammed or the wielder Desarmado, interns its Action
values and memoises movement lists per battlefield. These tests change what each of
those depends on and check the answer changes with it.
"""

from __future__ import annotations

import pytest

from escaramuza.rules.core import Action, ScriptedRoller, new_battle
from tests.rules.destiny_dice.destiny_dice_helpers import enemy, hero, scenario

SWORD = {"name": "espada", "tier": "media"}
BOW = {"name": "arco", "tier": "media", "kind": "distancia", "bands": ["cerca", "lejos"]}


def _state(*combatants, links=None):
    sc = scenario(*combatants, links=links)
    # Initiative: the hero (Mente d8) rolls 8, the enemy (Mente d4) rolls 1: the hero acts.
    return new_battle(sc, ScriptedRoller(["d8=8", "d4=1"]))


@pytest.mark.parametrize(
    ("jammed", "condition", "expected"),
    [
        # band index → usable weapons: 0 cuerpo a cuerpo, 1 cerca, 2 lejos (DD-05).
        (False, None, ({"espada", "puños"}, {"arco"}, {"arco"})),
        (True, None, ({"espada", "puños"}, set(), set())),  # DD-18: a jammed bow is out
        (False, "desarmado", ({"puños"}, set(), set())),  # Desarmado: unarmed only
    ],
)
def test_usable_by_band_follows_jams_and_disarm(jammed, condition, expected):
    conditions = [{"name": condition}] if condition else []
    state = _state(
        hero("h", mente="d8", weapons=[SWORD, BOW], conditions=conditions), enemy("e", mente="d4")
    )
    h = state.get("h")
    if jammed:
        h.data["jam:arco"] = True
    rules = state.ruleset
    assert tuple(set(names) for names in rules.usable_by_band(h)) == expected
    assert rules.usable_bands(h) == frozenset(i for i, names in enumerate(expected) if names)


@pytest.mark.parametrize(
    ("enemy_zone", "items"), [("a", {"espada", "puños"}), ("b", {"arco"}), ("d", {"arco"})]
)
def test_attack_list_changes_with_the_jam_and_the_distance(enemy_zone, items):
    state = _state(
        hero("h", mente="d8", weapons=[SWORD, BOW]), enemy("e", zone=enemy_zone, mente="d4")
    )
    rules = state.ruleset

    def attack_items():
        return {a.item for a in rules.legal_actions(state) if a.verb == "atacar"}

    assert attack_items() == items
    state.get("h").data["jam:arco"] = True
    assert attack_items() == items - {"arco"}
    del state.get("h").data["jam:arco"]
    assert attack_items() == items


def test_movement_lists_belong_to_their_battlefield():
    # Same combatant id, same zone name, two maps: a → b on one, a → b and a → c on the other.
    line = _state(hero("h", mente="d8"), enemy("e", zone="d", mente="d4"))
    star = _state(
        hero("h", mente="d8"),
        enemy("e", zone="d", mente="d4"),
        links=[["a", "b"], ["a", "c"], ["c", "d"]],
    )
    moves = [
        {a.zone for a in s.ruleset.legal_actions(s) if a.verb == "mover"} for s in (line, star)
    ]
    assert moves == [{"b"}, {"b", "c"}]


def test_legal_lists_are_fresh_lists_of_plain_equal_actions():
    state = _state(hero("h", mente="d8", weapons=[SWORD, BOW]), enemy("e", zone="b", mente="d4"))
    first = state.ruleset.legal_actions(state)
    first.append(Action("fin_turno", "x"))  # a caller may change its own list…
    again = state.ruleset.legal_actions(state)
    assert again == first[:-1]  # …without changing the next answer
    assert all(a == Action(**a.to_dict()) for a in again)
