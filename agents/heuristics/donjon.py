"""Scripted Donjon play over the exact pool odds (``escaramuza.rules.donjon.exact``).

``tactician`` (the default):

* turn: attack the opponent it is most likely to hurt (P(attack won and damage
  test won)); with no attack worth making, close to (or back off to) its best
  weapon's range — contact for melee, a una acción for bows and thrown weapons;
* defensa: parry when its parry pool makes a counter likely (P(win) ≥ ½) and at
  least as likely as a dodge; otherwise dodge (free);
* resistir: resist when it wins the movement test more often than not and the
  move goes against it (a foe escaping its contact — a free attack — or
  closing on an archer, or leaving a melee fighter's reach);
* repartir: Heridas, unless an attribute blow is better: the victim is at 0
  Heridas, or the remaining successes cannot drop it but can zero its Celeridad;
* continuar: go on while its side is ahead (or even).

The other temperaments change the turn, the reactions and the pause (the spend
is the same for all). Donjon has no cover rule, no healing in a fight and no
help action, so "uses cover" and "heals, helps" have nothing to act on.

* ``brute`` — attacks the nearest foe with the weapon that rolls most dice, else
  steps towards it; always parries (a counter is a blow); resists every foe
  leaving it, lets every foe come; always continues.
* ``cautious`` — below half its Heridas it backs away from the nearest foe;
  otherwise it first keeps its best range (backs off a foe nearer than that),
  then attacks as the tactician; continues only while its side is strictly ahead.
* ``coward`` — like ``cautious`` until below half its Heridas or until half its
  side is out; then it leaves: ``huir`` from a dos acciones, else a step away from
  the nearest foe (attacking only when it cannot step away); it dodges, never
  spends a number resisting an escape, and withdraws at the pause.
* ``protector`` — strikes the foe nearest its most hurt ally (in contact with it
  first), closing on that foe when it cannot reach it; otherwise the tactician.
"""

from __future__ import annotations

import random
from operator import itemgetter

from escaramuza.rules.core.model import Action, Combatant, IdentityMemo, Side, Status
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.donjon import combat
from escaramuza.rules.donjon.combat import CONTACT, ONE_ACTION, band_of
from escaramuza.rules.donjon.exact import hurt_probability, win_probability
from escaramuza.rules.donjon.sheets import MELEE, DonjonStats, Weapon

#: Below this chance to hurt, moving into a better range beats swinging.
_WORTH_ATTACKING = 0.08


def _sides(state: BattleState) -> tuple[int, str]:
    opts = state.options
    return opts.die_size, opts.all_tied


def attack_hurt_chance(
    state: BattleState, actor: Combatant, target: Combatant, weapon: Weapon
) -> float:
    """P(this attack takes at least one Herida or attribute point off ``target``)."""
    opts = state.options
    band = band_of(state.battlefield.distance(actor.zone, target.zone))
    pool = combat.attack_pool(actor, weapon, band)
    if pool is None:
        return 0.0
    pool += actor.data["bonus"]
    defence = combat.dodge_pool(target)
    if weapon.kind == MELEE and target.data["init"] and combat.profile(target).parry:
        # The defender may parry instead: count on the better of its two defences.
        defence = max(defence, combat.parry_pool(target))
    return hurt_probability(
        max(0, pool),
        defence,
        combat.damage_pool(actor, weapon),
        combat.soak_pool(target),
        opts.die_size,
        opts.all_tied,
        combat.damage_test_floor(actor),
        combat.damage_test_floor(target),
    )


def _best_band(s: DonjonStats) -> int:
    best = max(
        s.weapons_or_fists,
        key=lambda a: (a.damage, a.kind == MELEE),
    )
    return CONTACT if best.kind == MELEE else ONE_ACTION


#: A stat block's best band: a function of the frozen, never mutated block alone.
_best_band_of: IdentityMemo[DonjonStats, int] = IdentityMemo(_best_band)


def best_band(actor: Combatant) -> int:
    """The band where the actor's strongest weapon (most attack + damage dice) has no penalty."""
    return _best_band_of(actor.stats)


_SCORE = itemgetter(0, 1)


def _choose_turn(state: BattleState, actions: list[Action], rng: random.Random) -> Action:
    by_id = state.by_id
    actor = by_id[actions[0].actor]
    weapons = combat.profile(actor).by_name
    scored: list[tuple[float, float, Action]] = []
    for a in actions:
        if a.verb == "atacar" and a.target and a.item:
            target = by_id[a.target]
            weapon = weapons.get(a.item) or combat.weapon(actor, a.item)
            chance = attack_hurt_chance(state, actor, target, weapon)
            scored.append((chance, rng.random(), a))
    if scored:
        chance, _, best = max(scored, key=_SCORE)
        if chance >= _WORTH_ATTACKING:
            return best
    want = best_band(actor)
    nearest = _nearest(state, actor)
    if nearest is not None:
        here = band_of(state.distance(actor, nearest))
        verb = "acercarse" if here > want else ("alejarse" if here < want else "")
        for a in actions:
            if a.verb == verb and a.target == nearest.id:
                return a
    for a in actions:
        if a.verb == "rematar":
            return a
    if scored:
        return max(scored, key=_SCORE)[2]
    return next(a for a in actions if a.verb == "esperar")


def _choose_defence(state: BattleState, actions: list[Action]) -> Action:
    me = state.by_id[actions[0].actor]
    pend = state.data["attack"]
    attacker = state.by_id[pend.attacker]
    weapon = combat.weapon(attacker, pend.weapon)
    pool = (combat.attack_pool(attacker, weapon, pend.band) or 0) + attacker.data["bonus"]
    sides, tied = _sides(state)
    # The defender is the "defender" of the opposed test: it wins when the attacker does not.
    p_parry = 1.0 - win_probability(pool, combat.parry_pool(me), sides, tied)
    p_dodge = 1.0 - win_probability(pool, combat.dodge_pool(me), sides, tied)
    verb = "parar" if p_parry >= 0.5 and p_parry >= p_dodge else "esquivar"
    return next(a for a in actions if a.verb == verb)


def _choose_resist(state: BattleState, actions: list[Action]) -> Action:
    me = state.by_id[actions[0].actor]
    move = state.data["move"]
    mover = state.by_id[move.mover]
    sides, tied = _sides(state)
    p_win = 1.0 - win_probability(
        combat.move_pool(mover) + mover.data["bonus"], combat.move_pool(me), sides, tied
    )
    want = best_band(me)
    if move.from_contact:
        against_me = True
    elif move.verb == "acercarse":
        against_me = want > CONTACT
    else:
        against_me = want == CONTACT
    verb = "resistir" if against_me and p_win > 0.5 else "dejar"
    return next(a for a in actions if a.verb == verb)


def _choose_spend(state: BattleState, actions: list[Action]) -> Action:
    spend = state.data["spend"]
    victim = state.by_id[spend.victim]
    options = {a.option: a for a in actions}
    heridas = victim.resources["heridas"]
    for attr in spend.picked:
        # Already paid the fact for this attribute: keep lowering it.
        if attr in options and heridas > 0:
            return options[attr]
    if heridas == 0:
        for attr in ("celeridad", "virilidad", "aguante", "discernimiento"):
            if attr in options:
                return options[attr]
    cel = victim.resources["celeridad"]
    if (
        "heridas" in options
        and spend.remaining < heridas
        and "celeridad" in options
        and spend.remaining - 1 >= cel
    ):
        # The blow cannot drop the victim, but it can take all its Celeridad: it can then
        # hardly attack, parry, dodge or move.
        return options["celeridad"]
    if "heridas" in options:
        return options["heridas"]
    return actions[0]


def _strength(state: BattleState, side: Side) -> float:
    return sum(
        1.0 + c.resources["heridas"] / max(1, c.maxima["heridas"])
        for c in state.combatants
        if c.side is side and c.active
    )


def _hurt(c: Combatant) -> bool:
    return c.resources["heridas"] * 2 < c.maxima["heridas"]


def _flee(state: BattleState, actions: list[Action]) -> Action | None:
    """A coward's way out: leave the battle if it can, else step away from the nearest foe."""
    actor = state.by_id[actions[0].actor]
    for a in actions:
        if a.verb == "huir":
            return a
    foes = [o for o in state.combatants if o.side is not actor.side and o.active]
    if not foes:
        return None
    nearest = min(foes, key=lambda o: (state.distance(actor, o), o.index))
    return next((a for a in actions if a.verb == "alejarse" and a.target == nearest.id), None)


def _side_broken(state: BattleState, c: Combatant) -> bool:
    mine = [a for a in state.combatants if a.side is c.side]
    return len(mine) > 1 and 2 * sum(1 for a in mine if not a.active) >= len(mine)


def _foes(state: BattleState, c: Combatant) -> list[Combatant]:
    return [o for o in state.combatants if o.side is not c.side and o.active]


def _nearest(state: BattleState, c: Combatant) -> Combatant | None:
    """The active foe fewest hops away; ties go to the lowest ``index``.

    One pass over the combatants, the same answer as
    ``min(_foes(state, c), key=lambda o: (distance, o.index))``.
    """
    distance, here = state.battlefield.distance, c.zone
    side, active = c.side, Status.ACTIVE
    best: Combatant | None = None
    best_key = (0, 0)
    for o in state.combatants:
        if o.side is side or o.status is not active:
            continue
        key = (distance(here, o.zone), o.index)
        if best is None or key < best_key:
            best, best_key = o, key
    return best


def _step(actions: list[Action], verb: str, target: str) -> Action | None:
    return next((a for a in actions if a.verb == verb and a.target == target), None)


def _wait(actions: list[Action]) -> Action:
    return next(a for a in actions if a.verb == "esperar")


def _dice(actor: Combatant, a: Action, state: BattleState) -> int:
    """Attack + damage dice of an attack action (how hard the brute swings)."""
    weapon = combat.weapon(actor, str(a.item))
    target = state.by_id[str(a.target)]
    pool = combat.attack_pool(actor, weapon, band_of(state.distance(actor, target))) or 0
    return pool + combat.damage_pool(actor, weapon)


def _brute_turn(state: BattleState, actions: list[Action], rng: random.Random) -> Action:
    actor = state.by_id[actions[0].actor]
    nearest = _nearest(state, actor)
    attacks = [a for a in actions if a.verb == "atacar"]
    if attacks:
        return max(
            attacks,
            key=lambda a: (
                -state.distance(actor, state.by_id[str(a.target)]),
                _dice(actor, a, state),
            ),
        )
    if nearest is not None and (step := _step(actions, "acercarse", nearest.id)):
        return step
    return next((a for a in actions if a.verb == "rematar"), None) or _wait(actions)


def _cautious_turn(state: BattleState, actions: list[Action], rng: random.Random) -> Action:
    actor = state.by_id[actions[0].actor]
    nearest = _nearest(state, actor)
    if nearest is not None:
        here = band_of(state.distance(actor, nearest))
        if _hurt(actor) or here < best_band(actor):
            # Withdraws when hurt; keeps its best range otherwise.
            step = _step(actions, "alejarse", nearest.id)
            if step is not None:
                return step
    return _choose_turn(state, actions, rng)


def _coward_turn(state: BattleState, actions: list[Action], rng: random.Random) -> Action:
    actor = state.by_id[actions[0].actor]
    if not (_hurt(actor) or _side_broken(state, actor)):
        return _cautious_turn(state, actions, rng)
    escape = _flee(state, actions)
    if escape is not None:
        return escape
    # Cornered (no step takes it further away): it fights back.
    return _choose_turn(state, actions, rng)


def _protector_turn(state: BattleState, actions: list[Action], rng: random.Random) -> Action:
    actor = state.by_id[actions[0].actor]
    allies = [
        a
        for a in state.combatants
        if a.side is actor.side
        and a.active
        and a.id != actor.id
        and a.resources["heridas"] < a.maxima["heridas"]
    ]
    foes = _foes(state, actor)
    if allies and foes:
        ward = min(allies, key=lambda a: (a.resources["heridas"] / a.maxima["heridas"], a.index))
        threat = min(foes, key=lambda o: (state.distance(ward, o), o.index))
        on_threat = [a for a in actions if a.verb == "atacar" and a.target == threat.id]
        if on_threat:
            return max(
                on_threat,
                key=lambda a: attack_hurt_chance(
                    state, actor, threat, combat.weapon(actor, str(a.item))
                ),
            )
        step = _step(actions, "acercarse", threat.id)
        if step is not None:
            return step
    return _choose_turn(state, actions, rng)


TURNS = {
    "tactician": _choose_turn,
    "brute": _brute_turn,
    "cautious": _cautious_turn,
    "coward": _coward_turn,
    "protector": _protector_turn,
}


def _by_verb(actions: list[Action], verb: str) -> Action:
    return next(a for a in actions if a.verb == verb)


def _react(state: BattleState, actions: list[Action], temperament: str) -> Action:
    """The ``defensa`` and ``resistir`` reactions for each temperament."""
    name = state.pending.name if state.pending else ""
    if name == "defensa":
        if temperament == "brute":
            return _by_verb(actions, "parar")
        if temperament == "coward":
            return _by_verb(actions, "esquivar")  # keeps its numbers for running
        return _choose_defence(state, actions)
    move = state.data["move"]
    if temperament == "brute":
        return _by_verb(actions, "dejar" if move.verb == "acercarse" else "resistir")
    if temperament == "coward":
        return _by_verb(actions, "dejar")
    return _choose_resist(state, actions)


def _pause(state: BattleState, actions: list[Action], temperament: str) -> Action:
    """DJ-07: continue or withdraw."""
    pending = state.pending
    assert pending is not None
    actor = state.by_id[pending.actor]
    mine = _strength(state, pending.side)
    theirs = _strength(state, pending.side.other)
    if temperament == "brute":
        go_on = True
    elif temperament == "coward":
        go_on = not (_hurt(actor) or _side_broken(state, actor)) and mine > theirs
    elif temperament == "cautious":
        go_on = mine > theirs
    else:
        go_on = mine >= theirs
    return _by_verb(actions, "continuar" if go_on else "retirarse")


def choose(
    state: BattleState, actions: list[Action], rng: random.Random, temperament: str = "tactician"
) -> Action:
    """Pick one of the legal ``actions`` of the pending decision for ``temperament``."""
    pending = state.pending
    assert pending is not None
    name = pending.name
    if name == "turn":
        return TURNS.get(temperament, _choose_turn)(state, actions, rng)
    if name in ("defensa", "resistir"):
        return _react(state, actions, temperament)
    if name == "repartir":
        return _choose_spend(state, actions)
    return _pause(state, actions, temperament)
