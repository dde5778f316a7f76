"""The Donjon ruleset: ráfagas of initiative numbers, opposed pools, distance levels.

The battle is a chain of decisions (architecture.md, "Decision"):

* ``turn`` — the combatant whose initiative number the GM just called acts once
  (DJ-05, DJ-06): attack, finish off, move a distance level, flee, or wait;
* ``defensa`` — a reaction of the defender of a melee attack: parry (costs its
  next initiative number, DJ-14) or dodge (free, DJ-15);
* ``resistir`` — a reaction of the opponent a mover approaches or leaves:
  resist (costs its next number; movement test, DJ-10/DJ-11) or let it happen;
* ``repartir`` — the winner of a damage test spends its successes one at a time
  on Heridas or on an attribute (DJ-17);
* ``continuar`` — after the count reaches 1 each side continues or withdraws
  (DJ-07); the decision's actor is the side's first active combatant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel

from escaramuza.rules.core.battlefield import Battlefield
from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import AttackResolved, Event, Note
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import (
    Action,
    Combatant,
    IdentityMemo,
    Side,
    Status,
    VerbSpec,
    interned_action,
)
from escaramuza.rules.core.ruleset import Odds
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.donjon import combat
from escaramuza.rules.donjon.combat import (
    BAND_NAMES,
    CONTACT,
    OUT_OF_RANGE,
    PENALTY,
    TWO_ACTIONS,
    band_of,
)
from escaramuza.rules.donjon.decisions import (
    CONTINUE,
    DEFENCE,
    HERIDAS,
    RESIST,
    SPEND,
    SPEND_OPTIONS,
    TURN,
    PendingAttack,
    PendingMove,
    PendingSpend,
)
from escaramuza.rules.donjon.exact import (
    Outcomes,
    damage_after,
    defender_wins,
    successes_distribution,
)
from escaramuza.rules.donjon.reactions import Reactions
from escaramuza.rules.donjon.sheets import MELEE, DonjonOptions, DonjonStats

# -- hot-loop caches ---------------------------------------------------------------
# legal_actions and apply run once per decision (~320 a battle on donjon/emboscada, and 32
# rollouts a decision for the planner). Building a frozen slotted dataclass (an Action, a
# Decision) costs microseconds, and a turn lists a dozen actions, so the values that are pure
# functions of immutable inputs are built once and shared. Every cache below is keyed by ALL
# the inputs of the value it stores (or holds a strong reference to the immutable object it
# was derived from and checks identity), so a hit returns exactly what a fresh build would.


#: Per zone pair of a battlefield: (hops, DJ-09 band, whether a step away exists — the
#: ``alejarse`` condition of ``_turn_actions``). A function of the map alone, and a
#: Battlefield is immutable (rules/core/battlefield.py: "Immutable map of zones").
_ZoneInfo = dict[str, dict[str, tuple[int, int, bool]]]


def _zone_info(bf: Battlefield) -> _ZoneInfo:
    return bf.derived("donjon.zone_info", _build_zone_info)


def _build_zone_info(bf: Battlefield) -> _ZoneInfo:
    table: _ZoneInfo = {}
    for a in bf.zone_ids:
        row = table[a] = {}
        for b in bf.zone_ids:
            here = bf.distance(a, b)
            away = any(bf.distance(z, b) > here for z in bf.neighbours(a))
            band = band_of(here)
            row[b] = (here, band, band < OUT_OF_RANGE and away)
    return table


@dataclass(frozen=True, slots=True)
class _Versus:
    """The turn actions an actor can take against one opponent, by the opponent's state."""

    #: (DJ-12 penalty by band, the ``atacar`` action) per weapon, sheet order.
    attacks: tuple[tuple[tuple[int | None, ...], Action], ...]
    #: (penalty by band, the ``rematar`` action) per weapon, sheet order.
    finishes: tuple[tuple[tuple[int | None, ...], Action], ...]
    closer: Action
    away: Action


@dataclass(frozen=True, slots=True)
class _TurnRow:
    """An actor's static turn data: a function of its id and stat block only."""

    ataque: int
    weapons: tuple[tuple[tuple[int | None, ...], str], ...]
    huir: Action
    esperar: Action
    #: Opponent id → its actions, filled lazily (ids are all the entry depends on).
    versus: dict[str, _Versus]


def _no_rows(_: DonjonStats) -> dict[str, _TurnRow]:
    return {}


#: A stat block's turn rows by actor id: a row depends on the actor's id and on its frozen
#: stat block alone, which nobody mutates (combat.Profile).
_turn_rows_of: IdentityMemo[DonjonStats, dict[str, _TurnRow]] = IdentityMemo(_no_rows)


def _turn_row(actor: Combatant) -> _TurnRow:
    s = actor.stats
    rows = _turn_rows_of(s)
    row = rows.get(actor.id)
    if row is None:
        row = rows[actor.id] = _TurnRow(
            s.skills.ataque,
            tuple((PENALTY[a.kind], a.name) for a in s.weapons_or_fists),
            interned_action("huir", actor.id),
            interned_action("esperar", actor.id),
            {},
        )
    return row


def _versus(row: _TurnRow, actor: str, target: str) -> _Versus:
    found = row.versus.get(target)
    if found is None:
        found = row.versus[target] = _Versus(
            tuple(
                (pens, interned_action("atacar", actor, target, item=name))
                for pens, name in row.weapons
            ),
            tuple(
                (pens, interned_action("rematar", actor, target, item=name))
                for pens, name in row.weapons
            ),
            interned_action("acercarse", actor, target),
            interned_action("alejarse", actor, target),
        )
    return found


#: describe()'s words for each verb but atacar (the verb ids are the seed's Spanish).
VERB_TEXT = {
    "rematar": N_("finish off"),
    "acercarse": N_("approach"),
    "alejarse": N_("move away from"),
    "huir": N_("flee"),
    "esperar": N_("wait"),
    "parar": N_("parry"),
    "esquivar": N_("dodge"),
    "resistir": N_("resist"),
    "dejar": N_("let it pass"),
    "repartir": N_("allot"),
    "continuar": N_("go on"),
    "retirarse": N_("withdraw"),
}


class Donjon(Reactions):
    """Donjon's combat chapter (seed ``donjon.txt``); rule ids DJ-01 … DJ-21."""

    id: ClassVar[str] = "donjon"
    name: ClassVar[str] = "Donjon"
    env_id: ClassVar[str] = "escaramuza/Donjon-v0"
    default_scenario: ClassVar[str] = "donjon/duelo"
    verbs: ClassVar[tuple[VerbSpec, ...]] = (
        VerbSpec(
            "atacar",
            target=True,
            item=True,
            description="Prueba de Ataque: Celeridad + Habilidad de ataque (DJ-13)",
        ),
        VerbSpec(
            "rematar",
            target=True,
            item=True,
            description="kill an unconscious foe with one attack, no test (DJ-18)",
        ),
        VerbSpec("acercarse", target=True, description="move one distance level closer (DJ-10)"),
        VerbSpec("alejarse", target=True, description="move one distance level away (DJ-10)"),
        VerbSpec("huir", description="move from a dos acciones to fuera del alcance (DJ-11)"),
        VerbSpec("esperar", description="let this initiative number pass"),
        VerbSpec("parar", description="defensa activa: cross off the next number (DJ-14)"),
        VerbSpec("esquivar", description="defensa pasiva: costs nothing (DJ-15)"),
        VerbSpec("resistir", description="cross off the next number to resist a move (DJ-10)"),
        VerbSpec("dejar", description="let the opponent move unopposed (DJ-10)"),
        VerbSpec(
            "repartir",
            options=SPEND_OPTIONS,
            description="spend one damage success on Heridas or an attribute (DJ-17)",
        ),
        VerbSpec("continuar", description="fight another ráfaga (DJ-07)"),
        VerbSpec("retirarse", description="withdraw if the other side does too (DJ-07)"),
    )
    resources: ClassVar[dict[str, float]] = {
        HERIDAS: 10.0,
        "celeridad": 6.0,
        "virilidad": 6.0,
        "aguante": 6.0,
        "discernimiento": 6.0,
    }
    conditions: ClassVar[tuple[str, ...]] = ("inconsciente", "quebrado")
    band_names: ClassVar[tuple[str, ...]] = BAND_NAMES
    options_model: ClassVar[type[BaseModel]] = DonjonOptions
    stats_model: ClassVar[type[BaseModel]] = DonjonStats
    n_features: ClassVar[int] = 14
    decision_names: ClassVar[tuple[str, ...]] = (TURN, DEFENCE, RESIST, SPEND, CONTINUE)
    bookkeeping: ClassVar[str] = "escaramuza.rules.donjon.bookkeeping"
    recovery: ClassVar[str | None] = "escaramuza.rules.donjon.recovery"

    # -- scenario -------------------------------------------------------------
    def build_combatant(
        self, base: dict[str, Any], stats: BaseModel, options: BaseModel, index: int
    ) -> Combatant:
        assert isinstance(stats, DonjonStats)
        seen: set[str] = set()
        for i, weapon in enumerate(stats.weapons):
            if weapon.name in seen:
                raise ValueError(
                    f"weapons[{i}].name: " + _f("duplicate weapon name {name}", repr(weapon.name))
                )
            seen.add(weapon.name)
        attrs = stats.attributes
        values = {
            HERIDAS: stats.heridas,
            "celeridad": attrs.celeridad,
            "virilidad": attrs.virilidad,
            "aguante": attrs.aguante,
            "discernimiento": attrs.discernimiento,
        }
        side = base["side"]
        return Combatant(
            id=base["id"],
            name=base["name"],
            side=side,
            zone=base["zone"],
            index=index,
            stats=stats,
            resources=dict(values),
            maxima=dict(values),
            items=tuple(a.name for a in stats.weapons_or_fists),
            temperament=base["temperament"],
            # DJ-06 needs PJ/PNJ: heroes are PJ, enemies PNJ, unless the sheet says otherwise.
            pc=stats.pc if stats.pc is not None else side is Side.HEROES,
            data={"init": (), "bonus": 0, "acted": (0, 0)},
        )

    def validate_scenario(self, scenario: Any) -> None:
        # DJ-09: "Nunca puedes comenzar el combate fuera de alcance." — every pair of
        # opponents starts within two actions (two hops) of each other.
        bf = scenario.battlefield
        for i, a in enumerate(scenario.combatants):
            for b in scenario.combatants:
                if a.side is b.side or b.index < a.index:
                    continue
                hops = bf.distance(a.zone, b.zone)
                if hops > TWO_ACTIONS:
                    raise ValueError(
                        f"combatants[{i}].zone: "
                        + _f(
                            "{id} starts {hops} zone steps from {other} (fuera del alcance); a "
                            "Donjon battle never starts out of range (DJ-09)",
                            a.id,
                            hops,
                            b.id,
                        )
                    )

    # -- legal actions ------------------------------------------------------------
    def legal_actions(self, state: BattleState) -> list[Action]:
        pending = state.pending
        if pending is None or state.outcome is not None:
            return []
        me = pending.actor
        if pending.name == TURN:
            return self._turn_actions(state, state.by_id[me])
        if pending.name == DEFENCE:
            return [interned_action("parar", me), interned_action("esquivar", me)]
        if pending.name == RESIST:
            return [interned_action("resistir", me), interned_action("dejar", me)]
        if pending.name == SPEND:
            return [interned_action("repartir", me, option=o) for o in self._spend_options(state)]
        return [interned_action("continuar", me), interned_action("retirarse", me)]

    def _turn_actions(self, state: BattleState, actor: Combatant) -> list[Action]:
        attacks: list[Action] = []
        finish: list[Action] = []
        closer: list[Action] = []
        away: list[Action] = []
        row = _turn_row(actor)
        zones = _zone_info(state.battlefield)[actor.zone]
        # DJ-13 attack pool + carried bonus, before the weapon's DJ-12 penalty.
        dice = actor.resources["celeridad"] + row.ataque + actor.data["bonus"]
        nearest = OUT_OF_RANGE
        side = actor.side
        active, down = Status.ACTIVE, Status.DOWN
        for o in state.combatants:
            if o.side is side:
                continue
            hops, band, can_step_away = zones[o.zone]
            vs = row.versus.get(o.id) or _versus(row, actor.id, o.id)
            status = o.status
            if status is active:
                if band < nearest:
                    nearest = band
                for pens, act in vs.attacks:
                    penalty = pens[band]
                    # *(default)* an attack needs at least one die to roll.
                    if penalty is not None and dice - penalty >= 1:
                        attacks.append(act)
                if hops > 0:
                    closer.append(vs.closer)
                if can_step_away:
                    away.append(vs.away)
            elif status is down:
                for pens, act in vs.finishes:
                    if pens[band] is not None:
                        finish.append(act)
        out = attacks + finish + closer + away
        if nearest >= TWO_ACTIONS:
            out.append(row.huir)
        out.append(row.esperar)
        return out

    # -- apply ------------------------------------------------------------------
    def apply(self, state: BattleState, action: Action, roller: Roller) -> list[Event]:
        pending = state.pending
        assert pending is not None
        name = pending.name
        if name == TURN:
            return self._apply_turn(state, action, roller)
        if name == DEFENCE:
            return self._resolve_attack(state, roller, action.verb == "parar")
        if name == RESIST:
            return self._resolve_move(state, roller, action.verb == "resistir")
        if name == SPEND:
            return self._apply_spend(state, action)
        return self._apply_continue(state, action, roller)

    def _apply_turn(self, state: BattleState, action: Action, roller: Roller) -> list[Event]:
        actor = state.by_id[action.actor]
        count: int = state.data["count"]
        init: tuple[int, ...] = actor.data["init"]
        i = init.index(count)
        actor.data["init"] = init[:i] + init[i + 1 :]
        acted_at, times = actor.data["acted"]
        actor.data["acted"] = (count, times + 1 if acted_at == count else 1)
        state.turn += 1
        verb = action.verb
        if verb == "atacar":
            return self._declare_attack(
                state, actor, state.by_id[action.target or ""], action.item or "", roller
            )
        if verb == "rematar":
            target = state.by_id[action.target or ""]
            # DJ-18: "Solo toma un ataque, que no requiere de Prueba alguna, para matar al PNJ".
            events: list[Event] = [
                AttackResolved(
                    _f(
                        "{actor} finishes off the unconscious {target} with {item} (no test).",
                        actor.name,
                        target.name,
                        action.item,
                    ),
                    actor.id,
                    target.id,
                    action.item or "",
                    True,
                ),
                self.set_status(
                    target,
                    Status.DEAD,
                    _f(
                        "{target} is killed.",
                        target.name,
                    ),
                    actor.id,
                ),
            ]
            return events + self._after(state)
        if verb in ("acercarse", "alejarse", "huir"):
            return self._declare_move(state, actor, verb, action.target, roller)
        return [Note(_f("{actor} lets the number pass.", actor.name))] + self._after(state)

    # -- exact odds -----------------------------------------------------------
    def odds(self, state: BattleState, action: Action) -> Odds | None:
        """Exact odds of the actions that can take Heridas off someone.

        * ``atacar`` — Prueba de Ataque (with carried bonus dice) against the
          defence, then the Prueba de Daño with the attack's successes as bonus
          dice (DJ-03, DJ-13…16). A melee attack on a defender who can parry is
          counted against its LARGER defence pool (parry if at least as many dice
          as the dodge: the attacker's worst case; the counter it risks is not in
          these numbers).
        * ``resistir`` against an escape from contact — the DJ-11 free attack:
          P(the movement test is won) × the free attack (movement successes as
          bonus dice, with the weapon those successes let it use; dodge only) × its
          damage. Other resistances: None.
        * ``parar`` — the DJ-14 counter: P(the parry wins) × its damage on the
          attacker (the odds' target is the attacker).
        * ``rematar`` — no test (DJ-18): hits and kills for certain, 0 Heridas.

        ``p_hit`` is P(the attack / parry test is won); ``damage`` the Heridas the
        target loses when every damage success goes on Heridas (the default spend,
        DJ-17), capped at its Heridas; ``p_drop`` P(a PNJ reaches 0 Heridas,
        DJ-18) or P(a PJ already at 0 is broken by a PNJ, every damage die a
        success, DJ-19). A PJ's damage and resistance pools are at least one die
        (DJ-19), as in the battle.
        """
        opts = self._opts(state)
        sides, tied = opts.die_size, opts.all_tied
        actor = state.by_id[action.actor]
        if action.verb == "rematar":
            return Odds(1.0, 0.0, 1.0, {0: 1.0})
        if action.verb == "atacar" and action.target and action.item:
            target = state.by_id[action.target]
            weapon = combat.weapon(actor, action.item)
            band = band_of(state.distance(actor, target))
            pool = (combat.attack_pool(actor, weapon, band) or 0) + actor.data["bonus"]
            defence = combat.dodge_pool(target)
            if weapon.kind == MELEE and self._can_react(target) and combat.parry_weapon(target):
                defence = max(defence, combat.parry_pool(target))
            won = successes_distribution(max(0, pool), defence, sides, tied)
            return self._odds_of(state, actor, target, combat.damage_pool(actor, weapon), won)
        pending = state.pending
        if action.verb == "resistir" and pending is not None and pending.name == RESIST:
            move: PendingMove = state.data["move"]
            if not move.from_contact:
                return None
            mover = state.by_id[move.mover]
            resist = defender_wins(
                combat.move_pool(mover) + mover.data["bonus"], combat.move_pool(actor), sides, tied
            )
            # The weapon, and so its damage pool, depends on the movement successes
            # (combat.free_attack_weapon): ``won`` is keyed by the whole damage test pool,
            # the weapon's damage pool + the attack's successes, and no dice are added to it.
            won: dict[int, float] = {}
            for s, p in resist.items():
                weapon = combat.free_attack_weapon(actor, s)
                if weapon is None:
                    continue  # no weapon rolls a die: no free attack
                pool = (combat.attack_pool(actor, weapon, CONTACT) or 0) + s
                dice = combat.damage_pool(actor, weapon)
                for t, q in successes_distribution(
                    pool, combat.dodge_pool(mover), sides, tied
                ).items():
                    won[dice + t] = won.get(dice + t, 0.0) + p * q
            return self._odds_of(state, actor, mover, 0, won)
        if action.verb == "parar" and pending is not None and pending.name == DEFENCE:
            pend: PendingAttack = state.data["attack"]
            attacker = state.by_id[pend.attacker]
            counter = combat.parry_weapon(actor)
            assert counter is not None
            used = combat.weapon(attacker, pend.weapon)
            pool = (combat.attack_pool(attacker, used, pend.band) or 0) + attacker.data["bonus"]
            won = defender_wins(max(0, pool), combat.parry_pool(actor), sides, tied)
            return self._odds_of(state, actor, attacker, combat.damage_pool(actor, counter), won)
        return None

    def _odds_of(
        self,
        state: BattleState,
        dealer: Combatant,
        victim: Combatant,
        damage_dice: int,
        won: dict[int, float],
    ) -> Odds:
        """The odds of a test won with ``s`` successes w.p. ``won[s]``, then the damage test
        of ``damage_dice`` + ``s`` dice (DJ-03) on ``victim``."""
        opts = self._opts(state)
        outcomes: Outcomes = damage_after(
            won,
            damage_dice,
            combat.soak_pool(victim),
            opts.die_size,
            opts.all_tied,
            combat.damage_test_floor(dealer),
            combat.damage_test_floor(victim),
        )
        heridas = victim.resources[HERIDAS]
        breakable = victim.pc and not dealer.pc and heridas == 0
        damage: dict[int, float] = {}
        drop = 0.0
        for (k, every), p in outcomes.items():
            lost = min(k, heridas)
            damage[lost] = damage.get(lost, 0.0) + p
            if (every and breakable) or (not victim.pc and heridas > 0 and k >= heridas):
                drop += p
        return Odds(
            sum(won.values()),
            sum(k * p for k, p in damage.items()),
            drop,
            dict(sorted(damage.items())),
        )

    # -- description ------------------------------------------------------------------
    def describe(self, state: BattleState, action: Action) -> str:
        actor = state.by_id.get(action.actor)
        who = actor.name if actor else action.actor
        target = state.by_id.get(action.target) if action.target else None
        if target is not None and actor is not None:
            band = BAND_NAMES[band_of(state.distance(actor, target))]
            if action.verb == "atacar":
                weapon = combat.weapon(actor, action.item or "")
                pool = (
                    combat.attack_pool(actor, weapon, band_of(state.distance(actor, target))) or 0
                ) + actor.data["bonus"]
                return _f(
                    "{c}: attack {t} with {item} ({band}, {n} dice)",
                    who,
                    target.name,
                    weapon.name,
                    band,
                    pool,
                )
            return _f(
                "{c}: {verb} {t} ({band})",
                who,
                _(VERB_TEXT.get(action.verb, action.verb)),
                target.name,
                band,
            )
        verb = _(VERB_TEXT.get(action.verb, action.verb))
        if action.option:
            return _f("{c}: {verb} ({option})", who, verb, action.option)
        return _f("{c}: {verb}", who, verb)

    # -- features ----------------------------------------------------------------------
    def features(self, state: BattleState, combatant: Combatant) -> Sequence[float]:
        s = combat.stats(combatant)
        r = combatant.resources
        melee = max((a.damage for a in s.weapons_or_fists if a.kind == MELEE), default=0)
        ranged = max((a.damage for a in s.weapons_or_fists if a.kind != MELEE), default=0)
        init = combatant.data["init"]
        die = self._opts(state).die_size
        return (
            r["celeridad"] / 6.0,
            r["virilidad"] / 6.0,
            r["aguante"] / 6.0,
            r["discernimiento"] / 6.0,
            min(s.level, 10) / 10.0,
            min(s.skills.ataque, 6) / 6.0,
            min(s.skills.esquivar, 6) / 6.0,
            min(s.armour, 6) / 6.0,
            min(melee, 6) / 6.0,
            min(ranged, 6) / 6.0,
            min(len(init), 10) / 10.0,
            (init[0] / die) if init else 0.0,
            min(combatant.data["bonus"], 6) / 6.0,
            1.0 if combatant.pc else 0.0,
        )


__all__ = ["Donjon", "PendingAttack", "PendingMove", "PendingSpend"]
