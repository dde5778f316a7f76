"""What the two PettingZoo envs (AEC and parallel) share: spaces, the engine state, messages."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from escaramuza.envs.codec import ActionCodec
from escaramuza.envs.common import check_open
from escaramuza.envs.observation import OBS_BOUND, ObservationEncoder
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.state import BattleState


def masked_observation_space(encoder: ObservationEncoder, codec: ActionCodec) -> spaces.Dict:
    """``Dict(observation=Box, action_mask=Box(int8))``: PettingZoo's masked observation."""
    return spaces.Dict(
        {
            "observation": spaces.Box(
                -OBS_BOUND, OBS_BOUND, shape=(encoder.size,), dtype=np.float32
            ),
            "action_mask": spaces.Box(0, 1, shape=(codec.n,), dtype=np.int8),
        }
    )


def legal_listing(legal: dict[int, Action], most: int = 12) -> str:
    """``"3=…, 17=…"``: the first ``most`` legal actions of a decision, for error messages."""
    shown = ", ".join(f"{i}={a}" for i, a in list(legal.items())[:most])
    return shown + (" …" if len(legal) > most else "")


def check_render_mode(render_mode: str | None, modes: list[str]) -> None:
    """A ValueError unless ``render_mode`` is None or one of ``modes`` (the env's
    ``metadata["render_modes"]``): another mode would render as none of them, silently."""
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode must be one of {modes}, not {render_mode!r}")


class AgentSpaces:
    """One space object per agent, returned every time (PettingZoo seeds them), the
    engine state behind the env, and its closing."""

    action_spaces: dict[str, spaces.Space[Any]]
    observation_spaces: dict[str, spaces.Space[Any]]
    metadata: dict[str, Any]
    _state: BattleState | None
    #: Whether :meth:`close` was called: ``reset``, ``step`` and ``observe`` are then refused.
    closed: bool = False

    def init_spaces(
        self, agents: list[str], encoder: ObservationEncoder, codec: ActionCodec
    ) -> None:
        self.action_spaces = {a: spaces.Discrete(codec.n) for a in agents}
        self.observation_spaces = {a: masked_observation_space(encoder, codec) for a in agents}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def close(self) -> None:
        """Nothing to release (no window, no process), but later ``reset``, ``step`` and
        ``observe`` are refused (``gymnasium.error.ClosedEnvironmentError``), as the
        single-agent and batched envs' are; closing again does nothing."""
        self.closed = True

    def check_open(self) -> None:
        """Refuse a call on a closed env (:func:`~escaramuza.envs.common.check_open`)."""
        check_open(self.closed, self.metadata["name"])

    @property
    def battle(self) -> BattleState:
        """The engine state (for agents and tests)."""
        if self._state is None:
            raise EscaramuzaError("call reset() first")
        return self._state
