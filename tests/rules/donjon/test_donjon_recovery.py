"""DJ-20 healing between scenes and DJ-21 Heridas as a required scenario field."""

from __future__ import annotations

import pytest

from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.events import Healed
from escaramuza.rules.core.model import Status
from escaramuza.rules.donjon import heal_between_scenes
from tests.rules.donjon.donjon_helpers import begin, fighter, scenario


@pytest.mark.parametrize(
    ("damaged", "healed"),
    [
        # "El daño a los Atributos siempre es el primero en sanar, comenzando por el más bajo."
        (
            {"heridas": 2, "celeridad": 2, "aguante": 1},
            {"heridas": 2, "celeridad": 2, "aguante": 2},
        ),
        (
            {"heridas": 2, "celeridad": 1, "aguante": 1},
            {"heridas": 2, "celeridad": 2, "aguante": 1},
        ),  # a tie: sheet order
        # "Una vez que todos los Atributos están curados, se regeneran las Heridas."
        ({"heridas": 2}, {"heridas": 3}),
        ({}, {}),
    ],
)
def test_dj20_pcs_recover_one_die_or_one_herida_per_scene(
    damaged: dict[str, int], healed: dict[str, int]
) -> None:
    sc = scenario(fighter("hero"), fighter("foe", "enemies"))
    state, _ = begin(sc, [2, 1], [2, 1])
    hero, foe = state.by_id["hero"], state.by_id["foe"]
    hero.resources.update(damaged)
    foe.resources.update(damaged)
    events = heal_between_scenes(state)
    assert {k: hero.resources[k] for k in healed} == healed
    assert foe.resources == {**foe.maxima, **damaged}  # "Los personajes jugadores" only
    assert len([e for e in events if isinstance(e, Healed)]) == (1 if damaged else 0)


def test_dj20_between_adventures_everything_heals() -> None:
    sc = scenario(fighter("hero"), fighter("foe", "enemies"))
    state, _ = begin(sc, [2, 1], [2, 1])
    hero = state.by_id["hero"]
    hero.resources.update({"heridas": 0, "celeridad": 1, "virilidad": 2})
    hero.status = Status.DOWN
    heal_between_scenes(hero, between_adventures=True)
    assert hero.resources == hero.maxima
    assert hero.active
    # A list of combatants works as well as a state or a single combatant.
    hero.resources["heridas"] = 1
    heal_between_scenes([hero])
    assert hero.resources["heridas"] == 2


def test_dj21_heridas_is_a_required_scenario_field() -> None:
    block = fighter("hero")
    del block["heridas"]
    with pytest.raises(ScenarioError, match="heridas"):
        scenario(block, fighter("foe", "enemies"))
    sc = scenario(fighter("hero", heridas=9), fighter("foe", "enemies", heridas=2))
    assert [c.resources["heridas"] for c in sc.combatants] == [9, 2]


def test_dj21_stat_block_errors_name_the_field() -> None:
    with pytest.raises(ScenarioError, match=r"weapons\[1\]\.name"):
        scenario(fighter("hero", weapons=[{"name": "x"}, {"name": "x"}]), fighter("foe", "enemies"))
    with pytest.raises(ScenarioError, match="celeridad"):
        scenario(fighter("hero", cel=7), fighter("foe", "enemies"))
