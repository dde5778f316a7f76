"""What another combatant may react to (the seed's "Atacar y defenderse" and "Distancia y
movimiento"): an attack, which a defender parries (crossing off its next number, DJ-14) or
dodges (DJ-15), with the range penalties of DJ-12; and a move of one distance level,
which the opponent may resist (DJ-10), out of range being out of the battle (DJ-11).
"""

from __future__ import annotations

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import AttackResolved, Event, Moved, Note
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import Combatant, DecisionKind, Status, interned
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.donjon import combat
from escaramuza.rules.donjon.combat import BAND_NAMES, CONTACT, OUT_OF_RANGE, band_of
from escaramuza.rules.donjon.damage import Damage
from escaramuza.rules.donjon.decisions import DEFENCE, RESIST, PendingAttack, PendingMove, decision
from escaramuza.rules.donjon.exact import ATTACKER
from escaramuza.rules.donjon.sheets import MELEE

#: The line announcing a move another combatant may resist (DJ-10), per verb.
_TRIES = {
    "acercarse": N_("{actor} tries to approach; {resister} may resist."),
    "alejarse": N_("{actor} tries to move away; {resister} may resist."),
    "huir": N_("{actor} tries to flee; {resister} may resist."),
}


class Reactions(Damage):
    """Attacks and moves, and the reactions they allow, for
    :class:`~escaramuza.rules.donjon.ruleset.Donjon`."""

    # -- reactions ----------------------------------------------------------------
    @staticmethod
    def _cross_off(c: Combatant) -> Note:
        """DJ-10/DJ-14: "simplemente tacha el siguiente número de iniciativa del oponente"."""
        init: tuple[int, ...] = c.data["init"]
        c.data["init"] = init[1:]
        return Note(_f("{c} crosses off initiative number {n} to react.", c.name, init[0]))

    @staticmethod
    def _can_react(c: Combatant) -> bool:
        return c.active and bool(c.data["init"])

    @staticmethod
    def _opponents(state: BattleState, c: Combatant) -> list[Combatant]:
        return [o for o in state.combatants if o.side is not c.side and o.active]

    # -- attacks ------------------------------------------------------------------
    def _declare_attack(
        self, state: BattleState, actor: Combatant, target: Combatant, item: str, roller: Roller
    ) -> list[Event]:
        weapon = combat.weapon(actor, item)
        band = band_of(state.distance(actor, target))
        state.data["attack"] = interned(PendingAttack, actor.id, target.id, item, band)
        # DJ-14: "Sólo se pueden defender activamente los ataques cuerpo a cuerpo", and the
        # parry must cross off a later number and needs a melee weapon to parry with.
        if weapon.kind == MELEE and self._can_react(target) and combat.parry_weapon(target):
            state.pending = decision(
                DecisionKind.REACTION,
                target.id,
                target.side,
                DEFENCE,
                _f(
                    "{t}: parry or dodge {c}'s attack",
                    target.name,
                    actor.name,
                ),
            )
            return [
                Note(
                    _f(
                        "{actor} attacks {target} with {item}.",
                        actor.name,
                        target.name,
                        item,
                    )
                )
            ]
        return self._resolve_attack(state, roller, parry=False)

    def _resolve_attack(self, state: BattleState, roller: Roller, parry: bool) -> list[Event]:
        pend: PendingAttack = state.data["attack"]
        actor = state.by_id[pend.attacker]
        target = state.by_id[pend.target]
        weapon = combat.weapon(actor, pend.weapon)
        events: list[Event] = []
        if parry:
            events.append(self._cross_off(target))
        pool = combat.attack_pool(actor, weapon, pend.band) or 0
        bonus = actor.data["bonus"]
        actor.data["bonus"] = 0
        d_pool = combat.parry_pool(target) if parry else combat.dodge_pool(target)
        d_what = _("parada (defensa activa)") if parry else _("esquiva (defensa pasiva)")
        result, evs = self._opposed(
            state,
            roller,
            actor,
            pool + bonus,
            _f("Prueba de Ataque with {item} ({band})", weapon.name, BAND_NAMES[pend.band]),
            target,
            d_pool,
            d_what,
        )
        events.extend(evs)
        hit = result.winner == ATTACKER
        events.append(
            AttackResolved(
                _f("{c}'s attack on {t} hits.", actor.name, target.name)
                if hit
                else _f("{c}'s attack on {t} is parried: counterattack!", actor.name, target.name)
                if parry
                else _f("{c}'s attack on {t} is dodged.", actor.name, target.name),
                actor.id,
                target.id,
                weapon.name,
                hit,
            )
        )
        if hit:
            events.extend(self._damage(state, roller, actor, target, weapon, result.successes))
        elif parry:
            # DJ-14: "El ganador de la Prueba daña a su oponente, ya sea el atacante o el defensor."
            counter = combat.parry_weapon(target)
            assert counter is not None
            events.extend(self._damage(state, roller, target, actor, counter, result.successes))
        # DJ-15: a dodge's successes are lost.
        if "spend" not in state.data:
            events.extend(self._after(state))
        return events

    # -- movement -------------------------------------------------------------------
    def _declare_move(
        self,
        state: BattleState,
        actor: Combatant,
        verb: str,
        target_id: str | None,
        roller: Roller,
    ) -> list[Event]:
        bf = state.battlefield
        if verb == "huir":
            to_zone = None
            # *(default)* the nearest opponent who can still react is the one who may pursue.
            candidates = sorted(
                (o for o in self._opponents(state, actor) if self._can_react(o)),
                key=lambda o: (bf.distance(actor.zone, o.zone), o.index),
            )
            resister = candidates[0] if candidates else None
            from_contact = False
        else:
            other = state.by_id[target_id or ""]
            to_zone = (
                bf.step_towards(actor.zone, other.zone)
                if verb == "acercarse"
                else self._away_zone(state, actor, other)
            )
            resister = other if self._can_react(other) else None
            # DJ-11: "Si un personaje que está en contacto intenta escapar y su oponente se
            # resiste, el oponente obtiene un ataque gratuito".
            from_contact = verb == "alejarse" and actor.zone == other.zone
        move = PendingMove(actor.id, resister.id if resister else "", verb, to_zone, from_contact)
        state.data["move"] = move
        if resister is not None:
            state.pending = decision(
                DecisionKind.REACTION,
                resister.id,
                resister.side,
                RESIST,
                _f("{t}: resist {c}'s movement?", resister.name, actor.name),
            )
            return [Note(_(_TRIES[verb]).format(actor=actor.name, resister=resister.name))]
        return self._resolve_move(state, roller, resist=False)

    def _resolve_move(self, state: BattleState, roller: Roller, resist: bool) -> list[Event]:
        move: PendingMove = state.data["move"]
        mover = state.by_id[move.mover]
        events: list[Event] = []
        if resist:
            resister = state.by_id[move.resister]
            events.append(self._cross_off(resister))
            bonus = mover.data["bonus"]
            mover.data["bonus"] = 0
            result, evs = self._opposed(
                state,
                roller,
                mover,
                combat.move_pool(mover) + bonus,
                _("Prueba de Movimiento"),
                resister,
                combat.move_pool(resister),
                _("Prueba de Movimiento (resistir)"),
            )
            events.extend(evs)
            if result.winner != ATTACKER:
                events.append(
                    Note(
                        _f(
                            "{resister} stops {mover}'s movement.",
                            resister.name,
                            mover.name,
                        )
                    )
                )
                if move.from_contact:
                    events.extend(
                        self._free_attack(state, roller, resister, mover, result.successes)
                    )
                if "spend" not in state.data:
                    events.extend(self._after(state))
                return events
            # "tus éxitos pueden gastarse ... como bonificadores para tu próximo movimiento o
            # ataque" — kept until that next attack or movement test.
            mover.data["bonus"] = result.successes
        events.extend(self._carry_out_move(state, mover, move))
        return events + self._after(state)

    def _carry_out_move(
        self, state: BattleState, mover: Combatant, move: PendingMove
    ) -> list[Event]:
        if move.to_zone is None:
            return [
                self.set_status(
                    mover,
                    Status.FLED,
                    _f("{mover} moves fuera del alcance and leaves the battle.", mover.name),
                )
            ]
        old = mover.zone
        mover.zone = move.to_zone
        events: list[Event] = [
            Moved(
                _f(
                    "{mover} moves from {old} to {to_zone}.",
                    mover.name,
                    old,
                    move.to_zone,
                ),
                mover.id,
                old,
                move.to_zone,
            )
        ]
        bf = state.battlefield
        if all(
            bf.distance(mover.zone, o.zone) >= OUT_OF_RANGE for o in self._opponents(state, mover)
        ):
            # DJ-11: "Si un personaje se mueve fuera del alcance, está fuera del combate."
            events.append(
                self.set_status(
                    mover,
                    Status.FLED,
                    _f(
                        "{mover} is fuera del alcance of every foe and leaves the battle.",
                        mover.name,
                    ),
                )
            )
        return events

    def _free_attack(
        self,
        state: BattleState,
        roller: Roller,
        attacker: Combatant,
        target: Combatant,
        successes: int,
    ) -> list[Event]:
        """DJ-11: a free attack, the movement successes as bonus dice; only a dodge defends it.

        With the weapon :func:`~escaramuza.rules.donjon.combat.free_attack_weapon` picks for
        those successes; none when no weapon rolls a die even with them.
        """
        weapon = combat.free_attack_weapon(attacker, successes)
        if weapon is None:
            return []
        pool = (combat.attack_pool(attacker, weapon, CONTACT) or 0) + successes
        result, events = self._opposed(
            state,
            roller,
            attacker,
            pool,
            _f(
                "ataque gratuito with {item} (+{n} bonus)",
                weapon.name,
                successes,
            ),
            target,
            combat.dodge_pool(target),
            _("esquiva (defensa pasiva)"),
        )
        hit = result.winner == ATTACKER
        events.append(
            AttackResolved(
                _f("{c}'s free attack on the fleeing {t} hits.", attacker.name, target.name)
                if hit
                else _f(
                    "{c}'s free attack on the fleeing {t} is dodged.", attacker.name, target.name
                ),
                attacker.id,
                target.id,
                weapon.name,
                hit,
            )
        )
        if hit:
            events.extend(self._damage(state, roller, attacker, target, weapon, result.successes))
        return events

    @staticmethod
    def _away_zone(state: BattleState, actor: Combatant, target: Combatant) -> str | None:
        """The neighbouring zone that puts one more action between actor and target."""
        bf = state.battlefield
        here = bf.distance(actor.zone, target.zone)
        for zone in bf.neighbours(actor.zone):
            if bf.distance(zone, target.zone) > here:
                return zone
        return None
