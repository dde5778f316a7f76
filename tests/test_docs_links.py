"""Every relative link of the README and docs/ points at a file that exists, and at a
heading of it where it names one (GitHub's anchors): a reader can follow every pointer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE = re.compile(r"`[^`\n]*`")


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown page: lower case, punctuation dropped,
    spaces to hyphens, a repeated anchor numbered."""
    seen: dict[str, int] = {}
    out = set()
    for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        if not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    text = CODE.sub("", FENCE.sub("", page.read_text(encoding="utf-8")))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#") and not target[1:]:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor}")
    assert broken == []


#: The packages' and the tests' sources, where comments point into docs/architecture.md.
SOURCES = sorted(
    p
    for folder in ("rules", "agents", "envs", "training", "escaramuza", "tests", "benchmarks")
    for p in (ROOT / folder).rglob("*.py")
)
CITATION = re.compile(r'architecture\.md,?\s+"([^"]+)"')


def test_every_architecture_citation_in_the_code_names_a_heading_of_it() -> None:
    """``architecture.md, "The fast path"`` in a comment is a section a reader finds."""
    # A heading is cited by its words before any parenthesis: "The engine core" for
    # "The engine core (`escaramuza.rules.core`)".
    headings = {
        line.lstrip("#").strip().split(" (")[0]
        for line in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }
    cited = {
        (str(p.relative_to(ROOT)), title)
        for p in SOURCES
        for title in CITATION.findall(p.read_text(encoding="utf-8"))
    }
    assert cited, "the code cites sections of docs/architecture.md"
    missing = sorted((where, t) for where, t in cited if t.split(" (")[0] not in headings)
    assert missing == []


#: The pages' budget: docs/ is a reference a reader can go through, not a lab notebook
#: (docs/contributing.md, "Writing docs"). The images and example outputs of docs/img/
#: are not pages; each must be shown by a page (below).
DOCS_BUDGET = 150_000


def test_the_docs_pages_stay_within_their_budget() -> None:
    pages = [
        p
        for p in PAGES
        if p.is_relative_to(ROOT / "docs") and not p.is_relative_to(ROOT / "docs" / "img")
    ]
    sizes = {str(p.relative_to(ROOT)): p.stat().st_size for p in pages}
    total = sum(sizes.values())
    largest = sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
    assert total <= DOCS_BUDGET, f"docs/ pages are {total:,} bytes; the largest: {largest}"


def test_every_image_under_docs_is_shown_by_a_page() -> None:
    """An image no page shows is weight a reader never sees (and goes stale unnoticed);
    a file is shown when a page links it, or names it (`` `summary.json` ``) beside it."""
    shown = {
        (page.parent / target.split("#")[0]).resolve()
        for page in PAGES
        for target in [
            *LINK.findall(page.read_text(encoding="utf-8")),
            *(c.strip("`") for c in CODE.findall(page.read_text(encoding="utf-8"))),
        ]
        if not re.match(r"[a-z]+:", target)
    }
    images = [p for p in (ROOT / "docs" / "img").rglob("*") if p.is_file()]
    orphans = [str(p.relative_to(ROOT)) for p in images if p.resolve() not in shown]
    assert orphans == []


#: ``docs/gm.md, "State file"`` (or ``gm.md "State file"``) in a comment, a docstring or a
#: shipped YAML file: a section of a page under docs/.
PAGE_CITATION = re.compile(r'([\w/-]+\.md),?\s+"([^"]+)"')


def _headings(page: Path) -> list[str]:
    return [
        line.lstrip("#").strip().replace("`", "").lower()
        for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines()
        if line.startswith("#")
    ]


def test_every_page_citation_in_the_code_names_a_heading_of_it() -> None:
    """A cited section exists: the citation is the start of one of the page's headings."""
    files = [*SOURCES, *(ROOT / "scenarios").rglob("*.yaml")]
    missing = []
    for path in files:
        for name, title in PAGE_CITATION.findall(path.read_text(encoding="utf-8")):
            pages = [p for p in (ROOT / "docs").rglob(Path(name).name) if p.suffix == ".md"]
            if not pages:
                continue  # README.md, a page outside docs/ or a generated report's name
            wanted = " ".join(title.replace("#", " ").replace("`", "").split()).lower()
            if not any(h.startswith(wanted) for p in pages for h in _headings(p)):
                missing.append(f"{path.relative_to(ROOT)}: {name}, {title!r}")
    assert missing == []
