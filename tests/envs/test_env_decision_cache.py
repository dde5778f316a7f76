"""What the env keeps per learner decision: the mask and the observation.

For training throughput the env calls ``ruleset.legal_actions``
once per learner decision, keeps the index → action table and the mask, and
reuses them for ``action_masks()``, ``info["action_mask"]`` and for looking up the
chosen action — no second call to validate or decode it. It also keeps the
decision's observation, which an illegal no-op (nothing changed) returns again
instead of re-encoding it. These tests pin both halves: the reuse never serves a
stale mask or observation, and nothing computes the mask twice.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

import escaramuza.envs.single as single
from escaramuza.agents import make_agent
from escaramuza.envs.single import EscaramuzaEnv
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.state import BattleState
from tests.envs.envtest_cases import DEFAULT_CASES, default_cases


def _fresh_mask(env: EscaramuzaEnv) -> np.ndarray:
    """The mask recomputed from scratch from the current state."""
    state = env.state
    if state.outcome is not None:
        mask = np.zeros(env.codec.n, dtype=bool)
        mask[0] = True  # the env's documented placeholder once the battle is over
        return mask
    return env.codec.mask(state)


def _fresh_table(env: EscaramuzaEnv) -> dict[int, Action]:
    state = env.state
    if state.outcome is not None:
        return {}
    return env.codec.legal_map(state, state.ruleset.legal_actions(state))


def _check(env: EscaramuzaEnv, obs: np.ndarray, info: dict[str, Any]) -> None:
    assert np.array_equal(obs, env.encoder.encode(env.state, env.side))
    fresh = _fresh_mask(env)
    assert np.array_equal(env.action_masks(), fresh)
    assert np.array_equal(info["action_mask"], fresh)
    assert env.legal_actions() == _fresh_table(env)


@default_cases
@pytest.mark.parametrize("side", ["enemies", "heroes"])
def test_the_kept_mask_equals_a_fresh_one_after_every_step(
    env_id: str, ruleset_id: str, scenario: str, side: str
) -> None:
    # Legal and illegal (no-op) actions mixed: a no-op must leave the same decision's
    # mask in place, a legal one must replace it.
    env = EscaramuzaEnv(ruleset_id, scenario, side=side, illegal_action="noop")
    rng = random.Random(7)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        _check(env, obs, info)
        for _ in range(400):
            obs[:] = -1.0  # a caller scribbling on its array must not reach the kept one
            mask = env.action_masks()
            pool = np.flatnonzero(~mask) if rng.random() < 0.3 else np.flatnonzero(mask)
            obs, _, terminated, truncated, info = env.step(int(pool[rng.randrange(len(pool))]))
            _check(env, obs, info)
            if terminated or truncated:
                break
        assert env.state.outcome is not None, "the episode should have ended"


class _CountedOpponent:
    """The heuristic opponent, flagging while it decides (its own legal_actions calls)."""

    name = "counted-heuristic"

    def __init__(self) -> None:
        self.inner = make_agent("heuristic")
        self.inside = False

    def act(self, state: BattleState, rng: random.Random) -> Action:
        self.inside = True
        try:
            return self.inner.act(state, rng)
        finally:
            self.inside = False


@pytest.mark.parametrize(
    ("ruleset_id", "scenario"), [c[1:] for c in DEFAULT_CASES], ids=[c[0] for c in DEFAULT_CASES]
)
def test_legal_actions_runs_once_per_learner_decision(
    ruleset_id: str, scenario: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    opponent = _CountedOpponent()
    env = EscaramuzaEnv(ruleset_id, scenario, opponent=opponent, illegal_action="noop")
    engine = {"inside": False}
    calls: list[int] = []
    ruleset_cls = type(env.ruleset)
    original_legal = ruleset_cls.legal_actions
    original_apply = single.apply_action

    def counted_legal(self: Any, state: BattleState) -> list[Action]:
        # Count only the env layer's own calls: not the opponent's, nor any the engine
        # might make inside apply.
        if not opponent.inside and not engine["inside"]:
            calls.append(1)
        return original_legal(self, state)

    def flagged_apply(*args: Any, **kwargs: Any) -> Any:
        engine["inside"] = True
        try:
            return original_apply(*args, **kwargs)
        finally:
            engine["inside"] = False

    monkeypatch.setattr(ruleset_cls, "legal_actions", counted_legal)
    monkeypatch.setattr(single, "apply_action", flagged_apply)
    rng = random.Random(1)
    decisions = 0
    for seed in range(2):
        env.reset(seed=seed)
        decisions += env.state.outcome is None
        assert len(calls) == decisions
        for _ in range(400):
            for _ in range(3):
                mask = env.action_masks()  # reading the mask never recomputes it
            assert len(calls) == decisions
            illegal = np.flatnonzero(~mask)
            env.step(int(illegal[rng.randrange(len(illegal))]))  # a no-op: same decision
            assert len(calls) == decisions
            legal = np.flatnonzero(mask)
            _, _, terminated, truncated, _ = env.step(int(legal[rng.randrange(len(legal))]))
            decisions += env.state.outcome is None  # one more decision unless it ended
            assert len(calls) == decisions
            if terminated or truncated:
                break
    assert decisions > 10
