"""The engine core shared by every ruleset (architecture.md, "The engine core").

The names below are imported on first use (PEP 562 ``__getattr__``), not when the
package is: ``escaramuza --version`` imports ``escaramuza.rules.core.errors``, and an
eager ``__init__`` would make it pay for networkx, pydantic and the engine first.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from escaramuza.rules.core.battlefield import Battlefield, BattlefieldError, Zone
    from escaramuza.rules.core.dice import (
        DiceError,
        DiceExpr,
        RandomRoller,
        Roller,
        ScriptedRoller,
        ScriptError,
        parse_dice,
        parse_die,
    )
    from escaramuza.rules.core.errors import (
        EscaramuzaError,
        IllegalActionError,
        ScenarioError,
        UnknownNameError,
    )
    from escaramuza.rules.core.model import (
        Action,
        Combatant,
        Condition,
        Decision,
        DecisionKind,
        Outcome,
        Side,
        Status,
        VerbSpec,
    )
    from escaramuza.rules.core.ruleset import Ruleset, apply_action, new_battle
    from escaramuza.rules.core.scenario import Scenario, load_scenario, parse_scenario_text
    from escaramuza.rules.core.state import BattleState

#: Exported name → the submodule defining it.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("Battlefield", "BattlefieldError", "Zone"), "battlefield"),
    **dict.fromkeys(
        (
            "DiceError",
            "DiceExpr",
            "RandomRoller",
            "Roller",
            "ScriptedRoller",
            "ScriptError",
            "parse_dice",
            "parse_die",
        ),
        "dice",
    ),
    **dict.fromkeys(
        ("EscaramuzaError", "IllegalActionError", "ScenarioError", "UnknownNameError"), "errors"
    ),
    **dict.fromkeys(
        (
            "Action",
            "Combatant",
            "Condition",
            "Decision",
            "DecisionKind",
            "Outcome",
            "Side",
            "Status",
            "VerbSpec",
        ),
        "model",
    ),
    **dict.fromkeys(("Ruleset", "apply_action", "new_battle"), "ruleset"),
    **dict.fromkeys(("Scenario", "load_scenario", "parse_scenario_text"), "scenario"),
    "BattleState": "state",
}

__all__ = [
    "Action",
    "BattleState",
    "Battlefield",
    "BattlefieldError",
    "Combatant",
    "Condition",
    "Decision",
    "DecisionKind",
    "DiceError",
    "DiceExpr",
    "EscaramuzaError",
    "IllegalActionError",
    "Outcome",
    "RandomRoller",
    "Roller",
    "Ruleset",
    "Scenario",
    "ScenarioError",
    "ScriptError",
    "ScriptedRoller",
    "Side",
    "Status",
    "UnknownNameError",
    "VerbSpec",
    "Zone",
    "apply_action",
    "load_scenario",
    "new_battle",
    "parse_dice",
    "parse_die",
    "parse_scenario_text",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value
