"""The Cairn heuristic picks the action a thoughtful player would (situation → action)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from escaramuza.agents.heuristics.cairn import attack_gain, choose
from escaramuza.rules.core.dice import ScriptedRoller
from escaramuza.rules.core.model import Action, Status
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.state import BattleState
from tests.rules.cairn.cairn_helpers import battle, fighter


def pick(state: BattleState) -> Action:
    return choose(state, state.ruleset.legal_actions(state), random.Random(0))


def declare(state: BattleState, action: Action) -> None:
    apply_action(state, action, ScriptedRoller([]))


def test_ca06_heuristic_spreads_dice_over_targets() -> None:
    state = battle(
        [fighter("h1"), fighter("h2"), fighter("e1", "enemies"), fighter("e2", "enemies")]
    )
    declare(state, Action("atacar", "h1", target="e1", item="espada"))
    assert pick(state) == Action("atacar", "h2", target="e2", item="espada")


def test_ca06_heuristic_piles_on_when_one_more_die_drops_the_target() -> None:
    big = [{"name": "hacha", "damage": "d8"}]
    state = battle(
        [
            fighter("h1", weapons=[{"name": "daga", "damage": "d4"}]),
            fighter("h2", weapons=big),
            fighter("e1", "enemies", pi=0, fue=1, armour=3),
            fighter("e2", "enemies"),
        ]
    )
    declare(state, Action("atacar", "h1", target="e1", item="daga"))
    assert pick(state) == Action("atacar", "h2", target="e1", item="hacha")


def test_ca07_heuristic_ranged_takes_cover() -> None:
    sling: list[dict[str, Any]] = [{"name": "honda", "damage": "d4", "kind": "distancia"}]
    # zones a–b–c(cover 1)–d(cover 2): the slinger in b, the target in a
    state = battle(
        [
            fighter("h", weapons=sling, zone="c"),
            fighter("h0", zone="out"),
            fighter("e", "enemies", zone="a"),
        ],
        zones=[
            {"id": "a"},
            {"id": "b"},
            {"id": "c"},
            {"id": "d", "cover": 2},
            {"id": "out", "exit": True},
        ],
        links=[["a", "b"], ["b", "c"], ["c", "d"], ["a", "out"], ["b", "d"]],
    )
    assert pick(state) == Action("mover", "h", zone="d")


def test_ca17_heuristic_retreats_when_side_broken() -> None:
    state = battle([fighter("h1"), fighter("h2"), fighter("h3"), fighter("e", "enemies", zone="b")])
    assert pick(state).verb != "huir"
    # two of three heroes fall (set directly: the situation, not how it came about)
    state.get("h2").status = Status.DEAD
    state.get("h3").status = Status.DOWN
    assert pick(state) == Action("huir", "h1")


def test_ca17_lone_fighter_at_zero_pi_heads_for_the_exit() -> None:
    state = battle([fighter("h", zone="c", pi=0), fighter("e", "enemies", zone="d")])
    assert pick(state) == Action("mover", "h", zone="a")  # two zones towards the exit


def test_ca13_heuristic_values_the_doom_only_when_it_takes_the_pc_out() -> None:
    # A d12 on a PC at 12 PI: a 12 (1/12) reads Condenado; nothing goes past PI. The blow's
    # expected damage is the same under both readings, so the tactician's value of it
    # differs by exactly P(out) = 1/12: out of action by default, nothing as an event.
    gains = {}
    for doomed in ("out_of_action", "event"):
        state = battle(
            [
                fighter("pc", pi=12, fue=8, zone="b"),
                fighter("e", "enemies", zone="b", weapons=[{"name": "mandoble", "damage": "d12"}]),
            ],
            options={"doomed": doomed},
        )
        declare(state, Action("esperar", "pc"))
        me = state.by_id["e"]
        gains[doomed] = attack_gain(
            state, me, Action("atacar", "e", target="pc", item="mandoble"), {}
        )
    assert gains["out_of_action"] - gains["event"] == pytest.approx(1 / 12)


#: A square a–b–c–y, y in cover 2: from a, b and y are both one zone nearer c (b first in
#: map order), and from y, a and c are both one zone nearer b (a first).
POSTS = [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "y", "cover": 2}]
POST_LINKS = [["a", "b"], ["b", "c"], ["a", "y"], ["y", "c"]]
SLING: list[dict[str, Any]] = [{"name": "honda", "damage": "d6", "kind": "distancia", "reach": 1}]


def cautious(state: BattleState) -> Action:
    return choose(state, state.ruleset.legal_actions(state), random.Random(0), "cautious")


@pytest.mark.parametrize(
    ("b_cover", "want"),
    [
        (0, Action("mover", "h", zone="y")),  # the step to b would leave it in the open
        (2, Action("atacar", "h", target="e", item="honda")),  # b is as good a post as y
    ],
)
def test_ca04_cautious_shooter_steps_and_shoots_when_the_step_is_as_good_a_post(
    b_cover: int, want: Action
) -> None:
    """CA-04 "puede moverse hasta 12 metros y realizar una acción": a shot one zone out of
    reach is the move to b, then the shot. The cautious shooter takes it when b is a post
    as good as its best move (in reach, out of the foe's zone, in as much cover), and
    otherwise moves to that post; the tactician shoots either way."""
    zones = [dict(z, cover=b_cover) if z["id"] == "b" else z for z in POSTS]
    state = battle(
        [fighter("h", weapons=SLING), fighter("e", "enemies", zone="c")],
        zones=zones,
        links=POST_LINKS,
    )
    assert cautious(state) == want
    assert pick(state) == Action("atacar", "h", target="e", item="honda")


def test_ca04_cautious_shooter_keeps_its_cover_rather_than_step_for_a_better_shot() -> None:
    """In cover with a foe in reach, the cautious shooter shoots from where it stands,
    not at the easier kill one zone past its reach, whose step (to a, first in map order)
    would take it out of cover; the tactician takes that kill."""
    state = battle(
        [
            fighter("h", zone="y", weapons=SLING),
            fighter("tough", "enemies", zone="c", pi=13, armour=3),
            fighter("weak", "enemies", zone="b", pi=0, fue=1),
        ],
        zones=POSTS,
        links=POST_LINKS,
    )
    assert cautious(state) == Action("atacar", "h", target="tough", item="honda")
    assert pick(state) == Action("atacar", "h", target="weak", item="honda")
