"""CA-01 … CA-04, the seed's "Rondas" and "Acciones": saves, the side turns, the first round's
DES save, a move and an action; scripted dice (rules-notes.md, Cairn)."""

from __future__ import annotations

import pytest

from escaramuza.rules.cairn.combat import save
from escaramuza.rules.core.dice import ScriptedRoller
from escaramuza.rules.core.events import Moved, Rolled
from escaramuza.rules.core.i18n import language
from escaramuza.rules.core.model import Condition, Side
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
    # melee closes one zone (b), not three (d); the sling reaches 2 hops, and d, 3 hops
    # away, after the turn's one-zone move
    assert attacks == {("e1", "espada"), ("e1", "honda"), ("e2", "honda")}
    events = play(state, [attack(state, "h", "e1")], ["d6=1"])
    assert any(isinstance(e, Moved) and e.to_zone == "b" for e in events)
    assert state.get("h").zone == "b"


#: a–b, a–c, b–d, c–d: from a, b and c are both one zone nearer d (b first in map order).
SQUARE = [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}]
SQUARE_LINKS = [["a", "b"], ["a", "c"], ["b", "d"], ["c", "d"]]
SLING = {"name": "honda", "damage": "d4", "kind": "distancia", "reach": 1}


def test_ca04_a_shooter_moves_one_zone_then_shoots() -> None:
    """ "puede moverse hasta 12 metros y realizar una acción": a sling reaching one zone
    shoots a target two zones away, stepping first to the nearer zone first in map order."""
    state = battle(
        [fighter("h", weapons=[SLING]), fighter("e", "enemies", zone="d")],
        zones=SQUARE,
        links=SQUARE_LINKS,
    )
    shot = attack(state, "h", "e", "honda")
    assert shot in state.ruleset.legal_actions(state)
    # Its text says where the shooter ends up, in English and in Spanish.
    assert state.ruleset.describe(state, shot) == "h: move to b and attack e with honda (d4)"
    with language("es"):
        text = state.ruleset.describe(state, shot)
    assert text == "h: mover hacia b y atacar a e con honda (d4)"
    events = play(state, [attack(state, "h", "e", "honda")], ["d4=3"])
    moved = [e for e in events if isinstance(e, Moved)]
    assert [(m.from_zone, m.to_zone) for m in moved] == [("a", "b")]
    assert state.get("h").zone == "b"
    assert state.get("e").resources["pi"] == 1
    # From b the target is in reach: the next shot is made without a step.
    play(state, [wait("e")], [])
    events = play(state, [attack(state, "h", "e", "honda")], ["d4=1"])
    assert not any(isinstance(e, Moved) for e in events) and state.get("h").zone == "b"


def test_ca04_a_shooter_two_zones_out_of_reach_or_hamstrung_cannot_shoot() -> None:
    state = battle(
        [
            fighter("h", weapons=[SLING]),
            fighter("e1", "enemies", zone="d"),
            fighter("e2", "enemies", zone="f"),  # three zones from a: one past reach + move
        ],
        zones=[*SQUARE, {"id": "f"}],
        links=[*SQUARE_LINKS, ["d", "f"]],
    )
    targets = {a.target for a in state.ruleset.legal_actions(state) if a.verb == "atacar"}
    assert targets == {"e1"}
    # CA-13 Desjarretado: no move, so only what the sling reaches from where it stands.
    state.get("h").conditions["desjarretado"] = Condition("desjarretado", persistent=True)
    assert not any(a.verb == "atacar" for a in state.ruleset.legal_actions(state))


def test_ca04_the_shooters_step_is_made_with_the_sides_other_moves_before_any_attack() -> None:
    """CA-02 "Todas las acciones se declaran antes de resolverse": the shooter's step and
    a blade's close are both made in the movement, in declaration order, then the dice
    aimed at the target are rolled together (CA-06: the highest kept)."""
    state = battle(
        [
            fighter("h1", weapons=[SLING]),
            fighter("h2", zone="c"),
            fighter("e", "enemies", zone="d", pi=8),
        ],
        zones=SQUARE,
        links=SQUARE_LINKS,
    )
    events = play(
        state, [attack(state, "h1", "e", "honda"), attack(state, "h2", "e")], ["d4=2", "d6=5"]
    )
    kinds = [type(e).__name__ for e in events if isinstance(e, (Moved, Rolled))]
    assert kinds == ["Moved", "Moved", "Rolled", "Rolled"]
    assert [e.to_zone for e in events if isinstance(e, Moved)] == ["b", "d"]
    assert state.get("e").resources["pi"] == 3
