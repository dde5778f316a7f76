"""The batched two-sided env: many battles of the PettingZoo AEC env on the kernel.

:class:`KernelAECVectorEnv` is to :class:`escaramuza.envs.aec.raw_env` what
:class:`~escaramuza.envs.vector.KernelVectorEnv` is to the single-agent env: ``num_envs``
lanes, each one AEC battle (the two sides as agents, the side of the pending decision
acting), all stepped in one compiled call with every lane's action from an array — both
sides learning, as self-play at kernel speed. There is no opponent: every decision is
the caller's. Lane by lane it is the AEC env (tests/envs/test_env_aec_vector.py): the
acting side (``agent_selection``), its observation and mask, both sides' rewards, the
ends.

* ``reset(seed=…)`` → ``(obs, infos)``: ``obs[b]`` the observation of lane ``b``'s acting
  side; ``infos["agent_selection"]`` the acting sides (0 heroes, 1 enemies).
* ``step(actions)`` → ``(obs, rewards, terminations, truncations, infos)``: ``rewards``
  is ``(num_envs, 2)``, the heroes' and the enemies' (``raw_env.rewards``: +1 to the
  winner, −1 to the loser, ``draw_reward`` to both when nobody wins, 0 before the end).
  Autoreset is next-step, as in the batched single-agent env; the observation of a lane
  that ended is its last acting side's. A battle over before its first decision (a
  poisoned hero dying as its turn starts), which ``raw_env`` reports at ``reset``, is
  reported by the lane's first ``step``, whatever its action (the mask offers slot 0
  alone): a vector env's ``reset`` returns no terminations; the single-agent envs do
  the same.
* ``action_masks()``: the acting sides' legal slots, ``(num_envs, n)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from escaramuza.envs.common import DEFAULT_MAX_COMBATANTS, DEFAULT_MAX_ITEMS, DEFAULT_MAX_ZONES
from escaramuza.envs.stepping import L_ACTING, L_FINAL_G
from escaramuza.envs.vector import KernelVectorEnv
from escaramuza.rules.core.scenario import Scenario


class KernelAECVectorEnv(KernelVectorEnv):
    """``num_envs`` AEC battles of one scenario on the kernel (the module's docstring)."""

    both_sides = True

    def __init__(
        self,
        ruleset: str,
        num_envs: int,
        scenario: str | Scenario | None = None,
        *,
        draw_reward: float = 0.0,
        max_combatants: int = DEFAULT_MAX_COMBATANTS,
        max_zones: int = DEFAULT_MAX_ZONES,
        max_items: int = DEFAULT_MAX_ITEMS,
    ) -> None:
        # The side and opponent are unused: every decision is the caller's.
        super().__init__(
            ruleset,
            num_envs,
            scenario,
            "heroes",
            "random",
            draw_reward=draw_reward,
            illegal_action="raise",
            max_combatants=max_combatants,
            max_zones=max_zones,
            max_items=max_items,
        )
        self._outcome = int(self.kernel.G["OUTCOME"])

    @property
    def agent_selection(self) -> np.ndarray:
        """Each lane's acting side (0 heroes, 1 enemies): whose observation and mask the
        lane shows and whose action ``step`` takes."""
        acting: np.ndarray = self._lanes[L_ACTING].copy()
        return acting

    def reset(
        self, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        obs, infos = super().reset(seed=seed, options=options)
        infos["agent_selection"] = self.agent_selection
        return obs, infos

    def step(  # rewards are (num_envs, 2): one per side
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, heroes, terminated, truncated, infos = super().step(actions)
        ended = terminated | truncated
        draw = ended & (self._lanes[L_FINAL_G][:, self._outcome] == 2)
        rewards = np.empty((self.num_envs, 2), dtype=np.float64)
        rewards[:, 0] = heroes
        rewards[:, 1] = np.where(draw, heroes, 0.0 - heroes)
        infos["agent_selection"] = self.agent_selection
        return obs, rewards, terminated, truncated, infos
