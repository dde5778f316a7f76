"""Every command's ``--help`` renders: argparse %-formats help strings, so a literal
percent must be ``%%`` in an argument's help and ``%`` in a description; neither may
leak into the output as ``%%``."""

from __future__ import annotations

import pytest

from escaramuza.cli import main

COMMANDS = ["play", "playtest", "scenarios", "suggest", "gm", "serve", "train", "evaluate"]


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_renders_without_doubled_percent(
    capsys: pytest.CaptureFixture[str], command: str | None
) -> None:
    code = main([command, "--help"] if command else ["--help"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "%%" not in out
    assert "usage: escaramuza" in out


@pytest.mark.parametrize("command", ["playtest", "suggest", "evaluate"])
def test_help_shows_the_95_percent_interval(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert main([command, "--help"]) == 0
    assert "95%" in " ".join(capsys.readouterr().out.split())
