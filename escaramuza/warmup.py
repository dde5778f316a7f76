"""``escaramuza warmup``: compile every ruleset's kernel now, not at the table.

A kernel's first call after an install compiles it (numba, 20–60 s a ruleset on an idle
machine; docs/fast-path.md, "Compilation and numba's cache"); later processes load it
from numba's cache in about a second. A GM runs this once after installing, so the first
``suggest`` or ``playtest`` at the table answers within its budget. Each ruleset gets a
line on stdout, in order, saying whether it compiled or loaded from the cache.

numba compiles in one thread under one lock, so the rulesets compile side by side in
processes, one a core (``--jobs``): each writes its own kernel's cache files, and the
files every kernel shares are written whole or not at all (numba renames a finished
file into place), so two processes filling the same cache leave it valid.
"""

from __future__ import annotations

import argparse
import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TextIO

from escaramuza.rules.core.errors import EscaramuzaError, UnknownNameError
from escaramuza.rules.core.i18n import N_, _, _f

#: The command's help line (an English msgid, translated where the parser is built).
HELP = N_("compile every ruleset's fast-path kernel now (once per install), not at the table")


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "warmup",
        help=_(HELP),
        description=_(
            "Compile (or load from numba's cache) the compiled kernel of every ruleset, or "
            "of the ones named, so that the first suggest, gm or playtest does not wait for "
            "it. Once per install: later runs load each kernel in about a second."
        ),
    )
    parser.add_argument(
        "rulesets", nargs="*", metavar="RULESET", help=_("only these rulesets (default: all)")
    )
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help=_("rulesets compiled at once, each in its own process (default: one a core)"),
    )


def cmd_warmup(args: argparse.Namespace, out: TextIO) -> int:
    from escaramuza.agents.fast import (
        COMPILE_NOTICE_SECONDS,
        find_kernel,
        machine_threads,
        warm_up,
    )
    from escaramuza.rules import RULESETS, get_ruleset

    wanted = list(args.rulesets) or list(RULESETS)
    for ruleset_id in wanted:
        if ruleset_id not in RULESETS:
            raise UnknownNameError(
                _f(
                    "unknown ruleset {name} (known: {known})",
                    repr(ruleset_id),
                    ", ".join(RULESETS),
                )
            )
    if args.jobs is not None and args.jobs < 1:
        raise EscaramuzaError(
            _f("--jobs must be a positive number of processes, not {n}", args.jobs)
        )
    compiled = [r for r in wanted if find_kernel(r) is not None]
    jobs = min(args.jobs or machine_threads(), len(compiled))
    pool: ProcessPoolExecutor | None = None
    started: dict[str, Future[float]] = {}
    if jobs > 1:
        # spawn: a fresh interpreter, not a fork of this one's imports and threads.
        pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
        started = {r: pool.submit(warm_up, r) for r in compiled}
    try:
        for ruleset_id in wanted:
            title = get_ruleset(ruleset_id).name
            if ruleset_id not in compiled:
                out.write(_f("{ruleset}: no compiled kernel (the engine plays)", title) + "\n")
                continue
            out.write(_f("{ruleset}: compiling or loading the kernel…", title) + " ")
            out.flush()
            seconds = _seconds(ruleset_id, started.get(ruleset_id), warm_up)
            how = _("compiled") if seconds > COMPILE_NOTICE_SECONDS else _("loaded from the cache")
            out.write(_f("{how} in {seconds} s", how, format(seconds, ".1f")) + "\n")
            out.flush()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return 0


def _seconds(ruleset_id: str, started: Future[float] | None, warm_up: Any) -> float:
    """The seconds ``ruleset_id``'s warm-up took: in a process already at it
    (``started``), else here. A process that died is an error naming the ruleset."""
    if started is None:
        seconds: float = warm_up(ruleset_id)
        return seconds
    try:
        return started.result()
    except Exception as exc:
        raise EscaramuzaError(
            _f("{ruleset}: compiling its kernel failed in its process: {error}", ruleset_id, exc)
        ) from None
