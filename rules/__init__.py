"""Pure game logic: the engine core and one subpackage per ruleset.

This layer never imports gymnasium, pettingzoo, torch or stable-baselines3
(architecture.md, "Layers"). Rulesets are found through :data:`RULESETS` and
imported lazily, so loading a Destiny Dice scenario does not import Donjon.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING, Any

from escaramuza.rules.core.errors import UnknownNameError
from escaramuza.rules.core.i18n import _f

if TYPE_CHECKING:
    from escaramuza.rules.core.ruleset import Ruleset

#: Ruleset id → "module:class": the one registry. A ruleset lands by adding its line here;
#: its other hooks are declared on the class (``Ruleset.bookkeeping``, ``Ruleset.recovery``).
RULESETS: dict[str, str] = {
    "destiny_dice": "escaramuza.rules.destiny_dice:DestinyDice",
    "donjon": "escaramuza.rules.donjon:Donjon",
    "sistema_2d10": "escaramuza.rules.sistema_2d10:Sistema2d10",
    "cairn": "escaramuza.rules.cairn:Cairn",
}


@cache
def get_bookkeeping(ruleset_id: str) -> Any:
    """A ruleset's state bookkeeping checks (``STATE_TYPES``, the classes a state may hold,
    and ``check_state(state)``; see rules/core/bookkeeping.py): the module its
    ``Ruleset.bookkeeping`` names, imported on first use. The state file loader decodes
    only those classes and runs the check on every loaded state."""
    return importlib.import_module(get_ruleset(ruleset_id).bookkeeping)


@cache
def get_ruleset(ruleset_id: str) -> Ruleset:
    """The (stateless, shared) ruleset object for an id."""
    try:
        target = RULESETS[ruleset_id]
    except KeyError:
        raise UnknownNameError(
            _f("unknown ruleset {name} (known: {known})", repr(ruleset_id), ", ".join(RULESETS))
        ) from None
    module_name, class_name = target.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls()  # type: ignore[no-any-return]
