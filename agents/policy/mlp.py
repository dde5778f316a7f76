"""A stable-baselines3 actor-critic MLP run as plain numpy (:class:`NumpyActorCritic`).

A ``policy:`` agent's decision was mostly a torch call: building tensors and the
distribution costs about a millisecond, for two 64-wide layers. The same layers as
numpy matrix products (float32, the weights copied once) cost tens of microseconds. The
float operations are not torch's, so two logits within :data:`TIE` of each other are left
to torch (``PolicyAgent`` asks it): the action is the torch policy's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

#: Logits closer than this may order differently in numpy and torch (float32 sums in
#: another order differ by about 1e-6 relative): such a decision is left to torch.
TIE = 1e-4


def _relu(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.maximum(x, 0.0)
    return out


_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"Tanh": np.tanh, "ReLU": _relu}


def _layers(module: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``Linear`` layers of a torch module, in order, as (weight.T, bias) arrays."""
    import torch

    return [
        (m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
        for m in module.modules()
        if isinstance(m, torch.nn.Linear)
    ]


class NumpyActorCritic:
    """The actor's logits and the critic's value of an SB3 ``ActorCriticPolicy`` (or
    sb3-contrib's maskable one) with a flatten extractor and a ``Tanh``/``ReLU`` MLP."""

    def __init__(self, policy: Any) -> None:
        activation = _ACTIVATIONS.get(policy.activation_fn.__name__)
        if activation is None:
            raise ValueError(f"activation {policy.activation_fn.__name__}")
        self.activation = activation
        self.pi = _layers(policy.mlp_extractor.policy_net)
        self.vf = _layers(policy.mlp_extractor.value_net)
        self.action = _layers(policy.action_net)[0]
        self.value = _layers(policy.value_net)[0]

    @classmethod
    def of(cls, policy: Any) -> NumpyActorCritic | None:
        """The numpy twin of ``policy``, or None where it has layers this does not run."""
        from stable_baselines3.common.torch_layers import FlattenExtractor

        if not isinstance(getattr(policy, "features_extractor", None), FlattenExtractor):
            return None
        try:
            return cls(policy)
        except (ValueError, AttributeError, IndexError):
            return None

    def _trunk(self, layers: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
        for w, b in layers:
            x = self.activation(x @ w + b)
        return x

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The actor's logits, ``(B, n)`` for ``(B, size)`` float32 observations."""
        w, b = self.action
        out: np.ndarray = self._trunk(self.pi, obs) @ w + b
        return out

    def values(self, obs: np.ndarray) -> np.ndarray:
        """The critic's value, ``(B,)`` for ``(B, size)`` float32 observations."""
        w, b = self.value
        out: np.ndarray = (self._trunk(self.vf, obs) @ w + b)[:, 0]
        return out


def clear_pick(logits: np.ndarray, slots: list[int]) -> int | None:
    """The slot of ``slots`` with the highest logit, or None when the runner-up is within
    :data:`TIE` of it (torch decides those). The masked softmax keeps the logits' order,
    so this is the policy's greedy action."""
    if len(slots) == 1:
        return slots[0]
    chosen = logits[slots]
    order = np.argsort(-chosen, kind="stable")
    if chosen[order[0]] - chosen[order[1]] < TIE:
        return None
    return slots[int(order[0])]
