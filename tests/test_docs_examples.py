"""The YAML examples of the docs load: a reader copies them into a file."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from escaramuza.rules.core.scenario import parse_scenario

DOCS = Path(__file__).resolve().parents[1] / "docs"
YAML = re.compile(r"```yaml\n(.*?)```", re.S)


def test_the_scenario_format_example_is_a_valid_scenario() -> None:
    text = (DOCS / "scenario-format.md").read_text(encoding="utf-8")
    scenario = parse_scenario(yaml.safe_load(YAML.findall(text)[0]), "scenario-format.md")
    assert [c.id for c in scenario.combatants] == ["brann", "saqueador"]


def test_the_destiny_dice_stat_block_is_a_valid_hero() -> None:
    """The page's stat block, as a hero facing a copy of it."""
    text = (DOCS / "rulesets" / "destiny_dice.md").read_text(encoding="utf-8")
    (hero,) = yaml.safe_load(YAML.findall(text)[0])
    foe = {**hero, "id": "foe", "side": "enemies", "defensa": "d6"}
    doc = {
        "ruleset": "destiny_dice",
        "battlefield": {"zones": [{"id": hero["zone"]}]},
        "combatants": [hero, foe],
    }
    scenario = parse_scenario(doc, "destiny_dice.md")
    assert scenario.combatants[0].id == "brann"
