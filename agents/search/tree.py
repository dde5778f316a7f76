"""The search tree: a node of statistics per action sequence of the searching side (open
loop: no state), the backup of one rollout's end along a path of nodes, and the root actor's
risk tracked along one iteration's walk."""

from __future__ import annotations

from dataclasses import dataclass, field

from escaramuza.rules.core.model import Action, DecisionKind
from escaramuza.rules.core.state import BattleState


@dataclass(slots=True, eq=False)
class Node:
    """Statistics of one action sequence of the searching side (open loop: no state)."""

    visits: int = 0
    #: Sum of the values backed up through this node (searching side's view).
    value: float = 0.0
    wins: int = 0
    losses: int = 0
    #: Root children only: rollouts in which the acting combatant was knocked out
    #: (or its side beaten) before its next turn.
    knocked_out: int = 0
    children: dict[Action, Node] = field(default_factory=dict)
    #: Root children only: the value of this search's k-th rollout through the
    #: action, which used the k-th common dice seed (paired comparisons).
    samples: list[float] = field(default_factory=list)
    #: Root children only: 1.0 if the k-th rollout through the action was won, else 0.0.
    win_samples: list[float] = field(default_factory=list)

    def series(self, metric: str) -> list[float]:
        """The per-seed samples a ranking compares (:data:`METRICS`)."""
        return self.win_samples if metric == "win" else self.samples

    @property
    def mean(self) -> float:
        return self.value / self.visits if self.visits else 0.0


@dataclass(slots=True)
class _Walk:
    """Per-iteration bookkeeping of the root actor's risk (before its next turn)."""

    actor: str
    tracking: bool = True
    left_turn: bool = False
    knocked_out: bool = False

    def update(self, state: BattleState) -> None:
        c = state.by_id[self.actor]
        outcome = state.outcome
        if outcome is not None:
            # Destiny Dice wakes downed heroes when the fight ends (DD-16), so a lost
            # battle counts as the actor being out even if its status says active.
            lost = outcome.winner is c.side.other or (outcome.winner is None and not c.active)
            self.knocked_out = lost or not c.active
            self.tracking = False
            return
        if not c.active:
            self.knocked_out = True
            self.tracking = False
            return
        pending = state.pending
        if pending is None:
            return
        if pending.actor != self.actor:
            self.left_turn = True
        elif self.left_turn and pending.kind is DecisionKind.TURN:
            self.tracking = False


def _add(path: list[Node], value: float, win: bool, loss: bool, knocked_out: bool) -> None:
    """Back one rollout's end up ``path`` (the root, then the root action's node…)."""
    for n in path:
        n.visits += 1
        n.value += value
        n.wins += win
        n.losses += loss
    if len(path) > 1:
        path[1].samples.append(value)
        path[1].win_samples.append(1.0 if win else 0.0)
        if knocked_out:
            path[1].knocked_out += 1
