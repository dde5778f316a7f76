"""The planner, :class:`MCTS`: a search from the pending decision, its root policies
(``ucb``, ``sweep`` and ``race``) and one iteration's descent and backup. The design is
the package docstring's (:mod:`escaramuza.agents.search`)."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator

from escaramuza.agents.fast import DEFAULT_ENGINE, check_engine
from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.agents.search.budget import check_budget
from escaramuza.agents.search.candidates import (
    IDENTICAL_SHARED,
    SETTLE_SWEEPS,
    _all_tied,
    _keep_better_half,
    candidate_order,
)
from escaramuza.agents.search.guided import Guide
from escaramuza.agents.search.ranking import DEFAULT_Z, MIN_SHARED, Ranking, _check_metric, rank
from escaramuza.agents.search.result import SearchResult
from escaramuza.agents.search.rollouts import MAX_ROLLOUT_DECISIONS, _kernel, _Rollouts
from escaramuza.agents.search.tree import Node, _add, _Walk
from escaramuza.agents.search.value import DRAW, SHAPING, side_strength
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _f
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.core.symmetry import symmetry_classes

#: Iterations of a plain :class:`MCTS` search (``suggest`` passes its own budget).
DEFAULT_ITERATIONS = 200
#: UCB exploration constant for values in [−1, 1]. UCB1's √2 is for rewards in [0, 1]
#: (OpenSpiel's default is 2 for [−1, 1]); a smaller constant exploits sooner, which
#: suits budgets of a few dozen rollouts, while the root still tries every action once.
DEFAULT_UCT_C = 1.2
#: Visits a non-root node needs before it ranks its own children.
DEFAULT_EXPAND_AFTER = 6
#: Weight of the progressive bias towards the heuristic's pick (fades as 1/(n+1)).
DEFAULT_BIAS = 1.0
#: Root policies: UCB1 over every action, or CRN sweeps over the candidates.
ROOT_POLICIES = ("ucb", "sweep", "race")


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
        guide: Guide | None = None,
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
                _f(
                    "the MCTS maximum must be positive and at least the budget, not {max_ms} ms",
                    max_ms,
                )
            )
        if max_iterations is not None and (
            max_iterations < 1 or (iterations is not None and max_iterations < iterations)
        ):
            raise EscaramuzaError(
                _f(
                    "the MCTS maximum of iterations must be at least the iterations, not {n}",
                    max_iterations,
                )
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
        #: A network's prior (the root's reference and candidate order) and value (the
        #: horizon cut), :mod:`escaramuza.agents.search.guided`; None: the plain planner.
        self.guide = guide

    # -- the search -----------------------------------------------------------
    def search(
        self, state: BattleState, rng: random.Random, root: Node | None = None
    ) -> SearchResult:
        """Search from ``state``'s pending decision; ``root`` continues a reused tree."""
        pending = state.pending
        if state.outcome is not None or pending is None:
            raise EscaramuzaError("the battle is over: there is no decision to search")
        actions = state.ruleset.legal_actions(state)
        if self.guide is not None:
            self.guide.check(state)
        # Before the clock starts: the kernel's one-time compile (or load from numba's
        # cache) never eats the search budget (docs/fast-path.md).
        kernel, why = _kernel(self, state, actions)
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
        prior = self.guide.prior(state, searched) if self.guide is not None else None
        if prior is not None:
            # Guided: the network's pick is the reference, the rest by its probability.
            heuristic = max(searched, key=lambda a: prior[a])
            ranked = sorted(searched, key=lambda a: -prior[a])
            order = [heuristic, *(a for a in ranked if a != heuristic)]
            if self.candidates is not None:
                order = order[: self.candidates + 1]
        # The heuristic's pick comes first: with a tiny budget the ranking then at least
        # contains the "in character" baseline, and it is the paired reference.
        elif self.candidates is not None:
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
    ) -> Iterator[tuple[list[Action], float] | None]:
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
        sweeps: float = 0  # math.inf once no stage or settling test is left
        stage_end = max(1, int(per_stage // len(active))) if halve else math.inf
        while True:
            ahead = [stage_end - sweeps if len(active) > 2 else math.inf]
            if self.settle > sweeps:
                ahead.append(self.settle - sweeps)
            m = min(ahead)
            yield active, m
            sweeps += m
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
        """Value of where a rollout stopped, for ``side``, on [−1, 1] (package docstring);
        a rollout cut at the horizon of a guided search is the guide's."""
        outcome = sim.outcome
        if self.guide is not None and outcome is None and self.horizon is not None:
            return self.guide.cut_state(sim, side)
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
