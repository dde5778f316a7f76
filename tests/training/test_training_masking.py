"""The once-built masked distribution (training/masking.py) against sb3-contrib's own.

The claim: the same distribution as upstream's ``MaskableCategorical`` (probabilities,
log-probabilities and entropy agree to float rounding, masked slots have probability 0),
built once; the policy has upstream's layers, so the same seed gives the same weights and
the same evaluation of actions.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from escaramuza.training.masking import (
    OnceMaskedCategorical,
    OnceMaskedCategoricalDistribution,
    OnceMaskedPolicy,
)
from escaramuza.training.train import policy_for

pytestmark = pytest.mark.training


def _batch(seed: int, rows: int, n: int, legal: int) -> tuple[th.Tensor, np.ndarray]:
    gen = np.random.default_rng(seed)
    logits = th.as_tensor(gen.normal(0.0, 3.0, (rows, n)), dtype=th.float32)
    masks = np.zeros((rows, n), dtype=bool)
    for row in masks:
        row[gen.choice(n, size=legal, replace=False)] = True
    return logits, masks


@pytest.mark.parametrize(
    ("seed", "rows", "n", "legal"),
    [(0, 1, 345, 6), (1, 128, 345, 6), (2, 16, 5, 1), (3, 16, 40, 40), (4, 64, 345, 100)],
)
def test_once_masked_matches_upstream(seed: int, rows: int, n: int, legal: int) -> None:
    logits, masks = _batch(seed, rows, n, legal)
    ours = OnceMaskedCategorical(logits, masks)
    theirs = MaskableCategorical(logits=logits, masks=masks)
    # Bit for bit: the same operations on the same numbers.
    assert th.equal(ours.logits, theirs.logits)
    assert th.equal(ours.probs, theirs.probs)
    # Masked slots: probability exactly 0 in both, as exp(-1e8) underflows.
    assert bool((ours.probs[~th.as_tensor(masks)] == 0).all())
    actions = th.as_tensor([int(np.flatnonzero(row)[-1]) for row in masks])
    assert th.equal(ours.log_prob(actions), theirs.log_prob(actions))
    assert th.equal(ours.entropy(), theirs.entropy())
    th.manual_seed(seed)
    drawn = ours.sample()
    th.manual_seed(seed)
    assert th.equal(drawn, theirs.sample())
    # A row with one legal slot is certain: log-probability 0, entropy 0.
    if legal == 1:
        assert th.allclose(ours.log_prob(actions), th.zeros(rows), atol=1e-6)
        assert th.allclose(ours.entropy(), th.zeros(rows), atol=1e-6)


def test_once_masked_samples_only_legal_slots() -> None:
    logits, masks = _batch(5, 32, 345, 3)
    th.manual_seed(0)
    draws = OnceMaskedCategorical(logits, masks).sample(th.Size([200]))
    legal = th.as_tensor(masks).gather(1, draws.T)
    assert bool(legal.all())


def test_unmasked_distribution_is_upstreams_unmasked_one() -> None:
    logits, _ = _batch(6, 8, 30, 30)
    dist = OnceMaskedCategoricalDistribution(30).proba_distribution(logits)
    # No apply_masking: built unmasked on first use.
    assert th.equal(dist.distribution.logits, MaskableCategorical(logits=logits).logits)
    assert th.allclose(dist.distribution.probs, th.softmax(logits, dim=-1), atol=1e-6)
    assert dist.distribution.masks is None


def test_apply_masking_replaces_an_earlier_mask() -> None:
    logits, masks = _batch(7, 4, 12, 3)
    dist = OnceMaskedCategoricalDistribution(12).proba_distribution(logits)
    dist.apply_masking(masks)
    dist.apply_masking(~masks)
    assert bool((dist.distribution.probs[th.as_tensor(masks)] == 0).all())
    dist.apply_masking(None)
    assert th.allclose(dist.distribution.probs, th.softmax(logits, dim=-1), atol=1e-6)


def test_distribution_needs_logits_first() -> None:
    dist = OnceMaskedCategoricalDistribution(4)
    with pytest.raises(RuntimeError, match="proba_distribution"):
        dist.apply_masking(None)
    with pytest.raises(RuntimeError, match="proba_distribution"):
        _ = dist.distribution


def _policies(seed: int) -> tuple[MaskableActorCriticPolicy, OnceMaskedPolicy]:
    obs = spaces.Box(-1.0, 1.0, (7,), np.float32)
    act = spaces.Discrete(9)
    built = []
    for cls in (MaskableActorCriticPolicy, OnceMaskedPolicy):
        th.manual_seed(seed)
        built.append(cls(obs, act, lambda _: 3e-4, net_arch=[16, 16]))
    return built[0], built[1]  # type: ignore[return-value]


def test_policy_same_weights_and_evaluation_as_upstream() -> None:
    theirs, ours = _policies(11)
    for a, b in zip(theirs.state_dict().values(), ours.state_dict().values(), strict=True):
        assert th.equal(a, b)
    gen = np.random.default_rng(3)
    obs = th.as_tensor(gen.uniform(-1, 1, (20, 7)), dtype=th.float32)
    masks = gen.random((20, 9)) < 0.4
    masks[:, 4] = True
    actions = th.full((20,), 4)
    v1, lp1, e1 = theirs.evaluate_actions(obs, actions, action_masks=masks)
    v2, lp2, e2 = ours.evaluate_actions(obs, actions, action_masks=masks)
    assert th.equal(v1, v2)
    assert th.equal(lp1, lp2)
    assert e1 is not None and e2 is not None
    assert th.equal(e1, e2)
    with th.no_grad():
        chosen, _, _ = ours(obs, deterministic=True, action_masks=masks)
    assert bool(th.as_tensor(masks).gather(1, chosen[:, None]).all())


def test_policy_refuses_a_non_discrete_action_space() -> None:
    obs = spaces.Box(-1.0, 1.0, (3,), np.float32)
    with pytest.raises(TypeError, match="Discrete"):
        OnceMaskedPolicy(obs, spaces.MultiDiscrete([2, 3]), lambda _: 3e-4)


def test_train_uses_the_once_masked_policy_for_maskable_ppo_only() -> None:
    assert policy_for("maskable-ppo") is OnceMaskedPolicy
    assert policy_for("ppo") == "MlpPolicy"


def test_saved_model_reloads_with_the_policy_class(tmp_path: object) -> None:
    from escaramuza.training.envs import make_train_env

    env = make_train_env("escaramuza/Cairn-v0", ["cairn/duelo_bugbear"], "enemies", "random", False)
    model = MaskablePPO(OnceMaskedPolicy, env, n_steps=32, batch_size=16, n_epochs=1, seed=0)
    path = f"{tmp_path}/m.zip"
    model.save(path)
    loaded = MaskablePPO.load(path, device="cpu")
    assert type(loaded.policy) is OnceMaskedPolicy
    obs, _ = env.reset(seed=0)
    mask = env.action_masks()
    a1, _ = model.predict(obs, deterministic=True, action_masks=mask)
    a2, _ = loaded.predict(obs, deterministic=True, action_masks=mask)
    assert int(a1) == int(a2) and mask[int(a1)]


def test_training_gives_the_stock_policys_weights() -> None:
    """Same seed, same env: MaskablePPO with OnceMaskedPolicy ends with exactly the weights
    of MaskablePPO with sb3-contrib's MlpPolicy (so a shipped policy's command reproduces
    it whichever of the two trained it)."""
    from escaramuza.training.envs import make_train_env

    weights = []
    for policy in ("MlpPolicy", OnceMaskedPolicy):
        env = make_train_env(
            "escaramuza/Cairn-v0", ["cairn/duelo_bugbear"], "enemies", "heuristic", True
        )
        model = MaskablePPO(
            policy,
            env,
            n_steps=64,
            batch_size=32,
            n_epochs=2,
            seed=3,
            device="cpu",
            policy_kwargs={"net_arch": [16, 16]},
        )
        initial = {k: v.clone() for k, v in model.policy.state_dict().items()}
        model.learn(total_timesteps=192)
        weights.append(model.policy.state_dict())
        # The updates did change the weights: the comparison below is not of initial ones.
        assert any(not th.equal(initial[k], v) for k, v in weights[-1].items())
    stock, ours = weights
    assert stock.keys() == ours.keys()
    for name in stock:
        assert th.equal(stock[name], ours[name]), name


# -- fused_softmax: the masked logits normalised once ----------------------------------------
@pytest.mark.parametrize(
    ("seed", "rows", "n", "legal"),
    [(0, 1, 345, 6), (1, 128, 345, 6), (2, 16, 5, 1), (3, 16, 40, 40), (4, 64, 151, 30)],
)
def test_fused_softmax_is_upstreams_distribution_rounded_once(
    seed: int, rows: int, n: int, legal: int
) -> None:
    logits, masks = _batch(seed, rows, n, legal)
    ours = OnceMaskedCategorical(logits, masks, fused_softmax=True)
    theirs = MaskableCategorical(logits=logits, masks=masks)
    legal_slots = th.as_tensor(masks)
    # Independent of upstream's code path: the softmax of the legal logits alone, in
    # float64, is the distribution both must give.
    exact = th.zeros(rows, n, dtype=th.float64)
    for r in range(rows):
        row = logits[r].double()[legal_slots[r]]
        exact[r, legal_slots[r]] = th.softmax(row, dim=0)
    assert th.allclose(ours.probs.double(), exact, rtol=1e-5, atol=1e-7)
    assert th.allclose(ours.probs, theirs.probs, rtol=1e-5, atol=1e-7)
    assert bool((ours.probs[~legal_slots] == 0).all())
    assert th.allclose(ours.probs.sum(-1), th.ones(rows), atol=1e-6)
    actions = th.as_tensor([int(np.flatnonzero(row)[-1]) for row in masks])
    expected = th.log(exact.gather(1, actions[:, None]).squeeze(1))
    assert th.allclose(ours.log_prob(actions).double(), expected, atol=1e-5)
    assert th.allclose(ours.entropy(), theirs.entropy(), atol=1e-5)
    # One normalisation: the logits are exactly log_softmax of the masked raw logits.
    masked = th.where(legal_slots, logits, -1e8)
    assert th.equal(ours.logits, th.log_softmax(masked, dim=-1))
    th.manual_seed(seed)
    drawn = ours.sample(th.Size([50]))
    assert bool(legal_slots.gather(1, drawn.T).all())


def test_fused_softmax_unmasked_is_the_plain_softmax() -> None:
    logits, _ = _batch(6, 8, 30, 30)
    dist = OnceMaskedCategoricalDistribution(30, fused_softmax=True).proba_distribution(logits)
    assert th.equal(dist.distribution.logits, th.log_softmax(logits, dim=-1))
    assert dist.distribution.masks is None


def test_fused_softmax_is_a_saved_setting_of_the_policy(tmp_path: object) -> None:
    """Set by ``escaramuza train`` (its default), saved with the model, read back by
    SB3's loader and by escaramuza's safe one; a model saved without it keeps
    upstream's arithmetic."""
    from escaramuza.agents.policy.loading import load_model
    from escaramuza.training.config import Hyperparameters
    from escaramuza.training.envs import make_train_env
    from escaramuza.training.train import policy_kwargs

    assert Hyperparameters().fused_softmax is True
    assert policy_kwargs([16], False, True) == {"net_arch": [16], "fused_softmax": True}
    env = make_train_env("escaramuza/Cairn-v0", ["cairn/duelo_bugbear"], "enemies", "random", False)
    for fused in (True, False):
        model = MaskablePPO(
            OnceMaskedPolicy,
            env,
            n_steps=32,
            batch_size=16,
            n_epochs=1,
            seed=0,
            policy_kwargs=policy_kwargs([16], False, fused),
        )
        assert model.policy.action_dist.fused_softmax is fused
        path = f"{tmp_path}/m{fused}.zip"
        model.save(path)
        assert MaskablePPO.load(path, device="cpu").policy.action_dist.fused_softmax is fused
        loaded, _ = load_model(path)  # the safe loader: JSON and tensors only
        assert loaded.policy.action_dist.fused_softmax is fused


def test_fused_softmax_must_be_a_bool() -> None:
    obs = spaces.Box(-1.0, 1.0, (3,), np.float32)
    with pytest.raises(TypeError, match="fused_softmax"):
        OnceMaskedPolicy(obs, spaces.Discrete(4), lambda _: 3e-4, fused_softmax="yes")
