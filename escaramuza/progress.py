"""The progress bar of the long commands: ``train``, ``evaluate``, ``playtest`` and
``benchmarks/planner.py``.

One bar everywhere: tqdm's counting drawn by rich (``tqdm.rich``, the bar
stable-baselines3's ``progress_bar=True`` draws; both packages are dependencies
for it). It is shown by default, always on **stderr** — never mixed into what a
command prints on stdout, a ``--json`` document included — and only when stderr
is a terminal: piped or redirected, a command stays quiet, and ``--no-progress``
turns the bar off on a terminal too.

``--no-progress`` silences every progress line of the command, not only its bar: the
fast path's "compiling…" notice too (``agents.fast.first_call``). A command that takes
the option runs inside :func:`quiet`, which sets :data:`QUIET_VARIABLE` in the
environment for its duration, so worker processes it starts (forked or spawned) are
quiet as well.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

#: Set (to any non-empty value) while a command runs with ``--no-progress``.
QUIET_VARIABLE = "ESCARAMUZA_NO_PROGRESS"


def silenced() -> bool:
    """Whether the running command was asked for no progress lines at all."""
    return bool(os.environ.get(QUIET_VARIABLE))


@contextmanager
def quiet(enabled: bool = True) -> Iterator[None]:
    """Within the block (``enabled``), no progress line is drawn by this process or by
    the processes it starts; the environment is restored afterwards (commands run
    in-process in tests and in the GM session)."""
    if not enabled:
        yield
        return
    old = os.environ.get(QUIET_VARIABLE)
    os.environ[QUIET_VARIABLE] = "1"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(QUIET_VARIABLE, None)
        else:
            os.environ[QUIET_VARIABLE] = old


def shows(enabled: bool, stream: TextIO | None = None) -> bool:
    """Whether a bar asked for (``enabled``) is drawn on ``stream`` (default stderr):
    only on a terminal, and never inside :func:`quiet`."""
    if not enabled or silenced():
        return False
    target = sys.stderr if stream is None else stream
    isatty = getattr(target, "isatty", None)
    return bool(isatty is not None and isatty())


def progress_bar(
    total: int,
    label: str,
    enabled: bool = True,
    stream: TextIO | None = None,
    unit: str = "battles",
) -> Any:
    """A ``tqdm.rich`` bar of ``total`` ``unit`` on ``stream`` (default stderr), drawn only
    when :func:`shows`; otherwise a disabled tqdm whose ``update``/``close`` do nothing.

    Use it as tqdm: ``bar.update(n)`` then ``bar.close()`` (or ``with``)."""
    from tqdm import TqdmExperimentalWarning
    from tqdm.rich import tqdm_rich

    target = sys.stderr if stream is None else stream
    if not shows(enabled, target):
        return tqdm_rich(total=total, disable=True)
    from rich.console import Console

    with warnings.catch_warnings():
        # "rich is experimental/alpha": tqdm's note on its rich front end, the one SB3 uses.
        warnings.simplefilter("ignore", TqdmExperimentalWarning)
        return tqdm_rich(
            total=total,
            desc=label,
            unit=unit,
            options={
                "console": Console(file=target),
                # rich would otherwise route print() through the bar's console while it is
                # drawn, i.e. a command's stdout lines onto stderr.
                "redirect_stdout": False,
                "redirect_stderr": False,
            },
        )
