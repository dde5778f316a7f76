"""Scenario texts shared by the loader tests (tests/test_scenario_errors.py) and
``escaramuza validate``'s (tests/cli/test_cli_validate.py): one valid two-combatant duel
that each test breaks in its own way."""

VALID = """\
name: mini
title: Mini duel
ruleset: destiny_dice
round_limit: 10
battlefield:
  zones:
    - {id: patio}
    - {id: puerta}
  links:
    - [patio, puerta]
combatants:
  - id: brann
    name: Brann
    side: heroes
    zone: patio
    cuerpo: d8
    mente: d6
    alma: d6
    pv: 12
    weapons:
      - {name: espada corta, tier: media}
  - id: saqueador
    side: enemies
    zone: puerta
    cuerpo: d6
    mente: d6
    alma: d4
    defensa: d6
    armour: 1
    pv: 8
    weapons:
      - {name: hacha, tier: ligera}
"""
