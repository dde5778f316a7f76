"""Rollouts: seeds, legality, illegal actions, rewards and ends, pickling."""

from __future__ import annotations

import pickle
import random
import re

import gymnasium as gym
import numpy as np
import pytest

from escaramuza.envs.single import SHAPING_WEIGHT, EscaramuzaEnv
from escaramuza.rules.core.errors import IllegalActionError
from escaramuza.rules.core.events import ActionTaken, BattleEnded, Damaged
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.state import BattleState
from tests.envs.envtest_cases import (
    CASES,
    ENV_RULESETS,
    cases,
    default_cases,
    masked_choice,
    rollout,
)


@cases
@pytest.mark.parametrize("side", ["enemies", "heroes"])
def test_same_seed_same_rollout(env_id: str, ruleset_id: str, scenario: str, side: str) -> None:
    a = EscaramuzaEnv(ruleset_id, scenario, side=side)
    b = EscaramuzaEnv(ruleset_id, scenario, side=side)
    obs_a, rew_a, lines_a, *_ = rollout(a, seed=11)
    obs_b, rew_b, lines_b, *_ = rollout(b, seed=11)
    assert lines_a == lines_b
    assert rew_a == rew_b
    assert len(obs_a) == len(obs_b)
    assert all(np.array_equal(x, y) for x, y in zip(obs_a, obs_b, strict=True))


@cases
def test_different_seed_different_rollout(env_id: str, ruleset_id: str, scenario: str) -> None:
    env = EscaramuzaEnv(ruleset_id, scenario, opponent="random")
    logs = {tuple(rollout(env, seed=s)[2]) for s in (1, 2, 3)}
    assert len(logs) > 1


@cases
def test_masked_legal_actions_apply_and_masked_illegal_ones_raise(
    env_id: str, ruleset_id: str, scenario: str
) -> None:
    env = EscaramuzaEnv(ruleset_id, scenario, opponent="random")  # raw: illegal_action="raise"
    rng = random.Random(3)
    env.reset(seed=5)
    for _ in range(25):
        if env.state.outcome is not None:
            break
        mask = env.action_masks()
        illegal = np.flatnonzero(~mask)
        for index in rng.sample(list(illegal), min(4, len(illegal))):
            with pytest.raises(IllegalActionError, match=f"action {index} "):
                env.step(index)
        # A failed step changed nothing: the same mask is still offered.
        assert np.array_equal(env.action_masks(), mask)
        legal = np.flatnonzero(mask)
        # Every legal action applies on a copy of the env; one of them continues the rollout.
        for index in rng.sample(list(legal), min(3, len(legal))):
            probe = pickle.loads(pickle.dumps(env))
            probe.step(index)
        _, _, terminated, truncated, _ = env.step(masked_choice(mask, rng))
        if terminated or truncated:
            break


@pytest.mark.parametrize("env_id", sorted(ENV_RULESETS))
def test_registered_env_turns_illegal_actions_into_a_penalised_noop(env_id: str) -> None:
    env = gym.make(env_id, opponent="random")
    obs, _ = env.reset(seed=4)
    mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
    illegal = int(np.flatnonzero(~mask)[0])
    log_length = len(env.unwrapped.state.log)  # type: ignore[attr-defined]
    obs2, reward, terminated, truncated, info = env.step(illegal)
    assert info["illegal_action"] is True
    assert reward == pytest.approx(-0.05)
    assert not terminated and not truncated
    assert info["events"] == []
    assert np.array_equal(obs, obs2)
    assert np.array_equal(info["action_mask"], mask)
    assert len(env.unwrapped.state.log) == log_length  # type: ignore[attr-defined]
    _, _, _, _, info = env.step(int(np.flatnonzero(mask)[0]))
    assert info["illegal_action"] is False


@cases
def test_random_masked_rollouts_always_end(env_id: str, ruleset_id: str, scenario: str) -> None:
    for side in ("enemies", "heroes"):
        env = EscaramuzaEnv(ruleset_id, scenario, side=side, opponent="random")
        for seed in range(3):
            _, rewards, lines, terminated, truncated = rollout(env, seed=seed)
            assert terminated != truncated, "an episode ends one way"
            outcome = env.state.outcome
            assert outcome is not None
            assert truncated == (outcome.reason == "timeout")
            expected = (
                0.0 if outcome.winner is None else (1.0 if outcome.winner is Side(side) else -1.0)
            )
            assert rewards[-1] == expected
            assert all(r == 0.0 for r in rewards[:-1])
            assert env.state.round <= env.scenario.round_limit
            assert lines[-1] == next(
                e.text for e in reversed(env.state.log) if isinstance(e, BattleEnded)
            )


@default_cases
def test_shaping_follows_damage_and_stays_below_the_terminal_reward(
    env_id: str, ruleset_id: str, scenario: str
) -> None:
    env = EscaramuzaEnv(ruleset_id, scenario, opponent="random", reward_shaping=True)
    side_sizes = {s: sum(1 for c in env.scenario.combatants if c.side is s) for s in Side}
    seen_damage = 0
    for seed in range(4):
        rng = random.Random(seed)
        env.reset(seed=seed)
        total = 0.0
        done = False
        # Only the steps' events are shaped: what the opponent does inside reset() comes
        # before the learner's first decision and is not rewarded.
        events = []
        while not done:
            _, reward, terminated, truncated, info = env.step(
                masked_choice(env.action_masks(), rng)
            )
            done = terminated or truncated
            events.extend(info["events"])
            outcome = env.state.outcome
            terminal = 0.0
            if done and outcome is not None and outcome.winner is not None:
                terminal = 1.0 if outcome.winner is env.side else -1.0
            total += float(reward) - terminal
        x = 0.0
        for e in events:
            if isinstance(e, Damaged) and e.amount > 0:
                target = env.state.by_id[e.target]
                top = target.maxima.get(e.resource) or 1
                share = e.amount / top / side_sizes[target.side]
                source = env.state.by_id.get(e.source)
                if target.side is env.side:
                    x -= share
                elif source is not None and source.side is env.side:
                    x += share
        assert abs(total) < SHAPING_WEIGHT
        assert total == pytest.approx(SHAPING_WEIGHT * np.tanh(x), abs=1e-9)
        if x:
            seen_damage += 1
    assert seen_damage, "no episode dealt or took damage; the test checked nothing"


@cases
def test_pickling_a_reset_env_and_continuing_identically(
    env_id: str, ruleset_id: str, scenario: str
) -> None:
    env = EscaramuzaEnv(ruleset_id, scenario)
    env.reset(seed=21)
    rng = random.Random(0)
    for _ in range(3):
        if env.state.outcome is not None:
            break
        env.step(masked_choice(env.action_masks(), rng))
    copy = pickle.loads(pickle.dumps(env))
    assert np.array_equal(copy.action_masks(), env.action_masks())
    for _ in range(40):
        mask = env.action_masks()
        assert np.array_equal(copy.action_masks(), mask)
        index = masked_choice(mask, rng)
        a = env.step(index)
        b = copy.step(index)
        assert np.array_equal(a[0], b[0])
        assert a[1:4] == b[1:4]
        assert [e.text for e in a[4]["events"]] == [e.text for e in b[4]["events"]]
        if a[2] or a[3]:
            break


@default_cases
def test_heuristic_opponent_plays_inside_step(env_id: str, ruleset_id: str, scenario: str) -> None:
    env = gym.make(env_id, opponent="heuristic")
    obs, info = env.reset(seed=2)
    raw = env.unwrapped
    state = raw.state  # type: ignore[attr-defined]
    if state.outcome is None:
        # After reset the learner always decides; the opponent took everything before.
        assert state.pending.side is raw.side  # type: ignore[attr-defined]
    _, _, _, _, info = env.step(int(np.flatnonzero(raw.action_masks())[0]))  # type: ignore[attr-defined]
    state = raw.state  # type: ignore[attr-defined]
    assert state.outcome is not None or state.pending.side is raw.side  # type: ignore[attr-defined]


class _FirstLegal:
    """A scripted opponent object: always the first legal action."""

    name = "first-legal"

    def __init__(self) -> None:
        self.calls = 0

    def act(self, state: BattleState, rng: random.Random) -> Action:
        self.calls += 1
        return state.ruleset.legal_actions(state)[0]


@pytest.mark.parametrize("env_id", sorted(ENV_RULESETS))
def test_an_agent_object_can_be_the_opponent(env_id: str) -> None:
    opponent = _FirstLegal()
    env = gym.make(env_id, opponent=opponent, side="heroes")
    env.reset(seed=0)
    rng = random.Random(0)
    raw = env.unwrapped
    for _ in range(30):
        _, _, terminated, truncated, info = env.step(
            masked_choice(raw.action_masks(), rng)  # type: ignore[attr-defined]
        )
        enemy_ids = {c.id for c in raw.state.combatants if c.side is Side.ENEMIES}  # type: ignore[attr-defined]
        taken = [e for e in info["events"] if isinstance(e, ActionTaken)]
        # The learner's own action comes first; every other decision is the opponent's.
        assert all(e.actor in enemy_ids for e in taken[1:]) or not taken[1:]
        if terminated or truncated:
            break
    assert opponent.calls > 0


def test_a_made_env_pickles() -> None:
    env = gym.make("escaramuza/DestinyDice-v0")
    env.reset(seed=3)
    copy = pickle.loads(pickle.dumps(env))
    assert np.array_equal(
        copy.unwrapped.action_masks(),
        env.unwrapped.action_masks(),  # type: ignore[attr-defined]
    )


def test_a_battle_over_before_the_learners_first_decision_ends_at_the_first_step() -> None:
    """Possible when the opponent wins before the learner ever decides (e.g. a duel)."""
    for _, ruleset_id, scenario in CASES:
        for side in ("enemies", "heroes"):
            env = EscaramuzaEnv(ruleset_id, scenario, side=side, opponent="random")
            for seed in range(8):
                env.reset(seed=seed)
                outcome = env.state.outcome
                if outcome is None:
                    continue
                assert np.flatnonzero(env.action_masks()).tolist() == [0]
                _, reward, terminated, truncated, info = env.step(0)
                assert terminated or truncated
                assert info["outcome"] == outcome
                assert reward == (
                    0.0 if outcome.winner is None else 1.0 if outcome.winner is env.side else -1.0
                )
                return
    pytest.skip("no shipped scenario ends before the learner's first decision")


def test_an_action_that_is_not_a_whole_number_is_refused_not_truncated() -> None:
    """``int()`` truncated 2.7 to slot 2, a legal action the learner did not choose, and
    read "2" as slot 2; now only integers and floats holding whole numbers are slots."""
    env = gym.make("escaramuza/DestinyDice-v0", opponent="random")
    env.reset(seed=4)
    mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
    legal = int(np.flatnonzero(mask)[0])
    log_length = len(env.unwrapped.state.log)  # type: ignore[attr-defined]
    for bad in (legal + 0.7, float("nan"), str(legal), None, [legal]):
        with pytest.raises(ValueError, match="an action is a slot index \\(a whole number\\)"):
            env.step(bad)
    assert len(env.unwrapped.state.log) == log_length  # type: ignore[attr-defined]
    _, _, _, _, info = env.step(np.float64(legal))  # a whole float is its slot
    assert info["illegal_action"] is False


def test_an_opponent_that_cannot_play_the_scenario_is_refused_when_the_env_is_made() -> None:
    """A policy of another ruleset as the opponent was taken; the env failed at the
    opponent's first decision, inside a step, after the learner's action had been
    applied. It is refused when the env is made, with the policy's own reason."""
    from escaramuza.rules.core.errors import EscaramuzaError

    reason = "policy donjon/duelo: ruleset: trained on 'donjon', but scenario"
    with pytest.raises(EscaramuzaError, match=re.escape(reason)):
        gym.make("escaramuza/Cairn-v0", side="heroes", opponent="policy:donjon/duelo")
    with pytest.raises(EscaramuzaError, match=re.escape(reason)):
        EscaramuzaEnv("cairn", "cairn/duelo_bugbear", opponent="policy:donjon/duelo")


@pytest.mark.parametrize("option", ["reward_shaping", "narrate"])
@pytest.mark.parametrize("value", ["no", "False", 0, 1.0, None])
def test_a_boolean_option_that_is_not_a_bool_is_refused(option: str, value: object) -> None:
    """The env took its boolean options by truthiness: ``reward_shaping="no"`` turned
    shaping on. Anything but a bool is a ValueError naming the option and the value."""
    want = f"{option} must be True or False, not {value!r}"
    with pytest.raises(ValueError, match=f"^{re.escape(want)}$"):
        gym.make("escaramuza/DestinyDice-v0", **{option: value})
    with pytest.raises(ValueError, match=f"^{re.escape(want)}$"):
        EscaramuzaEnv("destiny_dice", **{option: value})  # type: ignore[arg-type]


def test_a_numpy_bool_is_a_boolean_option() -> None:
    env = EscaramuzaEnv("destiny_dice", reward_shaping=np.True_, narrate=np.False_)  # type: ignore[arg-type]
    assert env.reward_shaping is True and env.narrate is False


@pytest.mark.parametrize("penalty", [float("nan"), float("inf"), -0.5, "much"])
def test_an_illegal_penalty_that_is_not_a_finite_number_at_least_0_is_refused(
    penalty: object,
) -> None:
    """A NaN penalty made every illegal no-op's reward NaN (poisoning the returns it
    enters), a negative one paid the learner for illegal actions; the single and the
    parallel env refuse them, as ``draw_reward`` is refused."""
    with pytest.raises(ValueError, match="illegal_penalty must be a"):
        gym.make("escaramuza/DestinyDice-v0", illegal_penalty=penalty)
    import escaramuza.envs

    with pytest.raises(ValueError, match="illegal_penalty must be a"):
        escaramuza.envs.parallel_env(ruleset="destiny_dice", illegal_penalty=penalty)
