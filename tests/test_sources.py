"""The code describes itself as it is: no comment or docstring narrates history (issue
numbers, session dates) or cites a document this repository does not hold (the rules'
source texts and design notes it was started from). Rule ids (DD-01 …) and the rules
texts' sentences stay: the ruleset pages in docs/rulesets/ carry them."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".py", ".yaml", ".yml", ".json", ".toml", ".js", ".html", ".css", ".cfg"}
FORBIDDEN = {
    "an issue number": re.compile(r"\b[Ii]ssues? #?\d+"),
    "a date": re.compile(r"\b20[2-9]\d-[01]\d-[0-3]\d\b"),
    "the design notes": re.compile(r"rules-notes|shared/design"),
    "a rules text's file": re.compile(r"\bseeds/[\w-]+\.txt|shared/seeds"),
}


def sources() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [
        ROOT / name
        for name in listed
        if Path(name).suffix in SUFFIXES and not name.startswith("tests/")
    ]


def test_the_file_list_is_the_repositorys() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in sources()}
    assert "rules/core/loops.py" in names and "pyproject.toml" in names


def test_no_source_narrates_history_or_cites_an_outside_document() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {what}: {line.strip()[:80]}"
        for path in sources()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for what, pattern in FORBIDDEN.items()
        if pattern.search(line)
    ]
    assert found == []
