"""The README's Quick start is what CI runs, and its play command works."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
import yaml

from escaramuza.cli import build_parser, main
from escaramuza.rules import RULESETS
from escaramuza.rules.core.scenario import parse_scenario, shipped_scenarios

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_RUN = ROOT / ".ci" / "run"


def section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.S | re.M)
    assert match, f"README has no '## {title}' section"
    return match.group(1)


def quick_start_commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", section("Quick start"), re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_quick_start_has_exactly_two_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    setup = (
        "python3 -m venv .venv && .venv/bin/pip install torch==2.13.0 && "
        ".venv/bin/pip install -e '.[dev]' && "
    )
    # The test command first installs Debian's chromium for the browser test (tests/web)
    # when it is missing and the user is root.
    browser = (
        '(command -v chromium >/dev/null || [ "$(id -u)" != 0 ] || '
        "(apt-get update -qq && apt-get install -y -qq chromium >/dev/null)) && "
    )
    assert commands[0].startswith(setup)
    assert commands[1].startswith(browser + setup)
    assert "/escaramuza play " in commands[0]
    # The kernels compile before anything else, not at the GM's first suggestion.
    assert " && .venv/bin/escaramuza warmup && " in commands[0]
    assert commands[1].endswith(".venv/bin/python -m pytest -q -n 2")


def test_ci_run_runs_exactly_the_readme_test_command() -> None:
    test_command = quick_start_commands()[1]
    script = CI_RUN.read_text(encoding="utf-8")
    assert os.access(CI_RUN, os.X_OK), ".ci/run must be executable"
    assert script.startswith("#!/usr/bin/env bash\n")
    lines = [ln for ln in script.splitlines()[1:] if ln.strip() and not ln.startswith("#")]
    assert test_command in lines, ".ci/run must contain the README's test command verbatim"
    # Nothing else runs: strict mode, go to the repository root, a fresh .venv, a cold
    # kernel cache (numba's, in the __pycache__ folders or NUMBA_CACHE_DIR), the command.
    others = [ln for ln in lines if ln != test_command]
    assert others == [
        "set -euo pipefail",
        'cd "$(dirname "$0")/.."',
        "rm -rf .venv",
        "unset NUMBA_CACHE_DIR",
        "find . -name __pycache__ -type d -prune -exec rm -rf {} +",
    ]


def test_readme_play_command_names_a_shipped_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    play = quick_start_commands()[0]
    argv = shlex.split(play.split(" && ")[-1])[1:]  # drop ".venv/bin/escaramuza"
    args = build_parser().parse_args(argv)
    assert args.command == "play"
    assert args.scenario in shipped_scenarios()
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Outcome: " in out
    # The README shows the first lines of exactly this battle.
    shown = re.search(r"starts like this:\n\n```\n(.*?)```", README, re.S)
    assert shown is not None
    for line in shown.group(1).splitlines():
        if line.strip() and "…" not in line:
            assert line in out.splitlines(), f"README shows a line the battle does not: {line}"


def test_readme_lists_every_registered_ruleset() -> None:
    rulesets = section("Rulesets")
    for ruleset_id in RULESETS:
        assert f"`{ruleset_id}`" in rulesets


def test_readme_scenario_example_is_valid() -> None:
    block = re.search(r"```yaml\n(.*?)```", section("Scenario files"), re.S)
    assert block is not None
    scenario = parse_scenario(yaml.safe_load(block.group(1)), "README.md")
    assert [c.id for c in scenario.combatants] == ["brann", "saqueador"]


@pytest.mark.parametrize("doc", ["docs/cli.md", "docs/scenario-format.md"])
def test_readme_links_to_existing_docs(doc: str) -> None:
    assert f"]({doc})" in README
    assert (ROOT / doc).is_file()


def test_the_readme_stays_a_front_page() -> None:
    """At most 8,000 bytes: what it is, the two commands, one example per user and the
    links; the reference lives in docs/."""
    assert len(README.encode("utf-8")) <= 8000


def test_the_readme_lists_every_command() -> None:
    from escaramuza.cli import COMMAND_HELP

    table = section("Commands")
    assert [c for c in COMMAND_HELP if f"`{c}`" not in table] == []
