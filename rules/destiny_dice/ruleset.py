"""Destiny Dice combat: initiative, turns, opposed attacks, damage, states.

Each method names the rule id it follows (rules-notes.md, DD-01 … DD-19); the
seed sentence is quoted where the code makes a reading of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from escaramuza.rules.core.battlefield import Battlefield
from escaramuza.rules.core.dice import DiceError, Roller, parse_dice
from escaramuza.rules.core.events import (
    AttackResolved,
    BattleStarted,
    ConditionApplied,
    ConditionEnded,
    Damaged,
    Event,
    Healed,
    InitiativeOrder,
    InitiativeRolled,
    Moved,
    Note,
    ResourceChanged,
    Rolled,
    StatusChanged,
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
from escaramuza.rules.core.ruleset import Odds, Ruleset
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.destiny_dice.exact import (
    AttackProfile,
    drop_probability,
    expected_pv_loss,
    hit_probability,
    pv_loss_distribution,
)
from escaramuza.rules.destiny_dice.sheets import (
    BANDS,
    CONDITIONS,
    MELEE,
    PERSISTENT,
    TIERS,
    HealSpec,
    Options,
    Stats,
    WeaponSpec,
)

UNARMED = "puños"


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon as the hot loop needs it (bands as indices, dice resolved)."""

    name: str
    characteristic: str  # "cuerpo" | "mente"
    bands: frozenset[int]
    tier_bonus: int
    extra: int
    unarmed: bool
    shoots: bool
    inflicts: str | None
    inflicts_x: str | None


@dataclass(frozen=True, slots=True)
class Heal:
    name: str
    heal: str
    bands: frozenset[int]
    uses: int | None
    cost: tuple[tuple[str, int], ...]
    cures: tuple[str, ...]
    #: The ``Combatant.data`` key counting uses left (built once: legal_actions reads it).
    uses_key: str = ""


@dataclass(frozen=True, slots=True)
class Sheet:
    """The immutable part of a combatant, shared by every clone."""

    cuerpo: int
    mente: int
    alma: int
    defensa: int
    defence_bonus: int
    weapons: dict[str, Weapon]
    heals: dict[str, Heal]
    #: The static part of the learner features (dice, armour, carries a ranged weapon).
    static_features: tuple[float, ...] = ()
    #: Derived from ``weapons`` once (:func:`_sheet_tables`) for the hot loop: band index →
    #: names of the weapons reaching it, in ``weapons`` order; every band some weapon
    #: reaches; (name, ``Combatant.data`` jam key) of each weapon that shoots (DD-18).
    by_band: tuple[tuple[str, ...], ...] = ((), (), ())
    all_bands: frozenset[int] = frozenset()
    jam_keys: tuple[tuple[str, str], ...] = ()
    #: Carries a weapon rolled with Mente (a shooter, for the heuristic).
    ranged: bool = False

    def die(self, characteristic: str) -> int:
        return self.cuerpo if characteristic == "cuerpo" else self.mente


def _sheet_tables(
    weapons: dict[str, Weapon],
) -> tuple[tuple[tuple[str, ...], ...], frozenset[int], tuple[tuple[str, str], ...]]:
    """``Sheet.by_band``, ``all_bands`` and ``jam_keys`` of a weapon table."""
    by_band = tuple(
        tuple(name for name, w in weapons.items() if band in w.bands) for band in range(len(BANDS))
    )
    all_bands = frozenset(band for w in weapons.values() for band in w.bands)
    jam_keys = tuple((name, f"jam:{name}") for name, w in weapons.items() if w.shoots)
    return by_band, all_bands, jam_keys


#: Energy pool earned by hitting with each characteristic (DD-14).
ENERGY = {"cuerpo": "pc", "mente": "pm", "alma": "pa"}
CHAR_NAME = {"cuerpo": "Cuerpo", "mente": "Mente", "alma": "Alma"}
#: The attack die's purpose per characteristic name. The purposes the dice are rolled for
#: are msgids left untranslated here (N_): only a GM's manual dice prompt shows them, and
#: it translates them (escaramuza.gm.PromptRoller), so the hot loop pays nothing for them.
ATTACK_ROLL = {"Cuerpo": N_("attack (Cuerpo)"), "Mente": N_("attack (Mente)")}

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

#: Builds an AttackProfile from its fields in order, without the named tuple's Python-level
#: ``__new__`` (see :meth:`DestinyDice.profile`).
_new_tuple = tuple.__new__
#: Poison and healing dice are rolled from their notation (``1d8``, ``2``): parse each text
#: once. A DiceExpr is a frozen value and parse_dice a pure function, so sharing is safe.
_dice = lru_cache(maxsize=256)(parse_dice)


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


def _weapon(spec: WeaponSpec) -> Weapon:
    unarmed = spec.tier == "desarmado"
    return Weapon(
        name=spec.name,
        characteristic="cuerpo" if spec.kind == MELEE else "mente",
        bands=frozenset(BANDS.index(b) for b in spec.bands or ()),
        tier_bonus=0 if unarmed else TIERS[spec.tier][0],
        extra=spec.bonus,
        unarmed=unarmed,
        shoots=bool(spec.shoots),
        inflicts=spec.inflicts.name if spec.inflicts else None,
        inflicts_x=spec.inflicts.x if spec.inflicts else None,
    )


def _heal(spec: HealSpec) -> Heal:
    return Heal(
        spec.name,
        spec.heal,
        frozenset(BANDS.index(b) for b in spec.bands),
        spec.uses,
        tuple(sorted(spec.cost.items())),
        tuple(spec.cures),
        f"uses:{spec.name}",
    )


class DestinyDice(Ruleset):
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

    def band(self, hops: int) -> int:
        # DD-05: 0 hops cuerpo a cuerpo, 1 cerca, 2 or more lejos (hot path: no len()/min()).
        return hops if hops < 2 else 2

    def bands_from(self, battlefield: Battlefield, zone: str) -> Mapping[str, int]:
        """The :meth:`band` from ``zone`` to every zone: one row of a table built once per
        map (the hot loops ask it for every target of every decision)."""
        return battlefield.derived("destiny_dice.bands", self._band_table)[zone]

    def _band_table(self, battlefield: Battlefield) -> dict[str, dict[str, int]]:
        return {
            a: {b: self.band(hops) for b, hops in battlefield.distances_from(a).items()}
            for a in battlefield.zone_ids
        }

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
            weapon = _weapon(spec)
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
        heals = {h.name: _heal(h) for h in stats.heals}
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
            *_sheet_tables(weapons),
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
            if not c.active:
                continue
            # DD-01: "todos los participantes hacen una prueba de MENTE".
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
            c = state.by_id[state.order[state.turn]]
            if not c.active:
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
        poison = c.conditions.get("envenenado")
        if poison is not None:
            # "Envenenado (X): Sufres X daño al inicio de cada turno".
            total, faces = _dice(poison.dice or "1").roll(roller, N_("poison (Envenenado)"))
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
        # Most turns start with no state at all: then there is nothing below to check.
        if c.conditions:
            # Temporal states "duran hasta el inicio de tu próximo turno": they end now, and the
            # ones whose effect is about this turn apply to it as they end (seed's table).
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
            for name in ("paralizado", "derribado", "inmovil"):
                if name in c.conditions:
                    del c.conditions[name]
                    events.append(
                        ConditionEnded(_f("{c} is no longer {name}.", c.name, name), c.id, name)
                    )
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
        if not data["moved"] and "derribado" not in c.conditions:
            actions.extend(_steps(state.battlefield, "mover", c.id, c.zone))
        if not data["acted"]:
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

    def _usable_weapons(self, c: Combatant) -> list[Weapon]:
        disarmed = "desarmado" in c.conditions
        return [
            w
            for name, w in c.stats.weapons.items()
            if not (disarmed and not w.unarmed) and not (w.shoots and c.data.get(f"jam:{name}"))
        ]

    def _impaired(self, c: Combatant) -> bool:
        """Whether a weapon of ``c`` is out of use now (Desarmado, or jammed: DD-18)."""
        if "desarmado" in c.conditions:
            return True
        data = c.data
        for _name, key in c.stats.jam_keys:
            if data.get(key):
                return True
        return False

    def usable_by_band(self, c: Combatant) -> tuple[tuple[str, ...], ...]:
        """Band index → names of the weapons ``c`` can attack with now that reach it."""
        if not self._impaired(c):
            # Nothing disarmed or jammed: every weapon is usable, as the sheet lists them.
            return c.stats.by_band
        usable = self._usable_weapons(c)
        return tuple(tuple(w.name for w in usable if band in w.bands) for band in range(3))

    def usable_bands(self, c: Combatant) -> frozenset[int]:
        """The distance bands at which ``c`` has a usable weapon now."""
        if not self._impaired(c):
            return c.stats.all_bands
        return frozenset(band for w in self._usable_weapons(c) for band in w.bands)

    def _attacks(self, state: BattleState, c: Combatant, verb: str) -> list[Action]:
        out: list[Action] = []
        reach = self.usable_by_band(c)
        band_to = self.bands_from(state.battlefield, c.zone)
        side, cid, active = c.side, c.id, Status.ACTIVE
        for t in state.combatants:
            if t.side is side or t.status is not active:
                continue
            tid = t.id
            for name in reach[band_to[t.zone]]:
                out.append(interned(Action, verb, cid, tid, None, name, None))
        return out

    def _helps(self, state: BattleState, c: Combatant) -> list[Action]:
        # DD-04 gives no range; a helper must be near enough to matter: same zone or cerca.
        hops_to = state.battlefield.distances_from(c.zone)
        side, cid, active = c.side, c.id, Status.ACTIVE
        return [
            interned_action("ayudar", cid, target=a.id)
            for a in state.combatants
            if a.side is side and a.status is active and a.id != cid and hops_to[a.zone] <= 1
        ]

    def _heals(self, state: BattleState, c: Combatant) -> list[Action]:
        out: list[Action] = []
        heals = c.stats.heals
        if not heals:
            return out
        hops_to = state.battlefield.distances_from(c.zone)
        for heal in heals.values():
            if heal.uses is not None and c.data.get(heal.uses_key, 0) <= 0:
                continue
            if any(c.resources[k] < v for k, v in heal.cost):
                continue
            for a in state.combatants:
                if a.side is not c.side or a.status not in (Status.ACTIVE, Status.DOWN):
                    continue
                hurt = a.resources["pv"] < a.maxima["pv"] or any(
                    x in a.conditions for x in heal.cures
                )
                if hurt and self.band(hops_to[a.zone]) in heal.bands:
                    out.append(interned_action("curar", c.id, target=a.id, item=heal.name))
        return out

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
        can_move = not data["moved"] and "derribado" not in actor.conditions
        if actor.active and (can_move or not data["acted"]):
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
        if fear is not None and fear.source in state.by_id:
            source = state.by_id[fear.source]
            dist = state.battlefield.distance
            if source.active and dist(zone, source.zone) < dist(c.zone, source.zone):
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

    # -- attack --------------------------------------------------------------
    def profile(
        self, state: BattleState, att: Combatant, dfn: Combatant, w: Weapon
    ) -> AttackProfile:
        """The modifiers an attack would get now (exact odds, heuristic, GM view)."""
        att_mod = att.data.get("ayuda", 0)
        if "ciego" in att.conditions:
            att_mod -= 2
        dfn_stats, options = dfn.stats, state.options
        def_mod = dfn_stats.defence_bonus + dfn.data.get("ayuda", 0)
        if w.characteristic == "mente":
            def_mod += options.cover_defense * state.battlefield.zones[dfn.zone].cover
            att_die = att.stats.mente
        else:
            att_die = att.stats.cuerpo  # Sheet.die(): melee attacks roll Cuerpo
        # This runs for every attack the heuristic or the planner weighs: the tuple is built
        # by tuple.__new__ with the fields in AttackProfile's order (the same value its
        # generated __new__ makes, without that Python-level call).
        return _new_tuple(
            AttackProfile,
            (
                att_die,
                dfn_stats.defensa,  # def_die
                att_mod,
                def_mod,
                w.unarmed,
                w.tier_bonus,
                w.extra,
                w.shoots,  # shooting
                options.ties_favor,
                options.fumble_damage,
            ),
        )

    def attack(
        self, state: BattleState, att: Combatant, dfn: Combatant, w: Weapon, roller: Roller
    ) -> list[Event]:
        """DD-06 … DD-11, DD-14, DD-18: one opposed attack roll and its damage."""
        events: list[Event] = []
        p = self.profile(state, att, dfn, w)
        att.data.pop("ayuda", None)
        char = CHAR_NAME[w.characteristic]
        a = roller.roll(p.att_die, ATTACK_ROLL[char])
        d20a = roller.roll(20, N_("d20 del Destino (attack)"))
        mods = f" {p.att_mod:+d}" if p.att_mod else ""
        events.append(
            Rolled(
                _f(
                    "{att} attacks {dfn} with {w}: {char} d{att_die} {a}{mods} = {total}; d20 del "
                    "Destino {d20a}.",
                    att.name,
                    dfn.name,
                    w.name,
                    char,
                    p.att_die,
                    a,
                    mods,
                    a + p.att_mod,
                    d20a,
                ),
                att.id,
                "ataque",
                (a, d20a),
                a + p.att_mod,
            )
        )
        if w.shoots and d20a == 1:
            # DD-18: "Si sacas 1 en el Dado del Destino al disparar, fallas automáticamente".
            jam = state.options.jam_on_one
            if jam:
                att.data[f"jam:{w.name}"] = True
            events.append(
                AttackResolved(
                    _f(
                        "A 1 on the d20 while shooting: automatic miss; {w} jams and needs an "
                        "action to reload.",
                        w.name,
                    )
                    if jam
                    else _("A 1 on the d20 while shooting: automatic miss."),
                    att.id,
                    dfn.id,
                    w.name,
                    False,
                )
            )
            return events
        dfn.data.pop("ayuda", None)
        d = roller.roll(p.def_die, N_("defence"))
        d20d = roller.roll(20, N_("d20 del Destino (defence)"))
        att_total, def_total = a + p.att_mod, d + p.def_mod
        hit = att_total > def_total or (att_total == def_total and p.ties_favor == "attacker")
        dmods = f" {p.def_mod:+d}" if p.def_mod else ""
        die_name = "Cuerpo" if dfn.pc else "Defensa"
        events.append(
            Rolled(
                _f(
                    "{dfn} defends: {die_name} d{def_die} {d}{dmods} = {def_total}; d20 del "
                    "Destino {d20d}.",
                    dfn.name,
                    die_name,
                    p.def_die,
                    d,
                    dmods,
                    def_total,
                    d20d,
                ),
                dfn.id,
                "defensa",
                (d, d20d),
                def_total,
            )
        )
        tie = (
            _(" (tie goes to the attacker)")
            if att_total == def_total and hit
            else (_(" (tie goes to the defender)") if att_total == def_total else "")
        )
        events.append(
            AttackResolved(
                (
                    _f("{att_total} vs {def_total}: HIT{tie}.", att_total, def_total, tie)
                    if hit
                    else _f("{att_total} vs {def_total}: miss{tie}.", att_total, def_total, tie)
                ),
                att.id,
                dfn.id,
                w.name,
                hit,
            )
        )
        if hit:
            events.extend(self._hit(state, att, dfn, w, p, roller))
        if d20d == 1 and dfn.active and (not hit or state.options.fumble_damage == "always"):
            # DD-09: "Aunque tu Defensa supere al Ataque, recibes 1 punto de daño automático".
            events.append(
                Note(_f("Fallo Defensivo: {dfn} rolled a 1 on the d20 and stumbles.", dfn.name))
            )
            events.extend(self._damage(state, dfn, 1, att.id, "fallo defensivo"))
        if not hit and d20d == 20 and dfn.active:
            # DD-08: the reaction is the defender's decision.
            events.append(
                Note(_f("Defensa Perfecta! {dfn} may counterattack or reposition.", dfn.name))
            )
            state.data["reaction_vs"] = att.id
            state.pending = Decision(DecisionKind.REACTION, dfn.id, dfn.side, "defensa_perfecta")
        return events

    def _hit(
        self,
        state: BattleState,
        att: Combatant,
        dfn: Combatant,
        w: Weapon,
        p: AttackProfile,
        roller: Roller,
    ) -> list[Event]:
        events: list[Event] = []
        # DD-11: "tira otra vez el mismo dado de característica ... y suma el Bono de Daño".
        face = roller.roll(p.att_die, N_("damage"))
        if w.unarmed:
            base, how = max(face - 1, 1), _f("{face} − 1 (unarmed, minimum 1)", face)
        else:
            base, how = face + w.tier_bonus, f"{face} + {w.tier_bonus}"
        dmg = max(base + w.extra, 0)
        extra = _f(" {extra:+d} special", w.extra) if w.extra else ""
        events.append(
            Rolled(
                _f("Damage: d{att_die} {how}{extra} = {dmg}.", p.att_die, how, extra, dmg),
                att.id,
                "daño",
                (face,),
                dmg,
            )
        )
        events.extend(self._damage(state, dfn, dmg, att.id, w.name))
        # DD-14: "Brann gana 2 PC por impactar."
        pool = ENERGY[w.characteristic]
        before = att.resources[pool]
        att.resources[pool] = min(before + 2, att.maxima[pool])
        gained = att.resources[pool] - before
        events.append(
            ResourceChanged(
                _f(
                    "{att} gains {gained} {pool} for the hit ({now}).",
                    att.name,
                    gained,
                    pool.upper(),
                    att.resources[pool],
                ),
                att.id,
                pool,
                gained,
                att.resources[pool],
            )
        )
        if w.inflicts and dfn.active:
            cond = Condition(
                w.inflicts, source=att.id, persistent=w.inflicts in PERSISTENT, dice=w.inflicts_x
            )
            dfn.conditions[w.inflicts] = cond
            label = f"{w.inflicts} ({w.inflicts_x})" if w.inflicts_x else w.inflicts
            events.append(
                ConditionApplied(_f("{dfn} is now {label}.", dfn.name, label), dfn.id, w.inflicts)
            )
        return events

    def _damage(
        self, state: BattleState, c: Combatant, amount: int, source: str, what: str
    ) -> list[Event]:
        before = c.resources["pv"]
        c.resources["pv"] = max(before - amount, 0)
        events: list[Event] = [
            Damaged(
                _f(
                    "{c} loses {lost} PV ({what}): {pv}/{max} PV.",
                    c.name,
                    before - c.resources["pv"],
                    what,
                    c.resources["pv"],
                    c.maxima["pv"],
                ),
                c.id,
                before - c.resources["pv"],
                "pv",
                source,
                c.resources["pv"],
            )
        ]
        if c.resources["pv"] == 0 and c.active:
            if c.pc:
                # DD-16: "caes Fuera de Combate (inconsciente). No puedes actuar."
                events.append(
                    self.set_status(
                        c, Status.DOWN, _f("{c} falls Fuera de Combate!", c.name), source
                    )
                )
            else:
                # DD-15: "El enemigo queda derrotado".
                events.append(
                    self.set_status(c, Status.DEFEATED, _f("{c} is defeated!", c.name), source)
                )
        return events

    def _heal(
        self,
        state: BattleState,
        c: Combatant,
        ally: Combatant,
        heal: Heal,
        roller: Roller,
        events: list[Event],
    ) -> None:
        if heal.uses is not None:
            c.data[heal.uses_key] = c.data[heal.uses_key] - 1
        for pool, cost in heal.cost:
            c.resources[pool] -= cost
        total, faces = _dice(heal.heal).roll(roller, _f("healing ({heal})", heal.name))
        before = ally.resources["pv"]
        ally.resources["pv"] = min(before + max(total, 0), ally.maxima["pv"])
        events.append(
            Healed(
                _f(
                    "{c} uses {heal} on {ally}: {dice} rolls {total}, {before} → {pv} PV.",
                    c.name,
                    heal.name,
                    ally.name,
                    heal.heal,
                    total,
                    before,
                    ally.resources["pv"],
                ),
                ally.id,
                ally.resources["pv"] - before,
                "pv",
                c.id,
                ally.resources["pv"],
            )
        )
        for name in heal.cures:
            if name in ally.conditions:
                del ally.conditions[name]
                events.append(
                    ConditionEnded(
                        _f("{ally} is cured of {name}.", ally.name, name),
                        ally.id,
                        name,
                    )
                )
        if ally.status is Status.DOWN and ally.resources["pv"] > 0:
            # DD-16: "Si lo hace, te levantas inmediatamente y puedes actuar en tu siguiente turno."
            events.append(
                self.set_status(
                    ally,
                    Status.ACTIVE,
                    _f("{ally} is back on their feet!", ally.name),
                    c.id,
                )
            )

    def on_battle_end(self, state: BattleState) -> list[Event]:
        events: list[Event] = []
        for c in state.combatants:
            if c.pc and c.status is Status.DOWN:
                # DD-16: "despiertas automáticamente al finalizar el combate ... con 1 PV".
                c.resources["pv"] = 1
                c.status = Status.ACTIVE
                events.append(
                    StatusChanged(
                        _f("{c} wakes up with 1 PV as the fight ends.", c.name),
                        c.id,
                        "active",
                    )
                )
        return events

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
        # As an attack inflicts it: Envenenado (X) carries X as dice notation (DD-14's
        # "Sufres X daño"), ciego, asustado and envenenado are the persistent states, and
        # no other state has a number.
        if name == "envenenado":
            if value is None:
                raise ValueError(_("envenenado needs x, the damage per turn (e.g. '1' or '1d4')"))
            try:
                _dice(value)
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
        return Odds(
            hit_probability(p),
            expected_pv_loss(p),
            drop_probability(p, dfn.resources["pv"]),
            pv_loss_distribution(p),
        )

    def features(self, state: BattleState, combatant: Combatant) -> Sequence[float]:
        data = combatant.data
        jammed = any(k.startswith("jam:") for k in data) if len(data) > 0 else False
        return (*combatant.stats.static_features, data.get("ayuda", 0) / 2, float(jammed))
