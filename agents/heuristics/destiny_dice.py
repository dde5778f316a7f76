"""Scripted Destiny Dice play: heal the fallen, hit what drops, close in, take cover.

Priorities, in order (each uses the exact odds of
:mod:`escaramuza.rules.destiny_dice.exact`):

1. Perfect-defence reaction: counterattack if it can hurt, else stay.
2. Heal an ally who is Fuera de Combate, or below a third of their PV.
3. Attack: the target with the best chance to drop, then the most expected
   damage relative to its remaining PV.
4. Move: a step that brings an enemy into a weapon's reach (towards the
   nearest enemy; ranged fighters prefer the covered zone among equals).
5. Help an ally who can attack; reload a jammed weapon; recover a weapon.
6. End the turn.
"""

from __future__ import annotations

import random

from escaramuza.rules.core.model import Action, Combatant, Status
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.destiny_dice.exact import drop_probability, expected_pv_loss


def attack_score(state: BattleState, action: Action) -> tuple[float, float]:
    """(P(drop), expected PV lost / PV left) of an attack action."""
    rules = state.ruleset
    att = state.by_id[action.actor]
    dfn = state.by_id[str(action.target)]
    weapon = att.stats.weapons[str(action.item)]
    profile = rules.profile(state, att, dfn, weapon)  # type: ignore[attr-defined]
    pv = dfn.resources["pv"]
    return drop_probability(profile, pv), expected_pv_loss(profile) / max(pv, 1)


def _can_attack_from(state: BattleState, c: Combatant, zone: str) -> bool:
    rules = state.ruleset
    dist = state.battlefield.distance
    usable = rules._usable_weapons(c)  # type: ignore[attr-defined]
    for t in state.combatants:
        if t.side is not c.side and t.active:
            band = rules.band(dist(zone, t.zone))
            if any(band in w.bands for w in usable):
                return True
    return False


def _move_score(state: BattleState, c: Combatant, zone: str) -> tuple[int, int, int]:
    """Higher is better: can attack from there; then (melee) closer to the nearest enemy
    or (shooters) out of contact and in cover."""
    dist = state.battlefield.distance
    enemies = [t for t in state.combatants if t.side is not c.side and t.active]
    nearest = min((dist(zone, t.zone) for t in enemies), default=0)
    ranged = any(w.characteristic == "mente" for w in c.stats.weapons.values())
    if ranged:
        cover = state.battlefield.zones[zone].cover
        return (int(_can_attack_from(state, c, zone)), int(nearest > 0), cover)
    return (int(_can_attack_from(state, c, zone)), -nearest, 0)


def choose(state: BattleState, actions: list[Action], rng: random.Random) -> Action:
    by_verb: dict[str, list[Action]] = {}
    for a in actions:
        by_verb.setdefault(a.verb, []).append(a)
    if "contraatacar" in by_verb:
        return max(by_verb["contraatacar"], key=lambda a: attack_score(state, a))
    if "pasar" in by_verb:
        return by_verb["pasar"][0]

    for heal in by_verb.get("curar", []):
        ally = state.by_id[str(heal.target)]
        if ally.status is Status.DOWN or ally.resources["pv"] * 3 < ally.maxima["pv"]:
            return heal

    if "atacar" in by_verb:
        return max(by_verb["atacar"], key=lambda a: attack_score(state, a))

    c = state.by_id[actions[0].actor]
    if "mover" in by_verb:
        here = _move_score(state, c, c.zone)
        best = max(by_verb["mover"], key=lambda a: _move_score(state, c, str(a.zone)))
        if _move_score(state, c, str(best.zone)) > here:
            return best

    for verb in ("recuperar_arma", "recargar"):
        if verb in by_verb:
            return by_verb[verb][0]
    helps = [
        a
        for a in by_verb.get("ayudar", [])
        if _can_attack_from(state, state.by_id[str(a.target)], state.by_id[str(a.target)].zone)
    ]
    if helps:
        return helps[rng.randrange(len(helps))]
    return by_verb["fin_turno"][0]
