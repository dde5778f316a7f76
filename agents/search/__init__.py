"""Monte Carlo tree search over the engine: the ``mcts`` agent.

Design (OpenSpiel's ``algorithms/mcts.py`` is the model; how ``suggest`` and the agent
configure it: ``docs/gm.md``, "Planner design"; the defaults and the measurements behind
them: ``docs/decisions/0007-planner-defaults.md``):

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

The package, one concept a module: ``value`` (how a battle state is going for a side),
``tree`` (the nodes and the backup), ``ranking`` (paired statistics and the ranking of
the root actions), ``result`` (what a search found), ``budget`` (the budgets' bounds),
``candidates`` (the root's candidates, halving and settling), ``rollouts`` (where the
rollouts run: the engine or a kernel, in threaded batches), ``mcts`` (the planner and its
root policies), ``agent`` (the ``mcts`` agent) and ``spec`` (its ``mcts:…`` specs).
"""

from __future__ import annotations

from escaramuza.agents.search.agent import AGENT_HORIZON, AGENT_ITERATIONS, AGENT_ROOT, MCTSAgent
from escaramuza.agents.search.budget import (
    MAX_BUDGET_MS,
    MAX_ITERATIONS,
    MIN_BUDGET_MS,
    check_budget,
)
from escaramuza.agents.search.candidates import IDENTICAL_SHARED, SETTLE_SWEEPS, candidate_order
from escaramuza.agents.search.mcts import (
    DEFAULT_BIAS,
    DEFAULT_EXPAND_AFTER,
    DEFAULT_ITERATIONS,
    DEFAULT_UCT_C,
    MCTS,
    ROOT_POLICIES,
)
from escaramuza.agents.search.ranking import (
    DEFAULT_Z,
    METRICS,
    MIN_SHARED,
    Paired,
    Ranking,
    paired,
    rank,
)
from escaramuza.agents.search.result import STOP_REASONS, SearchResult
from escaramuza.agents.search.rollouts import (
    KERNEL_CALL_SECONDS,
    MAX_ROLLOUT_DECISIONS,
    MIN_THREAD_ROLLOUTS,
)
from escaramuza.agents.search.spec import parse_mcts_spec
from escaramuza.agents.search.tree import Node
from escaramuza.agents.search.value import (
    DRAW,
    SHAPING,
    health_key,
    shaped_value,
    side_strength,
    side_value,
)

__all__ = [
    "AGENT_HORIZON",
    "AGENT_ITERATIONS",
    "AGENT_ROOT",
    "DEFAULT_BIAS",
    "DEFAULT_EXPAND_AFTER",
    "DEFAULT_ITERATIONS",
    "DEFAULT_UCT_C",
    "DEFAULT_Z",
    "DRAW",
    "IDENTICAL_SHARED",
    "KERNEL_CALL_SECONDS",
    "MAX_BUDGET_MS",
    "MAX_ITERATIONS",
    "MAX_ROLLOUT_DECISIONS",
    "MCTS",
    "METRICS",
    "MIN_BUDGET_MS",
    "MIN_SHARED",
    "MIN_THREAD_ROLLOUTS",
    "ROOT_POLICIES",
    "SETTLE_SWEEPS",
    "SHAPING",
    "STOP_REASONS",
    "MCTSAgent",
    "Node",
    "Paired",
    "Ranking",
    "SearchResult",
    "candidate_order",
    "check_budget",
    "health_key",
    "paired",
    "parse_mcts_spec",
    "rank",
    "shaped_value",
    "side_strength",
    "side_value",
]
