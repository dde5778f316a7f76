"""The agent interface: ``act(state, rng) -> Action`` (architecture.md, "Agents")."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from escaramuza.rules.core.model import Action
from escaramuza.rules.core.state import BattleState


@runtime_checkable
class Agent(Protocol):
    """Chooses an action for the pending decision of a battle state.

    ``rng`` is the only source of the agent's own randomness (tie breaks,
    exploration); it is separate from the battle's dice roller so changing an
    agent never changes the dice the other side sees.
    """

    name: str

    def act(self, state: BattleState, rng: random.Random) -> Action: ...


class RandomAgent:
    """Uniform over the legal actions of the pending decision."""

    name = "random"

    def act(self, state: BattleState, rng: random.Random) -> Action:
        actions = state.ruleset.legal_actions(state)
        return actions[rng.randrange(len(actions))]


class FirstLegalAgent:
    """The first legal action of the pending decision, in the ruleset's order: the
    weakest sensible baseline, and what a policy that has collapsed to a constant
    rule plays (``escaramuza.training.paired`` flags a policy equal to it)."""

    name = "first-legal"

    def act(self, state: BattleState, rng: random.Random) -> Action:
        return state.ruleset.legal_actions(state)[0]
