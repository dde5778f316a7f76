"""DD-03 in the suggestion table: a move before the turn's action says the action follows
(it is one step of a turn, not a retreat); a move after it does not."""

from __future__ import annotations

from escaramuza.agents.suggest import suggest
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.i18n import language
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario


def test_dd_03_a_move_before_acting_says_the_action_follows() -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(1))
    assert state.pending is not None
    actor = state.pending.actor
    moves = [a for a in state.ruleset.legal_actions(state) if a.verb == "mover"]
    assert moves
    rows = {r.action: r.text for r in suggest(state, iterations=30, budget_ms=None).items}
    name = state.by_id[actor].name
    for move in moves:
        assert rows[move] == f"{name} moves to {move.zone}, then takes the turn's action."
    with language("es"):
        spanish = state.ruleset.describe_choice(state, moves[0])
    assert spanish == f"{name} se mueve a {moves[0].zone} y después realiza la acción del turno."
    # The plain description (the actions list, the narration) is unchanged.
    assert state.ruleset.describe(state, moves[0]) == f"{name} moves to {moves[0].zone}."


def test_dd_03_a_move_after_acting_is_only_a_move() -> None:
    state = new_battle(load_scenario("destiny_dice/emboscada"), RandomRoller(1))
    assert state.pending is not None
    actor = state.pending.actor
    attack = next(a for a in state.ruleset.legal_actions(state) if a.verb == "atacar")
    apply_action(state, attack, RandomRoller(2))
    while state.pending is not None and state.pending.actor != actor:  # a reaction first
        apply_action(state, state.ruleset.legal_actions(state)[0], RandomRoller(3))
    assert state.pending is not None and state.pending.actor == actor
    moves = [a for a in state.ruleset.legal_actions(state) if a.verb == "mover"]
    assert moves, "after the attack the turn still holds its step"
    for move in moves:
        assert state.ruleset.describe_choice(state, move) == state.ruleset.describe(state, move)
