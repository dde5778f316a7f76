"""Pure game logic: the engine core and one subpackage per ruleset.

This layer never imports gymnasium, pettingzoo, torch or stable-baselines3
(architecture.md, "Layers"). Rulesets are found through :data:`RULESETS` and
imported lazily, so loading a Destiny Dice scenario does not import Donjon.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

from escaramuza.rules.core.errors import UnknownNameError

if TYPE_CHECKING:
    from escaramuza.rules.core.ruleset import Ruleset

#: Ruleset id → "module:class". A ruleset lands by adding its line here.
RULESETS: dict[str, str] = {
    "destiny_dice": "escaramuza.rules.destiny_dice:DestinyDice",
    "donjon": "escaramuza.rules.donjon:Donjon",
    "sistema_2d10": "escaramuza.rules.sistema_2d10:Sistema2d10",
    "cairn": "escaramuza.rules.cairn:Cairn",
}


@cache
def get_ruleset(ruleset_id: str) -> Ruleset:
    """The (stateless, shared) ruleset object for an id."""
    try:
        target = RULESETS[ruleset_id]
    except KeyError:
        raise UnknownNameError(
            f"unknown ruleset {ruleset_id!r} (known: {', '.join(RULESETS)})"
        ) from None
    module_name, class_name = target.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls()  # type: ignore[no-any-return]
