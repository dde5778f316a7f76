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

Written line for line with its compiled twin, :mod:`escaramuza.agents.heuristics.
destiny_dice_kernel`: the same functions in the same order of steps, calling the same
helpers — those every ruleset shares from :mod:`escaramuza.agents.heuristics.vocabulary`,
Destiny Dice's own here — where the kernel passes arrays and a legal list's rows.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from escaramuza.agents.heuristics import vocabulary
from escaramuza.agents.heuristics.vocabulary import (
    ByVerb,
    best_by,
    by_verb,
    first_on,
    foes,
    most_hurt_ally,
    side_out,
)
from escaramuza.rules.core.model import Action, Combatant, Status
from escaramuza.rules.core.state import BattleState
from escaramuza.rules.destiny_dice.exact import (
    AttackProfile,
    drop_probability,
    expected_pv_loss,
)

#: Which attacks :func:`best_attack` weighs: all, those on targets out of the attacker's
#: zone, those on targets in a zone.
ANY, FROM_RANGE, GUARDING = 0, 1, 2
#: The keys :func:`move_key` weighs steps by.
APPROACH, AWAY, NEARER, TOWARDS = 0, 1, 2, 3


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


def _attack_bands(state: BattleState, c: Combatant) -> frozenset[int]:
    """The distance bands at which ``c`` has a usable weapon now."""
    return state.ruleset.usable_bands(c)  # type: ignore[attr-defined,no-any-return]


class _View:
    """One decision's repeated questions about a combatant, answered once.

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
        self.foe_zones = [t.zone for t in foes(state, c)]
        self.bands = _attack_bands(state, c)
        self._near: dict[str, int] = {}
        self._reach: dict[str, bool] = {}

    def foe_hops(self, zone: str) -> int:
        """:func:`~escaramuza.agents.heuristics.vocabulary.foe_hops` from ``zone``."""
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


# -- the vocabulary's Destiny Dice words -----------------------------------------------


def hurt(c: Combatant) -> bool:
    """Below half its PV."""
    return c.resources["pv"] * 2 < c.maxima["pv"]


def side_broken(state: BattleState, c: Combatant) -> bool:
    """Half of ``c``'s side or more is out of the fight."""
    members, out = side_out(state, c)
    return out * 2 >= members


def move_key(
    state: BattleState, c: Combatant, kind: int, zone: str = ""
) -> Callable[[str], tuple[Any, ...]]:
    """The key :func:`best_move` weighs ``c``'s steps by: ``APPROACH`` a zone to attack
    from (a shooter's out of contact, in cover), ``AWAY`` from the foes (an exit, cover),
    ``NEARER`` the nearest foe, ``TOWARDS`` ``zone``."""
    zones = state.battlefield.zones
    if kind == TOWARDS:
        dist = state.battlefield.distance
        return lambda z: (-dist(z, zone),)
    view = _View(state, c)
    if kind == APPROACH:
        if c.stats.ranged:
            # Shooters want a shot, out of contact, in cover.
            return lambda z: (view.can_attack_from(z), view.foe_hops(z) > 0, zones[z].cover)
        return lambda z: (view.can_attack_from(z), -view.foe_hops(z))
    if kind == AWAY:
        return lambda z: (zones[z].exit, view.foe_hops(z), zones[z].cover)
    return lambda z: (-view.foe_hops(z),)


def best_move(
    state: BattleState, c: Combatant, actions: ByVerb, verb: str, kind: int, zone: str = ""
) -> Action | None:
    """The vocabulary's best_move of ``c``'s ``verb`` steps by :func:`move_key`."""
    return vocabulary.best_move(c, actions.get(verb, []), move_key(state, c, kind, zone))


def best_attack(
    state: BattleState, c: Combatant, actions: ByVerb, verb: str, among: int = ANY, zone: str = ""
) -> Action | None:
    """The ``verb`` attack with the best :func:`attack_score`: of them all (``ANY``), on
    targets out of ``c``'s zone (``FROM_RANGE``), on targets in ``zone`` (``GUARDING``)."""
    attacks = actions.get(verb, [])
    if among == FROM_RANGE:
        hops = state.battlefield.distances_from(c.zone)
        attacks = [a for a in attacks if hops[state.by_id[str(a.target)].zone] > 0]
    elif among == GUARDING:
        attacks = [a for a in attacks if state.by_id[str(a.target)].zone == zone]
    return best_by(attacks, lambda a: attack_score(state, a))


def brute_attack(state: BattleState, c: Combatant, actions: ByVerb) -> Action | None:
    """The brute's blow: the nearest target, then the weakest, then the hardest hit."""
    hops = state.battlefield.distances_from(c.zone)

    def key(a: Action) -> tuple[int, int, float]:
        t = state.by_id[str(a.target)]
        return (-hops[t.zone], -t.resources["pv"], expected_damage(state, a))

    return best_by(actions.get("atacar", []), key)


def heal_worst(state: BattleState, actions: ByVerb, threshold: float) -> Action | None:
    """The heal on the ally with the lowest PV fraction, if down or below ``threshold``
    (the fallen first)."""
    candidates = []
    for heal in actions.get("curar", []):
        ally = state.by_id[str(heal.target)]
        frac = ally.resources["pv"] / ally.maxima["pv"]
        if ally.status is Status.DOWN or frac < threshold:
            candidates.append((ally.status is not Status.DOWN, frac, heal))
    return min(candidates, key=lambda x: (x[0], x[1]))[2] if candidates else None


def useful_help(state: BattleState, actions: ByVerb) -> Action | None:
    """The first help on an ally who can attack from where it stands."""
    for a in actions.get("ayudar", []):
        ally = state.by_id[str(a.target)]
        if _View(state, ally).can_attack_from(ally.zone):
            return a
    return None


def upkeep(actions: ByVerb) -> Action | None:
    """Recover the dropped weapon, else reload."""
    for verb in ("recuperar_arma", "recargar"):
        if verb in actions:
            return actions[verb][0]
    return None


def end_turn(actions: ByVerb) -> Action:
    """``fin_turno`` on a turn, ``pasar`` on a reaction: the legal list's last action."""
    return (actions.get("fin_turno") or actions["pasar"])[0]


def press(state: BattleState, c: Combatant, actions: ByVerb) -> Action | None:
    """The best attack, else a step to attack from, else upkeep."""
    act = best_attack(state, c, actions, "atacar")
    if act is None:
        act = best_move(state, c, actions, "mover", APPROACH)
    if act is None:
        act = upkeep(actions)
    return act


# -- the temperaments ------------------------------------------------------------------


def tactician(state: BattleState, c: Combatant, actions: ByVerb) -> Action:
    act = heal_worst(state, actions, 1 / 3)
    if act is None:
        act = press(state, c, actions)
    if act is None:
        act = useful_help(state, actions)
    return act if act is not None else end_turn(actions)


def brute(state: BattleState, c: Combatant, actions: ByVerb) -> Action:
    act = brute_attack(state, c, actions)
    if act is None:
        act = best_move(state, c, actions, "mover", NEARER)
    if act is None:
        act = upkeep(actions)
    return act if act is not None else end_turn(actions)


def cautious(state: BattleState, c: Combatant, actions: ByVerb) -> Action:
    act: Action | None = None
    if hurt(c):
        act = first_on(actions.get("curar", []), "curar", c)
        if act is None:
            act = best_move(state, c, actions, "mover", AWAY)
    if act is None:
        act = best_attack(state, c, actions, "atacar", FROM_RANGE)
    if act is None:
        act = press(state, c, actions)
    return act if act is not None else end_turn(actions)


def coward(state: BattleState, c: Combatant, actions: ByVerb) -> Action:
    """The coward hurt or on a broken side (otherwise :func:`choose` plays it cautious)."""
    act = best_move(state, c, actions, "mover", AWAY)
    if act is None:
        # Cornered (no step takes it further away): it fights back.
        act = best_attack(state, c, actions, "atacar")
    return act if act is not None else end_turn(actions)


def protector(state: BattleState, c: Combatant, actions: ByVerb) -> Action:
    act = heal_worst(state, actions, 2 / 3)
    ward = most_hurt_ally(state, c, "pv")
    if act is None and ward is not None:
        act = best_attack(state, c, actions, "atacar", GUARDING, ward.zone)
    if act is None:
        act = useful_help(state, actions)
    if act is None:
        act = best_attack(state, c, actions, "atacar")
    if act is None and ward is not None:
        act = best_move(state, c, actions, "mover", TOWARDS, ward.zone)
    if act is None:
        act = upkeep(actions)
    return act if act is not None else end_turn(actions)


def react(state: BattleState, c: Combatant, actions: ByVerb, temperament: str) -> Action:
    """DD-08's reaction to a perfect defence: a free attack is worth taking unless running
    is the plan."""
    fleeing = temperament == "coward" and (hurt(c) or side_broken(state, c))
    act: Action | None = None
    if not fleeing:
        act = best_attack(state, c, actions, "contraatacar")
    if act is None and (fleeing or (temperament == "cautious" and hurt(c))):
        act = best_move(state, c, actions, "reposicionar", AWAY)
    return act if act is not None else end_turn(actions)


def choose(
    state: BattleState, actions: list[Action], rng: random.Random, temperament: str = "tactician"
) -> Action:
    """The legal action ``temperament`` picks for the pending decision (any other name than
    the five plays the tactician; the ``random`` temperament never comes here)."""
    grouped = by_verb(actions)
    c = state.by_id[actions[0].actor]
    if state.pending is not None and state.pending.name == "defensa_perfecta":
        return react(state, c, grouped, temperament)
    if temperament == "brute":
        return brute(state, c, grouped)
    if temperament == "coward":
        if hurt(c) or side_broken(state, c):
            return coward(state, c, grouped)
        temperament = "cautious"  # the coward unhurt, on a side holding
    if temperament == "cautious":
        return cautious(state, c, grouped)
    if temperament == "protector":
        return protector(state, c, grouped)
    return tactician(state, c, grouped)
