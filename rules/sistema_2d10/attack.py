"""An attack from its roll to its wound (seed sections "Combate" and "Reglas avanzadas de
combate"): each skill roll in flight with its Dados Exprés (S2-05), the attack against
the defensa pasiva and the active defence (S2-08), damage, hit location and aimed attacks
(S2-11 … S2-13), and the Aguante test that may call for a GDF roll (S2-14).

Every step either sets the next pending decision and returns, or runs to
:func:`~escaramuza.rules.sistema_2d10.turns.resume`, which hands the turn back to its
owner or moves to the next turn. The in-flight roll and attack live in ``state.data`` as
frozen values (:class:`~escaramuza.rules.sistema_2d10.combat.PendingRoll`,
:class:`~escaramuza.rules.sistema_2d10.combat.AttackCtx`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import AttackResolved, Damaged, Event, Note, Rolled
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import Combatant, Decision, DecisionKind, Status
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.sistema_2d10.combat import (
    ACTIVE_DEFENCE,
    AGUANTE,
    ATAQUE,
    DEFENSA,
    EXPRES_AFTER,
    EXPRES_BEFORE,
    EXPRES_TEXT,
    PURPOSE_TEXT,
    STUNNED_16,
    AttackCtx,
    PendingRoll,
    apply_gdf,
    defence_bonus,
    expres_can_matter,
    judge_pending,
    profile,
    roll_penalty,
    stun,
    tables,
)
from escaramuza.rules.sistema_2d10.tables import NEXT_TURN
from escaramuza.rules.sistema_2d10.turns import resume

if TYPE_CHECKING:
    from escaramuza.rules.sistema_2d10.ruleset import Sistema2d10

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
    ms = aim_ms + roll_penalty(attacker, ATAQUE)
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
            profile(target).aguante + roll_penalty(target, AGUANTE),
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
        # "Si se obtiene un 16 quedará Aturdido durante el siguiente turno": its MS weighs
        # on the rolls of that turn alone (combat.stun_penalty), from its start to its end.
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
