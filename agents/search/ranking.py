"""The ranking of the root actions over the shared dice: the paired statistics of two
actions (:func:`paired`), the estimates, the tie group of the paired test and the
presentation order (:func:`rank`, :class:`Ranking`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.model import Action

if TYPE_CHECKING:
    from escaramuza.agents.search.result import SearchResult

#: Fewest shared rollouts on which the paired test may call two actions apart. With
#: fewer, a perfect record is still luck too often: 8 wins in a row where the other
#: action lost is 1 chance in 256 under a fair coin (the sign test), below the 2.3 %
#: one-sided error of z = 2; 4 in a row (1 in 16) is not.
MIN_SHARED = 8
#: What a ranking compares: ``"win"`` (1 for a won rollout, else 0: the WIN column of
#: ``suggest``) or ``"value"`` (the backed-up value: the agent's cut rollouts).
METRICS = ("win", "value")
#: z of the agent's paired test: it leaves the heuristic's pick only when the best
#: candidate's mean paired gain exceeds this many standard errors. 2 rather than 1: at
#: 96 rollouts (the earlier default) the test still saw the ambushes' real gains, and the
#: stricter bar kept the planner from trading a sound move for a lucky-looking one in the
#: duels; at 1000, z = 1 did no better (docs/decisions/0007-planner-defaults.md).
DEFAULT_Z = 2.0


@dataclass(frozen=True, slots=True)
class Paired:
    """An action against the heuristic's pick on the rollouts they share (same dice)."""

    n: int
    #: Mean of (action's value − heuristic's value) over the shared rollouts.
    gain: float
    #: Standard error of that mean (sample standard deviation / √n; 0 when n < 2).
    stderr: float


def paired(mine: Sequence[float] | np.ndarray, ref: Sequence[float] | np.ndarray) -> Paired:
    """Mean and standard error of ``mine[k] − ref[k]`` over the seeds both have (the
    first ``min(len)``: the k-th rollout of every root action uses the k-th seed).

    Vectorised: a ranking of ``suggest`` pairs a dozen series of thousands of rollouts
    about fifty times a search, which in a Python loop took a seventh of its budget."""
    n = min(len(mine), len(ref))
    if n == 0:
        return Paired(0, 0.0, 0.0)
    diffs = np.asarray(mine[:n], dtype=np.float64) - np.asarray(ref[:n], dtype=np.float64)
    gain = float(diffs.sum()) / n
    if n < 2:
        return Paired(n, gain, 0.0)
    dev = diffs - gain
    var = float(dev @ dev) / (n - 1)
    return Paired(n, gain, math.sqrt(var / n))


@dataclass(frozen=True, slots=True)
class Ranking:
    """The root actions ranked by value, with the paired test's tie group.

    ``order`` is the presentation order: the tie group (actions the paired test cannot
    separate from the best), the preferred action (the in-character pick) first when it
    is in the group, the others by estimate; then the rest by estimate. ``order[0]`` is
    the pick: the best, or the preferred action when no evidence prefers another.
    """

    order: tuple[Action, ...]
    #: Highest estimate (the statistical best); the reference of every gap.
    best: Action
    #: Paired estimate of each searched action's metric (absent: not searched).
    estimate: dict[Action, float]
    #: The best minus each action over the rollouts they share (the best: n, 0, 0).
    gap: dict[Action, Paired]
    #: The tie group: every action not separated from the best, the best included.
    tied: frozenset[Action]
    #: The other action least separated from the best (None with a single action).
    runner_up: Action | None
    z: float
    min_shared: int

    @property
    def verdict(self) -> str:
        """``"clear"`` when every other action is separated from the best, else
        ``"too_close"``."""
        return "clear" if len(self.tied) == 1 else "too_close"

    @property
    def pick(self) -> Action:
        return self.order[0]

    def separated(self, action: Action) -> bool:
        """The paired test: the best's mean gain over ``action`` exceeds z standard
        errors, on at least :data:`MIN_SHARED` shared rollouts."""
        g = self.gap[action]
        return action != self.best and g.n >= self.min_shared and g.gain - self.z * g.stderr > 0

    def interval(self, action: Action) -> tuple[float, float]:
        """The paired interval of the best's gain over ``action``: gain ± z × stderr."""
        g = self.gap[action]
        return g.gain - self.z * g.stderr, g.gain + self.z * g.stderr


def rank(
    result: SearchResult,
    z: float = DEFAULT_Z,
    metric: str = "value",
    prefer: Action | None = None,
    min_shared: int = MIN_SHARED,
) -> Ranking:
    """Rank ``result``'s root candidates by value, paired over the shared dice.

    * **Estimate** of each action (control variate on the common dice): the mean of
      the reference (the action with the most rollouts) plus the action's mean paired
      difference from it over the seeds they share. For actions with the same number
      of rollouts this is their plain mean; an action searched less is judged on the
      dice it saw, against the reference on the same dice, not on its luck alone.
    * **Best**: the highest estimate (ties: ``prefer``, then candidate order).
    * **Tie group**: the actions the paired test (``z``, ``min_shared``) cannot
      separate from the best, the best included; an action never searched has no
      evidence against it and is in the group.
    * **Order**: the tie group first, ``prefer`` (default: the heuristic's pick, the
      in-character one) at its head when it is in the group, since no evidence prefers
      another; within each block by estimate, then candidate order.

    ``metric`` picks the samples compared (:data:`METRICS`): ``suggest`` ranks by the
    win chance, the ``mcts`` agent can rank its cut rollouts by value.
    """
    _check_metric(metric)
    prefer = result.heuristic if prefer is None else prefer
    actions = result.candidates or result.actions
    position = {a: i for i, a in enumerate(actions)}
    series = {a: np.asarray(result.child(a).series(metric), dtype=np.float64) for a in actions}
    searched = [a for a in actions if len(series[a])]
    low, high = (0.0, 1.0) if metric == "win" else (-1.0, 1.0)

    def mean(a: Action) -> float:
        return float(series[a].sum()) / len(series[a])

    def by_estimate(a: Action) -> tuple[float, bool, int]:
        return (-estimate.get(a, -math.inf), a != prefer, position[a])

    estimate: dict[Action, float] = {}
    if searched:
        ref = max(searched, key=lambda a: (len(series[a]), mean(a), a == prefer, -position[a]))
        for a in searched:
            estimate[a] = mean(ref) + paired(series[a], series[ref]).gain
    best = min(actions, key=by_estimate)
    gap = {a: paired(series[best], series[a]) for a in actions}
    if searched:
        # Every estimate on the best's dice, so that "N points below the best" is the
        # difference of the two estimates: the best's mean less the paired gap.
        estimate = {a: min(high, max(low, mean(best) - gap[a].gain)) for a in searched}
    ranking = Ranking((), best, estimate, gap, frozenset(), None, z, min_shared)
    tied = frozenset(a for a in actions if not ranking.separated(a))
    others = [a for a in actions if a != best]

    def closeness(a: Action) -> tuple[float, tuple[float, bool, int]]:
        g = gap[a]
        low = g.gain - z * g.stderr if g.n >= min_shared else -math.inf
        return (low, by_estimate(a))

    runner_up = min(others, key=closeness) if others else None
    group = sorted(tied, key=lambda a: (a != prefer, *by_estimate(a)))
    rest = sorted((a for a in actions if a not in tied), key=by_estimate)
    return Ranking(tuple(group + rest), best, estimate, gap, tied, runner_up, z, min_shared)


def _check_metric(metric: str) -> None:
    if metric not in METRICS:
        raise EscaramuzaError(f"unknown ranking metric {metric!r} (known: {', '.join(METRICS)})")
