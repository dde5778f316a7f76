"""The scripted Donjon heuristic picks the sensible action in clear-cut situations."""

from __future__ import annotations

import random

import pytest

from escaramuza.agents.heuristics.donjon import attack_hurt_chance, choose
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.state import BattleState
from tests.rules.donjon.donjon_helpers import act, begin, d20, fighter, play, scenario

ARCO = {"name": "arco", "kind": "distancia", "damage": 1}


def _pick(state: BattleState) -> Action:
    return choose(state, state.ruleset.legal_actions(state), random.Random(0))


@pytest.mark.parametrize(
    ("defender", "verb"),
    [
        ({"cel": 5, "skills": {"ataque": 4}}, "parar"),  # 9 parry dice vs 3: a likely counter
        ({"cel": 1, "skills": {"esquivar": 5}}, "esquivar"),  # 1 parry die, 6 dodge dice
        ({"cel": 2}, "esquivar"),  # 2 vs 3: a counter is unlikely, keep the action
    ],
)
def test_heuristic_parries_when_it_pays(defender: dict[str, object], verb: str) -> None:
    sc = scenario(fighter("hero"), fighter("foe", "enemies", **defender))  # type: ignore[arg-type]
    state, _ = begin(sc, [20, 1], [10, 5])
    play(state, [], act("atacar", "hero", "foe", "espada"))
    assert _pick(state).verb == verb


@pytest.mark.parametrize(
    ("heridas", "celeridad", "successes", "option"),
    [
        (5, 3, 2, "heridas"),  # the default
        (3, 1, 4, "heridas"),  # enough to drop the PNJ: Heridas
        (5, 2, 4, "celeridad"),  # cannot drop it, but 1 fact + 3 éxitos take all its Celeridad
        (5, 3, 3, "heridas"),  # 1 fact + 2 éxitos leave Celeridad 1: not worth it
    ],
)
def test_heuristic_spends_on_heridas_unless_an_attribute_blow_is_better(
    heridas: int, celeridad: int, successes: int, option: str
) -> None:
    sc = scenario(
        fighter("hero"), fighter("foe", "enemies", heridas=heridas, cel=celeridad, weapons=[ARCO])
    )
    state, _ = begin(sc, [20, 1], [2, 1])
    dodge = [5, 4, 3][:celeridad]
    damage = [20 - i for i in range(successes)] + [1] * (5 - successes)
    play(
        state,
        d20(20, 1, 1, *dodge) + d20(*damage, 10, 9, 8),
        act("atacar", "hero", "foe", "espada"),
    )
    assert _pick(state).option == option


def test_dj19_heuristic_counts_the_resistance_die_of_a_pc_at_aguante_zero() -> None:
    # A PJ at Aguante 0 (no armour, no ability) still resists with one die (DJ-19). Against
    # no die at all every won attack would hurt (hurt chance = P(hit)); with the die some
    # won attacks are shrugged off. The heuristic's chance is the odds' P(damage > 0), which
    # test_donjon_odds checks against the enumerated engine.
    sc = scenario(fighter("hero", weapons=[ARCO]), fighter("foe", "enemies"))
    state, _ = begin(sc, [2, 1], [20, 1])
    hero, foe = state.by_id["hero"], state.by_id["foe"]
    hero.resources["aguante"] = 0
    chance = attack_hurt_chance(state, foe, hero, foe.stats.weapons[0])
    odds = state.ruleset.odds(state, act("atacar", "foe", "hero", "espada"))
    assert odds is not None and odds.damage is not None
    assert chance == pytest.approx(1.0 - odds.damage[0], abs=1e-12)
    assert 0 < chance < odds.p_hit - 0.01


def test_heuristic_attacks_the_opponent_it_is_most_likely_to_hurt() -> None:
    sc = scenario(
        fighter("hero", skills={"ataque": 2}),
        fighter("tank", "enemies", agu=6, armour=6, skills={"esquivar": 4}),
        fighter("weak", "enemies", agu=1, cel=1),
    )
    state, _ = begin(sc, [20, 1], [2, 1], [2, 1])
    assert _pick(state) == act("atacar", "hero", "weak", "espada")


@pytest.mark.parametrize(
    ("arms", "hero_zone", "foe_zone", "verb"),
    [
        ([{"name": "espada", "damage": 1}], "a", "c", "acercarse"),  # melee closes in
        ([ARCO], "a", "a", "alejarse"),  # a bow cannot shoot in contact: back off
    ],
)
def test_heuristic_closes_to_its_weapons_best_range(
    arms: list[dict[str, object]], hero_zone: str, foe_zone: str, verb: str
) -> None:
    sc = scenario(
        fighter("hero", zone=hero_zone, weapons=arms), fighter("foe", "enemies", zone=foe_zone)
    )
    state, _ = begin(sc, [20, 1], [2, 1])
    assert _pick(state) == act(verb, "hero", "foe")


@pytest.mark.parametrize(("hero_heridas", "verb"), [(5, "continuar"), (1, "retirarse")])
def test_heuristic_continues_while_its_side_is_ahead(hero_heridas: int, verb: str) -> None:
    sc = scenario(fighter("hero"), fighter("foe", "enemies", zone="c"))
    state, _ = begin(sc, [2, 1], [2, 1])
    while state.pending is not None and state.pending.name == "turn":
        play(state, [], act("esperar", state.pending.actor))
    state.by_id["hero"].resources["heridas"] = hero_heridas
    assert _pick(state).verb == verb


@pytest.mark.parametrize(
    ("temperament", "heridas", "verb"),
    [("coward", 1, "alejarse"), ("coward", 5, "atacar"), ("tactician", 1, "atacar")],
)
def test_heuristic_coward_runs_when_hurt(temperament: str, heridas: int, verb: str) -> None:
    sc = scenario(fighter("hero"), fighter("foe", "enemies", cel=1, agu=1))
    state, _ = begin(sc, [20, 1], [2, 1])
    state.by_id["hero"].resources["heridas"] = heridas
    actions = state.ruleset.legal_actions(state)
    assert choose(state, actions, random.Random(0), temperament=temperament).verb == verb
