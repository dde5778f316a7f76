"""The observation: layout checked number by number against a slow reference encoder."""

from __future__ import annotations

import random

import numpy as np
import pytest

from escaramuza.envs.single import EscaramuzaEnv
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.state import BattleState
from tests.envs.envtest_cases import cases, masked_choice


def _reference(env: EscaramuzaEnv, state: BattleState, side: Side) -> np.ndarray:
    """The documented layout, written from the docstring with names, not offsets."""
    enc = env.encoder
    ruleset = state.ruleset
    slot_names = enc.slot_layout()
    per_slot = len(slot_names)
    out = np.zeros(enc.max_combatants * per_slot + len(enc.global_layout()), dtype=np.float32)
    acting = state.by_id[state.pending.actor] if state.pending else None
    clip = lambda v: max(-10.0, min(10.0, float(v)))  # noqa: E731
    for c in state.combatants:
        values: dict[str, float] = {
            "present": 1.0,
            "ally": float(c.side is side),
            "enemy": float(c.side is not side),
            "acting": float(c is acting),
            f"status.{c.status.value}": 1.0,
        }
        for key, scale in ruleset.resources.items():
            if key in c.resources:
                top = c.maxima.get(key, 0)
                values[f"{key}/max"] = clip(c.resources[key] / top) if top else 0.0
                values[f"{key}/scale"] = clip(c.resources[key] / scale)
        for name in c.conditions:
            # A variant (Sistema 2d10's incapacitado_torso) sets its condition's flag.
            flag = ruleset.condition_aliases.get(name, name)
            if flag in ruleset.conditions:
                values[f"condition.{flag}"] = 1.0
        if acting is not None:
            hops = state.battlefield.distance(acting.zone, c.zone)
            values["hops"] = min(1.0, hops / (enc.max_zones - 1))
            values["band"] = min(1.0, ruleset.band(hops) / (len(ruleset.band_names) - 1))
        values[f"zone[{state.battlefield.zone_ids.index(c.zone)}]"] = 1.0
        for i, v in enumerate(ruleset.features(state, c)):
            values[f"feature[{i}]"] = clip(v)
        for name, v in values.items():
            out[c.index * per_slot + slot_names.index(name)] = v
    g = enc.max_combatants * per_slot
    names = enc.global_layout()
    out[g + names.index("round/round_limit")] = state.round / state.scenario.round_limit
    out[g + names.index("learner_is_heroes")] = float(side is Side.HEROES)
    if state.pending is not None:
        out[g + names.index(f"kind.{state.pending.kind.name.lower()}")] = 1.0
        if state.pending.name in ruleset.decision_names:
            out[g + names.index(f"decision.{state.pending.name}")] = 1.0
    return out


@cases
def test_observation_matches_the_documented_layout(
    env_id: str, ruleset_id: str, scenario: str
) -> None:
    for side in ("enemies", "heroes"):
        env = EscaramuzaEnv(ruleset_id, scenario, side=side, opponent="random")
        rng = random.Random(1)
        obs, _ = env.reset(seed=9)
        for _ in range(40):
            assert obs.dtype == np.float32 and obs.shape == env.observation_space.shape
            assert obs in env.observation_space
            np.testing.assert_allclose(obs, _reference(env, env.state, env.side), atol=1e-6)
            obs, _, terminated, truncated, _ = env.step(masked_choice(env.action_masks(), rng))
            if terminated or truncated:
                np.testing.assert_allclose(obs, _reference(env, env.state, env.side), atol=1e-6)
                break


@pytest.mark.parametrize("side", ["enemies", "heroes"])
def test_the_acting_combatant_is_always_the_learners(side: str) -> None:
    env = EscaramuzaEnv("destiny_dice", side=side, opponent="random")
    rng = random.Random(2)
    obs, _ = env.reset(seed=2)
    per_slot = env.encoder.per_slot
    for _ in range(30):
        slots = obs[: env.encoder.max_combatants * per_slot].reshape(-1, per_slot)
        acting = np.flatnonzero(slots[:, 3])
        assert len(acting) == 1
        assert slots[acting[0], 1] == 1.0  # the acting combatant is an ally
        obs, _, terminated, truncated, _ = env.step(masked_choice(env.action_masks(), rng))
        if terminated or truncated:
            break


def test_s215_sistema_2d10_condition_variants_set_their_flag_size_unchanged() -> None:
    """S2-14's one-turn stun and an incapacitated location are conditions of their own,
    observed through the ``aturdido`` / ``incapacitado`` flags: the size stays 825
    (docs/environments.md)."""
    from escaramuza.rules.core.model import Condition

    env = EscaramuzaEnv("sistema_2d10", side="heroes", opponent="random")
    env.reset(seed=3)
    assert env.observation_space.shape == (825,)
    names = env.encoder.slot_layout()
    per_slot = len(names)
    c = env.state.combatants[0]
    c.conditions.clear()
    base = c.index * per_slot
    for name, flag in (
        ("aturdido_16", "condition.aturdido"),
        ("incapacitado_pierna_derecha", "condition.incapacitado"),
    ):
        assert env.encoder.encode(env.state, env.side)[base + names.index(flag)] == 0.0
        c.conditions[name] = Condition(name, 0)
        obs = env.encoder.encode(env.state, env.side)
        assert obs[base + names.index(flag)] == 1.0
        np.testing.assert_allclose(obs, _reference(env, env.state, env.side), atol=1e-6)
