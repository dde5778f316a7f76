"""The network-guided planner's guide: a policy-and-value network read from a
``policy:`` file, and what the planner asks of it (:class:`Guide`).

The network is the MaskablePPO MLP of ``escaramuza train`` and of expert iteration
(``training/expert.py``): an actor (logits over the env's flat action space) and a critic
(a value), on the env's observation. :class:`Network` runs both as plain numpy matrix
products (the weights read once through the safe loader), except the critic over a
batch of cut states, which runs in torch on one thread. A :class:`Guide` gives the planner

* a **prior** over the root's legal actions (the actor's masked softmax): the root's
  reference action is the network's pick instead of the heuristic's, the candidates are
  ordered by it, and ``candidates=K`` keeps the K most probable beside the reference;
* a **value at the horizon cut**: a rollout cut at the planner's horizon is scored by
  the critic's value of the cut state seen from the searching side, instead of
  ``2 × side_value − 1``. On a kernel the cut states' observations come from
  :mod:`escaramuza.agents.search.observed`.

:class:`SideValueGuide` is the plain planner's own cut value as a guide, through the
same paths: a search guided by it is the plain search, rollout for rollout (tested).
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

import numpy as np

from escaramuza.agents.policy.meta import check_fits
from escaramuza.agents.policy.mlp import NumpyActorCritic
from escaramuza.agents.search.value import side_value
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _f
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.state import BattleState

if TYPE_CHECKING:
    from escaramuza.envs.common import EnvLimits
    from escaramuza.rules.core.scenario import Scenario

#: Rows up to which the critic runs as numpy (one cut state on the engine).
SMALL_BATCH = 8


class Network:
    """A ``policy:`` file's actor and critic as numpy: :meth:`logits`, :meth:`values`."""

    def __init__(self, path: str | os.PathLike[str], trust: bool = False) -> None:
        from escaramuza.agents.policy import load_model
        from escaramuza.envs.common import codecs
        from escaramuza.rules import get_ruleset

        self.path = str(path)
        model, meta = load_model(path, trust=trust)
        if not model.maskable:
            raise EscaramuzaError(_f("policy {path}: a guide needs a MaskablePPO policy", path))
        numpy = NumpyActorCritic.of(model.policy)
        if numpy is None:
            raise EscaramuzaError(
                _f(
                    "policy {path}: a guide runs an MLP on the flat observation with Tanh or "
                    "ReLU layers; this policy has other layers",
                    path,
                )
            )
        self.numpy = numpy
        self.policy = model.policy
        self.meta = meta
        ruleset = get_ruleset(meta.ruleset)
        self.ruleset = ruleset
        self.codec, self.encoder = codecs(ruleset, meta.limits)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The actor's logits, ``(B, n)`` for ``(B, size)`` observations."""
        return self.numpy.logits(obs)

    def values(self, obs: np.ndarray) -> np.ndarray:
        """The critic's value, ``(B,)`` for ``(B, size)`` observations: numpy for a few
        rows, torch on one thread for a batch (on a busy machine several times faster than
        numpy's multi-threaded BLAS)."""
        if len(obs) <= SMALL_BATCH:
            return self.numpy.values(obs)
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # the planner searches on one thread; so does its critic
        try:
            with torch.no_grad():
                out: np.ndarray = self.policy.predict_values(torch.as_tensor(obs)).numpy()[:, 0]
        finally:
            torch.set_num_threads(threads)
        return out


class Guide:
    """What networks tell the planner: ``prior`` (the root's reference and order) and/or
    ``value`` (the horizon cut), each from its own network or none (``net=`` gives one
    network both roles; ``prior=`` and ``value=`` one each)."""

    #: Whether the cut needs the cut state's observation (a kernel then plays the
    #: rollouts that write it, :mod:`escaramuza.agents.search.observed`).
    observes = True

    def __init__(self, prior: Network | None = None, value: Network | None = None) -> None:
        self.prior_net = prior
        self.value_net = value
        self.use_prior = prior is not None
        self.use_value = value is not None
        self.observes = value is not None

    @property
    def limits(self) -> EnvLimits:
        """The env limits the value network reads observations under (its policy's)."""
        from escaramuza.envs.common import STANDARD_LIMITS

        net = self.value_net
        return STANDARD_LIMITS if net is None else net.meta.limits

    @property
    def networks(self) -> list[Network]:
        return [n for n in (self.prior_net, self.value_net) if n is not None]

    def check(self, state: BattleState) -> None:
        self.check_scenario(state.scenario)

    def check_scenario(self, scenario: Scenario) -> None:
        """Refuse a scenario a network of the guide cannot read (another ruleset's, or
        beyond the limits its policy was trained with)."""
        for net in self.networks:
            check_fits(_f("mcts guide {path}", net.path), net.meta, scenario)

    def prior(self, state: BattleState, actions: list[Action]) -> dict[Action, float] | None:
        """The actor's probability of each legal action (None: no prior asked)."""
        net = self.prior_net
        if net is None:
            return None
        self.check(state)
        pending = state.pending
        assert pending is not None
        legal = net.codec.legal_map(state, actions)
        obs = net.encoder.encode(state, pending.side)[None]
        logits = net.logits(obs)[0]
        slots = list(legal)
        chosen = logits[slots]
        p = np.exp(chosen - chosen.max())
        p /= p.sum()
        by_action = {legal[i]: float(q) for i, q in zip(slots, p, strict=True)}
        return {a: by_action.get(a, 0.0) for a in actions}

    def cut_state(self, sim: BattleState, side: Side) -> float:
        """The value, in [−1, 1], of a rollout cut at ``sim`` for ``side``."""
        net = self.value_net
        if net is None:
            return _plain_cut(side_value(sim, side))
        obs = net.encoder.encode(sim, side)[None]
        return _clip(float(net.values(obs)[0]))

    def cut_batch(self, obs: np.ndarray | None, own: np.ndarray, foe: np.ndarray) -> np.ndarray:
        """:meth:`cut_state` of a kernel batch's ends: ``obs`` ``(actions, seeds, size)``,
        or the two sides' strengths where no value is asked."""
        net = self.value_net
        if net is None or obs is None:
            return _plain_cuts(own, foe)
        a, k, size = obs.shape
        values = net.values(obs.reshape(a * k, size))
        clipped: np.ndarray = np.clip(values, -1.0, 1.0).reshape(a, k)
        return clipped


class SideValueGuide(Guide):
    """The plain planner's cut as a guide (no prior): ``2 × side_value − 1``, computed
    from the kernel's strengths exactly as :meth:`MCTS.value_of` does, while the kernel
    still plays the observed rollouts — a guided search equal to the plain one."""

    def __init__(self) -> None:
        super().__init__()
        self.observes = True

    def check(self, state: BattleState) -> None:
        return None

    def cut_batch(self, obs: np.ndarray | None, own: np.ndarray, foe: np.ndarray) -> np.ndarray:
        return _plain_cuts(own, foe)


def _plain_cut(chance: float) -> float:
    return 2.0 * chance - 1.0


def _plain_cuts(own: np.ndarray, foe: np.ndarray) -> np.ndarray:
    """``MCTS.value_of``'s cut value of each (own, foe), the same float operations."""
    out = np.empty(own.shape, dtype=np.float64)
    for idx in np.ndindex(own.shape):
        o, f = float(own[idx]), float(foe[idx])
        out[idx] = 2.0 * (o / (o + f) if o + f > 0.0 else 0.5) - 1.0
    return out


def _clip(x: float) -> float:
    return -1.0 if x < -1.0 else 1.0 if x > 1.0 else (0.0 if math.isnan(x) else x)


def load_guide(prior: str | None, value: str | None, trust: bool = False) -> Guide:
    """The guide of the ``policy:`` files (or shipped policies' names) ``prior`` and
    ``value`` (None: that role is the plain planner's); one network for both if equal."""
    nets = {path: Network(path, trust=trust) for path in {prior, value} if path is not None}
    return Guide(nets.get(prior) if prior else None, nets.get(value) if value else None)
