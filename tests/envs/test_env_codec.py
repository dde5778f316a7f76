"""The action layout: sizes, encode/decode round trips and masks = legal_actions."""

from __future__ import annotations

import random

import numpy as np
import pytest

from escaramuza.envs.codec import ActionCodec, LayoutError
from escaramuza.envs.single import EscaramuzaEnv
from escaramuza.rules import get_ruleset
from escaramuza.rules.core.model import Action, VerbSpec
from tests.envs.envtest_cases import ENV_RULESETS, cases, masked_choice


def _independent_size(verbs: tuple[VerbSpec, ...], c: int, z: int, i: int) -> int:
    return sum(
        (c if v.target else 1) * (z if v.zone else 1) * (i if v.item else 1) * (len(v.options) or 1)
        for v in verbs
    )


@pytest.mark.parametrize("ruleset_id", sorted(set(ENV_RULESETS.values())))
@pytest.mark.parametrize(("c", "z", "i"), [(16, 16, 6), (4, 3, 2), (1, 1, 1)])
def test_layout_size_is_the_sum_of_the_verb_blocks(ruleset_id: str, c: int, z: int, i: int) -> None:
    ruleset = get_ruleset(ruleset_id)
    codec = ActionCodec(ruleset, c, z, i)
    assert codec.n == _independent_size(ruleset.verbs, c, z, i)
    # Blocks tile [0, n) in verb order.
    assert [b.spec.name for b in codec.blocks] == [v.name for v in ruleset.verbs]
    assert codec.blocks[0].offset == 0
    for a, b in zip(codec.blocks, codec.blocks[1:], strict=False):
        assert b.offset == a.offset + a.size


@cases
def test_every_legal_action_round_trips_and_the_mask_is_exactly_the_legal_set(
    env_id: str, ruleset_id: str, scenario: str
) -> None:
    env = EscaramuzaEnv(ruleset_id, scenario, opponent="random")
    rng = random.Random(7)
    for seed in (1, 2):
        env.reset(seed=seed)
        for _ in range(60):
            state = env.state
            if state.outcome is not None:
                # The opponent ended the battle before the learner's first decision:
                # only action 0 is offered and it reports the end.
                assert np.flatnonzero(env.action_masks()).tolist() == [0]
                _, _, terminated, truncated, _ = env.step(0)
                assert terminated or truncated
                break
            legal = state.ruleset.legal_actions(state)
            indices = [env.codec.encode(state, a) for a in legal]
            assert len(set(indices)) == len(legal), "two legal actions share an index"
            assert all(0 <= k < env.action_space.n for k in indices)
            for k, action in zip(indices, legal, strict=True):
                assert env.codec.decode(state, k) == action
            mask = env.action_masks()
            assert mask.dtype == np.bool_ and mask.shape == (env.action_space.n,)
            assert set(np.flatnonzero(mask).tolist()) == set(indices)
            _, _, terminated, truncated, _ = env.step(masked_choice(mask, rng))
            if terminated or truncated:
                break


@pytest.mark.parametrize("ruleset_id", sorted(set(ENV_RULESETS.values())))
def test_block_index_formula(ruleset_id: str) -> None:
    """Slot = offset + ((target * I + item) * Z + zone) * O + option, checked by hand."""
    env = EscaramuzaEnv(ruleset_id, opponent="random")
    env.reset(seed=0)
    state = env.state
    codec = env.codec
    c_max, z_max, i_max = codec.max_combatants, codec.max_zones, codec.max_items
    for action in state.ruleset.legal_actions(state):
        block = codec.by_verb[action.verb]
        spec = block.spec
        t = state.by_id[action.target].index if spec.target else 0
        it = state.by_id[action.actor].items.index(action.item) if spec.item else 0
        zn = state.battlefield.zone_ids.index(action.zone) if spec.zone else 0
        op = spec.options.index(action.option) if spec.options else 0
        n_i = i_max if spec.item else 1
        n_z = z_max if spec.zone else 1
        n_o = len(spec.options) or 1
        assert codec.encode(state, action) == block.offset + ((t * n_i + it) * n_z + zn) * n_o + op
        assert block.size == (c_max if spec.target else 1) * n_i * n_z * n_o


@pytest.mark.parametrize("ruleset_id", sorted(set(ENV_RULESETS.values())))
def test_encode_refuses_actions_that_break_the_verb_spec(ruleset_id: str) -> None:
    env = EscaramuzaEnv(ruleset_id, opponent="random")
    env.reset(seed=0)
    state = env.state
    actor = state.pending.actor  # type: ignore[union-attr]
    with pytest.raises(LayoutError, match="not in the ruleset's verbs"):
        env.codec.encode(state, Action("bailar", actor))
    no_target = next((v for v in state.ruleset.verbs if not v.target and not v.options), None)
    if no_target is not None:
        bad = Action(
            no_target.name,
            actor,
            target=actor,
            zone=state.battlefield.zone_ids[0] if no_target.zone else None,
            item=state.by_id[actor].items[0]
            if no_target.item and state.by_id[actor].items
            else None,
        )
        with pytest.raises(LayoutError, match="does not take a target"):
            env.codec.encode(state, bad)


@pytest.mark.parametrize("ruleset_id", sorted(set(ENV_RULESETS.values())))
def test_decode_of_an_empty_slot_is_none(ruleset_id: str) -> None:
    env = EscaramuzaEnv(ruleset_id, opponent="random")
    env.reset(seed=0)
    state = env.state
    target_verb = next((b for b in env.codec.blocks if b.spec.target), None)
    if target_verb is None:
        pytest.skip("no verb with a target")
    last_slot = env.codec.max_combatants - 1
    assert last_slot >= len(state.combatants)
    empty = target_verb.offset + last_slot * target_verb.target_stride
    assert env.codec.decode(state, empty) is None
    with pytest.raises(IndexError):
        env.codec.decode(state, env.codec.n)
