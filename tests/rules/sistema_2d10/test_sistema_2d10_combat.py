"""S2-05 … S2-13 in play, with scripted dice.

Every stat in the helper scenario gives MHC 6: attacks roll 2d10 + 6, the defensa pasiva
is 10 + 6 = 16, active defences and Aguante tests roll 2d10 + 6.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from escaramuza.rules.core.errors import IllegalActionError
from escaramuza.rules.core.events import AttackResolved, InitiativeOrder
from escaramuza.rules.core.model import Action, DecisionKind, Side


def _attack(t: Any, state: Any, roller: Any, target: str = "e", option: str = "libre") -> None:
    t.act(state, roller, "atacar", target=target, item="espada", option=option)


def _hits(state: Any) -> list[bool]:
    return [e.hit for e in state.log if isinstance(e, AttackResolved)]


# -- S2-01 / S2-08 the attack against passive and active defence -------------------


@pytest.mark.parametrize(
    ("attack", "options", "defend", "defence", "hit"),
    [
        (("d10=5", "d10=5"), {}, True, ("d10=4", "d10=5"), True),  # 16 ≥ 16; defence 15 < 16
        (("d10=5", "d10=5"), {}, True, ("d10=5", "d10=5"), False),  # defence 16 ≥ 16 blocks
        (("d10=5", "d10=5"), {"active_blocks": "gt"}, True, ("d10=5", "d10=5"), True),
        (("d10=5", "d10=5"), {}, False, (), True),  # declines the active defence
        (("d10=5", "d10=4"), {}, None, (), False),  # 15 < 16: misses the defensa pasiva
        (("d10=5", "d10=5"), {"passive_beats": "gt"}, None, (), False),  # 16 does not beat 16
        (("d10=1", "d10=1"), {}, None, (), False),  # pifia: misses regardless
        (("d10=10", "d10=10"), {}, True, ("d10=9", "d10=9"), True),  # a crítico beats the pasiva
        (("d10=10", "d10=10"), {}, True, ("d10=10", "d10=10"), False),  # only a crítico blocks
        (("d10=9", "d10=9"), {}, True, ("d10=1", "d10=1"), True),  # defence pifia fails
    ],
)
def test_s208_passive_then_active_defence(
    tools: Any,
    attack: tuple[str, ...],
    options: dict[str, str],
    defend: bool | None,
    defence: tuple[str, ...],
    hit: bool,
) -> None:
    t = tools
    scn = t.duel(foe={"pv": 40}, options=options)
    damage = ["d10=7", "d10=5"] if hit else []
    state, roller = t.start(scn, t.HERO_FIRST + list(attack) + list(defence) + damage)
    _attack(t, state, roller)
    if defend is not None:
        assert state.pending.name == "active_defence" and state.pending.actor == "e"
        assert state.pending.kind is DecisionKind.REACTION and state.pending.side is Side.ENEMIES
        t.act(state, roller, "defender" if defend else "no_defender")
    assert _hits(state) == [hit]
    roller.assert_exhausted()
    assert state.pending.actor == "e"


def test_s201_s211_worked_attack(tools: Any) -> None:
    """h: 2d10 [5, 5] + 6 = 16 vs defensa pasiva 16 ⇒ beats; e defends 2d10 [4, 5] + 6 = 15
    ⇒ fails; daño 1d10 = 7 − CA 2 = 5 at the torso (d10 = 5); e 20 → 15 PV."""
    t = tools
    scn = t.duel(foe={"ca": 2})
    dice = t.HERO_FIRST + ["d10=5", "d10=5", "d10=4", "d10=5", "d10=7", "d10=5"]
    state, roller = t.start(scn, dice)
    _attack(t, state, roller)
    t.act(state, roller, "defender")
    roller.assert_exhausted()
    assert state.get("e").resources["pv"] == 15
    assert state.get("e").resources["defensas"] == 0
    assert state.pending.actor == "e"


def test_s208_active_defences_one_per_action_per_round(tools: Any) -> None:
    t = tools
    scn = t.duel(hero={"actions": 2}, foe={"actions": 1, "pv": 60})
    hit = ["d10=6", "d10=6"]
    dice = t.HERO_FIRST + hit + ["d10=1", "d10=2", "d10=3", "d10=5"] + hit + ["d10=3", "d10=5"]
    state, roller = t.start(scn, dice)
    _attack(t, state, roller)
    t.act(state, roller, "defender")  # the one defence of the round, fails (3 + 6 = 9)
    _attack(t, state, roller)  # beats the pasiva, no defence left: straight to damage
    roller.assert_exhausted()
    assert state.get("e").resources["defensas"] == 0
    assert state.get("e").resources["pv"] == 60 - 3 - 3
    # A new round gives the defences back.
    t.act(state, roller, "pasar")  # e's turn
    assert state.round == 2 and state.get("e").resources["defensas"] == 1


# -- S2-05 Dados Exprés ---------------------------------------------------------------


def test_s205_spent_before_the_roll_adds_a_third_die(tools: Any) -> None:
    t = tools
    scn = t.duel(hero={"dados_expres": 1}, foe={"actions": 1})
    state, roller = t.start(scn, t.HERO_FIRST + ["d10=3", "d10=3", "d10=9"])
    _attack(t, state, roller)
    assert state.pending.name == "expres_before" and state.pending.actor == "h"
    assert state.pending.kind is DecisionKind.CHOICE
    t.act(state, roller, "gastar_dado")
    roller.assert_exhausted()
    # 3 + 3 + 9 + 6 = 21 ≥ 16: the defender is asked; no after-roll die (one per roll).
    assert state.pending.name == "active_defence"
    assert state.get("h").resources["dados_expres"] == 0


def test_s205_spent_after_seeing_the_roll(tools: Any) -> None:
    t = tools
    scn = t.duel(hero={"dados_expres": 2}, foe={"actions": 1})
    state, roller = t.start(scn, t.HERO_FIRST + ["d10=3", "d10=3", "d10=4"])
    _attack(t, state, roller)
    t.act(state, roller, "no_gastar")
    assert state.pending.name == "expres_after"  # 12 < 16: the die could flip it
    t.act(state, roller, "gastar_dado")
    roller.assert_exhausted()
    assert state.pending.name == "active_defence"  # 3 + 3 + 4 + 6 = 16 ≥ 16
    assert state.get("h").resources["dados_expres"] == 1


@pytest.mark.parametrize("faces", [("d10=1", "d10=1"), ("d10=10", "d10=10")])
def test_s205_no_after_roll_die_on_pifia_or_critico(tools: Any, faces: tuple[str, str]) -> None:
    t = tools
    scn = t.duel(hero={"dados_expres": 1}, foe={"actions": 1})
    state, roller = t.start(scn, t.HERO_FIRST + list(faces))
    _attack(t, state, roller)
    t.act(state, roller, "no_gastar")
    roller.assert_exhausted()
    assert state.pending.name in ("turn", "active_defence")


def test_s205_defender_side_decides_on_its_own_roll_and_never_on_damage(tools: Any) -> None:
    t = tools
    scn = t.duel(hero={"dados_expres": 1}, foe={"dados_expres": 1, "pv": 40})
    dice = t.HERO_FIRST + ["d10=8", "d10=8", "d10=2", "d10=2", "d10=9", "d10=4"]
    state, roller = t.start(scn, dice)
    _attack(t, state, roller)
    t.act(state, roller, "no_gastar")  # 22 ≥ 16; e may still defend, so after is offered
    assert state.pending.name == "expres_after"
    t.act(state, roller, "no_gastar")
    t.act(state, roller, "defender")
    assert state.pending.name == "expres_before" and state.pending.side is Side.ENEMIES
    t.act(state, roller, "no_gastar")  # 2 + 2 + 6 = 10 < 22
    assert state.pending.name == "expres_after" and state.pending.actor == "e"
    t.act(state, roller, "no_gastar")  # damage 9 at the torso: no Dado Exprés offered
    roller.assert_exhausted()
    assert state.get("e").resources["pv"] == 31
    assert state.pending.name == "turn" and state.pending.actor == "e"


def test_s205_giving_a_dado_expres_is_an_action(tools: Any) -> None:
    t = tools
    scn = t.scenario(
        t.fighter("h", "heroes", dados_expres=2, actions=2),
        t.fighter("h2", "heroes"),
        t.fighter("e", "enemies"),
    )
    dice = ["d10=10", "d10=10", "d10=2", "d10=2", "d10=1", "d10=1"]
    state, roller = t.start(scn, dice)
    assert state.pending.actor == "h"
    assert Action("ceder_dado", "h", target="h2") in state.ruleset.legal_actions(state)
    t.act(state, roller, "ceder_dado", target="h2")
    assert state.get("h").resources["dados_expres"] == 1
    assert state.get("h2").resources["dados_expres"] == 1
    assert state.get("h").resources["acciones"] == 1
    with pytest.raises(IllegalActionError):
        t.act(state, roller, "ceder_dado", target="e")  # only allies


def test_s205_a_dado_expres_goes_only_to_an_ally_who_has_run_out(tools: Any) -> None:
    # "Los jugadores pueden cederse sus dados exprés entre ellos si alguno ha agotado los
    # suyos": h2 holds none, h3 still holds one of its three.
    t = tools
    _, state, roller = t.run_out()
    assert state.pending.actor == "h"
    gifts = [a for a in state.ruleset.legal_actions(state) if a.verb == "ceder_dado"]
    assert gifts == [Action("ceder_dado", "h", target="h2")]
    with pytest.raises(IllegalActionError):
        t.act(state, roller, "ceder_dado", target="h3")
    t.act(state, roller, "ceder_dado", target="h2")
    # h2 holds one now: nobody on the side has run out.
    assert state.pending.actor == "h" and state.get("h").resources["dados_expres"] == 2
    assert not [a for a in state.ruleset.legal_actions(state) if a.verb == "ceder_dado"]


# -- S2-06 initiative, S2-07 actions --------------------------------------------------


def test_s206_initiative_2d10_plus_mhc_reflejos_sentidos(tools: Any) -> None:
    t = tools
    quick = {"attributes": {"reflejos": 30, "sentidos": 50, "aguante": 30, "destreza": 30}}
    scn = t.scenario(
        t.fighter("h", "heroes"), t.fighter("e", "enemies"), t.fighter("h2", "heroes", **quick)
    )
    # h: 3+3+6 = 12; e: 5+5+6 = 16; h2: 2+2+8 = 12 (ties keep scenario order).
    state, roller = t.start(scn, ["d10=3", "d10=3", "d10=5", "d10=5", "d10=2", "d10=2"])
    roller.assert_exhausted()
    assert state.order == ("e", "h", "h2")
    assert [e for e in state.log if isinstance(e, InitiativeOrder)][0].order == ("e", "h", "h2")
    assert state.pending.actor == "e" and state.round == 1


@pytest.mark.parametrize("acciones", [1, 2, 3])
def test_s207_actions_per_turn_are_the_stat_field(tools: Any, acciones: int) -> None:
    t = tools
    scn = t.duel(hero={"actions": acciones})
    state, roller = t.start(scn, t.HERO_FIRST)
    zones = ["b", "a", "b"]
    for i in range(acciones):
        assert state.pending.actor == "h"
        t.act(state, roller, "mover", zone=zones[i])
    assert state.pending.actor == "e"


# -- S2-09 full defence, S2-10 extra actions -------------------------------------------


def test_s209_full_defence_adds_three_to_active_defence(tools: Any) -> None:
    t = tools
    scn = t.duel(foe={"pv": 40})
    # e first; then h attacks with 6+6+6 = 18; e defends 4+5+6+3 = 18 ≥ 18: blocked.
    dice = ["d10=1", "d10=1", "d10=10", "d10=10", "d10=6", "d10=6", "d10=4", "d10=5"]
    state, roller = t.start(scn, dice)
    assert state.pending.actor == "e"
    t.act(state, roller, "defensa_completa")
    assert state.get("e").has("defensa_completa")
    _attack(t, state, roller)
    t.act(state, roller, "defender")
    roller.assert_exhausted()
    assert _hits(state) == [False]
    # It lasts until e's next turn.
    assert state.pending.actor == "e" and not state.get("e").has("defensa_completa")


def test_s209_full_defence_only_before_any_action(tools: Any) -> None:
    t = tools
    scn = t.duel(hero={"actions": 2})
    state, roller = t.start(scn, t.HERO_FIRST)
    assert Action("defensa_completa", "h") in state.ruleset.legal_actions(state)
    t.act(state, roller, "mover", zone="b")
    assert Action("defensa_completa", "h") not in state.ruleset.legal_actions(state)


def test_s210_extra_actions_give_no_extra_defence(tools: Any) -> None:
    t = tools
    scn = t.duel(hero={"actions": 2, "extra_actions": 1})
    state, roller = t.start(scn, t.HERO_FIRST)
    h = state.get("h")
    assert h.resources["acciones"] == 3
    assert h.resources["defensas"] == 2
    for zone in ("b", "c", "b"):
        t.act(state, roller, "mover", zone=zone)
    assert state.pending.actor == "e"


# -- S2-11 damage, S2-12 location, S2-13 aimed attacks -----------------------------------


@pytest.mark.parametrize(
    ("ca", "face", "location_face", "lost"),
    [
        (0, 7, 5, 7),
        (3, 7, 5, 4),
        (8, 7, 5, 0),  # CA absorbs everything
        (0, 4, 1, 8),  # cabeza ×2
        (0, 4, 10, 12),  # punto vital ×3
        (2, 4, 10, 6),  # (4 − 2) × 3: the multiplier applies after the CA
        (0, 4, 3, 4),  # brazo izquierdo ×1
    ],
)
def test_s211_s212_damage_minus_ca_times_location(
    tools: Any, ca: int, face: int, location_face: int, lost: int
) -> None:
    t = tools
    scn = t.duel(foe={"ca": ca, "pv": 40, "actions": 1})
    dice = t.HERO_FIRST + ["d10=6", "d10=6", f"d10={face}", f"d10={location_face}"]
    state, roller = t.start(scn, dice)
    _attack(t, state, roller)
    t.act(state, roller, "no_defender")
    roller.assert_exhausted()
    assert state.get("e").resources["pv"] == 40 - lost


def test_s212_a_scenario_may_bring_its_own_tables(tools: Any, tmp_path: Path) -> None:
    from escaramuza.rules.sistema_2d10.tables import default_tables_path

    text = Path(default_tables_path()).read_text(encoding="utf-8")
    text = text.replace(
        '{tirada: "4-6", lugar: torso}', '{tirada: "4-6", lugar: torso, multiplicador: 4}'
    )
    text = text.replace("default: true", "default: false")
    custom = tmp_path / "mis_tablas.yaml"
    custom.write_text(text, encoding="utf-8")
    t = tools
    scn = t.duel(foe={"pv": 80}, options={"tables": str(custom)})
    dice = t.HERO_FIRST + ["d10=6", "d10=6", "d10=5", "d10=5"]
    state, roller = t.start(scn, dice)
    _attack(t, state, roller)
    t.act(state, roller, "no_defender")
    roller.assert_exhausted()
    assert state.get("e").resources["pv"] == 80 - 20
    assert state.data["tables"].default is False


@pytest.mark.parametrize(
    ("aim", "faces", "hit", "lost"),
    [
        ("cabeza", ("d10=7", "d10=7"), True, 10),  # 14 + 6 − 4 = 16 hits; ×2
        ("cabeza", ("d10=6", "d10=6"), False, 0),  # 12 + 6 − 4 = 14 misses
        ("punto_vital", ("d10=8", "d10=8"), True, 15),  # 16 + 6 − 6 = 16; ×3
        ("brazo_derecho", ("d10=6", "d10=6"), True, 5),  # 12 + 6 − 2 = 16; ×1
        ("torso", ("d10=5", "d10=5"), True, 5),
    ],
)
def test_s213_aimed_attack_modifier_and_lands_where_aimed(
    tools: Any, aim: str, faces: tuple[str, str], hit: bool, lost: int
) -> None:
    t = tools
    scn = t.duel(foe={"pv": 60, "actions": 1})
    dice = t.HERO_FIRST + list(faces) + (["d10=5"] if hit else [])  # no location die
    state, roller = t.start(scn, dice)
    _attack(t, state, roller, option=aim)
    if hit:
        t.act(state, roller, "no_defender")
    roller.assert_exhausted()
    assert _hits(state) == [hit]
    assert state.get("e").resources["pv"] == 60 - lost


def test_s203_s208_a_critico_attack_is_blocked_only_by_a_critico(tools: Any) -> None:
    t = tools
    nimble = {"esquivar": 70, "cubrir": 20, "espada": 30, "resistencia_al_dolor": 30}
    scn = t.duel(foe={"pv": 60, "skills": nimble})  # defence MHC (70 + 30) // 10 = 10
    # Attack 10 + 10 + 6 = 26 (crítico); defence 9 + 9 + 10 = 28 ≥ 26 but not a crítico.
    dice = t.HERO_FIRST + ["d10=10", "d10=10", "d10=9", "d10=9", "d10=7", "d10=5"]
    state, roller = t.start(scn, dice)
    _attack(t, state, roller)
    t.act(state, roller, "defender")
    roller.assert_exhausted()
    assert _hits(state) == [True]
    assert state.get("e").resources["pv"] == 53
