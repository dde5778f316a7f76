"""mypy over the package as it is installed, against a baseline that only shrinks.

docs/contributing.md, "Type checking". From the repository root::

    python -m tests.tooling.mypy_baseline            # the check CI runs (tests/test_tooling.py)
    python -m tests.tooling.mypy_baseline --all      # every error, with its line
    python -m tests.tooling.mypy_baseline --prune    # drop the entries mypy no longer reports
    python -m tests.tooling.mypy_baseline --update   # rewrite the baseline from mypy's errors

Why a helper rather than a plain ``mypy`` call: the repository's top-level folders
(``rules/``, ``envs/``, ``agents/``…) are the subpackages ``escaramuza.rules``, … of one
package, mapped by setuptools' ``package-dir`` (pyproject.toml). mypy resolves imports from
folders only: from the repository root ``escaramuza.rules`` is not found, and the editable
install (``pip install -e``) maps it with an import hook, which mypy does not run. So the
helper lays the package out as installed — a temporary folder holding ``escaramuza/`` whose
entries are symlinks to the repository's files, with ``escaramuza/rules`` → ``rules/`` and
so on for every ``package-dir`` entry — and runs ``mypy -p escaramuza`` there, with the
configuration of pyproject.toml (``[tool.mypy]``) and the incremental cache in the
repository's ``.mypy_cache``. Paths are reported as the repository's (``rules/core/x.py``).

The baseline (mypy-baseline.txt beside this file) has one line per error mypy reports,
``path: error-code: message`` without the line number, so that an edit elsewhere in a file
does not change it. The check fails on an error the baseline does not have (naming it) and
on an entry mypy no longer reports (the baseline only shrinks: remove the entry). The
strict part of the package (:data:`STRICT`) never has an entry.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = REPO / "pyproject.toml"
BASELINE = Path(__file__).resolve().with_name("mypy-baseline.txt")
#: mypy's incremental cache (mypy keeps it out of git with a .gitignore of its own).
CACHE_DIR = REPO / ".mypy_cache"
PACKAGE = "escaramuza"
COMMAND = "python -m tests.tooling.mypy_baseline"

#: The strict part of the package, as repository paths (keep in step with the strict
#: override of pyproject.toml's [tool.mypy]): no error there is recorded in the baseline.
STRICT = ("rules/core/", "envs/", "agents/")
#: ... except these modules (patterns), checked like the rest of the package: their
#: errors are in the baseline (pyproject.toml says why).
NOT_STRICT = ("agents/heuristics/*_kernel.py",)

#: A message longer than this is recorded cut, with a digest of the whole (mypy spells out
#: some types in full: matplotlib's rcParams keys are a Literal of 300 strings).
MAX_MESSAGE = 240
_HEADER = """\
# mypy's errors outside the strict part of the package (tests/tooling/mypy_baseline.py),
# one line per error: `path: error-code: message`, no line numbers. It only shrinks: the
# check (tests/test_tooling.py) fails on an error not listed here and on an entry mypy no
# longer reports. `python -m tests.tooling.mypy_baseline --prune` removes those entries;
# `--update` rewrites the file from mypy's report (docs/contributing.md, "Type checking").
"""


def is_strict(path: str) -> bool:
    """Whether the repository path ``path`` is in the strict part of the package."""
    return path.startswith(STRICT) and not any(fnmatch(path, p) for p in NOT_STRICT)


@dataclass(frozen=True, slots=True)
class Error:
    """One error of mypy's report, its path the repository's."""

    path: str
    line: int
    code: str
    message: str

    @property
    def key(self) -> str:
        """The baseline's line for this error."""
        return baseline_line(self.path, self.code, self.message)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: error: {self.message}  [{self.code}]"


def baseline_line(path: str, code: str, message: str) -> str:
    """``path: code: message``, the message on one line, without line numbers (mypy
    names some: "already defined on line 12") and cut to :data:`MAX_MESSAGE`."""
    text = re.sub(r"\bline \d+\b", "line N", " ".join(message.split()))
    if len(text) > MAX_MESSAGE:
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        text = f"{text[: MAX_MESSAGE - 40]}… (cut; sha256 {digest})"
    return f"{path}: {code}: {text}"


# -- the package as installed -----------------------------------------------------------


def package_dirs() -> dict[str, Path]:
    """setuptools' ``package-dir`` of pyproject.toml: each mapped package's folder."""
    with PYPROJECT.open("rb") as f:
        mapping: dict[str, str] = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    dirs = {name: (REPO / folder).resolve() for name, folder in mapping.items()}
    dirs.setdefault(PACKAGE, REPO / PACKAGE)
    return dirs


def build_tree(root: Path) -> None:
    """Lay the package out under ``root`` as installed: ``root/escaramuza`` with a symlink
    for each entry of ``escaramuza/`` and one for each mapped subpackage
    (``root/escaramuza/rules`` → ``rules/``)."""
    dirs = package_dirs()

    def lay(name: str, src: Path, dest: Path) -> None:
        if not any(other.startswith(name + ".") for other in dirs):
            dest.symlink_to(src, target_is_directory=src.is_dir())
            return
        dest.mkdir()
        for entry in sorted(src.iterdir()):
            child = f"{name}.{entry.name}"
            if entry.name == "__pycache__" or child in dirs:
                continue
            if entry.is_dir():
                lay(child, entry, dest / entry.name)
            else:
                (dest / entry.name).symlink_to(entry)
        for child, folder in sorted(dirs.items()):
            if child.rpartition(".")[0] == name:
                lay(child, folder, dest / child.rpartition(".")[2])

    lay(PACKAGE, dirs[PACKAGE], root / PACKAGE)


def repo_path(tree_path: str) -> str:
    """The repository path of a path mypy reports from the tree (``escaramuza/rules/x.py``
    → ``rules/x.py``); other paths as they are."""
    parts = Path(tree_path).parts
    dirs = package_dirs()
    for n in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:n])
        if name in dirs:
            return (dirs[name] / Path(*parts[n:])).relative_to(REPO).as_posix()
    return tree_path


# -- running mypy -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Report:
    errors: list[Error]
    seconds: float


def run_mypy(args: Sequence[str] = ()) -> Report:
    """``mypy -p escaramuza`` (same Python) over the package as installed."""
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    with tempfile.TemporaryDirectory(prefix="escaramuza-mypy-") as tmp:
        build_tree(Path(tmp))
        start = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "mypy",
                "--config-file",
                str(PYPROJECT),
                "--cache-dir",
                str(CACHE_DIR),
                "--output",
                "json",
                *args,
                "-p",
                PACKAGE,
            ],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"mypy failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")
    # Anything besides the report is about the configuration (an unrecognized option, an
    # override matching no module): a mistake there would silently weaken the check.
    said = [line for line in proc.stdout.splitlines() if line and not line.startswith("{")]
    if said or proc.stderr.strip():
        raise RuntimeError("mypy: " + "\n".join([*said, proc.stderr.strip()]).strip())
    errors = []
    for line in proc.stdout.splitlines():
        if not line:
            continue
        item = json.loads(line)
        if item["severity"] != "error":
            continue
        errors.append(
            Error(
                path=repo_path(item["file"]),
                line=int(item["line"]),
                code=item["code"] or "error",
                message=item["message"],
            )
        )
    if proc.returncode == 1 and not errors:
        raise RuntimeError(f"mypy exited 1 with no error read:\n{proc.stdout}{proc.stderr}")
    errors.sort(key=lambda e: (e.path, e.line, e.code, e.message))
    return Report(errors, seconds)


# -- the baseline -----------------------------------------------------------------------


def read_baseline(path: Path = BASELINE) -> Counter[str]:
    """The baseline's entries, each with the number of times it is listed."""
    if not path.exists():
        return Counter()
    lines = path.read_text(encoding="utf-8").splitlines()
    return Counter(line for line in lines if line.strip() and not line.startswith("#"))


def write_baseline(entries: Iterable[str], path: Path = BASELINE) -> None:
    path.write_text(_HEADER + "".join(f"{e}\n" for e in sorted(entries)), encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Comparison:
    #: Errors whose entry mypy reports more often than the baseline lists it (all the
    #: occurrences of such an entry: the baseline has no line numbers to tell which).
    new: list[Error]
    #: Baseline entries mypy no longer reports (once per missing occurrence).
    stale: list[str]
    #: Errors in the strict part of the package (never in the baseline).
    strict: list[Error]


def compare(errors: Sequence[Error], baseline: Counter[str]) -> Comparison:
    found = Counter(e.key for e in errors)
    extra = found - baseline
    return Comparison(
        new=[e for e in errors if extra[e.key] > 0],
        stale=sorted((baseline - found).elements()),
        strict=[e for e in errors if is_strict(e.path)],
    )


def explain(result: Comparison) -> str:
    """What failed and what to do, for the check's output."""
    parts = []
    if result.strict:
        parts.append(
            "mypy errors in the strict part of the package (these are never recorded in the "
            "baseline: fix them):\n" + "\n".join(f"  {e}" for e in result.strict)
        )
    new = [e for e in result.new if not is_strict(e.path)]
    if new:
        parts.append(
            "mypy errors not in the baseline: fix them (recording one instead, with "
            f"`{COMMAND} --update`, wants a reason in review):\n" + "\n".join(f"  {e}" for e in new)
        )
    if result.stale:
        parts.append(
            f"baseline entries mypy no longer reports — remove them from "
            f"{BASELINE.relative_to(REPO)} (or run `{COMMAND} --prune`):\n"
            + "\n".join(f"  {s}" for s in result.stale)
        )
    return "\n\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--all", action="store_true", help="list every error, with its line")
    mode.add_argument("--prune", action="store_true", help="drop the stale baseline entries")
    mode.add_argument("--update", action="store_true", help="rewrite the baseline")
    options = parser.parse_args(argv)

    report = run_mypy()
    baseline = read_baseline()
    result = compare(report.errors, baseline)
    print(
        f"mypy: {len(report.errors)} errors ({report.seconds:.1f} s); baseline: "
        f"{sum(baseline.values())} entries"
    )
    if options.all:
        for e in report.errors:
            print(f"{e}{'' if e.key in baseline else '  (not in the baseline)'}")
    if options.update:
        if result.strict:
            print(explain(Comparison(new=[], stale=[], strict=result.strict)))
            return 1
        write_baseline(e.key for e in report.errors)
        print(f"{BASELINE.relative_to(REPO)}: {len(report.errors)} entries written")
        return 0
    if options.prune:
        kept = baseline - Counter(result.stale)
        write_baseline(kept.elements())
        print(f"{BASELINE.relative_to(REPO)}: {len(result.stale)} entries removed")
        result = compare(report.errors, kept)
    text = explain(result)
    if text:
        print(text)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
