"""Ranked suggestions for the game master: ``suggest(state)`` (issue 8, item 2).

For the pending decision's combatant, every legal action is ranked by an MCTS
search (:mod:`escaramuza.agents.search`) and annotated with numbers a GM can
check against the rulebook:

* the estimated chance its side wins after taking it, with a 95 % Wilson
  interval from the rollout counts;
* the exact chance to hit, expected damage and chance to drop the target from
  :meth:`Ruleset.odds` ("—" when the ruleset has no exact helper for it);
* the risk to the actor: the fraction of rollouts in which it is knocked out
  (or its side beaten) before its next turn;
* a one-line reason in plain words;
* which action its temperament would pick (:class:`HeuristicAgent` with the
  scenario temperament), so "optimal" and "in character" sit side by side;
* with ``policy=`` (a trained ``policy:PATH`` agent), the policy's probability of
  each action — issue 9: "as an extra column in ``suggest``: the policy's
  probability for each action", a second opinion beside the search.

Only the pending decision can be ranked: the engine knows the dice and turn
order only up to it. Asking for another combatant raises a
:class:`SuggestError` that names who is pending (see docs/gm.md).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Protocol

from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.agents.search import MCTS, SearchResult, health_key
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.ruleset import Odds
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.core.stats import wilson_interval as wilson

#: Default search time of a suggestion: under the 1 s latency target with room for
#: the odds, the heuristic pick and printing (issue 8: "an answer in about a second").
DEFAULT_BUDGET_MS = 800.0
#: Default seed of a suggestion's search, so the same state prints the same table
#: when an iteration budget is used.
DEFAULT_SEED = 0
#: Version of the ``--json`` document (docs/gm.md, "suggest JSON").
JSON_VERSION = 1


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

    @property
    def best(self) -> Suggestion:
        return self.items[0]

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
                "seed": self.seed,
            },
            "odds_available": self.odds_available,
            "suggestions": [s.to_dict() for s in self.items],
        }
        if self.policy is not None:
            doc["policy"] = self.policy
        return doc

    def table(self) -> str:
        """The ranking as a fixed-width table a GM can read at the table."""
        head = (
            f"Round {self.round} — {self.actor_name} ({self.side}, {self.decision}); "
            f"search: {self.iterations} rollouts in {self.elapsed_ms:.0f} ms"
        )
        policy = self.policy is not None
        header = ["#", "ACTION", "WIN % (95% CI)", "HIT", "E[DMG]", "DROP", "RISK"]
        rows = [[*header, "POLICY", "WHY"] if policy else [*header, "WHY"]]
        for s in self.items:
            mark = "*" if s.in_character else " "
            row = [
                f"{s.rank}{mark}",
                s.text,
                f"{s.win * 100:3.0f} ({s.win_low * 100:.0f}–{s.win_high * 100:.0f})"
                if s.visits
                else "  — (not searched)",
                _pct(s.odds.p_hit if s.odds else None),
                "—" if s.odds is None else f"{s.odds.expected_damage:.1f}",
                _pct(s.odds.p_drop if s.odds else None),
                _pct(s.risk),
            ]
            if policy:
                row.append(_pct(s.policy_probability))
            rows.append([*row, s.reason])
        n = len(rows[0]) - 1  # every column but WHY, which is left as is
        widths = [max(len(r[i]) for r in rows) for i in range(n)]
        lines = [head, ""]
        for r in rows:
            cells = [r[0].rjust(widths[0]), r[1].ljust(widths[1]), r[2].ljust(widths[2])]
            cells += [r[i].rjust(widths[i]) for i in range(3, n)]
            lines.append("  ".join([*cells, r[n]]).rstrip())
        lines.append("")
        lines.append(
            f"* = in character: what a {self.temperament} {self.actor_name} would do. "
            "WIN = chance the side wins (rollouts); RISK = chance the actor is out "
            "before its next turn."
        )
        if not self.odds_available:
            # None for every action here: either no action of this decision is an attack
            # (moves, helps, heals) or the ruleset gives no exact odds for them.
            lines.append(
                f"HIT / E[DMG] / DROP: — (no {self.ruleset} action here has exact odds: "
                "they exist for attacks only)."
            )
        else:
            lines.append("HIT / E[DMG] / DROP: exact, from the ruleset; — for non-attacks.")
        if policy:
            lines.append(f"POLICY = the probability {self.policy} gives the action.")
        return "\n".join(lines)


def _pct(p: float | None) -> str:
    return "—" if p is None else f"{p * 100:.0f}%"


def suggest(
    state: BattleState,
    actor: str | None = None,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    iterations: int | None = None,
    seed: int | None = DEFAULT_SEED,
    policy: ProbabilityAgent | str | None = None,
) -> Suggestions:
    """Rank the legal actions of the pending decision (see the module docstring).

    ``actor`` None means the pending decision's actor; any other id must be the
    pending one. With ``iterations`` (and ``budget_ms`` None) the ranking is
    reproducible for a given ``seed``. ``policy`` (a ``PolicyAgent`` or its spec,
    ``policy:PATH`` or just ``PATH``/a shipped policy name) fills each suggestion's
    ``policy_probability``; a policy trained for another ruleset or sizes is an
    :class:`EscaramuzaError` naming it.
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
    # Before the search: a policy that does not fit this battle fails at once.
    agent = load_policy(policy) if policy is not None else None
    by_policy = dict(agent.action_probabilities(state)) if agent is not None else None
    planner = MCTS(iterations=iterations, budget_ms=budget_ms)
    rng = random.Random(seed)
    result = planner.search(state, rng)
    c = state.by_id[pending.actor]
    in_char = heuristic_choice(state, result.actions, random.Random(seed))
    items: list[Suggestion] = []
    # The verdict compares with the highest win rate among searched actions (the rank
    # follows visits, which also weigh draws, so rank 1 need not have the highest).
    best_win = max(
        (n.wins / n.visits for n in result.root.children.values() if n.visits), default=0.0
    )
    any_odds = False
    for rank, action in enumerate(result.ranked(), start=1):
        node = result.child(action)
        odds = state.ruleset.odds(state, action)
        any_odds = any_odds or odds is not None
        win = node.wins / node.visits if node.visits else 0.0
        low, high = wilson(node.wins, node.visits)
        risk = node.knocked_out / node.visits if node.visits else 0.0
        items.append(
            Suggestion(
                rank,
                action,
                state.ruleset.describe(state, action),
                node.visits,
                win,
                low,
                high,
                node.mean,
                odds,
                risk,
                reason(state, action, odds, result, win, best_win, risk),
                action == in_char,
                None if by_policy is None else by_policy.get(action, 0.0),
            )
        )
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
    )


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
    result: SearchResult,
    win: float,
    best_win: float,
    risk: float,
) -> str:
    """One line in plain words: the action's strongest point, then the search's verdict."""
    parts: list[str] = []
    target = state.by_id[action.target] if action.target in state.by_id else None
    if odds is not None and target is not None:
        key = health_key(state)
        left = target.resources.get(key, 0)
        if odds.p_drop >= 0.15:
            parts.append(f"{odds.p_drop:.0%} to drop {target.name} ({left} {key} left)")
        else:
            parts.append(f"{odds.p_hit:.0%} to hit {target.name} for ~{odds.expected_damage:.1f}")
    elif action.zone is not None:
        parts.append(_move_reason(state, action))
    elif target is not None:
        ally = target.side is state.by_id[action.actor].side
        parts.append(f"{'supports' if ally else 'acts on'} {target.name}")
    node = result.child(action)
    if node.visits == 0:
        parts.append("not searched (budget too small)")
    elif win >= best_win - 1e-9:
        parts.append("highest win chance found by search")
    else:
        gap = round((best_win - win) * 100)
        parts.append(f"{gap} point{'s' if gap != 1 else ''} below the best")
    if risk >= 0.3:
        parts.append(f"{risk:.0%} risk of being taken out")
    return "; ".join(parts)


def _move_reason(state: BattleState, action: Action) -> str:
    actor = state.by_id[action.actor]
    zone = str(action.zone)
    bf = state.battlefield
    foes = [c for c in state.combatants if c.active and c.side is not actor.side]
    cover = bf.zones[zone].cover if zone in bf.zones else 0
    text = f"to {bf.zones[zone].name if zone in bf.zones else zone}"
    if foes and zone in bf.zones:
        near = min(bf.distance(zone, f.zone) for f in foes)
        before = min(bf.distance(actor.zone, f.zone) for f in foes)
        if near < before:
            text += f", closer to the foes ({near} zone{'s' if near != 1 else ''})"
        elif near > before:
            text += f", away from the foes ({near} zone{'s' if near != 1 else ''})"
    if cover:
        text += f", cover {cover}"
    return text
