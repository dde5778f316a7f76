"""Scripted Destiny Dice play for every temperament.

All temperaments read the exact odds of :mod:`escaramuza.rules.destiny_dice.exact`:

* ``tactician`` — heals the fallen and the badly hurt, attacks the target with
  the best chance to drop (then most expected damage relative to PV left, so it
  finishes wounded foes: focus fire), closes to a zone from which it can
  attack, helps an ally who can attack. Counterattacks on a perfect defence.
* ``brute`` — hits the nearest enemy with its hardest weapon, else steps
  towards the nearest enemy. Never helps or heals.
* ``cautious`` — fights from its best range and from cover; below half its PV
  it heals itself if it can, else steps away from the nearest enemy.
* ``coward`` — like ``cautious`` until below half PV or until half its side is
  out of the fight; then it runs: a step away from the enemy (towards an exit
  zone if the map has one) and attacks only when cornered.
* ``protector`` — heals any ally below two thirds of their PV, helps allies in
  reach who can attack, strikes enemies engaging its most hurt ally, and stays
  near that ally.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from escaramuza.rules.core.model import Action, Combatant, Status
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.destiny_dice.exact import (
    AttackProfile,
    drop_probability,
    expected_pv_loss,
)

ByVerb = dict[str, list[Action]]


#: attack_score's answers by (profile, PV left): a pure function of the key (exact odds),
#: so entries never go stale. One lookup here replaces two memoised helpers' (each hashes
#: the whole profile again); emptied if it ever grows past _MAX_SCORES.
_SCORES: dict[tuple[AttackProfile, int], tuple[float, float]] = {}
_MAX_SCORES = 1 << 16


def attack_score(state: BattleState, action: Action) -> tuple[float, float]:
    """(P(drop), expected PV lost / PV left) of an attack action."""
    att = state.by_id[action.actor]
    dfn = state.by_id[str(action.target)]
    weapon = att.stats.weapons[str(action.item)]
    profile = state.ruleset.profile(state, att, dfn, weapon)  # type: ignore[attr-defined]
    key = (profile, dfn.resources["pv"])
    score = _SCORES.get(key)
    if score is None:
        if len(_SCORES) >= _MAX_SCORES:
            _SCORES.clear()
        pv = key[1]
        score = _SCORES[key] = (
            drop_probability(profile, pv),
            expected_pv_loss(profile) / max(pv, 1),
        )
    return score


def expected_damage(state: BattleState, action: Action) -> float:
    rules = state.ruleset
    att = state.by_id[action.actor]
    weapon = att.stats.weapons[str(action.item)]
    profile = rules.profile(state, att, state.by_id[str(action.target)], weapon)  # type: ignore[attr-defined]
    return expected_pv_loss(profile)


def _enemies(state: BattleState, c: Combatant) -> list[Combatant]:
    active = Status.ACTIVE
    return [t for t in state.combatants if t.side is not c.side and t.status is active]


def _attack_bands(state: BattleState, c: Combatant) -> frozenset[int]:
    """The distance bands at which ``c`` has a usable weapon now."""
    return state.ruleset.usable_bands(c)  # type: ignore[attr-defined,no-any-return]


class _View:
    """One decision's repeated questions about the acting combatant, answered once.

    Moves are weighed by keys that ask, for every neighbouring zone, how near the
    closest foe is and whether a foe is in reach; without this memo each key
    re-lists the foes and the usable weapons (the heuristic is the playtests' hot
    loop). Valid only while the state does not change, i.e. within one ``choose``.
    """

    __slots__ = ("hops_from", "bands_from", "foe_zones", "bands", "_near", "_reach")

    def __init__(self, state: BattleState, c: Combatant) -> None:
        field = state.battlefield
        self.hops_from = field.distances_from
        self.bands_from = functools.partial(state.ruleset.bands_from, field)  # type: ignore[attr-defined]
        self.foe_zones = [t.zone for t in _enemies(state, c)]
        self.bands = _attack_bands(state, c)
        self._near: dict[str, int] = {}
        self._reach: dict[str, bool] = {}

    def nearest(self, zone: str) -> int:
        """Hops from ``zone`` to the closest active foe (0 if none is left)."""
        near = self._near.get(zone)
        if near is None:
            hops = self.hops_from(zone)
            near = self._near[zone] = min([hops[z] for z in self.foe_zones], default=0)
        return near

    def can_attack_from(self, zone: str) -> bool:
        """Whether a usable weapon reaches some active foe from ``zone``."""
        reach = self._reach.get(zone)
        if reach is None:
            band_to, bands = self.bands_from(zone), self.bands
            reach = self._reach[zone] = any([band_to[z] in bands for z in self.foe_zones])
        return reach


def _shooter(c: Combatant) -> bool:
    return c.stats.ranged  # type: ignore[no-any-return]


def _hurt(c: Combatant) -> bool:
    return c.resources["pv"] * 2 < c.maxima["pv"]


def _side_broken(state: BattleState, c: Combatant) -> bool:
    mine = [a for a in state.combatants if a.side is c.side]
    out = sum(1 for a in mine if a.status is not Status.ACTIVE)
    return out * 2 >= len(mine)


def _best_move(
    state: BattleState, c: Combatant, moves: list[Action], key: Callable[[str], tuple[Any, ...]]
) -> Action | None:
    """The move with the highest ``key``, if it beats staying where ``c`` is."""
    # max() by hand so that each zone's key is computed once (ties keep the first, as max).
    best: Action | None = None
    best_key: tuple[Any, ...] = ()
    for move in moves:
        move_key = key(str(move.zone))
        if best is None or move_key > best_key:
            best, best_key = move, move_key
    return best if best is not None and best_key > key(c.zone) else None


def _approach_key(state: BattleState, c: Combatant) -> Callable[[str], tuple[Any, ...]]:
    view = _View(state, c)
    if _shooter(c):
        # Shooters want a shot, out of contact, in cover.
        zones = state.battlefield.zones
        return lambda z: (view.can_attack_from(z), view.nearest(z) > 0, zones[z].cover)
    return lambda z: (view.can_attack_from(z), -view.nearest(z))


def _away_key(state: BattleState, c: Combatant) -> Callable[[str], tuple[Any, ...]]:
    zones, view = state.battlefield.zones, _View(state, c)
    return lambda z: (zones[z].exit, view.nearest(z), zones[z].cover)


def _heal_worst(state: BattleState, heals: list[Action], threshold: float) -> Action | None:
    """The heal on the ally with the lowest PV fraction, if down or below ``threshold``."""
    candidates = []
    for heal in heals:
        ally = state.by_id[str(heal.target)]
        frac = ally.resources["pv"] / ally.maxima["pv"]
        if ally.status is Status.DOWN or frac < threshold:
            candidates.append((ally.status is not Status.DOWN, frac, heal))
    return min(candidates, key=lambda x: (x[0], x[1]))[2] if candidates else None


def _useful_help(state: BattleState, by_verb: ByVerb) -> Action | None:
    for a in by_verb.get("ayudar", []):
        ally = state.by_id[str(a.target)]
        if _View(state, ally).can_attack_from(ally.zone):
            return a
    return None


def _upkeep(by_verb: ByVerb) -> Action | None:
    for verb in ("recuperar_arma", "recargar"):
        if verb in by_verb:
            return by_verb[verb][0]
    return None


def _tactician(state: BattleState, c: Combatant, by_verb: ByVerb, rng: random.Random) -> Action:
    heal = _heal_worst(state, by_verb.get("curar", []), 1 / 3)
    if heal:
        return heal
    if "atacar" in by_verb:
        return max(by_verb["atacar"], key=lambda a: attack_score(state, a))
    move = _best_move(state, c, by_verb.get("mover", []), _approach_key(state, c))
    return move or _upkeep(by_verb) or _useful_help(state, by_verb) or by_verb["fin_turno"][0]


def _brute(state: BattleState, c: Combatant, by_verb: ByVerb, rng: random.Random) -> Action:
    if "atacar" in by_verb:
        hops = state.battlefield.distances_from(c.zone)

        def key(a: Action) -> tuple[int, int, float]:
            t = state.by_id[str(a.target)]
            return (-hops[t.zone], -t.resources["pv"], expected_damage(state, a))

        return max(by_verb["atacar"], key=key)
    view = _View(state, c)
    move = _best_move(state, c, by_verb.get("mover", []), lambda z: (-view.nearest(z),))
    return move or _upkeep(by_verb) or by_verb["fin_turno"][0]


def _cautious(state: BattleState, c: Combatant, by_verb: ByVerb, rng: random.Random) -> Action:
    if _hurt(c):
        self_heal = [a for a in by_verb.get("curar", []) if a.target == c.id]
        if self_heal:
            return self_heal[0]
        move = _best_move(state, c, by_verb.get("mover", []), _away_key(state, c))
        if move:
            return move
    attacks = by_verb.get("atacar", [])
    hops = state.battlefield.distances_from(c.zone)
    ranged = [a for a in attacks if hops[state.by_id[str(a.target)].zone] > 0]
    if ranged or attacks:
        return max(ranged or attacks, key=lambda a: attack_score(state, a))
    move = _best_move(state, c, by_verb.get("mover", []), _approach_key(state, c))
    return move or _upkeep(by_verb) or by_verb["fin_turno"][0]


def _coward(state: BattleState, c: Combatant, by_verb: ByVerb, rng: random.Random) -> Action:
    if not (_hurt(c) or _side_broken(state, c)):
        return _cautious(state, c, by_verb, rng)
    move = _best_move(state, c, by_verb.get("mover", []), _away_key(state, c))
    if move:
        return move
    if by_verb.get("atacar"):
        # Cornered (no step takes it further away): it fights back.
        return max(by_verb["atacar"], key=lambda a: attack_score(state, a))
    return by_verb["fin_turno"][0]


def _protector(state: BattleState, c: Combatant, by_verb: ByVerb, rng: random.Random) -> Action:
    heal = _heal_worst(state, by_verb.get("curar", []), 2 / 3)
    if heal:
        return heal
    allies = [a for a in state.combatants if a.side is c.side and a.active and a.id != c.id]
    ward = min(allies, key=lambda a: a.resources["pv"] / a.maxima["pv"], default=None)
    attacks = by_verb.get("atacar", [])
    if ward is not None:
        guarding = [a for a in attacks if state.by_id[str(a.target)].zone == ward.zone]
        if guarding:
            return max(guarding, key=lambda a: attack_score(state, a))
    helping = _useful_help(state, by_verb)
    if helping:
        return helping
    if attacks:
        return max(attacks, key=lambda a: attack_score(state, a))
    if ward is not None:
        dist = state.battlefield.distance
        move = _best_move(state, c, by_verb.get("mover", []), lambda z: (-dist(z, ward.zone),))
        if move:
            return move
    return _upkeep(by_verb) or by_verb["fin_turno"][0]


STRATEGIES = {
    "tactician": _tactician,
    "brute": _brute,
    "cautious": _cautious,
    "coward": _coward,
    "protector": _protector,
}


def choose(
    state: BattleState, actions: list[Action], rng: random.Random, temperament: str = "tactician"
) -> Action:
    by_verb: ByVerb = {}
    for a in actions:
        by_verb.setdefault(a.verb, []).append(a)
    c = state.by_id[actions[0].actor]
    if state.pending is not None and state.pending.name == "defensa_perfecta":
        # DD-08: a free attack is worth taking unless running is the plan.
        fleeing = temperament == "coward" and (_hurt(c) or _side_broken(state, c))
        if "contraatacar" in by_verb and not fleeing:
            return max(by_verb["contraatacar"], key=lambda a: attack_score(state, a))
        if fleeing or (temperament == "cautious" and _hurt(c)):
            move = _best_move(state, c, by_verb.get("reposicionar", []), _away_key(state, c))
            if move:
                return move
        return by_verb["pasar"][0]
    return STRATEGIES.get(temperament, _tactician)(state, c, by_verb, rng)
