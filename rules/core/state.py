"""The mutable battle state, advanced one decision at a time (OpenSpiel's model)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from escaramuza.rules.core.errors import UnknownNameError
from escaramuza.rules.core.events import Event
from escaramuza.rules.core.i18n import _f
from escaramuza.rules.core.model import Combatant, Decision, Outcome, Side

if TYPE_CHECKING:
    from escaramuza.rules.core.battlefield import Battlefield
    from escaramuza.rules.core.ruleset import Ruleset
    from escaramuza.rules.core.scenario import Scenario


class BattleState:
    """Combatants, round bookkeeping, the pending decision and the event log.

    ``data`` is the ruleset's own bookkeeping (initiative counts, the ráfaga's
    current number, a pending attack awaiting a reaction…). Its values must be
    immutable (ints, strings, tuples, frozen dataclasses): :meth:`clone` copies
    the dict, not its values, which keeps cloning cheap for search.
    """

    __slots__ = (
        "scenario",
        "ruleset",
        "battlefield",
        "options",
        "combatants",
        "by_id",
        "round",
        "order",
        "turn",
        "pending",
        "outcome",
        "log",
        "data",
    )

    def __init__(
        self,
        scenario: Scenario,
        combatants: list[Combatant],
    ) -> None:
        self.scenario = scenario
        self.ruleset: Ruleset = scenario.ruleset
        self.battlefield: Battlefield = scenario.battlefield
        self.options: Any = scenario.options
        self.combatants = combatants
        self.by_id: dict[str, Combatant] = {c.id: c for c in combatants}
        self.round = 0
        self.order: tuple[str, ...] = ()
        self.turn = 0
        self.pending: Decision | None = None
        self.outcome: Outcome | None = None
        self.log: list[Event] = []
        self.data: dict[str, Any] = {}

    # -- queries -------------------------------------------------------------
    def get(self, combatant_id: str) -> Combatant:
        try:
            return self.by_id[combatant_id]
        except KeyError:
            known = ", ".join(self.by_id)
            raise UnknownNameError(
                _f("unknown combatant {id} (combatants: {known})", repr(combatant_id), known)
            ) from None

    def side(self, side: Side) -> Iterator[Combatant]:
        return (c for c in self.combatants if c.side is side)

    def active(self, side: Side | None = None) -> list[Combatant]:
        return [c for c in self.combatants if c.active and (side is None or c.side is side)]

    def distance(self, a: Combatant, b: Combatant) -> int:
        return self.battlefield.distance(a.zone, b.zone)

    @property
    def terminal(self) -> bool:
        return self.outcome is not None

    @property
    def acting(self) -> Combatant | None:
        return self.by_id[self.pending.actor] if self.pending is not None else None

    # -- copying -------------------------------------------------------------
    def clone(self, keep_log: bool = True) -> BattleState:
        """A copy that shares the immutable scenario, map and stat blocks.

        Search calls ``clone(keep_log=False)``: the copy starts an empty log,
        which is all a rollout needs and saves copying the history.
        """
        new = BattleState.__new__(BattleState)
        new.scenario = self.scenario
        new.ruleset = self.ruleset
        new.battlefield = self.battlefield
        new.options = self.options
        new.combatants = [c.clone() for c in self.combatants]
        new.by_id = {c.id: c for c in new.combatants}
        new.round = self.round
        new.order = self.order
        new.turn = self.turn
        new.pending = self.pending
        new.outcome = self.outcome
        new.log = list(self.log) if keep_log else []
        new.data = dict(self.data)
        return new

    def __repr__(self) -> str:
        who = self.pending.actor if self.pending else "-"
        return f"BattleState({self.scenario.name!r}, round {self.round}, pending {who})"
