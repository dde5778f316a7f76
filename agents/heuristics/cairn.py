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
  It shoots from that post: where it stands, or the step a shot one zone out of reach
  makes first (CA-04) when that step is as good a post as its best move. A melee fighter
  attacks what it can reach and otherwise advances through cover.
* ``coward`` — like ``cautious`` until hurt or until half its side is out of the
  fight; then it runs: ``huir`` (CA-17) when an exit is at hand, else a move
  towards the nearest exit, else away from the enemy; it fights only when cornered.
* ``protector`` — Cairn has no healing or shielding in a fight, so it engages
  whoever threatens its most hurt ally most (the enemy with the highest expected
  damage on that ally, from where it stands), moving to that ally when it cannot
  reach the threat; with no ally hurt it plays like the tactician.

Written line for line with its compiled twin, :mod:`escaramuza.agents.heuristics.
cairn_kernel`: the same functions in the same order of steps, calling the same helpers —
those every ruleset shares from :mod:`escaramuza.agents.heuristics.vocabulary`, Cairn's own
here — where the kernel passes arrays and a legal list's rows.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from escaramuza.agents.heuristics import vocabulary
from escaramuza.agents.heuristics.vocabulary import (
    best_by,
    first_of,
    foe_hops,
    foes,
    of_verb,
    side_out,
)
from escaramuza.rules.cairn import combat
from escaramuza.rules.cairn.combat import (
    attack_dice,
    attack_zone,
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

#: The keys :func:`move_key` weighs steps by.
NEARER, AWAY, POST, ADVANCE, GUARD = 0, 1, 2, 3, 4


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
    """The tactician's retreat: fewer than half its side fighting, or a lone fighter at 0 PI."""
    members, out = side_out(state, me)
    if members == 1:
        return me.resources["pi"] == 0
    return 2 * (members - out) < members


def half_out(state: BattleState, me: Combatant) -> bool:
    """The coward's "its side breaks": half or more of its side is out of the fight."""
    members, out = side_out(state, me)
    return members > 1 and 2 * out >= members


def hurt(c: Combatant) -> bool:
    """Below half its PI, or already bleeding FUE (CA-11: the next blow risks Daño Crítico)."""
    return 2 * c.resources["pi"] < c.maxima["pi"] or c.resources["fue"] < c.maxima["fue"]


def health(c: Combatant) -> float:
    """PI + FUE left, as a fraction of the whole (1 with neither)."""
    top = c.maxima["pi"] + c.maxima["fue"]
    return (c.resources["pi"] + c.resources["fue"]) / top if top else 1.0


def move_score(state: BattleState, me: Combatant, zone: str) -> float:
    """The tactician's value of moving to ``zone``: into cover for a shooter in reach,
    else closer to the nearest enemy."""
    bf = state.battlefield
    ranged = [w for w in weapons_of(me) if w.kind == RANGED]
    enemies_there = sum(1 for c in foes(state, me) if c.zone == zone)
    reach = max((w.reach for w in ranged), default=-1)
    here = foe_hops(state, me, me.zone)
    if ranged and here <= reach:
        if bf.zones[me.zone].cover > 0:
            return -0.01  # already in cover with a shot: stay and shoot
        if foe_hops(state, me, zone) > reach:
            return -0.01
        return COVER_WEIGHT * bf.zones[zone].cover - 0.1 * enemies_there
    # Nothing in reach (or melee only): close in.
    closer = here - foe_hops(state, me, zone)
    return CLOSE_WEIGHT * closer - 0.001 * bf.distance(me.zone, zone)


def action_score(
    state: BattleState, me: Combatant, action: Action, pools: dict[str, list[int]]
) -> float:
    """The tactician's value of an action: an attack's gain, a move's score, -1 to flee."""
    if action.verb == "atacar":
        return attack_gain(state, me, action, pools)
    if action.verb == "mover" and action.zone is not None:
        return move_score(state, me, action.zone)
    if action.verb == "huir":
        return -1.0
    return 0.0


def draw_best(scores: list[float], rng: random.Random) -> int:
    """An index drawn among the scores within 1e-12 of the best (always one draw)."""
    top = max(scores)
    best = [i for i, score in enumerate(scores) if score >= top - 1e-12]
    return best[rng.randrange(len(best))]


def retreat(state: BattleState, me: Combatant, actions: list[Action]) -> Action | None:
    """CA-17: ``huir`` if it is legal, else the move that gets nearest an exit zone."""
    act = first_of(actions, "huir")
    if act is not None:
        return act
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


def move_key(
    state: BattleState, me: Combatant, kind: int, reach: int = 0, guard: str = "", post: str = ""
) -> Callable[[str], tuple[Any, ...]]:
    """The key :func:`best_move` weighs ``me``'s steps by: ``NEARER`` the nearest enemy in
    the fewest steps, ``AWAY`` from it (then cover, fewer steps), ``POST`` a shot within
    ``reach`` out of its zone, in cover, ``ADVANCE`` on it through cover, ``GUARD`` towards
    ``guard`` then ``post``."""
    zones = state.battlefield.zones
    dist = state.battlefield.distance
    if kind == NEARER:
        return lambda z: (-foe_hops(state, me, z), -dist(me.zone, z))
    if kind == AWAY:
        return lambda z: (foe_hops(state, me, z), zones[z].cover, -dist(me.zone, z))
    if kind == POST:

        def post_key(z: str) -> tuple[bool, bool, int]:
            near = foe_hops(state, me, z)
            return (near <= reach, near > 0, zones[z].cover)

        return post_key
    if kind == ADVANCE:
        return lambda z: (-foe_hops(state, me, z), zones[z].cover)
    return lambda z: (-dist(z, guard), -dist(z, post))


def best_move(
    state: BattleState,
    me: Combatant,
    actions: list[Action],
    kind: int,
    reach: int = 0,
    guard: str = "",
    post: str = "",
) -> Action | None:
    """The vocabulary's best_move of ``me``'s steps by :func:`move_key`."""
    key = move_key(state, me, kind, reach, guard, post)
    return vocabulary.best_move(me, of_verb(actions, "mover"), key)


def can_shoot(me: Combatant, actions: list[Action]) -> bool:
    """Whether one of ``me``'s legal attacks is with a ranged weapon."""
    return any(weapon_named(me, str(a.item)).kind == RANGED for a in of_verb(actions, "atacar"))


def shot_reach(me: Combatant) -> int:
    """The reach of ``me``'s longest ranged weapon."""
    return max(w.reach for w in weapons_of(me) if w.kind == RANGED)


def best_attack(
    state: BattleState, me: Combatant, actions: list[Action], post: tuple[Any, ...] | None = None
) -> Action | None:
    """The attack with the highest :func:`attack_gain`, the first; with a ``post`` (a
    :func:`move_key` ``POST`` key), only the shots made from a zone whose key is at least
    it: where ``me`` stands, or the step an attack beyond reach makes first (CA-04)."""
    attacks = of_verb(actions, "atacar")
    if post is not None:
        key = move_key(state, me, POST, shot_reach(me))
        attacks = [
            a
            for a in attacks
            if (w := weapon_named(me, str(a.item))).kind == RANGED
            and key(attack_zone(state, me, state.by_id[str(a.target)], w)) >= post
        ]
    pools = declared_pools(state)
    return best_by(attacks, lambda a: attack_gain(state, me, a, pools))


def brute_attack(state: BattleState, me: Combatant, actions: list[Action]) -> Action | None:
    """The brute's blow: the nearest target, then the hardest hit alone."""
    dist = state.battlefield.distance

    def key(a: Action) -> tuple[int, float]:
        t = state.by_id[str(a.target)]
        return (-dist(me.zone, t.zone), single_damage(state, me, a))

    return best_by(of_verb(actions, "atacar"), key)


def attack_on(
    state: BattleState, me: Combatant, actions: list[Action], target: Combatant
) -> Action | None:
    """The attack on ``target`` that alone takes most off it, the first."""
    on_target = [a for a in of_verb(actions, "atacar") if a.target == target.id]
    return best_by(on_target, lambda a: single_damage(state, me, a))


def end_turn(actions: list[Action]) -> Action:
    """``esperar``: the legal list's last action."""
    return next(a for a in actions if a.verb == "esperar")


def ward_of(state: BattleState, me: Combatant) -> Combatant | None:
    """The protector's ward: its most hurt active ally (by :func:`health`), if any is hurt."""
    allies = [
        c
        for c in state.combatants
        if c.active and c.side is me.side and c.id != me.id and health(c) < 1
    ]
    return min(allies, key=lambda c: (health(c), c.index), default=None)


def threat_of(state: BattleState, foe: Combatant, ward: Combatant) -> float:
    """Expected PI + FUE ``foe`` can take off ``ward`` this turn (0 if it cannot reach)."""
    best = 0.0
    for a in state.ruleset.actions_for(state, foe):  # type: ignore[attr-defined]
        if a.verb == "atacar" and a.target == ward.id:
            best = max(best, single_damage(state, foe, a))
    return best


def threat_to(state: BattleState, me: Combatant, ward: Combatant) -> Combatant | None:
    """The enemy threatening ``ward`` most (:func:`threat_of`), then the nearest to it."""
    dist = state.battlefield.distance
    return min(
        foes(state, me),
        key=lambda f: (-threat_of(state, f, ward), dist(f.zone, ward.zone), f.index),
        default=None,
    )


# -- temperaments ------------------------------------------------------------------
def tactician(
    state: BattleState, me: Combatant, actions: list[Action], rng: random.Random
) -> Action:
    if side_broken(state, me):
        act = retreat(state, me, actions)
        if act is not None:
            return act
    pools = declared_pools(state)
    scores = [action_score(state, me, a, pools) for a in actions]
    return actions[draw_best(scores, rng)]


def brute(state: BattleState, me: Combatant, actions: list[Action]) -> Action:
    act = brute_attack(state, me, actions)
    if act is None:
        act = best_move(state, me, actions, NEARER)
    return act if act is not None else end_turn(actions)


def cautious(state: BattleState, me: Combatant, actions: list[Action]) -> Action:
    ranged = can_shoot(me, actions)
    if hurt(me):
        # Withdraws when hurt. A mover cannot be caught in Cairn (two zones a turn against
        # a melee attacker's one-zone close), so an endless step back is a stalemate: the
        # withdrawal is CA-17's retreat when the map has an exit; without one a shooter
        # steps out of reach of the blades and keeps shooting, a melee fighter fights on.
        act = retreat(state, me, actions)
        if act is None and ranged and foe_hops(state, me, me.zone) <= 1:
            act = best_move(state, me, actions, AWAY)
        if act is not None:
            return act
    if ranged:
        # Keep its range: out of the enemy's zone and in cover, if a shot is kept. It shoots
        # from its post: where it stands when no move betters it, or the one-zone step of
        # an attack beyond reach (CA-04) when that step is as good a post as the move's.
        reach = shot_reach(me)
        act = best_move(state, me, actions, POST, reach)
        post = move_key(state, me, POST, reach)(str(act.zone) if act is not None else me.zone)
        shot = best_attack(state, me, actions, post)
        act = shot if shot is not None else act
        return act if act is not None else end_turn(actions)
    act = best_attack(state, me, actions)
    if act is None:
        # Nothing in reach: advance, through cover where the step is as good.
        act = best_move(state, me, actions, ADVANCE)
    return act if act is not None else end_turn(actions)


def coward(state: BattleState, me: Combatant, actions: list[Action]) -> Action:
    """The coward hurt or with half its side out (otherwise :func:`choose` plays it
    cautious)."""
    act = retreat(state, me, actions)
    if act is None:
        act = best_move(state, me, actions, AWAY)
    if act is None:
        # Cornered: no way out, so it fights back.
        act = best_attack(state, me, actions)
    return act if act is not None else end_turn(actions)


def protector(state: BattleState, me: Combatant, actions: list[Action]) -> Action | None:
    """The protector's guard of its most hurt ally, or None: it plays the tactician."""
    ward = ward_of(state, me)
    worst = threat_to(state, me, ward) if ward is not None else None
    act: Action | None = None
    if ward is not None and worst is not None:
        act = attack_on(state, me, actions, worst)
        if act is None:
            # The worst threat is out of reach: go to it rather than hit another.
            act = best_move(state, me, actions, GUARD, 0, worst.zone, ward.zone)
    return act


def choose(
    state: BattleState, actions: list[Action], rng: random.Random, temperament: str = "tactician"
) -> Action:
    """The legal action ``temperament`` picks for the acting combatant (any other name than
    the five plays the tactician; the ``random`` temperament never comes here)."""
    me = state.acting
    assert me is not None
    if temperament == "brute":
        return brute(state, me, actions)
    if temperament == "coward":
        if hurt(me) or half_out(state, me):
            return coward(state, me, actions)
        temperament = "cautious"  # the coward unhurt, its side holding
    if temperament == "cautious":
        return cautious(state, me, actions)
    if temperament == "protector":
        act = protector(state, me, actions)
        if act is not None:
            return act
    return tactician(state, me, actions, rng)
