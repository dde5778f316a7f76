"""Ranked suggestions for the game master: ``suggest(state)``.

For the pending decision's combatant, every legal action is ranked by its win
chance, paired over the shared dice of an MCTS race search
(:mod:`escaramuza.agents.search`, :func:`~escaramuza.agents.search.rank`). The
actions the paired test cannot tell from the best form a tie group,
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

The result, its table and its ``--json`` document are :mod:`escaramuza.agents.suggestions`'.
"""

from __future__ import annotations

import random
from typing import Protocol

from escaramuza.agents.fast import DEFAULT_ENGINE, machine_threads
from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.agents.search import (
    DEFAULT_Z,
    MAX_BUDGET_MS,
    MCTS,
    MIN_BUDGET_MS,
    Ranking,
    health_key,
)
from escaramuza.agents.suggestions import (
    JSON_VERSION,
    STOPPED_TEXT,
    TABLE_WIDTH,
    Suggestion,
    Suggestions,
    _points,
)
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f, either, ngettext, word
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.ruleset import Odds
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.core.stats import wilson_interval as wilson

#: The public names of suggestions, the rows and their table and JSON document
#: (:mod:`escaramuza.agents.suggestions`), included: callers import them all from here.
__all__ = [
    "DEFAULT_BUDGET_MS",
    "DEFAULT_MAX_MS",
    "DEFAULT_SEED",
    "JSON_VERSION",
    "STOPPED_TEXT",
    "TABLE_RESERVE_MS",
    "TABLE_RESERVE_SHARE",
    "TABLE_WIDTH",
    "ProbabilityAgent",
    "SuggestError",
    "Suggestion",
    "Suggestions",
    "load_policy",
    "reason",
    "standing",
    "suggest",
    "twin_text",
]

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


class SuggestError(EscaramuzaError):
    """A suggestion that cannot be made (finished battle, actor not pending…)."""


class ProbabilityAgent(Protocol):
    """An agent that gives a probability to each legal action (``PolicyAgent``)."""

    name: str

    def action_probabilities(self, state: BattleState) -> list[tuple[Action, float]]: ...


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
        raise SuggestError(_("the battle is over: there is nothing to suggest"))
    if actor is not None and actor != pending.actor:
        state.get(actor)  # an unknown id is reported as such, with the known ids
        who = state.by_id[pending.actor]
        raise SuggestError(
            _f(
                "{actor} is not the one deciding: the pending decision is {id} ({name}, "
                "{decision}). Only the pending decision can be ranked exactly, because the "
                "dice and turns before it are unknown; apply decisions until {actor} acts "
                "(escaramuza gm) and ask again",
                repr(actor),
                who.id,
                who.name,
                word(pending.name),
            )
        )
    if max_ms is not None and iterations is not None:
        # A wall-clock maximum would make an iteration budget's ranking machine-dependent.
        raise SuggestError(
            _(
                "a maximum in milliseconds extends a time budget only: with an iteration "
                "budget the ranking is reproducible (use a maximum of iterations)"
            )
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
            _f(
                "{name} gives no action probabilities: --policy takes a trained policy "
                "(policy:PATH or a shipped policy name such as destiny_dice/emboscada)",
                name,
            )
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
