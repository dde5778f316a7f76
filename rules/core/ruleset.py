"""The protocol every ruleset implements, and the shared mechanics they call.

A ruleset is a static object (no battle data); all battle data lives in the
:class:`BattleState`. The driver functions at the bottom (:func:`new_battle`,
:func:`apply_action`) are the only way agents, envs and the CLI advance a
battle, so the legality check, the round limit and the end test are in one
place.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.errors import IllegalActionError
from escaramuza.rules.core.events import BattleEnded, Event, RoundStarted, StatusChanged
from escaramuza.rules.core.i18n import _, _f, outcome_reason, who_wins, word
from escaramuza.rules.core.model import (
    Action,
    Combatant,
    Condition,
    Outcome,
    Side,
    Status,
    VerbSpec,
)
from escaramuza.rules.core.state import BattleState


@dataclass(frozen=True, slots=True)
class Odds:
    """Exact odds of one attack-like action, from the ruleset's own helpers.

    ``expected_damage`` and ``damage`` count the resource the target loses
    (PV, Heridas, PI…); ``p_drop`` is the chance the action alone takes the
    target out of the fight.
    """

    p_hit: float
    expected_damage: float
    p_drop: float
    damage: Mapping[int, float] | None = None


class Ruleset(ABC):
    """Static description and dynamics of one combat system.

    Class attributes describe the game once (OpenSpiel's static game): the verb
    layout the env encodes, the resources and conditions it observes, the
    bands hop distances map to. Methods advance a :class:`BattleState`.
    """

    #: Ruleset id used in scenario files (``destiny_dice``).
    id: ClassVar[str]
    #: Human name (``Destiny Dice``).
    name: ClassVar[str]
    #: Gymnasium id registered for it (``escaramuza/DestinyDice-v0``).
    env_id: ClassVar[str]
    #: Shipped scenario the env uses when none is given.
    default_scenario: ClassVar[str]
    #: Verbs in action-layout order.
    verbs: ClassVar[tuple[VerbSpec, ...]]
    #: Resources observed per combatant, with a normalising scale for each.
    resources: ClassVar[Mapping[str, float]]
    #: Conditions observed per combatant (one flag each).
    conditions: ClassVar[tuple[str, ...]]
    #: Further condition names a combatant may carry, each observed through the flag of
    #: one of :attr:`conditions` (a variant of it: Sistema 2d10's ``incapacitado_torso``
    #: sets ``incapacitado``). The GM may add them like the conditions themselves.
    condition_aliases: ClassVar[Mapping[str, str]] = {}
    #: Conditions whose number the rules read (Sistema 2d10's ``aturdido -2``); a GM's
    #: ``cond add`` gives a value to these only (:meth:`condition_from_gm`).
    valued_conditions: ClassVar[frozenset[str]] = frozenset()
    #: Names of the distance bands, index = band number.
    band_names: ClassVar[tuple[str, ...]]
    #: Pydantic model of the ``options`` block of a scenario (extra fields forbidden).
    options_model: ClassVar[type[BaseModel]]
    #: Pydantic model of a combatant's ruleset fields (extra fields forbidden).
    stats_model: ClassVar[type[BaseModel]]
    #: Number of ruleset-specific features per combatant (see :meth:`features`).
    n_features: ClassVar[int] = 0
    #: Decision names, for the env's one-hot of the pending decision.
    decision_names: ClassVar[tuple[str, ...]] = ("turn",)
    #: Whether the battle keeps an initiative order (``BattleState.order``): then every
    #: combatant able to act is in it. Cairn's sides take turns and keep none.
    keeps_order: ClassVar[bool] = True
    #: The module of the ruleset's state bookkeeping checks: ``STATE_TYPES`` (the classes
    #: its ``data`` may hold) and ``check_state(state)`` (rules/core/bookkeeping.py). Named,
    #: not imported: :func:`escaramuza.rules.get_bookkeeping` imports it when a state file
    #: is read or written.
    bookkeeping: ClassVar[str]
    #: The module of the ruleset's rests between the fights of a day (``RECOVERY``, a
    #: :class:`~escaramuza.rules.core.rest.Recovery`), imported when a day is played
    #: (:func:`escaramuza.rules.core.rest.recovery`); None: day files and ``campaign``
    #: refuse the ruleset.
    recovery: ClassVar[str | None] = None

    # -- scenario -------------------------------------------------------------
    @abstractmethod
    def build_combatant(
        self, base: dict[str, Any], stats: BaseModel, options: BaseModel, index: int
    ) -> Combatant:
        """Make a combatant from validated stats. ``base`` has id, name, side, zone,
        temperament. Raise ``ValueError("field: reason")`` for cross-field errors
        (weapon above the wielder's die…); the loader adds file and path."""

    def validate_scenario(self, scenario: Any) -> None:  # noqa: B027 - optional hook
        """Cross-combatant checks; raise ``ValueError("field: reason")``."""

    # -- dynamics -------------------------------------------------------------
    @abstractmethod
    def start(self, state: BattleState, roller: Roller) -> list[Event]:
        """Begin the battle (initiative…) and set ``state.pending``."""

    @abstractmethod
    def legal_actions(self, state: BattleState) -> list[Action]:
        """Every legal action of the pending decision, in a deterministic order."""

    @abstractmethod
    def apply(self, state: BattleState, action: Action, roller: Roller) -> list[Event]:
        """Carry out a legal action and advance ``state.pending``; return the events."""

    def simultaneous(self, state: BattleState) -> dict[str, list[Action]]:
        """Every combatant deciding now, on the same information, with its legal actions,
        in the order :meth:`apply` takes their decisions (the first is the pending actor).

        A turn-based ruleset asks one combatant at a time: the pending actor and
        :meth:`legal_actions` (this default). A ruleset whose combatants declare
        together and resolve together (Cairn, CA-02) lists the whole group: none of
        their declarations may change another's legal actions, so each can choose
        without seeing the others' (the PettingZoo parallel env takes them in one step).
        Empty when the battle is over.
        """
        if state.pending is None or state.outcome is not None:
            return {}
        return {state.pending.actor: self.legal_actions(state)}

    def band(self, hops: int) -> int:
        """Map a hop distance to this ruleset's band index."""
        return min(hops, len(self.band_names) - 1)

    def features(self, state: BattleState, combatant: Combatant) -> Sequence[float]:
        """``n_features`` numbers in [0, 1]-ish describing the combatant for learners."""
        return ()

    def describe(self, state: BattleState, action: Action) -> str:
        """One readable line for an action (CLI, suggestions)."""
        return str(action)

    def condition_from_gm(self, name: str, value: str | None) -> Condition:
        """The condition a GM's ``cond add ID NAME [VALUE]`` puts on a combatant, as the
        rules themselves would (its value, dice, persistence); ``ValueError`` with the
        reason for a value this ruleset does not read. Here: VALUE a whole number, for
        the :attr:`valued_conditions` (and their aliases) only."""
        if value is None:
            return Condition(name)
        if self.condition_aliases.get(name, name) not in self.valued_conditions:
            raise ValueError(_f("{name} takes no value in {ruleset}", name, self.name))
        if not re.fullmatch(r"-?[0-9]+", value):
            raise ValueError(
                _f("{name}'s value must be a whole number, not {value}", name, repr(value))
            )
        return Condition(name, value=int(value))

    def describe_choice(self, state: BattleState, action: Action) -> str:
        """The action as a suggestion names it: :meth:`describe`, plus what the same
        decision still holds after it where a reader could not tell (a Destiny Dice move
        before the turn's action is not a retreat: the action follows)."""
        return self.describe(state, action)

    def odds(self, state: BattleState, action: Action) -> Odds | None:
        """Exact odds of an attack-like action in this state; None for other actions."""
        return None

    # -- shared mechanics -----------------------------------------------------
    def begin_round(self, state: BattleState) -> list[Event]:
        """Advance the round counter; end the battle on the scenario's round limit."""
        state.round += 1
        limit = state.scenario.round_limit
        if state.round > limit:
            state.round = limit
            return self.finish(state, self.timeout_winner(state), "timeout")
        return [RoundStarted(_f("— Round {round} —", state.round), state.round)]

    def timeout_winner(self, state: BattleState) -> Side | None:
        """Who wins at the round limit: the heroes in a ``survive`` scenario, else nobody."""
        if state.scenario.victory == "survive" and state.active(Side.HEROES):
            return Side.HEROES
        return None

    def check_end(self, state: BattleState) -> list[Event]:
        """End the battle when one side has nobody left able to fight."""
        if state.outcome is not None:
            return []
        # One pass, no property calls: this runs after every action of every battle.
        heroes = enemies = False
        active = Status.ACTIVE
        for c in state.combatants:
            if c.status is active:
                if c.side is Side.HEROES:
                    heroes = True
                else:
                    enemies = True
        if heroes and enemies:
            return []
        if heroes:
            return self.finish(state, Side.HEROES, "defeated")
        if enemies:
            return self.finish(state, Side.ENEMIES, "defeated")
        return self.finish(state, None, "mutual")

    def finish(self, state: BattleState, winner: Side | None, reason: str) -> list[Event]:
        state.outcome = Outcome(winner, reason, state.round)
        state.pending = None
        who = who_wins(winner.value if winner else None)
        events: list[Event] = self.on_battle_end(state)
        events.append(
            BattleEnded(
                _f(
                    "Battle over after {round} round(s): {who} ({reason}).",
                    state.round,
                    who,
                    outcome_reason(reason),
                ),
                winner.value if winner else None,
                reason,
                state.round,
            )
        )
        return events

    def on_battle_end(self, state: BattleState) -> list[Event]:
        """Hook for what happens when the fight stops (Destiny Dice: downed heroes wake)."""
        return []

    @staticmethod
    def set_status(c: Combatant, status: Status, text: str, source: str = "") -> StatusChanged:
        c.status = status
        return StatusChanged(text, c.id, status.value, source)


def new_battle(scenario: Any, roller: Roller) -> BattleState:
    """A fresh battle of ``scenario`` with initiative rolled and the first decision pending."""
    state = BattleState(scenario, [c.clone() for c in scenario.combatants])
    events = state.ruleset.start(state, roller)
    state.log.extend(events)
    return state


def apply_action(
    state: BattleState, action: Action, roller: Roller, validate: bool = True
) -> list[Event]:
    """Apply one action of the pending decision and return its events.

    ``validate`` checks the action against ``legal_actions`` (the single source
    of truth); search may skip it for actions it took from that list itself.
    """
    if state.outcome is not None:
        raise IllegalActionError(_f("the battle is over; {action} cannot be taken", action))
    if validate:
        legal = state.ruleset.legal_actions(state)
        if action not in legal:
            pending = state.pending
            who = f"{pending.actor} ({word(pending.name)})" if pending else _("nobody")
            raise IllegalActionError(
                _f(
                    "illegal action {action}; the pending decision is {who} and its {n} legal "
                    "actions are: {actions}",
                    action,
                    who,
                    len(legal),
                    "; ".join(str(a) for a in legal[:12]) + (" …" if len(legal) > 12 else ""),
                )
            )
    events = state.ruleset.apply(state, action, roller)
    state.log.extend(events)
    return events
