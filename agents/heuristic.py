"""The ``heuristic`` agent: dispatches to the ruleset's scripted heuristic."""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from functools import cache

from escaramuza.rules.core.model import Action
from escaramuza.rules.core.state import BattleState

Chooser = Callable[[BattleState, list[Action], random.Random], Action]


@cache
def heuristic_for(ruleset_id: str) -> Chooser:
    module = importlib.import_module(f"escaramuza.agents.heuristics.{ruleset_id}")
    return module.choose  # type: ignore[no-any-return]


class HeuristicAgent:
    """Plays each ruleset's scripted heuristic (attack what drops, close in, heal)."""

    name = "heuristic"

    def act(self, state: BattleState, rng: random.Random) -> Action:
        actions = state.ruleset.legal_actions(state)
        if len(actions) == 1:
            return actions[0]
        return heuristic_for(state.ruleset.id)(state, actions, rng)
