"""The engine core shared by every ruleset (architecture.md, "The engine core")."""

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
