"""The Sistema 2d10 Ruleset: static description, stat blocks, legal actions, apply."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel

from escaramuza.rules.core.dice import DiceError, Roller, parse_dice
from escaramuza.rules.core.events import (
    BattleStarted,
    ConditionApplied,
    Event,
    InitiativeOrder,
    InitiativeRolled,
    Moved,
    Note,
    ResourceChanged,
)
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import Action, Combatant, Condition, VerbSpec
from escaramuza.rules.core.ruleset import Odds, Ruleset
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.sistema_2d10 import attack, combat, exact, turns
from escaramuza.rules.sistema_2d10.combat import (
    ACTIVE_DEFENCE,
    EXPRES_AFTER,
    EXPRES_BEFORE,
    TURN,
    profile,
)
from escaramuza.rules.sistema_2d10.rolls import mhc
from escaramuza.rules.sistema_2d10.sheets import (
    MAX_SCORE,
    MELEE,
    REQUIRED_ATTRIBUTES,
    Profile,
    Sistema2d10Options,
    Sistema2d10Stats,
    WeaponProfile,
)
from escaramuza.rules.sistema_2d10.tables import LOCATIONS, load_tables

LIBRE = "libre"

ATACAR = "atacar"
MOVER = "mover"
CEDER_DADO = "ceder_dado"
DEFENSA_COMPLETA = "defensa_completa"
PASAR = "pasar"
DEFENDER = "defender"
NO_DEFENDER = "no_defender"
GASTAR_DADO = "gastar_dado"
NO_GASTAR = "no_gastar"


def _score(table: dict[str, int], key: str) -> int:
    # *(default)* an unlisted skill scores 0 (untrained).
    return table.get(key, 0)


def _mhc(stats: Sistema2d10Stats, first: str, attribute: str, what: str = "") -> int:
    """S2-02's MHC of the score named ``first`` (``skills.espada``; initiative pairs two
    Características, ``attributes.sentidos``) and the Característica ``attribute``,
    refusing a pair past "un valor entre 1 y 100" with its field, its sum and the reason
    (``what``: where the pair is named, e.g. ``weapons[0]``)."""
    group, name = first.split(".", 1)
    score = _score(stats.skills if group == "skills" else stats.attributes, name)
    total = score + stats.attributes[attribute]
    if total > MAX_SCORE:
        raise ValueError(
            f"{what + ': ' if what else ''}{first} + attributes.{attribute}: "
            + _f("add up to {total}; two scores make a value of 1 to 100 (S2-02)", total)
        )
    return mhc(score, stats.attributes[attribute])


#: describe()'s line for each verb without a target (marked for the catalog, translated
#: where shown).
DESCRIPTIONS = {
    DEFENSA_COMPLETA: N_("{c} goes into full defence"),
    PASAR: N_("{c} ends the turn"),
    DEFENDER: N_("{c} defends actively"),
    NO_DEFENDER: N_("{c} does not defend"),
    GASTAR_DADO: N_("{c} spends a Dado Exprés"),
    NO_GASTAR: N_("{c} does not spend a Dado Exprés"),
}


class Sistema2d10(Ruleset):
    """Sistema 2d10 (seed ``sistema-2d10.txt``): rules S2-01 … S2-15."""

    id = "sistema_2d10"
    name = "Sistema 2d10"
    env_id = "escaramuza/Sistema2d10-v0"
    default_scenario = "sistema_2d10/duelo"
    verbs: ClassVar[tuple[VerbSpec, ...]] = (
        VerbSpec(
            ATACAR,
            target=True,
            item=True,
            options=(LIBRE, *LOCATIONS),
            description="attack with a weapon; 'libre' rolls the hit location, a location "
            "aims at it (S2-13)",
        ),
        VerbSpec(MOVER, zone=True, description="move one zone step (one action)"),
        VerbSpec(
            CEDER_DADO,
            target=True,
            description="give a Dado Exprés to an ally who has none (one action)",
        ),
        VerbSpec(DEFENSA_COMPLETA, description="spend the whole turn defending: +3 (S2-09)"),
        VerbSpec(PASAR, description="end the turn"),
        VerbSpec(DEFENDER, description="defend actively against the attack (S2-08)"),
        VerbSpec(NO_DEFENDER, description="let the attack through, keeping the defence"),
        VerbSpec(GASTAR_DADO, description="spend a Dado Exprés on this roll (S2-05)"),
        VerbSpec(NO_GASTAR, description="do not spend a Dado Exprés"),
    )
    resources: ClassVar[dict[str, float]] = {
        "pv": 30.0,
        "acciones": 3.0,
        "defensas": 3.0,
        "dados_expres": 3.0,
    }
    conditions: ClassVar[tuple[str, ...]] = (
        "aturdido",
        "sangrado",
        "incapacitado",
        "derribado",
        "moribundo",
        "defensa_completa",
    )
    #: Every state carries its number (a penalty, a bleed rate, a location's value).
    valued_conditions: ClassVar[frozenset[str]] = frozenset(conditions)
    #: S2-14's one-turn stun and each incapacitated location are their own conditions
    #: (they last and act differently) but set the flag of ``aturdido`` /
    #: ``incapacitado``, so the observation keeps its size.
    condition_aliases: ClassVar[dict[str, str]] = {
        combat.STUNNED_16: combat.STUNNED,
        **{name: combat.INCAPACITATED for name in combat.INCAPACITATED_NAMES[1:]},
    }
    band_names: ClassVar[tuple[str, ...]] = ("cuerpo a cuerpo", "corta", "media", "larga")
    #: The values a GM's states take (``cond add ID aturdido -2``), as the GDF table deals
    #: them (an MS "del -1 al -10"): the range, what the value is, and whether the state
    #: needs one (none of these does anything without it; a limb's MS may be 0: a leg).
    gm_values: ClassVar[dict[str, tuple[int, int, str, bool]]] = {
        combat.STUNNED: (combat.MS_FLOOR, -1, N_("the MS, -10 to -1"), True),
        "sangrado": (1, 10, N_("the PV lost each turn, 1 to 10"), True),
        "derribado": (1, 10, N_("the actions lost each turn, 1 to 10"), True),
        "moribundo": (1, 99, N_("the turns left before death, 1 to 99"), True),
        combat.INCAPACITATED: (combat.MS_FLOOR, 0, N_("the MS, -10 to 0"), False),
    }
    options_model = Sistema2d10Options
    stats_model = Sistema2d10Stats
    n_features = 10
    decision_names: ClassVar[tuple[str, ...]] = (TURN, ACTIVE_DEFENCE, EXPRES_BEFORE, EXPRES_AFTER)
    bookkeeping: ClassVar[str] = "escaramuza.rules.sistema_2d10.bookkeeping"
    recovery: ClassVar[str | None] = "escaramuza.rules.sistema_2d10.recovery"

    # -- scenario -------------------------------------------------------------------
    def build_combatant(
        self, base: dict[str, Any], stats: BaseModel, options: BaseModel, index: int
    ) -> Combatant:
        assert isinstance(stats, Sistema2d10Stats)
        assert isinstance(options, Sistema2d10Options)
        car, hab = stats.attributes, stats.skills
        for key in REQUIRED_ATTRIBUTES:
            if key not in car:
                raise ValueError(f"attributes.{key}: " + _("required característica is missing"))
        for group, table in (("attributes", car), ("skills", hab)):
            for key, value in table.items():
                if not 0 <= value <= 100:
                    raise ValueError(
                        f"{group}.{key}: " + _f("must be 0 to 100, not {value}", value)
                    )
        weapons = tuple(self._weapon(stats, i) for i in range(len(stats.weapons)))
        names = [w.name for w in weapons]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise ValueError(
                    f"weapons[{i}].name: " + _f("duplicate weapon name {name}", repr(name))
                )
        most = stats.dados_expres_max
        if most is None:
            most = max(stats.dados_expres, 3)
        if most < stats.dados_expres:
            raise ValueError(
                "dados_expres_max: "
                + _f("{most} is below dados_expres {dados}", most, stats.dados_expres)
            )
        prof = Profile(
            iniciativa=_mhc(
                stats, "attributes.sentidos", "reflejos"
            ),  # S2-06 MHC(Reflejos + Sentidos)
            defensa_cac=_mhc(stats, f"skills.{options.melee_defence_skill}", "reflejos"),
            defensa_dist=_mhc(stats, f"skills.{options.ranged_defence_skill}", "reflejos"),
            # S2-14 "la Habilidad es 'Resistencia al Dolor', y la Característica 'Aguante'"
            aguante=_mhc(stats, "skills.resistencia_al_dolor", "aguante"),
            weapons=weapons,
        )
        actions = stats.actions + stats.extra_actions
        resources = {
            "pv": stats.pv,
            "acciones": 0,
            "defensas": stats.actions,
            "dados_expres": stats.dados_expres,
        }
        maxima = {
            "pv": stats.pv,
            "acciones": actions,
            "defensas": stats.actions,
            "dados_expres": most,
        }
        return Combatant(
            id=base["id"],
            name=base["name"],
            side=base["side"],
            zone=base["zone"],
            index=index,
            stats=stats,
            resources=resources,
            maxima=maxima,
            items=tuple(names),
            temperament=base["temperament"],
            pc=stats.pc,
            data={"profile": prof},
        )

    @staticmethod
    def _weapon(stats: Sistema2d10Stats, i: int) -> WeaponProfile:
        w = stats.weapons[i]
        if w.attribute not in stats.attributes:
            known = ", ".join(stats.attributes)
            raise ValueError(
                f"weapons[{i}].attribute: "
                + _f("unknown característica {name} (known: {known})", repr(w.attribute), known)
            )
        if w.kind == MELEE and w.reach != 0:
            raise ValueError(
                f"weapons[{i}].reach: " + _("a cuerpo_a_cuerpo weapon reaches 0 zones")
            )
        try:
            damage = parse_dice(w.damage)
        except DiceError as exc:
            raise ValueError(f"weapons[{i}].damage: {exc}") from None
        if damage.minimum < 0:
            raise ValueError(f"weapons[{i}].damage: " + _("damage can be negative"))
        weapon_mhc = _mhc(stats, f"skills.{w.skill}", w.attribute, f"weapons[{i}]")
        return WeaponProfile(w.name, w.kind, weapon_mhc, damage, w.reach)

    def condition_from_gm(self, name: str, value: str | None) -> Condition:
        # As the GDF table sets them: a stun's MS, a bleed's PV, a fall's actions and a
        # dying's turns are the state itself, so each needs its value, in range.
        cond = super().condition_from_gm(name, value)
        limits = self.gm_values.get(self.condition_aliases.get(name, name))
        if limits is not None:
            lo, hi, what, needed = limits
            if value is None and needed:
                raise ValueError(_f("{name} needs its value: {what}", name, _(what)))
            if not lo <= cond.value <= hi:
                raise ValueError(_f("{name}'s value is {what}, not {value}", name, _(what), value))
        return cond

    def validate_scenario(self, scenario: Any) -> None:
        # Loading here rejects a malformed tables file when the scenario loads, with the
        # tables file's own name, field and reason (ScenarioError passes through).
        load_tables(scenario.options.tables)

    # -- dynamics -------------------------------------------------------------------
    def start(self, state: BattleState, roller: Roller) -> list[Event]:
        state.data["tables"] = load_tables(state.options.tables)
        state.data["roll"] = None
        state.data["attack"] = None
        state.data["fresh"] = False
        events: list[Event] = [
            BattleStarted(
                _f(
                    "{title} (Sistema 2d10) begins.",
                    state.scenario.title,
                ),
                state.scenario.name,
                self.id,
            )
        ]
        totals: dict[str, int] = {}
        for c in state.combatants:
            # S2-06 "Iniciativa: 2D10 + MHC (Reflejos + Sentidos)".
            a, b = roller.roll(10, N_("initiative")), roller.roll(10, N_("initiative"))
            bonus = profile(c).iniciativa
            totals[c.id] = a + b + bonus
            events.append(
                InitiativeRolled(
                    _f(
                        "{c} rolls iniciativa: 2d10 [{a}, {b}] {bonus:+d} = {total}.",
                        c.name,
                        a,
                        b,
                        bonus,
                        totals[c.id],
                    ),
                    c.id,
                    "iniciativa",
                    (a, b),
                    totals[c.id],
                )
            )
        # "los personajes con mayor valor de Iniciativa atacarán"; *(default)* ties keep
        # scenario order.
        order = sorted(state.combatants, key=lambda c: (-totals[c.id], c.index))
        state.order = tuple(c.id for c in order)
        events.append(
            InitiativeOrder(
                _f(
                    "Initiative order: {names}.",
                    ", ".join(f"{c.name} ({totals[c.id]})" for c in order),
                ),
                state.order,
            )
        )
        state.round = 0
        state.turn = len(state.order) - 1
        return events + turns.next_turn(self, state, roller)

    def legal_actions(self, state: BattleState) -> list[Action]:
        pending = state.pending
        if pending is None or state.outcome is not None:
            return []
        if pending.name == ACTIVE_DEFENCE:
            return [Action(DEFENDER, pending.actor), Action(NO_DEFENDER, pending.actor)]
        if pending.name in (EXPRES_BEFORE, EXPRES_AFTER):
            return [Action(GASTAR_DADO, pending.actor), Action(NO_GASTAR, pending.actor)]
        return self._turn_actions(state, state.get(pending.actor))

    def _turn_actions(self, state: BattleState, actor: Combatant) -> list[Action]:
        actions: list[Action] = []
        aims = (LIBRE, *(name for name, _ in combat.tables(state).aimed))
        foes = [c for c in state.combatants if c.active and c.side is not actor.side]
        dist = state.battlefield.distance
        for weapon in profile(actor).weapons:
            for foe in foes:
                if dist(actor.zone, foe.zone) <= weapon.reach:
                    actions.extend(
                        Action(ATACAR, actor.id, target=foe.id, item=weapon.name, option=aim)
                        for aim in aims
                    )
        if not combat.lame(actor):
            # S2-15 "No poder andar por tener una pierna incapacitada".
            actions.extend(
                Action(MOVER, actor.id, zone=z) for z in state.battlefield.neighbours(actor.zone)
            )
        if actor.resources["dados_expres"] > 0 and actor.pc:
            # S2-05 "Los jugadores pueden cederse sus dados exprés entre ellos si alguno ha
            # agotado los suyos": a player character, to another who holds none (and may
            # hold one).
            actions.extend(
                Action(CEDER_DADO, actor.id, target=c.id)
                for c in state.combatants
                if c.pc
                and c.side is actor.side
                and c.active
                and c is not actor
                and c.resources["dados_expres"] == 0
                and c.maxima["dados_expres"] > 0
            )
        if state.data.get("fresh"):
            actions.append(Action(DEFENSA_COMPLETA, actor.id))
        actions.append(Action(PASAR, actor.id))
        return actions

    def apply(self, state: BattleState, action: Action, roller: Roller) -> list[Event]:
        verb = action.verb
        if verb in (DEFENDER, NO_DEFENDER):
            state.pending = None
            return attack.defence_decided(self, state, verb == DEFENDER, roller)
        if verb in (GASTAR_DADO, NO_GASTAR):
            state.pending = None
            return attack.expres_decided(self, state, verb == GASTAR_DADO, roller)
        actor = state.get(action.actor)
        state.pending = None
        state.data["fresh"] = False
        if verb == ATACAR:
            assert action.target is not None and action.item is not None
            actor.resources["acciones"] -= 1
            aim = None if action.option in (None, LIBRE) else action.option
            return attack.begin_attack(
                self, state, actor, state.get(action.target), action.item, aim, roller
            )
        events: list[Event]
        if verb == MOVER:
            assert action.zone is not None
            # *(default)* moving one zone step costs one action (the seed is silent).
            actor.resources["acciones"] -= 1
            events = [
                Moved(
                    _f(
                        "{actor} moves to {zone}.",
                        actor.name,
                        action.zone,
                    ),
                    actor.id,
                    actor.zone,
                    action.zone,
                )
            ]
            actor.zone = action.zone
        elif verb == CEDER_DADO:
            assert action.target is not None
            ally = state.get(action.target)
            actor.resources["acciones"] -= 1
            actor.resources["dados_expres"] -= 1
            ally.resources["dados_expres"] += 1
            events = [
                ResourceChanged(
                    _f("{actor} gives a Dado Exprés to {ally}.", actor.name, ally.name),
                    ally.id,
                    "dados_expres",
                    1,
                    ally.resources["dados_expres"],
                ),
                ResourceChanged("", actor.id, "dados_expres", -1, actor.resources["dados_expres"]),
            ]
        elif verb == DEFENSA_COMPLETA:
            # S2-09 "pasar su turno sin hacer otra cosa que defenderse: Obtendrá un +3".
            bonus = int(state.options.full_defence_bonus)
            actor.conditions["defensa_completa"] = Condition("defensa_completa", bonus)
            actor.resources["acciones"] = 0
            events = [
                ConditionApplied(
                    _f(
                        "{actor} goes into full defence (+{bonus} to defensive rolls).",
                        actor.name,
                        bonus,
                    ),
                    actor.id,
                    "defensa_completa",
                    bonus,
                )
            ]
        else:
            actor.resources["acciones"] = 0
            events = [Note(_f("{actor} ends the turn.", actor.name))]
        return events + turns.resume(self, state, roller)

    # -- presentation ---------------------------------------------------------------
    def describe(self, state: BattleState, action: Action) -> str:
        actor = state.get(action.actor)
        verb = action.verb
        if verb == ATACAR:
            target = state.get(action.target or "")
            aim = action.option
            if aim in (None, LIBRE):
                how = ""
            else:
                ms = combat.tables(state).aim_modifier(aim) or 0
                how = _f(", aiming at {aim} (MS {ms:+d})", aim, ms)
            return _f("{c} attacks {t} with {item}{how}", actor.name, target.name, action.item, how)
        if verb == MOVER:
            return _f("{c} moves to {zone}", actor.name, action.zone)
        if verb == CEDER_DADO:
            return _f(
                "{c} gives a Dado Exprés to {t}",
                actor.name,
                state.get(action.target or "").name,
            )
        template = DESCRIPTIONS.get(verb)
        if template is None:
            return f"{actor.name} {verb}"
        return _(template).format(c=actor.name)

    def odds(self, state: BattleState, action: Action) -> Odds | None:
        """Exact odds of an ``atacar`` action (None for every other verb): :meth:`attack_odds`
        (what is assumed and counted) with the damage counted as the PV the target loses,
        at most the PV it has (:func:`exact.pv_lost`)."""
        if action.verb != ATACAR or action.target is None or action.item is None:
            return None
        aim = None if action.option in (None, LIBRE) else action.option
        target = state.get(action.target)
        blow = self.attack_odds(state, state.get(action.actor), target, action.item, aim)
        return exact.pv_lost(blow, target.resources["pv"])

    def attack_odds_many(self, state: BattleState, actions: Sequence[Action]) -> list[Odds | None]:
        """:meth:`attack_odds` of each ``atacar`` action (None for every other verb), with
        the terms that do not depend on the aim worked out once per (attacker, target,
        weapon): the heuristic scores every aimed variant of every attack it can make."""
        out: list[Odds | None] = [None] * len(actions)
        groups: dict[tuple[str, str, str], list[int]] = {}
        for i, action in enumerate(actions):
            if action.verb == ATACAR and action.target is not None and action.item is not None:
                groups.setdefault((action.actor, action.target, action.item), []).append(i)
        for (actor, target, item), where in groups.items():
            aims = [
                None if actions[i].option in (None, LIBRE) else actions[i].option for i in where
            ]
            found = self._aimed_odds(state, state.get(actor), state.get(target), item, aims)
            for i, odds in zip(where, found, strict=True):
                out[i] = odds
        return out

    def attack_odds(
        self,
        state: BattleState,
        attacker: Combatant,
        target: Combatant,
        weapon_name: str,
        aim: str | None = None,
    ) -> Odds:
        """Exact odds of ``attacker`` attacking ``target`` with a weapon, free or aimed.

        * ``p_hit``: the attack roll (2d10 + MHC + aimed MS + the aturdido and incapacitado
          MS as the engine applies them, :func:`combat.roll_penalty`)
          reaches the defensa pasiva (S2-08, option ``passive_beats``) AND is not blocked by
          the active defence. Assumption: the target defends actively whenever it has a
          defence left this round (``defensas`` > 0) — as the heuristic's own attack scoring
          assumes — with its full-defence bonus if it is in defensa completa (S2-09); with
          no defence left only the defensa pasiva counts. A crítico is blocked only by a
          crítico *(default)*. No Dado Exprés is assumed on either roll.
        * ``damage`` / ``expected_damage``: what the blow deals, (daño − CA, min 0) × the
          location multiplier — the aimed location's (S2-13), else averaged over the d10
          location table (S2-12); 0 for a miss or a block; not capped at the PV left (the
          temperaments score the blow; :meth:`odds` counts the PV lost).
        * ``p_drop``: P(the target is out of the fight after this attack): the blow brings
          it to 0 PV, OR it loses half or more of its current PV, fails the prueba de
          Aguante (S2-14, no Dado Exprés assumed) and the GDF roll is inconsciente or
          moribundo (S2-15). GDF effects that take it out later (sangrado bleeding it to
          0, …) are not counted.
        """
        return self._aimed_odds(state, attacker, target, weapon_name, (aim,))[0]

    def _aimed_odds(
        self,
        state: BattleState,
        attacker: Combatant,
        target: Combatant,
        weapon_name: str,
        aims: Sequence[str | None],
    ) -> list[Odds]:
        """:meth:`attack_odds` for each aim (None: free), the aim-independent terms once."""
        weapon = profile(attacker).weapon(weapon_name)
        table = combat.tables(state)
        defence = (
            combat.defence_bonus(state, target, weapon.kind)
            if target.active and target.resources["defensas"] > 0
            else None
        )
        options = state.options
        bonus = weapon.mhc + combat.roll_penalty(attacker, combat.ATAQUE)
        passive = combat.passive_defence(state, target, weapon.kind)
        passive_rule, block_rule = options.passive_beats, options.active_blocks
        damage, ca, pv = weapon.damage, target.stats.ca, target.resources["pv"]
        aguante = profile(target).aguante + combat.roll_penalty(target, combat.AGUANTE)
        difficulty, out_share = int(options.aguante_difficulty), table.out_share
        out: list[Odds] = []
        for aim in aims:
            if aim is None:
                aim_ms, multipliers = 0, table.multipliers
            else:
                aim_ms, multipliers = table.aim_modifier(aim) or 0, (table.multiplier(aim),)
            out.append(
                exact.attack_odds(
                    bonus + aim_ms,
                    passive,
                    defence,
                    passive_rule,
                    block_rule,
                    damage,
                    ca,
                    multipliers,
                    pv,
                    aguante,
                    difficulty,
                    out_share,
                )
            )
        return out

    def features(self, state: BattleState, combatant: Combatant) -> Sequence[float]:
        prof = profile(combatant)
        stats = combatant.stats
        best = max(prof.weapons, key=lambda w: (w.mhc, w.damage.maximum))
        return (
            best.mhc / 10,
            (best.damage.minimum + best.damage.maximum) / 40,
            max(w.reach for w in prof.weapons) / 5,
            prof.defensa_cac / 10,
            prof.defensa_dist / 10,
            prof.aguante / 10,
            prof.iniciativa / 10,
            stats.ca / 10,
            stats.actions / 3,
            stats.extra_actions / 3,
        )
