"""Sistema 2d10: its rules, S2-01 … S2-15.

Rule ids, the seed sentence each follows, and where the seed is silent the
*(default)* this project chose (docs/rulesets/sistema_2d10.md has the full list):

* S2-01 "2D10 + MHC + Modificador de Situación (MS)" vs a difficulty (Fácil 5 …
  Extrema 25); "la suma iguala o supera la dificultad" ⇒ éxito (``rolls.judge``).
* S2-02 "se utiliza la decena como modificador": MHC = (Habilidad + Característica) // 10.
* S2-03 "Crítico: 10 en ambos dados", "Pifia: 1 en ambos dados", whatever the
  modifiers; *(default)* judged on the two natural dice, never on a Dado Exprés.
* S2-04 Grados: 0–3 justo, 4–9 seguro, ≥10 aplastante (of the margin or shortfall).
* S2-05 Dados Exprés: "1 dado exprés ... a cualquier tirada de habilidad", one per
  roll, "antes o después de realizar la tirada" (decisions ``expres_before`` /
  ``expres_after`` of the roller's side), never on damage, "cederse" (verb
  ``ceder_dado``, one action). *(default)* not offered on initiative; recovery by
  role-play is not simulated.
* S2-06 "Iniciativa: 2D10 + MHC (Reflejos + Sentidos)", once at the start;
  *(default)* ties keep scenario order.
* S2-07 "de 1 a 3 acciones libres": the ``acciones`` stat field (no table).
* S2-08 Defensa pasiva 10 + MHC(Reflejos + Esquivar | Evitar/Cubrir); an attack
  that beats it (*(default)* ≥, option ``passive_beats``) offers the defender an
  active defence (decision ``active_defence``) while it has defences left this
  round (one per action); an active total ≥ the attack total blocks (*(default)*,
  option ``active_blocks``); *(default)* a crítico attack is only blocked by a crítico.
* S2-09 "Defensa Completa": the whole turn, +3 to active defence rolls until the
  bearer's next turn (option ``full_defence_bonus``).
* S2-10 Extra actions from Técnicas (``extra_actions``) add turn actions but "no
  otorga una acción refleja de defensa".
* S2-11 "Se tira el daño del arma y se le resta la CA ... se resta de los Puntos de
  Vitalidad"; *(default)* 0 PV = down.
* S2-12 Localización: 1d10 on the location table (YAML, *(default)* table in
  ``tables/default.yaml``); head and punto vital multiply (damage − CA).
* S2-13 Ataques apuntados: MS by location from the table; the hit lands there.
* S2-14 Losing ≥ half the current PV in one attack: Aguante 2d10 + MHC(Resistencia
  al Dolor + Aguante) vs 16; below ⇒ GDF, exactly 16 ⇒ aturdido next turn.
* S2-15 GDF 1d10 table (YAML *(default)*): aturdido, sangrado, incapacitado,
  derribado, inconsciente, moribundo.
"""

from __future__ import annotations

from escaramuza.rules.sistema_2d10.ruleset import Sistema2d10

__all__ = ["Sistema2d10"]
