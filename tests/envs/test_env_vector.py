"""The batched env is the Python env, lane by lane, step by step.

Every lane of :class:`~escaramuza.envs.vector.KernelVectorEnv` against its own
:class:`~escaramuza.envs.single.EscaramuzaEnv`, autoreset as Gymnasium's
``SyncVectorEnv`` does it (next step): the same learner actions (drawn among the legal
ones), and then the observations, masks, rewards, terminations and truncations must be
equal, bit for bit, and every finished battle's final state (``last_battle`` against
``agents.fast.final_battle`` of the engine's state). Over every shipped scenario, both
learner sides and several opponents, and generated scenarios of every ruleset.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import strategies as st

from escaramuza.agents.fast import diff, final_battle
from escaramuza.envs.common import fitted_limits
from escaramuza.envs.single import EscaramuzaEnv
from escaramuza.envs.vector import KernelEnvRefusal, KernelVectorEnv, vector_env
from escaramuza.rules import RULESETS, get_ruleset
from escaramuza.rules.core.errors import IllegalActionError
from escaramuza.rules.core.scenario import Scenario, load_scenario, shipped_scenarios
from tests.kernel_cases import draw_scenario, generated

pytestmark = pytest.mark.compile

SHIPPED = sorted(shipped_scenarios())
RULESETS_DEFAULT = {r: get_ruleset(r).default_scenario for r in RULESETS}
OPPONENTS = ["heuristic", "random", "heuristic:brute"]


def run_both(
    scenario: Scenario,
    side: str,
    opponent: str,
    lanes: int,
    steps: int,
    seed: int,
    illegal_every: int = 0,
    shaping: bool = True,
    threads: int | None = None,
    limits: dict[str, int] | None = None,
) -> int:
    """Step both envs ``steps`` times; the battles finished (every one compared)."""
    kwargs: dict[str, Any] = {
        "scenario": scenario,
        "side": side,
        "opponent": opponent,
        "illegal_action": "noop",
        "reward_shaping": shaping,
        **(limits or {}),
    }
    ruleset = scenario.ruleset.id
    vec = KernelVectorEnv(ruleset, lanes, **kwargs, threads=threads)
    envs = [EscaramuzaEnv(ruleset, **kwargs, narrate=False) for _ in range(lanes)]
    obs, _ = vec.reset(seed=seed)
    for b, env in enumerate(envs):
        want, _ = env.reset(seed=seed + b)
        assert np.array_equal(obs[b], want), (scenario.name, b, "reset")
    pick = random.Random(seed)
    again = [False] * lanes
    finished = 0
    for t in range(steps):
        masks = vec.action_masks()
        slots, counts = vec.legal_slots()
        actions = np.zeros(lanes, dtype=np.int64)
        for b, env in enumerate(envs):
            assert np.array_equal(masks[b], env.action_masks()), (scenario.name, t, b, "mask")
            listed = slots[b, : counts[b]].tolist()
            if not again[b] and env.state.outcome is None:
                assert listed == list(env.legal_actions()), (scenario.name, t, b, "slots")
            legal = np.flatnonzero(masks[b])
            actions[b] = int(pick.choice(legal.tolist()))
            if illegal_every and t % illegal_every == 0:
                illegal = np.flatnonzero(~masks[b])
                actions[b] = int(illegal[pick.randrange(len(illegal))])
        obs, rewards, terms, truncs, infos = vec.step(actions)
        for b, env in enumerate(envs):
            where = (scenario.name, side, opponent, t, b)
            if again[b]:
                want, _ = env.reset()
                assert np.array_equal(obs[b], want), (*where, "autoreset")
                assert (rewards[b], terms[b], truncs[b]) == (0.0, False, False), where
                again[b] = False
                continue
            want, reward, term, trunc, info = env.step(int(actions[b]))
            assert np.array_equal(obs[b], want), where
            assert (rewards[b], terms[b], truncs[b]) == (reward, term, trunc), where
            assert infos["illegal_action"][b] == info["illegal_action"], where
            if term or trunc:
                got = vec.last_battle(b)
                engine = final_battle(env.state, got.seed, got.decisions)
                assert [str(m) for m in diff(engine, got)] == [], where
                again[b] = True
                finished += 1
    return finished


@pytest.mark.parametrize("name", SHIPPED)
@pytest.mark.parametrize("side", ["enemies", "heroes"])
def test_every_lane_is_the_python_env(name: str, side: str) -> None:
    scenario = load_scenario(name)
    finished = 0
    for k, opponent in enumerate(OPPONENTS):
        finished += run_both(scenario, side, opponent, lanes=3, steps=120, seed=100 * k + 7)
    assert finished >= 1


@pytest.mark.parametrize("name", SHIPPED)
def test_lanes_under_fitted_limits_are_the_python_env(name: str) -> None:
    """``train --limits fit``'s envs: the narrowest observation and action space that take
    the scenario (every slot index and zone column moves), still the Python env's."""
    scenario = load_scenario(name)
    limits = fitted_limits([scenario])._asdict()
    vec = KernelVectorEnv(scenario.ruleset.id, 1, scenario=scenario, **limits)
    assert (
        vec.single_observation_space.shape[0]
        < KernelVectorEnv(scenario.ruleset.id, 1, scenario=scenario).single_observation_space.shape[
            0
        ]
    )
    finished = run_both(
        scenario, "enemies", "heuristic", lanes=3, steps=120, seed=11, limits=limits
    )
    finished += run_both(scenario, "heroes", "random", lanes=2, steps=80, seed=12, limits=limits)
    assert finished >= 1


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_lanes_stepped_by_several_threads_are_each_the_python_env(ruleset: str) -> None:
    """Three threads over seven lanes (slices that move between steps as the threads'
    shares follow their times): each lane is still its Python env, whichever thread
    steps it."""
    scenario = load_scenario(RULESETS_DEFAULT[ruleset])
    assert run_both(scenario, "enemies", "heuristic", lanes=7, steps=80, seed=3, threads=3) >= 1


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_observations_are_encoded_again_as_the_last_step_returned_them(ruleset: str) -> None:
    """A lane keeps no copy of its observation: a step encodes it straight into the array
    it returns, and ``observations()`` encodes it again from the lane's battle. The two
    are equal after every step (battles ending under next-step and same-step autoreset,
    illegal actions turned into no-ops, both sides' decisions in the AEC env), whatever
    the caller did to the returned array."""
    from gymnasium.vector import AutoresetMode

    from escaramuza.envs.aec_vector import KernelAECVectorEnv

    scenario = RULESETS_DEFAULT[ruleset]
    same_step = AutoresetMode.SAME_STEP
    envs: list[KernelVectorEnv] = [
        KernelVectorEnv(ruleset, 5, scenario, illegal_action="noop", threads=2),
        KernelVectorEnv(ruleset, 5, scenario, illegal_action="noop", autoreset_mode=same_step),
        KernelAECVectorEnv(ruleset, 5, scenario),
    ]
    pick = np.random.default_rng(1)
    for venv in envs:
        assert not venv.observations().any()
        obs, _ = venv.reset(seed=8)
        ended = noops = 0
        for t in range(120):
            assert np.array_equal(venv.observations(), obs), (venv, t)
            masks = venv.action_masks()
            actions = np.array([pick.choice(np.flatnonzero(m)) for m in masks])
            if venv.illegal_action == "noop" and t % 5 == 0 and masks[0].sum() > 1:
                actions[0] = np.flatnonzero(~masks[0])[0]
                noops += 1
            obs[:] = -3.0
            obs, _, terminated, truncated, infos = venv.step(actions)
            ended += int((terminated | truncated).sum())
            noops -= int(infos.get("illegal_action", np.zeros(1))[0])
        assert np.array_equal(venv.observations(), obs)
        # Random moves on both sides may not end a battle in these steps.
        assert (ended > 0 or venv.both_sides) and noops == 0, (venv, ended, noops)


def test_a_lane_that_has_begun_no_battle_observes_zeros() -> None:
    """observations() encodes only the lanes that have begun a battle; the others, whose
    arrays hold no battle yet, are zeros, as before any reset."""
    venv = KernelVectorEnv("cairn", 3, scenario="cairn/emboscada_goblin", threads=1)
    assert not venv.observations().any()
    venv.restart(np.array([False, True, False]))
    obs = venv.observations()
    assert not obs[[0, 2]].any()
    assert obs[1].any() and np.array_equal(obs[1], venv._obs_out[1])


def test_a_step_returns_new_arrays_the_caller_may_change() -> None:
    """The observations a step returns are a new array each step; changing them, or the
    masks it returns, changes neither the env's next step nor what it reports."""
    venv = KernelVectorEnv("destiny_dice", 4, scenario="destiny_dice/emboscada", threads=2)
    twin = KernelVectorEnv("destiny_dice", 4, scenario="destiny_dice/emboscada", threads=1)
    obs, infos = venv.reset(seed=11)
    twin_obs, _ = twin.reset(seed=11)
    pick = np.random.default_rng(0)
    for _ in range(30):
        masks = venv.action_masks()
        actions = np.array([pick.choice(np.flatnonzero(m)) for m in masks])
        kept = obs.copy()
        obs[:] = -7.0
        infos["action_mask"][:] = False
        masks[:] = False
        assert np.array_equal(venv.observations(), kept)
        assert np.array_equal(venv.action_masks(), twin.action_masks())
        new, _, _, _, infos = venv.step(actions)
        twin_obs, *_ = twin.step(actions)
        assert new is not obs and not np.shares_memory(new, obs)
        assert np.array_equal(new, twin_obs)
        obs = new


def test_illegal_actions_are_no_ops_as_in_the_python_env() -> None:
    scenario = load_scenario("destiny_dice/emboscada")
    assert run_both(scenario, "enemies", "heuristic", 2, 80, 5, illegal_every=3) >= 1
    assert run_both(scenario, "heroes", "random", 2, 240, 6, illegal_every=4, shaping=False) >= 1


def test_an_illegal_action_raises_before_any_lane_moves() -> None:
    vec = KernelVectorEnv("destiny_dice", 2)
    obs, _ = vec.reset(seed=1)
    masks = vec.action_masks()
    bad = int(np.flatnonzero(~masks[1])[0])
    good = [int(np.flatnonzero(masks[b])[0]) for b in range(2)]
    with pytest.raises(IllegalActionError, match=f"lane 1: action {bad} is not legal"):
        vec.step(np.array([good[0], bad]))
    # Lane 0 did not move: its step now is the Python env's first step.
    env = EscaramuzaEnv("destiny_dice", narrate=False)
    env.reset(seed=1)
    want = env.step(good[0])[0]
    assert np.array_equal(vec.step(np.array(good))[0][0], want)


@generated(8)
def test_generated_scenarios_step_as_the_python_env(ruleset: str, data: Any) -> None:
    scenario = draw_scenario(data, ruleset)
    side = data.draw(st.sampled_from(["enemies", "heroes"]), label="side")
    opponent = data.draw(st.sampled_from(OPPONENTS), label="opponent")
    seed = data.draw(st.integers(0, 2**40), label="seed")
    shaping = data.draw(st.booleans(), label="reward_shaping")
    run_both(scenario, side, opponent, lanes=2, steps=40, seed=seed, shaping=shaping)


def test_what_the_kernel_does_not_take_falls_back_and_says_why() -> None:
    with pytest.raises(KernelEnvRefusal, match="render_mode"):
        KernelVectorEnv("cairn", 2, render_mode="ansi")
    venv = vector_env("escaramuza/Cairn-v0", 2, render_mode="ansi")
    assert isinstance(venv, gym.vector.SyncVectorEnv)
    assert "render_mode" in venv.kernel_refusal
    kernel = vector_env("escaramuza/Cairn-v0", 2, reward_shaping=True)
    assert isinstance(kernel, KernelVectorEnv) and kernel.kernel_refusal is None
    with pytest.raises(KernelEnvRefusal, match="mcts"):
        vector_env("escaramuza/Cairn-v0", 2, "kernel", opponent="mcts:20it")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_python_fallback_has_the_kernels_action_masks(mode: str) -> None:
    """docs/environments.md: ``vector_env``'s result has ``action_masks()`` whoever steps
    it, lane for lane the kernel's."""
    python = vector_env("escaramuza/Cairn-v0", 3, mode)
    kernel = vector_env("escaramuza/Cairn-v0", 3, "kernel")
    try:
        python.reset(seed=5)
        kernel.reset(seed=5)
        for _step in range(3):
            masks = python.action_masks()
            assert np.array_equal(masks, kernel.action_masks())
            first = masks.argmax(axis=1)
            python.step(first)
            kernel.step(first)
    finally:
        python.close()


def test_the_spaces_are_the_python_envs() -> None:
    for env_id in ("escaramuza/DestinyDice-v0", "escaramuza/Sistema2d10-v0"):
        vec = vector_env(env_id, 3)
        single = gym.make(env_id)
        assert vec.single_observation_space == single.observation_space
        assert vec.single_action_space == single.action_space


@pytest.mark.parametrize("name", SHIPPED)
@pytest.mark.parametrize(("side", "agent"), [("enemies", "heuristic"), ("heroes", "first-legal")])
def test_autoplay_is_the_python_env_with_the_agent_as_the_learner(
    name: str, side: str, agent: str
) -> None:
    """``autoplay`` plays the battles ``reset(seed=s)`` starts with the learner's side
    played by the agent: each is the Python env's battle of the same seed, the agent
    taking the learner's decisions with the env's agents' generator (the one the kernel
    shares between the two sides)."""
    from escaramuza.agents import make_agent

    scenario = load_scenario(name)
    ruleset = scenario.ruleset.id
    kwargs: dict[str, Any] = {"scenario": scenario, "side": side, "opponent": "heuristic"}
    lanes, seed = 4, 31
    vec = KernelVectorEnv(ruleset, lanes, **kwargs)
    winners = vec.autoplay(agent, seed=seed)
    learner = make_agent(agent)
    for b in range(lanes):
        env = EscaramuzaEnv(ruleset, **kwargs, narrate=False)
        env.reset(seed=seed + b)
        while env.state.outcome is None:
            action = learner.act(env.state, env._rng)
            slot = next(k for k, a in env.legal_actions().items() if a == action)
            env.step(slot)
        outcome = env.state.outcome
        want = 2 if outcome.winner is None else (0 if outcome.winner.value == "heroes" else 1)
        assert winners[b] == want, (name, b)
        got = vec.last_battle(b)
        engine = final_battle(env.state, got.seed, got.decisions)
        assert [str(m) for m in diff(engine, got)] == [], (name, b)
    with pytest.raises(gym.error.ResetNeeded):
        vec.step(np.zeros(lanes, dtype=np.int64))


@pytest.mark.parametrize(
    "lanes",
    [np.ones(5000, dtype=np.bool_), np.ones(2, dtype=np.bool_), np.array([0, 2])],
    ids=["longer", "shorter", "lane-numbers"],
)
def test_restart_and_step_only_refuse_a_lanes_mask_that_is_not_one_flag_a_lane(
    lanes: np.ndarray,
) -> None:
    """The compiled step reads and writes the lanes by position without bounds checks: a
    mask longer than the lanes wrote past them (a segmentation fault), lane numbers picked
    other lanes. Both are refused before the kernel is called, and no lane moved."""
    vec = KernelVectorEnv("destiny_dice", 3, "destiny_dice/brann-vs-saqueador", threads=1)
    obs, _ = vec.reset(seed=4)
    want = f"lanes must be a bool array of shape \\(3,\\), one flag a lane, not {lanes.dtype}"
    with pytest.raises(ValueError, match=want):
        vec.step_only(lanes, np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match=want):
        vec.restart(lanes)
    assert np.array_equal(vec.observations(), obs)


def test_the_step_is_compiled_for_writable_c_ordered_masks_only() -> None:
    """numba compiles the step once per tuple of argument types, and a read-only or a
    strided array is another type: each would cost a first compile of the step again
    (about 5 s). Every mask the env hands the step, its own or a caller's lanes, is a
    writable C-ordered array."""
    from numba.core import types

    vec = KernelVectorEnv("destiny_dice", 3, "destiny_dice/brann-vs-saqueador", threads=1)
    vec.reset(seed=4)
    vec.step(np.argmax(vec.action_masks(), axis=1))
    frozen = np.ones(3, dtype=np.bool_)
    frozen.flags.writeable = False
    vec.restart(frozen)
    vec.step_only(np.ones(6, dtype=np.bool_)[::2], np.argmax(vec.action_masks(), axis=1))
    arrays = [
        # The step is called from Python: its compilations are its twin's (rules.core.jit).
        t
        for sig in vec._compiled.step_lanes.python_twin.signatures
        for t in sig
        if isinstance(t, types.Array)
    ]
    assert arrays
    assert [t for t in arrays if not t.mutable or t.layout != "C"] == []


def test_actions_that_are_not_one_whole_number_a_lane_are_refused() -> None:
    """A float array was cast to int64 (2.7 played slot 2; NaN became an arbitrary integer)
    and a wrong count failed in numpy's reshape; both are refused before any lane moves,
    in the batched env and in stable-baselines3's ``KernelVecEnv``."""
    from escaramuza.envs.sb3 import KernelVecEnv

    vec = KernelVectorEnv("destiny_dice", 3, "destiny_dice/brann-vs-saqueador", threads=1)
    obs, _ = vec.reset(seed=4)
    legal = np.array([np.flatnonzero(m)[0] for m in vec.action_masks()])
    with pytest.raises(ValueError, match="actions: slot indices \\(whole numbers\\) expected"):
        vec.step(legal + 0.7)
    with pytest.raises(ValueError, match="actions: slot indices \\(whole numbers\\) expected"):
        vec.step(np.array([legal[0], np.nan, legal[2]]))
    with pytest.raises(ValueError, match="one action per lane \\(3\\) expected, not 2"):
        vec.step(legal[:2])
    assert np.array_equal(vec.observations(), obs)
    sb3 = KernelVecEnv("destiny_dice", 2, scenario="destiny_dice/brann-vs-saqueador")
    sb3.reset()
    with pytest.raises(ValueError, match="actions: slot indices \\(whole numbers\\) expected"):
        sb3.step_async(np.array([0.5, 1.0]))
    # Whole floats are their slots, as integers are.
    _, rewards, *_ = vec.step(legal.astype(np.float64))
    assert np.array_equal(rewards, np.zeros(3))


@pytest.mark.parametrize("mode", ["kernel", "sync"])
def test_the_batched_env_and_its_lanes_stepped_one_by_one_take_the_same_actions(
    mode: str,
) -> None:
    """The kernel's batched env took a float32 array and a bool array (``[True, False]``
    played slots 1 and 0) that its lanes stepped one by one (Gymnasium's
    ``SyncVectorEnv``, SB3's ``DummyVecEnv``) refused, and the single env took ``True``
    as slot 1 but refused ``np.True_`` and ``np.float32(3.0)``. One rule everywhere: a
    float of any precision holding a whole number is its slot, a bool is no slot."""
    vec = vector_env("escaramuza/Donjon-v0", 2, mode, scenario="donjon/duelo")
    obs, _ = vec.reset(seed=1)
    legal = np.array([np.flatnonzero(m)[0] for m in vec.action_masks()])
    with pytest.raises(ValueError, match="whole number"):
        vec.step(np.array([True, False]))
    assert np.array_equal(vec.action_masks()[:, legal].diagonal(), [True, True])
    for dtype in (np.float32, np.float16):
        _, _, _, _, infos = vec.step(legal.astype(dtype))
        assert not np.asarray(infos["illegal_action"]).any()
        legal = np.array([np.flatnonzero(m)[0] for m in vec.action_masks()])
    vec.close()
    env = EscaramuzaEnv("donjon", "donjon/duelo")
    env.reset(seed=1)
    log_length = len(env.state.log)
    for bad in (True, False, np.True_, np.array(True)):
        with pytest.raises(ValueError, match="an action is a slot index \\(a whole number\\)"):
            env.step(bad)
    assert len(env.state.log) == log_length
    for dtype in (np.float32, np.float16):
        slot = dtype(np.flatnonzero(env.action_masks())[0])
        _, _, _, _, info = env.step(slot)
        assert info["illegal_action"] is False


@pytest.mark.parametrize("option", ["reward_shaping", "narrate"])
def test_a_boolean_option_that_is_not_a_bool_is_refused(option: str) -> None:
    """``reward_shaping="no"`` turned shaping on in the batched env, as in the single one;
    every batched env (and the fallback to the Python env) refuses it by name."""
    from escaramuza.envs.sb3 import KernelVecEnv

    want = f"^{option} must be True or False, not 'no'$"
    with pytest.raises(ValueError, match=want):
        KernelVectorEnv("destiny_dice", 2, **{option: "no"})
    with pytest.raises(ValueError, match=want):
        KernelVecEnv("destiny_dice", 2, **{option: "no"})
    for mode in ("auto", "sync"):
        with pytest.raises(ValueError, match=want):
            vector_env("escaramuza/DestinyDice-v0", 2, mode, **{option: "no"})  # type: ignore[arg-type]


def test_an_illegal_penalty_that_is_not_a_finite_number_at_least_0_is_refused() -> None:
    with pytest.raises(ValueError, match="illegal_penalty must be a finite number >= 0, not nan"):
        KernelVectorEnv("destiny_dice", 2, illegal_penalty=float("nan"))


@pytest.mark.parametrize("num_envs", [0, -2, 1.5, "3", True])
@pytest.mark.parametrize("mode", ["auto", "sync"])
def test_num_envs_that_is_not_a_whole_number_of_lanes_is_refused(num_envs: Any, mode: str) -> None:
    """1.5 lanes were one lane and "3" three; no lanes in Gymnasium's ``SyncVectorEnv``
    failed on an IndexError. Each is a ValueError naming the value, in every mode."""
    want = f"num_envs must be a whole number of at least 1, not {num_envs!r}"
    with pytest.raises(ValueError, match=want.replace("(", "\\(").replace(")", "\\)")):
        vector_env("escaramuza/DestinyDice-v0", num_envs, mode)  # type: ignore[arg-type]


@pytest.mark.parametrize("threads", [0, 1.5, "2", float("nan"), True], ids=repr)
def test_threads_that_is_not_a_whole_number_is_refused_by_name(threads: Any) -> None:
    """1.5 threads were one and "2" two; NaN failed on an int() message naming nothing."""
    want = f"threads must be a whole number of at least 1, not {threads!r}"
    with pytest.raises(ValueError, match=want.replace("(", "\\(").replace(")", "\\)")):
        KernelVectorEnv("destiny_dice", 4, threads=threads)
    with pytest.raises(ValueError, match="threads"):
        vector_env("escaramuza/Cairn-v0", 2, "sync", threads=threads)


@pytest.mark.parametrize(
    ("mode", "extra"), [("sync", {}), ("async", {}), ("auto", {"render_mode": "ansi"})]
)
def test_the_python_fallback_keeps_the_autoreset_mode_and_takes_threads(
    mode: str, extra: dict[str, Any]
) -> None:
    """``autoreset_mode`` and ``threads`` are the batched env's keywords: the fallback
    (asked for, or where the kernel refuses) builds Gymnasium's vector env in that mode
    and steps, where it passed both to ``gym.make`` and failed on a TypeError."""
    same = gym.vector.AutoresetMode.SAME_STEP
    venv = vector_env(
        "escaramuza/Cairn-v0",
        2,
        mode,
        autoreset_mode=same,
        threads=1,
        **extra,  # type: ignore[arg-type]
    )
    try:
        assert isinstance(venv, gym.vector.SyncVectorEnv | gym.vector.AsyncVectorEnv)
        assert venv.metadata["autoreset_mode"] is same
        venv.reset(seed=0)
        venv.step(venv.action_masks().argmax(axis=1))
    finally:
        venv.close()


def test_same_step_infos_carry_the_final_info_as_gymnasiums() -> None:
    """Same-step autoreset: each ended lane's last info in ``infos["final_info"]`` (its
    flag in ``_final_info``), as Gymnasium's ``SyncVectorEnv`` puts it over the Python
    env: the same flags, and for the ended lanes the same mask and illegal flag."""
    same = gym.vector.AutoresetMode.SAME_STEP
    kwargs = {"scenario": "destiny_dice/brann-vs-saqueador", "illegal_action": "noop"}
    python = gym.vector.SyncVectorEnv(
        [lambda: EscaramuzaEnv("destiny_dice", **kwargs, narrate=False) for _ in range(3)],
        autoreset_mode=same,
    )
    kernel = KernelVectorEnv("destiny_dice", 3, **kwargs, autoreset_mode=same)
    python.reset(seed=2)
    kernel.reset(seed=2)
    ends = 0
    for _ in range(400):
        first = kernel.action_masks().argmax(axis=1)
        *_, want = python.step(first)
        *_, got = kernel.step(first)
        assert ("final_info" in got) == ("final_info" in want)
        if "final_info" not in want:
            continue
        ends += 1
        done = want["_final_info"]
        assert np.array_equal(got["_final_info"], done)
        assert np.array_equal(got["_final_obs"], want["_final_obs"])
        for key in ("action_mask", "illegal_action"):
            assert np.array_equal(got["final_info"][f"_{key}"], done)
            assert np.array_equal(got["final_info"][key][done], want["final_info"][key][done])
    assert ends >= 3


def test_the_last_battle_is_the_one_that_ended_though_the_next_one_suspends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Donjon battle suspends for an odds entry not computed yet (the driver fills it
    and plays the battle again). With same-step autoreset the next battle begins in the
    step the last one ended: its suspension must not overwrite the ended battle's final
    globals, which ``last_winners`` and ``last_battle`` read (they read a battle still
    running). Odds tables empty, as a fresh process has them, so openings suspend."""
    from escaramuza.rules.donjon import kernel as donjon_kernel

    monkeypatch.setattr(donjon_kernel, "_TABLES", {})
    kwargs: dict[str, Any] = {"scenario": "donjon/emboscada", "opponent": "heuristic"}
    vec = KernelVectorEnv(
        "donjon", 1, **kwargs, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP, threads=1
    )
    env = EscaramuzaEnv("donjon", **kwargs, narrate=False)
    vec.reset(seed=0)
    env.reset(seed=0)
    pick = random.Random(0)
    ended = 0
    for t in range(300):
        action = pick.choice(np.flatnonzero(vec.action_masks()[0]).tolist())
        vec.step(np.array([action]))
        *_, term, trunc, _ = env.step(action)
        if not (term or trunc):
            continue
        ended += 1
        outcome = env.state.outcome
        assert outcome is not None
        winner = 2 if outcome.winner is None else ("heroes", "enemies").index(outcome.winner.value)
        assert int(vec.last_winners()[0]) == winner, t
        got = vec.last_battle(0)
        assert [str(m) for m in diff(final_battle(env.state, got.seed, got.decisions), got)] == []
        env.reset()
    assert ended >= 3


def test_reset_takes_numpy_integer_seeds_and_refuses_other_seeds_whole() -> None:
    """A NumPy integer seed failed on "'numpy.int64' object is not iterable" (and a list
    of them in Gymnasium's seeding), a float on "'float' object is not iterable"; a
    list with a bad seed re-seeded the lanes before it. NumPy integers are now seeds,
    anything else a ValueError naming it, and a refused list changes no lane."""
    vec = KernelVectorEnv("destiny_dice", 3, "destiny_dice/brann-vs-saqueador", threads=1)
    want, _ = vec.reset(seed=5)
    assert np.array_equal(vec.reset(seed=np.int64(5))[0], want)
    assert np.array_equal(vec.reset(seed=np.arange(5, 8))[0], want)
    with pytest.raises(ValueError, match="reset: seed must be an int, a list of one seed"):
        vec.reset(seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reset: seed must be an int, a list of one seed"):
        vec.reset(seed="123")  # type: ignore[arg-type]
    with pytest.raises(gym.error.Error, match="Seed must be greater or equal to zero"):
        vec.reset(seed=[9, 9, -1])
    # The refused list left lane 0's generator as seed 5 made it: its next battle is the
    # one a fresh env seeded 5 plays second.
    twin = KernelVectorEnv("destiny_dice", 3, "destiny_dice/brann-vs-saqueador", threads=1)
    twin.reset(seed=5)
    vec.reset()
    twin.reset()
    assert vec.dice_seeds[0] == twin.dice_seeds[0]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_python_envs_take_the_numpy_integer_seeds_the_batched_env_takes(mode: str) -> None:
    """The batched env took ``np.int64(5)`` as a seed; the single env, the PettingZoo
    envs and the Python fallback of ``vector_env`` (the same lanes stepped one by one)
    refused it with Gymnasium's "Seed must be a python integer" (the fallback with "no
    len()"). Each now takes it as the int it holds: the same battles as ``seed=5``."""
    from escaramuza.envs import aec, parallel_env

    env = EscaramuzaEnv("destiny_dice", "destiny_dice/brann-vs-saqueador")
    want, _ = env.reset(seed=5)
    assert np.array_equal(env.reset(seed=np.int64(5))[0], want)
    lanes = vector_env("escaramuza/DestinyDice-v0", 2, mode, scenario=env.scenario)
    want_lanes, _ = lanes.reset(seed=5)
    assert np.array_equal(want_lanes[0], want)
    for seed in (np.int64(5), np.arange(5, 7), [np.int32(5), np.uint8(6)]):
        assert np.array_equal(lanes.reset(seed=seed)[0], want_lanes)
    lanes.close()
    two = parallel_env(ruleset="destiny_dice", scenario="destiny_dice/brann-vs-saqueador")
    want_two, _ = two.reset(seed=5)
    got_two, _ = two.reset(seed=np.int64(5))
    assert all(
        np.array_equal(got_two[a]["observation"], want_two[a]["observation"]) for a in two.agents
    )
    sides = aec.env(ruleset="destiny_dice", scenario="destiny_dice/brann-vs-saqueador")
    sides.reset(seed=5)
    want_side = sides.observe(sides.agent_selection)["observation"]
    sides.reset(seed=np.int64(5))
    assert np.array_equal(sides.observe(sides.agent_selection)["observation"], want_side)


def test_a_closed_batched_env_refuses_every_step() -> None:
    """A step after close() started a new thread pool that nothing closed any more (close
    does nothing the second time); reset, step, autoplay, step_only and restart are now
    refused, as Gymnasium's AsyncVectorEnv refuses them."""
    env = KernelVectorEnv("destiny_dice", 64, threads=2)
    env.reset(seed=0)
    env.step(env.action_masks().argmax(axis=1))  # each lane's first legal slot
    assert env._pool is not None
    env.close()
    env.close()  # again: nothing
    assert env._pool is None
    lanes = np.ones(64, dtype=np.bool_)
    calls = [
        lambda: env.reset(seed=0),
        lambda: env.step(np.zeros(64, dtype=np.int64)),
        lambda: env.autoplay("heuristic", seed=0),
        lambda: env.step_only(lanes, np.zeros(64, dtype=np.int64)),
        lambda: env.restart(lanes),
    ]
    for call in calls:
        with pytest.raises(gym.error.ClosedEnvironmentError) as caught:
            call()
        assert str(caught.value) == (
            "escaramuza/DestinyDice-v0: the env is closed (close() was called); make a new one"
        )
    assert env._pool is None
