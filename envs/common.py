"""What the single-agent and the PettingZoo env share: limits, scenario loading, seeds."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from escaramuza.rules import RULESETS, get_ruleset
from escaramuza.rules.core.errors import UnknownNameError
from escaramuza.rules.core.ruleset import Ruleset
from escaramuza.rules.core.scenario import Scenario, load_scenario
from escaramuza.rules.core.scenario_spec import MAX_COMBATANTS, MAX_ITEM_SLOTS, MAX_ZONES

if TYPE_CHECKING:
    from escaramuza.envs.codec import ActionCodec
    from escaramuza.envs.observation import ObservationEncoder

#: Default static limits. They fit every shipped scenario (a test checks it); a bigger
#: custom scenario needs bigger limits, passed to the constructor.
DEFAULT_MAX_COMBATANTS = 16
DEFAULT_MAX_ZONES = 16
DEFAULT_MAX_ITEMS = 6


class EnvLimitError(ValueError):
    """A scenario that does not fit the env's static limits: ``limit`` names the one it
    exceeds, ``needed`` is the least value that takes it."""

    def __init__(self, message: str, limit: str = "", needed: int = 0) -> None:
        super().__init__(message)
        self.limit = limit
        self.needed = needed


class EnvLimits(NamedTuple):
    """An env's static limits, which fix its observation and action sizes."""

    max_combatants: int
    max_zones: int
    max_items: int


#: The envs' default limits: every shipped scenario, any scenario of up to 16 combatants,
#: 16 zones and 6 items.
STANDARD_LIMITS = EnvLimits(DEFAULT_MAX_COMBATANTS, DEFAULT_MAX_ZONES, DEFAULT_MAX_ITEMS)
#: The largest limits an env takes: the most combatants and zones a scenario may have
#: (rules/core/scenario_spec.py) and MAX_ITEM_SLOTS. Above them the spaces only grow with
#: no scenario to fill them (max_combatants=10**7 allocated a 2 GB observation).
MOST_LIMITS = EnvLimits(MAX_COMBATANTS, MAX_ZONES, MAX_ITEM_SLOTS)


def codecs(ruleset: Ruleset, limits: EnvLimits) -> tuple[ActionCodec, ObservationEncoder]:
    """The action codec and observation encoder of ``ruleset`` under ``limits``: what an
    env, a policy or a distillation reads and writes its spaces with."""
    from escaramuza.envs.codec import ActionCodec
    from escaramuza.envs.observation import ObservationEncoder

    return (
        ActionCodec(ruleset, *limits),
        ObservationEncoder(ruleset, limits.max_combatants, limits.max_zones),
    )


def needed_limits(scenario: Scenario) -> EnvLimits:
    """The least limits that take ``scenario``: its combatants (or its highest index + 1),
    its zones, and the most items one combatant carries."""
    top_index = max(c.index for c in scenario.combatants)
    return EnvLimits(
        max(len(scenario.combatants), top_index + 1),
        len(scenario.battlefield.zone_ids),
        max(len(c.items) for c in scenario.combatants),
    )


def fitted_limits(scenarios: Iterable[Scenario]) -> EnvLimits:
    """The least limits that take every one of ``scenarios``: the narrowest observation
    and action space a learner of those scenarios can have (``train --limits fit``)."""
    needs = [needed_limits(s) for s in scenarios]
    if not needs:
        raise ValueError("fitted_limits needs at least one scenario")
    # At least one item slot: a verb that takes an item keeps a place in the action space.
    return EnvLimits(
        max(n.max_combatants for n in needs),
        max(n.max_zones for n in needs),
        max(1, *(n.max_items for n in needs)),
    )


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
    # The limits size the spaces (Discrete, Box, the codec's ranges): 16.5 or "16" failed
    # there on a TypeError about something else, and a huge one allocated them huge.
    given = EnvLimits(max_combatants, max_zones, max_items)
    for name, value, most in zip(EnvLimits._fields, given, MOST_LIMITS, strict=True):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be a whole number, not {value!r}")
        if value > most:
            raise ValueError(
                f"{name} must be at most {most} (no scenario needs more), not {value!r}"
            )
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
    need = needed_limits(scenario)
    if need.max_combatants > max_combatants:
        raise EnvLimitError(
            f"scenario {scenario.name!r} has {need.max_combatants} combatants but "
            f"max_combatants={max_combatants}; pass max_combatants={need.max_combatants} "
            f"or more",
            "max_combatants",
            need.max_combatants,
        )
    if need.max_zones > max_zones:
        raise EnvLimitError(
            f"scenario {scenario.name!r} has {need.max_zones} zones but max_zones={max_zones}; "
            f"pass max_zones={need.max_zones} or more",
            "max_zones",
            need.max_zones,
        )
    if need.max_items > max_items:
        most = max(scenario.combatants, key=lambda c: len(c.items))
        raise EnvLimitError(
            f"scenario {scenario.name!r}: combatant {most.id!r} has {need.max_items} items "
            f"but max_items={max_items}; pass max_items={need.max_items} or more",
            "max_items",
            need.max_items,
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


def check_illegal_penalty(value: float) -> float:
    """``value`` as a float if it is a valid ``illegal_penalty``, else a ValueError saying
    why: a finite number, at least 0 (the reward of an illegal no-op is its opposite, so
    NaN or an infinity would poison every return it enters, and a negative one would pay
    the learner for illegal actions)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"illegal_penalty must be a number, not {value!r}") from None
    if not 0.0 <= number < math.inf:  # also refuses NaN
        raise ValueError(f"illegal_penalty must be a finite number >= 0, not {value!r}")
    return number


def check_open(closed: bool, env_id: str) -> None:
    """Refuse to reset or step an env after its ``close()``, as Gymnasium's vector envs do
    (``AsyncVectorEnv`` raises its ``ClosedEnvironmentError``): a closed batched env has
    shut its threads down, and a step would start new ones that nothing closes."""
    if closed:
        from gymnasium.error import ClosedEnvironmentError

        raise ClosedEnvironmentError(
            f"{env_id}: the env is closed (close() was called); make a new one"
        )


def check_flag(name: str, value: Any) -> bool:
    """``value`` as a bool if it is one (Python's or NumPy's), else a ValueError naming
    the option ``name`` and the value: a boolean option taken by truthiness would be
    turned on by ``"no"``, ``"false"`` or ``"0"``."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False, not {value!r}")


def action_index(action: Any) -> int:
    """A single env's ``action`` as a slot index: an integer (Python's or NumPy's, or a
    0-d integer array) or a float of any precision holding a whole number, as
    :func:`lane_actions` takes a lane's, so a batched env and its lanes stepped one by one
    take the same actions. Anything else is a ValueError: ``int()`` would truncate 2.7 to
    slot 2, a legal action the learner did not choose, and a bool is no slot (``True``
    would play slot 1)."""
    if isinstance(action, (bool, np.bool_)):
        raise ValueError(f"an action is a slot index (a whole number), not {action!r}")
    if isinstance(action, (int, np.integer)):
        return int(action)
    value = np.asarray(action) if isinstance(action, (float, np.floating, np.ndarray)) else None
    if value is not None and value.ndim == 0 and _whole(value):
        return int(value)
    raise ValueError(f"an action is a slot index (a whole number), not {action!r}")


def lane_actions(actions: Any, num_envs: int) -> np.ndarray:
    """A batched env's ``actions`` as the compiled step reads them: ``num_envs`` slot
    indices as int64 (any shape holding that many, e.g. ``(num_envs, 1)``), integers or
    floats holding whole numbers. A float array is refused rather than truncated (2.7 would
    be slot 2) and so are NaN, the infinities, bools (``[True, False]`` would be slots 1
    and 0), strings and objects (the cast would turn NaN into an arbitrary integer).
    Indices out of range are left to the step, which checks them (an illegal action)."""
    acts = np.asarray(actions)
    if acts.size != num_envs:
        raise ValueError(
            f"actions: one action per lane ({num_envs}) expected, not {acts.size} "
            f"(shape {acts.shape})"
        )
    if not _whole(acts):
        raise ValueError(
            f"actions: slot indices (whole numbers) expected, not {acts.dtype} values "
            f"{acts.reshape(num_envs)[:8].tolist()}"
        )
    return acts.astype(np.int64).reshape(num_envs)


def _whole(values: np.ndarray) -> bool:
    """``values`` are integers (not bools), or floats that are all whole numbers (no NaN,
    no infinity)."""
    if values.dtype.kind in "iu":
        return True
    if values.dtype.kind != "f":
        return False
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.isfinite(values) & (values == np.trunc(values))))


def reset_seed(seed: Any) -> Any:
    """``reset``'s ``seed`` with a NumPy integer made the Python int Gymnasium's seeding
    takes (it refuses ``np.int64(3)``), as the batched env takes it for its lanes: a seed
    read from a NumPy array seeds a single env, its lanes stepped one by one and the
    batched env alike. Anything else is left to Gymnasium's seeding to take or refuse."""
    return int(seed) if isinstance(seed, np.integer) else seed


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
