"""The ranked suggestions of one decision and how a game master reads them: each row
(:class:`Suggestion`), the whole ranking (:class:`Suggestions`), its ``--json`` document
(:data:`JSON_VERSION`) and the fixed-width table with its verdict and legend."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

from escaramuza.agents.search import DEFAULT_Z, IDENTICAL_SHARED, MIN_SHARED, Paired
from escaramuza.rules.core.i18n import N_, _, _f, ngettext, word
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.ruleset import Odds

#: Version of the ``--json`` document (docs/gm.md, "--json schema").
#: Version 2: rows ranked by value, ``win_estimate``, ``tied_with_best``,
#: ``gap_to_best``, the top-level ``verdict`` / ``best`` / ``runner_up`` / ``gap`` and the
#: search's ``max_ms``, ``max_iterations``, ``stopped``, ``z`` and ``min_shared``.
#: Version 3: a row the search never reached (``visits`` 0) has ``win_probability``,
#: ``value`` and ``risk`` null, not 0.
JSON_VERSION = 3
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
        # An action never searched (``visits`` 0) has no win chance, value or risk: null,
        # not a 0 that no rollout measured.
        searched = self.visits > 0
        out: dict[str, Any] = {
            "rank": self.rank,
            "action": self.action.to_dict(),
            "text": self.text,
            "visits": self.visits,
            "win_probability": round(self.win, 4) if searched else None,
            "win_interval": [round(self.win_low, 4), round(self.win_high, 4)],
            "value": round(self.value, 4) if searched else None,
            "p_hit": None if odds is None else round(odds.p_hit, 4),
            "expected_damage": None if odds is None else round(odds.expected_damage, 4),
            "p_drop": None if odds is None else round(odds.p_drop, 4),
            "risk": round(self.risk, 4) if searched else None,
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

    def cells(self) -> dict[str, str]:
        """The row's numbers as a GM reads them, in the table and on the web page alike:
        percentages rounded once, from the search's own numbers (not again from the JSON
        document's four decimals, which would make 17 of 103 wins, 16.50 %, a 16); "—"
        where there is none (an action never searched, the odds of a non-attack)."""
        odds = self.odds
        searched = self.visits > 0
        return {
            "win": format(self.win * 100, ".0f") if searched else "—",
            "low": format(self.win_low * 100, ".0f") if searched else "—",
            "high": format(self.win_high * 100, ".0f") if searched else "—",
            "hit": _pct(odds.p_hit if odds else None),
            "damage": "—" if odds is None else f"{odds.expected_damage:.1f}",
            "drop": _pct(odds.p_drop if odds else None),
            "risk": _pct(self.risk if searched else None),
        }


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

    @property
    def capped(self) -> bool:
        """Whether a wall-clock cap stopped an iteration budget before its rollouts: only
        a cap ends one early with "budget" or "clear" ("identical", "single_action" and
        "symmetric" end it for what the dice showed)."""
        budget = self.budget_iterations
        return (
            budget is not None and self.iterations < budget and self.stopped in ("budget", "clear")
        )

    def capped_text(self, cap_ms: float) -> str:
        """Why a capped search stopped, in words (``cap_ms``: the cap)."""
        return _f(
            "stopped early: time cap ({ms} ms on this server) after {n} of {budget} rollouts",
            format(cap_ms, "g"),
            self.iterations,
            self.budget_iterations,
        )

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
            c = s.cells()
            row = [
                f"{s.rank}{mark}",
                s.text,
                f"{c['win']:>3} ({c['low']}–{c['high']})" if s.visits else "—",
                str(s.visits),
                c["hit"],
                c["damage"],
                c["drop"],
                c["risk"],
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
