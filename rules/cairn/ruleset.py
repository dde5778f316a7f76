"""The Cairn ruleset: side turns, declarations first, simultaneous resolution.

A round is the heroes' side turn, then the enemies' (CA-02: "Cada ronda
comienza con cualquier PJ que pueda actuar, seguido por sus oponentes"). In a
side turn every combatant of that side able to act declares one action, one
decision each in scenario order ("Todas las acciones se declaran antes de
resolverse"); then the side's declarations resolve together ("El resultado de
las acciones de cada lado ocurre simultáneamente"): movement first, then every
target takes the single highest of all the dice aimed at it (CA-06).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel

from escaramuza.rules.cairn.combat import (
    CONDITIONS,
    apply_damage,
    attack_dice,
    attack_zone,
    blast_targets,
    declared_pools,
    in_reach,
    is_blast,
    save,
    set_status,
    weapon_named,
    weapons_of,
)
from escaramuza.rules.cairn.exact import marginal_exchange
from escaramuza.rules.cairn.sheets import RANGED, CairnOptions, CairnStats, Weapon
from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import (
    AttackResolved,
    BattleStarted,
    ConditionApplied,
    ConditionEnded,
    Event,
    Moved,
    Note,
    Rolled,
    TurnStarted,
)
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.model import (
    Action,
    Combatant,
    Condition,
    Decision,
    DecisionKind,
    Side,
    Status,
    VerbSpec,
    interned_action,
)
from escaramuza.rules.core.ruleset import Odds, Ruleset
from escaramuza.rules.core.state import BattleState

ATTACK = "atacar"
MOVE = "mover"
FLEE = "huir"
WAIT = "esperar"

#: How many zone steps a turn can cover: the move plus a second move as the action
#: (CA-04: "moverse hasta 12 metros y realizar una acción … hacer un segundo movimiento").
MAX_MOVE = 2


class Cairn(Ruleset):
    """Cairn (2e) combat: attacks always hit, keep-highest focus fire, PI → FUE."""

    id: ClassVar[str] = "cairn"
    name: ClassVar[str] = "Cairn"
    env_id: ClassVar[str] = "escaramuza/Cairn-v0"
    default_scenario: ClassVar[str] = "cairn/emboscada_goblin"
    verbs: ClassVar[tuple[VerbSpec, ...]] = (
        VerbSpec(
            ATTACK,
            target=True,
            item=True,
            description="attack with a weapon (a step first when one zone out of reach)",
        ),
        VerbSpec(MOVE, zone=True, description="move up to two zones (move + second move)"),
        VerbSpec(FLEE, description="retreat through an exit zone: a DES save (CA-17)"),
        VerbSpec(WAIT, description="do nothing this turn"),
    )
    resources: ClassVar[dict[str, float]] = {"pi": 6.0, "fue": 18.0, "des": 18.0, "vol": 18.0}
    conditions: ClassVar[tuple[str, ...]] = CONDITIONS
    band_names: ClassVar[tuple[str, ...]] = ("misma zona", "cerca", "lejos")
    options_model: ClassVar[type[BaseModel]] = CairnOptions
    stats_model: ClassVar[type[BaseModel]] = CairnStats
    n_features: ClassVar[int] = 7
    decision_names: ClassVar[tuple[str, ...]] = ("declarar",)
    #: CA-02: the sides alternate, each declaring together; there is no initiative order.
    keeps_order: ClassVar[bool] = False
    bookkeeping: ClassVar[str] = "escaramuza.rules.cairn.bookkeeping"
    recovery: ClassVar[str | None] = "escaramuza.rules.cairn.recovery"

    # -- scenario -------------------------------------------------------------
    def build_combatant(
        self, base: dict[str, Any], stats: BaseModel, options: BaseModel, index: int
    ) -> Combatant:
        assert isinstance(stats, CairnStats)
        side = Side(base["side"])
        pc = stats.pc if stats.pc is not None else side is Side.HEROES
        if pc and stats.destacamento:
            raise ValueError("destacamento: " + _("a destacamento is a group of NPCs, not a PC"))
        values = {"pi": stats.pi, "fue": stats.fue, "des": stats.des, "vol": stats.vol}
        items = tuple(w.name for w in stats.weapons) or ("desarmado",)
        return Combatant(
            id=base["id"],
            name=base["name"],
            side=side,
            zone=base["zone"],
            index=index,
            stats=stats,
            resources=dict(values),
            maxima=dict(values),
            items=items,
            temperament=base["temperament"],
            pc=pc,
        )

    # -- turn structure (CA-02, CA-03) -------------------------------------------
    def start(self, state: BattleState, roller: Roller) -> list[Event]:
        events: list[Event] = [
            BattleStarted(
                _f("{title}: a Cairn battle begins.", state.scenario.title),
                state.scenario.name,
                self.id,
            )
        ]
        events.extend(self.begin_round(state))
        events.extend(self._open_side_turn(state, Side.HEROES, roller))
        if not state.data["queue"]:
            events.extend(self._close_side_turn(state))
            events.extend(self._next_side_turn(state, roller))
        return events

    def _open_side_turn(self, state: BattleState, side: Side, roller: Roller) -> list[Event]:
        state.data["side"] = side.value
        state.data["declared"] = ()
        events: list[Event] = [
            TurnStarted(
                _f("Round {round}: the heroes declare their actions.", state.round)
                if side is Side.HEROES
                else _f("Round {round}: the enemies declare their actions.", state.round),
                "",
                state.round,
            )
        ]
        if state.round == 1 and state.options.first_round_save:
            for c in state.combatants:
                if c.side is side and c.active and c.pc and not c.stats.waive_first_save:
                    # CA-03: "cada PJ debe realizar una tirada de salvación de DES para poder
                    # actuar … Los PCs que no superen la tirada pierden su turno".
                    ok, rolled = save(roller, c, "des", _("first round"))
                    events.append(rolled)
                    if not ok:
                        c.conditions["perdio_turno"] = Condition("perdio_turno", until="turn")
                        events.append(
                            ConditionApplied(
                                _f("{c} loses the turn.", c.name), c.id, "perdio_turno"
                            )
                        )
        queue = tuple(
            c.id
            for c in state.combatants
            if c.side is side and c.active and "perdio_turno" not in c.conditions
        )
        state.data["queue"] = queue
        state.pending = self._decision(state, queue[0]) if queue else None
        return events

    def _decision(self, state: BattleState, actor_id: str) -> Decision:
        c = state.by_id[actor_id]
        return Decision(
            DecisionKind.TURN,
            c.id,
            c.side,
            "declarar",
            _f("{c}: declare an action (round {round})", c.name, state.round),
        )

    def _close_side_turn(self, state: BattleState) -> list[Event]:
        side = Side(state.data["side"])
        events: list[Event] = []
        for c in state.combatants:
            if c.side is side and "perdio_turno" in c.conditions:
                del c.conditions["perdio_turno"]
                events.append(
                    ConditionEnded(
                        _f(
                            "{c} can act again.",
                            c.name,
                        ),
                        c.id,
                        "perdio_turno",
                    )
                )
        state.data["declared"] = ()
        state.data["queue"] = ()
        state.pending = None
        return events

    def _next_side_turn(self, state: BattleState, roller: Roller) -> list[Event]:
        """Open the next side turn that has someone to declare (or end the battle)."""
        events: list[Event] = []
        side = Side(state.data["side"])
        while state.outcome is None:
            if side is Side.HEROES:
                side = Side.ENEMIES
            else:
                events.extend(self.begin_round(state))
                if state.outcome is not None:
                    break
                side = Side.HEROES
            events.extend(self._open_side_turn(state, side, roller))
            if state.data["queue"]:
                break
            events.extend(self._close_side_turn(state))
        return events

    # -- legal actions (CA-04) ---------------------------------------------------------
    def legal_actions(self, state: BattleState) -> list[Action]:
        if state.pending is None or state.outcome is not None:
            return []
        return self.actions_for(state, state.by_id[state.pending.actor])

    def simultaneous(self, state: BattleState) -> dict[str, list[Action]]:
        """The side's whole queue of declarers: CA-02 "Todas las acciones se declaran antes
        de resolverse" — a declaration only joins ``data["declared"]``, which no legal
        action reads, so each declarer's options are the same before and after the others
        declare."""
        if state.pending is None or state.outcome is not None:
            return {}
        return {actor: self.actions_for(state, state.by_id[actor]) for actor in state.data["queue"]}

    @staticmethod
    def can_move(c: Combatant) -> bool:
        # CA-13 Desjarretado: "can barely move".
        return "desjarretado" not in c.conditions

    def actions_for(self, state: BattleState, actor: Combatant) -> list[Action]:
        bf = state.battlefield
        hops_to = bf.distances_from(actor.zone)
        mobile = self.can_move(actor)
        me, side, active = actor.id, actor.side, Status.ACTIVE
        weapons = weapons_of(actor)
        out: list[Action] = []
        # Interned actions (one shared frozen value per distinct action): every decision
        # of every battle lists these, and a dict lookup is cheaper than a frozen init.
        for target in state.combatants:
            if target.status is not active or target.side is side:
                continue
            hops = hops_to[target.zone]
            for weapon in weapons:
                # CA-04: in reach, or one zone beyond it: the move, then the attack.
                if in_reach(weapon, hops, mobile):
                    out.append(interned_action(ATTACK, me, target=target.id, item=weapon.name))
        if mobile:
            for zone in bf.zone_ids:
                if 1 <= hops_to[zone] <= MAX_MOVE:
                    out.append(interned_action(MOVE, me, zone=zone))
        exits = bf.exits()
        if exits and min(hops_to[z] for z in exits) <= (1 if mobile else 0):
            out.append(interned_action(FLEE, me))
        out.append(interned_action(WAIT, me))
        return out

    # -- apply ----------------------------------------------------------------------
    def apply(self, state: BattleState, action: Action, roller: Roller) -> list[Event]:
        state.data["declared"] = (*state.data["declared"], action)
        queue = state.data["queue"][1:]
        state.data["queue"] = queue
        actor = state.by_id[action.actor]
        events: list[Event] = [
            Note(
                _f(
                    "{actor} has declared ({n} still to declare before the side's actions resolve "
                    "together).",
                    actor.name,
                    len(queue),
                )
            )
        ]
        if queue:
            state.pending = self._decision(state, queue[0])
            return events
        events.extend(self.resolve(state, roller))
        events.extend(self._close_side_turn(state))
        events.extend(self.check_end(state))
        if state.outcome is None:
            events.extend(self._next_side_turn(state, roller))
        return events

    def resolve(self, state: BattleState, roller: Roller) -> list[Event]:
        """Resolve the acting side's declarations together (CA-02)."""
        declared: tuple[Action, ...] = state.data["declared"]
        events: list[Event] = []
        for action in declared:
            events.extend(self._resolve_movement(state, action, roller))
        events.extend(self.resolve_attacks(state, declared, roller))
        events.extend(self.morale(state, roller))
        return events

    def _resolve_movement(self, state: BattleState, action: Action, roller: Roller) -> list[Event]:
        actor = state.by_id[action.actor]
        if not actor.active:
            return []
        if action.verb == MOVE and action.zone is not None:
            return [self._move(actor, action.zone)]
        if action.verb == ATTACK and action.target is not None and action.item is not None:
            # CA-04: an attack on a target beyond the weapon's reach makes the turn's
            # move first, here with every other move of the side, before any attack.
            target = state.by_id[action.target]
            zone = attack_zone(state, actor, target, weapon_named(actor, action.item))
            return [self._move(actor, zone)] if zone != actor.zone else []
        if action.verb == FLEE:
            return self._retreat(state, actor, roller)
        return []

    @staticmethod
    def _move(actor: Combatant, zone: str) -> Moved:
        old = actor.zone
        actor.zone = zone
        return Moved(
            _f(
                "{actor} moves from {old} to {zone}.",
                actor.name,
                old,
                zone,
            ),
            actor.id,
            old,
            zone,
        )

    def _retreat(self, state: BattleState, actor: Combatant, roller: Roller) -> list[Event]:
        """CA-17: "Huir … siempre requiere una tirada de salvación de Destreza exitosa,
        así como un destino seguro al que huir" — the safe place is an ``exit`` zone."""
        bf = state.battlefield
        events: list[Event] = []
        if not bf.zones[actor.zone].exit:
            exits = bf.exits()
            nearest = min(exits, key=lambda z: (bf.distance(actor.zone, z), bf.index[z]))
            events.append(self._move(actor, nearest))
        ok, rolled = save(roller, actor, "des", _("retreat"))
        events.append(rolled)
        if ok:
            events.append(
                set_status(
                    actor,
                    Status.FLED,
                    _f(
                        "{actor} gets away.",
                        actor.name,
                    ),
                    actor.id,
                )
            )
        else:
            events.append(Note(_f("{actor} cannot break away this turn.", actor.name)))
        return events

    def resolve_attacks(
        self, state: BattleState, declared: Sequence[Action], roller: Roller
    ) -> list[Event]:
        """CA-05/06/09: pool every die aimed at each target; blast rolls per target."""
        pools: dict[str, list[tuple[Combatant, Weapon, tuple[int, ...], str]]] = {}
        for action in declared:
            if action.verb != ATTACK or action.target is None or action.item is None:
                continue
            attacker = state.by_id[action.actor]
            target = state.by_id[action.target]
            if not attacker.active or not target.active:
                continue
            weapon = weapon_named(attacker, action.item)
            # CA-09: "tirando los dados de daño por separado para cada personaje afectado";
            # each of those rolls joins the keep-highest pool of the target it is for.
            hit = (
                blast_targets(state, attacker, target, weapon)
                if is_blast(attacker, target, weapon)
                else [target]
            )
            for t in hit:
                dice, why = attack_dice(state, attacker, t, weapon)
                pools.setdefault(t.id, []).append((attacker, weapon, dice, why))
        events: list[Event] = []
        for target in state.combatants:
            entries = pools.get(target.id)
            if entries and target.active:
                events.extend(self._resolve_pool(state, target, entries, roller))
        return events

    def _resolve_pool(
        self,
        state: BattleState,
        target: Combatant,
        entries: list[tuple[Combatant, Weapon, tuple[int, ...], str]],
        roller: Roller,
    ) -> list[Event]:
        events: list[Event] = []
        best = 0
        source = entries[0][0].id
        for attacker, weapon, dice, why in entries:
            why_roll = _f("{c} damage on {t}", attacker.id, target.id)
            faces = tuple(roller.roll(s, why_roll) for s in dice)
            dice_text = "+".join(f"d{s}" for s in dice)
            note = f" ({why})" if why else ""
            events.append(
                Rolled(
                    _f(
                        "{attacker} rolls {dice_text}{note} at {target} with {weapon}: {faces}.",
                        attacker.name,
                        dice_text,
                        note,
                        target.name,
                        weapon.name,
                        ", ".join(map(str, faces)),
                    ),
                    attacker.id,
                    "damage",
                    faces,
                    max(faces),
                )
            )
            events.append(
                AttackResolved(
                    _f(
                        "{attacker}'s attack on {target} hits (attacks always hit).",
                        attacker.name,
                        target.name,
                    ),
                    attacker.id,
                    target.id,
                    weapon.name,
                    True,
                )
            )
            if max(faces) > best:
                best, source = max(faces), attacker.id
        armour = target.stats.armour
        damage = max(0, best - armour)
        kept = (
            _f("keeping the highest, {best}", best)
            if len(entries) > 1 or len(dice) > 1
            else f"{best}"
        )
        events.append(
            Note(
                _f(
                    "Damage to {target}: {kept}, minus armadura {armour} = {damage}.",
                    target.name,
                    kept,
                    armour,
                    damage,
                )
            )
        )
        events.extend(apply_damage(state, target, damage, source, roller))
        return events

    # -- morale (CA-18) -------------------------------------------------------------
    def morale(self, state: BattleState, roller: Roller) -> list[Event]:
        """CA-18 *(ext, option ``morale``)*: the enemies save VOL on their first
        casualty and again at half strength; a lone foe saves at 0 PI. A failed
        save flees the fight *(default: at once, no retreat save)*."""
        if not state.options.morale:
            return []
        members = [c for c in state.combatants if c.side is Side.ENEMIES and not c.pc]
        if not members:
            return []
        events: list[Event] = []
        if len(members) == 1:
            foe = members[0]
            if foe.active and foe.resources["pi"] == 0 and not state.data.get("morale_lone"):
                state.data["morale_lone"] = True
                events.extend(self._morale_saves(state, [foe], _("alone at 0 PI"), roller))
            return events
        active = [c for c in members if c.active]
        if len(active) < len(members) and not state.data.get("morale_first"):
            state.data["morale_first"] = True
            events.extend(self._morale_saves(state, active, _("first casualty"), roller))
        active = [c for c in members if c.active]
        if active and 2 * len(active) <= len(members) and not state.data.get("morale_half"):
            state.data["morale_half"] = True
            events.extend(self._morale_saves(state, active, _("half strength"), roller))
        return events

    @staticmethod
    def _morale_saves(
        state: BattleState, group: list[Combatant], why: str, roller: Roller
    ) -> list[Event]:
        events: list[Event] = []
        for c in group:
            ok, rolled = save(roller, c, "vol", _f("morale, {why}", why))
            events.append(rolled)
            if not ok:
                events.append(set_status(c, Status.FLED, _f("{c} loses heart and flees.", c.name)))
        return events

    # -- observation helpers --------------------------------------------------------
    def features(self, state: BattleState, combatant: Combatant) -> Sequence[float]:
        stats: CairnStats = combatant.stats
        weapons = weapons_of(combatant)
        declared = state.data.get("declared", ())
        aimed = sum(1 for a in declared if a.verb == ATTACK and a.target == combatant.id)
        return (
            stats.armour / 3.0,
            max(max(w.dice) for w in weapons) / 12.0,
            1.0 if any(w.kind == RANGED for w in weapons) else 0.0,
            1.0 if stats.destacamento else 0.0,
            1.0 if combatant.pc else 0.0,
            state.battlefield.zones[combatant.zone].cover / 2.0,
            min(aimed, 4) / 4.0,
        )

    def odds(self, state: BattleState, action: Action) -> Odds | None:
        """Exact odds of an ``atacar`` declaration: its MARGINAL effect on the named target.

        CA-06 keeps only the highest die aimed at a target in the side's resolution,
        so a declaration is worth what it adds to the dice the side has already
        declared on that target this side turn (nothing declared: the attack's own
        odds). Readings:

        * ``p_hit`` — CA-05 "Los ataques en combate siempre impactan", so "hit" is
          read as "raises the damage the target takes by at least 1 after
          armadura": with nothing else declared, P(die − armadura ≥ 1).
        * ``expected_damage`` / ``damage`` — the extra PI + FUE (combined, capped
          at what the target has) the target loses because of this declaration.
        * ``p_drop`` — P(the target is out of the fight with this declaration and
          would not be without it, on the same dice and FUE save): FUE to 0
          (CA-14), a failed FUE save for Daño Crítico (CA-11/12, CA-16 a routed
          destacamento) or, for a PC, Cicatrices 11, and 12 unless the ``doomed``
          option reads it as an event only (CA-13). Not counted: a flight the
          ``morale`` option's save would make (CA-18).

        A blast (CA-09, CA-16) also rolls at the other opponents in the zone; only
        the named target's odds are reported.
        """
        if action.verb != ATTACK or action.target is None or action.item is None:
            return None
        actor = state.by_id[action.actor]
        target = state.by_id[action.target]
        weapon = weapon_named(actor, action.item)
        mine = attack_dice(state, actor, target, weapon)[0]
        before = declared_pools(state, actor.side, exclude=actor.id).get(target.id, [])
        m = marginal_exchange(
            before,
            mine,
            target.stats.armour,
            target.resources["pi"],
            target.resources["fue"],
            target.pc,
            state.options.scars,
            state.options.doomed,
        )
        return Odds(
            float(m.p_hit),
            float(m.expected_damage),
            float(m.p_drop),
            {k: float(v) for k, v in m.damage.items()},
        )

    def describe(self, state: BattleState, action: Action) -> str:
        actor = state.by_id[action.actor]
        if action.verb == ATTACK and action.target and action.item:
            target = state.by_id[action.target]
            weapon = weapon_named(actor, action.item)
            dice, why = attack_dice(state, actor, target, weapon)
            dice_text = "+".join(f"d{s}" for s in dice)
            extra = f", {why}" if why else ""
            zone = attack_zone(state, actor, target, weapon)
            if zone != actor.zone:
                # CA-04: the turn's move, then the attack (where the attacker ends up).
                return _f(
                    "{c}: move to {zone} and attack {t} with {weapon} ({dice}{extra})",
                    actor.name,
                    zone,
                    target.name,
                    weapon.name,
                    dice_text,
                    extra,
                )
            return _f(
                "{c}: attack {t} with {weapon} ({dice}{extra})",
                actor.name,
                target.name,
                weapon.name,
                dice_text,
                extra,
            )
        if action.verb == MOVE:
            return _f("{c}: move to {zone}", actor.name, action.zone)
        if action.verb == FLEE:
            return _f("{c}: flee (DES save, through an exit zone)", actor.name)
        return _f("{c}: wait", actor.name)
