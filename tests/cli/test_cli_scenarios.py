"""``escaramuza scenarios``: every shipped scenario, with its ruleset, sides and title."""

from __future__ import annotations

import json
import re

import pytest

from escaramuza.cli import main
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios


def test_cli_scenarios_lists_every_shipped_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "RULESET", "HEROES", "v", "ENEMIES", "TITLE"]
    names = list(shipped_scenarios())
    assert len(lines) == 1 + len(names)
    for name, line in zip(names, lines[1:], strict=True):
        scenario = load_scenario(name)
        heroes = sum(c.side is Side.HEROES for c in scenario.combatants)
        enemies = sum(c.side is Side.ENEMIES for c in scenario.combatants)
        assert line.split()[:5] == [name, scenario.ruleset.id, str(heroes), "v", str(enemies)]
        assert line.endswith(scenario.title)


def test_cli_scenarios_ships_the_destiny_dice_three(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios"]) == 0
    out = capsys.readouterr().out
    # The seed battles: Brann vs saqueador, Kaspar's shoot-out, a 4-vs-6 ambush.
    assert "destiny_dice/emboscada " in out
    assert "destiny_dice/brann-vs-saqueador " in out


def test_cli_scenarios_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["name"] for r in rows] == list(shipped_scenarios())
    emboscada = next(r for r in rows if r["name"] == "destiny_dice/emboscada")
    assert (emboscada["ruleset"], emboscada["heroes"], emboscada["enemies"]) == (
        "destiny_dice",
        4,
        6,
    )
    assert emboscada["zones"] >= 5


def test_cli_scenarios_header_is_in_the_asked_language(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios", "--lang", "es"]) == 0
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split() == ["NOMBRE", "REGLAMENTO", "HÉROES", "v", "ENEMIGOS", "TÍTULO"]
    # The columns still line up under the translated (wider) header.
    starts = [m.start() for m in re.finditer(r"\S+", lines[1])]
    assert starts[1] == lines[0].index("REGLAMENTO")
    assert starts[2] == lines[0].index("HÉROES")
