"""The ``policy:PATH`` agent (:class:`PolicyAgent`): plays the pending decision with a
trained model, through the env codec, and the policy's masked action probabilities it and
``suggest`` read; also the ``--trust-policy`` option its commands share."""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from escaramuza.agents.policy.loading import load_model
from escaramuza.agents.policy.meta import check_fits, check_sizes, policy_label
from escaramuza.agents.policy.mlp import NumpyActorCritic, clear_pick
from escaramuza.rules.core.errors import EscaramuzaError, UnknownNameError
from escaramuza.rules.core.i18n import N_, _
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState

PREFIX = "policy:"

#: Help of the ``--trust-policy`` flag of play, playtest, suggest and evaluate (an English
#: msgid, translated when the option is added).
TRUST_POLICY_HELP = N_(
    "load policy:PATH files with stable-baselines3's own loader, which unpickles them and "
    "so can run code from the file: only for a model you made or fully trust (without "
    "it, a file that cannot be read without unpickling is refused; docs/training.md)"
)


def add_trust_option(parser: Any) -> None:
    """Add ``--trust-policy`` to a subcommand that takes ``policy:PATH`` agents, its help
    in the current language."""
    parser.add_argument("--trust-policy", action="store_true", help=_(TRUST_POLICY_HELP))


def masked_probabilities(
    policy: Any, maskable: bool, obs: np.ndarray, mask: np.ndarray
) -> np.ndarray:
    """A stable-baselines3 ``policy``'s probability of every slot, for one observation
    (``obs`` of the observation's shape, ``mask`` ``(n,)``) or a batch (``(B, size)``,
    ``(B, n)``): illegal slots 0, the rest renormalised (uniform over the legal slots
    where the model gives them all ~0, as PPO without masks can)."""
    import torch

    single = mask.ndim == 1
    masks = mask[None] if single else mask
    with torch.no_grad():
        obs_t, _ = policy.obs_to_tensor(obs)
        if maskable:
            dist = policy.get_distribution(obs_t, action_masks=masks)
        else:
            dist = policy.get_distribution(obs_t)
        probs = dist.distribution.probs.cpu().numpy().astype(np.float64)
    probs = np.where(masks, probs, 0.0)
    total = probs.sum(axis=1, keepdims=True)
    flat = ~np.isfinite(total[:, 0]) | (total[:, 0] <= 0)
    probs = probs / np.where(flat[:, None], 1.0, total)
    if flat.any():
        probs[flat] = masks[flat] / masks[flat].sum(axis=1, keepdims=True)
    out: np.ndarray = probs[0] if single else probs
    return out


def greedy_slot(
    probs: np.ndarray, mask: np.ndarray | None, indices: Sequence[int] | None = None
) -> int:
    """The most probable legal slot (of ``indices``, else of ``mask``); ties go to the
    lowest slot."""
    if indices is not None:
        legal = list(indices)
    else:
        assert mask is not None
        legal = np.flatnonzero(mask).tolist()
    return int(max(legal, key=lambda i: (probs[i], -i)))


class PolicyAgent:
    """Plays the pending decision with a trained model, for whichever side decides.

    The observation is built from the deciding side's point of view, exactly as
    the env builds the learner's; a model trained on the enemies can play the
    heroes, but it never saw that point of view unless trained with ``--side both``.
    """

    def __init__(
        self, path: str | os.PathLike[str], deterministic: bool = True, trust: bool = False
    ) -> None:
        from escaramuza.envs.common import codecs
        from escaramuza.rules import get_ruleset

        self.path = str(path)
        self.name = f"{PREFIX}{path}"
        self.deterministic = deterministic
        self.model, self.meta = load_model(path, trust=trust)
        self.ruleset = get_ruleset(self.meta.ruleset)
        self.codec, self.encoder = codecs(self.ruleset, self.meta.limits)
        check_sizes(
            policy_label(self.path),
            self.meta,
            self.model.observation_shape,
            self.model.n_actions,
        )
        self._checked: set[str] = set()
        #: The network as numpy, for greedy decisions (None: layers only torch runs).
        self._numpy = NumpyActorCritic.of(self.model.policy)

    def check_scenario(self, scenario: Scenario) -> None:
        """Refuse a scenario this policy cannot play (another ruleset's, or beyond the
        limits it was trained with); ``play_battle`` asks before the battle starts."""
        if scenario.name in self._checked:
            return
        check_fits(policy_label(self.path), self.meta, scenario)
        self._checked.add(scenario.name)

    def _check(self, state: BattleState) -> None:
        self.check_scenario(state.scenario)

    def _view(self, state: BattleState) -> tuple[dict[int, Action], np.ndarray]:
        """The legal index → action table and the observation of the deciding side."""
        self._check(state)
        pending = state.pending
        if pending is None:
            raise EscaramuzaError("policy: the battle has no pending decision")
        legal = self.codec.legal_map(state, state.ruleset.legal_actions(state))
        return legal, self.encoder.encode(state, pending.side)

    def distribution(self, state: BattleState) -> tuple[dict[int, Action], np.ndarray]:
        """The legal index → action table and the policy's probability of every slot
        (illegal slots 0, the rest renormalised)."""
        legal, obs = self._view(state)
        mask = np.zeros(self.codec.n, dtype=bool)
        mask[list(legal)] = True
        return legal, masked_probabilities(self.model.policy, self.model.maskable, obs, mask)

    def action_probabilities(self, state: BattleState) -> list[tuple[Action, float]]:
        """Each legal action with the policy's probability (for ``suggest``), in the
        ruleset's legal order."""
        legal, probs = self.distribution(state)
        by_action = {a: float(probs[i]) for i, a in legal.items()}
        return [(a, by_action.get(a, 0.0)) for a in state.ruleset.legal_actions(state)]

    def act(self, state: BattleState, rng: random.Random) -> Action:
        if self.deterministic and self._numpy is not None:
            # The greedy action from the numpy network; a near-tie is torch's to break.
            legal, obs = self._view(state)
            slot = clear_pick(self._numpy.logits(obs[None])[0], sorted(legal))
            if slot is not None:
                return legal[slot]
        legal, probs = self.distribution(state)
        indices = sorted(legal)
        if self.deterministic:
            return legal[greedy_slot(probs, None, indices)]
        u = rng.random()
        acc = 0.0
        for i in indices:
            acc += probs[i]
            if u < acc:
                return legal[i]
        return legal[indices[-1]]


def parse_policy_spec(spec: str, trust: bool = False) -> PolicyAgent:
    """``policy:PATH`` (greedy) or ``policy:PATH:sample`` (samples from the policy).

    PATH is a model zip or a shipped policy's name (``policy:destiny_dice/emboscada``);
    ``trust`` is ``--trust-policy`` (see :func:`load_model`).
    """
    rest = spec[len(PREFIX) :]
    deterministic = True
    if rest.endswith(":sample"):
        rest, deterministic = rest[: -len(":sample")], False
    if not rest:
        raise UnknownNameError(_("policy: give the model file, e.g. policy:runs/x/final.zip"))
    return PolicyAgent(rest, deterministic=deterministic, trust=trust)
