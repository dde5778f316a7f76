"""``Cairn.odds``: the marginal odds of one declaration, against brute-force enumeration.

Two oracles, both walking every die face and every d20 of the FUE save:

* a plain reading of CA-05/06/11/12/13/14 written here (for ``exact.marginal_exchange``);
* the engine itself: the side's declarations resolved once with the declaration
  and once with ``esperar`` in its place, on the same faces and the same d20 —
  so the odds agree with what the battle actually does (CA-06 keep-highest,
  CA-07 Impedido, CA-16 destacamentos).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from escaramuza.rules.cairn.exact import marginal_exchange
from escaramuza.rules.core.model import Action, Status
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.state import BattleState
from tests.rules.cairn.cairn_helpers import battle, fighter


def read_exchange(
    face: int,
    armour: int,
    pi: int,
    fue: int,
    pc: bool,
    d20: int,
    doomed: str = "out_of_action",
) -> tuple[int, bool]:
    """(PI + FUE lost, out of the fight) when the kept die shows ``face`` (0: no die)."""
    damage = max(0, face - armour)
    to_pi = min(damage, pi)
    over = damage - to_pi
    if over == 0:
        # CA-13: a PC left at exactly 0 PI reads Cicatrices; 11 (Herida mortal) puts it out
        # of action, and 12 or more (Condenado) too unless the option ``doomed`` is "event".
        out = (
            pc
            and to_pi > 0
            and to_pi == pi
            and (to_pi == 11 or (to_pi >= 12 and doomed == "out_of_action"))
        )
        return to_pi, out
    new_fue = max(0, fue - over)
    if new_fue == 0:
        return to_pi + fue, True  # CA-14: FUE 0 is death
    saved = d20 == 1 or (d20 != 20 and d20 <= new_fue)  # CA-01, CA-11 with the new FUE
    return to_pi + over, not saved


HELPER_ROWS = [
    # before, mine, armour, pi, fue, pc
    ((), (6,), 0, 4, 10, False),
    ((), (8, 8), 1, 2, 3, False),
    ((6,), (8,), 1, 3, 4, False),
    ((4, 4), (6,), 0, 1, 2, False),
    ((12,), (12,), 0, 11, 8, True),  # piling on can turn a certain scar into a save
    ((10,), (4,), 2, 0, 5, False),
    ((), (12,), 3, 6, 1, False),
    ((8,), (12,), 0, 12, 6, True),  # CA-13: only a 12 reads Condenado (entry 12)
]


@pytest.mark.parametrize("doomed", ["out_of_action", "event"])
@pytest.mark.parametrize(("before", "mine", "armour", "pi", "fue", "pc"), HELPER_ROWS)
def test_ca06_marginal_exchange_matches_enumeration(
    before: tuple[int, ...],
    mine: tuple[int, ...],
    armour: int,
    pi: int,
    fue: int,
    pc: bool,
    doomed: str,
) -> None:
    damage: dict[int, Fraction] = {}
    drop = Fraction(0)
    combos = list(
        product(*(range(1, s + 1) for s in before), *(range(1, s + 1) for s in mine), range(1, 21))
    )
    w = Fraction(1, len(combos))
    for *faces, d20 in combos:
        old = max(faces[: len(before)], default=0)
        new = max(faces)
        lost_without, out_without = read_exchange(old, armour, pi, fue, pc, d20, doomed)
        lost_with, out_with = read_exchange(new, armour, pi, fue, pc, d20, doomed)
        extra = lost_with - lost_without
        damage[extra] = damage.get(extra, Fraction(0)) + w
        if out_with and not out_without:
            drop += w
    got = marginal_exchange(before, mine, armour, pi, fue, pc, doomed=doomed)
    assert got.damage == {k: v for k, v in sorted(damage.items())}
    assert got.p_drop == drop
    assert got.p_hit == sum((p for k, p in damage.items() if k >= 1), Fraction(0))
    assert got.expected_damage == sum((k * p for k, p in damage.items()), Fraction(0))


def test_ca05_single_attack_hits_when_the_die_beats_the_armour() -> None:
    # A d6 against armadura 2 deals damage on 3..6: 4/6 ("hit" = at least 1 damage).
    assert marginal_exchange((), (6,), 2, 4, 10).p_hit == Fraction(4, 6)


class FaceRoller:
    """Hands out each attacker's damage faces (in order) and one fixed d20 for saves."""

    def __init__(self, faces: dict[str, list[tuple[int, int]]], d20: int) -> None:
        self.faces = {k: list(v) for k, v in faces.items()}
        self.d20 = d20

    def roll(self, sides: int, why: str = "") -> int:
        if sides == 20:
            return self.d20
        want, face = self.faces[why.split()[0]].pop(0)  # why = "<attacker> damage on …"
        assert want == sides, (want, sides, why)
        return face

    def exhausted(self) -> bool:
        return not any(self.faces.values())


def _resolve(
    state: BattleState, last: Action, faces: dict[str, list[tuple[int, int]]], d20: int, target: str
) -> tuple[int, bool]:
    s = state.clone()
    t = s.by_id[target]
    before = t.resources["pi"] + t.resources["fue"]
    roller = FaceRoller(faces, d20)
    apply_action(s, last, roller)
    assert roller.exhausted(), "every damage die was rolled"
    t = s.by_id[target]
    return before - t.resources["pi"] - t.resources["fue"], t.status is not Status.ACTIVE


def engine_odds(
    state: BattleState, action: Action, others: dict[str, list[int]], mine: list[int]
) -> tuple[Fraction, Fraction, Fraction, dict[int, Fraction]]:
    """Enumerate the engine on every face of the earlier dice (by attacker), this attack's
    dice and the d20: once with the declaration, once with ``esperar`` in its place."""
    assert action.target is not None
    wait = Action("esperar", action.actor)
    sizes = [(who, s) for who, dice in others.items() for s in dice]
    sizes += [(action.actor, s) for s in mine]
    combos = list(product(*(range(1, s + 1) for _, s in sizes), range(1, 21)))
    w = Fraction(1, len(combos))
    damage: dict[int, Fraction] = {}
    drop = Fraction(0)
    for *faces, d20 in combos:
        rolled: dict[str, list[tuple[int, int]]] = {}
        for (who, s), f in zip(sizes, faces, strict=True):
            rolled.setdefault(who, []).append((s, f))
        lost_with, out_with = _resolve(state, action, rolled, d20, action.target)
        rolled.pop(action.actor, None)
        lost_without, out_without = _resolve(state, wait, rolled, d20, action.target)
        extra = lost_with - lost_without
        damage[extra] = damage.get(extra, Fraction(0)) + w
        if out_with and not out_without:
            drop += w
    p_hit = sum((p for k, p in damage.items() if k >= 1), Fraction(0))
    mean = sum((k * p for k, p in damage.items()), Fraction(0))
    return p_hit, mean, drop, damage


D = {
    "d4": [{"name": "daga", "damage": "d4"}],
    "d6": [{"name": "espada", "damage": "d6"}],
    "d8": [{"name": "hacha", "damage": "d8"}],
    "d12": [{"name": "mandoble", "damage": "d12"}],
    "2d6": [{"name": "dos dagas", "damage": "d6+d6"}],
    "sling": [{"name": "honda", "damage": "d6", "kind": "distancia"}],
}


def _heroes_then(combatants: list[dict[str, Any]], declarations: list[Action]) -> BattleState:
    state = battle(combatants)
    for a in declarations:
        apply_action(state, a, FaceRoller({}, 20))
    return state


ENGINE_ROWS = [
    pytest.param(  # nothing declared yet: the attack's own odds
        [fighter("h", weapons=D["2d6"]), fighter("e", "enemies", pi=2, fue=3)],
        [],
        Action("atacar", "h", target="e", item="dos dagas"),
        {},
        [6, 6],
        id="alone-2d6",
    ),
    pytest.param(  # an earlier d6 on the same NPC: only a higher d8 adds anything
        [
            fighter("h1"),
            fighter("h2", weapons=D["d8"]),
            fighter("e", "enemies", pi=3, fue=4, armour=1),
        ],
        [Action("atacar", "h1", target="e", item="espada")],
        Action("atacar", "h2", target="e", item="hacha"),
        {"h1": [6]},
        [8],
        id="pile-on-npc",
    ),
    pytest.param(  # an earlier declaration on ANOTHER target does not count
        [
            fighter("h1", weapons=D["d12"]),
            fighter("h2"),
            fighter("e", "enemies", pi=1, fue=3),
            fighter("f", "enemies", pi=9, fue=9),
        ],
        [Action("atacar", "h1", target="f", item="mandoble")],
        Action("atacar", "h2", target="e", item="espada"),
        {"h1": [12]},
        [6],
        id="other-target",
    ),
    pytest.param(  # CA-16: individuals attacking a destacamento are Impedido (d4)
        [
            fighter("h1"),
            fighter("h2", weapons=D["d8"]),
            fighter("e", "enemies", pi=1, fue=3, destacamento=True),
        ],
        [Action("atacar", "h1", target="e", item="espada")],
        Action("atacar", "h2", target="e", item="hacha"),
        {"h1": [4]},
        [4],
        id="destacamento",
    ),
    pytest.param(  # CA-07: a shot into cover is Impedido (d4); zone c has cover 1
        [
            fighter("h", zone="b", weapons=D["sling"]),
            fighter("e", "enemies", zone="c", pi=0, fue=3),
        ],
        [],
        Action("atacar", "h", target="e", item="honda"),
        {},
        [4],
        id="cover",
    ),
]


@pytest.mark.parametrize(("combatants", "declared", "action", "others", "mine"), ENGINE_ROWS)
def test_ca06_odds_are_the_marginal_effect_the_engine_resolves(
    combatants: list[dict[str, Any]],
    declared: list[Action],
    action: Action,
    others: dict[str, list[int]],
    mine: list[int],
) -> None:
    state = _heroes_then(combatants, declared)
    assert state.pending is not None and state.pending.actor == action.actor
    odds = state.ruleset.odds(state, action)
    assert odds is not None
    p_hit, mean, drop, damage = engine_odds(state, action, others, mine)
    assert odds.p_hit == pytest.approx(float(p_hit), abs=1e-12)
    assert odds.expected_damage == pytest.approx(float(mean), abs=1e-12)
    assert odds.p_drop == pytest.approx(float(drop), abs=1e-12)
    assert odds.damage is not None
    assert odds.damage == pytest.approx({k: float(v) for k, v in damage.items()}, abs=1e-12)


def test_ca13_odds_of_an_enemy_piling_on_a_pc_count_the_scar() -> None:
    """Enemies' side turn: an earlier d12 on a PC with 11 PI. Enumerated through the engine."""
    state = battle(
        [
            fighter("pc", pi=11, fue=8, zone="b"),
            fighter("e1", "enemies", zone="b", weapons=D["d12"]),
            fighter("e2", "enemies", zone="b", weapons=D["d4"]),
        ]
    )
    apply_action(state, Action("esperar", "pc"), FaceRoller({}, 20))
    apply_action(state, Action("atacar", "e1", target="pc", item="mandoble"), FaceRoller({}, 20))
    action = Action("atacar", "e2", target="pc", item="daga")
    odds = state.ruleset.odds(state, action)
    assert odds is not None
    # The d4 only adds damage when the d12 rolled below it.
    p_hit, mean, drop, _ = engine_odds(state, action, {"e1": [12]}, [4])
    assert (odds.p_hit, odds.expected_damage, odds.p_drop) == pytest.approx(
        (float(p_hit), float(mean), float(drop)), abs=1e-12
    )


@pytest.mark.parametrize("doomed", ["out_of_action", "event"])
def test_ca13_odds_of_a_blow_that_can_doom_a_pc_follow_the_option(doomed: str) -> None:
    """A d12 on a PC with 12 PI: a 12 reads Condenado. Enumerated through the engine."""
    state = battle(
        [
            fighter("pc", pi=12, fue=8, zone="b"),
            fighter("e1", "enemies", zone="b", weapons=D["d12"]),
        ],
        options={"doomed": doomed},
    )
    apply_action(state, Action("esperar", "pc"), FaceRoller({}, 20))
    action = Action("atacar", "e1", target="pc", item="mandoble")
    odds = state.ruleset.odds(state, action)
    assert odds is not None
    p_hit, mean, drop, _ = engine_odds(state, action, {}, [12])
    assert (odds.p_hit, odds.expected_damage, odds.p_drop) == pytest.approx(
        (float(p_hit), float(mean), float(drop)), abs=1e-12
    )
    # Nothing can go past 12 PI, so the only way out is the scar: 1/12 or nothing.
    assert odds.p_drop == pytest.approx(1 / 12 if doomed == "out_of_action" else 0.0)


def test_ca05_odds_are_none_for_anything_but_an_attack() -> None:
    state = battle([fighter("h"), fighter("e", "enemies")])
    assert state.ruleset.odds(state, Action("esperar", "h")) is None
    assert state.ruleset.odds(state, Action("mover", "h", zone="b")) is None
