"""The repository's static checks, run as tests (docs/contributing.md): ruff's linter and
formatter over the tree, and mypy over the package against its baseline."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from tests.tooling import mypy_baseline
from tests.tooling.mypy_baseline import COMMAND, REPO


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


def test_ruff_check_is_clean():
    proc = _ruff("check", ".")
    assert proc.returncode == 0, f"`ruff check .` found problems:\n{proc.stdout}{proc.stderr}"


def test_ruff_format_is_clean():
    proc = _ruff("format", "--check", ".")
    assert proc.returncode == 0, (
        f"`ruff format --check .` would reformat files (run `ruff format .`):\n"
        f"{proc.stdout}{proc.stderr}"
    )


def test_type_checker_is_at_or_below_its_baseline():
    """mypy (strict on rules.core, envs and agents; pyproject.toml's [tool.mypy]) reports
    no error outside tests/tooling/mypy-baseline.txt, and every entry there still occurs.

    Regenerate the baseline with ``python -m tests.tooling.mypy_baseline --update``
    (``--prune`` only removes the entries mypy no longer reports)."""
    baseline = mypy_baseline.read_baseline()
    recorded_strict = sorted(e for e in baseline if mypy_baseline.is_strict(e.split(": ", 1)[0]))
    assert not recorded_strict, (
        "the strict part of the package has no baseline entries; fix these errors and "
        "remove their lines:\n" + "\n".join(recorded_strict)
    )
    report = mypy_baseline.run_mypy()
    result = mypy_baseline.compare(report.errors, baseline)
    assert not (result.new or result.stale or result.strict), (
        mypy_baseline.explain(result) + f"\n\n(full list with lines: `{COMMAND} --all`)"
    )


def test_baseline_is_sorted_and_normalised():
    """The baseline is the file ``--update`` writes: sorted, each line normalised."""
    text = mypy_baseline.BASELINE.read_text(encoding="utf-8")
    entries = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert entries == sorted(entries), f"{mypy_baseline.BASELINE.name} is not sorted"
    for entry in entries:
        path, code, message = entry.split(": ", 2)
        assert (REPO / path).is_file(), f"{entry!r}: no file {path}"
        assert mypy_baseline.baseline_line(path, code, message) == entry, entry


def test_strict_part_is_the_configured_one():
    """The helper's strict part (no baseline entries: ``STRICT`` less ``NOT_STRICT``) is
    the one pyproject.toml's [tool.mypy] makes strict."""
    with (REPO / "pyproject.toml").open("rb") as f:
        overrides = tomllib.load(f)["tool"]["mypy"]["overrides"]
    strict = [o for o in overrides if o.get("disallow_untyped_defs") is True]
    relaxed = [o for o in overrides if o.get("disallow_untyped_defs") is False]
    assert len(strict) == 1 and len(relaxed) == 1, "one strict override and one relaxed one"
    dirs = mypy_baseline.package_dirs()

    def path(module: str) -> str:
        """escaramuza.rules.core → rules/core (through package-dir)."""
        parts = module.removesuffix(".*").split(".")
        for n in range(len(parts), 0, -1):
            if ".".join(parts[:n]) in dirs:
                base = dirs[".".join(parts[:n])].relative_to(REPO).as_posix()
                return "/".join([base, *parts[n:]])
        raise AssertionError(module)

    assert {path(m) + "/" for m in strict[0]["module"]} == set(mypy_baseline.STRICT)
    excluded = {
        p.relative_to(REPO).as_posix()
        for prefix in mypy_baseline.STRICT
        for p in (REPO / prefix).rglob("*.py")
        if not mypy_baseline.is_strict(p.relative_to(REPO).as_posix())
    }
    assert excluded == {path(m) + ".py" for m in relaxed[0]["module"]}
