"""The exact attack odds against brute-force enumeration of every die face."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from escaramuza.rules.destiny_dice.exact import (
    AttackProfile,
    drop_probability,
    hit_probability,
    pv_loss_distribution,
)


def enumerate_loss(p: AttackProfile) -> dict[int, Fraction]:
    """Walk every (attack die, attack d20, defence die, defence d20, damage die) outcome
    the way the seed reads, independently of the code under test."""
    out: dict[int, Fraction] = {}
    faces = product(
        range(1, p.att_die + 1),
        range(1, 21),
        range(1, p.def_die + 1),
        range(1, 21),
        range(1, p.att_die + 1),
    )
    weight = Fraction(1, p.att_die * 20 * p.def_die * 20 * p.att_die)
    for a, d20a, d, d20d, dmg_face in faces:
        if p.shooting and d20a == 1:
            loss = 0  # automatic miss, nothing else rolled
        else:
            att, dfn = a + p.att_mod, d + p.def_mod
            hit = att > dfn or (att == dfn and p.ties_favor == "attacker")
            loss = 0
            if hit:
                base = max(dmg_face - 1, 1) if p.unarmed else dmg_face + p.tier_bonus
                loss += max(base + p.extra, 0)
            if d20d == 1 and (not hit or p.fumble_damage == "always"):
                loss += 1
        out[loss] = out.get(loss, Fraction(0)) + weight
    return out


PROFILES = [
    AttackProfile(8, 6, def_mod=1, tier_bonus=2),  # Brann vs the Saqueador
    AttackProfile(8, 6, tier_bonus=2, shooting=True),  # Kaspar's pistol
    AttackProfile(8, 8, def_mod=2, tier_bonus=2, ties_favor="defender"),  # Zara's shield
    AttackProfile(8, 6, unarmed=True),  # Rex
    AttackProfile(4, 10, att_mod=1, def_mod=1, tier_bonus=1, fumble_damage="defence_wins"),
    AttackProfile(6, 4, att_mod=-2, extra=1, tier_bonus=3),
]


@pytest.mark.parametrize("profile", PROFILES)
def test_dd06_dd10_hit_probability_matches_enumeration(profile):
    p_hit = Fraction(0)
    for a, d in product(range(1, profile.att_die + 1), range(1, profile.def_die + 1)):
        att, dfn = a + profile.att_mod, d + profile.def_mod
        if att > dfn or (att == dfn and profile.ties_favor == "attacker"):
            p_hit += Fraction(1, profile.att_die * profile.def_die)
    if profile.shooting:
        p_hit *= Fraction(19, 20)
    assert hit_probability(profile) == pytest.approx(float(p_hit), abs=1e-12)


@pytest.mark.parametrize("profile", PROFILES)
def test_dd09_dd11_dd18_pv_loss_distribution_matches_enumeration(profile):
    expected = enumerate_loss(profile)
    got = pv_loss_distribution(profile)
    assert set(got) == {k for k, v in expected.items() if v > 0}
    for k, v in expected.items():
        assert got.get(k, 0.0) == pytest.approx(float(v), abs=1e-12)
    for pv in (1, 5, 9):
        want = sum(v for k, v in expected.items() if k >= pv)
        assert drop_probability(profile, pv) == pytest.approx(float(want), abs=1e-12)


def test_dd10_brann_hit_chance_closed_form():
    """d8 vs d6+1 with ties to the attacker: P(a ≥ d + 1) = 27/48 by counting."""
    wins = sum(1 for a in range(1, 9) for d in range(1, 7) if a >= d + 1)
    assert wins == 27
    assert hit_probability(PROFILES[0]) == pytest.approx(27 / 48)


def test_dd06_odds_of_an_action_in_a_state_match_the_profile(battle):
    """The generic ``Ruleset.odds`` hook reports the exact helpers for the state's modifiers."""
    from escaramuza.rules.core import Action
    from tests.rules.destiny_dice.destiny_dice_helpers import enemy, hero, scenario

    sc = scenario(
        hero("h", weapons=[{"name": "espada", "tier": "media"}]),
        enemy("e", defensa="d6", armour=1, pv=7, mente="d4"),
    )
    state, _ = battle(sc, ["d6=6", "d4=1"])
    odds = state.ruleset.odds(state, Action("atacar", "h", target="e", item="espada"))
    profile = PROFILES[0]  # Brann vs the Saqueador: d8, +2 sword, Defensa d6 + 1
    assert odds.p_hit == pytest.approx(float(Fraction(27, 48)))
    assert odds.p_drop == pytest.approx(
        float(sum(v for k, v in enumerate_loss(profile).items() if k >= 7))
    )
    assert state.ruleset.odds(state, Action("fin_turno", "h")) is None


@pytest.mark.parametrize("pv", [1, 2, 7])
def test_dd15_odds_count_only_the_pv_the_target_has(battle, pv):
    """PV stop at 0 ("Si tus PV bajan a 0, caes Fuera de Combate"): the expected PV loss
    and its distribution a GM is shown count at most the PV the target has left."""
    from escaramuza.rules.core import Action
    from tests.rules.destiny_dice.destiny_dice_helpers import enemy, hero, scenario

    sc = scenario(
        hero("h", weapons=[{"name": "espada", "tier": "media"}]),
        enemy("e", defensa="d6", armour=1, pv=pv, mente="d4"),
    )
    state, _ = battle(sc, ["d6=6", "d4=1"])
    odds = state.ruleset.odds(state, Action("atacar", "h", target="e", item="espada"))
    capped: dict[int, Fraction] = {}
    for k, v in enumerate_loss(PROFILES[0]).items():
        capped[min(k, pv)] = capped.get(min(k, pv), Fraction(0)) + v
    assert odds.expected_damage == pytest.approx(float(sum(k * v for k, v in capped.items())))
    assert max(odds.damage) <= pv
    assert odds.damage == pytest.approx({k: float(v) for k, v in capped.items() if v})
    assert odds.p_drop == pytest.approx(float(capped.get(pv, 0)))
