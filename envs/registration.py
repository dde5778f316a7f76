"""Register one Gymnasium id per ruleset of ``RULESETS`` (done on ``import escaramuza.envs``).

Each ruleset class names its id (``env_id = "escaramuza/DestinyDice-v0"``); a
ruleset that lands in ``RULESETS`` gets its env without touching this file.
The registered ids build :class:`~escaramuza.envs.single.EscaramuzaEnv` with
``illegal_action="noop"`` so unmasked checkers and learners never crash; the
class itself defaults to ``"raise"``.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING

import gymnasium as gym

from escaramuza.rules import RULESETS

if TYPE_CHECKING:
    from escaramuza.rules.core.ruleset import Ruleset

ENTRY_POINT = "escaramuza.envs.single:EscaramuzaEnv"


def ruleset_class(ruleset_id: str) -> type[Ruleset]:
    """Import a ruleset class from its ``RULESETS`` entry (the rules layer is light)."""
    module_name, class_name = RULESETS[ruleset_id].split(":")
    cls: type[Ruleset] = getattr(importlib.import_module(module_name), class_name)
    return cls


def env_ids() -> dict[str, str]:
    """Gymnasium id → ruleset id, for every ruleset whose class imports."""
    out: dict[str, str] = {}
    for ruleset_id in RULESETS:
        try:
            cls = ruleset_class(ruleset_id)
        except Exception as exc:  # one broken ruleset must not hide the rest
            warnings.warn(
                f"escaramuza.envs: ruleset {ruleset_id!r} ({RULESETS[ruleset_id]}) could not be "
                f"imported ({type(exc).__name__}: {exc}); its env is not registered",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        out[cls.env_id] = ruleset_id
    return out


def register_envs() -> list[str]:
    """Register every ruleset's id once; calling it again changes nothing."""
    registered = []
    for env_id, ruleset_id in env_ids().items():
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point=ENTRY_POINT,
                kwargs={"ruleset": ruleset_id, "illegal_action": "noop"},
            )
        registered.append(env_id)
    return registered
