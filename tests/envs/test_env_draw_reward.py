"""``draw_reward``: the price of a battle nobody wins, in the single-agent and AEC envs.

Donjon's duel lets a test force each ending with scripted choices: DJ-07 ends the
battle in a draw ("withdrawal") when neither side wants another ráfaga; a round
limit of 1 turns the second ráfaga into a "nobody wins" timeout; and a hero who
steps out of range (DJ-11, ``huir`` from a dos acciones) leaves its side with
nobody active, a loss for it and a win for the enemies.
"""

from __future__ import annotations

import dataclasses
import random

import gymnasium as gym
import pytest
from pettingzoo.test import api_test

from escaramuza.envs import aec
from escaramuza.envs.single import EscaramuzaEnv
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.scenario import Scenario, load_scenario
from escaramuza.rules.core.state import BattleState
from tests.envs.envtest_cases import masked_choice

PRICES = [-1.0, -0.5, 0.0, 0.25, 1.0]


def _pick(actions: list[Action], *verbs: str) -> Action:
    """The first legal action whose verb is the earliest of ``verbs`` offered."""
    for verb in verbs:
        for action in actions:
            if action.verb == verb:
                return action
    raise AssertionError(f"none of {verbs} among {[str(a) for a in actions]}")


#: Nobody attacks: wait on every number, never react, and go on or withdraw at the pause.
PEACEFUL = ("esperar", "esquivar", "dejar")


class Scripted:
    """An opponent (``act(state, rng)``) that plays one of the ``verbs`` it is offered."""

    def __init__(self, *verbs: str) -> None:
        self.verbs = verbs

    def act(self, state: BattleState, rng: random.Random) -> Action:
        return _pick(state.ruleset.legal_actions(state), *self.verbs)


def _play(env: EscaramuzaEnv, *verbs: str, seed: int = 0) -> tuple[list[float], bool, bool]:
    """Play the learner's side with the scripted ``verbs``; the rewards and how it ended."""
    env.reset(seed=seed)
    rewards: list[float] = []
    terminated = truncated = False
    while not (terminated or truncated):
        legal = env.legal_actions()
        chosen = _pick(list(legal.values()), *verbs)
        index = next(i for i, a in legal.items() if a == chosen)
        _, reward, terminated, truncated, _ = env.step(index)
        rewards.append(float(reward))
        assert len(rewards) < 500, "the scripted battle should end in two ráfagas"
    return rewards, terminated, truncated


def _duelo(round_limit: int | None = None) -> Scenario:
    scenario = load_scenario("donjon/duelo")
    if round_limit is None:
        return scenario
    return dataclasses.replace(scenario, round_limit=round_limit)


@pytest.mark.parametrize("side", ["enemies", "heroes"])
@pytest.mark.parametrize("price", PRICES)
def test_a_draw_by_withdrawal_is_worth_draw_reward(side: str, price: float) -> None:
    env = EscaramuzaEnv(
        "donjon", _duelo(), side=side, opponent=Scripted(*PEACEFUL, "retirarse"), draw_reward=price
    )
    rewards, terminated, truncated = _play(env, *PEACEFUL, "retirarse")
    outcome = env.state.outcome
    assert outcome is not None and outcome.winner is None
    assert outcome.reason == "withdrawal"
    assert terminated and not truncated
    assert rewards[-1] == price
    assert all(r == 0.0 for r in rewards[:-1])


@pytest.mark.parametrize("price", PRICES)
def test_a_timeout_nobody_wins_is_worth_draw_reward(price: float) -> None:
    # Both sides want to go on; the second ráfaga would be round 2 > round_limit 1.
    env = EscaramuzaEnv(
        "donjon",
        _duelo(round_limit=1),
        opponent=Scripted(*PEACEFUL, "continuar"),
        draw_reward=price,
    )
    rewards, terminated, truncated = _play(env, *PEACEFUL, "continuar")
    outcome = env.state.outcome
    assert outcome is not None and outcome.winner is None
    assert outcome.reason == "timeout"
    assert truncated and not terminated
    assert rewards[-1] == price


@pytest.mark.parametrize(("side", "expected"), [("enemies", 1.0), ("heroes", -1.0)])
@pytest.mark.parametrize("price", [-1.0, -0.5, 0.5])
def test_wins_and_losses_ignore_draw_reward(side: str, expected: float, price: float) -> None:
    # Aldara (heroes) starts a dos acciones from Gorm and steps out of range (huir):
    # her side has nobody active left, so the enemies win.
    fleeing, staying = ("huir", "alejarse", *PEACEFUL), ("dejar", *PEACEFUL, "continuar")
    learner, opponent = (staying, fleeing) if side == "enemies" else (fleeing, staying)
    env = EscaramuzaEnv(
        "donjon", _duelo(), side=side, opponent=Scripted(*opponent), draw_reward=price
    )
    rewards, _, _ = _play(env, *learner)
    outcome = env.state.outcome
    assert outcome is not None and outcome.winner is Side.ENEMIES
    assert rewards[-1] == expected


def test_random_rollouts_pay_draw_reward_exactly_for_draws() -> None:
    """Whatever the ending, the last reward is +1, −1 or draw_reward, and only there."""
    env = EscaramuzaEnv("donjon", "donjon/duelo", opponent="random", draw_reward=-0.4)
    endings = set()
    for seed in range(12):
        rng = random.Random(seed)
        env.reset(seed=seed)
        rewards = []
        done = False
        while not done:
            _, reward, terminated, truncated, _ = env.step(masked_choice(env.action_masks(), rng))
            rewards.append(float(reward))
            done = terminated or truncated
        outcome = env.state.outcome
        assert outcome is not None
        winner = outcome.winner
        expected = -0.4 if winner is None else (1.0 if winner is Side.ENEMIES else -1.0)
        assert rewards[-1] == expected
        assert all(r == 0.0 for r in rewards[:-1])
        endings.add(winner)
    assert None in endings and len(endings) >= 2  # draws and decisive battles both seen


def test_registered_id_takes_draw_reward() -> None:
    env = gym.make("escaramuza/Donjon-v0", draw_reward=-0.5)
    assert env.unwrapped.draw_reward == -0.5  # type: ignore[attr-defined]
    assert gym.make("escaramuza/Donjon-v0").unwrapped.draw_reward == 0.0  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1.5, "draw_reward must be in [-1, 1]"),
        (-2, "draw_reward must be in [-1, 1]"),
        (float("nan"), "draw_reward must be in [-1, 1]"),
        ("lots", "draw_reward must be a number in [-1, 1], not 'lots'"),
    ],
)
def test_bad_draw_reward_is_refused(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        EscaramuzaEnv("donjon", draw_reward=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        aec.raw_env(ruleset="donjon", draw_reward=value)  # type: ignore[arg-type]


def _aec_withdrawal(price: float) -> dict[str, float]:
    env = aec.raw_env(ruleset="donjon", scenario="donjon/duelo", draw_reward=price)
    env.reset(seed=0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(500):
        _, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        chosen = _pick(env.battle.ruleset.legal_actions(env.battle), *PEACEFUL, "retirarse")
        (index,) = env.codec.legal_map(env.battle, [chosen])
        env.step(index)
    assert env.battle.outcome is not None and env.battle.outcome.reason == "withdrawal"
    return totals


@pytest.mark.parametrize("price", [0.0, -0.5, -1.0])
def test_aec_draw_gives_both_sides_draw_reward(price: float) -> None:
    assert _aec_withdrawal(price) == {"heroes": price, "enemies": price}


@pytest.mark.filterwarnings(
    "ignore:.*should be gymnasium.spaces.box.*:UserWarning",
    "ignore:.*agents to be named in the format.*:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
)
def test_aec_api_test_passes_with_a_draw_price() -> None:
    api_test(aec.env(ruleset="donjon", scenario="donjon/duelo", draw_reward=-0.5), num_cycles=200)
