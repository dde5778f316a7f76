"""The ``mcts`` agent (:class:`MCTSAgent`): plays each decision of its side by
:class:`~escaramuza.agents.search.mcts.MCTS` search, and keeps the subtree of the action
it took for its next decision."""

from __future__ import annotations

import math
import random

from escaramuza.agents.fast import DEFAULT_ENGINE
from escaramuza.agents.search.candidates import SETTLE_SWEEPS
from escaramuza.agents.search.guided import Guide
from escaramuza.agents.search.mcts import DEFAULT_BIAS, DEFAULT_UCT_C, MCTS
from escaramuza.agents.search.ranking import DEFAULT_Z
from escaramuza.agents.search.result import SearchResult
from escaramuza.agents.search.tree import Node
from escaramuza.agents.search.value import DRAW
from escaramuza.rules.core.events import Event
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState

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
        guide: Guide | None = None,
        guide_spec: str = "",
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
            guide=guide,
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
        if guide_spec:
            self.name = f"{self.name}:{guide_spec}"
        self._kept: Node | None = None
        self._kept_at: tuple[int, Event | None] | None = None
        self._kept_scenario: object = None
        #: Iterations of the last search and whether it reused a tree (for benchmarks).
        self.last: SearchResult | None = None
        self.reused = 0
        #: Decisions searched, and how many of them left the heuristic's pick.
        self.searched = 0
        self.deviated = 0

    def check_scenario(self, scenario: Scenario) -> None:
        """Refuse a scenario the guide's networks cannot read, as a ``policy:`` agent
        refuses one before its first battle (a planner without a guide plays any)."""
        if self.planner.guide is not None:
            self.planner.guide.check_scenario(scenario)

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
