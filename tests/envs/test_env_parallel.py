"""The PettingZoo ParallelEnv: PettingZoo's own tests, Cairn's declarations in one step,
turn-based rulesets one decision per step, rewards, illegal actions, aec_to_parallel."""

from __future__ import annotations

import random

import numpy as np
import pytest
from gymnasium.error import ClosedEnvironmentError
from pettingzoo.test import parallel_api_test, parallel_seed_test
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

import escaramuza.envs
from escaramuza.envs import aec
from escaramuza.envs.parallel import ParallelEscaramuzaEnv
from escaramuza.rules.core.errors import IllegalActionError
from tests.envs.envtest_cases import DEFAULT_CASES, default_cases

TURN_BASED = [c for c in DEFAULT_CASES if c[1] != "cairn"]


@default_cases
def test_parallel_api_test(env_id: str, ruleset_id: str, scenario: str) -> None:
    parallel_api_test(escaramuza.envs.parallel_env(ruleset=ruleset_id), num_cycles=1000)


@default_cases
def test_parallel_seed_test(env_id: str, ruleset_id: str, scenario: str) -> None:
    parallel_seed_test(lambda: escaramuza.envs.parallel_env(ruleset=ruleset_id))


def _random_actions(env: ParallelEscaramuzaEnv, obs: dict, rng: random.Random) -> dict:
    out = {}
    for agent in env.agents:
        legal = np.flatnonzero(obs[agent]["action_mask"])
        # Not acting: any index at all (it must be ignored).
        out[agent] = (
            int(legal[rng.randrange(len(legal))]) if len(legal) else rng.randrange(env.codec.n)
        )
    return out


def _log(state: object) -> list[dict]:
    return [e.to_dict() for e in state.log]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cairn_step_is_a_sides_declarations_as_the_engine_takes_them_one_by_one(
    seed: int,
) -> None:
    """One parallel step = the side's declarations; the masks given up front are the ones
    the engine gives each declarer when its own decision is pending (AEC env, same dice),
    and both envs end with the same battle log."""
    par = escaramuza.envs.parallel_env(ruleset="cairn")
    seq = aec.raw_env(ruleset="cairn")
    obs, infos = par.reset(seed=seed)
    seq.reset(seed=seed)
    rng = random.Random(seed)
    biggest_group = 0
    while par.agents:
        group = par.acting
        biggest_group = max(biggest_group, len(group))
        sides = {par.sides[a] for a in group}
        assert len(sides) == 1  # CA-02: one side declares at a time
        assert sorted(a for a in par.agents if infos[a]["acting"]) == sorted(group)
        actions = _random_actions(par, obs, rng)
        for agent in group:
            # The AEC env reaches this declarer's decision after the earlier ones.
            assert seq.battle.pending.actor == agent
            seq_mask = seq.observe(seq.agent_selection)["action_mask"]
            assert np.array_equal(seq_mask, obs[agent]["action_mask"])
            # The acting agent sees itself as the acting combatant.
            per_slot = par.encoder.per_slot
            index = par.battle.by_id[agent].index
            acting_flags = obs[agent]["observation"][
                3 : par.encoder.max_combatants * per_slot : per_slot
            ]
            assert np.flatnonzero(acting_flags).tolist() == [index]
            seq.step(actions[agent])
        obs, _, _, _, infos = par.step(actions)
        assert _log(par.battle) == _log(seq.battle)
    assert biggest_group > 1  # the four heroes (and the goblins) declare together
    assert par.battle.outcome == seq.battle.outcome


@pytest.mark.parametrize(
    ("env_id", "ruleset_id", "scenario"), TURN_BASED, ids=[c[1] for c in TURN_BASED]
)
def test_turn_based_takes_only_the_pending_actors_action(
    env_id: str, ruleset_id: str, scenario: str
) -> None:
    one = escaramuza.envs.parallel_env(ruleset=ruleset_id)
    two = escaramuza.envs.parallel_env(ruleset=ruleset_id)
    obs, _ = one.reset(seed=5)
    two.reset(seed=5)
    rng = random.Random(5)
    steps = 0
    while one.agents and steps < 400:
        assert one.acting == [one.battle.pending.actor]
        for agent in one.agents:
            if agent not in one.acting:
                assert not obs[agent]["action_mask"].any()
        acting = one.acting[0]
        legal = np.flatnonzero(obs[acting]["action_mask"])
        move = int(legal[rng.randrange(len(legal))])
        # Env one hears only the acting agent; env two hears everybody, with noise.
        obs, *_ = one.step({acting: move})
        two.step({**{a: rng.randrange(two.codec.n) for a in two.agents}, acting: move})
        steps += 1
    assert _log(one.battle) == _log(two.battle)


@default_cases
def test_every_agent_gets_its_sides_reward(env_id: str, ruleset_id: str, scenario: str) -> None:
    env = escaramuza.envs.parallel_env(ruleset=ruleset_id)
    obs, _ = env.reset(seed=11)
    rng = random.Random(11)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(5000):
        if not env.agents:
            break
        obs, rewards, terminations, truncations, _ = env.step(_random_actions(env, obs, rng))
        for agent, r in rewards.items():
            totals[agent] += r
    outcome = env.battle.outcome
    assert outcome is not None and not env.agents
    assert all(terminations.values()) is (outcome.reason != "timeout")
    assert all(truncations.values()) is (outcome.reason == "timeout")
    for c in env.scenario.combatants:
        expected = 0.0 if outcome.winner is None else (1.0 if c.side is outcome.winner else -1.0)
        assert totals[c.id] == expected


def test_an_illegal_action_moves_nothing_and_costs_its_agent() -> None:
    env = escaramuza.envs.parallel_env(ruleset="cairn", illegal_penalty=0.25)
    obs, _ = env.reset(seed=3)
    group = env.acting
    before = len(env.battle.log)
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in group}
    bad = group[-1]
    actions[bad] = int(np.flatnonzero(obs[bad]["action_mask"] == 0)[0])
    obs2, rewards, *_, infos = env.step(actions)
    assert len(env.battle.log) == before and env.acting == group
    assert rewards[bad] == -0.25 and infos[bad]["illegal_action"]
    assert all(rewards[a] == 0.0 for a in env.agents if a != bad)
    assert np.array_equal(obs2[group[0]]["observation"], obs[group[0]]["observation"])
    strict = escaramuza.envs.parallel_env(ruleset="cairn", illegal_action="raise")
    strict.reset(seed=3)
    with pytest.raises(IllegalActionError, match=f"is not legal for {bad}"):
        strict.step(actions)


def test_aec_to_parallel_points_to_the_parallel_env() -> None:
    with pytest.raises(TypeError, match=r"escaramuza\.envs\.parallel_env\(") as caught:
        aec_to_parallel(aec.env(ruleset="destiny_dice"))
    assert isinstance(caught.value, aec.NotParallelizableError)
    assert "turn_based_aec_to_parallel" in str(caught.value)
    # Indexing the metadata still reads the flag.
    assert aec.raw_env.metadata["is_parallelizable"] is False


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_turn_based_aec_to_parallel_works_on_the_aec_env() -> None:
    parallel_api_test(turn_based_aec_to_parallel(aec.env(ruleset="cairn")), num_cycles=300)


def test_an_action_that_is_not_a_whole_number_is_refused_not_truncated() -> None:
    """A float action was truncated by ``int()`` (a legal slot + 0.6 played that slot)."""
    env = escaramuza.envs.parallel_env(ruleset="destiny_dice")
    obs, _ = env.reset(seed=3)
    before = len(env.battle.log)
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) + 0.6 for a in env.acting}
    with pytest.raises(ValueError, match="an action is a slot index \\(a whole number\\), not"):
        env.step(actions)
    assert len(env.battle.log) == before


def test_an_action_for_a_name_that_is_no_agent_is_refused() -> None:
    """It was ignored: a misspelt acting agent's action read as no action at all. The
    other agents' actions are still ignored, as PettingZoo allows."""
    env = escaramuza.envs.parallel_env(ruleset="destiny_dice")
    obs, _ = env.reset(seed=3)
    before = len(env.battle.log)
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.acting}
    with pytest.raises(ValueError) as caught:
        env.step({**actions, "nadie": 0})
    assert str(caught.value) == (
        f"actions: 'nadie' is not an agent of this env (its agents: "
        f"{', '.join(env.possible_agents)})"
    )
    assert len(env.battle.log) == before
    idle = next(a for a in env.agents if a not in env.acting)
    env.step({**actions, idle: 0})
    assert len(env.battle.log) > before


def test_a_closed_env_refuses_reset_and_step() -> None:
    """Both went on after close(); they are refused now, as the single-agent and batched
    envs' are. Closing twice is allowed (Gymnasium's rule)."""
    env = escaramuza.envs.parallel_env(ruleset="destiny_dice")
    obs, _ = env.reset(seed=3)
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.acting}
    env.close()
    env.close()
    for call in (lambda: env.reset(seed=1), lambda: env.step(actions)):
        with pytest.raises(ClosedEnvironmentError) as caught:
            call()
        assert str(caught.value) == (
            "escaramuza_parallel_v0: the env is closed (close() was called); make a new one"
        )
