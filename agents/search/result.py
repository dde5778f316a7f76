"""What one search found at the root (:class:`SearchResult`), and why it stopped."""

from __future__ import annotations

from dataclasses import dataclass, field

from escaramuza.agents.search.ranking import DEFAULT_Z, MIN_SHARED, Paired, Ranking, paired, rank
from escaramuza.agents.search.tree import Node
from escaramuza.rules.core.model import Action, Side

#: Why a search stopped (``SearchResult.stopped``; docs/gm.md, "--json schema").
STOP_REASONS = (
    "clear",
    "identical",
    "budget",
    "max_time",
    "max_iterations",
    "single_action",
    "symmetric",
)
#: Sweeps after which a search whose candidates all tie the heuristic's pick on every


@dataclass(slots=True)
class SearchResult:
    """What one search found at the root."""

    root: Node
    actions: list[Action]
    side: Side
    actor: str
    heuristic: Action
    iterations: int
    elapsed_ms: float
    #: The root actions the search considered (all of ``actions`` unless restricted).
    candidates: list[Action] = field(default_factory=list)
    #: True when the search stopped early because every candidate tied the heuristic.
    settled: bool = False
    #: The common dice: the k-th rollout of every root action used ``seeds[k]``.
    seeds: list[int] = field(default_factory=list)
    #: Why the search stopped (:data:`STOP_REASONS`).
    stopped: str = "budget"
    #: Which engine played the rollouts (``"fast"``: the ruleset's kernel, or
    #: ``"reference"``), and why not the kernel when ``engine="auto"`` fell back.
    engine: str = "reference"
    engine_refusal: str | None = None
    #: With ``merge_twins``: each searched action that stands for others equal to it by
    #: symmetry (:mod:`escaramuza.rules.core.symmetry`), and those others, in legal order.
    twins: dict[Action, tuple[Action, ...]] = field(default_factory=dict)

    def child(self, action: Action) -> Node:
        return self.root.children.get(action) or Node()

    def ranked(self) -> list[Action]:
        """Root actions, best first: most visits (UCT's robust choice), then mean value,
        then the legal order (deterministic ties)."""
        order = {a: i for i, a in enumerate(self.actions)}
        return sorted(
            self.actions,
            key=lambda a: (-self.child(a).visits, -self.child(a).mean, order[a]),
        )

    def best(self) -> Action:
        return self.ranked()[0]

    def paired(self, action: Action) -> Paired:
        """``action`` against the heuristic's pick over the common-dice rollouts of both."""
        return paired(self.child(action).samples, self.child(self.heuristic).samples)

    def ranking(
        self,
        z: float = DEFAULT_Z,
        metric: str = "value",
        prefer: Action | None = None,
        min_shared: int = MIN_SHARED,
    ) -> Ranking:
        """:func:`rank` of this search's root actions."""
        return rank(self, z, metric, prefer, min_shared)

    def choice(self, z: float = DEFAULT_Z, min_shared: int = MIN_SHARED) -> Action:
        """The agent's pick: :func:`rank`'s pick over the backed-up values, the ranking
        ``suggest`` shows. The heuristic's pick (the in-character one)
        stays unless the best candidate beats it by more than ``z`` standard errors of the
        paired gain on at least ``min_shared`` shared rollouts; then the best by estimate."""
        return self.ranking(z, "value", self.heuristic, min_shared).pick
