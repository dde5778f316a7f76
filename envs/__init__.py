"""Gymnasium and PettingZoo adapters over the engine (no rules live here).

Importing this package registers one Gymnasium id per ruleset of
``escaramuza.rules.RULESETS`` (``escaramuza/DestinyDice-v0``…)::

    import gymnasium as gym
    import escaramuza.envs  # noqa: F401  (registers the ids)

    env = gym.make("escaramuza/DestinyDice-v0", side="enemies", opponent="heuristic")

The PettingZoo AEC env is ``escaramuza.envs.aec.env(ruleset=…, scenario=…)``.
"""

from __future__ import annotations

from escaramuza.envs.registration import register_envs
from escaramuza.envs.single import EscaramuzaEnv

#: Every Gymnasium id registered by this package.
ENV_IDS: tuple[str, ...] = tuple(register_envs())

__all__ = ["ENV_IDS", "EscaramuzaEnv", "register_envs"]
