"""Cairn heuristic for every temperament: spread the dice, take cover, run when broken.

All temperaments read the exact odds of :mod:`escaramuza.rules.cairn.exact`.

* ``tactician`` — CA-06 makes piling on wasteful: "se tiran todos los dados de daño
  y se conserva el resultado más alto". An attack is scored by what it ADDS to the
  dice other members of the side already declared on that target: the gain in the
  chance the target is out of the fight, plus a little for expected damage. A
  second die on a target only wins when it is what drops it (no focus fire).
  Ranged combatants out of cover move into a cover zone (CA-07: shots at them
  become Impedido) unless a shot is clearly better; melee combatants close in.
  When the side is broken (fewer than half still fighting, or a lone fighter at
  0 PI) it retreats through an exit zone (CA-17). Cairn has no reactions.
* ``brute`` — attacks the nearest enemy (same zone first, then one step away)
  with its hardest-hitting weapon, piling on or not; with nobody in reach it moves
  as close as it can. Never retreats.
* ``cautious`` — when hurt (PI below half, or any FUE lost) it withdraws: CA-17's
  retreat through an exit when the map has one (a mover two zones a turn is never
  caught, so stepping back for ever would only stall the fight); without an exit a
  shooter steps away from blades, into cover, and keeps shooting. A shooter keeps
  its range: out of an enemy's zone, in cover, then shoots (ranged attacks first).
  A melee fighter attacks what it can reach and otherwise advances through cover.
* ``coward`` — like ``cautious`` until hurt or until half its side is out of the
  fight; then it runs: ``huir`` (CA-17) when an exit is at hand, else a move
  towards the nearest exit, else away from the enemy; it fights only when cornered.
* ``protector`` — Cairn has no healing or shielding in a fight, so it engages
  whoever threatens its most hurt ally most (the enemy with the highest expected
  damage on that ally, from where it stands), moving to that ally when it cannot
  reach the threat; with no ally hurt it plays like the tactician.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from escaramuza.rules.cairn import combat
from escaramuza.rules.cairn.combat import (
    attack_dice,
    blast_targets,
    is_blast,
    weapon_named,
    weapons_of,
)
from escaramuza.rules.cairn.exact import expected_damage, out_probability
from escaramuza.rules.cairn.sheets import RANGED
from escaramuza.rules.core.model import Action, Combatant
from escaramuza.rules.core.state import BattleState

#: Weight of one point of expected damage against a whole chance of dropping the target:
#: exactly 3/100, so that a gain is a ratio of integers the compiled temperament computes
#: exactly too (the float 0.03 is 3/100 less about 1e-18, which broke exact ties apart
#: differently in the two).
DAMAGE_WEIGHT = Fraction(3, 100)
#: Value of one cover level for a ranged combatant.
COVER_WEIGHT = 0.08
#: Value of one hop closer to the nearest enemy for a melee combatant.
CLOSE_WEIGHT = 0.05

Strategy = Callable[[BattleState, Combatant, list[Action], random.Random], Action]


def declared_pools(state: BattleState) -> dict[str, list[int]]:
    """Dice already aimed at each target by the acting side's earlier declarations."""
    me = state.acting
    return combat.declared_pools(state, me.side) if me is not None else {}


def _value(
    dice: tuple[int, ...], armour: int, pi: int, fue: int, pc: bool, scars: bool, doomed: str
) -> Fraction:
    """P(out) + DAMAGE_WEIGHT × E[damage] of the pool ``dice`` against one target."""
    if not dice:
        return Fraction(0)
    return out_probability(
        dice, armour, pi, fue, pc, scars, doomed
    ) + DAMAGE_WEIGHT * expected_damage(dice, armour, pi, fue)


@lru_cache(maxsize=8192)
def _added_value(
    before: tuple[int, ...],
    mine: tuple[int, ...],
    armour: int,
    pi: int,
    fue: int,
    pc: bool,
    scars: bool,
    doomed: str,
) -> Fraction:
    # Memoised: the tactician scores every attack of every decision, mostly the same few
    # pools against the same few targets, and the exact Fraction sums dominated its cost.
    return _value(before + mine, armour, pi, fue, pc, scars, doomed) - _value(
        before, armour, pi, fue, pc, scars, doomed
    )


def attack_gain(
    state: BattleState, me: Combatant, action: Action, pools: dict[str, list[int]]
) -> float:
    """What this attack adds on top of the dice already declared (CA-06)."""
    assert action.target is not None and action.item is not None
    target = state.by_id[action.target]
    weapon = weapon_named(me, action.item)
    hit = blast_targets(state, me, target, weapon) if is_blast(me, target, weapon) else [target]
    scars, doomed = state.options.scars, state.options.doomed
    gain = Fraction(0)
    for t in hit:
        res = t.resources
        gain += _added_value(
            tuple(pools.get(t.id, ())),
            attack_dice(state, me, t, weapon)[0],
            t.stats.armour,
            res["pi"],
            res["fue"],
            t.pc,
            scars,
            doomed,
        )
    return float(gain)


def single_damage(state: BattleState, me: Combatant, action: Action) -> float:
    """Expected PI + FUE this attack alone takes off its target (no pooling)."""
    assert action.target is not None and action.item is not None
    t = state.by_id[action.target]
    dice = attack_dice(state, me, t, weapon_named(me, action.item))[0]
    return float(expected_damage(dice, t.stats.armour, t.resources["pi"], t.resources["fue"]))


def side_broken(state: BattleState, me: Combatant) -> bool:
    members = [c for c in state.combatants if c.side is me.side]
    active = sum(1 for c in members if c.active)
    if len(members) == 1:
        return me.resources["pi"] == 0
    return 2 * active < len(members)


def half_out(state: BattleState, me: Combatant) -> bool:
    """The coward's "its side breaks": half or more of its side is out of the fight."""
    members = [c for c in state.combatants if c.side is me.side]
    return len(members) > 1 and 2 * sum(1 for c in members if not c.active) >= len(members)


def hurt(c: Combatant) -> bool:
    """Below half its PI, or already bleeding FUE (CA-11: the next blow risks Daño Crítico)."""
    return 2 * c.resources["pi"] < c.maxima["pi"] or c.resources["fue"] < c.maxima["fue"]


def _health(c: Combatant) -> float:
    top = c.maxima["pi"] + c.maxima["fue"]
    return (c.resources["pi"] + c.resources["fue"]) / top if top else 1.0


def _enemies(state: BattleState, me: Combatant) -> list[Combatant]:
    return [c for c in state.combatants if c.active and c.side is not me.side]


def _nearest_enemy(
    state: BattleState, me: Combatant, zone: str, enemies: list[Combatant] | None = None
) -> int:
    """Hops from ``zone`` to the nearest active enemy of ``me`` (0 if none); ``enemies``
    is ``_enemies(state, me)`` when the caller already has it."""
    hops_to = state.battlefield.distances_from(zone)
    foes = _enemies(state, me) if enemies is None else enemies
    return min((hops_to[c.zone] for c in foes), default=0)


def move_score(state: BattleState, me: Combatant, zone: str) -> float:
    bf = state.battlefield
    enemies = _enemies(state, me)
    ranged = [w for w in weapons_of(me) if w.kind == RANGED]
    enemies_there = sum(1 for c in enemies if c.zone == zone)
    reach = max((w.reach for w in ranged), default=-1)
    here = _nearest_enemy(state, me, me.zone, enemies)
    if ranged and here <= reach:
        if bf.zones[me.zone].cover > 0:
            return -0.01  # already in cover with a shot: stay and shoot
        if _nearest_enemy(state, me, zone, enemies) > reach:
            return -0.01
        return COVER_WEIGHT * bf.zones[zone].cover - 0.1 * enemies_there
    # Nothing in reach (or melee only): close in.
    closer = here - _nearest_enemy(state, me, zone, enemies)
    return CLOSE_WEIGHT * closer - 0.001 * bf.distance(me.zone, zone)


def _retreat(state: BattleState, me: Combatant, actions: list[Action]) -> Action | None:
    """CA-17: ``huir`` if it is legal, else the move that gets nearest an exit zone."""
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


def _best_move(
    state: BattleState, me: Combatant, actions: list[Action], key: Callable[[str], tuple[Any, ...]]
) -> Action | None:
    """The move with the highest ``key``, if it beats staying where ``me`` is."""
    moves = [a for a in actions if a.verb == "mover" and a.zone is not None]
    if not moves:
        return None
    best = max(moves, key=lambda a: key(str(a.zone)))
    return best if key(str(best.zone)) > key(me.zone) else None


def _away_key(state: BattleState, me: Combatant) -> Callable[[str], tuple[Any, ...]]:
    """Further from the nearest enemy, then cover, then fewer steps taken."""
    zones = state.battlefield.zones
    dist = state.battlefield.distance
    return lambda z: (_nearest_enemy(state, me, z), zones[z].cover, -dist(me.zone, z))


def _wait(actions: list[Action]) -> Action:
    return next(a for a in actions if a.verb == "esperar")


def _attacks(actions: list[Action]) -> list[Action]:
    return [a for a in actions if a.verb == "atacar"]


def _best_attack(state: BattleState, me: Combatant, attacks: list[Action]) -> Action:
    pools = declared_pools(state)
    return max(attacks, key=lambda a: attack_gain(state, me, a, pools))


# -- temperaments ------------------------------------------------------------------
def _tactician(
    state: BattleState, me: Combatant, actions: list[Action], rng: random.Random
) -> Action:
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


def _brute(state: BattleState, me: Combatant, actions: list[Action], rng: random.Random) -> Action:
    attacks = _attacks(actions)
    if attacks:
        dist = state.battlefield.distance

        def key(a: Action) -> tuple[int, float]:
            t = state.by_id[str(a.target)]
            return (-dist(me.zone, t.zone), single_damage(state, me, a))

        return max(attacks, key=key)
    dist = state.battlefield.distance
    move = _best_move(
        state, me, actions, lambda z: (-_nearest_enemy(state, me, z), -dist(me.zone, z))
    )
    return move or _wait(actions)


def _cautious(
    state: BattleState, me: Combatant, actions: list[Action], rng: random.Random
) -> Action:
    bf = state.battlefield
    attacks = _attacks(actions)
    ranged = [a for a in attacks if weapon_named(me, str(a.item)).kind == RANGED]
    if hurt(me):
        # Withdraws when hurt. A mover cannot be caught in Cairn (two zones a turn against
        # a melee attacker's one-zone close), so an endless step back is a stalemate: the
        # withdrawal is CA-17's retreat when the map has an exit; without one a shooter
        # steps out of reach of the blades and keeps shooting, a melee fighter fights on.
        retreat = _retreat(state, me, actions)
        if retreat is not None:
            return retreat
        if ranged and _nearest_enemy(state, me, me.zone) <= 1:
            move = _best_move(state, me, actions, _away_key(state, me))
            if move:
                return move
    if ranged:
        # Keep its range: out of the enemy's zone and in cover, if a shot is kept.
        reach = max(w.reach for w in weapons_of(me) if w.kind == RANGED)

        def post(z: str) -> tuple[bool, bool, int]:
            near = _nearest_enemy(state, me, z)
            return (near <= reach, near > 0, bf.zones[z].cover)

        move = _best_move(state, me, actions, post)
        if move:
            return move
        return _best_attack(state, me, ranged)
    if attacks:
        return _best_attack(state, me, attacks)
    # Nothing in reach: advance, through cover where the step is as good.
    move = _best_move(
        state, me, actions, lambda z: (-_nearest_enemy(state, me, z), bf.zones[z].cover)
    )
    return move or _wait(actions)


def _coward(state: BattleState, me: Combatant, actions: list[Action], rng: random.Random) -> Action:
    if not (hurt(me) or half_out(state, me)):
        return _cautious(state, me, actions, rng)
    escape = _retreat(state, me, actions) or _best_move(state, me, actions, _away_key(state, me))
    if escape:
        return escape
    attacks = _attacks(actions)
    # Cornered: no way out, so it fights back.
    return _best_attack(state, me, attacks) if attacks else _wait(actions)


def threat(state: BattleState, foe: Combatant, ward: Combatant) -> float:
    """Expected PI + FUE ``foe`` can take off ``ward`` this turn (0 if it cannot reach)."""
    best = 0.0
    for a in state.ruleset.actions_for(state, foe):  # type: ignore[attr-defined]
        if a.verb == "atacar" and a.target == ward.id:
            best = max(best, single_damage(state, foe, a))
    return best


def _protector(
    state: BattleState, me: Combatant, actions: list[Action], rng: random.Random
) -> Action:
    allies = [
        c
        for c in state.combatants
        if c.active and c.side is me.side and c.id != me.id and _health(c) < 1
    ]
    if allies:
        ward = min(allies, key=lambda c: (_health(c), c.index))
        dist = state.battlefield.distance
        foes = sorted(
            _enemies(state, me),
            key=lambda f: (-threat(state, f, ward), dist(f.zone, ward.zone), f.index),
        )
        if foes:
            worst = foes[0]
            on_worst = [a for a in _attacks(actions) if a.target == worst.id]
            if on_worst:
                return max(on_worst, key=lambda a: single_damage(state, me, a))
            # The worst threat is out of reach: go to it rather than hit another.
            move = _best_move(
                state, me, actions, lambda z: (-dist(z, worst.zone), -dist(z, ward.zone))
            )
            if move:
                return move
    return _tactician(state, me, actions, rng)


STRATEGIES: dict[str, Strategy] = {
    "tactician": _tactician,
    "brute": _brute,
    "cautious": _cautious,
    "coward": _coward,
    "protector": _protector,
}


def choose(
    state: BattleState, actions: list[Action], rng: random.Random, temperament: str = "tactician"
) -> Action:
    me = state.acting
    assert me is not None
    return STRATEGIES.get(temperament, _tactician)(state, me, actions, rng)
