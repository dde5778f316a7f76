"""The root's candidates: the order a restricted root takes them in
(:func:`candidate_order`), sequential halving's cut, and the test that every candidate
scored exactly what the heuristic's pick did (a search that settles)."""

from __future__ import annotations

import math

from escaramuza.agents.search.tree import Node
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.state import BattleState

#: shared rollout stops (the choice changes nothing the dice can show); 0 never stops.
SETTLE_SWEEPS = 4
#: Shared rollouts after which ``suggest``'s race may stop because the tie group scored
#: exactly alike on every one (``"identical"``). The stated test: no rollout on which two
#: actions differ in n paired rollouts puts the rate at which they differ below 3/n with
#: 95 % confidence (the rule of three), and two win chances differ by at most that rate;
#: at n = 300 they are within ±1 point. Fewer equal sweeps prove nothing: two different
#: actions can agree on dozens of rollouts (a foe who dies either way).
IDENTICAL_SHARED = 300


def candidate_order(state: BattleState, actions: list[Action], heuristic: Action) -> list[Action]:
    """The heuristic's pick, then the other actions most damaging first.

    Attacks are ordered by the ruleset's exact odds (chance to drop the target,
    then expected damage); actions without odds keep their legal order after
    them. Used to restrict the root to a few sensible candidates.
    """
    odds = state.ruleset.odds
    scored: list[tuple[float, float, int, Action]] = []
    for i, a in enumerate(actions):
        if a == heuristic:
            continue
        o = odds(state, a)
        scored.append((-(o.p_drop if o else -1.0), -(o.expected_damage if o else 0.0), i, a))
    scored.sort(key=lambda t: t[:3])
    return [heuristic, *(t[3] for t in scored)]


def _all_tied(root: Node, active: list[Action], heuristic: Action) -> bool:
    """Every candidate scored exactly what the heuristic's pick did on every shared dice."""
    ref = root.children[heuristic].samples if heuristic in root.children else None
    return all(a in root.children and root.children[a].samples == ref for a in active)


def _keep_better_half(root: Node, active: list[Action], heuristic: Action) -> list[Action]:
    """Sequential halving's cut: the better half by mean value over the sweeps all the
    active candidates share (ties in candidate order), plus the heuristic's pick."""
    n = min(len(root.children[a].samples) for a in active)
    rank = {a: i for i, a in enumerate(active)}
    keep = sorted(active, key=lambda a: (-sum(root.children[a].samples[:n]), rank[a]))
    kept = set(keep[: math.ceil(len(active) / 2)])
    kept.add(heuristic)
    return [a for a in active if a in kept]
