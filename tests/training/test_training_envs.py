"""The training env: several scenarios sampled per episode; unmasked learners cut off."""

from __future__ import annotations

import numpy as np
import pytest

from escaramuza.training.envs import MAX_CONSECUTIVE_ILLEGAL, make_train_env

SCENARIOS = ["destiny_dice/emboscada", "destiny_dice/kaspar-tiroteo"]


def _picks(seed: int, n: int = 16) -> list[str]:
    env = make_train_env("escaramuza/DestinyDice-v0", SCENARIOS, "enemies", "random", False)
    names = []
    for i in range(n):
        _, info = env.reset(seed=seed if i == 0 else None)
        names.append(info["scenario"])
    return names


def test_scenarios_are_sampled_per_episode_reproducibly() -> None:
    first = _picks(3)
    assert set(first) == set(SCENARIOS)  # 16 draws: both appear (P(miss) = 2⁻¹⁵)
    assert _picks(3) == first


@pytest.mark.parametrize(
    ("side", "sides"), [("enemies", {"enemies"}), ("both", {"enemies", "heroes"})]
)
def test_side_both_samples_the_learner_side(side: str, sides: set[str]) -> None:
    env = make_train_env("escaramuza/Donjon-v0", [], side, "random", False)
    seen = set()
    for i in range(16):
        _, info = env.reset(seed=1 if i == 0 else None)
        seen.add(info["side"])
    assert seen == sides


def test_consecutive_illegal_actions_truncate_the_episode() -> None:
    env = make_train_env("escaramuza/DestinyDice-v0", SCENARIOS[:1], "enemies", "random", False)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    for step in range(1, MAX_CONSECUTIVE_ILLEGAL + 1):
        _, reward, terminated, truncated, info = env.step(illegal)
        assert info["illegal_action"] and reward == pytest.approx(-0.05)
        assert truncated == (step == MAX_CONSECUTIVE_ILLEGAL) and not terminated
    # A legal action resets the count.
    env.reset(seed=0)
    env.step(illegal)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert env.illegal_streak == 0


def test_training_env_infos_leave_out_events_and_mask_copy() -> None:
    """SB3's DummyVecEnv deep-copies every info dict; the training env keeps them small
    (MaskablePPO asks ``action_masks()``), and its battles are not narrated."""
    from escaramuza.rules.core.events import ActionTaken
    from escaramuza.training.envs import make_train_env

    env = make_train_env(
        "escaramuza/Cairn-v0", ["cairn/duelo_bugbear"], "enemies", "heuristic", True
    )
    _, info = env.reset(seed=0)
    assert "events" not in info and "action_mask" not in info
    legal = [i for i, ok in enumerate(env.action_masks()) if ok]
    _, _, _, _, info = env.step(legal[0])
    assert "events" not in info and "action_mask" not in info
    assert not any(isinstance(e, ActionTaken) for e in env.current.state.log)
