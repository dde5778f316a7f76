"""Scripted Sistema 2d10 play for every temperament, built on the ruleset's exact odds.

Every temperament scores attacks with :meth:`Sistema2d10.attack_odds` (exact P(hit)
past the defensa pasiva and the active defence still open to the target, the damage
after CA and the location multiplier, P(drop) including a failed prueba de Aguante):

* ``tactician`` — attacks the (target, weapon, aim) with the best P(drop) + expected
  share of the target's PV removed, so it finishes the wounded and aims when the
  location multiplier outweighs the MS (S2-13); closes in (or into range) otherwise;
  gives a spare Dado Exprés (it holds two or more) to an ally who has none; falls back
  to full defence. Defends actively when the blow is likely to hurt
  (P(daño > CA) ≥ ½) and the defence has a real chance.
* ``brute`` — attacks the nearest foe it can reach (with whatever deals the most
  expected damage), else steps towards the nearest foe. Never gives dice away and never
  goes into defensa completa: it ends its turn instead. Active defence as the tactician.
* ``cautious`` — keeps its best range: prefers shooting at a foe at a distance, steps
  out of contact when it can still shoot from the next zone, and approaches only until
  its longest weapon reaches. Hurt (below half its PV) it withdraws a zone when that
  takes it further from the nearest foe, else goes into defensa completa; at ⅓ PV or
  less it goes into defensa completa first (S2-09: +3 to its defence rolls — the
  system has no cover rule, so this is its cover). Defends actively against any blow
  that can hurt.
* ``coward`` — below half its PV, or once half its side is out of the fight, it flees:
  a step that never brings it nearer the enemy — into an ``exit`` zone if one is next
  to it, else further from the enemy, else nearer an exit; once in an exit zone it stays
  there (Sistema 2d10 has no rule for leaving the field). Cornered (no such step) it
  fights the best target in reach, else defends fully. Otherwise it fights like
  ``cautious`` but never advances. Defends actively against any blow that can hurt.
* ``protector`` — guards its ward, the most hurt ally (lowest PV fraction): attacks the
  foe who threatens the ward most (largest expected damage on the ward from where it
  stands), gives a Dado Exprés to an ally who has none (S2-05: only such an ally may
  be given one; the most hurt first), moves towards that threat, else fights as the
  tactician and finally goes into defensa completa. Defends actively against any blow
  that can hurt.

All temperaments share the Dado Exprés rule: never before a roll (after is never
worse), and after the roll when the third die flips the result with probability ≥ 40 %.

Written line for line with its compiled twin, :mod:`escaramuza.agents.heuristics.
sistema_2d10_kernel`: the same functions in the same order of steps, calling the same
helpers — those every ruleset shares from :mod:`escaramuza.agents.heuristics.vocabulary`,
Sistema 2d10's own here — where the kernel passes arrays and lists of legal rows.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from escaramuza.agents.heuristics import vocabulary
from escaramuza.agents.heuristics.vocabulary import (
    best_by,
    first_of,
    foe_hops,
    foes,
    most_hurt_ally,
    of_verb,
    side_out,
)
from escaramuza.rules.core.model import Action, Combatant
from escaramuza.rules.core.ruleset import Odds
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.sistema_2d10 import combat
from escaramuza.rules.sistema_2d10.exact import block_probability

#: Spend a Dado Exprés after the roll when it flips the result this often.
FLIP_THRESHOLD = 0.4
#: The tactician and the brute defend actively when the blow hurts at least this often ...
HURT_THRESHOLD = 0.5
#: ... and the active defence blocks at least this often.
BLOCK_THRESHOLD = 0.05
#: Temperaments that defend actively against any blow that can hurt.
WARY = ("cautious", "coward", "protector")
#: The keys :func:`move_key` weighs steps by.
CLOSE, NEAR, AWAY, FLEE, GUARD = 0, 1, 2, 3, 4


# -- reactions ----------------------------------------------------------------------


def p_hurts(state: BattleState) -> float:
    """P(the attack in flight does damage once it lands)."""
    ctx: combat.AttackCtx = state.data["attack"]
    weapon = combat.profile(state.get(ctx.attacker)).weapon(ctx.weapon)
    ca = state.get(ctx.target).stats.ca
    return sum(p for v, p in weapon.damage.distribution().items() if v > ca)


def defend(state: BattleState, actions: list[Action], temperament: str) -> Action:
    """The active defence: defend (the first action) when the blow is worth it and the
    defence has a chance, else not (the last)."""
    ctx: combat.AttackCtx = state.data["attack"]
    target = state.get(ctx.target)
    kind = combat.profile(state.get(ctx.attacker)).weapon(ctx.weapon).kind
    p_block = block_probability(
        combat.defence_bonus(state, target, kind),
        ctx.total,
        ctx.critical,
        state.options.active_blocks,
        "after" if target.resources["dados_expres"] > 0 else "none",
    )
    hurts = p_hurts(state)
    worth = hurts > 0 if temperament in WARY else hurts >= HURT_THRESHOLD
    defend = worth and p_block >= BLOCK_THRESHOLD
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


def expres(state: BattleState, actions: list[Action]) -> Action:
    """A Dado Exprés: only after the roll, when it flips the result often enough."""
    pending = state.pending
    assert pending is not None
    spend = pending.name == combat.EXPRES_AFTER and flip_chance(state) >= FLIP_THRESHOLD
    verb = "gastar_dado" if spend else "no_gastar"
    return first_of(actions, verb) or actions[-1]


# -- reading the field --------------------------------------------------------------


def odds(state: BattleState, action: Action) -> Odds:
    """The blow's terms (:meth:`Sistema2d10.attack_odds`: damage not capped at the PV left)."""
    result: Odds | None = state.ruleset.attack_odds_many(state, [action])[0]  # type: ignore[attr-defined]
    assert result is not None
    return result


def attack_value(state: BattleState, action: Action, o: Odds | None = None) -> float:
    """Expected share of the target's current PV the attack removes: P(hit) × min(1,
    E[damage | hit] / PV) = min(P(hit), E[damage] / PV)."""
    o = o or odds(state, action)
    return min(o.p_hit, o.expected_damage / max(1, state.get(action.target or "").resources["pv"]))


def tactical_score(state: BattleState, action: Action, o: Odds | None = None) -> float:
    """P(drop) + expected share of PV removed: finishing a foe is worth a whole foe."""
    o = o or odds(state, action)
    return o.p_drop + attack_value(state, action, o)


def best_attack(state: BattleState, attacks: list[Action], rng: random.Random) -> Action | None:
    """The attack with the best :func:`tactical_score` (ties broken by ``rng``), if any > 0."""
    if not attacks:
        return None
    # Every aimed variant of every (target, weapon): their odds in one call.
    all_odds = state.ruleset.attack_odds_many(state, attacks)  # type: ignore[attr-defined]
    scored = [
        (tactical_score(state, a, o), i)
        for i, (a, o) in enumerate(zip(attacks, all_odds, strict=True))
    ]
    best = max(v for v, _ in scored)
    if best <= 0:
        return None
    top = [attacks[i] for v, i in scored if v >= best - 1e-12]
    return top[rng.randrange(len(top))] if len(top) > 1 else top[0]


def brute_attack(state: BattleState, c: Combatant, attacks: list[Action]) -> Action | None:
    """The brute's blow: on the nearest target it can reach, the most expected damage."""
    if not attacks:
        return None
    dist = state.battlefield.distance
    near = min(dist(c.zone, state.get(a.target or "").zone) for a in attacks)
    close = [a for a in attacks if dist(c.zone, state.get(a.target or "").zone) == near]
    return best_by(close, lambda a: odds(state, a).expected_damage)


def reach(c: Combatant) -> int:
    """The reach of ``c``'s longest weapon."""
    return max(w.reach for w in combat.profile(c).weapons)


def gap(state: BattleState, c: Combatant, zone: str) -> int:
    """Hops still to cover from ``zone`` before the nearest foe is in reach of a weapon."""
    return foe_hops(state, c, zone, reach(c))


def can_shoot_from(state: BattleState, c: Combatant, zone: str) -> bool:
    """A ranged weapon reaches some foe from ``zone`` without standing in a foe's zone."""
    dist = state.battlefield.distance
    ranged = [w.reach for w in combat.profile(c).weapons if w.reach > 0]
    return bool(ranged) and any(0 < dist(zone, f.zone) <= max(ranged) for f in foes(state, c))


def hurt(c: Combatant) -> bool:
    """Below half its PV."""
    return c.resources["pv"] * 2 < c.maxima["pv"]


def very_hurt(c: Combatant) -> bool:
    """At a third of its PV or less."""
    return c.resources["pv"] * 3 <= c.maxima["pv"]


def side_broken(state: BattleState, c: Combatant) -> bool:
    """Half its side or more out of the fight."""
    members, out = side_out(state, c)
    return out * 2 >= members


def move_key(
    state: BattleState, c: Combatant, kind: int, threat: Combatant | None = None
) -> Callable[[str], tuple[float, ...]]:
    """The key :func:`best_move` weighs ``c``'s steps by: ``CLOSE`` a weapon's reach of
    the nearest foe, ``NEAR`` the nearest foe, ``AWAY`` from the foes keeping a shot,
    ``FLEE`` into an exit, away from the foes, nearer an exit, ``GUARD`` a weapon's reach
    of ``threat``."""
    dist = state.battlefield.distance
    if kind == CLOSE:
        return lambda z: (-gap(state, c, z),)
    if kind == NEAR:
        return lambda z: (-foe_hops(state, c, z),)
    if kind == AWAY:
        return lambda z: (foe_hops(state, c, z), can_shoot_from(state, c, z))
    if kind == FLEE:
        bf = state.battlefield
        exits = bf.exits()

        def flee(z: str) -> tuple[float, ...]:
            to_exit = min((dist(z, e) for e in exits), default=0)
            return (bf.zones[z].exit, foe_hops(state, c, z), -to_exit)

        return flee
    far = reach(c)
    return lambda z: (-max(0, dist(z, str(threat.zone if threat else "")) - far),)


def best_move(
    state: BattleState,
    c: Combatant,
    moves: list[Action],
    kind: int,
    threat: Combatant | None = None,
) -> Action | None:
    """The vocabulary's best_move of ``moves`` by :func:`move_key`."""
    return vocabulary.best_move(c, moves, move_key(state, c, kind, threat))


def close_in(state: BattleState, c: Combatant, actions: list[Action]) -> Action | None:
    """A step that brings the nearest foe closer to the reach of a weapon."""
    return best_move(state, c, of_verb(actions, "mover"), CLOSE)


def full_or_pass(actions: list[Action]) -> Action:
    """Defensa completa, else pasar, else the last action."""
    return first_of(actions, "defensa_completa") or first_of(actions, "pasar") or actions[-1]


def end_turn(actions: list[Action]) -> Action:
    """Pasar, else the last action (the brute's: "never defends fully")."""
    return first_of(actions, "pasar") or actions[-1]


def spare_die(c: Combatant, actions: list[Action]) -> Action | None:
    """A spare Dado Exprés (``c`` holds two or more) to the first ally offered one (S2-05
    offers a gift only to an ally who has none)."""
    if c.resources["dados_expres"] < 2:
        return None
    return first_of(actions, "ceder_dado")


def gift_die(state: BattleState, actions: list[Action]) -> Action | None:
    """A Dado Exprés to the most hurt (lowest PV fraction) ally offered one: one who has
    none (S2-05)."""

    def need(a: Action) -> float:
        ally = state.get(a.target or "")
        return ally.resources["pv"] / ally.maxima["pv"]

    return min(of_verb(actions, "ceder_dado"), key=need, default=None)


def from_range(state: BattleState, c: Combatant, attacks: list[Action]) -> list[Action]:
    """The attacks on targets out of ``c``'s zone."""
    dist = state.battlefield.distance
    return [a for a in attacks if dist(c.zone, state.get(a.target or "").zone) > 0]


def aimed_at(attacks: list[Action], target: Combatant) -> list[Action]:
    """The attacks on ``target``."""
    return [a for a in attacks if a.target == target.id]


def shot_step(state: BattleState, c: Combatant, moves: list[Action]) -> Action | None:
    """The first step out of contact to a zone ``c`` can still shoot from."""
    for m in moves:
        z = m.zone or c.zone
        if foe_hops(state, c, z) > 0 and can_shoot_from(state, c, z):
            return m
    return None


def safe_moves(state: BattleState, c: Combatant, actions: list[Action]) -> list[Action]:
    """The steps that keep at least the current distance to the nearest foe."""
    here = foe_hops(state, c, c.zone)
    return [m for m in of_verb(actions, "mover") if foe_hops(state, c, m.zone or c.zone) >= here]


def threat_of(state: BattleState, foe: Combatant, ward: Combatant) -> float:
    """Expected damage ``foe`` can deal ``ward`` with one free attack from where it stands."""
    rs = state.ruleset
    dist = state.battlefield.distance(foe.zone, ward.zone)
    return max(
        (
            rs.attack_odds(state, foe, ward, w.name).expected_damage  # type: ignore[attr-defined]
            for w in combat.profile(foe).weapons
            if w.reach >= dist
        ),
        default=0.0,
    )


def threat_to(state: BattleState, c: Combatant, ward: Combatant) -> Combatant | None:
    """The foe with the largest (:func:`threat_of` ``ward``, −distance to it), the first."""
    dist = state.battlefield.distance
    best: Combatant | None = None
    best_key: tuple[float, int] = (0.0, 0)
    for f in foes(state, c):
        key = (threat_of(state, f, ward), -dist(f.zone, ward.zone))
        if best is None or key > best_key:
            best, best_key = f, key
    return best


# -- temperaments -------------------------------------------------------------------


def tactician(
    state: BattleState, c: Combatant, actions: list[Action], rng: random.Random
) -> Action:
    act = best_attack(state, of_verb(actions, "atacar"), rng)
    if act is None:
        act = close_in(state, c, actions)
    if act is None:
        act = spare_die(c, actions)
    return act if act is not None else full_or_pass(actions)


def brute(state: BattleState, c: Combatant, actions: list[Action]) -> Action:
    act = brute_attack(state, c, of_verb(actions, "atacar"))
    if act is None:
        act = best_move(state, c, of_verb(actions, "mover"), NEAR)
    # "never defends fully": no defensa completa, it just ends the turn.
    return act if act is not None else end_turn(actions)


def cautious(
    state: BattleState, c: Combatant, actions: list[Action], rng: random.Random, advance: bool
) -> Action:
    """The cautious temperament (``advance`` False: the coward unhurt, its side holding)."""
    full = first_of(actions, "defensa_completa")
    if very_hurt(c) and full is not None:
        return full
    moves = of_verb(actions, "mover")
    if hurt(c):
        act = best_move(state, c, moves, AWAY)
        if act is not None:
            return act
        if full is not None:
            return full
    attacks = of_verb(actions, "atacar")
    act = None
    if foe_hops(state, c, c.zone) == 0 and not hurt(c):
        # Keep the firearm's range: step out of contact to a zone it can still shoot from.
        act = shot_step(state, c, moves)
    if act is None:
        act = best_attack(state, from_range(state, c, attacks), rng)
    if act is None:
        act = best_attack(state, attacks, rng)
    if act is None and advance:
        act = close_in(state, c, actions)
    return act if act is not None else full_or_pass(actions)


def coward(state: BattleState, c: Combatant, actions: list[Action], rng: random.Random) -> Action:
    """The coward hurt or on a broken side (otherwise :func:`choose` plays it cautious,
    never advancing)."""
    # "never advances": only steps that keep at least the current distance to the enemy.
    act = best_move(state, c, safe_moves(state, c, actions), FLEE)
    if act is None:
        # Cornered: it fights back if it can, else it cowers in defensa completa.
        act = best_attack(state, of_verb(actions, "atacar"), rng)
    return act if act is not None else full_or_pass(actions)


def protector(
    state: BattleState, c: Combatant, actions: list[Action], rng: random.Random
) -> Action:
    ward = most_hurt_ally(state, c, "pv")
    threat = threat_to(state, c, ward) if ward is not None else None
    attacks = of_verb(actions, "atacar")
    act = None
    if threat is not None:
        act = best_attack(state, aimed_at(attacks, threat), rng)
    if act is None:
        act = gift_die(state, actions)
    if act is None and threat is not None:
        act = best_move(state, c, of_verb(actions, "mover"), GUARD, threat)
    if act is None:
        act = best_attack(state, attacks, rng)
    if act is None:
        act = close_in(state, c, actions)
    return act if act is not None else full_or_pass(actions)


def choose(
    state: BattleState, actions: list[Action], rng: random.Random, temperament: str = "tactician"
) -> Action:
    """The legal action ``temperament`` picks for the pending decision (any other name than
    the five plays the tactician; the ``random`` temperament never comes here)."""
    pending = state.pending
    assert pending is not None
    if pending.name == combat.ACTIVE_DEFENCE:
        return defend(state, actions, temperament)
    if pending.name in (combat.EXPRES_BEFORE, combat.EXPRES_AFTER):
        return expres(state, actions)
    c = state.get(actions[0].actor)
    if temperament == "brute":
        return brute(state, c, actions)
    advance = True
    if temperament == "coward":
        if hurt(c) or side_broken(state, c):
            return coward(state, c, actions, rng)
        temperament = "cautious"  # the coward unhurt, its side holding: cautious, no advance
        advance = False
    if temperament == "cautious":
        return cautious(state, c, actions, rng, advance)
    if temperament == "protector":
        return protector(state, c, actions, rng)
    return tactician(state, c, actions, rng)
