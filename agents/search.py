"""Monte Carlo tree search over the engine: the ``mcts`` agent (issue 8, "Planner").

Design (OpenSpiel's ``algorithms/mcts.py`` is the model; the choices are written
down in ``docs/gm.md``, "Planner design"):

* **Open-loop UCT over the searching side's decisions.** A tree node is a
  sequence of the searching side's actions, not a state: every iteration clones
  the root state and replays the path with *fresh dice*, so chance is sampled
  through the roller instead of being stored in the tree. The opponents'
  decisions are not tree levels: they are taken by the scenario's heuristic
  (``HeuristicAgent()``, each combatant's own temperament) both inside the tree
  and in the rollout, so the planner answers "what is best against the way
  these foes play".
* **Chance**: a new :class:`RandomRoller` per iteration, seeded from the
  planner's own ``random.Random`` — one injected seed fixes the whole search.
* **Rollouts**: every decision after the tree — the opponents' and the
  searching side's later ones — is the heuristic's. A rollout ends with the
  battle; the engine's round limit caps its length (``begin_round`` ends the
  battle past ``round_limit``), plus a decision cap as a guard against
  a ruleset bug.
* **Value** from the searching side's view: +1 win, −1 loss; a draw (timeout,
  mutual knock-out, withdrawal) or the guard cap scores a small shaped value in
  [−0.2, 0.2] from the sides' remaining strength (:func:`shaped_value`).
* **Tree growth**: the root ranks *every* legal action (UCB1, each tried once
  first, the heuristic's pick first, with a progressive bias towards that pick
  that fades as ``1/(visits+1)``). A deeper node gets its own children only
  after ``expand_after`` visits; before that the heuristic plays on from it.
  Inside the tree an unvisited action scores its parent's mean value ("first
  play urgency") except the heuristic's pick, which is tried first — with a
  budget of a few hundred rollouts this keeps the search from wasting them on
  the many silly moves a turn allows.
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
import random
import time
from dataclasses import dataclass, field

from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.events import Event
from escaramuza.rules.core.model import Action, DecisionKind, Side
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.state import BattleState

#: Iterations of the plain ``mcts`` agent (reproducible; about 0.3–3 s a decision).
DEFAULT_ITERATIONS = 200
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
#: Decisions a single rollout may take before it is cut and scored as a draw.
MAX_ROLLOUT_DECISIONS = 5_000


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

    @property
    def mean(self) -> float:
        return self.value / self.visits if self.visits else 0.0


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


class MCTS:
    """The planner: ``search(state)`` grows a tree from the pending decision."""

    def __init__(
        self,
        iterations: int | None = DEFAULT_ITERATIONS,
        budget_ms: float | None = None,
        uct_c: float = DEFAULT_UCT_C,
        expand_after: int = DEFAULT_EXPAND_AFTER,
        rollout_temperament: str | None = None,
        bias: float = DEFAULT_BIAS,
    ) -> None:
        if iterations is None and budget_ms is None:
            raise EscaramuzaError("an MCTS budget needs iterations, milliseconds or both")
        if iterations is not None and iterations < 1:
            raise EscaramuzaError(f"MCTS iterations must be at least 1, not {iterations}")
        if budget_ms is not None and budget_ms <= 0:
            raise EscaramuzaError(f"MCTS budget must be positive, not {budget_ms} ms")
        self.iterations = iterations
        self.budget_ms = budget_ms
        self.uct_c = uct_c
        self.expand_after = expand_after
        self.rollout_temperament = rollout_temperament
        self.bias = bias

    # -- the search -----------------------------------------------------------
    def search(
        self, state: BattleState, rng: random.Random, root: Node | None = None
    ) -> SearchResult:
        """Search from ``state``'s pending decision; ``root`` continues a reused tree."""
        pending = state.pending
        if state.outcome is not None or pending is None:
            raise EscaramuzaError("the battle is over: there is no decision to search")
        start = time.perf_counter()
        deadline = start + self.budget_ms / 1000.0 if self.budget_ms is not None else math.inf
        actions = state.ruleset.legal_actions(state)
        heuristic = heuristic_choice(state, actions, rng, self.rollout_temperament)
        # The heuristic's pick is tried first at the root: with a tiny budget the
        # ranking then at least contains the "in character" baseline.
        root_order = [heuristic, *(a for a in actions if a != heuristic)]
        root = root if root is not None else Node()
        done = 0
        while True:
            if self.iterations is not None and done >= self.iterations:
                break
            if done and time.perf_counter() >= deadline:
                break
            self._iterate(state, root, root_order, heuristic, pending.side, pending.actor, rng)
            done += 1
        elapsed = (time.perf_counter() - start) * 1000.0
        return SearchResult(root, actions, pending.side, pending.actor, heuristic, done, elapsed)

    def _iterate(
        self,
        state: BattleState,
        root: Node,
        root_order: list[Action],
        heuristic: Action,
        side: Side,
        actor: str,
        rng: random.Random,
    ) -> None:
        sim = state.clone(keep_log=False)
        roller = RandomRoller(rng.getrandbits(63))
        legal = sim.ruleset.legal_actions
        path = [root]
        node: Node | None = root
        walk = _Walk(actor)
        first = True
        decisions = 0
        while sim.outcome is None and decisions < MAX_ROLLOUT_DECISIONS:
            pending = sim.pending
            assert pending is not None  # an unfinished battle always has a decision
            if first:
                action = self._select_root(root, root_order, heuristic)
                first = False
            else:
                actions = legal(sim)
                if node is not None and pending.side is side and node.visits >= self.expand_after:
                    action = self._select(node, actions, sim, rng)
                else:
                    if pending.side is side:
                        node = None  # left the tree: the heuristic plays on
                    action = heuristic_choice(sim, actions, rng, self._mood(pending.side, side))
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
        self._backup(sim, path, side, walk)

    def _mood(self, deciding: Side, searching: Side) -> str | None:
        # Opponents always play in character (the model of the foes); the searching
        # side's own later decisions use ``rollout_temperament`` if one is set.
        return self.rollout_temperament if deciding is searching else None

    def _backup(self, sim: BattleState, path: list[Node], side: Side, walk: _Walk) -> None:
        outcome = sim.outcome
        win = loss = False
        if outcome is not None and outcome.winner is side:
            value, win = 1.0, True
        elif outcome is not None and outcome.winner is side.other:
            value, loss = -1.0, True
        else:
            value = shaped_value(sim, side)
        for n in path:
            n.visits += 1
            n.value += value
            n.wins += win
            n.losses += loss
        if len(path) > 1 and walk.knocked_out:
            path[1].knocked_out += 1

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


class MCTSAgent:
    """The ``mcts`` agent: plays each decision of its side by :class:`MCTS` search.

    Its randomness comes from the ``rng`` it is handed (``play_battle`` derives
    it from the battle seed), or from ``seed`` when one is injected, so a battle
    with an iteration budget is reproducible.
    """

    def __init__(
        self,
        iterations: int | None = DEFAULT_ITERATIONS,
        budget_ms: float | None = None,
        seed: int | None = None,
        reuse: bool = True,
        uct_c: float = DEFAULT_UCT_C,
        expand_after: int = DEFAULT_EXPAND_AFTER,
        rollout_temperament: str | None = None,
        bias: float = DEFAULT_BIAS,
    ) -> None:
        self.planner = MCTS(iterations, budget_ms, uct_c, expand_after, rollout_temperament, bias)
        self.seed = seed
        self.reuse = reuse
        self._own_rng = random.Random(seed) if seed is not None else None
        if budget_ms is not None and iterations is None:
            self.name = f"mcts:{budget_ms:g}ms"
        elif iterations is not None and budget_ms is None:
            self.name = "mcts" if iterations == DEFAULT_ITERATIONS else f"mcts:{iterations}it"
        else:
            self.name = f"mcts:{iterations}it/{budget_ms:g}ms"
        self._kept: Node | None = None
        self._kept_at: tuple[int, Event | None] | None = None
        self._kept_scenario: object = None
        #: Iterations of the last search and whether it reused a tree (for benchmarks).
        self.last: SearchResult | None = None
        self.reused = 0

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
        action = result.best()
        heuristic, best = result.child(result.heuristic), result.child(action)
        if action != result.heuristic and heuristic.visits and best.visits:
            # With a small budget the robust child is often the heuristic's pick's equal
            # by noise alone; leave the heuristic only when the search's gap exceeds one
            # standard error of the two means (values lie in [-1, 1]).
            noise = math.sqrt(1 / best.visits + 1 / heuristic.visits)
            if best.mean - heuristic.mean < noise:
                action = result.heuristic
        self._keep(state, result.root.children.get(action))
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


def parse_mcts_spec(spec: str) -> MCTSAgent:
    """``mcts`` (default iterations), ``mcts:N`` / ``mcts:Nms`` (N ms a decision),
    ``mcts:Nit`` (N iterations a decision)."""
    if spec == "mcts":
        return MCTSAgent()
    arg = spec.split(":", 1)[1].strip().lower() if ":" in spec else ""
    try:
        if arg.endswith("it"):
            return MCTSAgent(iterations=int(arg[:-2]))
        return MCTSAgent(iterations=None, budget_ms=float(arg.removesuffix("ms")))
    except ValueError:
        raise EscaramuzaError(
            f"bad MCTS budget {spec!r}: use mcts, mcts:500 or mcts:500ms (milliseconds a "
            "decision) or mcts:300it (iterations a decision)"
        ) from None
