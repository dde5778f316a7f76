"""The Sistema 2d10 heuristic picks the sensible action in clear situations."""

from __future__ import annotations

import random
from typing import Any

import pytest

from escaramuza.agents.heuristics.sistema_2d10 import choose
from escaramuza.rules.core.model import Action

RNG = random.Random(0)


def _pick(state: Any) -> Action:
    return choose(state, state.ruleset.legal_actions(state), RNG)


def _arm(damage: str) -> list[dict[str, str]]:
    return [{"name": "espada", "skill": "espada", "attribute": "destreza", "damage": damage}]


@pytest.mark.parametrize(
    ("damage", "ca", "expected"),
    [
        ("1d10+4", 0, "defender"),
        ("1d4", 5, "no_defender"),
        ("1d6", 4, "no_defender"),
        ("1d6", 2, "defender"),
    ],
)
def test_s208_defends_actively_when_the_blow_is_likely_to_hurt(
    tools: Any, damage: str, ca: int, expected: str
) -> None:
    t = tools
    scn = t.duel(hero={"weapons": _arm(damage)}, foe={"ca": ca, "pv": 40})
    state, roller = t.start(scn, t.HERO_FIRST + ["d10=6", "d10=6"])
    t.act(state, roller, "atacar", target="e", item="espada", option="libre")
    assert state.pending.name == "active_defence"
    assert _pick(state).verb == expected


@pytest.mark.parametrize(
    ("espada", "faces", "expected"),
    [
        (30, ("d10=6", "d10=2"), "gastar_dado"),  # 8 + 6 = 14 vs 16: any d10 ≥ 2 (90 %)
        (30, ("d10=3", "d10=3"), "gastar_dado"),  # 12: needs ≥ 4 (70 %)
        (30, ("d10=2", "d10=1"), "gastar_dado"),  # 9: needs ≥ 7 (40 %)
        (0, ("d10=3", "d10=2"), "no_gastar"),  # MHC 3: 8 needs ≥ 8 (30 %)
        (0, ("d10=2", "d10=2"), "no_gastar"),  # 7 needs ≥ 9 (20 %)
    ],
)
def test_s205_spends_a_dado_expres_when_it_flips_the_result(
    tools: Any, espada: int, faces: tuple[str, str], expected: str
) -> None:
    t = tools
    skills = {"espada": espada, "esquivar": 30, "cubrir": 20, "resistencia_al_dolor": 30}
    scn = t.duel(hero={"dados_expres": 1, "skills": skills})
    state, roller = t.start(scn, t.HERO_FIRST + list(faces))
    t.act(state, roller, "atacar", target="e", item="espada", option="libre")
    assert state.pending.name == "expres_before"
    assert _pick(state).verb == "no_gastar"  # after the roll is never worse than before
    t.act(state, roller, "no_gastar")
    assert state.pending.name == "expres_after"
    assert _pick(state).verb == expected


def test_s205_spends_to_lift_an_aguante_stun(tools: Any) -> None:
    t = tools
    scn = t.duel(foe={"dados_expres": 1})
    dice = t.HERO_FIRST + ["d10=6", "d10=6", "d10=10", "d10=5", "d10=5", "d10=5"]
    state, roller = t.start(scn, dice)
    t.act(state, roller, "atacar", target="e", item="espada", option="libre")
    t.act(state, roller, "no_defender")
    assert state.pending.name == "expres_before" and state.pending.actor == "e"
    t.act(state, roller, "no_gastar")
    assert state.pending.name == "expres_after"  # exactly 16: aturdido unless raised
    assert _pick(state).verb == "gastar_dado"


@pytest.mark.parametrize(
    ("espada", "expected"),
    [(70, "punto_vital"), (0, "libre")],
)
def test_s213_aims_when_it_pays(tools: Any, espada: int, expected: str) -> None:
    t = tools
    skilled = {"espada": espada, "esquivar": 30, "cubrir": 20, "resistencia_al_dolor": 30}
    clumsy = {"esquivar": 0, "cubrir": 0, "resistencia_al_dolor": 30}  # defensa pasiva 13
    scn = t.duel(hero={"skills": skilled}, foe={"pv": 200, "skills": clumsy})
    state, _ = t.start(scn, t.HERO_FIRST)
    action = _pick(state)
    assert (action.verb, action.option) == ("atacar", expected)


def test_s207_closes_in_when_no_foe_is_in_reach(tools: Any) -> None:
    t = tools
    scn = t.duel(foe={"zone": "c"})
    state, _ = t.start(scn, t.HERO_FIRST)
    assert _pick(state) == Action("mover", "h", zone="b")


def test_s209_cautious_and_hurt_goes_into_full_defence(tools: Any) -> None:
    t = tools
    scn = t.scenario(t.fighter("h", "heroes", temperament="cautious"), t.fighter("e", "enemies"))
    state, _ = t.start(scn, t.HERO_FIRST)
    state.get("h").resources["pv"] = 5
    # The agent passes the combatant's scenario temperament to ``choose``.
    action = choose(state, state.ruleset.legal_actions(state), RNG, temperament="cautious")
    assert action.verb == "defensa_completa"
