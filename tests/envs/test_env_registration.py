"""Registration: one id per ruleset of RULESETS, idempotent, with the registered defaults."""

from __future__ import annotations

import importlib
import warnings

import gymnasium as gym
import pytest

import escaramuza.envs
from escaramuza.envs.common import (
    DEFAULT_MAX_COMBATANTS,
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_ZONES,
    EnvLimitError,
)
from escaramuza.envs.registration import register_envs, ruleset_class
from escaramuza.envs.single import EscaramuzaEnv
from escaramuza.rules import RULESETS
from escaramuza.rules.core.errors import UnknownNameError
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from tests.envs.envtest_cases import ENV_RULESETS, scenarios_of


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_every_ruleset_registers_its_env_id(ruleset_id: str) -> None:
    cls = ruleset_class(ruleset_id)
    assert cls.env_id.startswith("escaramuza/") and cls.env_id.endswith("-v0")
    assert ENV_RULESETS[cls.env_id] == ruleset_id
    spec = gym.spec(cls.env_id)
    assert spec.kwargs == {"ruleset": ruleset_id, "illegal_action": "noop"}
    assert cls.env_id in escaramuza.envs.ENV_IDS


def test_registration_is_idempotent() -> None:
    before = dict(gym.registry)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.reload(escaramuza.envs)
        register_envs()
    assert dict(gym.registry).keys() == before.keys()


@pytest.mark.parametrize("env_id", sorted(ENV_RULESETS))
def test_make_uses_the_default_scenario_and_registered_defaults(env_id: str) -> None:
    env = gym.make(env_id, opponent="random")
    raw = env.unwrapped
    assert isinstance(raw, EscaramuzaEnv)
    assert raw.scenario.name == raw.ruleset.default_scenario
    assert raw.side is Side.ENEMIES
    assert raw.illegal_action == "noop"
    env.close()


@pytest.mark.parametrize("env_id", sorted(ENV_RULESETS))
def test_make_accepts_scenario_side_and_opponent(env_id: str) -> None:
    ruleset_id = ENV_RULESETS[env_id]
    scenario = scenarios_of(ruleset_id)[-1]
    env = gym.make(env_id, scenario=scenario, side="heroes", opponent="random")
    raw = env.unwrapped
    assert raw.scenario.name == scenario
    assert raw.side is Side.HEROES
    assert raw.opponent.name == "random"
    # A path works as well as a shipped name.
    by_path = gym.make(env_id, scenario=shipped_scenarios()[scenario], opponent="random")
    assert by_path.unwrapped.scenario.battlefield.zone_ids == raw.scenario.battlefield.zone_ids


@pytest.mark.parametrize("name", sorted(shipped_scenarios()))
def test_default_limits_fit_every_shipped_scenario(name: str) -> None:
    scenario = load_scenario(name)
    assert len(scenario.combatants) <= DEFAULT_MAX_COMBATANTS
    assert len(scenario.battlefield.zone_ids) <= DEFAULT_MAX_ZONES
    assert max(len(c.items) for c in scenario.combatants) <= DEFAULT_MAX_ITEMS


@pytest.mark.parametrize(
    ("limit", "kwargs"),
    [
        ("max_combatants", {"max_combatants": 1}),
        ("max_zones", {"max_zones": 1}),
        ("max_items", {"max_items": 0}),
    ],
)
def test_a_scenario_over_a_limit_is_rejected_naming_the_limit(
    limit: str, kwargs: dict[str, int]
) -> None:
    ruleset_id, scenario = next(
        (r, s)
        for r in sorted(ENV_RULESETS.values())
        for s in scenarios_of(r)
        if len(load_scenario(s).battlefield.zone_ids) > 1
        and any(c.items for c in load_scenario(s).combatants)
    )
    with pytest.raises(EnvLimitError, match=limit):
        EscaramuzaEnv(ruleset_id, scenario, opponent="random", **kwargs)


def test_unknown_ruleset_is_refused() -> None:
    with pytest.raises(UnknownNameError, match="unknown ruleset 'chess'"):
        EscaramuzaEnv("chess")


def test_a_scenario_of_another_ruleset_is_refused() -> None:
    if len(ENV_RULESETS) < 2:
        pytest.skip("needs two registered rulesets")
    first, second = sorted(ENV_RULESETS.values())[:2]
    with pytest.raises(ValueError, match=f"is a '{second}' scenario"):
        EscaramuzaEnv(first, scenarios_of(second)[0], opponent="random")


def test_bad_constructor_arguments_are_refused() -> None:
    ruleset_id = sorted(ENV_RULESETS.values())[0]
    with pytest.raises(ValueError, match="illegal_action"):
        EscaramuzaEnv(ruleset_id, illegal_action="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="render_mode"):
        EscaramuzaEnv(ruleset_id, render_mode="human")
    with pytest.raises(ValueError):
        EscaramuzaEnv(ruleset_id, side="villains")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("limit", "value"), [("max_combatants", 16.5), ("max_zones", "16"), ("max_items", True)]
)
def test_a_limit_that_is_not_a_whole_number_is_refused_naming_it(limit: str, value: object) -> None:
    """16.5 and "16" failed later on a TypeError about the spaces or a comparison; True was
    read as a limit of 1. Each env refuses them naming the limit."""
    want = f"{limit} must be a whole number, not {value!r}"
    with pytest.raises(ValueError, match=want):
        gym.make("escaramuza/DestinyDice-v0", **{limit: value})
    with pytest.raises(ValueError, match=want):
        escaramuza.envs.parallel_env(ruleset="destiny_dice", **{limit: value})


def test_a_closed_env_refuses_reset_and_step() -> None:
    """Both went on working after close(); they are refused now, as the batched env's
    (and Gymnasium's AsyncVectorEnv's) are. Closing twice is allowed (Gymnasium's rule)."""
    env = gym.make("escaramuza/DestinyDice-v0", opponent="random")
    env.reset(seed=0)
    env.close()
    env.close()
    want = "escaramuza/DestinyDice-v0: the env is closed (close() was called); make a new one"
    for call in (lambda: env.reset(seed=0), lambda: env.step(0)):
        with pytest.raises(gym.error.ClosedEnvironmentError) as caught:
            call()
        assert str(caught.value) == want


@pytest.mark.parametrize(
    ("limit", "most"), [("max_combatants", 16), ("max_zones", 32), ("max_items", 32)]
)
def test_a_limit_above_what_a_scenario_can_need_is_refused_naming_it(limit: str, most: int) -> None:
    """max_combatants=10**7 allocated a 2 GB observation (and its Box's bounds); a limit
    above the most a scenario may have (rules/core/scenario_spec.py) is refused first."""
    want = f"{limit} must be at most {most} (no scenario needs more), not {most + 1}"
    with pytest.raises(ValueError) as caught:
        gym.make("escaramuza/DestinyDice-v0", **{limit: most + 1})
    assert str(caught.value) == want
    with pytest.raises(ValueError) as caught:
        escaramuza.envs.parallel_env(ruleset="destiny_dice", **{limit: most + 1})
    assert str(caught.value) == want
    env = gym.make("escaramuza/DestinyDice-v0", opponent="random", **{limit: most})
    assert getattr(env.unwrapped.codec, limit) == most
    env.close()
