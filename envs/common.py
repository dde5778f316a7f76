"""What the single-agent and the PettingZoo env share: limits, scenario loading, seeds."""

from __future__ import annotations

from typing import Any

import numpy as np

from escaramuza.rules import RULESETS, get_ruleset
from escaramuza.rules.core.errors import UnknownNameError
from escaramuza.rules.core.ruleset import Ruleset
from escaramuza.rules.core.scenario import Scenario, load_scenario

#: Default static limits. They fit every shipped scenario (a test checks it); a bigger
#: custom scenario needs bigger limits, passed to the constructor.
DEFAULT_MAX_COMBATANTS = 16
DEFAULT_MAX_ZONES = 16
DEFAULT_MAX_ITEMS = 6


class EnvLimitError(ValueError):
    """A scenario that does not fit the env's static limits."""


def resolve_ruleset(ruleset: str) -> Ruleset:
    """The ruleset object for an id of ``RULESETS`` (envs accept no other ruleset)."""
    if ruleset not in RULESETS:
        raise UnknownNameError(
            f"unknown ruleset {ruleset!r} for an escaramuza env (known: {', '.join(RULESETS)})"
        )
    return get_ruleset(ruleset)


def load_env_scenario(
    ruleset: Ruleset,
    scenario: str | Scenario | None,
    max_combatants: int,
    max_zones: int,
    max_items: int,
) -> Scenario:
    """Load ``scenario`` (name, path, object or None for the ruleset's default) and check
    that it belongs to ``ruleset`` and fits the static limits."""
    loaded = (
        load_scenario(scenario or ruleset.default_scenario)
        if not isinstance(scenario, Scenario)
        else scenario
    )
    if loaded.ruleset.id != ruleset.id:
        raise ValueError(
            f"scenario {loaded.name!r} is a {loaded.ruleset.id!r} scenario; this env plays "
            f"{ruleset.id!r}"
        )
    check_limits(loaded, max_combatants, max_zones, max_items)
    return loaded


def check_limits(scenario: Scenario, max_combatants: int, max_zones: int, max_items: int) -> None:
    """Raise :class:`EnvLimitError` naming the limit a scenario exceeds."""
    n = len(scenario.combatants)
    top_index = max(c.index for c in scenario.combatants)
    if n > max_combatants or top_index >= max_combatants:
        raise EnvLimitError(
            f"scenario {scenario.name!r} has {max(n, top_index + 1)} combatants but "
            f"max_combatants={max_combatants}; pass max_combatants={max(n, top_index + 1)} "
            f"or more"
        )
    zones = len(scenario.battlefield.zone_ids)
    if zones > max_zones:
        raise EnvLimitError(
            f"scenario {scenario.name!r} has {zones} zones but max_zones={max_zones}; "
            f"pass max_zones={zones} or more"
        )
    most = max(scenario.combatants, key=lambda c: len(c.items))
    if len(most.items) > max_items:
        raise EnvLimitError(
            f"scenario {scenario.name!r}: combatant {most.id!r} has {len(most.items)} items "
            f"but max_items={max_items}; pass max_items={len(most.items)} or more"
        )


def check_draw_reward(value: float) -> float:
    """``value`` as a float if it is a valid ``draw_reward``, else a ValueError saying why.

    A draw (no winner: both sides withdrew, a "nobody wins" timeout) is worth 0 by
    default. Between a loss (−1) and a win (+1) is where it belongs: below −1 a
    draw would be worse than losing (the learner should throw the battle), above
    +1 better than winning.
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"draw_reward must be a number in [-1, 1], not {value!r}") from None
    if not -1.0 <= number <= 1.0:  # also refuses NaN
        raise ValueError(f"draw_reward must be in [-1, 1] (a loss is -1, a win +1), not {value!r}")
    return number


def battle_seeds(np_random: np.random.Generator) -> tuple[int, int]:
    """Two independent seeds drawn from the env's generator: the dice and the agents'.

    Keeping them apart means a different opponent never changes the dice the
    learner sees (agents/base.py: the agents' rng is separate from the roller).

    They are ``np_random.integers(0, 2**62, size=2)``, drawn as numpy draws them for a
    range of a power of two (the top 62 bits of each 64-bit word, Lemire's method never
    rejecting) but without ``integers``' argument handling, which cost eight times the
    draw — a batched env draws a pair for every battle it starts (a test pins the
    equality); the shift is done on Python ints, a third of the cost of numpy's.
    """
    dice, agents = np_random.bit_generator.random_raw(2).tolist()
    return dice >> 2, agents >> 2


def scenario_label(scenario: Any) -> str:
    return getattr(scenario, "name", str(scenario))
