"""Destiny Dice (``destiny_dice``): its rules, each with the sentence of its rules text.

Rule by rule (ids DD-01 … DD-19, docs/rulesets/destiny_dice.md), what the engine does:

* DD-01 Initiative: everyone rolls Mente once at the start, a hero down too (not a
  defeated enemy); highest first.
* DD-02 Ties: heroes before enemies ("Los Héroes SIEMPRE actúan antes"); within a
  side *(default)* scenario order.
* DD-03 A turn is one zone step (``mover``) and ONE main action (``atacar``,
  ``ayudar``, ``curar``, ``recargar``, ``recuperar_arma``), in either order, or
  ``fin_turno``.
* DD-04 ``ayudar``: +``help_bonus`` (option, default 1) to the ally's next roll
  (attack, defence or Alma test); no roll. *(default)* the ally must be within
  cerca.
* DD-05 Bands: 0 hops cuerpo a cuerpo, 1 cerca, ≥2 lejos; weapons list the bands
  they reach.
* DD-06 Opposed roll: Cuerpo (``kind: cuerpo_a_cuerpo``) or Mente (``kind: distancia``)
  against Defensa — a hero's Cuerpo die, an enemy's Defensa die — plus ``armour``
  (armadura) and ``shield`` (escudo).
* DD-07 Both roll the d20 del Destino.
* DD-08 Defence d20 = 20 and the defence wins: the defender's reaction decision,
  ``contraatacar`` (free attack on the attacker), ``reposicionar`` (one zone
  step) or ``pasar``.
* DD-09 Defence d20 = 1: 1 automatic damage; option ``fumble_damage``:
  ``always`` *(default: "Aunque tu Defensa supere al Ataque")* | ``defence_wins``.
* DD-10 Hit if Ataque ≥ Defensa; option ``ties_favor`` = ``attacker`` (rule
  text, default) | ``defender`` (the Zara example).
* DD-11 Damage: the same characteristic die again + the weapon's bonus;
  unarmed die − 1, minimum 1; then the weapon's special ``bonus``.
* DD-12 Tiers ligera +1 (d4), media +2 (d6), pesada +3 (d8, two hands; no
  shield); a weapon above its wielder's die is rejected when loading.
* DD-13 Two weapons: still one attack per turn (``atacar`` is the main action).
* DD-14 A hit earns 2 PC/PM/PA (pool of the characteristic used), capped at
  ``energy_max`` (a stat-block field, default 10).
* DD-15 Enemy at 0 PV: ``defeated``.
* DD-16 Hero at 0 PV: ``down`` (Fuera de Combate), back at once when healed, acting
  at its place in the initiative order; otherwise wakes with 1 PV when the battle ends.
* DD-17 ``short_rest`` / ``long_rest`` in :mod:`.recovery`.
* DD-18 Shooting with a d20 of 1: automatic miss (the defence is not rolled);
  option ``jam_on_one`` (default true): the weapon jams until ``recargar``.
* DD-19 States: temporal ones (Derribado, Inmóvil, Paralizado) end at the start
  of the bearer's next turn, before Envenenado's damage, and apply their effect to
  that turn (stand up with the main action / no zone change / lose the turn);
  Desarmado lasts until ``recuperar_arma``; persistent ones (Ciego −2 to attacks,
  Asustado — Alma vs 5 to approach a source, each foe that frightened it,
  *(default)* any active foe when it has none, Envenenado X damage at each turn
  start) last until cured or a long rest.
* DD-20 The seed's worked examples are reproduced in the tests with scripted dice.
"""

from escaramuza.rules.destiny_dice.recovery import long_rest, short_rest
from escaramuza.rules.destiny_dice.ruleset import DestinyDice

__all__ = ["DestinyDice", "long_rest", "short_rest"]
