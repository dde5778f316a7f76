"""The network of expert iteration (:mod:`escaramuza.training.expert`): the MaskablePPO
model ``escaramuza train`` would start from, and its fit to a round's labelled positions
(the actor by cross-entropy against the planner's picks, the critic by squared error
against the positions' values)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

if TYPE_CHECKING:
    from escaramuza.envs.common import EnvLimits
    from escaramuza.training.expert import Positions

#: Epochs over a round's positions, and the minibatch size.
EPOCHS = 40
BATCH = 256
#: Weight of the value loss beside the policy's cross-entropy.
VALUE_WEIGHT = 0.5
#: The learning rate's course over the epochs: held, or cosine-annealed towards 0.
SCHEDULES = ("constant", "cosine")


def fit(
    model: Any,
    data: Positions,
    epochs: int = EPOCHS,
    batch: int = BATCH,
    seed: int = 0,
    value_weight: float = VALUE_WEIGHT,
    learning_rate: float | None = None,
    schedule: str = "constant",
    log: TextIO | None = None,
) -> dict[str, float]:
    """Train ``model``'s policy (a MaskablePPO policy) on ``data``: cross-entropy of the
    masked action distribution against each policy position's picked slot, plus
    ``value_weight`` × the squared error of the critic against every position's value.
    Adam at ``learning_rate`` (None: the model's), held or, with ``schedule="cosine"``,
    annealed epoch by epoch along a half cosine (the first epoch at the full rate),
    minibatches drawn by ``seed``. Returns the last epoch's mean losses and the actor's
    agreement with the labels."""
    import torch

    if schedule not in SCHEDULES:
        raise ValueError(f"fit: schedule must be one of {SCHEDULES}, not {schedule!r}")
    policy = model.policy
    policy.set_training_mode(True)
    rate = model.learning_rate if learning_rate is None else learning_rate
    optimizer = torch.optim.Adam(policy.parameters(), lr=rate)
    annealing = (
        torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs)
        if schedule == "cosine"
        else None
    )
    gen = np.random.default_rng(seed)
    obs = torch.as_tensor(data.obs)
    mask = torch.as_tensor(data.mask)
    target = torch.as_tensor(data.target)
    value = torch.as_tensor(data.value)
    n = len(data)
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        order = gen.permutation(n)
        sums = {"policy_loss": 0.0, "value_loss": 0.0, "agree": 0.0, "labelled": 0.0}
        for at in range(0, n, batch):
            idx = torch.as_tensor(order[at : at + batch])
            dist = policy.get_distribution(obs[idx], action_masks=mask[idx].numpy())
            logits = dist.distribution.logits
            labelled = target[idx] >= 0
            v = policy.predict_values(obs[idx]).flatten()
            v_loss = torch.mean((v - value[idx]) ** 2)
            loss = value_weight * v_loss
            if labelled.any():
                logp = torch.log_softmax(logits[labelled], dim=-1)
                chosen = target[idx][labelled]
                p_loss = -logp.gather(1, chosen[:, None]).mean()
                loss = loss + p_loss
                sums["policy_loss"] += float(p_loss.detach()) * int(labelled.sum())
                sums["agree"] += float((logits[labelled].argmax(1) == chosen).sum())
                sums["labelled"] += int(labelled.sum())
            sums["value_loss"] += float(v_loss.detach()) * len(idx)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            optimizer.step()
        if annealing is not None:
            annealing.step()
        labelled_n = max(sums["labelled"], 1.0)
        stats = {
            "policy_loss": sums["policy_loss"] / labelled_n,
            "value_loss": sums["value_loss"] / n,
            "agreement": sums["agree"] / labelled_n,
        }
        if log is not None and (epoch + 1) % 10 == 0:
            log.write(
                f"epoch {epoch + 1}: policy loss {stats['policy_loss']:.4f}, value loss "
                f"{stats['value_loss']:.4f}, agreement with the planner "
                f"{stats['agreement']:.1%}\n"
            )
            log.flush()
    policy.set_training_mode(False)
    return stats


def new_model(
    env: str,
    scenario: str,
    side: str,
    seed: int,
    hyperparameters: Any = None,
    limits: EnvLimits | None = None,
) -> tuple[Any, Any]:
    """The MaskablePPO model ``escaramuza train`` would start from for this run (its
    ``hyperparameters``, default the defaults; ``OnceMaskedPolicy`` and ``net_arch``), on
    a one-lane env whose spaces are the env's under ``limits`` (None:
    the standard ones); and the config it was built from."""
    from escaramuza.training.config import TrainConfig
    from escaramuza.training.train import _model
    from escaramuza.training.vec import _vec_env

    config = TrainConfig.model_validate(
        {
            "env": env,
            "scenarios": [scenario],
            "side": side,
            "n_envs": 1,
            "seed": seed,
            "vec_env": "dummy",
            "hyperparameters": hyperparameters or {},
            "limits": "standard" if limits is None else limits._asdict(),
        }
    )
    venv = _vec_env(config, "heuristic", 1, seed, "dummy")
    import tempfile

    with tempfile.TemporaryDirectory() as logs:
        model = _model(config, venv, None, Path(logs))
    return model, config
