"""Cairn: its rules, CA-01 … CA-19, each with the sentence of its rules text it follows.

Every rule, the seed sentence it follows and the default where the seed is silent:

* CA-01 *(ext)* Save: d20 ≤ attribute succeeds; 1 always succeeds, 20 always fails
  (``combat.save``).
* CA-02 "Cada ronda comienza con cualquier PJ que pueda actuar, seguido por sus
  oponentes. El resultado de las acciones de cada lado ocurre simultáneamente": side
  turns, heroes first; each combatant of the side declares (one decision each, in
  scenario order), then the side resolves together (movement, then attacks).
* CA-03 "Durante la primera ronda de combate, cada PJ debe realizar una tirada de
  salvación de DES para poder actuar": option ``first_round_save`` (default on);
  stat ``waive_first_save`` for abilities/items that negate it.
* CA-04 "moverse hasta 12 metros y realizar una acción": one zone step plus the action;
  ``mover`` covers two zones (the second move is the action); an ``atacar`` one zone
  past its weapon's reach steps toward the target first (a blade's reach is its own
  zone); the risky action simulated is the retreat (CA-17).
* CA-05 "Los ataques en combate siempre impactan": weapon die − armadura (``armour``), to PI.
* CA-06 "se tiran todos los dados de daño y se conserva el resultado más alto".
* CA-07 Impedido → d4: the attacker's ``impaired`` flag, a ``distancia`` weapon's attack
  on a target whose ZONE has ``cover`` ≥ option ``cover_impairs_at`` *(default 1)*, an individual
  attacking a destacamento; unarmed is always d4.
* CA-08 Mejorado → d12: a ``helpless`` target, a destacamento attacking an individual.
  Both Impedido and Mejorado: option ``both_modifiers`` *(default ``cancel``: the
  weapon's own die)*.
* CA-09 Explosión: every opponent in the target's zone *(default area)*, one roll each,
  each joining that target's keep-highest pool.
* CA-10 Two weapons ``d8+d8``: both dice rolled, highest kept.
* CA-11 Damage past 0 PI comes off FUE, then a FUE save with the new FUE.
* CA-12 Daño Crítico: a PC is DOWN (crawling, ``dano_critico``); an NPC is DEAD.
* CA-13 Exactly 0 PI from an attack, PC only: Cicatrices entry = PI lost *(ext table
  1–12, ≥12 reads 12)*; out of action, privado and desjarretado simulated, the rest
  recorded as events (option ``scars``, default on). Entry 12's fight effect is
  option ``doomed``: ``out_of_action`` *(default)* or ``event`` (recorded only).
* CA-14 FUE 0 death; DES 0 paralizado; VOL 0 delirante (cannot act: DOWN if active).
* CA-15 Damage outside combat goes to an attribute: ``combat.damage_outside_combat``.
* CA-16 Destacamentos (stat ``destacamento``): Daño Crítico routs (FLED) *(default)*,
  FUE 0 destroys; individuals attacking it are Impedido (except Explosión); its
  attacks on individuals are Mejorado and Explosión.
* CA-17 Retreat ``huir``: a DES save, from or next to a zone marked ``exit``; success is
  FLED; failure leaves the character in the exit zone.
* CA-18 *(ext)* option ``morale`` (default off): the enemies' VOL saves on the first
  casualty and at half strength, a lone foe at 0 PI; failure flees at once.
* CA-19 *(ext)* ``armour`` ≤ 3; ``template: goblin|bandit|bugbear`` stat blocks.
* CA-20 *(ext)* Rest between the fights of one day (``escaramuza campaign``): PI back
  unless privado; lost attributes and the Cicatrices persist; Daño Crítico is
  stabilised by a standing companion or kills (:mod:`escaramuza.rules.cairn.recovery`).

Exact helpers: :mod:`escaramuza.rules.cairn.exact`.
"""

from escaramuza.rules.cairn.ruleset import Cairn

__all__ = ["Cairn"]
