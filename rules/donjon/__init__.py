"""Donjon (the "Combate" chapter of its rules text): rule ids and defaults.

Pools of d20 (attributes 1–6 plus abilities) compared die by die; ráfagas in
which combatants act on every initiative number they rolled; distance in
actions between each pair of opponents. *(ext)* marks facts from the published
game, *(default)* this project's choices where the seed is silent (options or
documented behaviour).

* DJ-01 *(ext)* Opposed test: highest die wins; successes = winner's dice above
  the loser's highest; tied highest dice are set aside pairwise and count for
  the winner. All dice tied ⇒ defender wins with 0 *(default, option
  ``all_tied``)*. ``exact.opposed_test``, ``exact.opposed_distribution``.
* DJ-02 Unopposed test = a test against the DJ's difficulty pool *(default
  Fácil 1, Media 3, Difícil 5 dice; option ``dificultades``)*; used by the
  initiative abilities.
* DJ-03 "Los éxitos de la tirada pueden utilizarse como bonificadores para la
  Prueba de Daño": a won attack's successes are bonus damage dice (facts are not
  simulated).
* DJ-04 "cada jugador tira una cantidad de dados igual a su Nivel más su
  Discernimiento": Nivel + current Discernimiento; ``sorpresa`` successes add
  dice to the first ráfaga; ``skills.iniciativa`` > 0 rolls an unopposed
  Media test (ability + Celeridad) whose successes are bonus dice.
* DJ-05 "El DJ inicia una cuenta hacia atrás desde 20": the count runs from the
  die size (option ``die_size``) to 1; one action per die on the number called.
* DJ-06 "los PNJ siempre actuarán al último en caso de empates"; "una sola
  acción" at a time: PJ in scenario order, then PNJ in scenario order, round
  robin among those with several dice on the number. PJ = heroes and PNJ =
  enemies unless a sheet sets ``pc``.
* DJ-07 After 1, each side chooses ``continuar`` or ``retirarse``; if either
  continues a new ráfaga (new initiative, one scenario round); if neither, the
  battle ends in a draw with reason ``withdrawal``.
* DJ-08 "Durante una acción sólo puede realizarse una prueba": each action makes
  at most one test (damage tests do not count); movement successes carry to the
  next action's test.
* DJ-09 Hop distance between the two zones → en contacto (0), a una acción (1),
  a dos acciones (2), fuera del alcance (≥3). A scenario with two opponents
  more than two zone steps apart is rejected ("Nunca puedes comenzar el
  combate fuera de alcance").
* DJ-10 Moving one level (one zone step towards or away from an opponent)
  costs an action; that opponent may cross off its next number to resist
  (movement test Celeridad + ``movimiento`` each); the mover's successes are
  bonus dice for its next attack or movement test *(default: kept until used)*.
* DJ-11 A mover fuera del alcance of every active foe leaves the battle
  (status FLED); ``huir`` is the step from a dos acciones out of range (the
  nearest foe that can react may pursue *(default)*). A resisted escape from
  contact that fails gives the resister a free attack with its movement
  successes as bonus dice *(default: defended by a dodge only; the weapon with
  most dice at contact of those its pool with the successes can roll, none if
  none can)*.
* DJ-12 Range penalties per weapon kind and band (``combat.range_penalty``);
  *(default)* an attack needs at least one die after penalties.
* DJ-13 Attack = Celeridad + ``ataque`` (+ carried movement successes).
* DJ-14 Parry: only against melee, by a defender with a melee weapon and a
  number left to cross off; Celeridad + ``ataque``; the winner damages the
  loser (the defender with its best melee weapon).
* DJ-15 Dodge: free and unlimited, Celeridad + ``esquivar``; ranged and thrown
  attacks are always dodged; its successes are lost.
* DJ-16 Damage = Virilidad + weapon ``damage`` + ``skills.dano`` + carried
  successes vs Aguante + ``armour`` + ``skills.resistencia``.
* DJ-17 Each success is a ``repartir`` decision of the damage dealer: one
  Herida, or an attribute (the first success on each attribute is the fact,
  unless the victim has 0 Heridas); successes with nothing left to hit are lost.
* DJ-18 PNJ at 0 Heridas: unconscious (status DOWN); ``rematar`` kills it with
  no test at any distance its weapon reaches.
* DJ-19 PJ at 0 Heridas fights on; a PNJ damage test in which every die is a
  success against a PJ already at 0 Heridas breaks it *(default: already at 0
  before the test)* — DOWN, killable by ``rematar``. A PJ rolls at least one
  die in every damage test, dealing and resisting ("inclusive cuando su Aguante
  es reducido a cero"); a PNJ with an empty pool rolls none.
* DJ-20 :func:`heal_between_scenes`: each PJ recovers one attribute point
  (lowest damaged first) or else one Herida; ``between_adventures`` heals all.
* DJ-21 ``heridas`` is a required stat-block field.
"""

from __future__ import annotations

from escaramuza.rules.donjon.exact import (
    OpposedResult,
    hurt_probability,
    opposed_distribution,
    opposed_test,
    win_probability,
)
from escaramuza.rules.donjon.recovery import heal_between_scenes
from escaramuza.rules.donjon.ruleset import Donjon

__all__ = [
    "Donjon",
    "OpposedResult",
    "heal_between_scenes",
    "hurt_probability",
    "opposed_distribution",
    "opposed_test",
    "win_probability",
]
