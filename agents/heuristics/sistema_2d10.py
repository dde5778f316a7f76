"""Scripted heuristic for Sistema 2d10, built on the ruleset's exact helpers.

* Attacks the (target, weapon, aim) with the best expected share of the target's PV
  removed: P(hit) past the defensa pasiva and the active defence still open to the
  target, times the expected damage at the aimed location (or averaged over the d10
  location table) — so it aims when the location multiplier outweighs the MS.
* Defends actively when the blow is likely to hurt (P(damage − CA > 0) ≥ ½) and the
  defence has a real chance.
* Never spends a Dado Exprés before a roll (after is never worse); after a roll it
  spends one when the third die flips the result with probability ≥ 40 %.
* Otherwise closes in (or into range), gives a spare Dado Exprés to an ally who has
  none, and falls back to full defence.
"""

from __future__ import annotations

import random

from escaramuza.rules.core.model import Action, Combatant
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.sistema_2d10 import combat
from escaramuza.rules.sistema_2d10.exact import (
    block_probability,
    hit_probability,
    location_expected_damage,
)

#: Spend a Dado Exprés after the roll when it flips the result this often.
FLIP_THRESHOLD = 0.4
#: Defend actively when the blow hurts at least this often ...
HURT_THRESHOLD = 0.5
#: ... and the active defence blocks at least this often.
BLOCK_THRESHOLD = 0.05


def _by_verb(actions: list[Action], verb: str) -> Action | None:
    return next((a for a in actions if a.verb == verb), None)


def p_hurts(state: BattleState) -> float:
    """P(the attack in flight does damage once it lands)."""
    ctx: combat.AttackCtx = state.data["attack"]
    weapon = combat.profile(state.get(ctx.attacker)).weapon(ctx.weapon)
    ca = state.get(ctx.target).stats.ca
    return sum(p for v, p in weapon.dano.distribution().items() if v > ca)


def _defend(state: BattleState, actions: list[Action]) -> Action:
    ctx: combat.AttackCtx = state.data["attack"]
    target = state.get(ctx.target)
    tipo = combat.profile(state.get(ctx.attacker)).weapon(ctx.weapon).tipo
    p_block = block_probability(
        combat.defence_bonus(state, target, tipo),
        ctx.total,
        ctx.critical,
        state.options.active_blocks,
        "after" if target.resources["dados_expres"] > 0 else "none",
    )
    defend = p_hurts(state) >= HURT_THRESHOLD and p_block >= BLOCK_THRESHOLD
    return actions[0] if defend and actions[0].verb == "defender" else actions[-1]


def flip_chance(state: BattleState) -> float:
    """P(a Dado Exprés added now turns the pending roll's failure into a success)."""
    roll: combat.PendingRoll = state.data["roll"]
    result = combat.judge_pending(state, roll)
    if result.critical or result.fumble:
        return 0.0
    if roll.purpose == combat.AGUANTE and result.total == result.difficulty:
        return 1.0  # any die lifts a stun (exactly 16) into no effect (S2-14)
    if result.success:
        return 0.0
    need = result.difficulty - result.total
    return max(0, 11 - need) / 10 if need <= 10 else 0.0


def _expres(state: BattleState, actions: list[Action]) -> Action:
    pending = state.pending
    assert pending is not None
    spend = pending.name == combat.EXPRES_AFTER and flip_chance(state) >= FLIP_THRESHOLD
    verb = "gastar_dado" if spend else "no_gastar"
    return _by_verb(actions, verb) or actions[-1]


def attack_value(state: BattleState, action: Action) -> float:
    """Expected share of the target's current PV the attack removes."""
    actor = state.get(action.actor)
    target = state.get(action.target or "")
    weapon = combat.profile(actor).weapon(action.item or "")
    tables = combat.tables(state)
    aim = None if action.option in (None, "libre") else action.option
    ms = (tables.aim_modifier(aim) or 0) if aim else 0
    bonus = weapon.mhc + ms + combat.roll_penalty(actor, physical=True)
    passive = combat.passive_defence(state, target, weapon.tipo)
    defence = (
        combat.defence_bonus(state, target, weapon.tipo)
        if target.resources["defensas"] > 0
        else None
    )
    p_hit = float(
        hit_probability(
            bonus, passive, defence, state.options.passive_beats, state.options.active_blocks
        )
    )
    damage = location_expected_damage(weapon.dano, target.stats.ca, tables, aim)
    pv = max(1, target.resources["pv"])
    return p_hit * min(1.0, damage / pv)


def _gap(state: BattleState, actor: Combatant, zone: str) -> int:
    """Hops still to cover from ``zone`` before the nearest foe is in reach of a weapon."""
    reach = max(w.alcance for w in combat.profile(actor).weapons)
    foes = [c for c in state.combatants if c.active and c.side is not actor.side]
    if not foes:
        return 0
    return min(max(0, state.battlefield.distance(zone, f.zone) - reach) for f in foes)


def _turn(state: BattleState, actions: list[Action], rng: random.Random) -> Action:
    actor = state.get(actions[0].actor)
    attacks = [a for a in actions if a.verb == "atacar"]
    if (
        actor.temperament in ("cautious", "coward")
        and actor.resources["pv"] * 3 <= actor.maxima["pv"]
    ):
        full = _by_verb(actions, "defensa_completa")
        if full is not None:
            return full
    if attacks:
        scored = [(attack_value(state, a), i) for i, a in enumerate(attacks)]
        best = max(v for v, _ in scored)
        if best > 0:
            top = [attacks[i] for v, i in scored if v >= best - 1e-12]
            return top[rng.randrange(len(top))] if len(top) > 1 else top[0]
    moves = [a for a in actions if a.verb == "mover"]
    here = _gap(state, actor, actor.zone)
    if moves and here > 0:
        best_move = min(moves, key=lambda a: _gap(state, actor, a.zone or actor.zone))
        if _gap(state, actor, best_move.zone or actor.zone) < here:
            return best_move
    gifts = [a for a in actions if a.verb == "ceder_dado"]
    if gifts and actor.resources["dados_expres"] >= 2:
        needy = [a for a in gifts if state.get(a.target or "").resources["dados_expres"] == 0]
        if needy:
            return needy[0]
    return _by_verb(actions, "defensa_completa") or _by_verb(actions, "pasar") or actions[-1]


def choose(state: BattleState, actions: list[Action], rng: random.Random) -> Action:
    pending = state.pending
    assert pending is not None
    if pending.name == combat.ACTIVE_DEFENCE:
        return _defend(state, actions)
    if pending.name in (combat.EXPRES_BEFORE, combat.EXPRES_AFTER):
        return _expres(state, actions)
    return _turn(state, actions, rng)
