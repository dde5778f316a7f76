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

Written line for line with its compiled twin, :mod:`escaramuza.agents.heuristics.
donjon_kernel`: the same functions in the same order of steps, calling the same helpers —
those every ruleset shares from :mod:`escaramuza.agents.heuristics.vocabulary`, Donjon's
own here — where the kernel passes arrays and a legal list's rows.
"""

from __future__ import annotations

import random
from operator import itemgetter

from escaramuza.agents.heuristics.vocabulary import (
    best_by,
    first_of,
    first_on,
    nearest_foe,
    of_verb,
    side_out,
)
from escaramuza.rules.core.model import Action, Combatant, IdentityMemo, Side
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


def hurt(c: Combatant) -> bool:
    """Below half its Heridas."""
    return c.resources["heridas"] * 2 < c.maxima["heridas"]


def side_broken(state: BattleState, c: Combatant) -> bool:
    """Half its side (of two or more) is out."""
    members, out = side_out(state, c)
    return members > 1 and 2 * out >= members


def strength(state: BattleState, side: Side) -> float:
    """The pause's measure of a side: 1 + its Heridas fraction for each active member."""
    return sum(
        1.0 + c.resources["heridas"] / max(1, c.maxima["heridas"])
        for c in state.combatants
        if c.side is side and c.active
    )


def end_turn(actions: list[Action]) -> Action:
    """``esperar``."""
    return next(a for a in actions if a.verb == "esperar")


def one_of(actions: list[Action], verb: str) -> Action:
    """The legal action of ``verb`` (a reaction's or the pause's choice)."""
    return next(a for a in actions if a.verb == verb)


def best_attack(
    state: BattleState,
    c: Combatant,
    actions: list[Action],
    rng: random.Random | None,
    target: Combatant | None = None,
) -> tuple[Action | None, float]:
    """The attack most likely to hurt (:func:`attack_hurt_chance`) and that chance, ties
    broken by a draw (one ``rng.random()`` an attack, in order); None and 0 with none. On
    ``target`` alone: only the attacks on it, the first on ties, no draw (``rng`` may be
    None)."""
    weapons = combat.profile(c).by_name
    scored: list[tuple[float, float, Action]] = []
    for a in of_verb(actions, "atacar"):
        if target is not None and a.target != target.id:
            continue
        on = state.by_id[str(a.target)]
        weapon = weapons.get(str(a.item)) or combat.weapon(c, str(a.item))
        draw = rng.random() if target is None and rng is not None else 0.0
        scored.append((attack_hurt_chance(state, c, on, weapon), draw, a))
    if not scored:
        return None, 0.0
    chance, _, best = max(scored, key=_SCORE)
    return best, chance


def range_step(state: BattleState, c: Combatant, nearest: Combatant | None) -> str:
    """The step to ``c``'s best range from ``nearest``: ``acercarse``, ``alejarse``, or
    none ("")."""
    if nearest is None:
        return ""
    here = band_of(state.distance(c, nearest))
    want = best_band(c)
    return "acercarse" if here > want else ("alejarse" if here < want else "")


def no_swing(
    actions: list[Action], verb: str, nearest: Combatant | None, best: Action | None
) -> Action:
    """A turn's end when it makes no attack it wants: ``verb`` (a step) on the nearest
    foe, a finishing blow, the ``best`` attack there is, else esperar."""
    act = first_on(actions, verb, nearest) if nearest is not None else None
    if act is None:
        act = first_of(actions, "rematar")
    if act is None:
        act = best
    return act if act is not None else end_turn(actions)


def dice(state: BattleState, c: Combatant, a: Action) -> int:
    """Attack + damage dice of an attack action (how hard the brute swings)."""
    weapon = combat.weapon(c, str(a.item))
    target = state.by_id[str(a.target)]
    pool = combat.attack_pool(c, weapon, band_of(state.distance(c, target))) or 0
    return pool + combat.damage_pool(c, weapon)


def brute_attack(state: BattleState, c: Combatant, actions: list[Action]) -> Action | None:
    """The brute's blow: on the nearest foe, with the most dice."""

    def key(a: Action) -> tuple[int, int]:
        return (-state.distance(c, state.by_id[str(a.target)]), dice(state, c, a))

    return best_by(of_verb(actions, "atacar"), key)


def flee(state: BattleState, c: Combatant, actions: list[Action]) -> Action | None:
    """A coward's way out: leave the battle if it can, else step away from the nearest foe."""
    act = first_of(actions, "huir")
    if act is None:
        nearest = nearest_foe(state, c)
        act = first_on(actions, "alejarse", nearest) if nearest is not None else None
    return act


def ward_of(state: BattleState, c: Combatant) -> Combatant | None:
    """The protector's ward: its ally with the least Heridas fraction, if any is hurt."""
    allies = [
        a
        for a in state.combatants
        if a.side is c.side
        and a.active
        and a.id != c.id
        and a.resources["heridas"] < a.maxima["heridas"]
    ]
    return min(
        allies, key=lambda a: (a.resources["heridas"] / a.maxima["heridas"], a.index), default=None
    )


# -- the turn's temperaments -----------------------------------------------------------------
def tactician(
    state: BattleState, c: Combatant, actions: list[Action], rng: random.Random
) -> Action:
    """The attack most likely to hurt (ties by a draw), else the step to its best range,
    a finishing blow, the best attack there is, or esperar."""
    best, chance = best_attack(state, c, actions, rng)
    if best is not None and chance >= _WORTH_ATTACKING:
        return best
    nearest = nearest_foe(state, c)
    return no_swing(actions, range_step(state, c, nearest), nearest, best)


def brute(state: BattleState, c: Combatant, actions: list[Action]) -> Action:
    """The nearest foe's attack with most dice, else closer to it."""
    act = brute_attack(state, c, actions)
    return act if act is not None else no_swing(actions, "acercarse", nearest_foe(state, c), None)


def cautious(state: BattleState, c: Combatant, actions: list[Action]) -> Action | None:
    """Hurt, or nearer the nearest foe than its best range, it backs away; else None: the
    tactician's."""
    nearest = nearest_foe(state, c)
    if nearest is not None and (hurt(c) or band_of(state.distance(c, nearest)) < best_band(c)):
        return first_on(actions, "alejarse", nearest)
    return None


def coward(state: BattleState, c: Combatant, actions: list[Action]) -> Action | None:
    """Hurt or with its side broken, it flees; else None, and :func:`choose` plays it
    cautious. (After a failed flight the cautious step finds nothing either: its only
    step is the one that failed; cornered, the coward fights back as the tactician.)"""
    if not (hurt(c) or side_broken(state, c)):
        return None
    return flee(state, c, actions)


def protector(state: BattleState, c: Combatant, actions: list[Action]) -> Action | None:
    """The foe nearest its most hurt ally, struck (the likeliest to hurt) or closed on;
    else None: the tactician's."""
    ward = ward_of(state, c)
    threat = nearest_foe(state, ward) if ward is not None else None
    if threat is None:
        return None
    act, _ = best_attack(state, c, actions, None, threat)
    return act if act is not None else first_on(actions, "acercarse", threat)


# -- reactions, the spend and the pause --------------------------------------------------------
def defence(state: BattleState, c: Combatant, actions: list[Action]) -> Action:
    """Parry when a counter is likely (P ≥ ½) and at least as likely as a dodge."""
    pend = state.data["attack"]
    attacker = state.by_id[pend.attacker]
    weapon = combat.weapon(attacker, pend.weapon)
    pool = (combat.attack_pool(attacker, weapon, pend.band) or 0) + attacker.data["bonus"]
    sides, tied = _sides(state)
    # The defender is the "defender" of the opposed test: it wins when the attacker does not.
    p_parry = 1.0 - win_probability(pool, combat.parry_pool(c), sides, tied)
    p_dodge = 1.0 - win_probability(pool, combat.dodge_pool(c), sides, tied)
    return one_of(actions, "parar" if p_parry >= 0.5 and p_parry >= p_dodge else "esquivar")


def resist(state: BattleState, c: Combatant, actions: list[Action]) -> Action:
    """Resist when the movement test is likely won and the move goes against it."""
    move = state.data["move"]
    mover = state.by_id[move.mover]
    sides, tied = _sides(state)
    p_win = 1.0 - win_probability(
        combat.move_pool(mover) + mover.data["bonus"], combat.move_pool(c), sides, tied
    )
    want = best_band(c)
    if move.from_contact:
        against_me = True
    elif move.verb == "acercarse":
        against_me = want > CONTACT
    else:
        against_me = want == CONTACT
    return one_of(actions, "resistir" if against_me and p_win > 0.5 else "dejar")


def react(state: BattleState, c: Combatant, actions: list[Action], temperament: str) -> Action:
    """The ``defensa`` and ``resistir`` reactions for each temperament."""
    name = state.pending.name if state.pending else ""
    if name == "defensa":
        if temperament == "brute":
            return one_of(actions, "parar")
        if temperament == "coward":
            return one_of(actions, "esquivar")  # keeps its numbers for running
        return defence(state, c, actions)
    move = state.data["move"]
    if temperament == "brute":
        return one_of(actions, "dejar" if move.verb == "acercarse" else "resistir")
    if temperament == "coward":
        return one_of(actions, "dejar")
    return resist(state, c, actions)


def spend(state: BattleState, actions: list[Action]) -> Action:
    """``repartir``: Heridas, unless an attribute blow is better (the victim is at 0
    Heridas, or the successes left cannot drop it but can zero its Celeridad)."""
    pending = state.data["spend"]
    victim = state.by_id[pending.victim]
    options = {a.option: a for a in actions}
    heridas = victim.resources["heridas"]
    for attr in pending.picked:
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
        and pending.remaining < heridas
        and "celeridad" in options
        and pending.remaining - 1 >= cel
    ):
        # The blow cannot drop the victim, but it can take all its Celeridad: it can then
        # hardly attack, parry, dodge or move.
        return options["celeridad"]
    if "heridas" in options:
        return options["heridas"]
    return actions[0]


def pause(state: BattleState, c: Combatant, actions: list[Action], temperament: str) -> Action:
    """DJ-07: continue while its side is ahead (as the temperament reads it), or withdraw."""
    mine = strength(state, c.side)
    theirs = strength(state, c.side.other)
    if temperament == "brute":
        go_on = True
    elif temperament == "coward":
        go_on = not (hurt(c) or side_broken(state, c)) and mine > theirs
    elif temperament == "cautious":
        go_on = mine > theirs
    else:
        go_on = mine >= theirs
    return one_of(actions, "continuar" if go_on else "retirarse")


def choose(
    state: BattleState, actions: list[Action], rng: random.Random, temperament: str = "tactician"
) -> Action:
    """Pick one of the legal ``actions`` of the pending decision for ``temperament``. A
    turn: the brute's, else the temperament's own part (the coward's flight, then the
    cautious step away for the coward and the cautious; the protector's ward) and, where
    that gives nothing, the tactician's."""
    pending = state.pending
    assert pending is not None
    c = state.by_id[pending.actor]
    name = pending.name
    if name == "turn":
        if temperament == "brute":
            return brute(state, c, actions)
        act = None
        if temperament == "protector":
            act = protector(state, c, actions)
        elif temperament in ("cautious", "coward"):
            if temperament == "coward":
                act = coward(state, c, actions)
            if act is None:
                act = cautious(state, c, actions)
        return act if act is not None else tactician(state, c, actions, rng)
    if name in ("defensa", "resistir"):
        return react(state, c, actions, temperament)
    if name == "repartir":
        return spend(state, actions)
    return pause(state, c, actions, temperament)
