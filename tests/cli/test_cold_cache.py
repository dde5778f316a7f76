"""The command-line progress tests (test_cli_progress.py) pass from a cold kernel cache,
as on CI's first run: their session fixture compiles the kernels the commands call before
any command starts, so no assertion on a command's stderr depends on the cache's state."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.compile, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PROGRESS_TESTS = "tests/cli/test_cli_progress.py"


def test_the_progress_tests_pass_on_a_cold_kernel_cache(tmp_path: Path) -> None:
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    # A fresh numba cache; none of this session's pytest variables (xdist's worker name,
    # the current test) leaks into the inner run.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["NUMBA_CACHE_DIR"] = str(cache)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", PROGRESS_TESTS],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=900,
    )
    report = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, report
    summary = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ passed in .*", summary), report
    # The run really started cold and compiled into the fresh cache (NUMBA_CACHE_DIR was
    # honoured): the kernels' index files are there now.
    assert any(cache.rglob("*.nbi")), "nothing was compiled into the fresh cache"
