"""Sistema 2d10's combat vocabulary and conditions: the decisions and rolls by name, the
roll and the attack in flight (``state.data``'s frozen values), the modifiers conditions
give (MS), the defences (S2-08, S2-09) and the GDF's effects (S2-15, seed "Reglas
avanzadas de combate").

The flow that uses them is in :mod:`.attack` (an attack from its roll to its wound) and
:mod:`.turns` (turns and rounds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from escaramuza.rules.core.dice import Roller
from escaramuza.rules.core.events import ConditionApplied, Event
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import Combatant, Condition, Status
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.sistema_2d10.rolls import SkillResult, judge
from escaramuza.rules.sistema_2d10.sheets import Profile
from escaramuza.rules.sistema_2d10.tables import (
    ARMS,
    LEGS,
    LOCATIONS,
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
#: applies, S2-15).
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
MS_FLOOR = -10


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


def stun_penalty(c: Combatant, own_turn: bool) -> int:
    """The MS of being aturdido on a roll of ``c``'s: the worse of the GDF's stun and, on
    a roll in ``c``'s own turn, S2-14's exact-16 stun (they do not add up, S2-15).

    S2-14 "quedará Aturdido durante el siguiente turno": that stun comes in another's
    turn (the blow is the attacker's) and is over at the end of its bearer's next turn,
    so it weighs on the rolls of that turn alone, not on those made before it.
    """
    ms = 0
    for name in (STUNNED, STUNNED_16) if own_turn else (STUNNED,):
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
    return max(MS_FLOOR, ms)


def lame(c: Combatant) -> bool:
    """S2-15 "No poder andar por tener una pierna incapacitada": no moving between zones."""
    return any(name in _LEG_NAMES for name in c.conditions)


def roll_penalty(c: Combatant, purpose: str) -> int:
    """MS from conditions on a roll of ``purpose`` (:data:`ATAQUE`, :data:`DEFENSA`,
    :data:`AGUANTE`): aturdido on every roll; incapacitado on attack and active defence.

    Seed: "El aturdimiento generalmente causa un Modificador de situación (MS) negativo";
    an incapacitated part penalises attack and active defence rolls as
    :func:`limb_penalty` says, not the Aguante test. The attack is the one roll made in
    the roller's own turn (active defence and Aguante come in the attacker's), so it
    alone bears S2-14's stun (:func:`stun_penalty`).
    """
    ms = stun_penalty(c, own_turn=purpose == ATAQUE)
    return ms + (limb_penalty(c) if purpose != AGUANTE else 0)


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
    bonus = profile(target).defence(kind) + roll_penalty(target, DEFENSA)
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


# -- the GDF's effects (S2-15) --------------------------------------------------------


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
    if name == STUNNED_16:
        why, lasting = _("S2-14, an Aguante test of exactly 16"), _("during their next turn")
    else:
        why, lasting = "GDF, S2-15", _lasting(cond.until or "")
    text = _f("{c} is aturdido (MS {value:+d}, {why}) {lasting}.", c.name, value, why, lasting)
    other = c.conditions.get(STUNNED if name == STUNNED_16 else STUNNED_16)
    if other is not None:
        ms = stun_penalty(c, own_turn=True)
        text += _f(" The two stuns do not add up: the worse applies (MS {ms:+d}).", ms)
    return ConditionApplied(text, c.id, name, value)


#: The most a stacked bleed or fall reaches (:func:`_stack`).
MAX_STACK = 99


def _stack(c: Combatant, name: str, value: int, duration: str) -> Condition:
    old = c.conditions.get(name)
    total = min(MAX_STACK, value + (old.value if old is not None else 0))
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
