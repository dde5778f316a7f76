"""Combat flow: turns, the attack pipeline, active defence, Dados Exprés, damage,
hit location, the Aguante test and the GDF (seed section "Combate" and "Reglas
avanzadas de combate").

Every step either sets the next pending decision and returns, or runs to
:func:`resume`, which hands the turn back to its owner or moves to the next turn.
The in-flight roll and attack live in ``state.data`` as frozen values.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import (
    AttackResolved,
    ConditionApplied,
    ConditionEnded,
    Damaged,
    Event,
    Note,
    Rolled,
    TurnStarted,
)
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import Combatant, Condition, Decision, DecisionKind, Status
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.sistema_2d10.rolls import SkillResult, judge
from escaramuza.rules.sistema_2d10.sheets import Profile
from escaramuza.rules.sistema_2d10.tables import (
    ARMS,
    LEGS,
    LOCATIONS,
    NEXT_TURN,
    UNTIL_HEALED,
    GdfEffect,
    Tables,
)

if TYPE_CHECKING:
    from escaramuza.rules.sistema_2d10.ruleset import Sistema2d10

ATAQUE = "ataque"
DEFENSA = "defensa"
AGUANTE = "aguante"
#: The rolls' names in narration and dice prompts (translated where shown).
PURPOSE_TEXT = {ATAQUE: N_("attack"), DEFENSA: N_("defence"), AGUANTE: N_("Aguante")}
#: The purpose of a roll's Dado Exprés. Dice purposes are left untranslated (N_): the GM's
#: manual dice prompt translates them (escaramuza.gm.PromptRoller).
EXPRES_TEXT = {
    ATAQUE: N_("attack (Dado Exprés)"),
    DEFENSA: N_("defence (Dado Exprés)"),
    AGUANTE: N_("Aguante (Dado Exprés)"),
}

TURN = "turn"
EXPRES_BEFORE = "expres_before"
EXPRES_AFTER = "expres_after"
ACTIVE_DEFENCE = "active_defence"

#: The GDF's stun (S2-15), lasting as its table row says (until healed by default).
STUNNED = "aturdido"
#: S2-14's stun, "Si se obtiene un 16 quedará Aturdido durante el siguiente turno": kept
#: apart from the GDF's because it lasts one turn; the two do not add up (the worse MS
#: applies, rules-notes S2-15).
STUNNED_16 = "aturdido_16"
#: An incapacitated body part: ``incapacitado_<location>`` (S2-12 location ids), or
#: plain ``incapacitado`` when the location is not known (a GM's own condition).
INCAPACITATED = "incapacitado"
#: Every name an incapacitated location may take (the observation flags them all as
#: ``incapacitado``).
INCAPACITATED_NAMES: tuple[str, ...] = (
    INCAPACITATED,
    *(f"{INCAPACITATED}_{loc}" for loc in LOCATIONS),
)
_LEG_NAMES = frozenset(f"{INCAPACITATED}_{leg}" for leg in LEGS)
#: The MS floor: "un Modificador de situación (MS) negativo que va del -1 al -10".
_MS_FLOOR = -10


@dataclass(frozen=True, slots=True)
class PendingRoll:
    """A skill roll in flight: who rolls, for what, with which MHC + MS."""

    purpose: str
    roller: str
    bonus: int
    faces: tuple[int, ...] = ()
    expres: bool = False
    #: Aguante test: where the blow that called for it landed (S2-12), for an
    #: incapacitado GDF result ("El miembro afectado queda inutilizado").
    location: str | None = None


@dataclass(frozen=True, slots=True)
class AttackCtx:
    """An attack in flight; ``total``/``critical`` are set once the attack roll is judged."""

    attacker: str
    target: str
    weapon: str
    aim: str | None
    total: int = 0
    critical: bool = False


def profile(c: Combatant) -> Profile:
    return c.data["profile"]  # type: ignore[no-any-return]


def tables(state: BattleState) -> Tables:
    return state.data["tables"]  # type: ignore[no-any-return]


def stun_penalty(c: Combatant) -> int:
    """The MS of being aturdido: the worse of the GDF's stun and S2-14's exact-16 stun
    (they do not add up, rules-notes S2-15)."""
    ms = 0
    for name in (STUNNED, STUNNED_16):
        cond = c.conditions.get(name)
        if cond is not None and cond.value < ms:
            ms = cond.value
    return ms


def limb_penalty(c: Combatant) -> int:
    """The MS of incapacitated body parts to attack and active defence rolls.

    S2-15 "tener que luchar con la mano contraria a la habitual aplicando los MS
    pertinentes": an arm gives its table MS; a leg gives none (it stops movement,
    :func:`lame`); head, torso, abdomen or vital point give the same MS *(default)*.
    Different parts add up, to −10 at most; a part hit twice keeps the worse MS.
    """
    ms = 0
    for name, cond in c.conditions.items():
        if name.startswith(INCAPACITATED) and name not in _LEG_NAMES:
            ms += cond.value
    return max(_MS_FLOOR, ms)


def lame(c: Combatant) -> bool:
    """S2-15 "No poder andar por tener una pierna incapacitada": no moving between zones."""
    return any(name in _LEG_NAMES for name in c.conditions)


def roll_penalty(c: Combatant, physical: bool) -> int:
    """MS from conditions: aturdido on every roll; incapacitado on physical rolls.

    Seed: "El aturdimiento generalmente causa un Modificador de situación (MS) negativo";
    an incapacitated part penalises attack and active defence rolls as
    :func:`limb_penalty` says, not the Aguante test.
    """
    return stun_penalty(c) + (limb_penalty(c) if physical else 0)


def passive_defence(state: BattleState, target: Combatant, kind: str) -> int:
    """S2-08 "defensa pasiva (10+MHC defensivo ... según el tipo de ataque)"."""
    return 10 + profile(target).defence(kind)


def attack_need(state: BattleState, ctx: AttackCtx) -> int:
    """The difficulty an attack roll is judged against (S2-08 option ``passive_beats``)."""
    target = state.get(ctx.target)
    weapon = profile(state.get(ctx.attacker)).weapon(ctx.weapon)
    need = passive_defence(state, target, weapon.kind)
    return need + (1 if state.options.passive_beats == "gt" else 0)


def defence_bonus(state: BattleState, target: Combatant, kind: str) -> int:
    """Active defence: 2d10 + the same MHC (S2-08), +3 in full defence (S2-09)."""
    bonus = profile(target).defence(kind) + roll_penalty(target, physical=True)
    full = target.conditions.get("defensa_completa")
    if full is not None:
        bonus += full.value
    return bonus


def block_need(state: BattleState, ctx: AttackCtx) -> int:
    return ctx.total + (1 if state.options.active_blocks == "gt" else 0)


def _difficulty(state: BattleState, roll: PendingRoll) -> int:
    if roll.purpose == ATAQUE:
        return attack_need(state, state.data["attack"])
    if roll.purpose == DEFENSA:
        return block_need(state, state.data["attack"])
    return int(state.options.aguante_difficulty)


def judge_pending(state: BattleState, roll: PendingRoll) -> SkillResult:
    return judge(roll.faces, roll.bonus, _difficulty(state, roll))


def expres_can_matter(state: BattleState, roll: PendingRoll) -> bool:
    """Offer the after-roll Dado Exprés only where a third die could change something.

    *(default)* it never turns a crítico or a pifia into anything else (S2-03 is judged
    on the natural dice), so those rolls are not offered one.
    """
    result = judge_pending(state, roll)
    if result.critical or result.fumble:
        return False
    if roll.purpose == ATAQUE:
        if not result.success:
            return True
        # A higher total still matters against an active defence still to come.
        target = state.get(state.data["attack"].target)
        return target.active and target.resources["defensas"] > 0
    if roll.purpose == DEFENSA:
        return not result.success and not state.data["attack"].critical
    # Aguante: exactly the difficulty stuns, below it calls for a GDF roll (S2-14).
    return result.total <= result.difficulty


# -- rolls and Dados Exprés ---------------------------------------------------------


def start_roll(
    rs: Sistema2d10, state: BattleState, roll: PendingRoll, roller: Roller
) -> list[Event]:
    """S2-05 "Se puede declarar su uso antes ... de realizar la tirada": a decision of the
    roller's side whenever the roller holds a Dado Exprés."""
    c = state.get(roll.roller)
    if c.resources["dados_expres"] > 0:
        state.data["roll"] = roll
        state.pending = Decision(
            DecisionKind.CHOICE,
            c.id,
            c.side,
            EXPRES_BEFORE,
            _f(
                "{c}: spend a Dado Exprés on the {purpose} roll before rolling?",
                c.name,
                _(PURPOSE_TEXT[roll.purpose]),
            ),
        )
        return []
    return roll_dice(rs, state, roll, False, roller)


def roll_dice(
    rs: Sistema2d10, state: BattleState, roll: PendingRoll, spend: bool, roller: Roller
) -> list[Event]:
    c = state.get(roll.roller)
    purpose = PURPOSE_TEXT[roll.purpose]
    faces = (roller.roll(10, purpose), roller.roll(10, purpose))
    if spend:
        c.resources["dados_expres"] -= 1
        faces += (roller.roll(10, EXPRES_TEXT[roll.purpose]),)
    roll = replace(roll, faces=faces, expres=spend)
    result = judge_pending(state, roll)
    expres = f" + Dado Exprés {faces[2]}" if spend else ""
    events: list[Event] = [
        Rolled(
            _f(
                "{c} rolls {purpose}: 2d10 [{a}, {b}]{expres} {bonus:+d} (MHC+MS) = {total} vs "
                "{difficulty}: {label}.",
                c.name,
                _(PURPOSE_TEXT[roll.purpose]),
                faces[0],
                faces[1],
                expres,
                roll.bonus,
                result.total,
                result.difficulty,
                result.label,
            ),
            c.id,
            roll.purpose,
            faces,
            result.total,
        )
    ]
    # S2-05 "... o después de realizar la tirada".
    if not spend and c.resources["dados_expres"] > 0 and expres_can_matter(state, roll):
        state.data["roll"] = roll
        state.pending = Decision(
            DecisionKind.CHOICE,
            c.id,
            c.side,
            EXPRES_AFTER,
            _f(
                "{c}: add a Dado Exprés to the {purpose} total of {total}?",
                c.name,
                _(PURPOSE_TEXT[roll.purpose]),
                result.total,
            ),
        )
        return events
    return events + finish_roll(rs, state, roll, roller)


def expres_decided(rs: Sistema2d10, state: BattleState, spend: bool, roller: Roller) -> list[Event]:
    roll: PendingRoll = state.data["roll"]
    state.data["roll"] = None
    if not roll.faces:
        return roll_dice(rs, state, roll, spend, roller)
    if not spend:
        return finish_roll(rs, state, roll, roller)
    c = state.get(roll.roller)
    c.resources["dados_expres"] -= 1
    extra = roller.roll(10, EXPRES_TEXT[roll.purpose])
    roll = replace(roll, faces=(*roll.faces, extra), expres=True)
    result = judge_pending(state, roll)
    events: list[Event] = [
        Rolled(
            _f(
                "{c} adds a Dado Exprés to the {purpose}: {extra}; total {total} vs {difficulty}: "
                "{label}.",
                c.name,
                _(PURPOSE_TEXT[roll.purpose]),
                extra,
                result.total,
                result.difficulty,
                result.label,
            ),
            c.id,
            _(EXPRES_TEXT[roll.purpose]),
            (extra,),
            result.total,
        )
    ]
    return events + finish_roll(rs, state, roll, roller)


def finish_roll(
    rs: Sistema2d10, state: BattleState, roll: PendingRoll, roller: Roller
) -> list[Event]:
    state.data["roll"] = None
    if roll.purpose == ATAQUE:
        return _attack_judged(rs, state, roll, roller)
    if roll.purpose == DEFENSA:
        return _defence_judged(rs, state, roll, roller)
    return _aguante_judged(rs, state, roll, roller)


# -- the attack ---------------------------------------------------------------------


def begin_attack(
    rs: Sistema2d10,
    state: BattleState,
    attacker: Combatant,
    target: Combatant,
    weapon_name: str,
    aim: str | None,
    roller: Roller,
) -> list[Event]:
    weapon = profile(attacker).weapon(weapon_name)
    aim_ms = (tables(state).aim_modifier(aim) or 0) if aim is not None else 0
    ms = aim_ms + roll_penalty(attacker, physical=True)
    ctx = AttackCtx(attacker.id, target.id, weapon.name, aim)
    state.data["attack"] = ctx
    aimed = _f(", aiming at the {aim} (MS {ms:+d}, S2-13)", aim, aim_ms) if aim else ""
    events: list[Event] = [
        Note(
            _f(
                "{attacker} attacks {target} with {weapon}{aimed}.",
                attacker.name,
                target.name,
                weapon.name,
                aimed,
            )
        )
    ]
    roll = PendingRoll(ATAQUE, attacker.id, weapon.mhc + ms)
    return events + start_roll(rs, state, roll, roller)


def _attack_judged(
    rs: Sistema2d10, state: BattleState, roll: PendingRoll, roller: Roller
) -> list[Event]:
    ctx: AttackCtx = state.data["attack"]
    result = judge_pending(state, roll)
    attacker, target = state.get(ctx.attacker), state.get(ctx.target)
    if not result.success:
        state.data["attack"] = None
        why = (
            _("a pifia always fails")
            if result.fumble
            else _("it does not reach the defensa pasiva")
        )
        return [
            AttackResolved(
                _f(
                    "{attacker} misses {target}: {why} ({difficulty}).",
                    attacker.name,
                    target.name,
                    why,
                    result.difficulty,
                ),
                attacker.id,
                target.id,
                ctx.weapon,
                False,
            ),
            *resume(rs, state, roller),
        ]
    ctx = replace(ctx, total=result.total, critical=result.critical)
    state.data["attack"] = ctx
    if target.active and target.resources["defensas"] > 0:
        # S2-08 "si se supera su defensa pasiva ... el personaje tiene derecho a defenderse
        # activamente ... de tantos ataques como acciones tenga".
        state.pending = Decision(
            DecisionKind.REACTION,
            target.id,
            target.side,
            ACTIVE_DEFENCE,
            _f(
                "{t}: defend actively against {c}'s {weapon} (attack total {total})?",
                target.name,
                attacker.name,
                ctx.weapon,
                ctx.total,
            ),
        )
        return [
            Note(
                _f(
                    "The attack ({total}) beats {target}'s defensa pasiva.",
                    result.total,
                    target.name,
                )
            )
        ]
    return land_hit(rs, state, roller)


def defence_decided(
    rs: Sistema2d10, state: BattleState, defend: bool, roller: Roller
) -> list[Event]:
    ctx: AttackCtx = state.data["attack"]
    if not defend:
        return [
            Note(_f("{name} takes the blow.", state.get(ctx.target).name)),
            *land_hit(rs, state, roller),
        ]
    target = state.get(ctx.target)
    # "Cada defensa activa consume uno de sus turnos en la fase defensiva, sin afectar a
    # la fase ofensiva".
    target.resources["defensas"] -= 1
    kind = profile(state.get(ctx.attacker)).weapon(ctx.weapon).kind
    roll = PendingRoll(DEFENSA, target.id, defence_bonus(state, target, kind))
    return start_roll(rs, state, roll, roller)


def _defence_judged(
    rs: Sistema2d10, state: BattleState, roll: PendingRoll, roller: Roller
) -> list[Event]:
    ctx: AttackCtx = state.data["attack"]
    result = judge_pending(state, roll)
    # *(default)* a crítico attack is only stopped by a crítico defence.
    blocked = result.critical if ctx.critical else result.success
    if blocked:
        state.data["attack"] = None
        return [
            AttackResolved(
                _f(
                    "{name} blocks the attack (defensa activa {total} vs {attack}).",
                    state.get(ctx.target).name,
                    result.total,
                    ctx.total,
                ),
                ctx.attacker,
                ctx.target,
                ctx.weapon,
                False,
            ),
            *resume(rs, state, roller),
        ]
    return land_hit(rs, state, roller)


def land_hit(rs: Sistema2d10, state: BattleState, roller: Roller) -> list[Event]:
    """S2-11 damage − CA, S2-12 location and multiplier, then damage off the PV."""
    ctx: AttackCtx = state.data["attack"]
    state.data["attack"] = None
    attacker, target = state.get(ctx.attacker), state.get(ctx.target)
    weapon = profile(attacker).weapon(ctx.weapon)
    events: list[Event] = [
        AttackResolved(
            _f("{attacker} hits {target} with {weapon}.", attacker.name, target.name, weapon.name),
            attacker.id,
            target.id,
            weapon.name,
            True,
        )
    ]
    # "En ningún caso podrán utilizarse los dados exprés en las tiradas de daño."
    raw, faces = weapon.damage.roll(roller, N_("damage"))
    ca = target.stats.ca
    absorbed = max(0, raw - ca)
    table = tables(state)
    if ctx.aim is not None:
        # S2-13 *(default)* an aimed attack that hits lands where it was aimed.
        location, multiplier, where = ctx.aim, table.multiplier(ctx.aim), _("aimed")
    else:
        face = roller.roll(10, N_("hit location"))
        loc = table.location_by_face[face - 1]
        location, multiplier, where = loc.name, loc.multiplier, f"d10 {face}"
        events.append(
            Rolled(
                _f("Hit location 1d10: {face} = {location}.", face, location),
                attacker.id,
                "localizacion",
                (face,),
                face,
            )
        )
    damage = absorbed * multiplier
    mult = f" ×{multiplier} ({location})" if multiplier != 1 else f" ({location})"
    events.append(
        Rolled(
            _f(
                "Daño {dano} [{faces}] = {raw} − CA {ca} = {absorbed}{mult} → {damage} ({where}).",
                weapon.damage,
                ", ".join(map(str, faces)),
                raw,
                ca,
                absorbed,
                mult,
                damage,
                where,
            ),
            attacker.id,
            "daño",
            faces,
            raw,
        )
    )
    return events + take_damage(rs, state, target, damage, attacker.id, roller, location)


def take_damage(
    rs: Sistema2d10,
    state: BattleState,
    target: Combatant,
    damage: int,
    source: str,
    roller: Roller,
    location: str | None = None,
) -> list[Event]:
    before = target.resources["pv"]
    target.resources["pv"] = max(0, before - damage)
    after = target.resources["pv"]
    events: list[Event] = [
        Damaged(
            (
                _f(
                    "{target} loses {lost} Punto de Vitalidad ({after} left).",
                    target.name,
                    1,
                    after,
                )
                if before - after == 1
                else _f(
                    "{target} loses {lost} Puntos de Vitalidad ({after} left).",
                    target.name,
                    before - after,
                    after,
                )
            ),
            target.id,
            before - after,
            "pv",
            source,
            after,
        )
    ]
    if after == 0:
        # *(default)* 0 PV: out of the fight (the seed does not say what 0 PV means).
        events.append(
            rs.set_status(target, Status.DOWN, _f("{target} falls at 0 PV.", target.name), source)
        )
        return events + resume(rs, state, roller)
    if damage > 0 and 2 * damage >= before:
        # S2-14 "El personaje que pierda ... la mitad o más de sus Puntos de Vitalidad
        # actuales deberá realizar una prueba de Aguante".
        events.append(
            Note(_f("{target} lost half or more of their PV: prueba de Aguante.", target.name))
        )
        roll = PendingRoll(
            AGUANTE,
            target.id,
            profile(target).aguante + roll_penalty(target, physical=False),
            location=location,
        )
        return events + start_roll(rs, state, roll, roller)
    return events + resume(rs, state, roller)


def _aguante_judged(
    rs: Sistema2d10, state: BattleState, roll: PendingRoll, roller: Roller
) -> list[Event]:
    c = state.get(roll.roller)
    result = judge_pending(state, roll)
    events: list[Event] = []
    if result.critical or (not result.fumble and result.total > result.difficulty):
        events.append(Note(_f("{c} shrugs off the pain.", c.name)))
    elif not result.fumble and result.total == result.difficulty:
        # "Si se obtiene un 16 quedará Aturdido durante el siguiente turno".
        events.append(stun(c, STUNNED_16, int(state.options.stun_penalty), NEXT_TURN))
    else:
        face = roller.roll(10, "GDF")
        effect = tables(state).gdf_by_face[face - 1]
        events.append(
            Rolled(
                _f(
                    "{c} fails the Aguante test: GDF 1d10 = {face} ({effect}).",
                    c.name,
                    face,
                    effect.effect,
                ),
                c.id,
                "gdf",
                (face,),
                face,
            )
        )
        events += apply_gdf(rs, state, c, effect, roller, roll.location)
    return events + resume(rs, state, roller)


def _until(old: Condition | None, duration: str) -> str:
    """A condition hit again lasts as long as the longer of the two."""
    if old is not None and old.until == UNTIL_HEALED:
        return UNTIL_HEALED
    return duration


def _lasting(duration: str) -> str:
    if duration == UNTIL_HEALED:
        # S2-15 "duran hasta que el daño es sanado"; nothing heals within a battle, so
        # it is the rest of the battle unless the GM removes the condition.
        return _("until healed")
    return _("until the end of their next turn")


def _set(c: Combatant, name: str, value: int, duration: str) -> Condition:
    cond = Condition(name, value, persistent=duration == UNTIL_HEALED, until=duration)
    c.conditions[name] = cond
    return cond


def stun(c: Combatant, name: str, ms: int, duration: str) -> Event:
    """Aturdido: the GDF's (``name`` :data:`STUNNED`) or S2-14's (:data:`STUNNED_16`).

    The same stun twice keeps the worse MS and the longer duration; the two stuns are
    kept apart and :func:`stun_penalty` applies the worse of them.
    """
    old = c.conditions.get(name)
    value = min(ms, old.value) if old is not None else ms
    cond = _set(c, name, value, _until(old, duration))
    why = _("S2-14, an Aguante test of exactly 16") if name == STUNNED_16 else "GDF, S2-15"
    text = _f(
        "{c} is aturdido (MS {value:+d}, {why}) {lasting}.",
        c.name,
        value,
        why,
        _lasting(cond.until or ""),
    )
    other = c.conditions.get(STUNNED if name == STUNNED_16 else STUNNED_16)
    if other is not None:
        text += _f(" The two stuns do not add up: the worse applies (MS {ms:+d}).", stun_penalty(c))
    return ConditionApplied(text, c.id, name, value)


def _stack(c: Combatant, name: str, value: int, duration: str) -> Condition:
    old = c.conditions.get(name)
    total = min(99, value + (old.value if old is not None else 0))
    return _set(c, name, total, _until(old, duration))


def incapacitate(c: Combatant, effect: GdfEffect, location: str | None) -> Event:
    """S2-15 "El miembro afectado queda inutilizado", by where the blow landed (S2-12)."""
    name = f"{INCAPACITATED}_{location}" if location else INCAPACITATED
    leg = name in _LEG_NAMES
    value = 0 if leg else effect.value
    old = c.conditions.get(name)
    if old is not None:
        value = min(value, old.value)
    cond = _set(c, name, value, _until(old, effect.duration))
    part = location or _("a limb")
    if leg:
        # "No poder andar por tener una pierna incapacitada".
        what = _("cannot move between zones (no MS)")
    elif location in ARMS:
        # "tener que luchar con la mano contraria a la habitual aplicando los MS pertinentes".
        what = _f("fights with the other hand: MS {value:+d} to attack and active defence", value)
    else:
        what = _f("MS {value:+d} to attack and active defence (default reading)", value)
    total = limb_penalty(c)
    if total != value and not leg:
        what += _f(" ({total:+d} with the other incapacitated parts)", total)
    return ConditionApplied(
        _f(
            "{c}'s {part} is incapacitado (GDF, S2-15): {what}, {lasting}.",
            c.name,
            part,
            what,
            _lasting(cond.until or ""),
        ),
        c.id,
        name,
        value,
    )


def apply_gdf(
    rs: Sistema2d10,
    state: BattleState,
    c: Combatant,
    effect: GdfEffect,
    roller: Roller,
    location: str | None = None,
) -> list[Event]:
    """S2-15: "Los efectos indicados en la tabla duran hasta que el daño es sanado" — each
    row's ``duracion`` (until healed by default)."""
    kind = effect.effect
    if kind == "aturdido":
        return [stun(c, STUNNED, effect.value, effect.duration)]
    if kind in ("sangrado", "derribado"):
        cond = _stack(c, kind, effect.value, effect.duration)
        text = (
            _("{c} bleeds ({value} PV per turn, {lasting}).")
            if kind == "sangrado"
            else _("{c} is knocked down ({value} action(s) lost each turn, {lasting}).")
        )
        return [
            ConditionApplied(
                text.format(c=c.name, value=cond.value, lasting=_lasting(cond.until or "")),
                c.id,
                kind,
                cond.value,
            )
        ]
    if kind == "incapacitado":
        return [incapacitate(c, effect, location)]
    if kind == "inconsciente":
        return [rs.set_status(c, Status.DOWN, _f("{c} falls inconsciente (GDF).", c.name))]
    assert effect.dice is not None
    turns, faces = effect.dice.roll(roller, N_("moribundo: rounds left"))
    c.conditions["moribundo"] = Condition("moribundo", turns, persistent=True)
    return [
        rs.set_status(c, Status.DOWN, _f("{c} is moribundo (GDF).", c.name)),
        ConditionApplied(
            _f(
                "{c} will die in {turns} round(s) untreated ({dice} {faces}).",
                c.name,
                turns,
                effect.dice,
                list(faces),
            ),
            c.id,
            "moribundo",
            turns,
        ),
    ]


# -- turns and rounds ---------------------------------------------------------------


def resume(rs: Sistema2d10, state: BattleState, roller: Roller) -> list[Event]:
    """Hand the turn back to its owner, or move on when the owner is out of actions."""
    events = rs.check_end(state)
    if state.outcome is not None:
        return events
    actor = state.get(state.order[state.turn])
    if actor.active and actor.resources["acciones"] > 0:
        state.pending = Decision(DecisionKind.TURN, actor.id, actor.side, TURN)
        return events
    return events + end_turn(state, actor) + next_turn(rs, state, roller)


def end_turn(state: BattleState, c: Combatant) -> list[Event]:
    c.resources["acciones"] = 0
    events: list[Event] = []
    for name in [n for n, cond in c.conditions.items() if cond.until == NEXT_TURN]:
        # "quedará Aturdido durante el siguiente turno" (and a GDF row that lasts as
        # long): over once that turn is played.
        del c.conditions[name]
        events.append(
            ConditionEnded(
                _f("{c} is no longer {name} (it lasted one turn).", c.name, name),
                c.id,
                name,
            )
        )
    return events


def _round_start(rs: Sistema2d10, state: BattleState) -> list[Event]:
    events: list[Event] = []
    for c in state.combatants:
        if c.active:
            # S2-08/S2-10: one active defence per action per round; extra actions from
            # Técnicas "no otorga una acción refleja de defensa".
            c.resources["defensas"] = c.stats.actions
        dying = c.conditions.get("moribundo")
        if dying is not None and c.status is Status.DOWN:
            left = dying.value - 1
            if left <= 0:
                del c.conditions["moribundo"]
                events.append(
                    rs.set_status(c, Status.DEAD, _f("{c} dies of their wounds.", c.name))
                )
            else:
                c.conditions["moribundo"] = Condition("moribundo", left, persistent=True)
    return events


def _start_turn(rs: Sistema2d10, state: BattleState, c: Combatant) -> list[Event]:
    events: list[Event] = [TurnStarted(_f("{c}'s turn.", c.name), c.id, state.round)]
    if "defensa_completa" in c.conditions:
        del c.conditions["defensa_completa"]
        events.append(
            ConditionEnded(_f("{c} leaves full defence.", c.name), c.id, "defensa_completa")
        )
    actions = c.stats.actions + c.stats.extra_actions
    knocked = c.conditions.get("derribado")
    if knocked is not None:
        # GDF 8 "loses an action", every turn the effect lasts (S2-15).
        actions -= knocked.value
        events.append(
            Note(_f("{c} is derribado: loses {value} action(s) this turn.", c.name, knocked.value))
        )
    c.resources["acciones"] = max(0, actions)
    bleed = c.conditions.get("sangrado")
    if bleed is not None:
        before = c.resources["pv"]
        c.resources["pv"] = max(0, before - bleed.value)
        events.append(
            Damaged(
                _f(
                    "{c} bleeds {lost} PV ({pv} left).",
                    c.name,
                    before - c.resources["pv"],
                    c.resources["pv"],
                ),
                c.id,
                before - c.resources["pv"],
                "pv",
                "sangrado",
                c.resources["pv"],
            )
        )
        if c.resources["pv"] == 0:
            events.append(rs.set_status(c, Status.DOWN, _f("{c} bleeds out and falls.", c.name)))
            events += rs.check_end(state)
    return events


def next_turn(rs: Sistema2d10, state: BattleState, roller: Roller) -> list[Event]:
    """Advance to the next combatant in initiative order who can act (S2-06)."""
    events: list[Event] = []
    state.data["attack"] = None
    while True:
        state.turn += 1
        if state.turn >= len(state.order):
            events += rs.begin_round(state)
            if state.outcome is not None:
                return events
            events += _round_start(rs, state)
            state.turn = 0
        c = state.get(state.order[state.turn])
        if not c.active:
            continue
        events += _start_turn(rs, state, c)
        if state.outcome is not None:
            return events
        if c.active and c.resources["acciones"] > 0:
            state.data["fresh"] = True
            state.pending = Decision(DecisionKind.TURN, c.id, c.side, TURN)
            return events
        if c.active:
            events.append(Note(_f("{c} has no actions this turn.", c.name)))
            events += end_turn(state, c)
