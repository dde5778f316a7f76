"""docs/cli.md's synopsis block names every command and every option each one takes."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from escaramuza.cli import COMMAND_HELP, build_parser

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"

#: Options every command takes, described once under the block rather than per line.
COMMON = {"-h", "--help", "--lang"}


def synopses() -> dict[str, str]:
    """Command → its synopsis (continuation lines joined), from the doc's first code block."""
    block = DOC.read_text(encoding="utf-8").split("```\n", 2)[1]
    found: dict[str, str] = {}
    command = ""
    for line in block.splitlines():
        if line.startswith("escaramuza "):
            command = line.split()[1]
            found[command] = line
        elif line.startswith(" ") and command:
            found[command] += " " + line.strip()
    return found


def options_of(command: str) -> list[str]:
    parser = build_parser(command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[
        command
    ]
    out = []
    for action in sub._actions:
        if not action.option_strings or set(action.option_strings) & COMMON:
            continue
        longs = [o for o in action.option_strings if o.startswith("--")]
        out.append((longs or action.option_strings)[0])
    return out


@pytest.mark.parametrize("command", sorted(COMMAND_HELP))
def test_every_option_is_in_the_commands_synopsis(command: str) -> None:
    lines = synopses()
    assert command in lines, f"docs/cli.md has no synopsis for {command}"
    written = set(re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*)", lines[command]))
    missing = [o for o in options_of(command) if o not in written]
    assert missing == [], f"{command}: {missing} not in docs/cli.md's synopsis"
