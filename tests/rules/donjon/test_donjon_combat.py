"""Distances, movement, attacks, defences, damage and wounds (DJ-09 … DJ-19), scripted dice.

Fighters default to Nivel 1, Celeridad/Virilidad/Aguante 3, Discernimiento 1, no
abilities, an espada of Nivel de Daño 1 and no armour; the map is the line
a–b–c–d–e, so the hop distance is how many letters apart two zones are.
"""

from __future__ import annotations

import pytest

from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.events import Rolled
from escaramuza.rules.core.model import Status
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.donjon import Donjon
from escaramuza.rules.donjon.combat import attack_pool, band_of, range_penalty, weapon
from tests.rules.donjon.donjon_helpers import act, begin, d20, fighter, play, scenario

ARCO = {"name": "arco", "kind": "distancia", "damage": 1}
JABALINA = {"name": "jabalina", "kind": "arrojadiza", "damage": 1}
ESPADA = {"name": "espada", "kind": "cuerpo_a_cuerpo", "damage": 1}
MAZA = {"name": "maza", "kind": "cuerpo_a_cuerpo", "damage": 2}


def _verbs(state: BattleState) -> list[tuple[str, str | None, str | None]]:
    return [(a.verb, a.target, a.item) for a in state.ruleset.legal_actions(state)]


def _pools(state: BattleState) -> list[tuple[str, int]]:
    return [
        (e.what.split(" (")[0], len(e.faces))
        for e in state.log
        if isinstance(e, Rolled) and e.what != "iniciativa"
    ]


# -- DJ-09 distances ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("hops", "band", "name"),
    [
        (0, 0, "en contacto"),
        (1, 1, "a una acción"),
        (2, 2, "a dos acciones"),
        (3, 3, "fuera del alcance"),
        (7, 3, "fuera del alcance"),
    ],
)
def test_dj09_hop_counts_map_to_the_four_distances(hops: int, band: int, name: str) -> None:
    assert band_of(hops) == band == Donjon().band(hops)
    assert Donjon.band_names[band] == name


def test_dj09_a_battle_never_starts_out_of_range() -> None:
    with pytest.raises(ScenarioError, match="fuera del alcance"):
        scenario(fighter("hero", zone="a"), fighter("foe", "enemies", zone="d"))


def test_dj09_distance_is_per_pair_of_opponents() -> None:
    sc = scenario(
        fighter("hero", zone="b"),
        fighter("near", "enemies", zone="b"),
        fighter("far", "enemies", zone="d"),
    )
    state, _ = begin(sc, [20, 1], [2, 1], [2, 1])
    attacks = [v for v in _verbs(state) if v[0] == "atacar"]
    assert attacks == [("atacar", "near", "espada")]
    assert state.ruleset.describe(state, act("acercarse", "hero", "far")).endswith(
        "(a dos acciones)"
    )


# -- DJ-10 / DJ-11 movement -------------------------------------------------------------
def test_dj10_unresisted_move_costs_an_action_and_no_test() -> None:
    sc = scenario(fighter("hero", zone="a"), fighter("foe", "enemies", zone="c"))
    state, _ = begin(sc, [20, 1], [10, 5])
    play(state, [], act("acercarse", "hero", "foe"), act("dejar", "foe"))
    assert state.by_id["hero"].zone == "b"
    assert state.by_id["foe"].data["init"] == (10, 5)  # letting it happen costs nothing


@pytest.mark.parametrize(
    ("mover_dice", "resister_dice", "zone", "bonus"),
    [
        ([18, 10, 3], [15, 6, 2], "b", 1),  # the mover wins with one éxito: moves, keeps it
        ([19, 17, 3], [15, 6, 2], "b", 2),
        ([10, 5, 3], [15, 6, 2], "a", 0),  # the resister wins: no move
    ],
)
def test_dj10_resisting_crosses_off_the_next_number_and_calls_a_movement_test(
    mover_dice: list[int], resister_dice: list[int], zone: str, bonus: int
) -> None:
    sc = scenario(fighter("hero", zone="a"), fighter("foe", "enemies", zone="c"))
    state, _ = begin(sc, [20, 1], [10, 5])
    play(
        state,
        d20(*mover_dice, *resister_dice),
        act("acercarse", "hero", "foe"),
        act("resistir", "foe"),
    )
    assert state.by_id["hero"].zone == zone
    assert state.by_id["hero"].data["bonus"] == bonus
    assert state.by_id["foe"].data["init"] == (5,)
    assert _pools(state) == [("Prueba de Movimiento", 3)] * 2


def test_dj10_movement_successes_are_bonus_dice_for_the_next_attack() -> None:
    sc = scenario(
        fighter("hero", zone="a", weapons=[JABALINA]), fighter("foe", "enemies", zone="c")
    )
    state, _ = begin(sc, [20, 19], [10, 5])
    play(state, d20(18, 10, 3, 15, 6, 2), act("acercarse", "hero", "foe"), act("resistir", "foe"))
    # Next action, a una acción: Celeridad 3 + 1 carried éxito = 4 dice; the foe dodges (3).
    play(state, d20(2, 2, 2, 2, 10, 9, 8), act("atacar", "hero", "foe", "jabalina"))
    assert _pools(state)[-2:] == [("Prueba de Ataque with jabalina", 4), ("esquiva", 3)]
    assert state.by_id["hero"].data["bonus"] == 0


def test_dj10_nobody_can_resist_without_a_number_left() -> None:
    sc = scenario(fighter("hero", zone="a"), fighter("foe", "enemies", zone="c"))
    state, _ = begin(sc, [10, 1], [20, 19])
    play(state, [], act("esperar", "foe"), act("esperar", "foe"), act("acercarse", "hero", "foe"))
    assert state.by_id["hero"].zone == "b"


def test_dj11_moving_out_of_range_of_every_foe_leaves_the_battle() -> None:
    sc = scenario(
        fighter("hero", zone="c"), fighter("ally", zone="a"), fighter("foe", "enemies", zone="a")
    )
    state, _ = begin(sc, [20, 1], [2, 1], [10, 5])
    play(state, [], act("alejarse", "hero", "foe"), act("dejar", "foe"))
    assert state.by_id["hero"].zone == "d"
    assert state.by_id["hero"].status is Status.FLED
    assert state.outcome is None  # the ally fights on


@pytest.mark.parametrize(("foe_zone", "can_flee"), [("a", True), ("b", False), ("c", False)])
def test_dj11_huir_steps_from_two_actions_out_of_range(foe_zone: str, can_flee: bool) -> None:
    sc = scenario(
        fighter("hero", zone="c"),
        fighter("ally", zone="a"),
        fighter("foe", "enemies", zone=foe_zone),
        zones=("a", "b", "c"),
    )
    state, _ = begin(sc, [20, 1], [2, 1], [10, 5])
    assert (("huir", None, None) in _verbs(state)) is can_flee
    if can_flee:
        play(state, [], act("huir", "hero"), act("dejar", "foe"))
        assert state.by_id["hero"].status is Status.FLED


def test_dj11_a_failed_escape_from_contact_gives_a_free_attack_with_the_successes() -> None:
    sc = scenario(fighter("hero", zone="a"), fighter("foe", "enemies", zone="a"))
    state, _ = begin(sc, [20, 1], [10, 5])
    play(
        state,
        d20(10, 5, 3, 16, 12, 4)  # movement test: the foe's 16 and 12 beat 10 — 2 éxitos
        + d20(19, 7, 6, 5, 4, 8, 3, 2)  # free attack: Celeridad 3 + 2 bonus vs the hero's dodge
        + d20(17, 2, 2, 2, 2, 9, 8, 7),  # damage: Virilidad 3 + espada 1 + 1 éxito vs Aguante 3
        act("alejarse", "hero", "foe"),
        act("resistir", "foe"),
        act("repartir", "foe", option="heridas"),
    )
    assert _pools(state) == [
        ("Prueba de Movimiento", 3),
        ("Prueba de Movimiento", 3),
        ("ataque gratuito with espada", 5),
        ("esquiva", 3),
        ("Prueba de Daño with espada", 5),
        ("Aguante + armadura", 3),
    ]
    assert state.by_id["hero"].zone == "a"
    assert state.by_id["hero"].resources["heridas"] == 4


@pytest.mark.parametrize(
    ("movimiento", "resist_faces", "weapon", "attack_faces"),
    [
        # 1 éxito: the jabalina's 1 − 3 + 1 = −1 dice cannot roll; the daga's 1 + 1 can.
        (0, (19,), "daga", (18, 4)),
        # 3 éxitos: the jabalina's 1 − 3 + 3 = 1 die rolls, and it has the most dice.
        (2, (19, 18, 17), "jabalina", (18,)),
    ],
)
def test_dj11_the_free_attack_uses_a_weapon_its_pool_with_the_successes_can_roll(
    movimiento: int, resist_faces: tuple[int, ...], weapon: str, attack_faces: tuple[int, ...]
) -> None:
    # "puede utilizar los éxitos como bonificadores para el ataque gratuito": the pool is
    # Celeridad 1 + ataque 0 − the DJ-12 contact penalty + the éxitos. The jabalina (−2 + 8
    # attack + damage dice against the daga's 1 + 4) is taken only when it rolls.
    jabalina = {"name": "jabalina", "kind": "arrojadiza", "damage": 5}
    daga = {"name": "daga", "kind": "cuerpo_a_cuerpo", "damage": 1}
    sc = scenario(
        fighter(
            "hero", zone="a", cel=1, skills={"movimiento": movimiento}, weapons=[jabalina, daga]
        ),
        fighter("foe", "enemies", zone="a"),
    )
    state, _ = begin(sc, [10, 5], [20, 1])
    damage = 3 + (5 if weapon == "jabalina" else 1) + 1  # Virilidad + Nivel de Daño + 1 éxito
    play(
        state,
        d20(10, 5, 3, *resist_faces)  # movement test: the hero's dice all beat the foe's 10
        + d20(*attack_faces, 10, 5, 3)  # free attack: one éxito against the foe's dodge
        + d20(17, *[2] * (damage - 1), 9, 8, 7),  # damage: 1 éxito against Aguante 3
        act("alejarse", "foe", "hero"),
        act("resistir", "hero"),
        act("repartir", "hero", option="heridas"),
    )
    assert _pools(state) == [
        ("Prueba de Movimiento", 3),
        ("Prueba de Movimiento", 1 + movimiento),
        (f"ataque gratuito with {weapon}", len(attack_faces)),
        ("esquiva", 3),
        (f"Prueba de Daño with {weapon}", damage),
        ("Aguante + armadura", 3),
    ]
    assert state.by_id["foe"].zone == "a"
    assert state.by_id["foe"].resources["heridas"] == 4


# -- DJ-12 … DJ-16 attacks -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "penalties"),
    [
        ("distancia", (6, 0, 3, None)),
        ("arrojadiza", (3, 0, None, None)),
        ("cuerpo_a_cuerpo", (0, None, None, None)),
    ],
)
def test_dj12_range_penalty_table(kind: str, penalties: tuple[int | None, ...]) -> None:
    assert tuple(range_penalty(kind, band) for band in range(4)) == penalties


@pytest.mark.parametrize(
    ("foe_zone", "items"),
    [
        ("a", ["espada", "jabalina"]),  # contact: 5 dice, 5−3 = 2; the bow's 5−6 is no dice
        ("b", ["arco", "jabalina"]),  # a una acción: no melee
        ("c", ["arco"]),  # a dos acciones: bow at 5−3 = 2 dice, no thrown weapon
    ],
)
def test_dj12_which_weapons_can_attack_at_each_distance(foe_zone: str, items: list[str]) -> None:
    sc = scenario(
        fighter("hero", zone="a", skills={"ataque": 2}, weapons=[ARCO, JABALINA, ESPADA]),
        fighter("foe", "enemies", zone=foe_zone),
    )
    state, _ = begin(sc, [20, 1], [2, 1])
    assert sorted(v[2] or "" for v in _verbs(state) if v[0] == "atacar") == sorted(items)


def test_dj12_penalty_dice_come_off_the_attack_pool() -> None:
    sc = scenario(
        fighter("hero", zone="a", skills={"ataque": 2}, weapons=[ARCO]),
        fighter("foe", "enemies", zone="c"),
    )
    state, _ = begin(sc, [20, 1], [2, 1])
    play(state, d20(3, 2, 10, 9, 8), act("atacar", "hero", "foe", "arco"))
    assert _pools(state) == [("Prueba de Ataque with arco", 2), ("esquiva", 3)]


@pytest.mark.parametrize(
    ("cel", "ataque", "arms", "band", "pool"),
    [
        (4, 2, [ESPADA], 0, 6),  # "Celeridad, más cualquier Habilidad apropiada para atacar"
        (4, 2, [ARCO], 1, 6),  # "Tanto los ataques cuerpo a cuerpo como los ataques a distancia"
        (4, 2, [ARCO], 2, 3),
        (2, 0, [JABALINA], 0, -1),
        (2, 0, [ESPADA], 1, None),
    ],
)
def test_dj13_attack_pool_is_celeridad_plus_attack_ability(
    cel: int, ataque: int, arms: list[dict[str, object]], band: int, pool: int | None
) -> None:
    sc = scenario(
        fighter("hero", cel=cel, skills={"ataque": ataque}, weapons=arms), fighter("foe", "enemies")
    )
    hero = sc.combatants[0]
    assert attack_pool(hero, weapon(hero, str(arms[0]["name"])), band) == pool


def test_dj15_a_free_dodge_that_hurts_nobody() -> None:
    sc = scenario(
        fighter("hero", cel=4, skills={"ataque": 2, "esquivar": 5}),
        fighter("foe", "enemies", skills={"esquivar": 2}, weapons=[ARCO]),
    )
    state, _ = begin(sc, [20, 19], [10, 5])
    # Celeridad 4 + ataque 2 = 6 dice against Celeridad 3 + esquivar 2 = 5; the dodge wins.
    play(state, d20(15, 14, 9, 4, 3, 1, 18, 16, 2, 2, 2), act("atacar", "hero", "foe", "espada"))
    assert _pools(state) == [("Prueba de Ataque with espada", 6), ("esquiva", 5)]
    hero, foe = state.by_id["hero"], state.by_id["foe"]
    assert hero.resources == hero.maxima and foe.resources == foe.maxima
    assert foe.data["init"] == (10, 5)  # a dodge costs no action
    assert state.pending is not None and state.pending.actor == "hero"  # successes lost


def test_dj14_parry_crosses_off_a_number_and_the_winner_damages_the_attacker() -> None:
    sc = scenario(
        fighter("hero", armour=1), fighter("foe", "enemies", skills={"ataque": 1}, weapons=[MAZA])
    )
    state, _ = begin(sc, [20, 1], [10, 5])
    assert [a.verb for a in state.ruleset.legal_actions(state)][:1] == ["atacar"]
    play(state, [], act("atacar", "hero", "foe", "espada"))
    assert state.pending is not None and (state.pending.name, state.pending.actor) == (
        "defensa",
        "foe",
    )
    play(
        state,
        d20(9, 8, 1, 18, 11, 7, 2)  # attack 3 dice vs parry Celeridad 3 + ataque 1: 2 éxitos
        + d20(20, 3, 3, 3, 3, 3, 3, 12, 10, 9, 8),  # counter: 3 + maza 2 + 2 vs 3 + armour 1
        act("parar", "foe"),
        act("repartir", "foe", option="heridas"),
    )
    assert _pools(state) == [
        ("Prueba de Ataque with espada", 3),
        ("parada", 4),
        ("Prueba de Daño with maza", 7),
        ("Aguante + armadura", 4),
    ]
    assert state.by_id["foe"].data["init"] == (5,)
    assert state.by_id["hero"].resources["heridas"] == 4


@pytest.mark.parametrize(
    ("hero_arms", "foe_zone", "foe_init", "reaction"),
    [
        ([ESPADA], "a", [10, 5], True),
        ([ARCO], "b", [10, 5], False),  # "Los ataques a distancia no pueden defenderse de manera
        ([JABALINA], "b", [10, 5], False),  # activa"
        ([ESPADA], "a", [], False),  # no later number to cross off
    ],
)
def test_dj14_parry_is_offered_only_against_melee_with_a_number_left(
    hero_arms: list[dict[str, object]], foe_zone: str, foe_init: list[int], reaction: bool
) -> None:
    sc = scenario(
        fighter("hero", skills={"ataque": 3}, weapons=hero_arms),
        fighter("foe", "enemies", zone=foe_zone),
    )
    state, _ = begin(sc, [20, 1], [2, 1])
    state.by_id["foe"].data["init"] = tuple(foe_init)
    item = hero_arms[0]["name"]
    # Without a reaction the attack is dodged at once: Celeridad 3 + ataque 3 ones vs 5, 4, 3.
    dice = [] if reaction else d20(1, 1, 1, 1, 1, 1, 5, 4, 3)
    play(state, dice, act("atacar", "hero", "foe", str(item)))
    assert (state.pending is not None and state.pending.name == "defensa") is reaction


def test_dj16_damage_pool_and_soak_pool() -> None:
    sc = scenario(
        fighter("hero", vir=4, skills={"dano": 1}, weapons=[{"name": "mandoble", "damage": 2}]),
        fighter("foe", "enemies", agu=2, armour=2, skills={"resistencia": 1}, weapons=[ARCO]),
    )
    state, _ = begin(sc, [20, 1], [2, 1])
    play(
        state,
        d20(20, 1, 1, 5, 4, 3) + d20(*[2] * 8, 19, 18, 17, 16, 15),
        act("atacar", "hero", "foe", "mandoble"),
    )
    # Virilidad 4 + mandoble 2 + ability 1 + 1 carried éxito; Aguante 2 + armour 2 + ability 1.
    assert _pools(state)[-2:] == [("Prueba de Daño with mandoble", 8), ("Aguante + armadura", 5)]


def test_dj01_the_worked_example_in_an_attack_carries_three_successes_to_the_damage() -> None:
    # rules-notes DJ-01's worked example rolled by the engine: 5,11,15,18,19,19 vs 7,9,10,16;
    # 18, 19 and 19 beat the dodge's highest die (16): 3 éxitos, bonus dice of the damage.
    sc = scenario(
        fighter("hero", cel=6),
        fighter("foe", "enemies", cel=4, weapons=[ARCO]),
    )
    state, _ = begin(sc, [20, 1], [2, 1])
    events = play(
        state,
        d20(5, 11, 15, 18, 19, 19, 7, 9, 10, 16) + d20(*[2] * 7, 20, 1, 1),
        act("atacar", "hero", "foe", "espada"),
    )
    assert "hero wins the test with 3 éxito(s)." in [e.text for e in events]
    # Virilidad 3 + espada 1 + the 3 éxitos against Aguante 3 (the foe's 20 wins it).
    assert _pools(state) == [
        ("Prueba de Ataque with espada", 6),
        ("esquiva", 4),
        ("Prueba de Daño with espada", 7),
        ("Aguante + armadura", 3),
    ]


# -- DJ-17 … DJ-19 wounds ------------------------------------------------------------------
def _hit_for(state: BattleState, attacker: str, target: str, successes: int) -> None:
    """Attack a bow-armed (no parry) target: 1 attack éxito, then ``successes`` damage éxitos."""
    dmg = [20 - i for i in range(successes)] + [1] * (5 - successes)
    play(
        state,
        d20(20, 1, 1, 5, 4, 3) + d20(*dmg, 10, 9, 8),
        act("atacar", attacker, target, "espada"),
    )


def _options(state: BattleState) -> list[str | None]:
    return [a.option for a in state.ruleset.legal_actions(state)]


def test_dj17_each_success_is_a_herida_or_an_attribute_after_a_fact() -> None:
    sc = scenario(fighter("hero"), fighter("foe", "enemies", weapons=[ARCO]))
    state, _ = begin(sc, [20, 1], [2, 1])
    _hit_for(state, "hero", "foe", 4)
    assert state.pending is not None and (state.pending.name, state.pending.actor) == (
        "repartir",
        "hero",
    )
    assert _options(state) == ["heridas", "celeridad", "virilidad", "aguante", "discernimiento"]
    foe = state.by_id["foe"]
    play(state, [], act("repartir", "hero", option="celeridad"))  # the fact: nothing lowered
    assert foe.resources["celeridad"] == 3
    play(state, [], act("repartir", "hero", option="celeridad"))
    assert foe.resources["celeridad"] == 2
    play(state, [], act("repartir", "hero", option="heridas"))
    assert foe.resources["heridas"] == 4
    # One éxito left: a new attribute would need its own fact first.
    assert _options(state) == ["heridas", "celeridad"]
    play(state, [], act("repartir", "hero", option="heridas"))
    assert foe.resources["heridas"] == 3
    assert state.pending is not None and state.pending.name == "turn"


def test_dj17_dj19_a_pc_at_zero_heridas_takes_attribute_damage_without_a_fact() -> None:
    sc = scenario(fighter("hero", weapons=[ARCO, ESPADA]), fighter("foe", "enemies"))
    state, _ = begin(sc, [2, 1], [20, 1])
    hero = state.by_id["hero"]
    hero.resources["heridas"] = 0
    # Three of the PNJ's five damage dice are éxitos: not all, so the PJ is not broken.
    play(
        state,
        d20(20, 1, 1, 5, 4, 3) + d20(20, 19, 18, 1, 1, 10, 9, 8),
        act("atacar", "foe", "hero", "espada"),
        act("esquivar", "hero"),
    )
    assert hero.active
    assert _options(state) == ["celeridad", "virilidad", "aguante", "discernimiento"]
    play(state, [], act("repartir", "foe", option="celeridad"))
    assert hero.resources["celeridad"] == 2


def test_dj18_an_npc_at_zero_heridas_falls_unconscious_and_one_attack_kills_it() -> None:
    sc = scenario(
        fighter("hero"),
        fighter("foe", "enemies", heridas=2, weapons=[ARCO]),
        fighter("other", "enemies", zone="c"),
    )
    state, _ = begin(sc, [20, 19], [2, 1], [2, 1])
    _hit_for(state, "hero", "foe", 2)
    play(
        state,
        [],
        act("repartir", "hero", option="heridas"),
        act("repartir", "hero", option="heridas"),
    )
    foe = state.by_id["foe"]
    assert foe.status is Status.DOWN and foe.has("inconsciente")
    assert ("rematar", "foe", "espada") in _verbs(state)
    assert not any(v[0] == "atacar" and v[1] == "foe" for v in _verbs(state))
    play(state, [], act("rematar", "hero", "foe", "espada"))  # no test: no dice
    assert foe.status is Status.DEAD


@pytest.mark.parametrize(
    ("heridas", "damage", "broken"),
    [
        (0, [20, 19, 18, 17, 16], True),  # every PNJ die an éxito against a PJ at 0
        (0, [20, 19, 18, 17, 1], False),
        (1, [20, 19, 18, 17, 16], False),  # *(default)* the PJ must be at 0 before the test
    ],
)
def test_dj19_a_pc_is_broken_only_when_every_npc_damage_die_succeeds(
    heridas: int, damage: list[int], broken: bool
) -> None:
    sc = scenario(
        fighter("hero", weapons=[ARCO, ESPADA]),
        fighter("ally", zone="b"),
        fighter("foe", "enemies"),
    )
    state, _ = begin(sc, [2, 1], [2, 1], [20, 1])
    hero = state.by_id["hero"]
    hero.resources["heridas"] = heridas
    play(
        state,
        d20(20, 1, 1, 5, 4, 3) + d20(*damage, 10, 9, 8),
        act("atacar", "foe", "hero", "espada"),
        act("esquivar", "hero"),
    )
    assert (hero.status is Status.DOWN) is broken
    assert hero.has("quebrado") is broken
    if broken:
        assert state.pending is not None and state.pending.name == "turn"
    else:
        assert hero.active


def test_dj19_pcs_always_roll_one_damage_die() -> None:
    # An all-tied parry is won by the defender with 0 éxitos (DJ-01 default); the PJ's
    # counterattack then has Virilidad 0 + puños 0 + 0 éxitos, and still rolls one die.
    sc = scenario(fighter("hero", weapons=[]), fighter("foe", "enemies"))
    state, _ = begin(sc, [10, 5], [20, 1])
    state.by_id["hero"].resources["virilidad"] = 0
    play(state, [], act("atacar", "foe", "hero", "espada"))
    play(state, d20(10, 5, 3, 10, 5, 3) + d20(15, 12, 4, 2), act("parar", "hero"))
    assert _pools(state)[-2:] == [("Prueba de Daño with puños", 1), ("Aguante + armadura", 3)]
    assert state.pending is not None and state.pending.name == "repartir"


def test_dj19_npcs_with_no_damage_dice_roll_none() -> None:
    sc = scenario(fighter("hero"), fighter("foe", "enemies", weapons=[]))
    state, _ = begin(sc, [20, 5], [10, 1])
    state.by_id["foe"].resources["virilidad"] = 0
    play(state, [], act("atacar", "hero", "foe", "espada"))
    play(state, d20(10, 5, 3, 10, 5, 3) + d20(15, 12, 4), act("parar", "foe"))
    assert _pools(state)[-2:] == [("Prueba de Daño with puños", 0), ("Aguante + armadura", 3)]
    assert state.by_id["hero"].resources == state.by_id["hero"].maxima


# DJ-19, the resisting side: "Los PJ siempre tiran un dado en las Pruebas de Daño, inclusive
# cuando su Aguante es reducido a cero." The PJ below has Aguante 0 (beaten down by DJ-17
# spends), no armour and no resistencia: Aguante + armadura + ability = 0, yet it rolls one die.
@pytest.mark.parametrize(
    ("heridas", "damage", "soak", "broken", "spent"),
    [
        # At 0 Heridas, every one of the PNJ's 5 damage dice beats the PJ's single die: broken.
        (0, [20, 19, 18, 17, 16], 10, True, None),
        # One PNJ die (4) does not beat the PJ's 10: not every die an éxito, not broken —
        # with no die to resist (the old reading) these 5 dice would all be éxitos.
        (0, [20, 19, 18, 17, 4], 10, False, 4),
        # The PJ's one die (20) beats every PNJ die: the blow is shrugged off.
        (0, [19, 18, 17, 16, 15], 20, False, 0),
        # Above 0 Heridas the die still limits the éxitos: 3 of 5 beat the PJ's 10.
        (5, [20, 19, 18, 1, 1], 10, False, 3),
    ],
)
def test_dj19_a_pc_at_aguante_zero_resists_with_one_die(
    heridas: int, damage: list[int], soak: int, broken: bool, spent: int | None
) -> None:
    sc = scenario(
        fighter("hero", weapons=[ARCO], heridas=5),
        fighter("ally", zone="b"),
        fighter("foe", "enemies"),
    )
    state, _ = begin(sc, [2, 1], [2, 1], [20, 1])
    hero = state.by_id["hero"]
    hero.resources["aguante"] = 0
    hero.resources["heridas"] = heridas
    # The bow cannot parry: the attack is dodged at once. Foe 20 vs 5: one éxito carried, so
    # Virilidad 3 + espada 1 + 1 = 5 damage dice against the PJ's floor of one die.
    play(state, d20(20, 1, 1, 5, 4, 3) + d20(*damage, soak), act("atacar", "foe", "hero", "espada"))
    assert _pools(state)[-2:] == [("Prueba de Daño with espada", 5), ("Aguante + armadura", 1)]
    assert hero.has("quebrado") is broken
    assert (hero.status is Status.DOWN) is broken
    if spent:
        assert state.pending is not None and state.pending.name == "repartir"
        assert state.data["spend"].remaining == spent
    elif not broken:
        assert state.pending is not None and state.pending.name == "turn"
        assert hero.resources["heridas"] == heridas


def test_dj19_a_pc_with_an_empty_pool_deals_with_one_die_against_an_npc_with_none() -> None:
    # The PJ deals with Virilidad 0 + puños 0 + 0 éxitos (an all-tied parry) and still rolls
    # one die; the PNJ resists with Aguante 0 + no armour + no ability and rolls none (DJ-19
    # gives the floor to PJ only), so the PJ's one die is an éxito whatever it shows.
    sc = scenario(fighter("hero", weapons=[]), fighter("foe", "enemies"))
    state, _ = begin(sc, [10, 5], [20, 1])
    state.by_id["hero"].resources["virilidad"] = 0
    state.by_id["foe"].resources["aguante"] = 0
    play(state, [], act("atacar", "foe", "hero", "espada"))
    play(state, d20(10, 5, 3, 10, 5, 3) + d20(1), act("parar", "hero"))
    assert _pools(state)[-2:] == [("Prueba de Daño with puños", 1), ("Aguante + armadura", 0)]
    assert state.pending is not None and state.pending.name == "repartir"
    assert state.data["spend"].remaining == 1


def test_dj19_an_npc_at_aguante_zero_resists_with_no_dice() -> None:
    sc = scenario(fighter("hero"), fighter("foe", "enemies", weapons=[ARCO]))
    state, _ = begin(sc, [20, 1], [2, 1])
    state.by_id["foe"].resources["aguante"] = 0
    # Hero 20 vs 5: one éxito; 3 + 1 + 1 = 5 damage dice against no die at all: 5 éxitos.
    play(state, d20(20, 1, 1, 5, 4, 3) + d20(7, 6, 5, 4, 3), act("atacar", "hero", "foe", "espada"))
    assert _pools(state)[-2:] == [("Prueba de Daño with espada", 5), ("Aguante + armadura", 0)]
    assert state.data["spend"].remaining == 5
