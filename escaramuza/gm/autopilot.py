"""The enemies' autopilot: which agent takes the enemy side's decisions, how long it may
think, and what it says about each one.

A :class:`Pilot` is an agent spec and a budget. Every decision it takes is searched by
the planner's ranking (:func:`escaramuza.agents.suggest.suggest`), whatever the agent:

* ``mcts`` (the default) and ``mcts:…`` play the ranking's first row — the action
  ``suggest`` would show first at the same seed and budget (the best, or the
  in-character pick when the best is too close to call);
* any other agent (a temperament, ``heuristic``, ``random``, a policy) plays its own
  choice, and the ranking gives that choice's row: its reason and the side's win
  chance after it, with its interval and rollouts.

A time budget is the most one decision may take: the search stops at a quarter of it
(:data:`FLOOR_SHARE`) when the best action is clear, and goes on up to the whole budget
while it is too close to call (``suggest``'s ``max_ms``). An iteration budget searches
exactly that many rollouts, so the same battle, seed and budget give the same decisions.
Design and measurements: docs/decisions/0018-enemy-autopilot.md.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass
from typing import Any, TextIO

from escaramuza.agents import AGENT_NAMES, TEMPERAMENTS, make_agent
from escaramuza.agents.base import Agent
from escaramuza.agents.fast import DEFAULT_ENGINE, ENGINES
from escaramuza.agents.search import MIN_BUDGET_MS, check_budget
from escaramuza.agents.suggest import DEFAULT_BUDGET_MS, Suggestion, Suggestions, suggest
from escaramuza.progress import shows
from escaramuza.rules.core.errors import EscaramuzaError, clip
from escaramuza.rules.core.i18n import _, _f, word
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.state import BattleState

#: The side the autopilot plays.
AUTO_SIDE = Side.ENEMIES
#: The agent of ``auto`` without one: the planner at the session's budget.
DEFAULT_AGENT = "mcts"
#: Of a time budget, what a decision searches at least; past it, the search stops as
#: soon as the best action is clear (most decisions), and goes on up to the whole
#: budget while it is too close to call.
FLOOR_SHARE = 0.25
#: The time all the enemy decisions of a round may take together, in budgets of one
#: decision: 7.5 × 800 ms = 6 s. Each decision gets at most its share of what is left
#: (:func:`decisions_left`), never less than :data:`FLOOR_SHARE` of a budget.
PHASE_BUDGETS = 7.5
#: Decisions an enemy's turn is counted as when sharing the phase: Destiny Dice's turn is
#: usually a move or an attack, then the end of the turn.
DECISIONS_PER_TURN = 2
#: Of a decision's time, what is kept for the ranking after the search (the odds, the
#: reasons): the smaller of these.
RESERVE_MS = 40.0
RESERVE_SHARE = 0.05


class AutopilotError(EscaramuzaError):
    """An autopilot that cannot be set up as asked (an unknown agent, a bad budget)."""


@dataclass(frozen=True, slots=True)
class Pilot:
    """Who plays the enemies and how long a decision may take.

    ``budget_ms`` is the most one decision searches (``iterations`` None); ``iterations``
    an exact number of rollouts a decision (reproducible); ``cap_ms`` a wall-clock cap on
    a search of ``iterations`` (the web page's, so that no request runs unbounded).
    """

    agent: str = DEFAULT_AGENT
    budget_ms: float | None = DEFAULT_BUDGET_MS
    iterations: int | None = None
    engine: str = DEFAULT_ENGINE
    cap_ms: float | None = None

    @property
    def is_planner(self) -> bool:
        """Whether the agent is the planner (its choice is the ranking's first row)."""
        return self.agent.split(":", 1)[0] == "mcts"

    def budget_text(self) -> str:
        """The budget in words: "800 ms a decision" or "200 rollouts a decision"."""
        if self.iterations is not None:
            return _f("{n} rollouts a decision", self.iterations)
        return _f("{ms} ms a decision", format(self.budget_ms or 0.0, "g"))

    def text(self) -> str:
        """The pilot in words, for the session's messages."""
        return _f("{agent}, {budget}", self.agent, self.budget_text())

    def to_meta(self) -> dict[str, Any]:
        """The pilot as a state file's ``meta.autopilot`` keeps it."""
        return {"agent": self.agent, "budget_ms": self.budget_ms, "iterations": self.iterations}

    @property
    def phase_ms(self) -> float | None:
        """The time a round's enemy decisions share (None with an iteration budget)."""
        if self.iterations is not None:
            return None
        return PHASE_BUDGETS * (self.budget_ms if self.budget_ms is not None else DEFAULT_BUDGET_MS)

    def search(self, state: BattleState, seed: int, share_ms: float | None = None) -> Suggestions:
        """The ranking of the pending decision at this pilot's budget; ``share_ms``, this
        decision's share of what is left of the round's phase budget, lowers the most it
        may take (never below a quarter of the budget)."""
        if self.iterations is not None:
            return suggest(
                state,
                budget_ms=self.cap_ms,
                iterations=self.iterations,
                seed=seed,
                engine=self.engine,
            )
        budget = self.budget_ms if self.budget_ms is not None else DEFAULT_BUDGET_MS
        least = max(MIN_BUDGET_MS, budget * FLOOR_SHARE)
        most = budget if share_ms is None else max(least, min(budget, share_ms))
        # What is left after the search for the ranking's own work, so that the whole
        # decision, not only its search, ends within the budget on a busy machine.
        most = max(MIN_BUDGET_MS, most - min(RESERVE_MS, RESERVE_SHARE * most))
        return suggest(
            state,
            budget_ms=min(least, most),
            seed=seed,
            max_ms=most,
            engine=self.engine,
        )


def make_pilot(
    spec: str,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    iterations: int | None = None,
    engine: str = DEFAULT_ENGINE,
    cap_ms: float | None = None,
) -> Pilot:
    """The pilot of an agent spec (``make_agent``'s names) at a budget.

    ``mcts`` plays at the budget given (the session's); ``mcts:300ms`` / ``mcts:200it``
    (and an engine suffix, ``mcts:fast``) bring their own. A budget out of the planner's
    bounds is an :class:`AutopilotError` naming it; an unknown agent fails when
    :func:`pilot_agent` makes it."""
    spec = spec.strip()
    words = spec.split(":")[1:] if spec.split(":", 1)[0] == "mcts" else []
    if words and words[-1].lower() in ENGINES:
        engine = words.pop().lower()
    if words:  # the spec's own budget: mcts:300ms, mcts:300, mcts:200it
        arg = words[0].lower()
        try:
            if len(words) > 1:
                raise ValueError(spec)
            if arg.endswith("it"):
                budget_ms, iterations = None, int(arg[:-2])
            else:
                budget_ms, iterations = float(arg.removesuffix("ms")), None
        except ValueError:
            raise AutopilotError(
                _f(
                    "bad planner budget {spec}: use mcts, mcts:300ms (milliseconds a decision) "
                    "or mcts:200it (rollouts a decision)",
                    repr(spec),
                )
            ) from None
    if not _known(spec):
        raise AutopilotError(
            _f(
                "unknown agent {agent} (the autopilot takes: {known})",
                repr(spec),
                ", ".join(("mcts", "mcts:300ms", "mcts:200it", *AGENT_NAMES[:-1], "policy:NAME")),
            )
        )
    try:
        check_budget(
            budget_ms, iterations, _("the autopilot's budget"), _("the autopilot's rollouts")
        )
    except EscaramuzaError as exc:
        raise AutopilotError(str(exc)) from None
    return Pilot(spec or DEFAULT_AGENT, budget_ms, iterations, engine, cap_ms)


def _known(spec: str) -> bool:
    """Whether ``spec`` names an agent ``make_agent`` makes (a policy's path or name is
    checked when it is loaded)."""
    head = spec.split(":", 1)[0]
    return head in ("mcts", "policy") or spec in AGENT_NAMES or spec in TEMPERAMENTS


def pilot_from_meta(
    meta: object, engine: str = DEFAULT_ENGINE, source: str = "<state>"
) -> Pilot | None:
    """The pilot a state file's ``meta.autopilot`` records (None when it has none); a
    malformed one is an :class:`AutopilotError` naming the file, the field and why."""
    if not isinstance(meta, dict):
        return None
    doc = meta.get("autopilot")
    if doc is None:
        return None
    field, problem = "meta.autopilot", None
    if not isinstance(doc, dict) or not isinstance(doc.get("agent"), str):
        problem = _("expected an object with the agent (and its budget)")
    else:
        budget, iterations = doc.get("budget_ms"), doc.get("iterations")
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int | float)):
            field, problem = (
                "meta.autopilot.budget_ms",
                _f("expected a number, not {value}", clip(repr(budget), 40)),
            )
        elif iterations is not None and (
            isinstance(iterations, bool) or not isinstance(iterations, int)
        ):
            field, problem = (
                "meta.autopilot.iterations",
                _f("expected a whole number, not {value}", clip(repr(iterations), 40)),
            )
    try:
        if problem is None:
            return make_pilot(doc["agent"], budget, iterations, engine)
    except AutopilotError as exc:
        problem = str(exc)
    raise AutopilotError(f"{source}: {field}: {problem}")


@dataclass(frozen=True, slots=True)
class AutoDecision:
    """One decision the autopilot took: the action, its row of the ranking, the ranking."""

    action: Action
    row: Suggestion
    ranking: Suggestions
    pilot: Pilot

    @property
    def capped(self) -> bool:
        """Whether the pilot's wall-clock cap cut its iteration budget short."""
        return self.pilot.cap_ms is not None and self.ranking.capped

    def why(self) -> str:
        """The one line said about it: who chose, the side's win chance after it (with
        its interval and rollouts, as ``suggest`` shows it, or where the cap cut the
        search) and the reason."""
        who = self.pilot.agent
        if not self.pilot.is_planner:
            who = _f("{agent}'s choice", who)
        if not self.row.visits:
            return _f("autopilot ({who}): {reason}", who, self.row.reason)
        line = _f(
            "autopilot ({who}): win {win}% ({low}–{high}%), {n} rollouts; {reason}",
            who,
            format(self.row.win * 100, ".0f"),
            format(self.row.win_low * 100, ".0f"),
            format(self.row.win_high * 100, ".0f"),
            self.row.visits,
            self.row.reason,
        )
        if self.capped:
            # The row's rollouts are its own; where the cap cut the whole search is said
            # after (the budget is of the search's rollouts, every action's together).
            assert self.pilot.cap_ms is not None
            line = _f("{line} ({stopped})", line, self.ranking.capped_text(self.pilot.cap_ms))
        return line


def decide(
    state: BattleState,
    pilot: Pilot,
    agent: Agent | None,
    seed: int,
    share_ms: float | None = None,
) -> AutoDecision:
    """The pilot's decision for the pending decision of ``state`` (an enemy's).

    ``agent`` is the pilot's agent (:func:`pilot_agent`; None for the planner), asked with
    ``random.Random(seed)``; the search is seeded with ``seed`` too, as the session's
    ``suggest`` is at the same step. ``share_ms``: see :meth:`Pilot.search`."""
    ranking = pilot.search(state, seed, share_ms)
    if agent is None:
        row = ranking.best
        return AutoDecision(row.action, row, ranking, pilot)
    action = agent.act(state, random.Random(seed))
    row = next(r for r in ranking.items if action == r.action or action in r.twins)
    return AutoDecision(action, row, ranking, pilot)


def pilot_agent(pilot: Pilot, trust_policy: bool = False) -> Agent | None:
    """The agent object of a pilot that is not the planner (None for the planner); an
    unknown spec is an error that lists the known ones (``make_agent``)."""
    if pilot.is_planner:
        return None
    return make_agent(pilot.agent, trust_policy=trust_policy)


def phase_position(state: BattleState) -> tuple[int, int] | None:
    """Where the pending enemy stands among the enemies of the round: (k, n) for "enemy
    turn k of n", by the initiative order; None where the ruleset keeps no order."""
    pending = state.pending
    if pending is None or not state.order or pending.actor not in state.order:
        return None
    enemies = [
        cid
        for cid in state.order
        if cid in state.by_id and state.by_id[cid].side is AUTO_SIDE and state.by_id[cid].active
    ]
    if pending.actor not in enemies:
        return None
    return enemies.index(pending.actor) + 1, len(enemies)


def decisions_left(state: BattleState) -> int:
    """The enemy decisions the round still holds, as the phase budget counts them: the
    turns of the active enemies from the pending one on in the initiative order (every
    active enemy where the ruleset keeps none), :data:`DECISIONS_PER_TURN` each."""
    active = [c.id for c in state.combatants if c.side is AUTO_SIDE and c.active]
    turns = len(active)
    if state.order and state.turn >= 0:
        later = state.order[state.turn :]
        turns = sum(1 for cid in later if cid in active)
    return max(1, turns) * DECISIONS_PER_TURN


class ProgressLine:
    """A line on stderr, redrawn in place, that says what the autopilot is doing — only on a
    terminal and never under ``--no-progress`` (:func:`escaramuza.progress.shows`), so a
    transcript or a pipe holds only the narration."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = shows(True, self.stream)
        self.started = time.monotonic()
        self._width = 0

    def show(self, state: BattleState, done: int) -> None:
        if not self.enabled or state.pending is None:
            return
        actor = state.by_id[state.pending.actor]
        where = phase_position(state)
        place = (
            _f("enemy turn {k} of {n}", where[0], where[1])
            if where is not None
            else _f("decision {n}", done + 1)
        )
        text = _f(
            "autopilot: round {round}, {place} — {name} decides ({decision}); {seconds} s",
            state.round,
            place,
            actor.name,
            word(state.pending.name),
            format(time.monotonic() - self.started, ".1f"),
        )
        self.stream.write("\r" + text.ljust(self._width))
        self.stream.flush()
        self._width = len(text)

    def clear(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
