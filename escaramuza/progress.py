"""The progress bar of the long commands: ``train``, ``evaluate``, ``playtest`` and
``benchmarks/planner.py``.

One bar everywhere: tqdm's counting drawn by rich (``tqdm.rich``, the bar
stable-baselines3's ``progress_bar=True`` draws; both packages are dependencies
for it). It is shown by default, always on **stderr** — never mixed into what a
command prints on stdout, a ``--json`` document included — and only when stderr
is a terminal: piped or redirected, a command stays quiet, and ``--no-progress``
turns the bar off on a terminal too.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, TextIO


def shows(enabled: bool, stream: TextIO | None = None) -> bool:
    """Whether a bar asked for (``enabled``) is drawn on ``stream`` (default stderr)."""
    target = sys.stderr if stream is None else stream
    isatty = getattr(target, "isatty", None)
    return bool(enabled and isatty is not None and isatty())


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
