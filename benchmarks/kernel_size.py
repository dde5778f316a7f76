"""How much code the compiled kernels are: lines per file, and how many of them are code.

The kernel code is each ruleset's compiled rules (``rules/<id>/kernel.py``, with
``rules/core/kernel.py``, the boundary every one of them uses), its compiled temperaments
(``agents/heuristics/<id>_kernel.py``), its read-back view (``rules/<id>/kernel_view.py``)
and the shared modules the four are written over (``rules/core/``: the dialect, the
layouts, the legal-list row, the loops, the shared mechanics and the Python side). Left
out: ``rules/core/mt.py`` (CPython's dice stream in numba) and ``rules/core/jit.py`` (the
compile-and-cache wrapper), which every kernel uses but which are not written per kernel
and predate this count. A line is counted once, as one of: code, docstring, comment,
blank. ``python benchmarks/kernel_size.py`` prints the table and the totals.
"""

from __future__ import annotations

import argparse
import ast
import io
import tokenize
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
#: The shared modules the four kernels are written over (``rules/core/``).
SHARED = ("dialect", "layout", "legal", "loops", "mechanics", "compiled")
KINDS = ("code", "docstring", "comment", "blank")


class Size(NamedTuple):
    """One file's lines by kind."""

    path: str
    code: int
    docstring: int
    comment: int
    blank: int

    @property
    def total(self) -> int:
        return self.code + self.docstring + self.comment + self.blank


def measure(path: str, text: str) -> Size:
    """The lines of ``text`` by kind: a docstring's lines (a module's, a class's or a
    function's first statement) are docstring; a line holding only a comment is comment;
    an empty one blank; every other is code."""
    lines = text.splitlines()
    docs: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docs.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    comments = {
        tok.start[0]
        for tok in tokenize.generate_tokens(io.StringIO(text).readline)
        if tok.type == tokenize.COMMENT and not lines[tok.start[0] - 1][: tok.start[1]].strip()
    }
    blank = {i for i, line in enumerate(lines, start=1) if not line.strip()}
    doc = len(docs - blank)
    comment = len(comments - docs)
    empty = len(blank)
    return Size(path, len(lines) - doc - comment - empty, doc, comment, empty)


def kernel_files(root: Path = ROOT) -> dict[str, list[Path]]:
    """The kernel code's files, by group."""
    return {
        "compiled rules": sorted(root.glob("rules/*/kernel.py")),
        "compiled temperaments": sorted(root.glob("agents/heuristics/*_kernel.py")),
        "read-back views": sorted(root.glob("rules/*/kernel_view.py")),
        "shared modules": [root / "rules" / "core" / f"{name}.py" for name in SHARED],
    }


def table(groups: dict[str, list[Path]], root: Path = ROOT) -> tuple[list[str], Size]:
    """The table's lines, one a file and one a group, and the grand total."""
    out = [f"{'file':52} {'lines':>6} " + " ".join(f"{k:>9}" for k in KINDS)]

    def row(name: str, s: Size) -> str:
        return f"{name:52} {s.total:6d} " + " ".join(f"{getattr(s, k):9d}" for k in KINDS)

    def add(sizes: Iterable[Size], name: str) -> Size:
        items = list(sizes)
        return Size(name, *(sum(getattr(s, k) for s in items) for k in KINDS))

    totals = []
    for group, paths in groups.items():
        sizes = [measure(str(p.relative_to(root)), p.read_text(encoding="utf-8")) for p in paths]
        out.extend(row(s.path, s) for s in sizes)
        totals.append(add(sizes, group))
        out.append(row(f"= {group}", totals[-1]))
    grand = add(totals, "all")
    out.append(row("= all kernel code", grand))
    return out, grand


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    lines, _grand = table(kernel_files())
    print("\n".join(lines))


if __name__ == "__main__":
    main()
