"""The ``heuristic`` agent: each ruleset's scripted play, flavoured by temperament.

A combatant's ``temperament`` in the scenario picks how it fights; an agent made
with an explicit temperament (``heuristic:brute`` or just ``brute`` on the CLI)
overrides it for every combatant it controls.

Temperaments:

* ``tactician`` — maximises expected damage and drop chance, focus-fires where
  the ruleset rewards it, uses reactions well (the default).
* ``brute`` — closes in and hits the nearest enemy.
* ``cautious`` — keeps its best range, uses cover, withdraws when hurt.
* ``coward`` — flees below half its resources or when its side breaks.
* ``protector`` — shields and heals allies, helps.
* ``random`` — uniform over the legal actions (a scenario's wild animal).
"""

from __future__ import annotations

import importlib
import inspect
import random
from collections.abc import Callable
from functools import cache

from escaramuza.rules.core.errors import UnknownNameError
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.scenario import KNOWN_TEMPERAMENTS
from escaramuza.rules.core.state import BattleState

#: The temperaments, in the order of their codes (the scenario schema's list).
TEMPERAMENTS = KNOWN_TEMPERAMENTS

Chooser = Callable[..., Action]


@cache
def heuristic_for(ruleset_id: str) -> tuple[Chooser, bool]:
    """The ruleset's ``choose`` and whether it takes a ``temperament`` argument."""
    module = importlib.import_module(f"escaramuza.agents.heuristics.{ruleset_id}")
    choose = module.choose
    return choose, "temperament" in inspect.signature(choose).parameters


class HeuristicAgent:
    """Plays each ruleset's scripted heuristic with the acting combatant's temperament."""

    def __init__(self, temperament: str | None = None) -> None:
        if temperament is not None and temperament not in TEMPERAMENTS:
            raise UnknownNameError(
                f"unknown temperament {temperament!r} (known: {', '.join(TEMPERAMENTS)})"
            )
        self.temperament = temperament
        self.name = "heuristic" if temperament is None else f"heuristic:{temperament}"

    def act(self, state: BattleState, rng: random.Random) -> Action:
        return heuristic_choice(state, state.ruleset.legal_actions(state), rng, self.temperament)


def heuristic_choice(
    state: BattleState, actions: list[Action], rng: random.Random, temperament: str | None = None
) -> Action:
    """What :class:`HeuristicAgent` picks from an already computed legal list.

    ``temperament`` None uses the acting combatant's scenario temperament. The planner
    calls this directly in its rollouts, where the legal list is already at hand.
    """
    if len(actions) == 1:
        return actions[0]
    pending = state.pending
    actor = state.by_id[pending.actor] if pending is not None else None
    mood = temperament or (actor.temperament if actor is not None else "tactician")
    if mood == "random":
        return actions[rng.randrange(len(actions))]
    choose, takes_temperament = heuristic_for(state.ruleset.id)
    if takes_temperament:
        return choose(state, actions, rng, temperament=mood)
    return choose(state, actions, rng)
