"""CA-05 … CA-10: attacks always hit, keep-highest focus fire and the "Modificadores al
ataque" (Impedido, Mejorado, Explosión, two weapons); scripted dice (rules-notes.md, Cairn)."""

from __future__ import annotations

from typing import Any

import pytest

from escaramuza.rules.cairn.combat import attack_dice, weapon_named
from escaramuza.rules.cairn.sheets import UNARMED, Weapon, parse_damage
from escaramuza.rules.core.dice import ScriptError
from escaramuza.rules.core.events import Damaged, Rolled
from tests.rules.cairn.cairn_helpers import BOMB, attack, battle, fighter, play

# -- CA-05 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "armour", "pi_after"),
    [(6, 0, 2), (3, 2, 7), (2, 3, 8), (6, 3, 5)],
)
def test_ca05_attacks_always_hit_die_minus_armour(face: int, armour: int, pi_after: int) -> None:
    state = battle([fighter("h"), fighter("e", "enemies", pi=8, armour=armour)])
    play(state, [attack(state, "h", "e")], [f"d6={face}"])
    assert state.get("e").resources["pi"] == pi_after


# -- CA-06 ------------------------------------------------------------------------


def test_ca06_several_attackers_keep_single_highest() -> None:
    state = battle(
        [
            fighter("h1"),
            fighter("h2", weapons=[{"name": "espada", "damage": "d8"}]),
            fighter("h3", weapons=[{"name": "espada", "damage": "d4"}]),
            fighter("e", "enemies", pi=12, armour=1),
        ]
    )
    events = play(
        state, [attack(state, h, "e") for h in ("h1", "h2", "h3")], ["d6=2", "d8=7", "d4=4"]
    )
    assert state.get("e").resources["pi"] == 12 - (7 - 1)  # not 2 + 7 + 4
    damage = [e for e in events if isinstance(e, Damaged)]
    assert len(damage) == 1 and damage[0].source == "h2"
    assert [e.faces for e in events if isinstance(e, Rolled)] == [(2,), (7,), (4,)]


def test_ca06_separate_targets_are_separate_exchanges() -> None:
    state = battle(
        [
            fighter("h1"),
            fighter("h2"),
            fighter("e1", "enemies", pi=8),
            fighter("e2", "enemies", pi=8),
        ]
    )
    play(state, [attack(state, "h1", "e1"), attack(state, "h2", "e2")], ["d6=3", "d6=5"])
    assert (state.get("e1").resources["pi"], state.get("e2").resources["pi"]) == (5, 3)


# -- CA-07 ------------------------------------------------------------------------

BOW = {"name": "arco", "damage": "d8", "kind": "distancia"}


@pytest.mark.parametrize(
    ("attacker", "target", "options", "dice"),
    [
        ({"weapons": [BOW]}, {"zone": "c"}, {}, (4,)),  # shot into cover 1: Impedido
        ({"weapons": [BOW]}, {"zone": "b"}, {}, (8,)),  # no cover
        ({"weapons": [BOW]}, {"zone": "c"}, {"cover_impairs_at": 2}, (8,)),
        ({"weapons": [BOW]}, {"zone": "d"}, {"cover_impairs_at": 2}, (4,)),
        ({"impaired": True}, {}, {}, (4,)),  # bound hands
        (
            {"weapons": [{"name": "espada", "damage": "d8+d8"}]},
            {"destacamento": True},
            {},
            (4,),
        ),  # an individual against a destacamento, one d4 whatever the weapon
        ({"weapons": []}, {}, {}, (4,)),  # unarmed
        ({"weapons": []}, {"helpless": True}, {}, (4,)),  # unarmed is always d4
    ],
)
def test_ca07_impaired_rolls_d4(
    attacker: dict[str, Any], target: dict[str, Any], options: dict[str, Any], dice: tuple[int, ...]
) -> None:
    state = battle([fighter("h", **attacker), fighter("e", "enemies", **target)], options=options)
    h, e = state.get("h"), state.get("e")
    weapon = weapon_named(h, h.items[0])
    assert attack_dice(state, h, e, weapon)[0] == dice


def test_ca07_melee_inside_cover_zone_is_not_impaired() -> None:
    state = battle([fighter("h", zone="c"), fighter("e", "enemies", zone="c", pi=8)])
    play(state, [attack(state, "h", "e")], ["d6=6"])  # a d6, not a d4
    assert state.get("e").resources["pi"] == 2


# -- CA-08 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attacker", "target", "options", "dice"),
    [
        ({}, {"helpless": True}, {}, (12,)),
        ({"destacamento": True, "pc": False}, {}, {}, (12,)),
        ({"impaired": True}, {"helpless": True}, {}, (6,)),  # both: cancel (default)
        ({"impaired": True}, {"helpless": True}, {"both_modifiers": "impaired"}, (4,)),
        ({"impaired": True}, {"helpless": True}, {"both_modifiers": "enhanced"}, (12,)),
    ],
)
def test_ca08_enhanced_rolls_d12(
    attacker: dict[str, Any], target: dict[str, Any], options: dict[str, Any], dice: tuple[int, ...]
) -> None:
    state = battle([fighter("h", **attacker), fighter("e", "enemies", **target)], options=options)
    h, e = state.get("h"), state.get("e")
    assert attack_dice(state, h, e, weapon_named(h, "espada"))[0] == dice


# -- CA-09 ------------------------------------------------------------------------


def test_ca09_blast_rolls_separately_per_target() -> None:
    state = battle(
        [
            fighter("h", weapons=[BOMB]),
            fighter("h2"),
            fighter("e1", "enemies", zone="b", pi=8),
            fighter("e2", "enemies", zone="b", pi=8),
            fighter("e3", "enemies", zone="c", pi=8),
        ]
    )
    # h2 closes on e1 too: e1's pool is the bomb's roll for e1 and h2's d6, highest kept.
    play(
        state,
        [attack(state, "h", "e2", "bomba"), attack(state, "h2", "e1")],
        ["d6=4", "d6=6", "d6=2"],
    )  # bomb→e1 4, h2→e1 6, bomb→e2 2
    assert [state.get(e).resources["pi"] for e in ("e1", "e2", "e3")] == [2, 6, 8]


# -- CA-10 ------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "dice"), [("d8+d8", (8, 8)), ("d6+d4", (6, 4)), ("d10", (10,))])
def test_ca10_two_weapons_notation(text: str, dice: tuple[int, ...]) -> None:
    assert parse_damage(text) == dice


@pytest.mark.parametrize(("text", "dice"), [("d8+d8", (8, 8)), ("d6+d4", (6, 4)), ("d10", (10,))])
def test_ca10_weapon_dice_survive_copies(text: str, dice: tuple[int, ...]) -> None:
    """A weapon's parsed dice (read straight from pydantic's private storage in the hot
    loop) are there for a built, a deep-copied, a pickled and a re-validated weapon."""
    import copy
    import pickle

    weapon = Weapon(name="w", damage=text)
    for w in (
        weapon,
        copy.deepcopy(weapon),
        pickle.loads(pickle.dumps(weapon)),
        Weapon.model_validate(weapon.model_dump()),
    ):
        assert w.dice == dice
    assert UNARMED.dice == (4,)


@pytest.mark.parametrize(("faces", "pi_after"), [(("d8=3", "d6=6"), 6), (("d8=7", "d6=2"), 5)])
def test_ca10_two_weapons_keep_highest(faces: tuple[str, str], pi_after: int) -> None:
    state = battle(
        [fighter("h", weapons=[{"name": "par", "damage": "d8+d6"}]), fighter("e", "enemies", pi=12)]
    )
    play(state, [attack(state, "h", "e", "par")], list(faces))
    assert state.get("e").resources["pi"] == pi_after


def test_scripted_dice_catch_a_wrong_die() -> None:
    state = battle([fighter("h"), fighter("e", "enemies", pi=8)])
    with pytest.raises(ScriptError):
        play(state, [attack(state, "h", "e")], ["d8=3"])
