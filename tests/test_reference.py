"""The reference pages the code holds are generated from it and current: docs/cli.md from
the argparse parsers, each ruleset's options table from its options model, the env ids'
table from the registered envs, the GM session's commands from its help
(escaramuza/reference.py). The checks of what the pages say read the parsers and models
themselves, not the generator, so a generator that dropped an option would fail them."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from escaramuza import reference
from escaramuza.cli import COMMAND_HELP, build_parser
from escaramuza.rules import RULESETS, get_ruleset

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def test_every_generated_page_is_current() -> None:
    stale = [
        str(path.relative_to(ROOT))
        for path, text in reference.expected_pages().items()
        if path.read_text(encoding="utf-8") != text
    ]
    assert stale == [], f"{stale} differ from the code: run {reference.FIX}"


def test_the_pages_do_not_depend_on_the_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """Made in English whatever ESCARAMUZA_LANG says, so a Spanish shell makes the same page."""
    english = reference.cli_markdown()
    monkeypatch.setenv("ESCARAMUZA_LANG", "es")
    assert reference.cli_markdown() == english


def _section(command: str) -> str:
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    match = re.search(rf"^## `escaramuza {command}`\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"docs/cli.md has no section for {command}"
    return match.group(1)


def _subparser(command: str) -> argparse.ArgumentParser:
    parser = build_parser(command)
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub: argparse.ArgumentParser = action.choices[command]
    return sub


@pytest.mark.parametrize("command", list(COMMAND_HELP))
def test_each_command_has_its_synopsis_and_every_option(command: str) -> None:
    section = _section(command)
    synopsis = section.split("```\n", 2)[1]
    assert synopsis.startswith(f"escaramuza {command}")
    for action in _subparser(command)._actions:
        if {"-h", "--help", "--lang"} & set(action.option_strings):
            continue
        if action.option_strings:
            name = action.option_strings[0]  # as argparse's usage line writes it
            assert name in synopsis, f"{command}: {name} missing from the synopsis"
            assert f"| `{name}" in section, f"{command}: no {name} row"
        else:
            assert f"| `{action.metavar or action.dest}` |" in section, f"{command}: {action.dest}"


def _fields(model: type[BaseModel], prefix: str = "") -> list[tuple[str, str | None]]:
    out = []
    for name, field in model.model_fields.items():
        out.append((prefix + name, field.description))
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            out += _fields(field.annotation, f"{prefix}{name}.")
    return out


@pytest.mark.parametrize("ruleset_id", list(RULESETS))
def test_every_option_is_described_and_in_its_rulesets_table(ruleset_id: str) -> None:
    fields = _fields(get_ruleset(ruleset_id).options_model)
    assert fields
    assert [name for name, description in fields if not description] == []
    page = (DOCS / "rulesets" / f"{ruleset_id}.md").read_text(encoding="utf-8")
    table = page.split("<!-- options:begin -->")[1].split("<!-- options:end -->")[0]
    assert [name for name, _ in fields if f"| `{name}` |" not in table] == []


def test_the_env_reference_is_its_docstring_in_gymnasiums_sections() -> None:
    from escaramuza.envs.single import EscaramuzaEnv

    headings = re.findall(r"^\s*## (.+)$", EscaramuzaEnv.__doc__ or "", re.M)
    assert headings == [
        "Description",
        "Action Space",
        "Observation Space",
        "Rewards",
        "Starting State",
        "Episode End",
        "Arguments",
        "Version History",
    ]
    assert "](../envs/single.py)" in (DOCS / "environments.md").read_text(encoding="utf-8")


def test_the_gm_page_lists_every_session_command() -> None:
    from escaramuza.gm import HELP

    page = (DOCS / "gm.md").read_text(encoding="utf-8")
    table = page.split("<!-- gm-commands:begin -->")[1].split("<!-- gm-commands:end -->")[0]
    assert [name for name in HELP if f"| `{name}" not in table] == []


def test_a_block_is_replaced_between_its_markers_and_nothing_else() -> None:
    text = "head\n<!-- x:begin -->\nold\n<!-- x:end -->\ntail\n"
    new = reference.replace_block(text, "x", "new", Path("page.md"))
    assert new == "head\n<!-- x:begin -->\nnew\n<!-- x:end -->\ntail\n"
    assert reference.replace_block(new, "x", "new", Path("page.md")) == new
    with pytest.raises(reference.StalePageError, match="page.md: no '<!-- y:begin -->'"):
        reference.replace_block(text, "y", "new", Path("page.md"))


def test_check_names_a_stale_page_and_write_fixes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "cli.md"
    page.write_text("stale\n", encoding="utf-8")
    monkeypatch.setattr(reference, "ROOT", tmp_path)
    monkeypatch.setattr(reference, "expected_pages", lambda: {page: "current\n"})
    assert reference.main(["--check"]) == 1
    assert "cli.md is stale: run python -m escaramuza.reference --write" in capsys.readouterr().out
    assert reference.main(["--write"]) == 0
    assert page.read_text(encoding="utf-8") == "current\n"
    assert reference.main(["--check"]) == 0
