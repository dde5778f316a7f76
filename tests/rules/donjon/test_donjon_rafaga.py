"""The ráfaga: initiative (DJ-02, DJ-04), the countdown (DJ-05), ties (DJ-06), the pause
(DJ-07) and one test per action (DJ-08), all with scripted dice."""

from __future__ import annotations

import pytest

from escaramuza.rules.core.dice import ScriptedRoller
from escaramuza.rules.core.events import InitiativeRolled, Rolled
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.state import BattleState
from tests.rules.donjon.donjon_helpers import act, begin, d20, fighter, play, scenario

BOW = [{"name": "arco", "kind": "distancia", "damage": 1}]


def _pass_turns(state: BattleState) -> list[tuple[str, int]]:
    """Let every number pass; return (actor, number called) in the order the turns came."""
    seen: list[tuple[str, int]] = []
    while state.pending is not None and state.pending.name == "turn":
        seen.append((state.pending.actor, state.data["count"]))
        play(state, [], act("esperar", state.pending.actor))
    return seen


def _initiative_pools(events: list[object]) -> dict[str, int]:
    return {e.actor: e.total for e in events if isinstance(e, InitiativeRolled)}


def test_dj04_initiative_is_nivel_plus_discernimiento_and_surprise_on_the_first_rafaga() -> None:
    sc = scenario(
        fighter("hero", level=2, dis=3, sorpresa=2, skills={"ataque": 4, "esquivar": 2}),
        fighter("foe", "enemies"),
    )
    # Nivel 2 + Discernimiento 3 = 5 dice, + 2 surprise successes; abilities add nothing.
    state, _ = begin(sc, [20, 19, 18, 17, 16, 15, 14], [2, 1])
    assert _initiative_pools(state.log) == {"hero": 7, "foe": 2}
    _pass_turns(state)
    # Second ráfaga: new tests, and the surprise is gone.
    events = play(
        state, d20(9, 8, 7, 6, 5, 4, 3), act("continuar", "hero"), act("continuar", "foe")
    )
    assert _initiative_pools(events) == {"hero": 5, "foe": 2}
    assert state.round == 2
    assert state.by_id["hero"].data["init"] == (9, 8, 7, 6, 5)


@pytest.mark.parametrize(
    ("test_dice", "gm_dice", "media", "pool"),
    [
        ([18, 12, 9, 4, 2], [15, 7, 3], 3, 3),  # 18 beats the DJ's 15: one bonus die
        ([19, 18, 17, 4, 2], [15, 7, 3], 3, 5),  # three dice above 15: three bonus dice
        ([10, 9, 8, 7, 6], [15, 2, 1], 3, 2),  # the DJ wins: no bonus
        ([18, 12, 9, 4, 2], [11], 1, 4),  # option dificultades.media = 1 die: 18 and 12 beat 11
    ],
)
def test_dj02_initiative_ability_is_an_unopposed_media_test(
    test_dice: list[int], gm_dice: list[int], media: int, pool: int
) -> None:
    sc = scenario(
        fighter("hero", cel=3, skills={"iniciativa": 2}),
        fighter("foe", "enemies"),
        options={"dificultades": {"media": media}},
    )
    # ability 2 + Celeridad 3 = 5 dice against the DJ's Media pool; successes are bonus dice.
    roller = ScriptedRoller(d20(*test_dice, *gm_dice, *range(pool, 0, -1), 20, 19))
    state = new_battle(sc, roller)
    roller.assert_exhausted()
    assert _initiative_pools(state.log) == {"hero": pool, "foe": 2}
    dj = [e for e in state.log if isinstance(e, Rolled) and e.actor == "DJ"]
    assert [len(e.faces) for e in dj] == [media]


@pytest.mark.parametrize(
    ("options", "hero", "foe", "turns"),
    [
        ({}, [15, 15], [10, 3], [("hero", 15), ("hero", 15), ("foe", 10), ("foe", 3)]),
        ({}, [20, 1], [20, 20], [("hero", 20), ("foe", 20), ("foe", 20), ("hero", 1)]),
        # "la cuenta atrás del DJ comienza en el mayor número del dado": a d6 game counts from 6.
        ({"die_size": 6}, [6, 6], [4, 1], [("hero", 6), ("hero", 6), ("foe", 4), ("foe", 1)]),
    ],
)
def test_dj05_countdown_acts_once_per_die_on_each_number(
    options: dict[str, int], hero: list[int], foe: list[int], turns: list[tuple[str, int]]
) -> None:
    sc = scenario(fighter("hero"), fighter("foe", "enemies"), options=options)
    sides = options.get("die_size", 20)
    roller = ScriptedRoller([f"d{sides}={f}" for f in hero + foe])
    state = new_battle(sc, roller)
    roller.assert_exhausted()
    assert _pass_turns(state) == turns
    assert state.pending is not None and state.pending.name == "continuar"


def test_dj06_ties_go_to_pcs_in_table_order_then_npcs_one_action_at_a_time() -> None:
    sc = scenario(
        fighter("npc", "enemies"),
        fighter("pc1"),
        fighter("pc2"),
        fighter("hired", pc=False),  # a PNJ on the heroes' side also acts after the PJs
    )
    state, _ = begin(sc, [12, 12], [12, 12], [12, 5], [12, 1])
    assert _pass_turns(state) == [
        ("pc1", 12),
        ("pc2", 12),
        ("npc", 12),
        ("hired", 12),
        ("pc1", 12),
        ("npc", 12),
        ("pc2", 5),
        ("hired", 1),
    ]


def _to_pause(state: BattleState) -> None:
    _pass_turns(state)
    assert state.pending is not None and state.pending.name == "continuar"


@pytest.mark.parametrize(
    ("heroes", "enemies", "outcome", "next_round"),
    [
        ("retirarse", "retirarse", (None, "withdrawal"), None),
        ("retirarse", "continuar", None, 2),
        ("continuar", "retirarse", None, 2),
        ("continuar", "continuar", None, 2),
    ],
)
def test_dj07_each_side_continues_or_withdraws_after_the_count(
    heroes: str, enemies: str, outcome: tuple[None, str] | None, next_round: int | None
) -> None:
    sc = scenario(fighter("hero"), fighter("ally"), fighter("foe", "enemies"))
    state, _ = begin(sc, [5, 4], [3, 2], [2, 1])
    _to_pause(state)
    pending = state.pending
    assert pending is not None and (pending.actor, pending.side) == ("hero", Side.HEROES)
    dice = [] if outcome else d20(9, 8, 7, 6, 5, 4)
    play(state, dice, act(heroes, "hero"), act(enemies, "foe"))
    if outcome:
        assert state.outcome is not None
        assert (state.outcome.winner, state.outcome.reason) == outcome
    else:
        assert state.outcome is None and state.round == next_round
        assert state.pending is not None and state.pending.actor == "hero"


def test_dj07_a_new_rafaga_past_the_round_limit_ends_the_battle() -> None:
    sc = scenario(fighter("hero"), fighter("foe", "enemies"), round_limit=1)
    state, _ = begin(sc, [5, 4], [2, 1])
    _to_pause(state)
    play(state, [], act("continuar", "hero"), act("retirarse", "foe"))
    assert state.outcome is not None and state.outcome.reason == "timeout"


def test_dj08_an_attack_action_makes_one_test_plus_its_damage_test() -> None:
    sc = scenario(fighter("hero"), fighter("archer", "enemies", weapons=BOW))
    state, _ = begin(sc, [20, 10], [2, 1])
    roller = ScriptedRoller(
        d20(17, 9, 4)  # Prueba de Ataque: Celeridad 3
        + d20(12, 8, 2)  # the archer has no melee weapon to parry with: it dodges, Celeridad 3
        + d20(15, 11, 6, 3, 2)  # Prueba de Daño: Virilidad 3 + espada 1 + 1 carried success
        + d20(14, 5, 1)  # Aguante 3
        + d20(7)
    )
    apply_action(state, act("atacar", "hero", "archer", "espada"), roller)
    # The attack and the damage test used 3 + 3 + 5 + 3 dice; the next die is still there.
    assert roller.remaining == 1
    whats = [e.what for e in state.log if isinstance(e, Rolled)][-4:]
    assert [w.split(" ")[0] for w in whats] == ["Prueba", "esquiva", "Prueba", "Aguante"]
    assert state.pending is not None and state.pending.name == "repartir"
