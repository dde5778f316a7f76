"""CA-01 … CA-04, the seed's "Rondas" and "Acciones": saves, the side turns, the first round's
DES save, a move and an action; scripted dice (rules-notes.md, Cairn)."""

from __future__ import annotations

import pytest

from escaramuza.rules.cairn.combat import save
from escaramuza.rules.core.dice import ScriptedRoller
from escaramuza.rules.core.events import Moved
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.ruleset import apply_action
from tests.rules.cairn.cairn_helpers import attack, battle, fighter, play, wait

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
