"""DD-20: the seed's worked examples, reproduced roll by roll with scripted dice."""

from __future__ import annotations

import pytest

from escaramuza.rules.core import Action, ScriptedRoller, Status, apply_action
from escaramuza.rules.core.events import AttackResolved, Damaged, ResourceChanged
from escaramuza.rules.destiny_dice import short_rest
from tests.rules.destiny_dice.destiny_dice_helpers import enemy, hero, scenario


def _damage_to(events, target):
    return [e for e in events if isinstance(e, Damaged) and e.target == target]


@pytest.mark.parametrize(
    ("names", "dice"),
    [
        # Nara d8 → 6, Rival 1 d6 → 6, Rival 2 d6 → 3: "Orden final: Nara (6, gana empate) →
        # Rival 1 (6) → Rival 2 (3)".
        (("nara", "rival1", "rival2"), ["d8=6", "d6=6", "d6=3"]),
        # Kaspar d8 and two matones d6: "Kaspar saca 5; los matones sacan 4 y 2. Actúa primero".
        (("kaspar", "maton1", "maton2"), ["d8=5", "d6=4", "d6=2"]),
    ],
    ids=["nara", "kaspar"],
)
def test_dd20_initiative_examples(battle, names, dice):
    """The hero (Mente d8) and two enemies (Mente d6) act in the example's order."""
    first, *others = names
    sc = scenario(hero(first, mente="d8"), *(enemy(e, mente="d6") for e in others))
    state, roller = battle(sc, dice)
    assert state.order == names
    assert state.pending.actor == first
    roller.assert_exhausted()


def test_dd20_brann_vs_saqueador(battle):
    """Brann (Cuerpo d8, Espada Corta +2) vs Saqueador (Defensa d6 +1 armadura):
    7 vs 4+1 = 5 hit; damage 5 + 2 = 7; the Saqueador loses 7 PV; Brann gains 2 PC."""
    sc = scenario(
        hero("brann", cuerpo="d8", weapons=[{"name": "espada corta", "tier": "media"}]),
        enemy("saqueador", defensa="d6", armour=1, pv=12, mente="d4"),
    )
    # Initiative (not in the example): Brann Mente d6 = 5, Saqueador Mente d4 = 1.
    # The example does not give the Saqueador's d20; a 10 has no special effect.
    state, roller = battle(sc, ["d6=5", "d4=1"], ["d8=7", "d20=14", "d6=4", "d20=10", "d8=5"])
    events = apply_action(
        state, Action("atacar", "brann", target="saqueador", item="espada corta"), roller
    )
    attack = [e for e in events if isinstance(e, AttackResolved)]
    assert [a.hit for a in attack] == [True]
    assert attack[0].text.startswith("7 vs 5")
    assert [d.amount for d in _damage_to(events, "saqueador")] == [7]
    assert state.get("saqueador").resources["pv"] == 12 - 7
    assert state.get("brann").resources["pc"] == 2
    assert any(
        isinstance(e, ResourceChanged) and e.resource == "pc" and e.delta == 2 for e in events
    )
    roller.assert_exhausted()


def test_dd20_kaspar_pistol(battle):
    """Kaspar (Mente d8) shoots a merodeador (Defensa d6) with a pistol (+2): 6 (d20 9) vs 5,
    hit; damage d8 4 + 2 = 6; Kaspar gains 2 PM."""
    sc = scenario(
        hero(
            "kaspar",
            mente="d8",
            weapons=[{"name": "pistola", "tier": "media", "kind": "distancia", "bands": ["cerca"]}],
        ),
        enemy("merodeador", zone="b", defensa="d6", mente="d4"),
    )
    state, roller = battle(sc, ["d8=5", "d4=2"], ["d8=6", "d20=9", "d6=5", "d20=10", "d8=4"])
    events = apply_action(
        state, Action("atacar", "kaspar", target="merodeador", item="pistola"), roller
    )
    assert [d.amount for d in _damage_to(events, "merodeador")] == [6]
    assert state.get("kaspar").resources["pm"] == 2
    assert state.get("kaspar").resources["pc"] == 0
    roller.assert_exhausted()


def test_dd20_zara_energy_shield(battle):
    """Zara (Cuerpo d8, shield +2) vs an android (Cuerpo d8) with ties_favor=defender:
    7 vs 5+2 = 7 is blocked, and her d20 of 20 is a Defensa Perfecta: she may counter."""
    sc = scenario(
        hero(
            "zara",
            cuerpo="d8",
            shield=2,
            mente="d4",
            weapons=[{"name": "vibrohoja", "tier": "media"}],
        ),
        enemy(
            "androide",
            cuerpo="d8",
            mente="d6",
            weapons=[{"name": "puño hidráulico", "tier": "media"}],
        ),
        options={"ties_favor": "defender"},
    )
    state, roller = battle(sc, ["d4=1", "d6=6"], ["d8=7", "d20=10", "d8=5", "d20=20"])
    assert state.pending.actor == "androide"
    events = apply_action(
        state, Action("atacar", "androide", target="zara", item="puño hidráulico"), roller
    )
    assert [a.hit for a in events if isinstance(a, AttackResolved)] == [False]
    assert state.get("zara").resources["pv"] == 16
    assert state.pending.actor == "zara" and state.pending.name == "defensa_perfecta"
    legal = state.ruleset.legal_actions(state)
    assert Action("contraatacar", "zara", target="androide", item="vibrohoja") in legal
    roller.assert_exhausted()


def test_dd20_rex_unarmed(battle):
    """Rex (Cuerpo d8, fists) vs a mutant (Defensa d6): 6 vs 4 hit; damage 5 − 1 = 4; 2 PC."""
    sc = scenario(hero("rex", cuerpo="d8"), enemy("mutante", defensa="d6", mente="d4"))
    state, roller = battle(sc, ["d6=6", "d4=1"], ["d8=6", "d20=10", "d6=4", "d20=10", "d8=5"])
    events = apply_action(state, Action("atacar", "rex", target="mutante", item="puños"), roller)
    assert [d.amount for d in _damage_to(events, "mutante")] == [4]
    assert state.get("rex").resources["pc"] == 2
    roller.assert_exhausted()


def test_dd20_brann_short_rest():
    """ "Brann tiene 8 PV de 16. Toma un descanso corto y lanza 1d4: saca 3. Pasa a 11 PV.
    También recupera 1 EC, 1 EM y 1 EA." (DD-17)"""
    sc = scenario(hero("brann", pv=16, pv_current=8), enemy("x"))
    brann = sc.combatant("brann").clone()
    roller = ScriptedRoller(["d4=3"])
    short_rest(brann, roller)
    assert brann.resources == {"pv": 11, "pc": 1, "pm": 1, "pa": 1}
    assert brann.status is Status.ACTIVE
    roller.assert_exhausted()
