"""Gymnasium and PettingZoo adapters over the engine (no rules live here).

Importing this package registers one Gymnasium id per ruleset of
``escaramuza.rules.RULESETS`` (``escaramuza/DestinyDice-v0``…)::

    import gymnasium as gym
    import escaramuza.envs  # noqa: F401  (registers the ids)

    env = gym.make("escaramuza/DestinyDice-v0", side="enemies", opponent="heuristic")

The PettingZoo AEC env is ``escaramuza.envs.aec.env(ruleset=…, scenario=…)`` (the
sides as agents taking turns); the ParallelEnv is ``escaramuza.envs.parallel_env(ruleset=…,
scenario=…)`` (every combatant an agent; Cairn's declarations in one step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from escaramuza.envs.registration import register_envs
from escaramuza.envs.single import EscaramuzaEnv

if TYPE_CHECKING:
    from escaramuza.envs.parallel import ParallelEscaramuzaEnv

#: Every Gymnasium id registered by this package.
ENV_IDS: tuple[str, ...] = tuple(register_envs())


def parallel_env(**kwargs: Any) -> ParallelEscaramuzaEnv:
    """The PettingZoo ParallelEnv (``escaramuza.envs.parallel``); pettingzoo is imported
    only when it is asked for, so ``import escaramuza.envs`` stays light."""
    from escaramuza.envs.parallel import parallel_env as make

    return make(**kwargs)


__all__ = ["ENV_IDS", "EscaramuzaEnv", "parallel_env", "register_envs"]
