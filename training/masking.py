"""A MaskablePPO policy whose masked distribution is built once per forward pass.

sb3-contrib's ``MaskableCategorical`` builds torch's ``Categorical`` three times for every
masked forward pass: once from the raw logits, once more when its own constructor applies
"no mask", and a third time when the policy applies the real mask (each build normalises
the logits with ``logsumexp`` and validates them). That is most of what MaskablePPO costs
over PPO per frame (docs/decisions/0017-training-throughput.md; reported upstream to
sb3-contrib, #283).

:class:`OnceMaskedPolicy` is sb3-contrib's ``MaskableActorCriticPolicy`` with one change:
the action distribution keeps the logits until the mask arrives and then builds a single
``Categorical`` over the masked logits. The probabilities are the same distribution —
the same operations on the same numbers as upstream (normalise, mask with ``-1e8``,
normalise), without the intermediate ``Categorical`` objects — so probabilities,
log-probabilities, entropies and samples are bit for bit upstream's, and a training run
with the same seed gives the same weights as with the stock policy (tested in
tests/training/test_training_masking.py). It skips torch's argument validation
(see :class:`OnceMaskedCategorical`). Saved models name this class, which
``escaramuza`` provides wherever it is installed; models saved with the stock policy
still load and play.

With ``fused_softmax=True`` (what ``escaramuza train`` gives a new model,
``hyperparameters.fused_softmax``) the masked logits are normalised once, by torch's
fused ``log_softmax``, where upstream subtracts a ``logsumexp`` twice: the same
distribution, rounded differently (within a few float32 ulps), for a fifth less CPU per
training step on a wide action space. The flag is a policy keyword, saved with the model
and read back by both loaders; a model without it keeps upstream's arithmetic.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.distributions import (
    MaskableCategorical,
    MaskableCategoricalDistribution,
)
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch.distributions import Categorical, Distribution

# The logit upstream gives a masked slot (sb3_contrib.common.maskable.distributions).
MASKED_LOGIT = -1e8


class OnceMaskedCategorical(MaskableCategorical):
    """``MaskableCategorical`` built in one step from raw logits and a mask (or none).

    Bit for bit upstream's distribution: upstream normalises the raw logits (its first
    build), masks the *normalised* logits and normalises again (its last build); this does
    the same two normalisations with plain tensor operations and builds one ``Categorical``
    — so probabilities, log-probabilities, entropies and samples are identical, and a
    training run gives the same weights as with the stock policy (tested).
    """

    def __init__(
        self,
        logits: th.Tensor,
        masks: th.Tensor | np.ndarray | None = None,
        fused_softmax: bool = False,
    ) -> None:
        if fused_softmax:
            # The masked raw logits normalised once by log_softmax (one fused kernel
            # forward and backward): upstream's distribution — a masked slot's
            # probability exactly 0, the others' the softmax of the unmasked logits —
            # rounded once.
            self._original_logits = logits
            normalised = th.log_softmax(self._masked(logits, masks), dim=-1)
            # What Categorical.__init__ sets, without its logsumexp normalisation (done
            # already); argument validation off, as below.
            self.logits = normalised
            self._param = normalised
            self._num_events = normalised.size(-1)
            Distribution.__init__(self, normalised.size()[:-1], validate_args=False)
            return
        # What upstream's first Categorical stores as its logits, and keeps to mask.
        normalised = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._original_logits = normalised
        # Skip MaskableCategorical.__init__ (its extra builds) and build once; the
        # inherited apply_masking and entropy work on the attributes set above. Argument
        # validation is off: it checks that the logits are real numbers and, in log_prob,
        # that the action is in range — a third of this distribution's cost per frame —
        # and changes no number. The logits are the network's output and the actions its
        # own samples or the rollout buffer's; a NaN from a diverged network still stops
        # training, in torch.multinomial.
        Categorical.__init__(self, logits=self._masked(normalised, masks), validate_args=False)

    def _masked(self, logits: th.Tensor, masks: th.Tensor | np.ndarray | None) -> th.Tensor:
        """``logits`` with the slots ``masks`` forbids at :data:`MASKED_LOGIT`, as
        upstream masks them; sets ``self.masks``."""
        if masks is None:
            self.masks = None
            return logits
        self.masks = th.as_tensor(masks, dtype=th.bool, device=logits.device).reshape(logits.shape)
        # A Python scalar, not a fresh tensor: the same value in the logits' dtype.
        return th.where(self.masks, logits, MASKED_LOGIT)

    def entropy(self) -> th.Tensor:
        """Upstream's masked entropy (a masked slot adds 0), its zero a Python scalar."""
        if self.masks is None:
            return super().entropy()
        p_log_p = self.logits * self.probs
        return -th.where(self.masks, p_log_p, 0.0).sum(-1)


class OnceMaskedCategoricalDistribution(MaskableCategoricalDistribution):
    """Holds the logits until the mask is known, then builds one distribution.

    The policy calls ``proba_distribution(logits)`` and then, when it has a mask,
    ``apply_masking(mask)``; without a mask the distribution is built unmasked the first
    time anything asks for it.
    """

    def __init__(self, action_dim: int, fused_softmax: bool = False) -> None:
        super().__init__(action_dim)
        self.fused_softmax = fused_softmax
        self._logits: th.Tensor | None = None
        self._built: OnceMaskedCategorical | None = None

    @property  # type: ignore[override]  # upstream declares a plain attribute
    def distribution(self) -> OnceMaskedCategorical:
        if self._built is None:
            if self._logits is None:
                raise RuntimeError("proba_distribution() must be called first")
            self._built = OnceMaskedCategorical(self._logits, None, self.fused_softmax)
        return self._built

    def proba_distribution(self, action_logits: th.Tensor) -> OnceMaskedCategoricalDistribution:
        self._logits = action_logits.view(-1, self.action_dim)
        self._built = None
        return self

    def apply_masking(self, masks: th.Tensor | np.ndarray | None) -> None:
        if self._logits is None:
            raise RuntimeError("proba_distribution() must be called first")
        self._built = OnceMaskedCategorical(self._logits, masks, self.fused_softmax)


class OnceMaskedPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with :class:`OnceMaskedCategoricalDistribution`.

    Only for ``Discrete`` action spaces (every escaramuza env's); the network layers are
    built exactly as upstream builds them, so the same seed gives the same weights.
    ``fused_softmax``: normalise the masked logits once with ``log_softmax`` (the
    module's docstring); saved with the model among its constructor parameters.
    """

    def __init__(
        self,
        observation_space: Any,
        action_space: Any,
        *args: Any,
        fused_softmax: bool = False,
        **kwargs: Any,
    ):
        if not isinstance(fused_softmax, bool):
            raise TypeError(f"fused_softmax must be true or false, not {fused_softmax!r}")
        super().__init__(observation_space, action_space, *args, **kwargs)
        if not isinstance(self.action_dist, MaskableCategoricalDistribution):
            raise TypeError(f"OnceMaskedPolicy needs a Discrete action space, got {action_space}")
        self.fused_softmax = fused_softmax
        self.action_dist = OnceMaskedCategoricalDistribution(
            self.action_dist.action_dim, fused_softmax
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "fused_softmax": self.fused_softmax}
