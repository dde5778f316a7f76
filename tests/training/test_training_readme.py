"""The README's "Training and evaluation" commands run as written (with tiny budgets),
docs/training.md carries the same commands, and the shipped policies are usable."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from escaramuza.agents import make_agent
from escaramuza.agents.policy import SHIPPED_DIR, read_meta, shipped_policies
from escaramuza.cli import main
from escaramuza.rules import RULESETS
from escaramuza.rules.core.scenario import shipped_scenarios

ROOT = Path(__file__).resolve().parents[2]
SECTION = "Training and evaluation"


def _section(text: str) -> str:
    match = re.search(rf"^##+ {SECTION}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"no '{SECTION}' section"
    return match.group(1)


def _commands(text: str) -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", _section(text), re.S)
    return [ln for block in blocks for ln in block.splitlines() if ln.strip()]


def _tiny(argv: list[str]) -> list[str]:
    """The same command with a tiny budget: fewer timesteps and battles."""
    out = list(argv)
    for flag, small in (("--timesteps", "256"), ("-n", "2")):
        if flag in out:
            out[out.index(flag) + 1] = small
    return out


def test_docs_carry_the_readme_commands() -> None:
    readme = _commands((ROOT / "README.md").read_text(encoding="utf-8"))
    docs = _commands((ROOT / "docs" / "training.md").read_text(encoding="utf-8"))
    assert readme and readme == docs


@pytest.mark.training
@pytest.mark.compile
def test_readme_commands_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    commands = _commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert any(" train " in f" {c} " for c in commands)
    assert any(" evaluate " in f" {c} " for c in commands)
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "escaramuza"
        assert main(_tiny(argv[1:])) == 0, command
    out = capsys.readouterr().out
    assert "Ratings (OpenSkill" in out


@pytest.mark.training
@pytest.mark.parametrize("name", shipped_policies())
def test_shipped_policy_is_small_documented_and_plays(name: str) -> None:
    path = SHIPPED_DIR / f"{name}.zip"
    assert path.stat().st_size < 1_000_000
    meta = read_meta(path)
    assert meta is not None and meta.ruleset in RULESETS
    assert name in shipped_scenarios()  # named after the scenario it was trained on
    readme = (SHIPPED_DIR / "policies.md").read_text(encoding="utf-8")
    assert f"agents/policies/{name}.zip" in readme  # with the command that made it
    assert main(["play", name, "--enemies", f"policy:{name}", "--json"]) == 0
    assert make_agent(f"policy:{name}").meta.ruleset == name.split("/")[0]


def test_one_shipped_policy_per_ruleset() -> None:
    assert sorted({n.split("/")[0] for n in shipped_policies()}) == sorted(RULESETS)
