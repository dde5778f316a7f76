"""CA-01 … CA-19, one or more tests each, with scripted dice (rules-notes.md, Cairn)."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from escaramuza.rules.cairn.combat import (
    attack_dice,
    damage_outside_combat,
    lose_attribute,
    save,
    weapon_named,
)
from escaramuza.rules.cairn.scars import CICATRICES, DOOMED_READINGS, scar_for
from escaramuza.rules.cairn.sheets import UNARMED, CairnOptions, Weapon, parse_damage
from escaramuza.rules.core.dice import ScriptedRoller, ScriptError
from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.events import Damaged, Moved, Rolled
from escaramuza.rules.core.model import Action, Side, Status
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.scenario import load_scenario
from escaramuza.rules.core.state import BattleState
from tests.rules.cairn.cairn_helpers import battle, fighter


def attack(state: BattleState, actor: str, target: str, item: str = "espada") -> Action:
    return Action("atacar", actor, target=target, item=item)


def play(state: BattleState, actions: list[Action], dice: list[Any]) -> list[Any]:
    """Declare ``actions`` in turn; the dice must be exactly those the resolution uses."""
    roller = ScriptedRoller(dice)
    events: list[Any] = []
    for a in actions:
        events.extend(apply_action(state, a, roller))
    roller.assert_exhausted()
    return events


def wait(cid: str) -> Action:
    return Action("esperar", cid)


# -- CA-01 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "face", "ok"),
    [
        (10, 10, True),  # d20 ≤ attribute succeeds
        (10, 11, False),
        (3, 1, True),  # a 1 always succeeds
        (1, 1, True),
        (20, 20, False),  # a 20 always fails
        (19, 20, False),
        (12, 13, False),
    ],
)
def test_ca01_save_d20_at_or_under(score: int, face: int, ok: bool) -> None:
    state = battle([fighter("h", des=score), fighter("e", "enemies")])
    roller = ScriptedRoller([f"d20={face}"])
    passed, rolled = save(roller, state.get("h"), "des", "test")
    assert passed is ok
    assert rolled.faces == (face,)
    roller.assert_exhausted()


# -- CA-02 ------------------------------------------------------------------------


def test_ca02_declare_all_then_resolve_heroes_then_enemies() -> None:
    state = battle([fighter("h1"), fighter("h2"), fighter("e1", "enemies", pi=8)])
    assert state.pending is not None and state.pending.actor == "h1"
    assert state.pending.name == "declarar" and state.round == 1
    # The first declaration rolls nothing: declarations come before any die.
    apply_action(state, attack(state, "h1", "e1"), ScriptedRoller([]))
    assert state.pending.actor == "h2" and state.get("e1").resources["pi"] == 8
    # The last declaration resolves the side together: both dice, the highest kept.
    play(state, [attack(state, "h2", "e1")], ["d6=2", "d6=5"])
    assert state.get("e1").resources["pi"] == 3
    assert state.pending.actor == "e1" and state.pending.side is Side.ENEMIES
    assert state.round == 1
    play(state, [wait("e1")], [])
    assert state.round == 2 and state.pending.actor == "h1"


def test_ca02_simultaneous_lists_the_sides_declarers_with_unchanging_options() -> None:
    """ "Todas las acciones se declaran antes de resolverse": the whole side's queue decides
    together, and a declaration leaves the later declarers' legal actions as they were."""
    state = battle(
        [
            fighter("h1"),
            fighter("h2", zone="c"),
            fighter("e1", "enemies", zone="b"),
            fighter("e2", "enemies", zone="d"),
        ]
    )
    group = state.ruleset.simultaneous(state)
    assert list(group) == ["h1", "h2"]  # scenario order; the enemies declare next side turn
    assert group["h1"] == state.ruleset.legal_actions(state)
    apply_action(state, attack(state, "h1", "e1"), ScriptedRoller([]))
    assert state.pending is not None and state.pending.actor == "h2"
    # h2's options, listed before h1 declared, are the engine's now that h2 is pending.
    assert group["h2"] == state.ruleset.legal_actions(state)
    assert list(state.ruleset.simultaneous(state)) == ["h2"]
    play(state, [attack(state, "h2", "e2")], ["d6=1", "d6=1"])
    assert list(state.ruleset.simultaneous(state)) == ["e1", "e2"]


def test_ca02_round_limit_ends_battle_on_heroes_turn() -> None:
    state = battle([fighter("h"), fighter("e", "enemies")], round_limit=2)
    play(state, [wait("h"), wait("e"), wait("h"), wait("e")], [])
    assert state.outcome is not None and state.outcome.reason == "timeout"
    assert state.outcome.rounds == 2


# -- CA-03 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "first"),
    [(15, "h2"), (12, "h1"), (1, "h1"), (20, "h2")],  # h1 has DES 12
)
def test_ca03_first_round_des_save(face: int, first: str) -> None:
    fighters = [
        fighter("h1", des=12),
        fighter("h2", waive_first_save=True),
        fighter("e", "enemies"),
    ]
    state = battle(fighters, [f"d20={face}"], options={"first_round_save": True})
    assert state.pending is not None and state.pending.actor == first
    assert state.get("h1").has("perdio_turno") is (first == "h2")
    # The lost turn lasts only this side turn; round 2 asks for no save.
    queue = [wait("h2")] if first == "h2" else [wait("h1"), wait("h2")]
    play(state, [*queue, wait("e")], [])
    assert state.round == 2 and state.pending.actor == "h1"
    assert not state.get("h1").has("perdio_turno")


def test_ca03_enemies_make_no_save_and_all_heroes_failing_passes_to_enemies() -> None:
    state = battle(
        [fighter("h", des=5), fighter("e", "enemies")],
        ["d20=18"],
        options={"first_round_save": True},
    )
    assert state.pending is not None and state.pending.actor == "e"


# -- CA-04 ------------------------------------------------------------------------


def test_ca04_move_one_step_plus_action() -> None:
    state = battle(
        [
            fighter(
                "h",
                weapons=[
                    {"name": "espada", "damage": "d6"},
                    {"name": "honda", "damage": "d4", "kind": "distancia", "reach": 2},
                ],
            ),
            fighter("e1", "enemies", zone="b"),
            fighter("e2", "enemies", zone="d"),
        ]
    )
    legal = state.ruleset.legal_actions(state)
    moves = sorted(a.zone for a in legal if a.verb == "mover")
    assert moves == ["b", "c", "out"]  # two zones at most (move + second move), not d
    attacks = {(a.target, a.item) for a in legal if a.verb == "atacar"}
    # melee closes one zone (b), not three (d); the sling reaches 2 hops only
    assert attacks == {("e1", "espada"), ("e1", "honda")}
    events = play(state, [attack(state, "h", "e1")], ["d6=1"])
    assert any(isinstance(e, Moved) and e.to_zone == "b" for e in events)
    assert state.get("h").zone == "b"


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

BOMB = {"name": "bomba", "damage": "d6", "kind": "distancia", "reach": 1, "blast": True}


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


# -- CA-11 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pi", "face", "save_face", "fue_after", "status"),
    [
        (2, 5, 7, 7, Status.ACTIVE),  # 3 past PI: FUE 10 → 7; save vs the NEW FUE 7
        (2, 5, 8, 7, Status.DEAD),  # 8 > 7 fails: Daño Crítico, an NPC dies
        (0, 1, 9, 9, Status.ACTIVE),  # already at 0 PI: every hit goes to FUE with a save
        (4, 6, 1, 8, Status.ACTIVE),
    ],
)
def test_ca11_damage_past_pi_to_fue_and_save(
    pi: int, face: int, save_face: int, fue_after: int, status: Status
) -> None:
    state = battle([fighter("h"), fighter("e", "enemies", pi=pi)])
    play(state, [attack(state, "h", "e")], [f"d6={face}", f"d20={save_face}"])
    e = state.get("e")
    assert (e.resources["pi"], e.resources["fue"], e.status) == (0, fue_after, status)


def test_ca11_no_save_without_damage_past_pi() -> None:
    state = battle([fighter("h"), fighter("e", "enemies", pi=6)])
    play(state, [attack(state, "h", "e")], ["d6=5"])  # no d20 asked
    assert state.get("e").resources["fue"] == 10


# -- CA-12 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pc", "status", "condition"),
    [(True, Status.DOWN, "dano_critico"), (False, Status.DEAD, None)],
)
def test_ca12_critical_damage_pc_crawls_npc_dies(
    pc: bool, status: Status, condition: str | None
) -> None:
    state = battle(
        [fighter("e", pi=0, pc=pc), fighter("m", "enemies", pc=False), fighter("m2", "enemies")]
    )
    play(state, [wait("e"), attack(state, "m", "e"), wait("m2")], ["d6=3", "d20=15"])
    e = state.get("e")
    assert e.status is status
    if condition:
        assert e.has(condition)


# -- CA-13 ------------------------------------------------------------------------


def test_ca13_table_has_twelve_entries_by_pi_lost() -> None:
    assert [s.entry for s in CICATRICES] == list(range(1, 13))
    assert scar_for(3).name == "Golpeado"
    assert scar_for(7).name == "Desjarretado"
    assert scar_for(15).entry == 12  # ≥ 12 reads 12 (default)
    with pytest.raises(ValueError):
        scar_for(0)


@pytest.mark.parametrize(
    ("pi", "die", "face", "entry", "status", "conditions"),
    [
        (3, "d6", 3, 3, Status.ACTIVE, {"privado"}),  # Golpeado, the seed's example
        (1, "d6", 1, 1, Status.ACTIVE, set()),  # recorded only
        (7, "d8", 7, 7, Status.ACTIVE, {"desjarretado"}),
        (11, "d12", 11, 11, Status.DOWN, {"privado", "fuera_de_accion"}),
        (12, "d12", 12, 12, Status.DOWN, {"fuera_de_accion"}),
    ],
)
def test_ca13_exactly_zero_pi_reads_cicatrices(
    pi: int, die: str, face: int, entry: int, status: Status, conditions: set[str]
) -> None:
    state = battle(
        [fighter("pj", pi=pi), fighter("m", "enemies", weapons=[{"name": "espada", "damage": die}])]
    )
    events = play(state, [wait("pj"), attack(state, "m", "pj")], [f"{die}={face}"])
    pj = state.get("pj")
    scars = [e for e in events if type(e).__name__ == "ScarSuffered"]
    assert [s.entry for s in scars] == [entry]
    assert pj.status is status and set(pj.conditions) == conditions


@pytest.mark.parametrize(
    ("who", "pi", "face", "dice"), [("npc", 3, 3, ["d6=3"]), ("pc", 3, 4, ["d6=4", "d20=2"])]
)
def test_ca13_no_scar_for_npcs_or_damage_past_zero(
    who: str, pi: int, face: int, dice: list[str]
) -> None:
    target_side = "enemies" if who == "npc" else "heroes"
    attacker_side = "heroes" if who == "npc" else "enemies"
    state = battle([fighter("t", target_side, pi=pi), fighter("x", attacker_side)])
    actions = [attack(state, "x", "t")] if who == "npc" else [wait("t"), attack(state, "x", "t")]
    events = play(state, actions, dice)
    assert not [e for e in events if type(e).__name__ == "ScarSuffered"]


def test_ca13_doomed_option_values_and_default() -> None:
    # The scenario option and the table agree on the readings; the engine's first reading
    # (out of action) stays the default.
    assert get_args(CairnOptions.model_fields["doomed"].annotation) == DOOMED_READINGS
    assert CairnOptions().doomed == "out_of_action" == DOOMED_READINGS[0]
    with pytest.raises(ScenarioError, match="doomed"):
        battle([fighter("pj"), fighter("m", "enemies")], options={"doomed": "dies"})


D12 = [{"name": "mandoble", "damage": "d12"}]


@pytest.mark.parametrize(
    ("doomed", "status", "conditions"),
    [
        ("out_of_action", Status.DOWN, {"fuera_de_accion"}),  # default: out of the fight
        ("event", Status.ACTIVE, set()),  # the doom is recorded; the PC fights on at 0 PI
    ],
)
def test_ca13_doomed_entry_12_follows_the_option(
    doomed: str, status: Status, conditions: set[str]
) -> None:
    # 12 PI, a d12 showing 12: exactly 0 PI after losing 12, Cicatrices #12 Condenado.
    state = battle(
        [fighter("pj", pi=12), fighter("m", "enemies", weapons=D12)], options={"doomed": doomed}
    )
    events = play(state, [wait("pj"), attack(state, "m", "pj", "mandoble")], ["d12=12"])
    pj = state.get("pj")
    scars = [e for e in events if type(e).__name__ == "ScarSuffered"]
    assert [(s.entry, s.scar) for s in scars] == [(12, "Condenado")]
    assert pj.resources["pi"] == 0
    assert pj.status is status and set(pj.conditions) == conditions


@pytest.mark.parametrize(("d20", "status"), [(5, Status.ACTIVE), (15, Status.DOWN)])
def test_ca13_doomed_as_event_the_pc_fights_on_and_saves_like_anyone(
    d20: int, status: Status
) -> None:
    state = battle(
        [fighter("pj", pi=12), fighter("m", "enemies", weapons=D12)], options={"doomed": "event"}
    )
    play(state, [wait("pj"), attack(state, "m", "pj", "mandoble")], ["d12=12"])
    # Next round the doomed PC still declares; the foe's 3 goes past 0 PI to FUE 10 → 7
    # and the CA-11 save with FUE 7: 5 passes, 15 fails (Daño Crítico, out).
    assert state.pending is not None and state.pending.actor == "pj"
    play(state, [wait("pj"), attack(state, "m", "pj", "mandoble")], ["d12=3", f"d20={d20}"])
    pj = state.get("pj")
    assert pj.resources["fue"] == 7
    assert pj.status is status
    assert pj.has("dano_critico") is (status is Status.DOWN)


def test_ca13_doomed_as_event_leaves_mortal_wound_out_of_action() -> None:
    state = battle(
        [fighter("pj", pi=11), fighter("m", "enemies", weapons=D12)], options={"doomed": "event"}
    )
    play(state, [wait("pj"), attack(state, "m", "pj", "mandoble")], ["d12=11"])
    assert state.get("pj").status is Status.DOWN  # entry 11 is not the option's


def test_ca13_hamstrung_cannot_move() -> None:
    state = battle(
        [
            fighter("pj", pi=7),
            fighter("m", "enemies", zone="b", weapons=[{"name": "e", "damage": "d8"}]),
        ]
    )
    play(state, [wait("pj"), attack(state, "m", "pj", "e")], ["d8=7"])
    verbs = {a.verb for a in state.ruleset.legal_actions(state)}
    assert state.pending.actor == "pj" and verbs == {"atacar", "esperar"}  # no mover, no huir


# -- CA-14 ------------------------------------------------------------------------


def test_ca14_fue_zero_is_death_even_for_a_pc() -> None:
    state = battle([fighter("pj", pi=1, fue=3), fighter("m", "enemies")])
    play(state, [wait("pj"), attack(state, "m", "pj")], ["d6=5"])  # 4 past PI, FUE 3 → 0
    assert state.get("pj").status is Status.DEAD


@pytest.mark.parametrize(("attribute", "condition"), [("des", "paralizado"), ("vol", "delirante")])
def test_ca14_des_or_vol_zero_cannot_act(attribute: str, condition: str) -> None:
    state = battle([fighter("pj"), fighter("m", "enemies")])
    pj = state.get("pj")
    lose_attribute(pj, attribute, 12)
    assert pj.resources[attribute] == 0 and pj.has(condition) and pj.status is Status.DOWN


# -- CA-15 ------------------------------------------------------------------------


def test_ca15_damage_outside_combat_goes_to_an_attribute() -> None:
    state = battle([fighter("pj"), fighter("m", "enemies")])
    pj = state.get("pj")
    damage_outside_combat(pj, 3)
    assert (pj.resources["pi"], pj.resources["fue"]) == (4, 7)
    damage_outside_combat(pj, 2, "vol")
    assert pj.resources["vol"] == 8


# -- CA-16 ------------------------------------------------------------------------


def test_ca16_destacamento_attack_is_enhanced_blast_on_individuals() -> None:
    state = battle(
        [
            fighter("h1", pi=12),
            fighter("h2", pi=12),
            fighter("h3", zone="b", pi=12),
            fighter("band", "enemies", destacamento=True, pi=8),
        ]
    )
    play(
        state, [wait("h1"), wait("h2"), wait("h3"), attack(state, "band", "h1")], ["d12=9", "d12=4"]
    )  # one d12 each for h1 and h2, none for h3 in another zone
    assert [state.get(h).resources["pi"] for h in ("h1", "h2", "h3")] == [3, 8, 12]


@pytest.mark.parametrize(
    ("pi", "fue", "face", "dice", "status"),
    [
        (0, 10, 4, ["d20=15"], Status.FLED),  # Daño Crítico routs it (default)
        (0, 10, 4, ["d20=3"], Status.ACTIVE),
        (0, 3, 4, [], Status.DEAD),  # FUE 0 destroys it
    ],
)
def test_ca16_destacamento_critical_routs_fue_zero_destroys(
    pi: int, fue: int, face: int, dice: list[str], status: Status
) -> None:
    state = battle(
        [fighter("h", impaired=True), fighter("band", "enemies", destacamento=True, pi=pi, fue=fue)]
    )
    play(state, [attack(state, "h", "band")], [f"d4={face}", *dice])
    assert state.get("band").status is status


def test_ca16_blast_against_destacamento_is_not_impaired() -> None:
    state = battle(
        [
            fighter("h", weapons=[BOMB]),
            fighter("band", "enemies", zone="b", destacamento=True, pi=12),
        ]
    )
    play(state, [attack(state, "h", "band", "bomba")], ["d6=6"])
    assert state.get("band").resources["pi"] == 6


def test_ca16_a_destacamento_cannot_be_a_pc() -> None:
    with pytest.raises(ScenarioError, match="destacamento"):
        battle([fighter("h", destacamento=True), fighter("e", "enemies")])


# -- CA-17 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("zone", "face", "status", "zone_after"),
    [
        ("a", 8, Status.FLED, "out"),
        ("a", 11, Status.ACTIVE, "out"),
        ("out", 10, Status.FLED, "out"),
    ],
)
def test_ca17_retreat_des_save_through_exit(
    zone: str, face: int, status: Status, zone_after: str
) -> None:
    state = battle([fighter("h", zone=zone), fighter("e", "enemies", zone="d")])
    play(state, [Action("huir", "h")], [f"d20={face}"])
    h = state.get("h")
    assert (h.status, h.zone) == (status, zone_after)


def test_ca17_no_retreat_far_from_an_exit() -> None:
    state = battle([fighter("h", zone="c"), fighter("e", "enemies", zone="d")])
    assert "huir" not in {a.verb for a in state.ruleset.legal_actions(state)}


def test_ca17_all_fled_loses_the_battle() -> None:
    state = battle([fighter("h"), fighter("e", "enemies", zone="d")])
    play(state, [Action("huir", "h")], ["d20=1"])
    assert state.outcome is not None and state.outcome.winner is Side.ENEMIES


# -- CA-18 ------------------------------------------------------------------------


def _group() -> list[dict[str, Any]]:
    return [
        fighter("h", weapons=[{"name": "espada", "damage": "d12"}]),
        fighter("e1", "enemies", pi=0, fue=2),
        fighter("e2", "enemies", vol=8),
        fighter("e3", "enemies", vol=8),
        fighter("e4", "enemies", vol=8),
    ]


def test_ca18_morale_off_by_default() -> None:
    state = battle(_group())
    play(state, [attack(state, "h", "e1")], ["d12=5"])  # kills e1; no VOL save asked
    assert state.get("e1").status is Status.DEAD
    assert all(state.get(e).active for e in ("e2", "e3", "e4"))


def test_ca18_first_casualty_then_half_strength_vol_saves() -> None:
    state = battle(_group(), options={"morale": True})
    # e1 dies: first casualty, e2 e3 e4 save VOL 8 (8, 9, 3: e3 flees); then 2 of 4 are
    # left, half strength, and e2 e4 save again (2, 10: e4 flees).
    play(state, [attack(state, "h", "e1")], ["d12=5", "d20=8", "d20=9", "d20=3", "d20=2", "d20=10"])
    statuses = [state.get(e).status for e in ("e2", "e3", "e4")]
    assert statuses == [Status.ACTIVE, Status.FLED, Status.FLED]


def test_ca18_half_strength_save_follows_first_casualty() -> None:
    state = battle(_group()[:3], options={"morale": True})
    # e1 dies (first casualty, e2 saves 8 ≤ 8); 1 of 2 left = half strength: e2 saves again.
    play(state, [attack(state, "h", "e1")], ["d12=5", "d20=8", "d20=12"])
    assert state.get("e2").status is Status.FLED
    assert state.outcome is not None and state.outcome.winner is Side.HEROES


def test_ca18_lone_foe_saves_at_zero_pi() -> None:
    state = battle(
        [
            fighter("h", weapons=[{"name": "espada", "damage": "d8"}]),
            fighter("boss", "enemies", pi=5, vol=11),
        ],
        options={"morale": True},
    )
    play(state, [attack(state, "h", "boss")], ["d8=5", "d20=14"])
    assert state.get("boss").status is Status.FLED


# -- CA-19 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "block"),
    [
        ("goblin", (4, 0, 8, 12, 8, (6,))),
        ("bandit", (4, 1, 12, 12, 9, (6,))),
        ("bugbear", (8, 1, 14, 12, 11, (8,))),
    ],
)
def test_ca19_typical_stat_blocks(template: str, block: tuple[Any, ...]) -> None:
    state = battle(
        [fighter("h"), {"id": "m", "side": "enemies", "zone": "a", "template": template}]
    )
    m = state.get("m")
    got = (
        m.maxima["pi"],
        m.stats.armour,
        m.maxima["fue"],
        m.maxima["des"],
        m.maxima["vol"],
        m.stats.weapons[0].dice,
    )
    assert got == block


def test_ca19_armour_above_three_is_rejected() -> None:
    with pytest.raises(ScenarioError, match="armour"):
        battle([fighter("h", armour=4), fighter("e", "enemies")])


def test_ca19_shipped_goblins_use_the_typical_block() -> None:
    scenario = load_scenario("cairn/emboscada_goblin")
    goblins = [c for c in scenario.combatants if c.id.startswith("goblin")]
    assert len(goblins) == 6
    for g in goblins:
        assert (g.maxima["pi"], g.maxima["fue"], g.maxima["des"], g.maxima["vol"]) == (4, 8, 12, 8)
        assert not g.pc


def test_scripted_dice_catch_a_wrong_die() -> None:
    state = battle([fighter("h"), fighter("e", "enemies", pi=8)])
    with pytest.raises(ScriptError):
        play(state, [attack(state, "h", "e")], ["d8=3"])
