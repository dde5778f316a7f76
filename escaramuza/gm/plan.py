"""The enemies' plan for a round: ``suggest --plan`` and ``plan`` in ``gm``.

A round is played forward many times on sampled dice — the enemies' decisions by the
planner (each the first row of :func:`~escaramuza.agents.suggest.suggest` at an
iteration budget, as the autopilot takes them), the heroes' by their temperaments (the
planner's own model of the other side) — and each enemy's turn is read off those
continuations:

* **The round.** The round in progress, from the pending decision to its end; when no
  enemy has a turn left in it, the next round whole.
* **An enemy's planned turn** is its most frequent turn over the continuations in which
  it had one — a turn being the actions of its consecutive turn decisions (Destiny
  Dice: a move, then the attack, then the end of the turn) — reported with how many
  continuations chose it out of how many gave it a turn. Ties go to the turn seen
  first. Its reason is the planner's for the turn's first action, in the first
  continuation that chose it.
* **The side's win chance if the plan is followed** comes from separate playouts on
  fresh dice: on its turn in the round each enemy plays its planned actions while they
  are legal (once one is not, its temperament plays the rest of that turn); every other
  decision, and every decision after the round, is played by the temperaments, to the
  end of the battle. The chance is wins over playouts, with its Wilson interval and
  the number of playouts; how many planned actions were legal when their turn came is
  reported beside it.

Why this definition: docs/decisions/0018-enemy-autopilot.md.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from escaramuza.agents.fast import DEFAULT_ENGINE
from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.agents.suggest import suggest
from escaramuza.gm.autopilot import AUTO_SIDE
from escaramuza.progress import progress_bar
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.model import Action, DecisionKind
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.core.stats import wilson_interval

#: Sampled continuations of the round the plan is read from.
DEFAULT_SAMPLES = 12
#: Rollouts of the planner's search at each enemy decision of a continuation.
DEFAULT_PLAN_ITERATIONS = 200
#: Playouts of the plan to the end of the battle, for its win chance.
DEFAULT_PLAYOUTS = 200
#: Bounds of the three (a plan must end).
MAX_SAMPLES = 100
MAX_PLAN_ITERATIONS = 5000
MAX_PLAYOUTS = 5000
#: A continuation or playout longer than this many decisions is a ruleset bug.
MAX_DECISIONS = 200_000
#: Version of ``suggest --plan --json`` (docs/gm.md).
JSON_VERSION = 1


class PlanError(EscaramuzaError):
    """A plan that cannot be made (a finished battle, a size out of bounds)."""


@dataclass(frozen=True, slots=True)
class PlannedTurn:
    """One enemy's planned turn."""

    actor: str
    name: str
    actions: tuple[Action, ...]
    texts: tuple[str, ...]
    #: Continuations that chose this turn, of those in which the enemy had a turn.
    chosen: int
    acted: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "actor": self.actor,
            "name": self.name,
            "actions": [a.to_dict() for a in self.actions],
            "texts": list(self.texts),
            "chosen": self.chosen,
            "acted": self.acted,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """The enemies' plan for a round and the side's win chance if it is followed."""

    scenario: str
    round: int
    side: str
    samples: int
    iterations: int
    turns: tuple[PlannedTurn, ...]
    playouts: int
    wins: int
    #: Planned actions whose turn came in the playouts, and how many of them were legal.
    planned: int
    followed: int
    seed: int
    elapsed_ms: float
    engine: str = DEFAULT_ENGINE
    not_acting: tuple[str, ...] = field(default=())

    @property
    def win(self) -> float:
        return self.wins / self.playouts if self.playouts else 0.0

    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.playouts)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval()
        return {
            "format": "escaramuza-round-plan",
            "version": JSON_VERSION,
            "scenario": self.scenario,
            "round": self.round,
            "side": self.side,
            "samples": self.samples,
            "iterations": self.iterations,
            "seed": self.seed,
            "engine": self.engine,
            "turns": [t.to_dict() for t in self.turns],
            "not_acting": list(self.not_acting),
            "win_probability": round(self.win, 4),
            "win_interval": [round(low, 4), round(high, 4)],
            "playouts": self.playouts,
            "planned_actions": self.planned,
            "followed_actions": self.followed,
            "elapsed_ms": round(self.elapsed_ms, 1),
        }

    def table(self) -> str:
        """The plan as a GM reads it: one block per enemy in turn order."""
        low, high = self.interval()
        lines = [
            _f(
                "Round {round} — the enemies' plan: {samples} sampled continuations of the "
                "round, the planner at {iterations} rollouts a decision, the heroes in "
                "character",
                self.round,
                self.samples,
                self.iterations,
            ),
            "",
        ]
        for i, turn in enumerate(self.turns, start=1):
            lines.append(
                _f(
                    "{i}. {name} — chosen in {chosen} of {acted} continuations",
                    i,
                    turn.name,
                    turn.chosen,
                    turn.acted,
                )
            )
            for text in turn.texts:
                lines.append(f"     {text}")
            lines.append("     " + _f("why: {reason}", turn.reason))
        if not self.turns:
            lines.append(_("No enemy has a turn in this round."))
        if self.not_acting:
            lines.append(_f("No turn in any continuation: {names}.", ", ".join(self.not_acting)))
        lines.append("")
        followed = (
            _f(
                "{followed} of {planned} planned actions were legal when their turn came",
                self.followed,
                self.planned,
            )
            if self.planned
            else _("no planned action was reached")
        )
        lines.append(
            _f(
                "If the plan is followed, the enemies win {win}% ({low}–{high}%, interval at 95%) "
                "of {n} playouts to the end ({followed}).",
                format(self.win * 100, ".0f"),
                format(low * 100, ".0f"),
                format(high * 100, ".0f"),
                self.playouts,
                followed,
            )
        )
        return "\n".join(lines)


@contextmanager
def plan_progress(total: int) -> Iterator[Callable[[int, int], None]]:
    """The progress bar of a plan on stderr (only on a terminal: escaramuza.progress),
    as a ``progress`` callback for :func:`plan_round`."""
    bar = progress_bar(total, _("plan"), unit=_("runs"))
    seen = 0

    def progress(done: int, _total: int) -> None:
        nonlocal seen
        bar.update(done - seen)
        seen = done

    try:
        yield progress
    finally:
        bar.close()


def _check(name: str, value: int, most: int) -> None:
    if isinstance(value, bool) or not 1 <= value <= most:
        raise PlanError(_f("{name} must be 1–{most}, not {value}", name, most, value))


def _target_round(state: BattleState, seed: int) -> int:
    """The plan's round: the one in progress while an enemy has a turn left in it, else
    the next (found by playing the round out once with the temperaments)."""
    sim = state.clone(keep_log=False)
    roller, rng = RandomRoller(seed), random.Random(seed)
    start = sim.round
    for _step in range(MAX_DECISIONS):
        pending = sim.pending
        if sim.outcome is not None or pending is None or sim.round != start:
            break
        if pending.side is AUTO_SIDE and pending.kind is DecisionKind.TURN:
            return start
        legal = sim.ruleset.legal_actions(sim)
        apply_action(sim, heuristic_choice(sim, legal, rng), roller, validate=False)
    return start + 1


def plan_round(
    state: BattleState,
    *,
    samples: int = DEFAULT_SAMPLES,
    iterations: int = DEFAULT_PLAN_ITERATIONS,
    playouts: int = DEFAULT_PLAYOUTS,
    seed: int = 0,
    engine: str = DEFAULT_ENGINE,
    progress: Callable[[int, int], None] | None = None,
) -> RoundPlan:
    """The enemies' plan for the round (see the module docstring), reproducible for a
    given state, sizes and ``seed``. ``progress(done, total)`` is called after each
    continuation and each tenth of the playouts."""
    if state.outcome is not None or state.pending is None:
        raise PlanError(_("the battle is over: there is nothing to plan"))
    _check("samples", samples, MAX_SAMPLES)
    _check("iterations", iterations, MAX_PLAN_ITERATIONS)
    _check("playouts", playouts, MAX_PLAYOUTS)
    began = time.perf_counter()
    rng = random.Random(seed)
    target = _target_round(state, rng.getrandbits(63))
    total = samples + playouts
    turns: dict[str, list[tuple[Action, ...]]] = {}
    reasons: dict[tuple[str, tuple[Action, ...]], str] = {}
    first_step: dict[str, list[int]] = {}
    for k in range(samples):
        taken = _continuation(state, target, iterations, rng.getrandbits(63), engine)
        for actor, (step, actions, reason) in taken.items():
            turns.setdefault(actor, []).append(actions)
            first_step.setdefault(actor, []).append(step)
            reasons.setdefault((actor, actions), reason)
        if progress is not None:
            progress(k + 1, total)
    planned_turns = []
    for actor in sorted(turns, key=lambda a: (min(first_step[a]), state.by_id[a].index)):
        actions, chosen = Counter(turns[actor]).most_common(1)[0]
        planned_turns.append(
            PlannedTurn(
                actor,
                state.by_id[actor].name,
                actions,
                tuple(_describe(state, a) for a in actions),
                chosen,
                len(turns[actor]),
                reasons[(actor, actions)],
            )
        )
    plan = {t.actor: t.actions for t in planned_turns}
    wins = planned = followed = 0
    for j in range(playouts):
        won, reached, legal = _playout(state, target, plan, rng.getrandbits(63))
        wins += won
        planned += reached
        followed += legal
        if progress is not None and (j + 1) % max(1, playouts // 10) == 0:
            progress(samples + j + 1, total)
    not_acting = tuple(
        c.name for c in state.combatants if c.side is AUTO_SIDE and c.active and c.id not in plan
    )
    return RoundPlan(
        scenario=state.scenario.name,
        round=target,
        side=AUTO_SIDE.value,
        samples=samples,
        iterations=iterations,
        turns=tuple(planned_turns),
        playouts=playouts,
        wins=wins,
        planned=planned,
        followed=followed,
        seed=seed,
        elapsed_ms=(time.perf_counter() - began) * 1000,
        engine=engine,
        not_acting=not_acting,
    )


def _describe(state: BattleState, action: Action) -> str:
    """An action in words; one whose target is gone from ``state`` (a plan reaches past
    the present) falls back to its engine form."""
    try:
        return state.ruleset.describe(state, action)
    except (KeyError, ValueError):
        return str(action)


def _continuation(
    state: BattleState, target: int, iterations: int, seed: int, engine: str
) -> dict[str, tuple[int, tuple[Action, ...], str]]:
    """Play to the end of round ``target`` on dice of ``seed``: the enemies by the planner,
    the heroes in character. Each enemy's first turn in that round: (the decision number
    it began at, its actions, the planner's reason for the first)."""
    sim = state.clone(keep_log=False)
    roller, rng = RandomRoller(seed), random.Random(seed)
    taken: dict[str, tuple[int, tuple[Action, ...], str]] = {}
    current: str | None = None
    for step in range(MAX_DECISIONS):
        pending = sim.pending
        if sim.outcome is not None or pending is None or sim.round > target:
            break
        legal = sim.ruleset.legal_actions(sim)
        if pending.side is AUTO_SIDE:
            row = suggest(
                sim, budget_ms=None, iterations=iterations, seed=rng.getrandbits(63), engine=engine
            ).best
            action = row.action
        else:
            action = heuristic_choice(sim, legal, rng)
        if sim.round == target and pending.kind is DecisionKind.TURN and pending.side is AUTO_SIDE:
            actor = pending.actor
            if actor not in taken:
                taken[actor] = (step, (action,), row.reason)
                current = actor
            elif current == actor:
                at, actions, reason = taken[actor]
                taken[actor] = (at, (*actions, action), reason)
        elif pending.kind is DecisionKind.TURN:
            current = None
        apply_action(sim, action, roller, validate=False)
    return taken


def _playout(
    state: BattleState, target: int, plan: dict[str, tuple[Action, ...]], seed: int
) -> tuple[bool, int, int]:
    """One battle to its end on dice of ``seed``, the plan followed while legal: (did the
    enemies win, planned actions reached, how many of them were legal)."""
    sim = state.clone(keep_log=False)
    roller, rng = RandomRoller(seed), random.Random(seed)
    queues = {actor: list(actions) for actor, actions in plan.items()}
    reached = legal_count = 0
    for _step in range(MAX_DECISIONS):
        pending = sim.pending
        if sim.outcome is not None or pending is None:
            break
        legal = sim.ruleset.legal_actions(sim)
        queue = queues.get(pending.actor)
        if (
            queue
            and sim.round == target
            and pending.side is AUTO_SIDE
            and pending.kind is DecisionKind.TURN
        ):
            wanted = queue.pop(0)
            reached += 1
            if wanted in legal:
                legal_count += 1
                action = wanted
            else:
                queue.clear()  # off the plan: the rest of this turn in character
                action = heuristic_choice(sim, legal, rng)
        else:
            if sim.round > target:
                queues.clear()
            action = heuristic_choice(sim, legal, rng)
        apply_action(sim, action, roller, validate=False)
    won = sim.outcome is not None and sim.outcome.winner is AUTO_SIDE
    return won, reached, legal_count
