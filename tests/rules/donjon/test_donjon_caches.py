"""The hot-loop caches of the Donjon rules and heuristic give what a fresh computation gives.

Each cache is keyed by the objects its value is derived from (a stat block, a battlefield)
or by every input of the value; these tests change those inputs and check the answer
follows, and compare the one-pass initiative call with the seed's count-down loop.
"""

from __future__ import annotations

import random

import pytest

from escaramuza.agents.heuristics.donjon import best_band
from escaramuza.rules.core.model import Action, Combatant, Status
from escaramuza.rules.core.scenario import parse_scenario
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.donjon import Donjon
from escaramuza.rules.donjon.combat import parry_weapon, weapon
from escaramuza.rules.donjon.rafaga import _faces_text
from tests.rules.donjon.donjon_helpers import begin, fighter, scenario

ESPADA = {"name": "espada", "kind": "cuerpo_a_cuerpo", "damage": 1}
ARCO = {"name": "arco", "kind": "distancia", "damage": 2}


def _turn(state: BattleState, actor: str) -> list[Action]:
    ruleset = state.ruleset
    assert isinstance(ruleset, Donjon)
    return ruleset._turn_actions(state, state.by_id[actor])


def test_turn_actions_and_weapons_follow_a_new_stat_block() -> None:
    sword = scenario(fighter("hero", weapons=[ESPADA]), fighter("foe", "enemies", zone="b"))
    bow = scenario(fighter("hero", weapons=[ARCO]), fighter("foe", "enemies", zone="b"))
    state, _ = begin(sword, [20, 19], [2, 1])
    hero = state.by_id["hero"]
    before = _turn(state, "hero")
    # A una acción a sword cannot attack (DJ-12).
    assert not any(a.verb == "atacar" for a in before)
    assert parry_weapon(hero) is not None and best_band(hero) == 0
    hero.stats = bow.combatants[0].stats  # a different (frozen) stat block
    after = _turn(state, "hero")
    assert Action("atacar", "hero", "foe", item="arco") in after
    assert weapon(hero, "arco").name == "arco"
    with pytest.raises(KeyError):
        weapon(hero, "espada")
    assert parry_weapon(hero) is None and best_band(hero) == 1


def _map(links: list[list[str]]) -> dict[str, object]:
    return {"zones": [{"id": z} for z in "abc"], "links": links}


@pytest.mark.parametrize(
    ("links", "can_step_away"),
    [
        ([["a", "b"], ["b", "c"]], True),  # a–b–c: from b, c is further from a
        ([["a", "b"], ["a", "c"]], False),  # b is a dead end next to a
    ],
)
def test_turn_actions_follow_the_battlefield(links: list[list[str]], can_step_away: bool) -> None:
    # Both maps are built in one process: the zone table of one must not answer for the other.
    states = {}
    for key, shape in (("line", [["a", "b"], ["b", "c"]]), ("fork", [["a", "b"], ["a", "c"]])):
        sc = parse_scenario(
            {
                "name": key,
                "ruleset": "donjon",
                "battlefield": _map(shape),
                "combatants": [fighter("hero", zone="b"), fighter("foe", "enemies", zone="a")],
            },
            "<test>",
        )
        states[key], _ = begin(sc, [20, 19], [2, 1])
    state = states["line" if can_step_away else "fork"]
    away = Action("alejarse", "hero", "foe")
    assert (away in _turn(state, "hero")) is can_step_away
    # Moving the state onto the other map changes the answer (the table follows the map).
    state.battlefield = states["fork" if can_step_away else "line"].battlefield
    assert (away in _turn(state, "hero")) is not can_step_away


def _count_down(state: BattleState) -> tuple[int, str | None]:
    """The seed's loop (DJ-05, DJ-06): call numbers down until an active holder acts."""
    count: int = state.data["count"]
    while count >= 1:
        best: Combatant | None = None
        best_key = (0, 0, 0)
        for c in state.combatants:
            if not c.active or count not in c.data["init"]:
                continue
            acted_at, times = c.data["acted"]
            key = (times if acted_at == count else 0, 0 if c.pc else 1, c.index)
            if best is None or key < best_key:
                best, best_key = c, key
        if best is not None:
            return count, best.id
        count -= 1
    return 0, None


def test_one_pass_initiative_call_matches_the_count_down() -> None:
    sc = scenario(
        fighter("h1"),
        fighter("h2", zone="b"),
        fighter("h3", "heroes", pc=False),
        fighter("e1", "enemies"),
        fighter("e2", "enemies", zone="b"),
        fighter("e3", "enemies", pc=True),
    )
    ruleset = Donjon()
    rng = random.Random(7)
    checked = 0
    for _ in range(400):
        state, _ = begin(sc, *([20, 19] for _ in range(6)))
        for c in state.combatants:
            c.data["init"] = tuple(
                sorted((rng.randint(1, 8) for _ in range(rng.randint(0, 3))), reverse=True)
            )
            c.data["acted"] = (rng.randint(0, 8), rng.randint(0, 2))
            # h1 and e1 stay up: the pause (DJ-07) asks each side's first active combatant.
            up = c.id in ("h1", "e1") or rng.random() < 0.8
            c.status = Status.ACTIVE if up else Status.DOWN
        state.data["count"] = rng.randint(0, 8)
        state.pending = None
        expected = _count_down(state)
        ruleset._advance(state)
        if expected[1] is None:
            assert state.data["count"] == 0 and state.pending is not None
            assert state.pending.name == "continuar" or state.outcome is not None
        else:
            assert state.pending is not None
            assert (state.data["count"], state.pending.actor) == expected
            checked += 1
    assert checked > 200  # most draws leave someone to call


@pytest.mark.parametrize(
    ("faces", "text"),
    [((20, 7, 1), "20, 7, 1"), ((), ""), ((101, 3), "101, 3"), ((100,), "100")],
)
def test_faces_text_is_the_plain_join(faces: tuple[int, ...], text: str) -> None:
    assert _faces_text(faces) == text == ", ".join(str(f) for f in faces)
