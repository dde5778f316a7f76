"""Cairn heuristic: spread the dice, shoot from cover, close in, run when broken.

* CA-06 makes piling on wasteful: "se tiran todos los dados de daño y se conserva
  el resultado más alto". An attack is scored by what it ADDS to the dice other
  members of the side already declared on that target (exact, from
  :mod:`escaramuza.rules.cairn.exact`): the gain in the chance the target is out
  of the fight, plus a little for expected damage. A second die on a target only
  wins when it is what drops it.
* Ranged combatants out of cover move into a cover zone (CA-07: shots at them
  become Impedido) unless a shot is clearly better; melee combatants close in.
* When the side is broken (fewer than half still fighting, or a lone fighter at
  0 PI) it retreats through an exit zone (CA-17).
"""

from __future__ import annotations

import random
from fractions import Fraction

from escaramuza.rules.cairn.combat import (
    attack_dice,
    blast_targets,
    is_blast,
    weapon_named,
    weapons_of,
)
from escaramuza.rules.cairn.exact import expected_damage, out_probability
from escaramuza.rules.core.model import Action, Combatant
from escaramuza.rules.core.state import BattleState

#: Weight of one point of expected damage against a whole chance of dropping the target.
DAMAGE_WEIGHT = 0.03
#: Value of one cover level for a ranged combatant.
COVER_WEIGHT = 0.08
#: Value of one hop closer to the nearest enemy for a melee combatant.
CLOSE_WEIGHT = 0.05


def declared_pools(state: BattleState) -> dict[str, list[int]]:
    """Dice already aimed at each target by the side's earlier declarations."""
    pools: dict[str, list[int]] = {}
    for a in state.data.get("declared", ()):
        if a.verb != "atacar" or a.target is None or a.item is None:
            continue
        attacker, target = state.by_id[a.actor], state.by_id[a.target]
        weapon = weapon_named(attacker, a.item)
        hit = (blast_targets(state, attacker, target, weapon)
               if is_blast(attacker, target, weapon) else [target])
        for t in hit:
            pools.setdefault(t.id, []).extend(attack_dice(state, attacker, t, weapon)[0])
    return pools


def _value(state: BattleState, target: Combatant, dice: list[int]) -> Fraction:
    pi, fue, armour = target.resources["pi"], target.resources["fue"], target.stats.armadura
    if not dice:
        return Fraction(0)
    return out_probability(dice, armour, pi, fue, target.pc, state.options.scars) + Fraction(
        DAMAGE_WEIGHT
    ) * expected_damage(dice, armour, pi, fue)


def attack_gain(
    state: BattleState, me: Combatant, action: Action, pools: dict[str, list[int]]
) -> float:
    """What this attack adds on top of the dice already declared (CA-06)."""
    assert action.target is not None and action.item is not None
    target = state.by_id[action.target]
    weapon = weapon_named(me, action.item)
    hit = (blast_targets(state, me, target, weapon)
           if is_blast(me, target, weapon) else [target])
    gain = Fraction(0)
    for t in hit:
        before = pools.get(t.id, [])
        mine = list(attack_dice(state, me, t, weapon)[0])
        gain += _value(state, t, before + mine) - _value(state, t, before)
    return float(gain)


def side_broken(state: BattleState, me: Combatant) -> bool:
    members = [c for c in state.combatants if c.side is me.side]
    active = sum(1 for c in members if c.active)
    if len(members) == 1:
        return me.resources["pi"] == 0
    return 2 * active < len(members)


def _nearest_enemy(state: BattleState, me: Combatant, zone: str) -> int:
    hops = [state.battlefield.distance(zone, c.zone)
            for c in state.combatants if c.active and c.side is not me.side]
    return min(hops) if hops else 0


def move_score(state: BattleState, me: Combatant, zone: str) -> float:
    bf = state.battlefield
    ranged = [w for w in weapons_of(me) if w.ranged]
    enemies_there = sum(1 for c in state.combatants
                        if c.active and c.side is not me.side and c.zone == zone)
    reach = max((w.reach for w in ranged), default=-1)
    if ranged and _nearest_enemy(state, me, me.zone) <= reach:
        if bf.zones[me.zone].cover > 0:
            return -0.01  # already in cover with a shot: stay and shoot
        if _nearest_enemy(state, me, zone) > reach:
            return -0.01
        return COVER_WEIGHT * bf.zones[zone].cover - 0.1 * enemies_there
    # Nothing in reach (or melee only): close in.
    closer = _nearest_enemy(state, me, me.zone) - _nearest_enemy(state, me, zone)
    return CLOSE_WEIGHT * closer - 0.001 * bf.distance(me.zone, zone)


def _retreat(state: BattleState, me: Combatant, actions: list[Action]) -> Action | None:
    for a in actions:
        if a.verb == "huir":
            return a
    bf = state.battlefield
    exits = bf.exits()
    if not exits:
        return None
    best: tuple[int, Action] | None = None
    here = min(bf.distance(me.zone, z) for z in exits)
    for a in actions:
        if a.verb == "mover" and a.zone is not None:
            d = min(bf.distance(a.zone, z) for z in exits)
            if d < here and (best is None or d < best[0]):
                best = (d, a)
    return best[1] if best else None


def choose(state: BattleState, actions: list[Action], rng: random.Random) -> Action:
    me = state.acting
    assert me is not None
    if side_broken(state, me):
        retreat = _retreat(state, me, actions)
        if retreat is not None:
            return retreat
    pools = declared_pools(state)
    scored: list[tuple[float, Action]] = []
    for a in actions:
        if a.verb == "atacar":
            score = attack_gain(state, me, a, pools)
        elif a.verb == "mover" and a.zone is not None:
            score = move_score(state, me, a.zone)
        elif a.verb == "huir":
            score = -1.0
        else:
            score = 0.0
        scored.append((score, a))
    top = max(s for s, _ in scored)
    best = [a for s, a in scored if s >= top - 1e-12]
    return best[rng.randrange(len(best))]
