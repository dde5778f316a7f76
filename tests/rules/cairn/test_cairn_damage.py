"""CA-11 … CA-15: damage past PI to FUE, Daño Crítico, the Cicatrices and the loss of
attributes ("Cicatrices", "Pérdida de atributos", "Muerte del personaje"); scripted dice
(rules-notes.md, Cairn)."""

from __future__ import annotations

from typing import get_args

import pytest

from escaramuza.rules.cairn.combat import damage_outside_combat, lose_attribute
from escaramuza.rules.cairn.scars import CICATRICES, DOOMED_READINGS, scar_for
from escaramuza.rules.cairn.sheets import CairnOptions
from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.i18n import language
from escaramuza.rules.core.model import Condition, Status
from tests.rules.cairn.cairn_helpers import attack, battle, fighter, play, wait

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


@pytest.mark.parametrize("doomed", ["out_of_action", "event"])
def test_ca13_doomed_entry_12_is_narrated_in_the_battles_language(doomed: str) -> None:
    # Each reading of entry 12 (Condenado) tells a Spanish GM what it does in Spanish, as
    # every other entry of the Cicatrices table does.
    with language("es"):
        state = battle(
            [fighter("pj", pi=12), fighter("m", "enemies", weapons=D12)],
            options={"doomed": doomed},
        )
        events = play(state, [wait("pj"), attack(state, "m", "pj", "mandoble")], ["d12=12"])
    (scar,) = [e for e in events if type(e).__name__ == "ScarSuffered"]
    meaning = scar.text.split(" — ", 1)[1]
    assert meaning.startswith("condenado:"), scar.text
    assert "doomed" not in meaning and "death" not in meaning


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


def test_ca14_fue_zero_kills_a_pc_already_down() -> None:
    """CA-14 "Si la FUE de un PJ se reduce a 0, muere": a PC crawling after Daño Crítico
    (down, not dead) whose FUE is then taken to 0 (CA-15's damage outside combat) dies."""
    state = battle([fighter("pj", pi=1, fue=10), fighter("m", "enemies")])
    # 4 − 1 PI = 3 past PI: FUE 10 → 7, the save with FUE 7 fails on 15.
    play(state, [wait("pj"), attack(state, "m", "pj")], ["d6=4", "d20=15"])
    pj = state.get("pj")
    assert pj.status is Status.DOWN and pj.has("dano_critico")
    damage_outside_combat(pj, 7)
    assert pj.resources["fue"] == 0 and pj.status is Status.DEAD


def test_ca14_des_zero_paralyses_a_pc_already_down() -> None:
    """CA-14 "Si su DES se reduce a 0, queda paralizado", down or not: a PC delirious at VOL 0
    first (delirante, down) then at DES 0 is both, and stays down."""
    state = battle([fighter("pj"), fighter("m", "enemies")])
    pj = state.get("pj")
    lose_attribute(pj, "vol", 10)
    lose_attribute(pj, "des", 10)
    assert pj.has("delirante") and pj.has("paralizado") and pj.status is Status.DOWN


# -- CA-15 ------------------------------------------------------------------------


def test_ca15_damage_outside_combat_goes_to_an_attribute() -> None:
    state = battle([fighter("pj"), fighter("m", "enemies")])
    pj = state.get("pj")
    damage_outside_combat(pj, 3)
    assert (pj.resources["pi"], pj.resources["fue"]) == (4, 7)
    damage_outside_combat(pj, 2, "vol")
    assert pj.resources["vol"] == 8


def test_ca20_the_rest_between_fights_is_narrated_in_the_battles_language() -> None:
    # CA-20 (CA-12: "Si se le proporciona ayuda (como vendajes), se estabilizará"): what the
    # rest of an adventuring day does to each PC, told to a Spanish GM in Spanish.
    from escaramuza.rules.cairn.recovery import rest

    state = battle([fighter("ana", pi=6), fighter("bo"), fighter("cy"), fighter("m", "enemies")])
    ana, bo, cy = (state.get(c) for c in ("ana", "bo", "cy"))
    ana.resources["pi"] = 2
    bo.status = Status.DOWN
    bo.conditions["dano_critico"] = Condition("dano_critico", persistent=True)
    cy.conditions["privado"] = Condition("privado", persistent=True)
    with language("es"):
        texts = [e.text for e in rest([ana, bo, cy])]
    assert texts == [
        "ana descansa y recupera 4 PI.",
        "bo queda vendado y estabilizado, pero solo puede arrastrarse.",
        "cy está privado y no recupera PI.",
    ]
    ana.status = Status.DOWN
    with language("es"):
        texts = [e.text for e in rest([ana, bo])]
    assert texts[0] == "bo queda sin tratar y muere en menos de una hora."
