"""The temperaments' vocabulary: its helpers, and each ruleset's two temperaments reading
line for line (the same helpers called in the same order on both sides)."""

from __future__ import annotations

import ast
import importlib
import inspect
from types import ModuleType

import pytest

from escaramuza.agents.heuristics import vocabulary
from escaramuza.rules.core import Action
from escaramuza.rules.core.model import Status
from escaramuza.rules.core.state import BattleState
from tests.agents.test_temperaments_destiny_dice import c, situation

#: The functions each ruleset writes line for line on both sides, beside the temperaments
#: and ``choose``.
STEPS: dict[str, tuple[str, ...]] = {
    "cairn": ("half_out", "side_broken"),
    "destiny_dice": ("press", "react", "side_broken"),
    "donjon": ("flee", "no_swing", "pause", "react", "side_broken"),
    "sistema_2d10": ("close_in", "side_broken"),
}
TEMPERAMENTS = ("tactician", "brute", "cautious", "coward", "protector", "choose")


def _functions(module: ModuleType) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(inspect.getsource(module))
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _calls(function: ast.FunctionDef, shared: set[str]) -> list[str]:
    """The names of the ``shared`` functions ``function``'s body calls, in source order
    (a call's arguments before the call itself, as they run)."""
    out: list[str] = []

    class Calls(ast.NodeVisitor):
        def visit_Call(self, node: ast.Call) -> None:
            self.generic_visit(node)
            if isinstance(node.func, ast.Name) and node.func.id in shared:
                out.append(node.func.id)

    for statement in function.body:
        Calls().visit(statement)
    return out


@pytest.mark.parametrize("ruleset", sorted(STEPS))
def test_the_compiled_temperaments_call_the_engines_helpers_in_the_same_order(
    ruleset: str,
) -> None:
    engine = importlib.import_module(f"escaramuza.agents.heuristics.{ruleset}")
    kernel = importlib.import_module(f"escaramuza.agents.heuristics.{ruleset}_kernel")
    # The helpers both sides know by one name (defined or imported in both modules).
    shared = {
        name
        for name in set(vars(engine)) & set(vars(kernel))
        if callable(getattr(engine, name)) and callable(getattr(kernel, name))
    }
    written = (_functions(engine), _functions(kernel))
    for name in (*TEMPERAMENTS, *STEPS[ruleset]):
        assert name in written[0] and name in written[1], name
        assert _calls(written[0][name], shared) == _calls(written[1][name], shared), name


# -- the helpers ---------------------------------------------------------------------------
def _state() -> BattleState:
    #   a — b(cover) — c — d — e(exit): h in a, foes in c and d, allies in a
    return situation(
        c("h", "heroes", "a"),
        c("near", "enemies", "c"),
        c("far", "enemies", "d"),
        c("ally", "heroes", "a", pv=12, pv_current=6),
        c("other", "heroes", "b", pv=12, pv_current=6),
    )


def test_foe_hops_counts_to_the_nearest_foe_less_the_reach() -> None:
    state = _state()
    me = state.by_id["h"]
    assert vocabulary.foe_hops(state, me, "a") == 2
    assert vocabulary.foe_hops(state, me, "a", reach=1) == 1
    assert vocabulary.foe_hops(state, me, "e", reach=3) == 0
    for f in ("near", "far"):
        state.by_id[f].status = Status.DOWN
    assert vocabulary.foe_hops(state, me, "a") == 0  # nobody left standing


def test_nearest_foe_is_the_fewest_hops_away_then_the_first() -> None:
    state = _state()
    me = state.by_id["h"]
    assert vocabulary.nearest_foe(state, me) is state.by_id["near"]
    state.by_id["far"].zone = "c"
    assert vocabulary.nearest_foe(state, me) is state.by_id["near"]
    state.by_id["near"].status = Status.DOWN
    assert vocabulary.nearest_foe(state, me) is state.by_id["far"]


def test_side_out_and_most_hurt_ally_read_only_the_side() -> None:
    state = _state()
    me = state.by_id["h"]
    assert vocabulary.side_out(state, me) == (3, 0)
    # Equally hurt: the first; never the combatant itself, never one out of the fight.
    assert vocabulary.most_hurt_ally(state, me, "pv") is state.by_id["ally"]
    state.by_id["ally"].status = Status.DOWN
    assert vocabulary.side_out(state, me) == (3, 1)
    assert vocabulary.most_hurt_ally(state, me, "pv") is state.by_id["other"]


def test_best_move_keeps_the_first_best_step_only_if_it_beats_staying() -> None:
    state = _state()
    me = state.by_id["h"]
    steps = [Action("mover", "h", zone=z) for z in ("b", "c", "d")]
    order = {"a": 1, "b": 2, "c": 3, "d": 3}
    assert vocabulary.best_move(me, steps, lambda z: (order[z],)) == steps[1]
    assert vocabulary.best_move(me, steps, lambda z: (-order[z],)) is None  # stay put
    assert vocabulary.best_move(me, [], lambda z: (order[z],)) is None


def test_best_by_is_the_first_of_the_highest() -> None:
    actions = [Action("atacar", "h", target=t) for t in ("x", "y", "z")]
    score = {"x": 1, "y": 2, "z": 2}
    assert vocabulary.best_by(actions, lambda a: score[str(a.target)]) == actions[1]
    assert vocabulary.best_by([], lambda a: 0) is None
