"""The decisions of a Donjon battle (listed in ruleset.py's docstring) and the values
waiting for them in ``state.data``: the attack a defender may parry or dodge, the move an
opponent may resist, the damage successes still to spend.
"""

from __future__ import annotations

from dataclasses import dataclass

from escaramuza.rules.core.model import Decision, DecisionKind, Side, interned
from escaramuza.rules.donjon.sheets import ATTRIBUTES

HERIDAS = "heridas"
#: DJ-17 options of the ``repartir`` verb: one success on Heridas or on an attribute.
SPEND_OPTIONS: tuple[str, ...] = (HERIDAS, *ATTRIBUTES)

TURN, DEFENCE, RESIST, SPEND, CONTINUE = "turn", "defensa", "resistir", "repartir", "continuar"


@dataclass(frozen=True, slots=True)
class PendingAttack:
    """A melee attack waiting for the defender's parry-or-dodge reaction."""

    attacker: str
    target: str
    weapon: str
    band: int


@dataclass(frozen=True, slots=True)
class PendingMove:
    """A movement waiting for the opponent's resist-or-not reaction (DJ-10)."""

    mover: str
    resister: str
    verb: str
    to_zone: str | None
    from_contact: bool


@dataclass(frozen=True, slots=True)
class PendingSpend:
    """Damage successes still to spend (DJ-17); ``picked`` = attributes already named by a fact."""

    dealer: str
    victim: str
    remaining: int
    picked: tuple[str, ...] = ()


# A state file names the class of each value it holds by module and name (docs/gm.md,
# "State file"): these three are read and written as escaramuza.rules.donjon.ruleset's,
# which re-exports them, so files saved before they moved here still load.
for _pending in (PendingAttack, PendingMove, PendingSpend):
    _pending.__module__ = "escaramuza.rules.donjon.ruleset"


# legal_actions and apply run once per decision: a Decision, a frozen value like the
# actions, is interned rather than built each time (ruleset.py, "hot-loop caches").
def decision(kind: DecisionKind, actor: str, side: Side, name: str, prompt: str) -> Decision:
    """An interned :class:`Decision` (a frozen value, like the actions)."""
    return interned(Decision, kind, actor, side, name, prompt)
