"""``Sistema2d10.odds``: exact P(hit), damage distribution and P(drop) of an ``atacar``
action in a state, against a brute-force enumeration of every die written here from the
seed's wording (not from the engine's code)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from escaramuza.rules.core.model import Action, Condition
from escaramuza.rules.sistema_2d10.exact import pv_lost

D10 = range(1, 11)
#: The default location table (docs/rulesets/sistema_2d10.md): 1 cabeza ×2, 10 punto
#: vital ×3, every other face ×1.
LOCATION_MULT = (2, 1, 1, 1, 1, 1, 1, 1, 1, 3)
#: Default aimed-attack MS and the aimed location's multiplier.
AIM = {"cabeza": (-4, 2), "punto_vital": (-6, 3), "torso": (0, 1), "brazo_derecho": (-2, 1)}
#: Default GDF faces that take the target out: 9 inconsciente, 10 moribundo.
GDF_OUT = Fraction(2, 10)


def _mhc(a: int, b: int) -> int:
    return (a + b) // 10  # S2-02 "se utiliza la decena"


def brute_p_hit(
    bonus: int, passive: int, dbonus: int | None, beats: str = "ge", blocks: str = "ge"
) -> Fraction:
    """Both dice of the attack, then both dice of the active defence, if any."""
    hits = 0
    for a, b in product(D10, D10):
        total, crit, fumble = a + b + bonus, a == b == 10, a == b == 1
        beaten = total > passive if beats == "gt" else total >= passive
        if not (crit or (not fumble and beaten)):
            continue
        if dbonus is None:
            hits += 100
            continue
        for c, d in product(D10, D10):
            dtotal, dcrit, dfumble = c + d + dbonus, c == d == 10, c == d == 1
            held = dtotal > total if blocks == "gt" else dtotal >= total
            # A crítico attack is stopped only by a crítico defence (rules-notes default).
            blocked = dcrit if crit else dcrit or (not dfumble and held)
            hits += not blocked
    return Fraction(hits, 10_000)


def brute_p_gdf(aguante: int) -> Fraction:
    """P(the prueba de Aguante vs 16 calls for a GDF roll): below 16 or a pifia, no crítico."""
    bad = 0
    for a, b in product(D10, D10):
        total = a + b + aguante
        if not a == b == 10 and (a == b == 1 or total < 16):
            bad += 1
    return Fraction(bad, 100)


def brute_outcome(
    p_hit: Fraction, dice: tuple[int, int, int], ca: int, aim: str | None, pv: int, aguante: int
) -> tuple[dict[int, Fraction], Fraction]:
    """Every damage die face and location face after a hit; returns (loss dist, P(drop)).

    The loss is the PV the target loses: "El resultado se resta de los Puntos de
    Vitalidad", down at 0 PV, so never more than the ``pv`` it has."""
    n, sides, mod = dice
    mults = [AIM[aim][1]] if aim else list(LOCATION_MULT)
    p_gdf_out = brute_p_gdf(aguante) * GDF_OUT
    dist: dict[int, Fraction] = {0: 1 - p_hit}
    drop = Fraction(0)
    cases = list(product(product(range(1, sides + 1), repeat=n), mults))
    each = p_hit / len(cases)
    for faces, mult in cases:
        dealt = max(0, sum(faces) + mod - ca) * mult
        lost = min(dealt, pv)
        dist[lost] = dist.get(lost, Fraction(0)) + each
        if dealt >= pv:
            drop += each
        elif dealt > 0 and 2 * dealt >= pv:
            drop += each * p_gdf_out
    return dist, drop


SWORD = {"name": "espada", "skill": "espada", "attribute": "destreza"}
RIFLE = {
    "name": "fusil",
    "kind": "distancia",
    "skill": "fusil",
    "attribute": "destreza",
    "reach": 2,
}

# (id, hero overrides, foe overrides, weapon, aim, dice, options, tweak)
ROWS: list[tuple[Any, ...]] = [
    ("plain", {}, {}, SWORD | {"damage": "1d10"}, None, (1, 10, 0), {}, {}),
    ("no_defence_left", {}, {}, SWORD | {"damage": "1d10"}, None, (1, 10, 0), {}, {"defensas": 0}),
    ("aimed_head_ca", {}, {"ca": 2}, SWORD | {"damage": "1d10+2"}, "cabeza", (1, 10, 2), {}, {}),
    (
        "aimed_vital_kill",
        {"skills": {"espada": 70}},
        {},
        SWORD | {"damage": "1d10"},
        "punto_vital",
        (1, 10, 0),
        {},
        {"pv": 5},
    ),
    (
        "full_defence_stunned_gt",
        {},
        {},
        SWORD | {"damage": "1d8"},
        "brazo_derecho",
        (1, 8, 0),
        {"passive_beats": "gt", "active_blocks": "gt"},
        {"full": 3, "stun": -2},
    ),
    (
        "rifle_2d6",
        {"skills": {"fusil": 40}},
        {"zone": "b", "skills": {"cubrir": 20, "esquivar": 60}},
        RIFLE | {"damage": "2d6"},
        None,
        (2, 6, 0),
        {},
        {"pv": 8},
    ),
    (
        "weak_aguante_pain",
        {},
        {"attributes": {"reflejos": 20, "sentidos": 30, "aguante": 20}},
        SWORD | {"damage": "1d10+4"},
        "torso",
        (1, 10, 4),
        {},
        {"pv": 10},
    ),
]


@pytest.mark.parametrize(
    ("hero", "foe", "weapon", "aim", "dice", "options", "tweak"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_s208_s212_s214_odds_match_enumeration(
    tools: Any,
    hero: dict[str, Any],
    foe: dict[str, Any],
    weapon: dict[str, Any],
    aim: str | None,
    dice: tuple[int, int, int],
    options: dict[str, Any],
    tweak: dict[str, int],
) -> None:
    t = tools
    h = t.fighter("h", "heroes", weapons=[weapon])
    h["attributes"] = h["attributes"] | hero.get("attributes", {})
    h["skills"] = h["skills"] | hero.get("skills", {})
    e = t.fighter("e", "enemies", zone=foe.get("zone", "a"), ca=foe.get("ca", 0))
    e["attributes"] = e["attributes"] | foe.get("attributes", {})
    e["skills"] = e["skills"] | foe.get("skills", {})
    state, _ = t.start(t.scenario(h, e, options=options), t.HERO_FIRST)
    target = state.get("e")
    for key in ("pv", "defensas"):
        if key in tweak:
            target.resources[key] = tweak[key]
    if "full" in tweak:
        target.conditions["defensa_completa"] = Condition("defensa_completa", tweak["full"])
    if "stun" in tweak:
        state.get("h").conditions["aturdido"] = Condition("aturdido", tweak["stun"])

    # The numbers the enumeration needs, from the stat block (S2-02, S2-08, S2-14).
    hc, hh = h["attributes"], h["skills"]
    ec, eh = e["attributes"], e["skills"]
    bonus = _mhc(hh[weapon["skill"]], hc["destreza"]) + tweak.get("stun", 0)
    bonus += AIM[aim][0] if aim else 0
    skill = "cubrir" if weapon.get("kind") == "distancia" else "esquivar"
    def_mhc = _mhc(eh[skill], ec["reflejos"])
    dbonus = def_mhc + tweak.get("full", 0) if tweak.get("defensas", 1) > 0 else None
    p_hit = brute_p_hit(
        bonus,
        10 + def_mhc,
        dbonus,
        options.get("passive_beats", "ge"),
        options.get("active_blocks", "ge"),
    )
    aguante = _mhc(eh["resistencia_al_dolor"], ec["aguante"])
    dist, drop = brute_outcome(p_hit, dice, foe.get("ca", 0), aim, target.resources["pv"], aguante)

    action = Action("atacar", "h", target="e", item=weapon["name"], option=aim or "libre")
    assert action in state.ruleset.legal_actions(state)
    odds = state.ruleset.odds(state, action)
    assert odds is not None
    assert odds.p_hit == pytest.approx(float(p_hit), abs=1e-12)
    assert odds.p_drop == pytest.approx(float(drop), abs=1e-12)
    assert odds.damage is not None
    assert sorted(odds.damage) == sorted(k for k, v in dist.items() if v > 0)
    for k, v in dist.items():
        assert odds.damage.get(k, 0.0) == pytest.approx(float(v), abs=1e-12)
    mean = sum(k * v for k, v in dist.items())
    assert odds.expected_damage == pytest.approx(float(mean), abs=1e-12)


def test_s208_no_active_defence_raises_the_odds(tools: Any) -> None:
    """With both MHC 6 (passive 16), P(pass) = P(2d10 ≥ 10) = 64 %; the active defence then
    blocks a fair share of those: the odds must reflect whether a defence is left."""
    t = tools
    state, _ = t.start(t.duel(), t.HERO_FIRST)
    action = Action("atacar", "h", target="e", item="espada", option="libre")
    with_defence = state.ruleset.odds(state, action)
    state.get("e").resources["defensas"] = 0
    without = state.ruleset.odds(state, action)
    assert without.p_hit == pytest.approx(64 / 100)  # 2d10 ≥ 10: 100 − 36 sums of 2…9
    assert with_defence.p_hit < without.p_hit


def test_s211_odds_count_at_most_the_pv_the_target_has(tools: Any) -> None:
    """S2-11 "El resultado se resta de los Puntos de Vitalidad": a 2d6+2 montante on a foe
    at 6 PV costs it at most 6, whatever the blow and the location multiplier; the GM's
    expected damage and distribution are the PV lost (brute force, every die and face),
    while P(hit) and P(drop) are the blow's."""
    t = tools
    montante = SWORD | {"name": "montante", "damage": "2d6+2"}
    state, _ = t.start(t.duel(hero={"weapons": [montante]}, foe={"pv": 6}), t.HERO_FIRST)
    action = Action("atacar", "h", target="e", item="montante", option="libre")
    odds = state.ruleset.odds(state, action)
    assert odds is not None and odds.damage is not None
    p_hit = brute_p_hit(6, 16, 6)  # every MHC 6: defensa pasiva 16, active defence +6
    dist, drop = brute_outcome(p_hit, (2, 6, 2), 0, None, 6, 6)
    assert sorted(odds.damage) == [0, 4, 5, 6]
    assert odds.damage == pytest.approx({k: float(v) for k, v in dist.items()}, abs=1e-12)
    mean = sum(k * v for k, v in dist.items())
    assert odds.expected_damage == pytest.approx(float(mean), abs=1e-12)
    assert odds.expected_damage < 6 * odds.p_hit
    assert (odds.p_hit, odds.p_drop) == pytest.approx((float(p_hit), float(drop)), abs=1e-12)


def test_s211_odds_are_none_for_actions_that_are_not_attacks(tools: Any) -> None:
    t = tools
    state, _ = t.start(t.duel(foe={"zone": "b"}), t.HERO_FIRST)
    for action in state.ruleset.legal_actions(state):
        assert action.verb != "atacar"
        assert state.ruleset.odds(state, action) is None


@pytest.mark.parametrize("name", ["sistema_2d10/duelo", "sistema_2d10/escuadra"])
def test_s213_attack_odds_many_equal_attack_odds_of_each_action(name: str) -> None:
    """``attack_odds_many`` (the aim-independent terms once per attacker, target and
    weapon) gives exactly :meth:`attack_odds` of each action — free and aimed attacks,
    every other verb None — and :meth:`odds` is that blow counted in the PV its target
    loses, in states along heuristic battles, with defences spent and PV lost."""
    from escaramuza.agents.heuristic import heuristic_choice
    from escaramuza.agents.runner import agent_rng
    from escaramuza.rules.core.dice import RandomRoller
    from escaramuza.rules.core.ruleset import apply_action, new_battle
    from escaramuza.rules.core.scenario import load_scenario

    scenario = load_scenario(name)
    checked = aimed = 0
    for seed in range(4):
        roller, rng = RandomRoller(seed), agent_rng(seed)
        state = new_battle(scenario, roller)
        rules = state.ruleset
        while state.outcome is None:
            actions = rules.legal_actions(state)
            # Every attack the actor has, not only the pending decision's verbs: the
            # ruleset lists them on its turn.
            many = rules.attack_odds_many(state, actions)
            for a, blow in zip(actions, many, strict=True):
                if a.verb != "atacar":
                    assert blow is None and rules.odds(state, a) is None
                    continue
                target = state.get(a.target)
                aim = None if a.option == "libre" else a.option
                assert blow == rules.attack_odds(state, state.get(a.actor), target, a.item, aim)
                assert rules.odds(state, a) == pv_lost(blow, target.resources["pv"])
            checked += sum(a.verb == "atacar" for a in actions)
            aimed += sum(a.verb == "atacar" and a.option not in (None, "libre") for a in actions)
            apply_action(state, heuristic_choice(state, actions, rng), roller)
    assert checked > 100 and aimed > 50


# (id, attacker's conditions, target's conditions, MS to the attack, MS to the active
# defence, MS to the target's Aguante) — the MS worked out from the seed's reading: a
# leg gives no MS; an arm or another part its MS to attack and active defence; the two
# stuns do not add up (the worse applies, rules-notes S2-15); the GDF's counts on every
# roll, S2-14's "durante el siguiente turno" of its bearer only, where it attacks (the
# target's defence and Aguante are rolled in the attacker's turn).
MS_ROWS: list[tuple[Any, ...]] = [
    ("leg_no_ms", {"incapacitado_pierna_derecha": -2}, {}, 0, 0, 0),
    ("arm", {"incapacitado_brazo_izquierdo": -2}, {}, -2, 0, 0),
    ("arm_and_torso", {"incapacitado_brazo_derecho": -2, "incapacitado_torso": -3}, {}, -5, 0, 0),
    ("stuns_worse_applies", {"aturdido": -2, "aturdido_16": -4}, {}, -4, 0, 0),
    ("target_torso", {}, {"incapacitado_torso": -2}, 0, -2, 0),
    ("target_leg", {}, {"incapacitado_pierna_izquierda": 0}, 0, 0, 0),
    ("target_stunned", {}, {"aturdido_16": -3, "aturdido": -1}, 0, -1, -1),
    ("target_stunned_16", {}, {"aturdido_16": -3}, 0, 0, 0),
]


@pytest.mark.parametrize(
    ("mine", "theirs", "attack_ms", "defence_ms", "aguante_ms"),
    [row[1:] for row in MS_ROWS],
    ids=[row[0] for row in MS_ROWS],
)
def test_s215_odds_apply_the_ms_as_the_engine_does(
    tools: Any,
    mine: dict[str, int],
    theirs: dict[str, int],
    attack_ms: int,
    defence_ms: int,
    aguante_ms: int,
) -> None:
    t = tools
    state, _ = t.start(t.duel(), t.HERO_FIRST)
    for who, conds in (("h", mine), ("e", theirs)):
        for name, value in conds.items():
            state.get(who).conditions[name] = Condition(name, value, until="hasta_sanar")
    state.get("e").resources["pv"] = 10  # a 1d10 blow of 5+ calls for the Aguante test
    p_hit = brute_p_hit(6 + attack_ms, 16, 6 + defence_ms)
    dist, drop = brute_outcome(p_hit, (1, 10, 0), 0, None, 10, 6 + aguante_ms)
    action = Action("atacar", "h", target="e", item="espada", option="libre")
    odds = state.ruleset.odds(state, action)
    assert odds is not None
    assert odds.p_hit == pytest.approx(float(p_hit), abs=1e-12)
    assert odds.p_drop == pytest.approx(float(drop), abs=1e-12)
    assert odds.expected_damage == pytest.approx(
        float(sum(k * v for k, v in dist.items())), abs=1e-12
    )
