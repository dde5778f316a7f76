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
from escaramuza.rules.core.dice import Roller, faces_text, roll_pool
from escaramuza.rules.core.events import (
    AttackResolved,
    BattleStarted,
    ConditionApplied,
    Damaged,
    Event,
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
    IdentityMemo,
    Side,
    Status,
    VerbSpec,
    interned,
    interned_action,
)
from escaramuza.rules.core.ruleset import Odds, Ruleset
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
from escaramuza.rules.donjon.exact import (
    ATTACKER,
    OpposedResult,
    Outcomes,
    damage_after,
    defender_wins,
    opposed_sorted,
    successes_distribution,
)
from escaramuza.rules.donjon.sheets import ATTRIBUTES, MELEE, DonjonOptions, DonjonStats

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


# -- hot-loop caches ---------------------------------------------------------------
# legal_actions and apply run once per decision (~320 a battle on donjon/emboscada, and 32
# rollouts a decision for the planner). Building a frozen slotted dataclass (an Action, a
# Decision) costs microseconds, and a turn lists a dozen actions, so the values that are pure
# functions of immutable inputs are built once and shared. Every cache below is keyed by ALL
# the inputs of the value it stores (or holds a strong reference to the immutable object it
# was derived from and checks identity), so a hit returns exactly what a fresh build would.


def _decision(kind: DecisionKind, actor: str, side: Side, name: str, prompt: str) -> Decision:
    """An interned :class:`Decision` (a frozen value, like the actions)."""
    return interned(Decision, kind, actor, side, name, prompt)  # type: ignore[no-any-return]


# Events are NOT interned although they are frozen values too: the planner's tree reuse
# (agents/search.py, MCTSAgent._reusable) tells a log that only moved forward by the
# IDENTITY of its last event, so every event must stay a fresh object.

#: ``str`` of every face a die of up to 100 sides shows (DonjonOptions.die_size ≤ 100).
_FACE_TEXT: dict[int, str] = {i: str(i) for i in range(101)}


def _faces_text(faces: Sequence[int]) -> str:
    """``faces_text`` (", ".join of the faces) with the faces' strings looked up, not built."""
    try:
        return ", ".join([_FACE_TEXT[f] for f in faces])
    except KeyError:
        return faces_text(faces)


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

#: The line announcing a move another combatant may resist (DJ-10), per verb.
_TRIES = {
    "acercarse": N_("{actor} tries to approach; {resister} may resist."),
    "alejarse": N_("{actor} tries to move away; {resister} may resist."),
    "huir": N_("{actor} tries to flee; {resister} may resist."),
}

#: _apply_continue's line per (heroes?, going on?) (DJ-07): whole sentences, so each
#: language words its own.
_GOING_ON = {
    (True, True): N_("The heroes want to go on."),
    (True, False): N_("The heroes would withdraw."),
    (False, True): N_("The enemies want to go on."),
    (False, False): N_("The enemies would withdraw."),
}


class Donjon(Ruleset):
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

    # -- helpers ----------------------------------------------------------------
    @staticmethod
    def _opts(state: BattleState) -> DonjonOptions:
        return state.options  # type: ignore[no-any-return]

    def _opposed(
        self,
        state: BattleState,
        roller: Roller,
        attacker: Combatant,
        a_dice: int,
        a_what: str,
        defender: Combatant | None,
        d_dice: int,
        d_what: str,
    ) -> tuple[OpposedResult, list[Event]]:
        """Roll both pools (attacker first) and resolve them (DJ-01)."""
        opts = self._opts(state)
        sides = opts.die_size
        a_faces = roll_pool(roller, max(0, a_dice), sides, f"{attacker.id} {a_what}")
        d_name = defender.id if defender else "DJ"
        d_faces = roll_pool(roller, max(0, d_dice), sides, f"{d_name} {d_what}")
        # Sorted once, for the narration and for the test (opposed_test sorts the same way).
        a_sorted = sorted(a_faces, reverse=True)
        d_sorted = sorted(d_faces, reverse=True)
        result = opposed_sorted(a_sorted, d_sorted, opts.all_tied)
        who = attacker.name if result.winner == ATTACKER else (defender.name if defender else "DJ")
        events: list[Event] = [
            Rolled(
                _f(
                    "{c} rolls {n}d{sides} for {what}: {faces}.",
                    attacker.name,
                    len(a_faces),
                    sides,
                    a_what,
                    _faces_text(a_sorted) or _("no dice"),
                ),
                attacker.id,
                a_what,
                tuple(a_faces),
                len(a_faces),
            ),
            Rolled(
                _f(
                    "{c} rolls {n}d{sides} for {what}: {faces}.",
                    defender.name,
                    len(d_faces),
                    sides,
                    d_what,
                    _faces_text(d_sorted) or _("no dice"),
                )
                if defender
                else _f(
                    "The DJ rolls {n}d{sides} for {what}: {faces}.",
                    len(d_faces),
                    sides,
                    d_what,
                    _faces_text(d_sorted) or _("no dice"),
                ),
                d_name,
                d_what,
                tuple(d_faces),
                len(d_faces),
            ),
            Note(
                _f(
                    "{who} wins the test with {n} éxito(s) ({aside} tied pair(s) set aside).",
                    who,
                    result.successes,
                    result.set_aside,
                )
                if result.set_aside
                else _f("{who} wins the test with {n} éxito(s).", who, result.successes)
            ),
        ]
        return result, events

    def _unopposed(
        self, state: BattleState, roller: Roller, c: Combatant, dice: int, what: str, level: str
    ) -> tuple[OpposedResult, list[Event]]:
        """DJ-02: an unopposed test is a test against the DJ's difficulty pool."""
        gm_dice = getattr(self._opts(state).dificultades, level)
        return self._opposed(state, roller, c, dice, what, None, gm_dice, f"dificultad {level}")

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

    # -- ráfaga -----------------------------------------------------------------
    def start(self, state: BattleState, roller: Roller) -> list[Event]:
        events: list[Event] = [
            BattleStarted(
                _f("{title}: a Donjon battle begins.", state.scenario.title),
                state.scenario.name,
                self.id,
            )
        ]
        events.extend(self._new_rafaga(state, roller))
        return events

    def _new_rafaga(self, state: BattleState, roller: Roller) -> list[Event]:
        events = self.begin_round(state)
        if state.outcome is not None:
            return events
        first = state.round == 1
        events.append(
            Note(
                _f(
                    "Ráfaga {round}: everyone rolls a new Prueba de Iniciativa.",
                    state.round,
                )
            )
        )
        opts = self._opts(state)
        for c in state.combatants:
            c.data["acted"] = (0, 0)
            if not c.active:
                c.data["init"] = ()
                continue
            events.extend(self._roll_initiative(state, roller, c, first, opts.die_size))
        state.order = tuple(
            c.id
            for c in sorted(
                (c for c in state.combatants if c.active and c.data["init"]),
                key=lambda c: (-c.data["init"][0], 0 if c.pc else 1, c.index),
            )
        )
        state.turn = 0
        state.data["count"] = opts.die_size
        events.extend(self._advance(state))
        return events

    def _roll_initiative(
        self, state: BattleState, roller: Roller, c: Combatant, first: bool, sides: int
    ) -> list[Event]:
        """DJ-04: Nivel + Discernimiento dice; surprise and initiative abilities add successes."""
        events: list[Event] = []
        bonus = 0
        if first and stats_of(c).sorpresa:
            # "simplemente suma los éxitos de un intento de acercarte sigilosamente como
            # bonificadores para tu Prueba de Iniciativa" (rolled before the battle).
            bonus += stats_of(c).sorpresa
        skill = stats_of(c).skills.iniciativa
        if skill:
            # "puedes hacer una Prueba sin oposición (dificultad Media) con la Habilidad, más la
            # puntuación del Atributo apropiado (usualmente Celeridad) y usar los éxitos como
            # bonificadores" — never dice added directly.
            result, evs = self._unopposed(
                state,
                roller,
                c,
                skill + c.resources["celeridad"],
                "iniciativa (habilidad)",
                "media",
            )
            events.extend(evs)
            if result.winner == ATTACKER:
                bonus += result.successes
        pool = combat.initiative_pool(c) + bonus
        faces = roll_pool(roller, pool, sides, _f("{c} initiative", c.id))
        c.data["init"] = tuple(sorted(faces, reverse=True))
        events.append(
            InitiativeRolled(
                _f(
                    "{c} rolls {n}d{sides} for initiative "
                    "(Nivel + Discernimiento + {bonus} bonus): acts on {faces}.",
                    c.name,
                    pool,
                    sides,
                    bonus,
                    faces_text(c.data["init"]),
                )
                if bonus
                else _f(
                    "{c} rolls {n}d{sides} for initiative (Nivel + Discernimiento): acts on "
                    "{faces}.",
                    c.name,
                    pool,
                    sides,
                    faces_text(c.data["init"]),
                ),
                c.id,
                "iniciativa",
                tuple(faces),
                pool,
            )
        )
        return events

    def _advance(self, state: BattleState) -> list[Event]:
        """Call numbers down from the current one until someone acts on it (DJ-05, DJ-06)."""
        current: int = state.data["count"]
        active = Status.ACTIVE
        # The GM calls current, current − 1, … and stops at the first number some active
        # combatant still holds: the highest held number ≤ current. One pass finds it and,
        # among its holders, who acts: "su personaje puede realizar una sola acción - podrá
        # realizar las demás ... luego de que los demás ... con el mismo número hayan
        # actuado"; PJ before PNJ, table (scenario) order among each.
        count = 0
        best: Combatant | None = None
        best_key: tuple[int, int, int] = (0, 0, 0)
        for c in state.combatants:
            if c.status is not active:
                continue
            top = 0
            for n in c.data["init"]:
                if top < n <= current:
                    top = n
            if top == 0 or top < count:
                continue
            acted_at, times = c.data["acted"]
            key = (times if acted_at == top else 0, 0 if c.pc else 1, c.index)
            if top > count or key < best_key:
                count, best, best_key = top, c, key
        if best is not None:
            state.data["count"] = count
            state.pending = _decision(
                DecisionKind.TURN,
                best.id,
                best.side,
                TURN,
                _f("{c} acts on {count}", best.name, count),
            )
            return [
                TurnStarted(
                    _f(
                        "{count}: {best} acts.",
                        count,
                        best.name,
                    ),
                    best.id,
                    state.round,
                )
            ]
        state.data["count"] = 0
        state.data["continuing"] = ()
        return self._ask_continue(state, Side.HEROES)

    def _ask_continue(self, state: BattleState, side: Side) -> list[Event]:
        actor = state.active(side)[0]
        state.pending = _decision(
            DecisionKind.CHOICE,
            actor.id,
            side,
            CONTINUE,
            _("the heroes continue or withdraw")
            if side is Side.HEROES
            else _("the enemies continue or withdraw"),
        )
        return [
            Note(
                _("The count reaches 1: the heroes decide whether to go on (DJ-07).")
                if side is Side.HEROES
                else _("The count reaches 1: the enemies decide whether to go on (DJ-07).")
            )
        ]

    def _after(self, state: BattleState) -> list[Event]:
        """Close an action: end the battle if a side is out, else call the next number."""
        for key in ("attack", "move", "spend"):
            state.data.pop(key, None)
        events = self.check_end(state)
        if state.outcome is None:
            events.extend(self._advance(state))
        return events

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

    @staticmethod
    def _away_zone(state: BattleState, actor: Combatant, target: Combatant) -> str | None:
        """The neighbouring zone that puts one more action between actor and target."""
        bf = state.battlefield
        here = bf.distance(actor.zone, target.zone)
        for zone in bf.neighbours(actor.zone):
            if bf.distance(zone, target.zone) > here:
                return zone
        return None

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
            state.pending = _decision(
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

    def _next_spend(self, state: BattleState) -> list[Event]:
        """Ask for the next success, or close the spending when nothing is left to spend on."""
        spend: PendingSpend = state.data["spend"]
        victim = state.by_id[spend.victim]
        if spend.remaining > 0 and victim.active and self._spend_options(state):
            dealer = state.by_id[spend.dealer]
            state.pending = _decision(
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
            state.pending = _decision(
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
        """DJ-11: a free attack, the movement successes as bonus dice; only a dodge defends it."""
        weapon = combat.free_attack_weapon(attacker)
        if weapon is None:
            return []
        pool = (combat.attack_pool(attacker, weapon, CONTACT) or 0) + successes
        if pool < 1:
            return []
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

    # -- end of ráfaga ---------------------------------------------------------------
    def _apply_continue(self, state: BattleState, action: Action, roller: Roller) -> list[Event]:
        pending = state.pending
        assert pending is not None
        side = pending.side
        going_on = action.verb == "continuar"
        continuing: tuple[str, ...] = state.data.get("continuing", ())
        if going_on:
            continuing = (*continuing, side.value)
        state.data["continuing"] = continuing
        events: list[Event] = [Note(_(_GOING_ON[side is Side.HEROES, going_on]))]
        if side is Side.HEROES:
            return events + self._ask_continue(state, Side.ENEMIES)
        if continuing:
            # "Si cualquiera de los bandos quiere continuar el combate, una nueva ráfaga comienza"
            return events + self._new_rafaga(state, roller)
        # "Si ningún bando quiere continuar la pelea, el combate termina."
        return events + self.finish(state, None, "withdrawal")

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
          bonus dice, dodge only) × its damage. Other resistances: None.
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
            return self._odds_of(state, actor, target, weapon, won)
        pending = state.pending
        if action.verb == "resistir" and pending is not None and pending.name == RESIST:
            move: PendingMove = state.data["move"]
            weapon = combat.free_attack_weapon(actor)
            if not move.from_contact or weapon is None:
                return None
            mover = state.by_id[move.mover]
            base = combat.attack_pool(actor, weapon, CONTACT) or 0
            resist = defender_wins(
                combat.move_pool(mover) + mover.data["bonus"], combat.move_pool(actor), sides, tied
            )
            won: dict[int, float] = {}
            for s, p in resist.items():
                if base + s < 1:
                    continue  # no die to attack with: no free attack
                for t, q in successes_distribution(
                    base + s, combat.dodge_pool(mover), sides, tied
                ).items():
                    won[t] = won.get(t, 0.0) + p * q
            return self._odds_of(state, actor, mover, weapon, won)
        if action.verb == "parar" and pending is not None and pending.name == DEFENCE:
            pend: PendingAttack = state.data["attack"]
            attacker = state.by_id[pend.attacker]
            counter = combat.parry_weapon(actor)
            assert counter is not None
            used = combat.weapon(attacker, pend.weapon)
            pool = (combat.attack_pool(attacker, used, pend.band) or 0) + attacker.data["bonus"]
            won = defender_wins(max(0, pool), combat.parry_pool(actor), sides, tied)
            return self._odds_of(state, actor, attacker, counter, won)
        return None

    def _odds_of(
        self,
        state: BattleState,
        dealer: Combatant,
        victim: Combatant,
        weapon: Any,
        won: dict[int, float],
    ) -> Odds:
        opts = self._opts(state)
        outcomes: Outcomes = damage_after(
            won,
            combat.damage_pool(dealer, weapon),
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
        s = stats_of(combatant)
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


def stats_of(c: Combatant) -> DonjonStats:
    return c.stats  # type: ignore[no-any-return]


__all__ = ["Donjon", "PendingAttack", "PendingMove", "PendingSpend", "stats_of"]
