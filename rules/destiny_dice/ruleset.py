"""The Destiny Dice ruleset: initiative, turns and the states that act on them, the legal
actions and their outcomes; the attacks, damage and healing it inherits from
:class:`~escaramuza.rules.destiny_dice.combat.Combat`.

Each method names the rule id it follows (DD-01 … DD-19); the
seed sentence is quoted where the code makes a reading of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from escaramuza.rules.core.battlefield import Battlefield
from escaramuza.rules.core.dice import DiceError, Roller
from escaramuza.rules.core.events import (
    BattleStarted,
    ConditionEnded,
    Event,
    InitiativeOrder,
    InitiativeRolled,
    Moved,
    Note,
    Rolled,
    TurnStarted,
)
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import (
    Action,
    Combatant,
    Condition,
    Decision,
    DecisionKind,
    Side,
    Status,
    VerbSpec,
    interned,
    interned_action,
)
from escaramuza.rules.core.ruleset import Odds
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.destiny_dice.combat import CHAR_NAME, IN_THE_FIGHT, Combat, cached_dice
from escaramuza.rules.destiny_dice.exact import (
    drop_probability,
    hit_probability,
    pv_lost_distribution,
)
from escaramuza.rules.destiny_dice.sheets import (
    BANDS,
    CONDITIONS,
    PERSISTENT,
    TIERS,
    UNARMED,
    Options,
    Sheet,
    Stats,
    Weapon,
    make_heal,
    make_weapon,
    sheet_tables,
)

#: describe()'s line per verb: {c} the actor's name, {t} the target's, {item}, {zone}.
#: Marked with N_ for the catalog, translated where describe() shows them.
DESCRIPTIONS = {
    "mover": N_("{c} moves to {zone}"),
    "atacar": N_("{c} attacks {t} with {item}"),
    "ayudar": N_("{c} helps {t}"),
    "curar": N_("{c} heals {t} with {item}"),
    "recargar": N_("{c} reloads {item}"),
    "recuperar_arma": N_("{c} recovers the dropped weapon"),
    "fin_turno": N_("{c} ends the turn"),
    "contraatacar": N_("{c} counterattacks {t} with {item}"),
    "reposicionar": N_("{c} repositions to {zone}"),
    "pasar": N_("{c} does not react"),
}


#: DD-19's temporal states that end at the start of their bearer's turn ("duran hasta el
#: inicio de tu próximo turno"), in the order they end; Desarmado ends with an action.
TURN_START_ENDS = ("paralizado", "derribado", "inmovil")


def _end_temporal(c: Combatant) -> list[Event]:
    """DD-19: the bearer's turn starts, and its temporal states end."""
    events: list[Event] = []
    for name in TURN_START_ENDS:
        if name in c.conditions:
            del c.conditions[name]
            events.append(ConditionEnded(_f("{c} is no longer {name}.", c.name, name), c.id, name))
    return events


def _turn(c: Combatant) -> Decision:
    """``c``'s turn decision, interned (a Decision is a frozen value, like the actions)."""
    return interned(Decision, DecisionKind.TURN, c.id, c.side, "turn")  # type: ignore[no-any-return]


def _new_memo(_: Battlefield) -> dict[Any, Any]:
    return {}


def _steps(battlefield: Battlefield, verb: str, actor: str, zone: str) -> tuple[Action, ...]:
    """``verb`` (mover / reposicionar) to each neighbour of ``zone``, in map order.

    Memoised on the battlefield (a pure function of its neighbours, which never change):
    one table per map, keyed by (verb, actor, zone), freed with the map.
    """
    memo: dict[tuple[str, str, str], tuple[Action, ...]] = battlefield.derived(
        "destiny_dice.steps", _new_memo
    )
    key = (verb, actor, zone)
    steps = memo.get(key)
    if steps is None:
        steps = memo[key] = tuple(
            interned_action(verb, actor, zone=z) for z in battlefield.neighbours(zone)
        )
    return steps


#: The states under which a combatant does not change zone (DD-19: Derribado until it
#: stands, "Inmóvil: No te mueves ni cambias de zona", "Paralizado: no te mueves ni actúas").
STAY = frozenset({"derribado", "inmovil", "paralizado"})


class DestinyDice(Combat):
    """Destiny Dice (``destiny_dice``): see the package docstring for every rule."""

    id: ClassVar[str] = "destiny_dice"
    name: ClassVar[str] = "Destiny Dice"
    env_id: ClassVar[str] = "escaramuza/DestinyDice-v0"
    default_scenario: ClassVar[str] = "destiny_dice/emboscada"
    verbs: ClassVar[tuple[VerbSpec, ...]] = (
        VerbSpec("mover", zone=True, description="move one zone step (DD-03)"),
        VerbSpec("atacar", target=True, item=True, description="attack with a weapon (DD-06)"),
        VerbSpec("ayudar", target=True, description="help an ally: +1 next roll (DD-04)"),
        VerbSpec("curar", target=True, item=True, description="heal an ally (DD-16)"),
        VerbSpec("recargar", item=True, description="clear a jammed weapon (DD-18)"),
        VerbSpec("recuperar_arma", description="recover a dropped weapon (Desarmado)"),
        VerbSpec("fin_turno", description="end the turn"),
        VerbSpec("contraatacar", target=True, item=True, description="free counter (DD-08)"),
        VerbSpec("reposicionar", zone=True, description="free reposition (DD-08)"),
        VerbSpec("pasar", description="decline the perfect-defence reaction"),
    )
    resources: ClassVar[dict[str, float]] = {"pv": 30.0, "pc": 10.0, "pm": 10.0, "pa": 10.0}
    conditions: ClassVar[tuple[str, ...]] = CONDITIONS
    band_names: ClassVar[tuple[str, ...]] = BANDS
    options_model = Options
    stats_model = Stats
    n_features: ClassVar[int] = 8
    decision_names: ClassVar[tuple[str, ...]] = ("turn", "defensa_perfecta")
    bookkeeping: ClassVar[str] = "escaramuza.rules.destiny_dice.bookkeeping"
    recovery: ClassVar[str | None] = "escaramuza.rules.destiny_dice.recovery"

    # -- scenario -------------------------------------------------------------
    def build_combatant(
        self, base: dict[str, Any], stats: Any, options: Any, index: int
    ) -> Combatant:
        assert isinstance(stats, Stats)
        hero = base["side"] is Side.HEROES
        # DD-06: "para un PJ, su dado de Cuerpo; para un enemigo, su dado de Defensa".
        if hero and stats.defensa is not None:
            raise ValueError("defensa: " + _("heroes defend with their Cuerpo die; remove defensa"))
        if not hero and stats.defensa is None:
            raise ValueError(
                "defensa: " + _("an enemy needs the Defensa die of its bestiary entry")
            )
        weapons: dict[str, Weapon] = {}
        for i, spec in enumerate(stats.weapons):
            weapon = make_weapon(spec)
            if spec.tier != "desarmado":
                bonus, need = TIERS[spec.tier]
                die = stats.cuerpo if weapon.characteristic == "cuerpo" else stats.mente
                # DD-12: "Ligera +1 Req. d4 · Media +2 Req. d6 · Pesada +3 Req. d8".
                if die < need:
                    char = CHAR_NAME[weapon.characteristic]
                    raise ValueError(
                        f"weapons[{i}].tier: "
                        + _f(
                            "{weapon} is {tier} (needs {char} d{need}) but {id} has {char} d{die}",
                            repr(spec.name),
                            spec.tier,
                            char,
                            need,
                            base["id"],
                            die,
                        )
                    )
                if spec.tier == "pesada" and stats.shield:
                    raise ValueError(
                        f"weapons[{i}].tier: "
                        + _f(
                            "{weapon} is heavy, two-handed (2M): it cannot be carried with a "
                            "`shield`",
                            repr(spec.name),
                        )
                    )
            weapons[spec.name] = weapon
        if not any(w.unarmed for w in weapons.values()) and UNARMED not in weapons:
            # DD-11: anyone can fight "Desarmado (Puños/Patadas)".
            weapons[UNARMED] = Weapon(
                UNARMED, "cuerpo", frozenset({0}), 0, 0, True, False, None, None
            )
        heals = {h.name: make_heal(h) for h in stats.heals}
        defensa = stats.cuerpo if hero else int(stats.defensa or 0)
        ranged = any(w.characteristic == "mente" for w in weapons.values())
        sheet = Sheet(
            stats.cuerpo,
            stats.mente,
            stats.alma,
            defensa,
            stats.armour + stats.shield,
            weapons,
            heals,
            (
                stats.cuerpo / 12,
                stats.mente / 12,
                stats.alma / 12,
                defensa / 12,
                (stats.armour + stats.shield) / 5,
                float(ranged),
            ),
            *sheet_tables(weapons),
            ranged,
        )
        pv = stats.pv if stats.pv_current is None else stats.pv_current
        resources = {"pv": pv, **stats.energy.model_dump()}
        cap = stats.energy_max
        resources = {k: (min(v, cap) if k != "pv" else v) for k, v in resources.items()}
        data: dict[str, Any] = {f"uses:{h.name}": h.uses for h in heals.values() if h.uses}
        conditions = {
            c.name: Condition(c.name, persistent=c.name in PERSISTENT, dice=c.x)
            for c in stats.conditions
        }
        return Combatant(
            id=base["id"],
            name=base["name"],
            side=base["side"],
            zone=base["zone"],
            index=index,
            stats=sheet,
            resources=resources,
            maxima={"pv": stats.pv, "pc": cap, "pm": cap, "pa": cap},
            items=tuple(weapons) + tuple(heals),
            conditions=conditions,
            status=Status.ACTIVE if pv > 0 else (Status.DOWN if hero else Status.DEFEATED),
            temperament=base["temperament"],
            pc=hero,
            data=data,
        )

    # -- start and turn order -------------------------------------------------
    def start(self, state: BattleState, roller: Roller) -> list[Event]:
        events: list[Event] = [
            BattleStarted(
                _f(
                    "{title} — Destiny Dice, {n} combatants.",
                    state.scenario.title,
                    len(state.combatants),
                ),
                state.scenario.name,
                self.id,
            )
        ]
        rolls: dict[str, int] = {}
        for c in state.combatants:
            # DD-01: "todos los participantes hacen una prueba de MENTE": a hero Fuera de
            # Combate too, for healed "puedes actuar en tu siguiente turno" (DD-16), a turn
            # that needs a place in the order; a defeated enemy is out of the battle.
            if c.status not in IN_THE_FIGHT:
                continue
            value = roller.roll(c.stats.mente, N_("initiative (Mente)"))
            rolls[c.id] = value
            events.append(
                InitiativeRolled(
                    _f(
                        "{c} rolls initiative, Mente d{mente}: {value}.",
                        c.name,
                        c.stats.mente,
                        value,
                    ),
                    c.id,
                    "iniciativa",
                    (value,),
                    value,
                )
            )
        # DD-01 highest first; DD-02 "Los Héroes SIEMPRE actúan antes que los enemigos con la
        # misma iniciativa"; within a side the players/GM choose — default: scenario order.
        order = sorted(
            rolls,
            key=lambda cid: (
                -rolls[cid],
                0 if state.by_id[cid].side is Side.HEROES else 1,
                state.by_id[cid].index,
            ),
        )
        state.order = tuple(order)
        names = " → ".join(f"{state.by_id[c].name} ({rolls[c]})" for c in order)
        events.append(InitiativeOrder(_f("Initiative order: {names}.", names), state.order))
        state.turn = -1
        state.data.update(turn_actor=None, moved=True, acted=True)
        events.extend(self.begin_round(state))
        if state.outcome is None:
            self._advance(state, roller, events)
        return events

    def _advance(self, state: BattleState, roller: Roller, events: list[Event]) -> None:
        """Give the turn to the next combatant able to act, starting rounds as needed."""
        state.pending = None
        while state.outcome is None:
            state.turn += 1
            if state.turn >= len(state.order):
                state.turn = 0
                events.extend(self.begin_round(state))
                if state.outcome is not None:
                    return
                if not state.order:
                    # Nobody rolled initiative: the rounds pass, empty, to the limit.
                    continue
            c = state.by_id[state.order[state.turn]]
            if not c.active:
                # A hero down has no turn, but its turn's start comes: its temporal
                # states, which last "hasta el inicio de tu próximo turno", end there.
                events.extend(_end_temporal(c))
                continue
            if self._start_turn(state, c, roller, events):
                state.pending = _turn(c)
                return
            events.extend(self.check_end(state))

    def _start_turn(
        self, state: BattleState, c: Combatant, roller: Roller, events: list[Event]
    ) -> bool:
        """Start-of-turn effects (DD-19); True if the combatant has a choice to make."""
        events.append(
            TurnStarted(
                _f("{c}'s turn (round {round}).", c.name, state.round),
                c.id,
                state.round,
            )
        )
        moved = acted = False
        # Temporal states "duran hasta el inicio de tu próximo turno": they end as the turn
        # starts, before anything happens in it (Envenenado's damage below, which may drop
        # the bearer: then they are over all the same). The ones whose effect is about this
        # turn apply to it as they end (seed's table). Most turns start with no state at
        # all: then there is nothing to check.
        if c.conditions:
            if "paralizado" in c.conditions:
                events.append(Note(_f("{c} is Paralizado and loses this turn.", c.name)))
                moved = acted = True
            if "derribado" in c.conditions:
                # "En tu turno, levantarte cuesta tu acción principal."
                events.append(
                    Note(_f("{c} stands up from Derribado, spending the main action.", c.name))
                )
                acted = True
            if "inmovil" in c.conditions:
                events.append(Note(_f("{c} is Inmóvil and cannot change zone this turn.", c.name)))
                moved = True
            events.extend(_end_temporal(c))
            poison = c.conditions.get("envenenado")
            if poison is not None:
                # "Envenenado (X): Sufres X daño al inicio de cada turno".
                total, faces = cached_dice(poison.dice or "1").roll(
                    roller, N_("poison (Envenenado)")
                )
                events.append(
                    Rolled(
                        _f("{c} suffers poison ({dice}): {total}.", c.name, poison.dice, total),
                        c.id,
                        "envenenado",
                        faces,
                        total,
                    )
                )
                events.extend(self._damage(state, c, total, "", "envenenado"))
                if not c.active:
                    return False
        data = state.data
        data["turn_actor"], data["moved"], data["acted"] = c.id, moved, acted
        return not (moved and acted)

    # -- legal actions --------------------------------------------------------
    def legal_actions(self, state: BattleState) -> list[Action]:
        pending = state.pending
        if pending is None:
            return []
        c = state.by_id[pending.actor]
        if pending.name == "defensa_perfecta":
            return self._reactions(state, c)
        actions: list[Action] = []
        data = state.data
        # A state inflicted during the bearer's own turn (a counterattack's) holds for the
        # rest of it: "No te mueves ni cambias de zona", "no te mueves ni actúas".
        if not data["moved"] and not (STAY & c.conditions.keys()):
            actions.extend(_steps(state.battlefield, "mover", c.id, c.zone))
        if not data["acted"] and "paralizado" not in c.conditions:
            actions.extend(self._attacks(state, c, "atacar"))
            actions.extend(self._helps(state, c))
            actions.extend(self._heals(state, c))
            for name, key in c.stats.jam_keys:
                if c.data.get(key):
                    actions.append(interned_action("recargar", c.id, item=name))
            if "desarmado" in c.conditions:
                actions.append(interned_action("recuperar_arma", c.id))
        actions.append(interned_action("fin_turno", c.id))
        return actions

    def _helps(self, state: BattleState, c: Combatant) -> list[Action]:
        # DD-04 gives no range; a helper must be near enough to matter: same zone or cerca.
        hops_to = state.battlefield.distances_from(c.zone)
        side, cid, active = c.side, c.id, Status.ACTIVE
        return [
            interned_action("ayudar", cid, target=a.id)
            for a in state.combatants
            if a.side is side and a.status is active and a.id != cid and hops_to[a.zone] <= 1
        ]

    def _reactions(self, state: BattleState, c: Combatant) -> list[Action]:
        # DD-08: "puedes realizar un Contraataque inmediato (gratis) o reposicionarte".
        out: list[Action] = []
        if "paralizado" not in c.conditions:
            attacker = state.by_id[state.data["reaction_vs"]]
            if attacker.active:
                out.extend(
                    a for a in self._attacks(state, c, "contraatacar") if a.target == attacker.id
                )
            if not ({"derribado", "inmovil"} & c.conditions.keys()):
                out.extend(_steps(state.battlefield, "reposicionar", c.id, c.zone))
        out.append(interned_action("pasar", c.id))
        return out

    # -- apply ---------------------------------------------------------------
    def apply(self, state: BattleState, action: Action, roller: Roller) -> list[Event]:
        events: list[Event] = []
        c = state.by_id[action.actor]
        verb = action.verb
        state.pending = None
        if verb == "fin_turno":
            self._advance(state, roller, events)
            return events
        if verb == "mover":
            self._move(state, c, str(action.zone), roller, events)
            state.data["moved"] = True
        elif verb in ("atacar", "contraatacar"):
            weapon = c.stats.weapons[str(action.item)]
            events.extend(self.attack(state, c, state.by_id[str(action.target)], weapon, roller))
            if verb == "atacar":
                state.data["acted"] = True
        elif verb == "reposicionar":
            self._move(state, c, str(action.zone), roller, events)
        elif verb == "pasar":
            events.append(Note(_f("{c} lets the moment pass.", c.name)))
        else:
            self._main_action(state, c, action, roller, events)
            state.data["acted"] = True
        events.extend(self.check_end(state))
        if state.outcome is None and state.pending is None:
            self._continue_turn(state, roller, events)
        return events

    def _continue_turn(self, state: BattleState, roller: Roller, events: list[Event]) -> None:
        actor = state.by_id[state.data["turn_actor"]]
        data = state.data
        can_move = not data["moved"] and not (STAY & actor.conditions.keys())
        can_act = not data["acted"] and "paralizado" not in actor.conditions
        if actor.active and (can_move or can_act):
            state.pending = _turn(actor)
        else:
            self._advance(state, roller, events)

    def _main_action(
        self, state: BattleState, c: Combatant, action: Action, roller: Roller, events: list[Event]
    ) -> None:
        verb = action.verb
        if verb == "ayudar":
            ally = state.by_id[str(action.target)]
            bonus = state.options.help_bonus
            # "Tu aliado recibe un bono de +1 a su próxima tirada": one bonus; a second
            # help before that roll leaves the larger, it does not add (default).
            ally.data["ayuda"] = max(ally.data.get("ayuda", 0), bonus)
            events.append(
                Note(_f("{c} helps {ally}: +{bonus} to their next roll.", c.name, ally.name, bonus))
            )
        elif verb == "curar":
            self._heal(
                state,
                c,
                state.by_id[str(action.target)],
                c.stats.heals[str(action.item)],
                roller,
                events,
            )
        elif verb == "recargar":
            del c.data[f"jam:{action.item}"]
            events.append(Note(_f("{c} clears and reloads {item}.", c.name, action.item)))
        elif verb == "recuperar_arma":
            del c.conditions["desarmado"]
            events.append(ConditionEnded(_f("{c} recovers the weapon.", c.name), c.id, "desarmado"))

    def _move(
        self, state: BattleState, c: Combatant, zone: str, roller: Roller, events: list[Event]
    ) -> None:
        fear = c.conditions.get("asustado")
        source = self._feared_approached(state, c, fear, zone) if fear else None
        if source is not None:
            # Asustado: "Para hacerlo: Alma (Voluntad) Dif 5."
            bonus = c.data.pop("ayuda", 0)
            face = roller.roll(c.stats.alma, N_("Alma against fear (Asustado)"))
            ok = face + bonus >= 5
            plus = f" +{bonus}" if bonus else ""
            events.append(
                Rolled(
                    (
                        _f(
                            "{c} is Asustado of {source}: Alma d{alma} {face}{bonus} vs 5 — "
                            "steels themself.",
                            c.name,
                            source.name,
                            c.stats.alma,
                            face,
                            plus,
                        )
                        if ok
                        else _f(
                            "{c} is Asustado of {source}: Alma d{alma} {face}{bonus} vs 5 — "
                            "cannot bring themself to approach.",
                            c.name,
                            source.name,
                            c.stats.alma,
                            face,
                            plus,
                        )
                    ),
                    c.id,
                    "asustado",
                    (face,),
                    face + bonus,
                )
            )
            if not ok:
                return
        events.append(
            Moved(
                _f("{c} moves from {start} to {zone}.", c.name, c.zone, zone),
                c.id,
                c.zone,
                zone,
            )
        )
        c.zone = zone

    def _feared_approached(
        self, state: BattleState, c: Combatant, fear: Condition, zone: str
    ) -> Combatant | None:
        """The first one ``c``'s Asustado fears that a step to ``zone`` brings it closer to
        (scenario order), or None: "No puedes acercarte voluntariamente a la fuente del
        miedo". The named sources (each attacker who inflicted it, a state file's) are the
        ones feared; a state given with none (a scenario's, the GM's) *(default)* fears
        every active foe."""
        if fear.source is not None:
            named = fear.sources()
            feared = [f for f in state.combatants if f.id in named]
        else:
            feared = [f for f in state.combatants if f.side is not c.side]
        dist = state.battlefield.distance
        for f in feared:
            if f.active and dist(zone, f.zone) < dist(c.zone, f.zone):
                return f
        return None

    # -- presentation / learners ---------------------------------------------
    def describe(self, state: BattleState, action: Action) -> str:
        c = state.by_id[action.actor]
        t = state.by_id[action.target].name if action.target else ""
        # Only the chosen verb's line is composed (every narrated decision and env step
        # calls this); str.format renders each value exactly as an f-string would.
        template = DESCRIPTIONS.get(action.verb)
        if template is None:
            return f"{action}."
        return _(template).format(c=c.name, t=t, item=action.item, zone=action.zone) + "."

    def condition_from_gm(self, name: str, value: str | None) -> Condition:
        # As an attack inflicts it: Envenenado (X) carries X as dice notation (DD-19's
        # "Sufres X daño"), ciego, asustado and envenenado are the persistent states, and
        # no other state has a number.
        if name == "envenenado":
            if value is None:
                raise ValueError(_("envenenado needs x, the damage per turn (e.g. '1' or '1d4')"))
            try:
                cached_dice(value)
            except DiceError as exc:
                raise ValueError(_f("envenenado {value}: {problem}", value, exc)) from None
            return Condition(name, persistent=True, dice=value)
        if value is not None:
            raise ValueError(_f("{name} takes no value in {ruleset}", name, self.name))
        return Condition(name, persistent=name in PERSISTENT)

    def describe_choice(self, state: BattleState, action: Action) -> str:
        # DD-03: one step and one main action a turn, in either order; a move made before
        # acting leaves the action to come (the search's value counts it).
        if action.verb == "mover" and not state.data.get("acted", True):
            c = state.by_id[action.actor]
            return _f("{c} moves to {zone}, then takes the turn's action.", c.name, action.zone)
        return self.describe(state, action)

    def odds(self, state: BattleState, action: Action) -> Odds | None:
        if action.verb not in ("atacar", "contraatacar"):
            return None
        att = state.by_id[action.actor]
        dfn = state.by_id[str(action.target)]
        p = self.profile(state, att, dfn, att.stats.weapons[str(action.item)])
        pv = dfn.resources["pv"]
        lost = pv_lost_distribution(p, pv)
        return Odds(
            hit_probability(p),
            sum(k * q for k, q in lost.items()),
            drop_probability(p, pv),
            lost,
        )

    def features(self, state: BattleState, combatant: Combatant) -> Sequence[float]:
        data = combatant.data
        jammed = any(k.startswith("jam:") for k in data) if len(data) > 0 else False
        return (*combatant.stats.static_features, data.get("ayuda", 0) / 2, float(jammed))
