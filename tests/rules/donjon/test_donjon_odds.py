"""``Donjon.odds`` against brute-force enumeration.

The oracle walks EVERY sequence of dice the engine asks for (a depth-first
odometer over the faces, d4 pools so it stays small), plays the action with the
damage dealer spending every success on Heridas (DJ-17's default spend), and
weighs each leaf by 1/4 per die. So the odds agree with what the battle does:
attack test, parry or dodge, carried bonus dice, damage test with the attack's
successes as bonus dice, DJ-18 unconscious PNJ, DJ-19 broken PJ, the DJ-11 free
attack and the DJ-14 counter.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from itertools import product
from math import factorial
from typing import Any

import pytest

from escaramuza.rules.core.dice import ScriptedRoller
from escaramuza.rules.core.events import AttackResolved, Event
from escaramuza.rules.core.model import Action, Status
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.donjon.exact import damage_test_outcomes
from tests.rules.donjon.donjon_helpers import fighter, scenario

DIE = 4
ESPADA = [{"name": "espada", "damage": 0}]
ARCO = [{"name": "arco", "kind": "distancia", "damage": 0}]


class TreeRoller:
    """Replays ``prefix`` and then shows 1 on every new die, recording every die asked.

    The dice of one pool (same ``why``) only matter as a multiset (DJ-01 sorts
    them), so the walk visits each pool's faces in non-increasing order only and
    :meth:`weight` counts the orderings each visit stands for.
    """

    def __init__(self, prefix: list[int]) -> None:
        self.prefix = prefix
        self.faces: list[int] = []
        self.pools: list[str] = []

    def roll(self, sides: int, why: str = "") -> int:
        assert sides == DIE
        i = len(self.faces)
        face = self.prefix[i] if i < len(self.prefix) else 1
        self.faces.append(face)
        self.pools.append(why)
        return face

    def weight(self) -> Fraction:
        w = Fraction(1, DIE ** len(self.faces))
        start = 0
        for i in range(1, len(self.faces) + 1):
            if i == len(self.faces) or self.pools[i] != self.pools[start]:
                counts = Counter(self.faces[start:i])
                orderings = factorial(i - start)
                for c in counts.values():
                    orderings //= factorial(c)
                w *= orderings
                start = i
        return w

    def next_prefix(self) -> list[int] | None:
        """The next walk: bump the last die that can go up (staying ≤ the die before it
        in its pool); the dice after it are new."""
        for i in range(len(self.faces) - 1, -1, -1):
            cap = self.faces[i - 1] if i > 0 and self.pools[i - 1] == self.pools[i] else DIE
            if self.faces[i] < cap:
                return self.faces[:i] + [self.faces[i] + 1]
        return None


def _finish(state: BattleState, roller: TreeRoller, defence: str) -> list[Event]:
    """Play out the reactions the action triggers: the assumed defence, Heridas spends."""
    events: list[Event] = []
    while state.pending is not None and state.pending.name in ("defensa", "repartir"):
        legal = state.ruleset.legal_actions(state)
        if state.pending.name == "defensa":
            pick = next(a for a in legal if a.verb == defence)
        else:
            pick = next((a for a in legal if a.option == "heridas"), legal[0])
        events.extend(apply_action(state, pick, roller, validate=False))
    return events


def walk(
    state: BattleState,
    action: Action,
    victim: str,
    hit: Callable[[list[Event]], bool],
    defence: str = "esquivar",
) -> tuple[Fraction, dict[int, Fraction], Fraction]:
    """(P(hit), distribution of Heridas the victim loses, P(the victim is out))."""
    p_hit = Fraction(0)
    drop = Fraction(0)
    damage: dict[int, Fraction] = {}
    before = state.by_id[victim].resources["heridas"]
    prefix: list[int] | None = []
    while prefix is not None:
        roller = TreeRoller(prefix)
        s = state.clone(keep_log=False)
        events = apply_action(s, action, roller, validate=False)
        events += _finish(s, roller, defence)
        w = roller.weight()
        lost = before - s.by_id[victim].resources["heridas"]
        damage[lost] = damage.get(lost, Fraction(0)) + w
        if hit(events):
            p_hit += w
        if s.by_id[victim].status is not Status.ACTIVE:
            drop += w
        prefix = roller.next_prefix()
    return p_hit, dict(sorted(damage.items())), drop


def begin(*fighters: dict[str, Any], first: str) -> BattleState:
    """A d4 battle where ``first`` rolls 4,1 for initiative and everyone else 2,1."""
    sc = scenario(*fighters, options={"die_size": DIE})
    dice = []
    for f in fighters:
        dice += [f"d4={x}" for x in ((4, 1) if f["id"] == first else (2, 1))]
    roller = ScriptedRoller(dice)
    state = new_battle(sc, roller)
    roller.assert_exhausted()
    assert state.pending is not None and state.pending.actor == first
    return state


def attack_hit(actor: str) -> Callable[[list[Event]], bool]:
    return lambda events: any(
        isinstance(e, AttackResolved) and e.actor == actor and e.hit for e in events
    )


def parried(attacker: str) -> Callable[[list[Event]], bool]:
    return lambda events: any(
        isinstance(e, AttackResolved) and e.actor == attacker and not e.hit for e in events
    )


def _atacar_no_parry() -> tuple[BattleState, Action, str, Callable[[list[Event]], bool], str]:
    # The foe has only a bow: no parry, a dodge of 1 die; PJ hero, 2 attack dice.
    state = begin(
        fighter("hero", cel=2, vir=1, weapons=ESPADA),
        fighter("foe", "enemies", cel=1, agu=1, heridas=1, weapons=ARCO),
        first="hero",
    )
    return state, Action("atacar", "hero", "foe", item="espada"), "foe", attack_hit("hero"), ""


def _atacar_parry() -> tuple[BattleState, Action, str, Callable[[list[Event]], bool], str]:
    # Parry pool 2 (Celeridad 1 + ataque 1) beats the dodge pool 1: counted as a parry.
    state = begin(
        fighter("hero", cel=1, vir=1, agu=1, skills={"ataque": 1}, weapons=ESPADA),
        fighter(
            "foe", "enemies", cel=1, vir=1, agu=1, heridas=2, weapons=ESPADA, skills={"ataque": 1}
        ),
        first="hero",
    )
    return (
        state,
        Action("atacar", "hero", "foe", item="espada"),
        "foe",
        attack_hit("hero"),
        "parar",
    )


def _ranged_with_bonus() -> tuple[BattleState, Action, str, Callable[[list[Event]], bool], str]:
    # A bow a una acción (no penalty) with one carried movement success (DJ-10).
    state = begin(
        fighter("hero", cel=1, vir=1, weapons=ARCO),
        fighter("foe", "enemies", zone="b", cel=1, agu=1, heridas=2),
        first="hero",
    )
    state.by_id["hero"].data["bonus"] = 1
    return state, Action("atacar", "hero", "foe", item="arco"), "foe", attack_hit("hero"), ""


def _pnj_breaks_pj() -> tuple[BattleState, Action, str, Callable[[list[Event]], bool], str]:
    # DJ-19: a PJ already at 0 Heridas is broken when every PNJ damage die is an éxito.
    state = begin(
        fighter("hero", cel=1, agu=1, weapons=ARCO),
        fighter("foe", "enemies", cel=1, vir=1, weapons=[{"name": "maza", "damage": 1}]),
        first="foe",
    )
    state.by_id["hero"].resources["heridas"] = 0
    return state, Action("atacar", "foe", "hero", item="maza"), "hero", attack_hit("foe"), ""


def _pnj_on_pj_at_aguante_zero() -> tuple[
    BattleState, Action, str, Callable[[list[Event]], bool], str
]:
    # DJ-19: a PJ at Aguante 0 (no armour, no ability) and 0 Heridas still resists with one
    # die, so not every PNJ damage die is an éxito for sure.
    state = begin(
        fighter("hero", cel=1, agu=1, weapons=ARCO),
        fighter("foe", "enemies", cel=1, vir=1, weapons=[{"name": "maza", "damage": 1}]),
        first="foe",
    )
    state.by_id["hero"].resources["heridas"] = 0
    state.by_id["hero"].resources["aguante"] = 0
    return state, Action("atacar", "foe", "hero", item="maza"), "hero", attack_hit("foe"), ""


def _pj_on_pnj_at_aguante_zero() -> tuple[
    BattleState, Action, str, Callable[[list[Event]], bool], str
]:
    # A PNJ at Aguante 0 gets no floor: the PJ's damage dice are all éxitos.
    state = begin(
        fighter("hero", cel=2, vir=1, weapons=ESPADA),
        fighter("foe", "enemies", cel=1, agu=1, heridas=2, weapons=ARCO),
        first="hero",
    )
    state.by_id["foe"].resources["aguante"] = 0
    return state, Action("atacar", "hero", "foe", item="espada"), "foe", attack_hit("hero"), ""


Row = tuple[BattleState, Action, str, Callable[[list[Event]], bool], str]


def _escape_resisted(state: BattleState) -> Row:
    """The PNJ tries to leave the hero's contact; the hero resists: DJ-11 free attack."""
    apply_action(state, Action("alejarse", "foe", "hero"), ScriptedRoller([]))
    assert state.pending is not None and state.pending.name == "resistir"
    return state, Action("resistir", "hero"), "foe", attack_hit("hero"), ""


def _free_attack() -> Row:
    return _escape_resisted(
        begin(
            fighter("hero", cel=1, vir=1, weapons=ESPADA),
            fighter("foe", "enemies", cel=1, agu=1, heridas=1),
            first="foe",
        )
    )


def _free_attack_out_of_reach_weapon() -> Row:
    # The hero's arco (1 − 6 + 1 + 6 attack + damage dice) ties the espada's (1 + 1) and
    # comes first on the sheet, but 1 − 6 + at most 1 éxito is no die to roll: the free
    # attack is the espada's.
    bow = {"name": "arco", "kind": "distancia", "damage": 6}
    return _escape_resisted(
        begin(
            fighter("hero", cel=1, vir=1, weapons=[bow, *ESPADA]),
            fighter("foe", "enemies", cel=1, agu=1, heridas=1),
            first="foe",
        )
    )


def _free_attack_weapon_by_successes() -> Row:
    # At Virilidad 0 the jabalina (2 − 3 + 3 dice) ties the espada (2 + 0) and comes first,
    # but rolls 2 − 3 + the éxitos: only when both of the hero's movement dice are éxitos;
    # else the espada. (Aguante 0: the PNJ rolls no resistance dice, a smaller walk.)
    javelin = {"name": "jabalina", "kind": "arrojadiza", "damage": 3}
    state = begin(
        fighter("hero", cel=2, vir=1, weapons=[javelin, *ESPADA]),
        fighter("foe", "enemies", cel=1, agu=1, heridas=2),
        first="foe",
    )
    state.by_id["hero"].resources["virilidad"] = 0
    state.by_id["foe"].resources["aguante"] = 0
    return _escape_resisted(state)


def _parry_counter() -> tuple[BattleState, Action, str, Callable[[list[Event]], bool], str]:
    # DJ-14: the hero parries the PNJ's sword; winning the parry damages the attacker.
    state = begin(
        fighter("hero", cel=1, vir=1, agu=1, weapons=ESPADA),
        fighter("foe", "enemies", cel=1, vir=1, agu=1, heridas=1),
        first="foe",
    )
    apply_action(state, Action("atacar", "foe", "hero", item="espada"), ScriptedRoller([]))
    assert state.pending is not None and state.pending.name == "defensa"
    return state, Action("parar", "hero"), "foe", parried("foe"), ""


ROWS = [
    _atacar_no_parry,
    _atacar_parry,
    _ranged_with_bonus,
    _pnj_breaks_pj,
    _pnj_on_pj_at_aguante_zero,
    _pj_on_pnj_at_aguante_zero,
    _free_attack,
    _parry_counter,
]


@pytest.mark.parametrize("build", ROWS, ids=lambda f: f.__name__.strip("_"))
def test_dj13_dj16_odds_match_the_enumerated_engine(build: Callable[..., Any]) -> None:
    _odds_match_the_enumerated_engine(build)


@pytest.mark.parametrize(
    "build",
    [_free_attack_out_of_reach_weapon, _free_attack_weapon_by_successes],
    ids=lambda f: f.__name__.strip("_"),
)
def test_dj11_resist_odds_take_the_free_attack_weapon_the_successes_can_roll(
    build: Callable[..., Any],
) -> None:
    # "puede utilizar los éxitos como bonificadores para el ataque gratuito": a weapon the
    # pool with the éxitos cannot roll gives way to one it can; the free attack may hit.
    _odds_match_the_enumerated_engine(build)


def _odds_match_the_enumerated_engine(build: Callable[..., Any]) -> None:
    state, action, victim, hit, defence = build()
    odds = state.ruleset.odds(state, action)
    assert odds is not None and odds.damage is not None
    p_hit, damage, drop = walk(state, action, victim, hit, defence or "esquivar")
    assert odds.p_hit == pytest.approx(float(p_hit), abs=1e-12)
    assert odds.damage == pytest.approx({k: float(v) for k, v in damage.items()}, abs=1e-12)
    mean = sum((k * p for k, p in damage.items()), Fraction(0))
    assert odds.expected_damage == pytest.approx(float(mean), abs=1e-12)
    assert odds.p_drop == pytest.approx(float(drop), abs=1e-12)
    assert 0 < odds.p_hit < 1


def test_dj19_a_pj_above_zero_heridas_is_never_dropped() -> None:
    state = begin(
        fighter("hero", cel=1, agu=1, heridas=1, weapons=ARCO),
        fighter("foe", "enemies", cel=3, vir=3),
        first="foe",
    )
    odds = state.ruleset.odds(state, Action("atacar", "foe", "hero", item="espada"))
    assert odds is not None and odds.p_drop == 0 and odds.expected_damage > 0


def test_dj18_rematar_is_certain_and_other_actions_have_no_odds() -> None:
    state = begin(
        fighter("hero", weapons=ESPADA), fighter("foe", "enemies", zone="b"), first="hero"
    )
    rules = state.ruleset
    assert rules.odds(state, Action("rematar", "hero", "foe", item="espada")) == pytest.approx(
        rules.odds(state, Action("rematar", "hero", "foe", item="espada"))
    )
    odds = rules.odds(state, Action("rematar", "hero", "foe", item="espada"))
    assert odds is not None and (odds.p_hit, odds.p_drop) == (1.0, 1.0)
    for a in (Action("esperar", "hero"), Action("acercarse", "hero", "foe")):
        assert rules.odds(state, a) is None


def _resolve(a: tuple[int, ...], d: tuple[int, ...]) -> tuple[str, int]:
    """DJ-01 read once more: strip equal top dice pairwise, compare, count above the rest."""
    a_left, d_left = sorted(a), sorted(d)
    aside = 0
    while a_left and d_left and a_left[-1] == d_left[-1]:
        a_left.pop()
        d_left.pop()
        aside += 1
    if not a_left and not d_left:
        return "defender", 0
    if a_left and (not d_left or a_left[-1] > d_left[-1]):
        top = d_left[-1] if d_left else 0
        return "attacker", aside + sum(1 for x in a_left if x > top)
    top = a_left[-1] if a_left else 0
    return "defender", aside + sum(1 for x in d_left if x > top)


@pytest.mark.parametrize(("pool", "soak"), [(1, 1), (2, 1), (3, 2), (2, 3), (0, 2)])
def test_dj16_damage_test_outcomes_match_enumeration(pool: int, soak: int) -> None:
    sides = 6
    want: dict[tuple[int, bool], Fraction] = {}
    combos = list(product(range(1, sides + 1), repeat=pool + soak))
    for faces in combos:
        who, s = _resolve(faces[:pool], faces[pool:])
        key = (s, s == pool) if who == "attacker" and s > 0 else (0, False)
        want[key] = want.get(key, Fraction(0)) + Fraction(1, len(combos))
    got = damage_test_outcomes(pool, soak, sides)
    assert got == pytest.approx({k: float(v) for k, v in want.items()}, abs=1e-12)
