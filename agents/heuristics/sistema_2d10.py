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
  stands), gives Dados Exprés to allies who hold fewer than it does (fewest first,
  then the most hurt), moves towards that threat, else fights as the tactician and
  finally goes into defensa completa. Defends actively against any blow that can hurt.

All temperaments share the Dado Exprés rule: never before a roll (after is never
worse), and after the roll when the third die flips the result with probability ≥ 40 %.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from escaramuza.rules.core.model import Action, Combatant, Status
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

Strategy = Callable[[BattleState, Combatant, list[Action], random.Random], Action]


def _by_verb(actions: list[Action], verb: str) -> Action | None:
    return next((a for a in actions if a.verb == verb), None)


def _verb(actions: list[Action], verb: str) -> list[Action]:
    return [a for a in actions if a.verb == verb]


# -- reactions ----------------------------------------------------------------------


def p_hurts(state: BattleState) -> float:
    """P(the attack in flight does damage once it lands)."""
    ctx: combat.AttackCtx = state.data["attack"]
    weapon = combat.profile(state.get(ctx.attacker)).weapon(ctx.weapon)
    ca = state.get(ctx.target).stats.ca
    return sum(p for v, p in weapon.damage.distribution().items() if v > ca)


def _defend(state: BattleState, actions: list[Action], temperament: str) -> Action:
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


def _expres(state: BattleState, actions: list[Action]) -> Action:
    pending = state.pending
    assert pending is not None
    spend = pending.name == combat.EXPRES_AFTER and flip_chance(state) >= FLIP_THRESHOLD
    verb = "gastar_dado" if spend else "no_gastar"
    return _by_verb(actions, verb) or actions[-1]


# -- reading the field --------------------------------------------------------------


def odds(state: BattleState, action: Action) -> Odds:
    result = state.ruleset.odds(state, action)
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


def _best_attack(state: BattleState, attacks: list[Action], rng: random.Random) -> Action | None:
    """The attack with the best :func:`tactical_score` (ties broken by ``rng``), if any > 0."""
    if not attacks:
        return None
    # Every aimed variant of every (target, weapon): their odds in one call.
    all_odds = state.ruleset.odds_many(state, attacks)  # type: ignore[attr-defined]
    scored = [
        (tactical_score(state, a, o), i)
        for i, (a, o) in enumerate(zip(attacks, all_odds, strict=True))
    ]
    best = max(v for v, _ in scored)
    if best <= 0:
        return None
    top = [attacks[i] for v, i in scored if v >= best - 1e-12]
    return top[rng.randrange(len(top))] if len(top) > 1 else top[0]


def _foes(state: BattleState, c: Combatant) -> list[Combatant]:
    return [f for f in state.combatants if f.active and f.side is not c.side]


def _nearest(state: BattleState, c: Combatant, zone: str) -> int:
    dist = state.battlefield.distance
    return min((dist(zone, f.zone) for f in _foes(state, c)), default=0)


def _reach(c: Combatant) -> int:
    return max(w.reach for w in combat.profile(c).weapons)


def _gap(state: BattleState, actor: Combatant, zone: str) -> int:
    """Hops still to cover from ``zone`` before the nearest foe is in reach of a weapon."""
    reach = _reach(actor)
    dist = state.battlefield.distance
    return min((max(0, dist(zone, f.zone) - reach) for f in _foes(state, actor)), default=0)


def _can_shoot_from(state: BattleState, c: Combatant, zone: str) -> bool:
    """A ranged weapon reaches some foe from ``zone`` without standing in a foe's zone."""
    dist = state.battlefield.distance
    ranged = [w.reach for w in combat.profile(c).weapons if w.reach > 0]
    return bool(ranged) and any(0 < dist(zone, f.zone) <= max(ranged) for f in _foes(state, c))


def _hurt(c: Combatant) -> bool:
    return c.resources["pv"] * 2 < c.maxima["pv"]


def _very_hurt(c: Combatant) -> bool:
    return c.resources["pv"] * 3 <= c.maxima["pv"]


def _side_broken(state: BattleState, c: Combatant) -> bool:
    mine = [a for a in state.combatants if a.side is c.side]
    out = sum(1 for a in mine if a.status is not Status.ACTIVE)
    return out * 2 >= len(mine)


def _best_move(
    c: Combatant, moves: list[Action], key: Callable[[str], tuple[float, ...]]
) -> Action | None:
    """The move with the highest ``key``, if it beats staying where ``c`` is (first wins ties)."""
    if not moves:
        return None
    best = max(moves, key=lambda a: key(a.zone or c.zone))
    return best if key(best.zone or c.zone) > key(c.zone) else None


def _close_in(state: BattleState, c: Combatant, actions: list[Action]) -> Action | None:
    """A step that brings the nearest foe closer to the reach of a weapon."""
    return _best_move(c, _verb(actions, "mover"), lambda z: (-_gap(state, c, z),))


def _full_or_pass(actions: list[Action]) -> Action:
    return _by_verb(actions, "defensa_completa") or _by_verb(actions, "pasar") or actions[-1]


# -- temperaments -------------------------------------------------------------------


def _tactician(
    state: BattleState, c: Combatant, actions: list[Action], rng: random.Random
) -> Action:
    attack = _best_attack(state, _verb(actions, "atacar"), rng)
    if attack is not None:
        return attack
    move = _close_in(state, c, actions)
    if move is not None:
        return move
    if c.resources["dados_expres"] >= 2:
        needy = [
            a
            for a in _verb(actions, "ceder_dado")
            if state.get(a.target or "").resources["dados_expres"] == 0
        ]
        if needy:
            return needy[0]
    return _full_or_pass(actions)


def _brute(state: BattleState, c: Combatant, actions: list[Action], rng: random.Random) -> Action:
    attacks = _verb(actions, "atacar")
    if attacks:
        dist = state.battlefield.distance
        near = min(dist(c.zone, state.get(a.target or "").zone) for a in attacks)
        close = [a for a in attacks if dist(c.zone, state.get(a.target or "").zone) == near]
        return max(close, key=lambda a: odds(state, a).expected_damage)
    move = _best_move(c, _verb(actions, "mover"), lambda z: (-_nearest(state, c, z),))
    # "never defends fully": no defensa completa, it just ends the turn.
    return move or _by_verb(actions, "pasar") or actions[-1]


def _away_key(state: BattleState, c: Combatant) -> Callable[[str], tuple[float, ...]]:
    return lambda z: (_nearest(state, c, z), _can_shoot_from(state, c, z))


def _cautious(
    state: BattleState,
    c: Combatant,
    actions: list[Action],
    rng: random.Random,
    advance: bool = True,
) -> Action:
    full = _by_verb(actions, "defensa_completa")
    if _very_hurt(c) and full is not None:
        return full
    moves = _verb(actions, "mover")
    if _hurt(c):
        away = _best_move(c, moves, _away_key(state, c))
        if away is not None:
            return away
        if full is not None:
            return full
    attacks = _verb(actions, "atacar")
    dist = state.battlefield.distance
    if _nearest(state, c, c.zone) == 0 and not _hurt(c):
        # Keep the firearm's range: step out of contact to a zone it can still shoot from.
        out = [m for m in moves if _nearest(state, c, m.zone or c.zone) > 0]
        shot = [m for m in out if _can_shoot_from(state, c, m.zone or c.zone)]
        if shot:
            return shot[0]
    ranged = [a for a in attacks if dist(c.zone, state.get(a.target or "").zone) > 0]
    attack = _best_attack(state, ranged, rng) or _best_attack(state, attacks, rng)
    if attack is not None:
        return attack
    if advance:
        move = _close_in(state, c, actions)
        if move is not None:
            return move
    return _full_or_pass(actions)


def _coward(state: BattleState, c: Combatant, actions: list[Action], rng: random.Random) -> Action:
    if not (_hurt(c) or _side_broken(state, c)):
        return _cautious(state, c, actions, rng, advance=False)
    bf = state.battlefield
    exits = bf.exits()
    here = _nearest(state, c, c.zone)

    def key(z: str) -> tuple[float, ...]:
        # Into an exit zone first, else further from the enemy, else nearer an exit.
        to_exit = min((bf.distance(z, e) for e in exits), default=0)
        return (bf.zones[z].exit, _nearest(state, c, z), -to_exit)

    # "never advances": only steps that keep at least the current distance to the enemy.
    safe = [m for m in _verb(actions, "mover") if _nearest(state, c, m.zone or c.zone) >= here]
    move = _best_move(c, safe, key)
    if move is not None:
        return move
    # Cornered: it fights back if it can, else it cowers in defensa completa.
    attack = _best_attack(state, _verb(actions, "atacar"), rng)
    return attack or _full_or_pass(actions)


def _threat(state: BattleState, foe: Combatant, ward: Combatant) -> float:
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


def _protector(
    state: BattleState, c: Combatant, actions: list[Action], rng: random.Random
) -> Action:
    allies = [a for a in state.combatants if a.side is c.side and a.active and a is not c]
    ward = min(allies, key=lambda a: a.resources["pv"] / a.maxima["pv"], default=None)
    threat: Combatant | None = None
    if ward is not None:
        dist = state.battlefield.distance
        threat = max(
            _foes(state, c),
            key=lambda f: (_threat(state, f, ward), -dist(f.zone, ward.zone)),
            default=None,
        )
    attacks = _verb(actions, "atacar")
    if threat is not None:
        guard = _best_attack(state, [a for a in attacks if a.target == threat.id], rng)
        if guard is not None:
            return guard
    gifts = [
        a
        for a in _verb(actions, "ceder_dado")
        if state.get(a.target or "").resources["dados_expres"] < c.resources["dados_expres"]
    ]
    if gifts:

        def need(a: Action) -> tuple[float, ...]:
            ally = state.get(a.target or "")
            return (ally.resources["dados_expres"], ally.resources["pv"] / ally.maxima["pv"])

        return min(gifts, key=need)
    if threat is not None:
        reach = _reach(c)
        dist = state.battlefield.distance
        move = _best_move(
            c,
            _verb(actions, "mover"),
            lambda z: (-max(0, dist(z, threat.zone) - reach),),
        )
        if move is not None:
            return move
    attack = _best_attack(state, attacks, rng)
    if attack is not None:
        return attack
    return _close_in(state, c, actions) or _full_or_pass(actions)


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
    pending = state.pending
    assert pending is not None
    if pending.name == combat.ACTIVE_DEFENCE:
        return _defend(state, actions, temperament)
    if pending.name in (combat.EXPRES_BEFORE, combat.EXPRES_AFTER):
        return _expres(state, actions)
    strategy = STRATEGIES.get(temperament, _tactician)
    return strategy(state, state.get(actions[0].actor), actions, rng)
