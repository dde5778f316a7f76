"""The searching side's value of a battle state: how strong each side still is
(:func:`side_strength`), the shaped value of a draw (:func:`shaped_value`) and the stand-in
for the chance to win that scores a rollout cut at the horizon (:func:`side_value`)."""

from __future__ import annotations

from escaramuza.rules.core.model import Side
from escaramuza.rules.core.state import BattleState

#: Scale of the shaped value of an undecided end: small, so that a safe draw never
#: looks as good as a real chance of winning.
SHAPING = 0.2
#: Value of a draw before shaping (the planner maximises its side's chance to win, the
#: WIN column of ``suggest`` and the benchmark's measure): a draw is not a win, so it
#: scores near a loss; with :func:`shaped_value` a draw lies in [−1, −0.6].
DRAW = -0.8


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


def side_value(state: BattleState, side: Side) -> float:
    """A cheap stand-in for ``side``'s chance to win from ``state``, in [0, 1].

    A finished battle is exact: 1 won, 0 lost, ½ a draw. Otherwise the share of
    the two sides' :func:`side_strength` that is ``side``'s: 1 exactly when no foe
    is left standing, 0 when nobody of ``side`` is, ½ at equal strength. It scores
    rollouts cut at the planner's horizon, where only how the fight is going is
    known, not how it ends.
    """
    outcome = state.outcome
    if outcome is not None:
        if outcome.winner is None:
            return 0.5
        return 1.0 if outcome.winner is side else 0.0
    own = side_strength(state, side)
    foe = side_strength(state, side.other)
    if own + foe <= 0.0:
        return 0.5
    return own / (own + foe)
