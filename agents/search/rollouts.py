"""Where a search's rollouts are played (:class:`_Rollouts`): on the engine one by one,
or on the ruleset's compiled kernel in batches, split over threads by seeds; either way
backed up exactly as :meth:`MCTS._iterate <escaramuza.agents.search.mcts.MCTS._iterate>`
does."""

from __future__ import annotations

import math
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields
from typing import TYPE_CHECKING

import numpy as np

from escaramuza.agents.fast import (
    FAST,
    REFERENCE,
    STILL_COMPILING,
    EngineRefusal,
    find_kernel,
    first_call,
    warming,
)
from escaramuza.agents.fast import refusal as fast_refusal
from escaramuza.agents.search.guided import Guide
from escaramuza.agents.search.observed import ObservedBatch, rollouts_with_observations
from escaramuza.agents.search.tree import Node, _add
from escaramuza.rules.core.kernel import Kernel, KernelRefusal, RolloutBatch
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.state import BattleState

if TYPE_CHECKING:
    from escaramuza.agents.search.mcts import MCTS

#: Decisions a single rollout may take before it is cut and scored as a draw.
MAX_ROLLOUT_DECISIONS = 5_000
#: Kernels already called once in this process (compiled or loaded from the cache).
_WARM: set[object] = set()
#: A kernel call should take about this long under a deadline: long enough to make its
#: overhead (exporting the state) small, short enough not to overrun the budget.
KERNEL_CALL_SECONDS = 0.02


def _kernel(
    planner: MCTS, state: BattleState, actions: list[Action]
) -> tuple[Kernel | None, str | None]:
    """The kernel for this search's rollouts, warmed, or None and why not.

    ``engine="fast"`` raises :class:`EngineRefusal` where ``auto`` would fall back."""
    if planner.engine == REFERENCE:
        return None, None
    why = _refusal(planner, state)
    if why is None and planner.engine != FAST and warming(state.ruleset.id):
        why = STILL_COMPILING  # the engine plays until the background compile ends
    kernel = find_kernel(state.ruleset.id) if why is None else None
    if kernel is not None and kernel not in _WARM:
        # The first call compiles the kernel or loads it from numba's cache: once per
        # process, before any clock starts. A state it refuses leaves it cold.
        try:
            with first_call(state.ruleset.id):
                args = (
                    state,
                    actions[:1],
                    [0],
                    planner.horizon,
                    planner.rollout_temperament,
                    MAX_ROLLOUT_DECISIONS,
                )
                kernel.rollouts(*args)
                if planner.guide is not None and planner.guide.observes:
                    rollouts_with_observations(kernel, *args, planner.guide.limits)
            _WARM.add(kernel)
        except KernelRefusal as exc:
            kernel, why = None, str(exc)
    if kernel is None and planner.engine == FAST:
        raise EngineRefusal(
            f"--engine fast: the planner's rollouts cannot run on the fast path: {why}"
        )
    return kernel, why


def _refusal(planner: MCTS, state: BattleState) -> str | None:
    """Why these rollouts cannot run on a kernel (None: they may)."""
    if planner.expand_after != math.inf:
        # Inside a tree the searching side's later decisions are the tree's, which a
        # kernel does not know: only tree-less rollouts (the agent, suggest) batch.
        return "a tree below the root (expand_after) is searched on the engine"
    pending = state.pending
    assert pending is not None
    own = f"heuristic:{planner.rollout_temperament}" if planner.rollout_temperament else "heuristic"
    specs = [own, "heuristic"] if pending.side is Side.HEROES else ["heuristic", own]
    return fast_refusal(state.scenario, specs)


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
            return 1 if wanted >= 1 else 0  # ``wanted`` is infinite under a deadline
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
            guide = self.planner.guide
            lists = _batch_lists(batch, guide if guide is not None and guide.observes else None)
            for row, i in enumerate(members):
                where[i] = (lists, row)
        elapsed = time.perf_counter() - began
        if elapsed > 0:
            self.rate = len(plan) / elapsed
        value_of = self.planner.value_of
        cut_off = self.planner.horizon is not None
        taken = [0] * len(distinct)
        for i in ids:
            (winner, finished, own, foe, actor_out, cut), row = where[i]
            j = taken[i]
            taken[i] = j + 1
            w = winner[row][j]
            if cut is not None and w == 0 and cut_off and not finished[row][j]:
                value = cut[row][j]  # a guided search's value of the cut state
            else:
                value = float(value_of(w, finished[row][j], own[row][j], foe[row][j]))
            _add(nodes[i], value, w > 0, w < 0, actor_out[row][j])

    def _batch(self, actions: list[Action], seeds: list[int]) -> RolloutBatch | ObservedBatch:
        """``Kernel.rollouts`` of ``actions`` × ``seeds``, split by seeds over the
        planner's threads when there is enough work (:data:`MIN_THREAD_ROLLOUTS` a
        part). Each (action, seed) rollout depends on nothing but its seed, so the
        parts, joined in seed order, are the one call's arrays; the kernels' rollout
        loops release the GIL (``nogil=True``), so the parts run at once."""
        assert self.kernel is not None
        kernel, planner = self.kernel, self.planner
        parts = min(planner.threads, len(seeds), len(actions) * len(seeds) // MIN_THREAD_ROLLOUTS)
        args = (planner.horizon, planner.rollout_temperament, MAX_ROLLOUT_DECISIONS)
        guide = planner.guide
        if guide is not None and guide.observes:
            # A guided search's batch, with each rollout's end seen by the network (one
            # call: the guided agent searches on one thread).
            return rollouts_with_observations(
                kernel, self.state, actions, seeds, *args, guide.limits
            )
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


#: A :class:`RolloutBatch`'s winner, finished, own, foe and actor_out as nested lists,
#: and a guided search's value of each rollout's end (None unguided).
_BatchLists = tuple[
    list[list[int]],
    list[list[bool]],
    list[list[float]],
    list[list[float]],
    list[list[bool]],
    list[list[float]] | None,
]


def _batch_lists(batch: RolloutBatch | ObservedBatch, guide: Guide | None = None) -> _BatchLists:
    """A batch's arrays as nested Python lists of Python ints, bools and floats (the
    same values the engine's rollouts back up); with a ``guide``, its cut values."""
    cut = None
    if guide is not None:
        obs = batch.obs if isinstance(batch, ObservedBatch) else None
        cut = guide.cut_batch(obs, batch.own, batch.foe).astype(np.float64).tolist()
    return (
        batch.winner.astype(np.int64).tolist(),
        batch.finished.astype(bool).tolist(),
        batch.own.astype(np.float64).tolist(),
        batch.foe.astype(np.float64).tolist(),
        batch.actor_out.astype(bool).tolist(),
        cut,
    )
