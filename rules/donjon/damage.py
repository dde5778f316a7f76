"""Damage and wounds (DJ-16 … DJ-19, the seed's "Daño y heridas" and "Muerte"): the
damage test, then the winner's successes spent one ``repartir`` decision at a time on
Heridas or on an attribute; a PNJ at 0 Heridas falls unconscious, a PJ is only broken.
"""

from __future__ import annotations

from typing import Any

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import ConditionApplied, Damaged, Event, Note
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.model import Action, Combatant, Condition, DecisionKind, Status, interned
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.donjon import combat
from escaramuza.rules.donjon.decisions import HERIDAS, SPEND, PendingSpend, decision
from escaramuza.rules.donjon.exact import ATTACKER
from escaramuza.rules.donjon.rafaga import Rafaga
from escaramuza.rules.donjon.sheets import ATTRIBUTES


class Damage(Rafaga):
    """The damage test and its spending, for
    :class:`~escaramuza.rules.donjon.ruleset.Donjon`."""

    def _damage(
        self,
        state: BattleState,
        roller: Roller,
        dealer: Combatant,
        victim: Combatant,
        weapon: Any,
        carried: int,
    ) -> list[Event]:
        """DJ-16 damage test; DJ-03 carried successes are bonus dice; DJ-19 breaking a PC."""
        # DJ-19: "Los PJ siempre tiran un dado en las Pruebas de Daño, inclusive cuando su
        # Aguante es reducido a cero" — a PJ rolls at least one die whether it deals the
        # damage or resists it; a PNJ with an empty pool rolls none.
        pool = max(
            0, combat.damage_test_floor(dealer), combat.damage_pool(dealer, weapon) + carried
        )
        soak = max(0, combat.damage_test_floor(victim), combat.soak_pool(victim))
        victim_at_zero = victim.resources[HERIDAS] == 0
        result, events = self._opposed(
            state,
            roller,
            dealer,
            pool,
            (
                _f("Prueba de Daño with {item} (+{carried} carried)", weapon.name, carried)
                if carried
                else _f(
                    "Prueba de Daño with {item}",
                    weapon.name,
                )
            ),
            victim,
            soak,
            _("Aguante + armadura"),
        )
        if result.winner != ATTACKER or result.successes == 0:
            events.append(Note(_f("{victim} shrugs off the blow.", victim.name)))
            return events
        if victim.pc and not dealer.pc and victim_at_zero and result.successes == pool:
            # DJ-19: "el PNJ debe hacer una Prueba de Daño contra el personaje y lograr que
            # todos y cada uno de los dados sean éxitos" — the PJ must already be at 0 Heridas.
            victim.conditions["quebrado"] = Condition("quebrado")
            events.append(
                ConditionApplied(
                    _f(
                        "Every one of {dealer}'s {pool} damage dice is an éxito: {victim} is "
                        "quebrado.",
                        dealer.name,
                        pool,
                        victim.name,
                    ),
                    victim.id,
                    "quebrado",
                )
            )
            events.append(
                self.set_status(
                    victim,
                    Status.DOWN,
                    _f(
                        "{victim} falls unconscious.",
                        victim.name,
                    ),
                    dealer.id,
                )
            )
            return events
        state.data["spend"] = interned(PendingSpend, dealer.id, victim.id, result.successes, ())
        return events + self._next_spend(state)

    # -- spending the successes (DJ-17) -----------------------------------------
    def _spend_options(self, state: BattleState) -> list[str]:
        spend: PendingSpend = state.data["spend"]
        victim = state.by_id[spend.victim]
        out: list[str] = []
        heridas = victim.resources[HERIDAS]
        if heridas > 0:
            out.append(HERIDAS)
        for attr in ATTRIBUTES:
            if victim.resources[attr] <= 0:
                continue
            # "para dañar cada Atributo debes gastar un éxito como un hecho"; "Si un personaje
            # ya no tiene más Heridas, no tienes que gastar éxitos en hechos".
            needs_fact = heridas > 0 and attr not in spend.picked
            if needs_fact and spend.remaining < 2:
                continue
            out.append(attr)
        return out

    def _next_spend(self, state: BattleState) -> list[Event]:
        """Ask for the next success, or close the spending when nothing is left to spend on."""
        spend: PendingSpend = state.data["spend"]
        victim = state.by_id[spend.victim]
        if spend.remaining > 0 and victim.active and self._spend_options(state):
            dealer = state.by_id[spend.dealer]
            state.pending = decision(
                DecisionKind.CHOICE,
                dealer.id,
                dealer.side,
                SPEND,
                _f("{c}: spend {n} éxito(s) on {t}", dealer.name, spend.remaining, victim.name),
            )
            return []
        lost = spend.remaining if victim.active else 0
        state.data.pop("spend")
        events: list[Event] = [Note(_f("{lost} éxito(s) are lost.", lost))] if lost else []
        return events

    def _apply_spend(self, state: BattleState, action: Action) -> list[Event]:
        spend: PendingSpend = state.data["spend"]
        victim = state.by_id[spend.victim]
        dealer = state.by_id[spend.dealer]
        option = action.option or HERIDAS
        events: list[Event] = []
        remaining = spend.remaining - 1
        picked = spend.picked
        if option == HERIDAS:
            victim.resources[HERIDAS] -= 1
            left = victim.resources[HERIDAS]
            events.append(
                Damaged(
                    _f(
                        "{dealer} takes one Herida off {victim} ({left} left).",
                        dealer.name,
                        victim.name,
                        left,
                    ),
                    victim.id,
                    1,
                    HERIDAS,
                    dealer.id,
                    left,
                )
            )
            if left == 0 and not victim.pc:
                # DJ-18: "Todos los PNJ caen inconscientes cuando sus Heridas llegan a cero."
                victim.conditions["inconsciente"] = Condition("inconsciente")
                events.append(
                    ConditionApplied(
                        _f("{victim} falls unconscious.", victim.name), victim.id, "inconsciente"
                    )
                )
                events.append(
                    self.set_status(
                        victim,
                        Status.DOWN,
                        _f(
                            "{victim} is out of the fight.",
                            victim.name,
                        ),
                        dealer.id,
                    )
                )
            elif left == 0:
                events.append(
                    Note(
                        _f("{victim} is at 0 Heridas but, as a PJ, fights on (DJ-19).", victim.name)
                    )
                )
        elif victim.resources[HERIDAS] > 0 and option not in picked:
            picked = (*picked, option)
            events.append(
                Note(
                    _f(
                        "{dealer} spends an éxito as a fact: the blow is aimed at "
                        "{victim}'s {option}.",
                        dealer.name,
                        victim.name,
                        option,
                    )
                )
            )
        else:
            victim.resources[option] -= 1
            left = victim.resources[option]
            events.append(
                Damaged(
                    _f(
                        "{dealer} lowers {victim}'s {option} to {left}.",
                        dealer.name,
                        victim.name,
                        option,
                        left,
                    ),
                    victim.id,
                    1,
                    option,
                    dealer.id,
                    left,
                )
            )
        state.data["spend"] = interned(PendingSpend, spend.dealer, spend.victim, remaining, picked)
        events.extend(self._next_spend(state))
        if "spend" not in state.data:
            events.extend(self._after(state))
        return events
