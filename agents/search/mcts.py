"""Monte Carlo tree search over the engine: the ``mcts`` agent.

Design (OpenSpiel's ``algorithms/mcts.py`` is the model; the choices, and the
measurements behind them, are written down in ``docs/gm.md``, "Planner design"):

* **Open-loop search over the searching side's decisions.** A tree node is a
  sequence of the searching side's actions, not a state: every iteration clones
  the root state and replays the path with *fresh dice*, so chance is sampled
  through the roller instead of being stored in the tree. The opponents'
  decisions are not tree levels: they are taken by the scenario's heuristic
  (each combatant's own temperament) both inside the tree and in the rollout,
  so the planner answers "what is best against the way these foes play".
* **Chance and common random numbers**: the k-th rollout of *every* root action
  uses the same dice (a :class:`RandomRoller` and a tie-break ``Random`` seeded
  with the k-th of a list of seeds drawn from the planner's own
  ``random.Random``). Two actions are then compared on the same luck, which
  cuts the noise of their difference (:meth:`SearchResult.paired`); one
  injected seed still fixes the whole search.
* **Rollouts**: every decision after the tree — the opponents' and the
  searching side's later ones — is the heuristic's. A rollout ends with the
  battle, or, with a ``horizon`` of H rounds, when round ``root round + H``
  begins (H = 1: at the end of the current round; H = 2, the ``mcts`` agent's
  default: at the end of the next); a cut rollout is scored by
  :func:`side_value`. The engine's round limit and a decision cap bound a
  rollout in any case.
* **Value** from the searching side's view, in [−1, 1]: +1 win, −1 loss; a draw
  (timeout, mutual knock-out, withdrawal) or the guard cap scores
  :data:`DRAW` (−0.8) plus a small shaped value in [−0.2, 0.2]
  (:func:`shaped_value`) — the planner maximises its side's chance to win, and
  a draw is not a win; a rollout cut at the horizon scores
  ``2 × side_value − 1``.
* **Root**: ``root="ucb"`` ranks *every* legal action by UCB1 (each tried once
  first, the heuristic's pick first, with a progressive bias towards it);
  ``root="sweep"`` gives one rollout to each candidate in turn (a *sweep*, all
  on the same dice), and with an iteration budget halves the candidates
  between stages (sequential halving, Karnin et al. 2013), always keeping the
  heuristic's pick as the reference; ``candidates=K`` restricts the root to the
  heuristic's pick and K other actions, the most damaging by the ruleset's
  exact odds first. A search whose first sweeps show every candidate doing
  exactly what the heuristic's pick does (same dice, same value) stops early.
* ``root="race"`` (``suggest``): sweeps of every candidate up to the
  budget (the whole of it: every interval as narrow as it allows); past it, while the
  ranking is not clear, up to ``max_ms`` /
  ``max_iterations``, sweeps of the tie group only (:meth:`MCTS._race`).
* **The ranking** (:func:`rank`): estimates paired over the shared dice, the tie
  group of the paired test at z, the preferred (in-character) action first in it.
* **The agent's pick** (``root="sweep"``): the pick of the same ranking over the
  backed-up values: the heuristic's pick unless the best candidate beats it on the
  paired test over the shared dice (:meth:`SearchResult.choice`).
* **Deeper nodes** get their own children only after ``expand_after`` visits
  (``None``: never — the agent's default, a plain one-step improvement over the
  heuristic); before that the heuristic plays on from them. Inside the tree an unvisited
  action scores its parent's mean value ("first play urgency") except the
  heuristic's pick, which is tried first.
* **Budget**: iterations and/or wall-clock milliseconds, whichever ends first.
  An iteration budget is reproducible (same seed ⇒ same tree); a time budget is
  not, because the number of iterations depends on the machine.
* **Tree reuse** (the agent only): after acting, the agent keeps the child of
  the action it took. When it is asked again and the new state only moved
  forward from the old one (the event log continues the same objects), that
  child becomes the new root; otherwise the tree is rebuilt.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields

import numpy as np

from escaramuza.agents.fast import (
    DEFAULT_ENGINE,
    ENGINES,
    FAST,
    REFERENCE,
    STILL_COMPILING,
    EngineRefusal,
    check_engine,
    find_kernel,
    first_call,
    warming,
)
from escaramuza.agents.fast import refusal as fast_refusal
from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.events import Event
from escaramuza.rules.core.kernel import Kernel, KernelRefusal, RolloutBatch
from escaramuza.rules.core.model import Action, DecisionKind, Side
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.core.symmetry import symmetry_classes

#: Iterations of a plain :class:`MCTS` search (``suggest`` passes its own budget).
DEFAULT_ITERATIONS = 200
#: Bounds of every search budget a user can give (``suggest --budget-ms/--iterations``,
#: ``gm``'s ``suggest MS``, the ``mcts:MS`` / ``mcts:Nit`` agents): a search must end
#: (``suggest nan`` or ``suggest 1e99`` would never return). 10 ms is about
#: one rollout of a small battle; a minute is far past the 1 s answer ``suggest`` aims
#: at; 100,000 rollouts take from a few minutes (duels) to about half an hour (the
#: largest scenarios) on one core.
MIN_BUDGET_MS = 10.0
MAX_BUDGET_MS = 60_000.0
MAX_ITERATIONS = 100_000
#: The ``mcts`` agent's defaults (docs/decisions/0007-planner-defaults.md has the measurements):
#: 1000 rollouts a decision, CRN sweeps with sequential halving at the root, rollouts
#: cut when the round after the current one ends (horizon 2), no tree below the root.
#: 1000 since the rollouts run on the compiled kernels: about what 96
#: cost on the engine, and the ambushes gain most from the narrower paired test. Horizon
#: 2 since the same re-tuning: at 32–96 rollouts a decision the value two rounds on was
#: too noisy a guess to pay, at 1000 it is not, and it sees a focus of fire or a
#: repositioning pay off a round later (docs/decisions/0007-planner-defaults.md). The
#: same count on either engine, so ``mcts`` plays the same battle on both; on the engine
#: alone (``mcts:reference``, a scenario no kernel plays) ``mcts:96it`` is the old, ten
#: times cheaper budget.
AGENT_ITERATIONS = 1000
AGENT_HORIZON = 2
AGENT_ROOT = "sweep"
#: UCB exploration constant for values in [−1, 1]. UCB1's √2 is for rewards in [0, 1]
#: (OpenSpiel's default is 2 for [−1, 1]); a smaller constant exploits sooner, which
#: suits budgets of a few dozen rollouts, while the root still tries every action once.
DEFAULT_UCT_C = 1.2
#: Visits a non-root node needs before it ranks its own children.
DEFAULT_EXPAND_AFTER = 6
#: Weight of the progressive bias towards the heuristic's pick (fades as 1/(n+1)).
DEFAULT_BIAS = 1.0
#: Scale of the shaped value of an undecided end: small, so that a safe draw never
#: looks as good as a real chance of winning.
SHAPING = 0.2
#: Value of a draw before shaping (the planner maximises its side's chance to win, the
#: WIN column of ``suggest`` and the benchmark's measure): a draw is not a win, so it
#: scores near a loss; with :func:`shaped_value` a draw lies in [−1, −0.6].
DRAW = -0.8
#: Decisions a single rollout may take before it is cut and scored as a draw.
MAX_ROLLOUT_DECISIONS = 5_000
#: Root policies: UCB1 over every action, or CRN sweeps over the candidates.
ROOT_POLICIES = ("ucb", "sweep", "race")
#: Fewest shared rollouts on which the paired test may call two actions apart. With
#: fewer, a perfect record is still luck too often: 8 wins in a row where the other
#: action lost is 1 chance in 256 under a fair coin (the sign test), below the 2.3 %
#: one-sided error of z = 2; 4 in a row (1 in 16) is not.
MIN_SHARED = 8
#: What a ranking compares: ``"win"`` (1 for a won rollout, else 0: the WIN column of
#: ``suggest``) or ``"value"`` (the backed-up value: the agent's cut rollouts).
METRICS = ("win", "value")
#: Why a search stopped (``SearchResult.stopped``; docs/gm.md, "suggest JSON").
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
#: shared rollout stops (the choice changes nothing the dice can show); 0 never stops.
SETTLE_SWEEPS = 4
#: Shared rollouts after which ``suggest``'s race may stop because the tie group scored
#: exactly alike on every one (``"identical"``). The stated test: no rollout on which two
#: actions differ in n paired rollouts puts the rate at which they differ below 3/n with
#: 95 % confidence (the rule of three), and two win chances differ by at most that rate;
#: at n = 300 they are within ±1 point. Fewer equal sweeps prove nothing: two different
#: actions can agree on dozens of rollouts (a foe who dies either way).
IDENTICAL_SHARED = 300
#: z of the agent's paired test: it leaves the heuristic's pick only when the best
#: candidate's mean paired gain exceeds this many standard errors. 2 rather than 1: at
#: 96 rollouts (the earlier default) the test still saw the ambushes' real gains, and the
#: stricter bar kept the planner from trading a sound move for a lucky-looking one in the
#: duels; at 1000, z = 1 did no better (docs/decisions/0007-planner-defaults.md).
DEFAULT_Z = 2.0


def health_key(state: BattleState) -> str:
    """The ruleset's first observed resource: its health track by convention (pv, pi…)."""
    return next(iter(state.ruleset.resources))


def side_strength(state: BattleState, side: Side) -> float:
    """Fraction of a side still fighting, in [0, 1].

    Each combatant counts 0 when out, else ½ for standing plus ½ × its health
    fraction (first ruleset resource over its maximum).
    """
    key = health_key(state)
    total = 0.0
    n = 0
    for c in state.combatants:
        if c.side is not side:
            continue
        n += 1
        if not c.active:
            continue
        top = c.maxima.get(key, 0)
        frac = c.resources.get(key, 0) / top if top > 0 else 1.0
        total += 0.5 + 0.5 * min(max(frac, 0.0), 1.0)
    return total / n if n else 0.0


def shaped_value(state: BattleState, side: Side) -> float:
    """Value of an undecided end (timeout, draw, cut rollout) for ``side``: in [−0.2, 0.2].

    :data:`SHAPING` times the difference of the two sides' :func:`side_strength`,
    so any win (+1) or loss (−1) far outweighs the best or worst draw, and the
    planner does not settle for a draw it could fight on from.
    """
    return SHAPING * (side_strength(state, side) - side_strength(state, side.other))


def side_value(state: BattleState, side: Side) -> float:
    """A cheap stand-in for ``side``'s chance to win from ``state``, in [0, 1].

    A finished battle is exact: 1 won, 0 lost, ½ a draw. Otherwise the share of
    the two sides' :func:`side_strength` that is ``side``'s: 1 exactly when no foe
    is left standing, 0 when nobody of ``side`` is, ½ at equal strength. It scores
    rollouts cut at the planner's horizon, where only how the fight is going is
    known, not how it ends.
    """
    outcome = state.outcome
    if outcome is not None:
        if outcome.winner is None:
            return 0.5
        return 1.0 if outcome.winner is side else 0.0
    own = side_strength(state, side)
    foe = side_strength(state, side.other)
    if own + foe <= 0.0:
        return 0.5
    return own / (own + foe)


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


@dataclass(frozen=True, slots=True)
class Paired:
    """An action against the heuristic's pick on the rollouts they share (same dice)."""

    n: int
    #: Mean of (action's value − heuristic's value) over the shared rollouts.
    gain: float
    #: Standard error of that mean (sample standard deviation / √n; 0 when n < 2).
    stderr: float


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


def candidate_order(state: BattleState, actions: list[Action], heuristic: Action) -> list[Action]:
    """The heuristic's pick, then the other actions most damaging first.

    Attacks are ordered by the ruleset's exact odds (chance to drop the target,
    then expected damage); actions without odds keep their legal order after
    them. Used to restrict the root to a few sensible candidates.
    """
    odds = state.ruleset.odds
    scored: list[tuple[float, float, int, Action]] = []
    for i, a in enumerate(actions):
        if a == heuristic:
            continue
        o = odds(state, a)
        scored.append((-(o.p_drop if o else -1.0), -(o.expected_damage if o else 0.0), i, a))
    scored.sort(key=lambda t: t[:3])
    return [heuristic, *(t[3] for t in scored)]


def check_budget(
    budget_ms: float | None,
    iterations: int | None,
    ms_name: str = "the MCTS budget",
    it_name: str = "the MCTS iterations",
) -> None:
    """Refuse a budget outside :data:`MIN_BUDGET_MS`–:data:`MAX_BUDGET_MS` ms or
    1–:data:`MAX_ITERATIONS` rollouts; ``ms_name``/``it_name`` name it in the message."""
    if iterations is not None and (
        isinstance(iterations, bool) or not 1 <= iterations <= MAX_ITERATIONS
    ):
        raise EscaramuzaError(f"{it_name} must be 1–{MAX_ITERATIONS}, not {iterations}")
    # Written so that NaN fails as well: every comparison with NaN is false.
    if budget_ms is not None and not MIN_BUDGET_MS <= budget_ms <= MAX_BUDGET_MS:
        raise EscaramuzaError(
            f"{ms_name} must be {MIN_BUDGET_MS:g}–{MAX_BUDGET_MS:g} ms "
            f"(a finite number), not {budget_ms:g}"
        )


class MCTS:
    """The planner: ``search(state)`` grows a tree from the pending decision."""

    def __init__(
        self,
        iterations: int | None = DEFAULT_ITERATIONS,
        budget_ms: float | None = None,
        uct_c: float = DEFAULT_UCT_C,
        expand_after: int | None = DEFAULT_EXPAND_AFTER,
        rollout_temperament: str | None = None,
        bias: float = DEFAULT_BIAS,
        *,
        horizon: int | None = None,
        root: str = "ucb",
        candidates: int | None = None,
        halving: bool = True,
        settle: int = SETTLE_SWEEPS,
        draw: float = DRAW,
        max_ms: float | None = None,
        max_iterations: int | None = None,
        z: float = DEFAULT_Z,
        metric: str = "value",
        min_shared: int = MIN_SHARED,
        engine: str = DEFAULT_ENGINE,
        threads: int = 1,
        merge_twins: bool = False,
    ) -> None:
        check_engine(engine, "the MCTS engine")
        if threads < 1:
            raise EscaramuzaError(f"MCTS threads must be at least 1, not {threads}")
        if iterations is None and budget_ms is None:
            raise EscaramuzaError("an MCTS budget needs iterations, milliseconds or both")
        check_budget(budget_ms, iterations)
        if horizon is not None and horizon < 1:
            raise EscaramuzaError(f"MCTS horizon must be at least 1 round, not {horizon}")
        if root not in ROOT_POLICIES:
            raise EscaramuzaError(
                f"unknown MCTS root policy {root!r} (known: {', '.join(ROOT_POLICIES)})"
            )
        if candidates is not None and candidates < 1:
            raise EscaramuzaError(f"MCTS candidates must be at least 1, not {candidates}")
        if (max_ms is not None or max_iterations is not None) and root != "race":
            raise EscaramuzaError(
                "a maximum (max_ms, max_iterations) lets a race search go on until the best "
                f"is clear; the {root!r} root has no such test"
            )
        if max_ms is not None and (max_ms <= 0 or (budget_ms is not None and max_ms < budget_ms)):
            raise EscaramuzaError(
                f"the MCTS maximum must be positive and at least the budget, not {max_ms} ms"
            )
        if max_iterations is not None and (
            max_iterations < 1 or (iterations is not None and max_iterations < iterations)
        ):
            raise EscaramuzaError(
                "the MCTS maximum of iterations must be at least the iterations, not "
                f"{max_iterations}"
            )
        _check_metric(metric)
        self.iterations = iterations
        self.budget_ms = budget_ms
        self.uct_c = uct_c
        # None: the tree never grows below the root (plain rollout-policy improvement).
        self.expand_after = expand_after if expand_after is not None else math.inf
        self.rollout_temperament = rollout_temperament
        self.bias = bias
        self.horizon = horizon
        self.root = root
        self.candidates = candidates
        self.halving = halving
        self.settle = settle
        self.draw = draw
        self.max_ms = max_ms
        self.max_iterations = max_iterations
        self.z = z
        self.metric = metric
        self.min_shared = min_shared
        #: Where rollouts run (docs/fast-path.md): ``auto`` (the ruleset's kernel when it
        #: accepts the state, else the engine), ``fast`` (the kernel or an error) or
        #: ``reference``. Rollouts below a tree (``expand_after``) stay on the engine.
        self.engine = engine
        #: Threads a kernel batch is split over (by seeds; the rollouts are the same, so
        #: the search is too): ``suggest`` uses the machine's cores, where its time
        #: budget buys rollouts; the agent keeps 1, since playtests run a process a core.
        self.threads = threads
        #: Search one action of each class that is one by symmetry (two identical foes in
        #: one zone): the budget narrows one estimate instead of two equal ones, and two
        #: twins can never end a race as "identical". ``suggest`` merges; the ``mcts``
        #: agent keeps every action, so its battles stay those it has always played.
        self.merge_twins = merge_twins

    def _kernel(
        self, state: BattleState, actions: list[Action]
    ) -> tuple[Kernel | None, str | None]:
        """The kernel for this search's rollouts, warmed, or None and why not.

        ``engine="fast"`` raises :class:`EngineRefusal` where ``auto`` would fall back."""
        if self.engine == REFERENCE:
            return None, None
        why = self._refusal(state)
        if why is None and self.engine != FAST and warming(state.ruleset.id):
            why = STILL_COMPILING  # the engine plays until the background compile ends
        kernel = find_kernel(state.ruleset.id) if why is None else None
        if kernel is not None and kernel not in _WARM:
            # The first call compiles the kernel or loads it from numba's cache: once per
            # process, before any clock starts. A state it refuses leaves it cold.
            try:
                with first_call(state.ruleset.id):
                    kernel.rollouts(
                        state,
                        actions[:1],
                        [0],
                        self.horizon,
                        self.rollout_temperament,
                        MAX_ROLLOUT_DECISIONS,
                    )
                _WARM.add(kernel)
            except KernelRefusal as exc:
                kernel, why = None, str(exc)
        if kernel is None and self.engine == FAST:
            raise EngineRefusal(
                f"--engine fast: the planner's rollouts cannot run on the fast path: {why}"
            )
        return kernel, why

    def _refusal(self, state: BattleState) -> str | None:
        """Why these rollouts cannot run on a kernel (None: they may)."""
        if self.expand_after != math.inf:
            # Inside a tree the searching side's later decisions are the tree's, which a
            # kernel does not know: only tree-less rollouts (the agent, suggest) batch.
            return "a tree below the root (expand_after) is searched on the engine"
        pending = state.pending
        assert pending is not None
        own = f"heuristic:{self.rollout_temperament}" if self.rollout_temperament else "heuristic"
        specs = [own, "heuristic"] if pending.side is Side.HEROES else ["heuristic", own]
        return fast_refusal(state.scenario, specs)

    # -- the search -----------------------------------------------------------
    def search(
        self, state: BattleState, rng: random.Random, root: Node | None = None
    ) -> SearchResult:
        """Search from ``state``'s pending decision; ``root`` continues a reused tree."""
        pending = state.pending
        if state.outcome is not None or pending is None:
            raise EscaramuzaError("the battle is over: there is no decision to search")
        actions = state.ruleset.legal_actions(state)
        # Before the clock starts: the kernel's one-time compile (or load from numba's
        # cache) never eats the search budget (docs/fast-path.md).
        kernel, why = self._kernel(state, actions)
        start = time.perf_counter()
        heuristic = heuristic_choice(state, actions, rng, self.rollout_temperament)
        twins: dict[Action, tuple[Action, ...]] = {}
        searched = actions
        if self.merge_twins:
            for members in symmetry_classes(state, actions):
                # The heuristic's pick stands for its class: it is the paired reference.
                lead = heuristic if heuristic in members else members[0]
                if len(members) > 1:
                    twins[lead] = tuple(a for a in members if a != lead)
            hidden = {a for others in twins.values() for a in others}
            searched = [a for a in actions if a not in hidden]
        # The heuristic's pick comes first: with a tiny budget the ranking then at least
        # contains the "in character" baseline, and it is the paired reference.
        if self.candidates is not None:
            order = candidate_order(state, searched, heuristic)[: self.candidates + 1]
        else:
            order = [heuristic, *(a for a in searched if a != heuristic)]
        root = root if root is not None else Node()
        for child in root.children.values():
            child.samples = []  # a reused tree's samples were rolled on other dice
            child.win_samples = []
        seeds: list[int] = []
        runner = _Rollouts(self, state, root, seeds, rng, kernel, why)
        if self.root == "race":
            result = self._race(state, rng, root, actions, heuristic, order, seeds, start, runner)
        else:
            result = self._plain(state, root, actions, heuristic, order, seeds, start, runner)
        result.engine, result.engine_refusal = runner.engine, runner.why
        result.twins = twins
        return result

    def _plain(
        self,
        state: BattleState,
        root: Node,
        actions: list[Action],
        heuristic: Action,
        order: list[Action],
        seeds: list[int],
        start: float,
        runner: _Rollouts,
    ) -> SearchResult:
        """``root="ucb"`` or ``"sweep"``: the rollouts :meth:`_ucb` / :meth:`_sweeps` ask
        for, in the chunks they give, until the budget ends (checked before each chunk,
        and a chunk never runs past an iteration budget) or the sweeps settle."""
        pending = state.pending
        assert pending is not None
        deadline = start + self.budget_ms / 1000.0 if self.budget_ms is not None else math.inf
        done = 0
        settled = False
        stop = False
        run = self._sweeps if self.root == "sweep" else self._ucb
        for item in run(root, order, heuristic):
            played = 0
            while True:
                if self.iterations is not None and done >= self.iterations:
                    stop = True
                if done and time.perf_counter() >= deadline:
                    stop = True
                if stop:
                    break
                if item is None:  # the sweeps found nothing to choose between
                    settled = stop = True
                    break
                active, sweeps = item
                left = len(active) * sweeps - played
                if left <= 0:
                    break
                room = self.iterations - done if self.iterations is not None else left
                n = runner.chunk(min(left, room), deadline < math.inf, deadline)
                runner.run([active[(played + i) % len(active)] for i in range(n)])
                played += n
                done += n
            if stop:
                break
        elapsed = (time.perf_counter() - start) * 1000.0
        return SearchResult(
            root,
            actions,
            pending.side,
            pending.actor,
            heuristic,
            done,
            elapsed,
            order,
            settled,
            seeds,
            "identical" if settled else "budget",
        )

    def _race(
        self,
        state: BattleState,
        rng: random.Random,
        root: Node,
        actions: list[Action],
        heuristic: Action,
        order: list[Action],
        seeds: list[int],
        start: float,
        runner: _Rollouts,
    ) -> SearchResult:
        """``root="race"``: search until the best is clear of the rest.

        Up to the budget (the *target*) every candidate gets one rollout per sweep, all
        on that sweep's dice, so the whole table is paired; the whole target is used, so
        the intervals narrow as far as the budget allows. The search stops early only when
        every action of the tie group scored exactly the same on every one of at least
        :data:`IDENTICAL_SHARED` shared rollouts (``"identical"``: their win chances are
        then within ±1 point, 95 %, by the rule of three). At the target, a search that
        is not clear goes on up to ``max_ms`` / ``max_iterations`` with only the tie
        group in the sweeps (an action separated from the best gets no more rollouts;
        one that falls back into the group does); without a maximum it stops
        (``"budget"``). The ranking is
        tested after the sweeps whose number reaches the next check, about every 10 %
        more sweeps, so the tests cost little beside the rollouts. One legal action is
        not searched (``"single_action"``), nor are several that are all one by symmetry
        (``"symmetric"``, with ``merge_twins``).

        The rollouts run in chunks (:class:`_Rollouts`: one at a time on the engine under
        a deadline, a batch per kernel call): a chunk is the rest of the current sweep and
        the sweeps up to the next test, never past the iteration budget in force, so an
        iteration budget gives the same search, rollout for rollout, on either engine.
        """
        pending = state.pending
        assert pending is not None
        result = SearchResult(
            root, actions, pending.side, pending.actor, heuristic, 0, 0.0, order, seeds=seeds
        )
        if len(order) == 1:
            # One legal action, or several that are all one by symmetry (merge_twins).
            result.stopped = "single_action" if len(actions) == 1 else "symmetric"
            return result

        def ranking() -> Ranking:
            return rank(result, self.z, self.metric, heuristic, self.min_shared)

        seconds = self.budget_ms / 1000.0 if self.budget_ms is not None else math.inf
        target = (self.iterations, start + seconds)
        limit = (
            self.max_iterations if self.max_iterations is not None else self.iterations,
            start + self.max_ms / 1000.0 if self.max_ms is not None else target[1],
        )
        extended = False
        active = list(order)
        sweeps = 0
        check = 1
        stopped = ""
        played = 0  # rollouts of the current sweep already played
        timed = self.budget_ms is not None or self.max_ms is not None
        while not stopped:
            if not extended and _reached(target, result.iterations):
                if ranking().verdict == "clear":
                    stopped = "clear"
                    break
                extended = True
            if extended and (hit := _reached(limit, result.iterations)):
                stopped = self._stop_at_limit(hit, limit, target)
                break
            # The rest of this sweep and the sweeps before the next test...
            left = len(active) * (check - sweeps) - played
            # ...but not past the iteration budget in force, where the next test is.
            cap = limit[0] if extended else target[0]
            room = cap - result.iterations if cap is not None else left
            n = runner.chunk(min(left, room), timed, limit[1] if extended else target[1])
            runner.run([active[(played + i) % len(active)] for i in range(n)])
            result.iterations += n
            played += n
            completed, played = divmod(played, len(active))
            sweeps += completed
            if completed:
                if sweeps < check:
                    continue
                check = max(sweeps + 1, math.ceil(sweeps * 1.1))
                now_ranked = ranking()
                group = [a for a in order if a in now_ranked.tied]
                # Before the target the whole budget is used even when the ranking is
                # already clear: more rollouts narrow every interval (toward ±3
                # points), and the GM asked for that budget. Past it, clear ends it.
                if extended and now_ranked.verdict == "clear":
                    stopped = "clear"
                elif (
                    len(group) > 1
                    and self.settle > 0
                    and sweeps >= max(self.settle, self.min_shared, IDENTICAL_SHARED)
                    and _all_tied(root, group, group[0])
                ):
                    stopped = "identical"
                elif extended:
                    active = group
        result.stopped = stopped
        result.settled = stopped == "identical"
        result.elapsed_ms = (time.perf_counter() - start) * 1000.0
        return result

    def _stop_at_limit(
        self, hit: str, limit: tuple[int | None, float], target: tuple[int | None, float]
    ) -> str:
        """The stop reason when the race's maximum is reached: ``"budget"`` if the
        maximum is the target itself (no maximum was given for that budget)."""
        if hit == "iterations":
            return "budget" if limit[0] == target[0] else "max_iterations"
        return "budget" if limit[1] == target[1] else "max_time"

    def _ucb(
        self, root: Node, order: list[Action], heuristic: Action
    ) -> Iterator[tuple[list[Action], int]]:
        """One rollout at a time, of the action UCB1 picks from what the last one gave."""
        while True:
            yield [self._select_root(root, order, heuristic)], 1

    def _sweeps(
        self, root: Node, order: list[Action], heuristic: Action
    ) -> Iterator[tuple[list[Action], int] | None]:
        """One rollout per active candidate per sweep, all on that sweep's dice; with an
        iteration budget, sequential halving: ⌈log₂ K⌉ stages of equal budget, the
        worse half (by mean over the stage's shared sweeps) dropped after each,
        the heuristic's pick always kept as the reference.

        Yields ``(active, m)``: m sweeps of the active candidates to play before the
        next decision (the settling test or a halving; ``math.inf``: none is left), so
        that a kernel can play them in one batch; None when the sweeps settled."""
        active = list(order)
        stages = max(1, math.ceil(math.log2(len(active)))) if len(active) > 1 else 1
        halve = self.halving and self.iterations is not None and len(active) > 2
        per_stage = (self.iterations or 0) / stages
        sweeps = 0
        stage_end = max(1, int(per_stage // len(active))) if halve else math.inf
        while True:
            ahead = [stage_end - sweeps if len(active) > 2 else math.inf]
            if self.settle > sweeps:
                ahead.append(self.settle - sweeps)
            m = min(ahead)
            yield active, m  # type: ignore[misc]
            sweeps += m  # type: ignore[assignment]
            if sweeps == self.settle and len(active) > 1 and _all_tied(root, active, heuristic):
                yield None
                return
            if sweeps >= stage_end and len(active) > 2:
                active = _keep_better_half(root, active, heuristic)
                stage_end = sweeps + max(1, int(per_stage // len(active)))

    def rollout(self, state: BattleState, action: Action, seed: int) -> tuple[BattleState, float]:
        """One iteration's playout of ``action`` from ``state`` on the dice of ``seed``,
        outside any tree: the end state (finished, or cut at the horizon) and its value
        for the acting side. What every iteration does below its tree."""
        side = state.pending.side if state.pending is not None else Side.ENEMIES
        sim, _, _ = self._descend(state, Node(), action, side, "", seed)
        return sim, self.leaf_value(sim, side)

    def _iterate(
        self,
        state: BattleState,
        root: Node,
        first_action: Action,
        side: Side,
        actor: str,
        seed: int,
    ) -> None:
        sim, path, walk = self._descend(state, root, first_action, side, actor, seed)
        self._backup(sim, path, side, walk)

    def _descend(
        self,
        state: BattleState,
        root: Node,
        first_action: Action,
        side: Side,
        actor: str,
        seed: int,
    ) -> tuple[BattleState, list[Node], _Walk]:
        """Clone ``state``, take ``first_action``, then follow the tree while it has
        statistics and the heuristic after it, to the end or the horizon."""
        sim = state.clone(keep_log=False)
        # Common random numbers: the k-th rollout of every root action rolls the same
        # dice and breaks the heuristic's ties the same way.
        roller = RandomRoller(seed)
        rng = random.Random(seed)
        legal = sim.ruleset.legal_actions
        # The horizon: stop when round ``root round + horizon`` begins (1: at the end of
        # the current round), so every combatant acts about equally often before the cut.
        stop = state.round + self.horizon if self.horizon is not None else math.inf
        path = [root]
        node: Node | None = root
        walk = _Walk(actor) if actor else _Walk(actor, tracking=False)
        action = first_action
        decisions = 0
        while True:
            pending = sim.pending
            assert pending is not None  # an unfinished battle always has a decision
            if node is not None and pending.side is side:
                child = node.children.get(action)
                if child is None:
                    child = node.children[action] = Node()
                path.append(child)
                node = child
            apply_action(sim, action, roller, validate=False)
            sim.log.clear()  # a rollout needs no history; keep the clone light
            decisions += 1
            if walk.tracking:
                walk.update(sim)
            if sim.outcome is not None or sim.round >= stop or decisions >= MAX_ROLLOUT_DECISIONS:
                return sim, path, walk
            pending = sim.pending
            assert pending is not None
            actions = legal(sim)
            if node is not None and pending.side is side and node.visits >= self.expand_after:
                action = self._select(node, actions, sim, rng)
            else:
                if pending.side is side:
                    node = None  # left the tree: the heuristic plays on
                action = heuristic_choice(sim, actions, rng, self._mood(pending.side, side))

    def _mood(self, deciding: Side, searching: Side) -> str | None:
        # Opponents always play in character (the model of the foes); the searching
        # side's own later decisions use ``rollout_temperament`` if one is set.
        return self.rollout_temperament if deciding is searching else None

    def leaf_value(self, sim: BattleState, side: Side) -> float:
        """Value of where a rollout stopped, for ``side``, on [−1, 1] (module docstring)."""
        outcome = sim.outcome
        winner = (
            0
            if outcome is None or outcome.winner is None
            else (1 if outcome.winner is side else -1)
        )
        return self.value_of(
            winner, outcome is not None, side_strength(sim, side), side_strength(sim, side.other)
        )

    def value_of(self, winner: int, finished: bool, own: float, foe: float) -> float:
        """:meth:`leaf_value` from what a rollout's end gives (a kernel's
        :class:`RolloutBatch` too): ``winner`` +1 / −1 / 0 for the searching side, whether
        the battle ended, and the two sides' :func:`side_strength` — the same float
        operations as :func:`side_value` and :func:`shaped_value`, so the same value."""
        if winner > 0:
            return 1.0
        if winner < 0:
            return -1.0
        if not finished and self.horizon is not None:
            # Cut at the horizon: how the fight is going, on the win/loss scale.
            return 2.0 * (own / (own + foe) if own + foe > 0.0 else 0.5) - 1.0
        return self.draw + SHAPING * (own - foe)

    def _backup(self, sim: BattleState, path: list[Node], side: Side, walk: _Walk) -> None:
        outcome = sim.outcome
        win = outcome is not None and outcome.winner is side
        loss = outcome is not None and outcome.winner is side.other
        _add(path, self.leaf_value(sim, side), win, loss, walk.knocked_out)

    def _select_root(self, root: Node, order: list[Action], heuristic: Action) -> Action:
        """UCB1 over every legal root action, each tried once before any twice, with a
        progressive bias (Chaslot et al., 2008) towards the heuristic's pick: with a few
        dozen rollouts the estimates are noisy, and the bias keeps the planner from
        trading a sound move for a lucky-looking one until the evidence builds up."""
        log_n = math.log(max(root.visits, 1))
        best: Action | None = None
        best_score = -math.inf
        for action in order:
            child = root.children.get(action)
            if child is None or child.visits == 0:
                return action
            score = child.mean + self.uct_c * math.sqrt(log_n / child.visits)
            if action == heuristic:
                score += self.bias / (child.visits + 1)
            if score > best_score:
                best, best_score = action, score
        assert best is not None
        return best

    def _select(
        self, node: Node, actions: list[Action], sim: BattleState, rng: random.Random
    ) -> Action:
        """UCB inside the tree with first-play urgency: unvisited actions score the
        node's mean, except the heuristic's pick, which is tried first."""
        log_n = math.log(max(node.visits, 1))
        explore = self.uct_c * math.sqrt(log_n)
        pick = heuristic_choice(sim, actions, rng, self.rollout_temperament)
        child = node.children.get(pick)
        if child is None or child.visits == 0:
            return pick
        fpu = node.mean + explore
        best = pick
        best_score = -math.inf
        for action in actions:
            child = node.children.get(action)
            if child is None or child.visits == 0:
                score = fpu
            else:
                score = child.mean + explore / math.sqrt(child.visits)
                if action == pick:
                    score += self.bias / (child.visits + 1)
            if score > best_score:
                best, best_score = action, score
        return best


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


#: Kernels already called once in this process (compiled or loaded from the cache).
_WARM: set[object] = set()
#: A kernel call should take about this long under a deadline: long enough to make its
#: overhead (exporting the state) small, short enough not to overrun the budget.
KERNEL_CALL_SECONDS = 0.02


class _Rollouts:
    """Plays a search's rollouts on the engine, one by one, or on a kernel, in batches.

    ``run(plan)`` plays the root actions of ``plan`` in order, the k-th rollout of an
    action on ``seeds[k]`` (drawn from ``rng`` as needed, in order), and backs each up
    exactly as :meth:`MCTS._iterate` does, in plan order (float sums in the same
    order). On a kernel, the actions of the plan that share their seeds go in one
    :meth:`Kernel.rollouts` call. A state the kernel refuses falls back to the engine
    (``auto``) or raises :class:`EngineRefusal` (``fast``)."""

    def __init__(
        self,
        planner: MCTS,
        state: BattleState,
        root: Node,
        seeds: list[int],
        rng: random.Random,
        kernel: Kernel | None,
        why: str | None,
    ) -> None:
        self.planner = planner
        self.state = state
        self.root = root
        self.seeds = seeds
        self.rng = rng
        self.kernel = kernel
        self.why = why
        self.rate = 0.0  # kernel rollouts a second, measured

    @property
    def engine(self) -> str:
        return FAST if self.kernel is not None else REFERENCE

    def chunk(self, wanted: float, timed: bool, deadline: float = math.inf) -> int:
        """How many of ``wanted`` rollouts to play before the budget is checked again:
        on the engine under a deadline one (as the search always did), else all of them;
        on a kernel under a deadline about :data:`KERNEL_CALL_SECONDS` worth, and no
        more than the time left before ``deadline`` holds, so that a search overruns its
        budget by one rollout at most, not by a chunk."""
        if not timed:
            return int(wanted)
        if self.kernel is None:
            return min(1, int(wanted))
        seconds = min(KERNEL_CALL_SECONDS, max(0.0, deadline - time.perf_counter()))
        fits = max(1, int(self.rate * seconds)) if self.rate else 1
        return int(min(wanted, fits))

    def _seed(self, k: int) -> int:
        while len(self.seeds) <= k:
            self.seeds.append(self.rng.getrandbits(63))
        return self.seeds[k]

    def run(self, plan: list[Action]) -> None:
        if self.kernel is not None:
            try:
                self._run_kernel(plan)
                return
            except KernelRefusal as exc:
                if self.planner.engine == FAST:
                    raise EngineRefusal(
                        f"--engine fast: the kernel refuses this state: {exc}"
                    ) from None
                self.kernel, self.why = None, str(exc)
        pending = self.state.pending
        assert pending is not None
        children = self.root.children
        for action in plan:
            k = len(children[action].samples) if action in children else 0
            self.planner._iterate(
                self.state, self.root, action, pending.side, pending.actor, self._seed(k)
            )

    def _run_kernel(self, plan: list[Action]) -> None:
        assert self.kernel is not None
        pending = self.state.pending
        assert pending is not None
        children = self.root.children
        # Each distinct action of the plan by its index: hashing an Action rollout by
        # rollout cost as much as backing the rollouts up.
        index: dict[Action, int] = {}
        ids = [index.setdefault(action, len(index)) for action in plan]
        distinct = list(index)
        count = [0] * len(distinct)
        for i in ids:
            count[i] += 1
        # The seeds each action takes: its next ones, as many as its plan entries.
        nodes = []
        first = []
        for action in distinct:
            child = children.get(action)
            first.append(len(child.samples) if child is not None else 0)
            if child is None:
                child = children[action] = Node()
            nodes.append([self.root, child])
        for i in ids:  # draw seeds in the order the engine would
            self._seed(first[i] + count[i] - 1)
        groups: dict[tuple[int, int], list[int]] = {}
        for i in range(len(distinct)):
            groups.setdefault((first[i], count[i]), []).append(i)
        began = time.perf_counter()
        # Each batch's arrays as Python lists, read once: indexing numpy scalars rollout
        # by rollout cost more than the backing up itself.
        where: dict[int, tuple[_BatchLists, int]] = {}
        for (k, c), members in groups.items():
            batch = self._batch([distinct[i] for i in members], self.seeds[k : k + c])
            lists = _batch_lists(batch)
            for row, i in enumerate(members):
                where[i] = (lists, row)
        elapsed = time.perf_counter() - began
        if elapsed > 0:
            self.rate = len(plan) / elapsed
        value_of = self.planner.value_of
        taken = [0] * len(distinct)
        for i in ids:
            (winner, finished, own, foe, actor_out), row = where[i]
            j = taken[i]
            taken[i] = j + 1
            w = winner[row][j]
            _add(
                nodes[i],
                float(value_of(w, finished[row][j], own[row][j], foe[row][j])),
                w > 0,
                w < 0,
                actor_out[row][j],
            )

    def _batch(self, actions: list[Action], seeds: list[int]) -> RolloutBatch:
        """``Kernel.rollouts`` of ``actions`` × ``seeds``, split by seeds over the
        planner's threads when there is enough work (:data:`MIN_THREAD_ROLLOUTS` a
        part). Each (action, seed) rollout depends on nothing but its seed, so the
        parts, joined in seed order, are the one call's arrays; the kernels' rollout
        loops release the GIL (``nogil=True``), so the parts run at once."""
        assert self.kernel is not None
        kernel, planner = self.kernel, self.planner
        parts = min(planner.threads, len(seeds), len(actions) * len(seeds) // MIN_THREAD_ROLLOUTS)
        args = (planner.horizon, planner.rollout_temperament, MAX_ROLLOUT_DECISIONS)
        if parts <= 1:
            return kernel.rollouts(self.state, actions, seeds, *args)
        bounds = [len(seeds) * i // parts for i in range(parts + 1)]
        pool = _thread_pool(planner.threads - 1)
        futures = [
            pool.submit(kernel.rollouts, self.state, actions, seeds[a:b], *args)
            for a, b in zip(bounds[1:-1], bounds[2:], strict=True)
        ]
        # The first part on this thread, the others on the pool's.
        batches = [kernel.rollouts(self.state, actions, seeds[: bounds[1]], *args)]
        batches += [f.result() for f in futures]
        return RolloutBatch(
            *(
                np.concatenate([getattr(b, f.name) for b in batches], axis=1)
                for f in fields(RolloutBatch)
            )
        )


#: Fewest rollouts a thread's part of a kernel batch should have: a rollout costs 10–250
#: µs on the kernels, a hand-off to the pool tens of µs.
MIN_THREAD_ROLLOUTS = 8
_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}


def _thread_pool(workers: int) -> ThreadPoolExecutor:
    """The process's pool of ``workers`` threads for split kernel batches (made once).

    Keyed by process id too: a process forked after its parent made a pool inherits the
    pool object but not its threads, and work submitted to it would never run."""
    key = (os.getpid(), workers)
    pool = _POOLS.get(key)
    if pool is None:
        pool = _POOLS[key] = ThreadPoolExecutor(workers, thread_name_prefix="rollouts")
    return pool


#: A :class:`RolloutBatch`'s winner, finished, own, foe and actor_out as nested lists.
_BatchLists = tuple[
    list[list[int]], list[list[bool]], list[list[float]], list[list[float]], list[list[bool]]
]


def _batch_lists(batch: RolloutBatch) -> _BatchLists:
    """A batch's arrays as nested Python lists of Python ints, bools and floats (the
    same values the engine's rollouts back up)."""
    return (
        batch.winner.astype(np.int64).tolist(),
        batch.finished.astype(bool).tolist(),
        batch.own.astype(np.float64).tolist(),
        batch.foe.astype(np.float64).tolist(),
        batch.actor_out.astype(bool).tolist(),
    )


def _reached(budget: tuple[int | None, float], done: int) -> str:
    """Which part of a (iterations, deadline) budget ``done`` rollouts have reached:
    ``"iterations"``, ``"time"`` (checked between rollouts: the first one always runs)
    or ``""``."""
    iterations, deadline = budget
    if iterations is not None and done >= iterations:
        return "iterations"
    if done and time.perf_counter() >= deadline:
        return "time"
    return ""


def _all_tied(root: Node, active: list[Action], heuristic: Action) -> bool:
    """Every candidate scored exactly what the heuristic's pick did on every shared dice."""
    ref = root.children[heuristic].samples if heuristic in root.children else None
    return all(a in root.children and root.children[a].samples == ref for a in active)


def _keep_better_half(root: Node, active: list[Action], heuristic: Action) -> list[Action]:
    """Sequential halving's cut: the better half by mean value over the sweeps all the
    active candidates share (ties in candidate order), plus the heuristic's pick."""
    n = min(len(root.children[a].samples) for a in active)
    rank = {a: i for i, a in enumerate(active)}
    keep = sorted(active, key=lambda a: (-sum(root.children[a].samples[:n]), rank[a]))
    kept = set(keep[: math.ceil(len(active) / 2)])
    kept.add(heuristic)
    return [a for a in active if a in kept]


class MCTSAgent:
    """The ``mcts`` agent: plays each decision of its side by :class:`MCTS` search.

    Its randomness comes from the ``rng`` it is handed (``play_battle`` derives
    it from the battle seed), or from ``seed`` when one is injected, so a battle
    with an iteration budget is reproducible.
    """

    def __init__(
        self,
        iterations: int | None = AGENT_ITERATIONS,
        budget_ms: float | None = None,
        seed: int | None = None,
        reuse: bool = True,
        uct_c: float = DEFAULT_UCT_C,
        expand_after: int | None = None,
        rollout_temperament: str | None = None,
        bias: float = DEFAULT_BIAS,
        *,
        horizon: int | None = AGENT_HORIZON,
        root: str = AGENT_ROOT,
        candidates: int | None = None,
        halving: bool = True,
        settle: int = SETTLE_SWEEPS,
        draw: float = DRAW,
        z: float = DEFAULT_Z,
        engine: str = DEFAULT_ENGINE,
    ) -> None:
        self.planner = MCTS(
            iterations,
            budget_ms,
            uct_c,
            expand_after,
            rollout_temperament,
            bias,
            horizon=horizon,
            root=root,
            candidates=candidates,
            halving=halving,
            settle=settle,
            draw=draw,
            engine=engine,
        )
        self.seed = seed
        self.reuse = reuse
        self.z = z
        self._own_rng = random.Random(seed) if seed is not None else None
        if budget_ms is not None and iterations is None:
            self.name = f"mcts:{budget_ms:g}ms"
        elif iterations is not None and budget_ms is None:
            self.name = "mcts" if iterations == AGENT_ITERATIONS else f"mcts:{iterations}it"
        else:
            self.name = f"mcts:{iterations}it/{budget_ms:g}ms"
        self._kept: Node | None = None
        self._kept_at: tuple[int, Event | None] | None = None
        self._kept_scenario: object = None
        #: Iterations of the last search and whether it reused a tree (for benchmarks).
        self.last: SearchResult | None = None
        self.reused = 0
        #: Decisions searched, and how many of them left the heuristic's pick.
        self.searched = 0
        self.deviated = 0

    def act(self, state: BattleState, rng: random.Random) -> Action:
        actions = state.ruleset.legal_actions(state)
        root = self._reusable(state)
        if len(actions) == 1:
            action = actions[0]
            self._keep(state, root.children.get(action) if root is not None else None)
            return action
        search_rng = random.Random((self._own_rng or rng).getrandbits(63))
        result = self.planner.search(state, search_rng, root)
        self.last = result
        self.searched += 1
        if self.planner.root == "sweep":
            action = result.choice(self.z)
        else:
            action = self._robust(result)
        self.deviated += action != result.heuristic
        self._keep(state, result.root.children.get(action))
        return action

    @staticmethod
    def _robust(result: SearchResult) -> Action:
        action = result.best()
        heuristic, best = result.child(result.heuristic), result.child(action)
        if action != result.heuristic and heuristic.visits and best.visits:
            # With a small budget the robust child is often the heuristic's pick's equal
            # by noise alone; leave the heuristic only when the search's gap exceeds one
            # standard error of the two means (values lie in [-1, 1]).
            noise = math.sqrt(1 / best.visits + 1 / heuristic.visits)
            if best.mean - heuristic.mean < noise:
                action = result.heuristic
        return action

    def _reusable(self, state: BattleState) -> Node | None:
        kept, at = self._kept, self._kept_at
        self._kept = None
        if kept is None or at is None or state.scenario is not self._kept_scenario:
            return None
        length, last = at
        # "Only moved forward": the old log is a prefix of the new one (same event
        # objects), so nothing was undone or edited in between.
        if len(state.log) <= length or (length and state.log[length - 1] is not last):
            return None
        self.reused += 1
        return kept

    def _keep(self, state: BattleState, child: Node | None) -> None:
        if not self.reuse or child is None:
            self._kept = None
            return
        self._kept = child
        self._kept_at = (len(state.log), state.log[-1] if state.log else None)
        self._kept_scenario = state.scenario


def parse_mcts_spec(spec: str, engine: str | None = None) -> MCTSAgent:
    """``mcts`` (default iterations), ``mcts:N`` / ``mcts:Nms`` (N ms a decision),
    ``mcts:Nit`` (N iterations a decision), each optionally followed by ``:auto``,
    ``:fast`` or ``:reference``, the engine of the rollouts (``mcts:fast``,
    ``mcts:96it:reference``; docs/fast-path.md). ``engine`` is the default when the
    spec names none (a playtest's ``--engine reference`` passes it on)."""
    words = [w.strip().lower() for w in spec.split(":")[1:]]
    if words and words[-1] in ENGINES:
        engine = words.pop()
    engine = engine or DEFAULT_ENGINE
    if not words:
        return MCTSAgent(engine=engine)
    arg = words[0]
    try:
        if len(words) > 1:
            raise ValueError(spec)
        if arg.endswith("it"):
            return MCTSAgent(iterations=int(arg[:-2]), engine=engine)
        return MCTSAgent(iterations=None, budget_ms=float(arg.removesuffix("ms")), engine=engine)
    except ValueError:
        raise EscaramuzaError(
            f"bad MCTS budget {spec!r}: use mcts, mcts:500 or mcts:500ms (milliseconds a "
            "decision) or mcts:300it (iterations a decision), optionally followed by "
            f":{', :'.join(ENGINES)} (the rollouts' engine)"
        ) from None
