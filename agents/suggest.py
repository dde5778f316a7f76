"""Ranked suggestions for the game master: ``suggest(state)``.

For the pending decision's combatant, every legal action is ranked by its win
chance, paired over the shared dice of an MCTS race search
(:mod:`escaramuza.agents.search`, :func:`~escaramuza.agents.search.rank`; issue
22). The actions the paired test cannot tell from the best form a tie group,
"too close to call", led by the in-character pick; the search goes on past its
budget, up to a maximum, while the best is not clear. Each action is annotated
with numbers a GM can check against the rulebook:

* the estimated chance its side wins after taking it, with a 95 % Wilson
  interval from the rollout counts, and the number of rollouts;
* the exact chance to hit, expected damage and chance to drop the target from
  :meth:`Ruleset.odds` ("—" when the ruleset has no exact helper for it);
* the risk to the actor: the fraction of rollouts in which it is knocked out
  (or its side beaten) before its next turn;
* a one-line reason in plain words;
* which action its temperament would pick (:class:`HeuristicAgent` with the
  scenario temperament), so "optimal" and "in character" sit side by side;
* with ``policy=`` (a trained ``policy:PATH`` agent), the policy's probability of
  each action, as an extra column: a second opinion beside the search.

Only the pending decision can be ranked: the engine knows the dice and turn
order only up to it. Asking for another combatant raises a
:class:`SuggestError` that names who is pending (see docs/gm.md).
"""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass
from typing import Any, Protocol

from escaramuza.agents.fast import DEFAULT_ENGINE, machine_threads
from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.agents.search import (
    DEFAULT_Z,
    IDENTICAL_SHARED,
    MAX_BUDGET_MS,
    MCTS,
    MIN_BUDGET_MS,
    MIN_SHARED,
    Paired,
    Ranking,
    health_key,
)
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import N_, _, _f, either, ngettext, word
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.ruleset import Odds
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.core.stats import wilson_interval as wilson

#: Default search time of a suggestion: under the 1 s latency target with room for
#: the odds, the heuristic pick and printing.
DEFAULT_BUDGET_MS = 800.0
#: Of a time budget, what the table after the search may take (odds, reasons, the
#: ranking: a few ms on the largest battles): the search stops this much earlier, so
#: that the whole suggestion, not only its search, ends within the budget.
TABLE_RESERVE_MS = 10.0
TABLE_RESERVE_SHARE = 0.02
#: Default maximum of ``escaramuza suggest`` and ``gm`` (``--max-ms``): a search that
#: is still too close to call at its budget goes on up to this many milliseconds. A
#: few seconds: long enough for some 300 rollouts of a big battle, short enough to
#: wait for at the table.
DEFAULT_MAX_MS = 3000.0
#: Default seed of a suggestion's search, so the same state prints the same table
#: when an iteration budget is used.
DEFAULT_SEED = 0
#: Version of the ``--json`` document (docs/gm.md, "suggest JSON").
#: Version 2: rows ranked by value, ``win_estimate``, ``tied_with_best``,
#: ``gap_to_best``, the top-level ``verdict`` / ``best`` / ``runner_up`` / ``gap`` and the
#: search's ``max_ms``, ``max_iterations``, ``stopped``, ``z`` and ``min_shared``.
JSON_VERSION = 2
#: The columns of the suggestion table (a terminal's width); ``--wide``: no limit.
TABLE_WIDTH = 100
#: What the table's head says about why the search stopped (keys: ``STOP_REASONS``).
STOPPED_TEXT = {
    "clear": N_("stopped: clear"),
    "identical": N_(
        "stopped: the leading actions scored the same on each of {shared}+ shared rollouts "
        "(so within ±1 point)"
    ),
    "budget": N_("stopped at the budget"),
    "max_time": N_("stopped at the {max_ms:g} ms maximum, still too close to call"),
    "max_iterations": N_(
        "stopped at the {max_iterations}-rollout maximum, still too close to call"
    ),
    "single_action": N_("the only legal action: nothing to search"),
    "symmetric": N_("every legal action is the same by symmetry: nothing to search"),
}


class SuggestError(EscaramuzaError):
    """A suggestion that cannot be made (finished battle, actor not pending…)."""


class ProbabilityAgent(Protocol):
    """An agent that gives a probability to each legal action (``PolicyAgent``)."""

    name: str

    def action_probabilities(self, state: BattleState) -> list[tuple[Action, float]]: ...


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One ranked legal action with its numbers."""

    rank: int
    action: Action
    text: str
    visits: int
    win: float
    win_low: float
    win_high: float
    value: float
    odds: Odds | None
    risk: float
    reason: str
    in_character: bool
    #: The policy's probability of this action (``suggest(policy=…)``); None without one.
    policy_probability: float | None = None
    #: The win chance paired over the best's dice (the ranking's key); None: not searched.
    estimate: float | None = None
    #: In the "too close to call" group (only when the verdict is too close).
    tied_with_best: bool = False
    #: The best's win chance minus this action's over the rollouts they share, and the
    #: paired interval at ``z`` (None for the best and for an action never searched).
    gap: Paired | None = None
    gap_interval: tuple[float, float] | None = None
    #: The legal actions this row stands for besides its own, equal to it by symmetry
    #: (the same foe twice: :mod:`escaramuza.rules.core.symmetry`); its numbers are theirs.
    twins: tuple[Action, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        odds = self.odds
        out: dict[str, Any] = {
            "rank": self.rank,
            "action": self.action.to_dict(),
            "text": self.text,
            "visits": self.visits,
            "win_probability": round(self.win, 4),
            "win_interval": [round(self.win_low, 4), round(self.win_high, 4)],
            "value": round(self.value, 4),
            "p_hit": None if odds is None else round(odds.p_hit, 4),
            "expected_damage": None if odds is None else round(odds.expected_damage, 4),
            "p_drop": None if odds is None else round(odds.p_drop, 4),
            "risk": round(self.risk, 4),
            "reason": self.reason,
            "in_character": self.in_character,
            "win_estimate": None if self.estimate is None else round(self.estimate, 4),
            "tied_with_best": self.tied_with_best,
            "gap_to_best": _gap_dict(self.gap, self.gap_interval),
            "twins": [a.to_dict() for a in self.twins],
        }
        if self.policy_probability is not None:
            # Only with a policy, so version-1 documents without one keep their keys.
            out["policy_probability"] = round(self.policy_probability, 4)
        return out


@dataclass(frozen=True, slots=True)
class Suggestions:
    """The ranking of one decision, with what the search did."""

    scenario: str
    ruleset: str
    round: int
    actor: str
    actor_name: str
    side: str
    decision: str
    temperament: str
    in_character: Action
    items: tuple[Suggestion, ...]
    iterations: int
    elapsed_ms: float
    budget_ms: float | None
    budget_iterations: int | None
    seed: int | None
    odds_available: bool
    #: Name of the policy whose probabilities fill ``policy_probability`` (or None).
    policy: str | None = None
    #: ``"clear"`` or ``"too_close"`` (:attr:`Ranking.verdict`).
    verdict: str = "clear"
    #: The highest win chance, and the other action least separated from it.
    best_action: Action | None = None
    runner_up: Action | None = None
    #: The best minus the runner-up over their shared rollouts, and its paired interval.
    gap: Paired | None = None
    gap_interval: tuple[float, float] | None = None
    max_ms: float | None = None
    max_iterations: int | None = None
    #: Why the search stopped (``escaramuza.agents.search.STOP_REASONS``).
    stopped: str = "budget"
    z: float = DEFAULT_Z
    min_shared: int = MIN_SHARED
    #: Which engine played the rollouts (``"fast"`` / ``"reference"``) and, when
    #: ``engine="auto"`` fell back to the reference engine, why (docs/fast-path.md).
    engine: str = "reference"
    engine_refusal: str | None = None

    @property
    def best(self) -> Suggestion:
        """The first row: the best, or the in-character pick when it is too close to call."""
        return self.items[0]

    @property
    def tie_group(self) -> tuple[Suggestion, ...]:
        return tuple(s for s in self.items if s.tied_with_best)

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "format": "escaramuza-suggestions",
            "version": JSON_VERSION,
            "scenario": self.scenario,
            "ruleset": self.ruleset,
            "round": self.round,
            "actor": self.actor,
            "side": self.side,
            "decision": self.decision,
            "temperament": self.temperament,
            "in_character": self.in_character.to_dict(),
            "search": {
                "iterations": self.iterations,
                "elapsed_ms": round(self.elapsed_ms, 1),
                "budget_ms": self.budget_ms,
                "budget_iterations": self.budget_iterations,
                "max_ms": self.max_ms,
                "max_iterations": self.max_iterations,
                "stopped": self.stopped,
                "seed": self.seed,
                "z": self.z,
                "min_shared": self.min_shared,
                "engine": self.engine,
                "engine_refusal": self.engine_refusal,
            },
            "verdict": self.verdict,
            "best": None if self.best_action is None else self.best_action.to_dict(),
            "runner_up": None if self.runner_up is None else self.runner_up.to_dict(),
            "gap": _gap_dict(self.gap, self.gap_interval),
            "odds_available": self.odds_available,
            "suggestions": [s.to_dict() for s in self.items],
        }
        if self.policy is not None:
            doc["policy"] = self.policy
        return doc

    def stopped_text(self) -> str:
        """Why the search stopped, in words (:data:`STOPPED_TEXT`)."""
        return _(STOPPED_TEXT[self.stopped]).format(
            max_ms=self.max_ms or 0.0,
            max_iterations=self.max_iterations or 0,
            shared=IDENTICAL_SHARED,
        )

    def verdict_text(self) -> str:
        """The verdict in one line: the tie group's "too close to call" line, or how
        clearly the best leads, with the paired interval of its gap over the runner-up."""
        if self.runner_up is None or self.gap is None or self.gap_interval is None:
            if self.stopped == "symmetric":
                return _("clear: every legal action is the same by symmetry")
            return _("clear: the only legal action")
        low, high = self.gap_interval
        best, runner = self.place(self.best_action), self.place(self.runner_up)
        lead = (
            _f(
                "{best} (highest win chance) leads {runner} by {points}",
                best,
                runner,
                _points(self.gap.gain),
            )
            if self.gap.gain > 0
            else _f("{best} (highest win chance) and {runner} are level", best, runner)
        )
        shared = ngettext("{n} shared rollout", "{n} shared rollouts", self.gap.n).format(
            n=self.gap.n
        )
        if self.gap.n < self.min_shared:
            shared += _f(", fewer than the {n} the test needs", self.min_shared)
        gap = _f(
            "{lead} on the same dice: paired interval {low} to {high} points at z = {z}, {shared}",
            lead,
            _signed(low),
            _signed(high),
            format(self.z, "g"),
            shared,
        )
        if self.verdict == "clear":
            return _f("clear: {gap}", gap)
        return _f("too close to call: any of these; {gap}", gap)

    def place(self, action: Action | None) -> str:
        """``#rank (its action)`` of ``action`` in this table: the verdict names the row
        it speaks of, wherever it is drawn."""
        row = next((s for s in self.items if s.action == action), None)
        return f"#{row.rank} {row.text.rstrip('.')}" if row is not None else "—"

    def _rows(self) -> list[list[str]]:
        """The table's cells: the header, then one row per action (rank and mark,
        action, the numbers, the reason)."""
        policy = self.policy is not None
        numbers = [_("WIN % (95% CI)"), _("ROLLOUTS"), _("HIT"), _("E[DMG]"), _("DROP")]
        numbers += [_("RISK"), _("POLICY")] if policy else [_("RISK")]
        rows = [["#", _("ACTION"), *numbers, _("WHY")]]
        for s in self.items:
            mark = "*" if s.in_character else " "
            row = [
                f"{s.rank}{mark}",
                s.text,
                f"{s.win * 100:3.0f} ({s.win_low * 100:.0f}–{s.win_high * 100:.0f})"
                if s.visits
                else "—",
                str(s.visits),
                _pct(s.odds.p_hit if s.odds else None),
                "—" if s.odds is None else f"{s.odds.expected_damage:.1f}",
                _pct(s.odds.p_drop if s.odds else None),
                _pct(s.risk),
            ]
            if policy:
                row.append(_pct(s.policy_probability))
            rows.append([*row, s.reason])
        return rows

    def _legend(self) -> list[str]:
        """The paragraphs under the table: what the mark and the columns mean."""
        legend = [
            _f(
                "* = in character: what a {temperament} {actor} would do. WIN = chance the "
                "side wins (its rollouts); rows are ranked by the win chance paired over the "
                "shared dice, and actions the paired test (z = {z}) cannot tell from the best "
                "are too close to call. RISK = chance the actor is out before its next turn.",
                word(self.temperament),
                self.actor_name,
                format(self.z, "g"),
            )
        ]
        if not self.odds_available:
            # None for every action here: either no action of this decision is an attack
            # (moves, helps, heals) or the ruleset gives no exact odds for them.
            legend.append(
                _f(
                    "HIT / E[DMG] / DROP: — (no {ruleset} action here has exact odds: "
                    "they exist for attacks only).",
                    self.ruleset,
                )
            )
        else:
            legend.append(_("HIT / E[DMG] / DROP: exact, from the ruleset; — for non-attacks."))
        if self.policy is not None:
            legend.append(_f("POLICY = the probability {policy} gives the action.", self.policy))
        return legend

    def table(self, width: int | None = TABLE_WIDTH) -> str:
        """The ranking as a fixed-width table a GM can read at the table.

        The tie group (too close to call) is drawn as one block under its own line,
        the in-character pick first; the rows below it are separated from the best.
        Within ``width`` columns (default :data:`TABLE_WIDTH`, a terminal's): each row's
        numbers, then its action, and its reason on an indented line below; ``width``
        None draws each row on one line, reason last (``--wide``)."""
        head = _f(
            "Round {round} — {actor} ({side}, {decision}); search: {n} rollouts in {ms} ms "
            "({engine} engine), {stopped}",
            self.round,
            self.actor_name,
            word(self.side),
            word(self.decision),
            self.iterations,
            format(self.elapsed_ms, ".0f"),
            word(self.engine),
            self.stopped_text(),
        )
        rows = self._rows()
        n = len(rows[0]) - 1  # every column but WHY
        widths = [max(len(r[i]) for r in rows) for i in range(n)]
        group = len(self.tie_group)

        def cells(r: list[str]) -> list[str]:
            """The rank and the numbers, aligned (the win chance left, the rest right)."""
            out = [r[0].rjust(widths[0]), r[2].ljust(widths[2])]
            return out + [r[i].rjust(widths[i]) for i in range(3, n)]

        def wrap(text: str, gutter: str, indent: str = "") -> list[str]:
            if width is None:
                return [(gutter + indent + text).rstrip()]
            room = max(width - len(gutter) - len(indent), 20)
            return [(gutter + indent + part).rstrip() for part in textwrap.wrap(text, room)]

        def row_lines(r: list[str], gutter: str) -> list[str]:
            if width is None:  # one line: rank, action, numbers, reason
                line = [r[0].rjust(widths[0]), r[1].ljust(widths[1]), r[2].ljust(widths[2])]
                line += [r[i].rjust(widths[i]) for i in range(3, n)]
                return [(gutter + "  ".join([*line, r[n]])).rstrip()]
            lead = "  ".join(cells(r)) + "  "
            # The action after the numbers, wrapped under itself; the reason below.
            first, *more = textwrap.wrap(r[1], max(width - len(gutter) - len(lead), 20)) or [""]
            out = [(gutter + lead + first).rstrip()]
            out += [(gutter + " " * len(lead) + part).rstrip() for part in more]
            if r is not rows[0]:
                out += wrap(r[n], gutter, " " * (widths[0] + 2))
            return out

        lines = wrap(head, "")
        if self.engine_refusal:
            # Why the search ran on the (slower) engine: a GM's edit the kernel cannot
            # resume, say. The reason is the kernel's own message (docs/translating.md).
            lines += wrap(
                _f("(the compiled kernel was not used: {reason})", self.engine_refusal), ""
            )
        lines.append("")
        lines += row_lines(rows[0], "  ")
        if group:
            verdict = wrap(self.verdict_text(), "│ ")
            lines += ["┌" + verdict[0][1:], *verdict[1:]]
        for i, r in enumerate(rows[1:]):
            lines += row_lines(r, "│ " if i < group else "  ")
            if i == group - 1:
                lines.append("└")
        lines.append("")
        if not group:
            lines += wrap(self.verdict_text() + ".", "")
        legend = self._legend()
        for text in legend:
            lines += wrap(text, "")
        return "\n".join(lines)


def _points(gap: float) -> str:
    """A win-chance gap in points (percentage points), never "0 points" for a real gap."""
    pts = round(abs(gap) * 100)
    if pts == 0:
        return _("<1 point") if gap else _("0 points")
    return ngettext("{n} point", "{n} points", pts).format(n=pts)


def _signed(x: float) -> str:
    """Points with their sign; a gap that rounds to zero is "+0", never "−0"."""
    points = round(x * 100)
    return f"{points:+d}".replace("-", "−")


def _gap_dict(gap: Paired | None, interval: tuple[float, float] | None) -> dict[str, Any] | None:
    if gap is None or interval is None:
        return None
    return {
        "n": gap.n,
        "mean": round(gap.gain, 4),
        "interval": [round(interval[0], 4), round(interval[1], 4)],
    }


def _pct(p: float | None) -> str:
    return "—" if p is None else f"{p * 100:.0f}%"


def _search_ms(ms: float | None) -> float | None:
    """The search's share of a time budget ``ms``: less the table's reserve (the smaller
    of :data:`TABLE_RESERVE_MS` and :data:`TABLE_RESERVE_SHARE` of it), never below the
    planner's minimum. A value out of the planner's range (NaN included) is passed on
    as it is, to be refused with the planner's message."""
    if ms is None or not MIN_BUDGET_MS <= ms <= MAX_BUDGET_MS:
        return ms
    return max(MIN_BUDGET_MS, ms - min(TABLE_RESERVE_MS, TABLE_RESERVE_SHARE * ms))


def suggest(
    state: BattleState,
    actor: str | None = None,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    iterations: int | None = None,
    seed: int | None = DEFAULT_SEED,
    policy: ProbabilityAgent | str | None = None,
    *,
    max_ms: float | None = None,
    max_iterations: int | None = None,
    z: float = DEFAULT_Z,
    engine: str = DEFAULT_ENGINE,
    threads: int | None = None,
) -> Suggestions:
    """Rank the legal actions of the pending decision (see the module docstring).

    ``actor`` None means the pending decision's actor; any other id must be the
    pending one. ``budget_ms`` / ``iterations`` is the search's target; a search
    still too close to call there goes on up to ``max_ms`` (a time budget only) or
    ``max_iterations`` (an iteration budget), and stops as soon as the best is clear.
    The target itself is always used whole (narrower intervals), unless every tied
    action scored the same on each of ``IDENTICAL_SHARED`` shared rollouts (``"identical"``).
    With ``iterations`` (and ``budget_ms`` None) the ranking is reproducible for a
    given ``seed``, with or without ``max_iterations``. ``policy`` (a ``PolicyAgent``
    or its spec, ``policy:PATH`` or just ``PATH``/a shipped policy name) fills each
    suggestion's ``policy_probability``; a policy trained for another ruleset or
    sizes is an :class:`EscaramuzaError` naming it. ``engine`` is where the rollouts
    run (``auto``: the ruleset's kernel when it takes the state; docs/fast-path.md): the
    same iteration budget gives the same ranking on either. ``threads`` (default: the
    cores this process may use) split each kernel batch; the ranking of an iteration
    budget does not depend on it, a time budget buys more rollouts with more cores.
    """
    pending = state.pending
    if state.outcome is not None or pending is None:
        raise SuggestError("the battle is over: there is nothing to suggest")
    if actor is not None and actor != pending.actor:
        state.get(actor)  # an unknown id is reported as such, with the known ids
        who = state.by_id[pending.actor]
        raise SuggestError(
            f"{actor!r} is not the one deciding: the pending decision is {who.id} "
            f"({who.name}, {pending.name}). Only the pending decision can be ranked exactly, "
            "because the dice and turns before it are unknown; apply decisions until "
            f"{actor} acts (escaramuza gm) and ask again"
        )
    if max_ms is not None and iterations is not None:
        # A wall-clock maximum would make an iteration budget's ranking machine-dependent.
        raise SuggestError(
            "a maximum in milliseconds extends a time budget only: with an iteration budget "
            "the ranking is reproducible (use a maximum of iterations)"
        )
    # Before the search: a policy that does not fit this battle fails at once.
    agent = load_policy(policy) if policy is not None else None
    by_policy = dict(agent.action_probabilities(state)) if agent is not None else None
    if max_ms is not None and budget_ms is not None:
        max_ms = max(max_ms, budget_ms)
    # A race at the root (every action on the same dice, see agents/search/), rollouts played
    # to the end so that WIN is a frequency of wins, and no tree below the root: every
    # action is followed by the same in-character play, so the paired differences
    # measure the action alone.
    planner = MCTS(
        iterations=iterations,
        budget_ms=_search_ms(budget_ms),
        expand_after=None,
        root="race",
        metric="win",
        z=z,
        max_ms=_search_ms(max_ms),
        max_iterations=max_iterations,
        engine=engine,
        threads=machine_threads() if threads is None else threads,
        merge_twins=True,
    )
    rng = random.Random(seed)
    result = planner.search(state, rng)
    c = state.by_id[pending.actor]
    in_char = heuristic_choice(state, result.actions, random.Random(seed))
    ranking = result.ranking(z, "win", in_char)
    too_close = ranking.verdict == "too_close"
    items: list[Suggestion] = []
    any_odds = False
    # The distinct choices: the legal actions, twins counted once.
    choices = len(result.actions) - sum(len(t) for t in result.twins.values())
    for rank, action in enumerate(ranking.order, start=1):
        node = result.child(action)
        twins = result.twins.get(action, ())
        odds = state.ruleset.odds(state, action)
        any_odds = any_odds or odds is not None
        win = node.wins / node.visits if node.visits else 0.0
        low, high = wilson(node.wins, node.visits)
        risk = node.knocked_out / node.visits if node.visits else 0.0
        gap = ranking.gap[action] if action != ranking.best and node.visits else None
        items.append(
            Suggestion(
                rank,
                action,
                twin_text(state, action, twins),
                node.visits,
                win,
                low,
                high,
                node.mean,
                odds,
                risk,
                reason(state, action, odds, ranking, risk, choices, len(twins)),
                action == in_char or in_char in twins,
                None if by_policy is None else sum(by_policy.get(a, 0.0) for a in (action, *twins)),
                ranking.estimate.get(action),
                too_close and action in ranking.tied,
                gap,
                None if gap is None else ranking.interval(action),
                twins,
            )
        )
    runner = ranking.runner_up
    runner_gap = ranking.gap[runner] if runner is not None else None
    return Suggestions(
        scenario=state.scenario.name,
        ruleset=state.ruleset.id,
        round=state.round,
        actor=c.id,
        actor_name=c.name,
        side=c.side.value,
        decision=pending.name,
        temperament=c.temperament,
        in_character=in_char,
        items=tuple(items),
        iterations=result.iterations,
        elapsed_ms=result.elapsed_ms,
        budget_ms=budget_ms,
        budget_iterations=iterations,
        seed=seed,
        odds_available=any_odds,
        policy=None if agent is None else agent.name,
        verdict=ranking.verdict,
        best_action=ranking.best,
        runner_up=runner,
        gap=runner_gap,
        gap_interval=None if runner is None else ranking.interval(runner),
        max_ms=max_ms,
        max_iterations=max_iterations,
        stopped=result.stopped,
        z=z,
        min_shared=ranking.min_shared,
        engine=result.engine,
        engine_refusal=result.engine_refusal,
    )


def twin_text(state: BattleState, action: Action, twins: tuple[Action, ...]) -> str:
    """The action in words, naming every target it stands for: "Ilse attacks Lancero 1
    or Lancero 2 with arco largo." (the targets' names joined where the first stands)."""
    text = state.ruleset.describe_choice(state, action)
    names = [state.by_id[a.target].name for a in (action, *twins) if a.target in state.by_id]
    if not twins or len(names) != 1 + len(twins) or text.count(names[0]) != 1:
        if twins:  # no single target name to widen: say it after the sentence
            return _f("{action} (the same as {n} more, by symmetry)", text, len(twins))
        return text
    joined = either(names)
    return text.replace(names[0], joined, 1)


def load_policy(policy: ProbabilityAgent | str, trust: bool = False) -> ProbabilityAgent:
    """The policy agent of ``suggest(policy=…)``: an object, or a spec string (loaded
    with ``--trust-policy`` when ``trust``)."""
    if isinstance(policy, str):
        from escaramuza.agents import make_agent

        spec = policy if policy.startswith("policy:") else f"policy:{policy}"
        policy = make_agent(spec, trust_policy=trust)  # type: ignore[assignment]
    if not callable(getattr(policy, "action_probabilities", None)):
        name = getattr(policy, "name", type(policy).__name__)
        raise SuggestError(
            f"{name} gives no action probabilities: --policy takes a trained policy "
            "(policy:PATH or a shipped policy name such as destiny_dice/emboscada)"
        )
    return policy  # type: ignore[return-value]


def reason(
    state: BattleState,
    action: Action,
    odds: Odds | None,
    ranking: Ranking,
    risk: float,
    legal: int = 2,
    twins: int = 0,
) -> str:
    """One line in plain words: the action's strongest point, then its place in the
    ranking — what the paired test says of it against the best — then its risk.
    ``legal`` counts the distinct choices; ``twins`` the actions equal to this one by
    symmetry."""
    parts: list[str] = []
    target = state.by_id[action.target] if action.target in state.by_id else None
    if odds is not None and target is not None:
        key = health_key(state)
        left = target.resources.get(key, 0)
        if odds.p_drop >= 0.15:
            parts.append(
                _f(
                    "{p} to drop {t} ({left} {key} left)",
                    format(odds.p_drop, ".0%"),
                    target.name,
                    left,
                    key,
                )
            )
        else:
            parts.append(
                _f(
                    "{p} to hit {t} for ~{dmg}",
                    format(odds.p_hit, ".0%"),
                    target.name,
                    format(odds.expected_damage, ".1f"),
                )
            )
    elif action.zone is not None:
        parts.append(_move_reason(state, action))
    elif target is not None:
        ally = target.side is state.by_id[action.actor].side
        parts.append(_f("supports {t}", target.name) if ally else _f("acts on {t}", target.name))
    parts.append(standing(action, ranking, legal, twins))
    if risk >= 0.3:
        parts.append(_f("{p} risk of being taken out", format(risk, ".0%")))
    return "; ".join(parts)


def standing(action: Action, ranking: Ranking, legal: int = 2, twins: int = 0) -> str:
    """The search's verdict on ``action``, agreeing with its place in ``ranking``:
    "N points below the best" is the best's paired gain over it on the shared dice,
    which is also the difference of their estimates (the ranking's key)."""
    if legal == 1:
        if twins:
            return _("the only choice: the other legal actions are the same by symmetry")
        return _("the only legal action")
    if action not in ranking.estimate:
        return _("not searched (budget too small)")
    if action == ranking.best:
        if ranking.verdict == "clear":
            return _("highest win chance, clear of the rest on the same dice")
        return _("highest win chance found, too close to call")
    gain = ranking.gap[action].gain
    if action in ranking.tied:
        if gain <= 0:
            return _("as good as the best on the same dice, too close to call")
        return _f("{points} below the best on the same dice, too close to call", _points(gain))
    return _f("{points} below the best on the same dice", _points(gain))


def _move_reason(state: BattleState, action: Action) -> str:
    actor = state.by_id[action.actor]
    zone = str(action.zone)
    bf = state.battlefield
    foes = [c for c in state.combatants if c.active and c.side is not actor.side]
    cover = bf.zones[zone].cover if zone in bf.zones else 0
    text = _f("to {zone}", bf.zones[zone].name if zone in bf.zones else zone)
    if foes and zone in bf.zones:
        near = min(bf.distance(zone, f.zone) for f in foes)
        before = min(bf.distance(actor.zone, f.zone) for f in foes)
        if near == 0 and before > 0:
            text += _(", where the foes are")
        elif near < before:
            text += ngettext(
                ", closer to the foes ({n} zone)", ", closer to the foes ({n} zones)", near
            ).format(n=near)
        elif near > before:
            text += ngettext(
                ", away from the foes ({n} zone)", ", away from the foes ({n} zones)", near
            ).format(n=near)
    if cover:
        text += _f(", cover {cover}", cover)
    return text
