"""The Cairn kernel's own cases: what the kernel equality suite over every ruleset
(tests/agents/test_kernel_equality.py: shipped scenarios × agent pairings, odd seeds,
generated scenarios, rollouts, refusals) does not reach.

The generated scenarios of this ruleset (``small_scenarios``, drawn by that suite via
tests/kernel_cases.py); the refusal of a crowd; the agents' keys made only for battles
that draw; an edit of the scar table played by the engine and the kernel alike. Every
comparison is with the engine's battle of the same seed (tests/fastpath_helpers.py),
never a number copied from the kernel.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import strategies as st

from escaramuza.agents.heuristics.cairn_kernel import KERNEL
from escaramuza.rules.core.loops import TEMPERAMENTS
from escaramuza.rules.core.scenario import load_scenario
from tests.fastpath_helpers import same_as_engine
from tests.rules.cairn.cairn_helpers import fighter, scenario

pytestmark = pytest.mark.compile


# -- hypothesis: small scenarios with every supported feature ---------------------------
DICE = ("d4", "d6", "d8", "d10", "d12", "d6+d6", "d8+d4")
ZONES = [
    {"id": "a"},
    {"id": "b", "cover": 1},
    {"id": "c", "cover": 2},
    {"id": "d"},
    {"id": "out", "exit": True},
    {"id": "e"},
]
# a–e–c beside a–b–c: a step (CA-04) from a toward c or d, or from c toward a, has two ways.
LINKS = [["a", "b"], ["b", "c"], ["c", "d"], ["a", "out"], ["b", "d"], ["a", "e"], ["e", "c"]]


@st.composite
def weapons(draw: Any) -> list[dict[str, Any]]:
    out = []
    for j in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["cuerpo_a_cuerpo", "distancia"]))
        out.append(
            {
                "name": f"w{j}",
                "damage": draw(st.sampled_from(DICE)),
                "kind": kind,
                "reach": draw(st.integers(0, 3)),
                "blast": draw(st.booleans()),
            }
        )
    return out


@st.composite
def small_scenarios(draw: Any) -> Any:
    combatants = []
    n_heroes = draw(st.integers(1, 3))
    n_enemies = draw(st.integers(1, 3))
    for i in range(n_heroes + n_enemies):
        side = "heroes" if i < n_heroes else "enemies"
        extra: dict[str, Any] = {
            "pi": draw(st.integers(0, 13)),
            "fue": draw(st.integers(1, 14)),
            "des": draw(st.integers(1, 18)),
            "vol": draw(st.integers(1, 18)),
            "armour": draw(st.integers(0, 3)),
            "weapons": draw(weapons()),
            "temperament": draw(st.sampled_from(TEMPERAMENTS)),
            "impaired": draw(st.booleans()),
            "helpless": draw(st.booleans()),
            "waive_first_save": draw(st.booleans()),
        }
        if side == "enemies" and draw(st.booleans()):
            extra["destacamento"] = True
        combatants.append(fighter(f"c{i}", side, draw(st.sampled_from("abcd")), **extra))
    options = {
        "first_round_save": draw(st.booleans()),
        "scars": draw(st.booleans()),
        "doomed": draw(st.sampled_from(["out_of_action", "event"])),
        "morale": draw(st.booleans()),
        "cover_impairs_at": draw(st.integers(1, 3)),
        "both_modifiers": draw(st.sampled_from(["cancel", "impaired", "enhanced"])),
    }
    return scenario(
        combatants, options, zones=ZONES, links=LINKS, round_limit=draw(st.integers(1, 8))
    )


# -- refusal -------------------------------------------------------------------------------
def test_kernel_refuses_a_crowd() -> None:
    # Fourteen combatants, past the kernel's MAX_COMBATANTS (twelve).
    crowd = scenario([fighter(f"c{i}", "heroes" if i % 2 else "enemies") for i in range(14)])
    why = KERNEL.refusal(crowd, ("heuristic", "heuristic"))
    assert why is not None and "14 combatants" in why


@pytest.mark.parametrize(
    ("name", "draws"),
    [
        ("cairn/bandidos_destacamento", True),  # its agents draw tie-breaks: keys for those
        ("cairn/duelo_bugbear", False),  # nobody draws: no key is ever made
    ],
)
def test_the_agents_keys_change_the_time_not_the_battles(
    monkeypatch: pytest.MonkeyPatch, name: str, draws: bool
) -> None:
    # Every battle is played first without its agents' key (a sha512 each); the ones whose
    # agents draw stop there (SUSPEND_AGENT_KEY) and are played again with their keys.
    from escaramuza.playtest.records import battle_seed, records_from_columns
    from escaramuza.playtest.runner import play_one

    calls: list[tuple[int, int]] = []  # (battles played, of them with a key) of each pass
    loops = KERNEL.loops
    real = loops.play_battles

    def spy(*args: Any) -> Any:
        todo, agent_len = args[5], args[9]  # rules.core.loops.play_battles' arguments
        calls.append((int(todo.sum()), int((agent_len[todo] > 0).sum())))
        return real(*args)

    monkeypatch.setattr(loops, "play_battles", spy)
    sc = load_scenario(name)
    seeds = [battle_seed(2, i) for i in range(40)]
    got = records_from_columns(0, seeds, KERNEL.play_columns(sc, ["heuristic", "heuristic"], seeds))
    assert got == [play_one(sc, "heuristic", "heuristic", 2, i) for i in range(40)]
    assert calls[0] == (40, 0)
    if draws:
        assert len(calls) == 2 and 0 < calls[1][0] == calls[1][1]
    else:
        assert calls == [(40, 0)]


# -- rule data: the scar table is the engine's -------------------------------------------
def _clear_odds_caches() -> None:
    """The engine's memoised odds read the scar table: forget them across an edit."""
    from escaramuza.agents.heuristics import cairn as temperaments
    from escaramuza.rules.cairn import exact

    for module in (exact, temperaments):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()


def test_an_edit_of_the_scar_table_is_played_by_the_engine_and_the_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from escaramuza.rules.cairn import kernel as rules_kernel
    from escaramuza.rules.cairn import scars

    scn = load_scenario("cairn/emboscada_goblin")
    agents = ("heuristic", "heuristic")
    seeds = list(range(40))
    before = KERNEL.play_battles(scn, agents, seeds)
    # Entry 2 (Golpe aturdidor) edited to take the PC out of the fight as entry 11 does:
    # the rules read it (read_scar) and so do the temperaments' odds (exact._scar_out).
    edited = tuple(
        dataclasses.replace(s, effects=("deprived", "out_of_action")) if s.entry == 2 else s
        for s in scars.CICATRICES
    )
    try:
        with monkeypatch.context() as patch:
            patch.setattr(scars, "CICATRICES", edited)
            _clear_odds_caches()
            table = rules_kernel.scar_table("out_of_action")
            assert table[2, rules_kernel.SCAR.OUT] == 1
            assert table[2, rules_kernel.SCAR.CONDITIONS] == (
                rules_kernel.PRIVADO | rules_kernel.FUERA_DE_ACCION
            )
            again = dataclasses.replace(scn)  # a new scenario object: exported anew
            after = same_as_engine(again, agents, seeds)
    finally:
        _clear_odds_caches()
    assert after != before
    assert KERNEL.play_battles(dataclasses.replace(scn), agents, seeds) == before


# -- exact ties of the temperaments' gains --------------------------------------------------
def test_attack_gains_that_tie_exactly_are_tied_in_the_kernel_too() -> None:
    """A cautious enemy's two attacks of exactly equal gain, P(out) + 3/100·E: the helpless
    c0 (its damage a d12, armour 2, PI 9, FUE 12) 3/80 + 3/100·55/12 and c2 (d6, armour 2,
    PI 3, FUE 6) 1/8 + 3/100·5/3, both 7/40. The engine keeps the first of the tie; the
    kernel's float sum once made c2's one ulp larger and attacked c2 instead."""
    from fractions import Fraction

    from escaramuza.agents.heuristics.cairn import DAMAGE_WEIGHT
    from escaramuza.rules.cairn.exact import expected_damage, out_probability

    def gain(die: int, pi: int, fue: int) -> Fraction:
        odds = out_probability((die,), 2, pi, fue, True, False, "out_of_action")
        return odds + DAMAGE_WEIGHT * expected_damage((die,), 2, pi, fue)

    tie = scenario(
        [
            fighter("c0", pi=9, fue=12, des=1, vol=1, armour=2, weapons=[], helpless=True),
            fighter("c2", pi=3, fue=6, des=1, vol=1, armour=2, weapons=[]),
            fighter("c3", "enemies", pi=4, fue=10, des=10, vol=10, armour=3),
        ],
        {"scars": False},
        zones=[{"id": "a"}, {"id": "b"}],
        links=[["a", "b"]],
        round_limit=1,
    )
    battles = same_as_engine(tie, ("heuristic:tactician", "heuristic:cautious"), range(8))
    assert gain(12, 9, 12) == gain(6, 3, 6) == Fraction(7, 40)
    # The enemy's one attack lands on c0, the first of the tie, in the battles it hits.
    assert any(b.taken[0] > 0 for b in battles)
    assert all(b.taken[1] == 0 for b in battles)


# -- the exact gain of one attack, pool by pool ----------------------------------------------
@pytest.mark.parametrize("scars", [False, True])
def test_one_target_gains_are_the_engines_floats_small_pools_and_past_the_exact_range(
    scars: bool,
) -> None:
    """The kernel's ``attack_gain`` on one target against the engine's
    ``float(_added_value(…))``, for pools already declared from none to nine d12s and
    each die a weapon adds: from a few outcomes, where it divides two exact integers once,
    to past the 2**40 its exact sums hold, where it reduces them or takes its float
    fallback."""
    from escaramuza.agents.heuristics import cairn as engine
    from escaramuza.agents.heuristics import cairn_kernel as compiled
    from escaramuza.rules.cairn.kernel import CS, OPT, POOL, ST, W
    from escaramuza.rules.core.dialect import OPTS, STAT, STATE, WEAPON

    arena = scenario(
        [
            fighter("h", pi=5, fue=8, armour=1, pc=True),
            fighter("e", "enemies", weapons=[{"name": "w", "damage": "d6"}]),
        ],
        {"scars": scars},
    )
    exported = KERNEL.exported(arena)
    s, d = exported.static, KERNEL.scratch(exported)
    stat, weapon, opts, cs = s[STAT].copy(), s[WEAPON].copy(), s[OPTS], d[STATE]
    cs[:] = exported.start[STATE]
    pools = d[compiled.POOLS]
    doomed = arena.options.doomed
    assert opts[OPT.SCARS] == int(scars)
    checked = 0
    for before in [(), (4,), (6, 6), (8, 12, 4), (12,) * 5, (12,) * 9]:
        for mine in [(4,), (6,), (12,), (10, 10), (8, 4)]:
            for armour, pi, fue in [(0, 5, 8), (1, 0, 8), (2, 3, 1), (3, 9, 14)]:
                stat[0, ST.ARMOUR] = armour
                cs[0, CS.PI], cs[0, CS.FUE] = pi, fue
                weapon[1, 0, W.DICE] = len(mine)
                weapon[1, 0, W.D1] = mine[0]
                weapon[1, 0, W.D2] = mine[1] if len(mine) > 1 else 0
                pools[:, :] = 0
                for die in before:
                    pools[0, POOL.COUNT + die] += 1
                got = compiled.attack_gain(
                    stat, weapon, s[compiled.ZONES], opts, s[compiled.SCARS], cs, pools, 1, 0, 0
                )
                want = float(
                    engine._added_value(before, mine, armour, pi, fue, True, scars, doomed)
                )
                assert got == want, (before, mine, armour, pi, fue)
                checked += 1
    assert checked == 6 * 5 * 4


def test_pool_values_are_the_engines_exact_odds() -> None:
    """``pool_value``'s (P, E, Q) of every pool of up to three Cairn dice, against
    ``exact.out_probability`` = P / 20Q and ``exact.expected_damage`` = E / Q, for
    targets with and without armour, left at 0 PI or not, PCs reading the scars or not."""
    from fractions import Fraction
    from itertools import combinations_with_replacement, product

    from escaramuza.agents.heuristics import cairn_kernel as compiled
    from escaramuza.rules.cairn.exact import expected_damage, out_probability
    from escaramuza.rules.cairn.kernel import POOL, scar_table
    from escaramuza.rules.cairn.sheets import CAIRN_DICE

    scar = scar_table("out_of_action")
    pool = POOL.new(1)[0]
    checked = 0
    for size in (1, 2, 3):
        for dice in combinations_with_replacement(CAIRN_DICE, size):
            pool[:] = 0
            for die in dice:
                pool[POOL.COUNT + die] += 1
            for armour, pi, fue, pc, scars in product((0, 2), (0, 3), (1, 9), *[(False, True)] * 2):
                p, e, q = compiled.pool_value(pool, armour, pi, fue, pc, scars, scar)
                odds = out_probability(dice, armour, pi, fue, pc, scars, "out_of_action")
                assert Fraction(int(p), 20 * int(q)) == odds, (dice, armour, pi, fue, pc)
                assert Fraction(int(e), int(q)) == expected_damage(dice, armour, pi, fue)
                checked += 1
    assert checked == (5 + 15 + 35) * 32


# -- CA-04: a shooter's move, then its shot ---------------------------------------------------
def test_ca04_shooters_step_then_shoot_in_the_kernel_as_in_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CA-04 "puede moverse hasta 12 metros y realizar una acción": a shot at a target one
    zone past the weapon's reach steps first toward it, to the nearer zone first in map
    order. Two bands of shooters reaching one zone (slings, a blast) and none (darts) face
    each other across a map where the step has two ways (a ring of four zones, cover on
    one way); every temperament of the kernel plays the engine's battles, and the engine's
    shooters do step, some of them with two nearer zones to choose from."""
    from escaramuza.rules.cairn import ruleset
    from escaramuza.rules.cairn.sheets import RANGED

    real = ruleset.attack_zone
    ways: list[int] = []  # the shooters' steps: how many zones were one nearer the target

    def spy(state: Any, attacker: Any, target: Any, weapon: Any) -> str:
        zone = real(state, attacker, target, weapon)
        if weapon.kind == RANGED and zone != attacker.zone:
            bf = state.battlefield
            near = bf.distance(attacker.zone, target.zone)
            ways.append(
                sum(bf.distance(z, target.zone) < near for z in bf.neighbours(attacker.zone))
            )
        return zone

    monkeypatch.setattr(ruleset, "attack_zone", spy)
    sling = {"name": "honda", "damage": "d4", "kind": "distancia", "reach": 1}
    darts = {"name": "dardos", "damage": "d6", "kind": "distancia", "reach": 0}
    bomb = {"name": "bomba", "damage": "d6", "kind": "distancia", "reach": 1, "blast": True}
    knife = {"name": "daga", "damage": "d4"}
    band = [[sling, knife], [darts], [bomb, knife], [sling]]
    temperaments = ("tactician", "cautious", "brute", "protector", "coward")
    combatants = [
        fighter(
            f"{side[0]}{i}",
            side,
            zone,
            pi=3,
            fue=6,
            weapons=band[i],
            temperament=temperaments[(i + (side == "enemies")) % len(temperaments)],
        )
        for side, zone in (("heroes", "w"), ("enemies", "e"))
        for i in range(len(band))
    ]
    # w – a, a – n – e and a – s(cover 2) – e: from a (and from e), n and s are both one
    # zone nearer the other end; n is first in map order.
    ring = scenario(
        combatants,
        {"first_round_save": True},
        zones=[
            {"id": "w", "exit": True},
            {"id": "a"},
            {"id": "n"},
            {"id": "s", "cover": 2},
            {"id": "e"},
        ],
        links=[["w", "a"], ["a", "n"], ["n", "e"], ["a", "s"], ["s", "e"]],
        round_limit=8,
    )
    for agents in [
        ("heuristic", "heuristic"),
        ("heuristic:cautious", "heuristic:tactician"),
        ("heuristic:brute", "heuristic:cautious"),
        ("random", "heuristic:protector"),
        ("heuristic:coward", "random"),
    ]:
        same_as_engine(ring, agents, range(30))
    assert ways and max(ways) == 2


def test_a_declaration_without_what_its_verb_reads_is_refused_at_export() -> None:
    """A state's declared attack with no target (or no weapon), or move with no zone, is
    refused by the kernel's export (``NEEDS``), as every ruleset's actions are: the
    resolution would read index -1 unchecked."""
    import random

    from escaramuza.agents.heuristic import heuristic_choice
    from escaramuza.rules.core.dice import RandomRoller
    from escaramuza.rules.core.kernel import KernelRefusal
    from escaramuza.rules.core.ruleset import apply_action, new_battle

    sc = load_scenario("cairn/emboscada_goblin")
    roller = RandomRoller(3)
    state = new_battle(sc, roller)
    while not any(a.verb in ("atacar", "mover") for a in state.data["declared"]):
        actions = state.ruleset.legal_actions(state)
        apply_action(state, heuristic_choice(state, actions, random.Random(1)), roller)
    exported = KERNEL.exported(sc)
    KERNEL.export_state(exported, state)  # as declared: accepted
    declared = list(state.data["declared"])
    j, action = next((j, a) for j, a in enumerate(declared) if a.verb in ("atacar", "mover"))
    missing = ("target", "item") if action.verb == "atacar" else ("zone",)
    for field in missing:
        declared[j] = dataclasses.replace(action, **{field: None})
        state.data["declared"] = tuple(declared)
        with pytest.raises(KernelRefusal, match=f"lacks the {field} its verb needs"):
            KERNEL.export_state(exported, state)
