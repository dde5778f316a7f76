"""Fast start: the light commands import only what they use.

Not timed (timings belong to benchmarks/startup.py): each command runs in a fresh
interpreter and the test looks at ``sys.modules`` afterwards.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from escaramuza.cli import COMMAND_HELP, build_parser
from escaramuza.rules.core.scenario import shipped_scenarios

#: Modules the light commands must not import: the learning stack, the planner, the GM
#: session and the web page.
HEAVY = (
    "torch",
    "gymnasium",
    "stable_baselines3",
    "escaramuza.agents.search",
    "escaramuza.gm",
    "escaramuza.web",
    "escaramuza.playtest",
    "escaramuza.training",
)

PROBE = """
import json, sys
from escaramuza.cli import main
code = main(json.loads(sys.argv[1]))
heavy = json.loads(sys.argv[2])
loaded = [m for m in heavy if any(k == m or k.startswith(m + ".") for k in sys.modules)]
print(json.dumps({"code": code, "loaded": loaded}))
"""


def imports_after(argv: list[str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv), json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["--help"],
        ["scenarios"],
        ["validate", next(iter(shipped_scenarios().values()))],
        ["schema", "scenario"],
    ],
    ids=lambda argv: argv[0],
)
def test_light_commands_import_nothing_heavy(argv: list[str]) -> None:
    assert imports_after(argv) == {"code": 0, "loaded": []}


def test_the_probe_sees_a_heavy_import() -> None:
    # `play` runs the agents' runner and the GM hooks: the probe must notice escaramuza.gm.
    result = imports_after(["play", "donjon/duelo", "--stop-after", "1"])
    assert result["code"] == 0 and "escaramuza.gm" in result["loaded"]  # type: ignore[operator]


def test_help_lines_are_the_commands_own() -> None:
    """The help line a command shows when it is not the one running is the one its own
    module defines, and every command has one, in the same order."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert {c.dest: c.help for c in sub._choices_actions} == COMMAND_HELP
    assert list(sub.choices) == list(COMMAND_HELP)
    lazy = build_parser("")
    lazy_sub = next(a for a in lazy._actions if isinstance(a, argparse._SubParsersAction))
    assert {c.dest: c.help for c in lazy_sub._choices_actions} == COMMAND_HELP
