"""``escaramuza warmup``: compile every ruleset's kernel now, not at the table.

A kernel's first call after an install compiles it (numba, 20–60 s a ruleset on an idle
machine; docs/fast-path.md, "Compilation and numba's cache"); later processes load it
from numba's cache in about a second. A GM runs this once after installing, so the first
``suggest`` or ``playtest`` at the table answers within its budget. Each ruleset gets a
line on stdout as it finishes, saying whether it compiled or loaded from the cache.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from escaramuza.rules.core.errors import UnknownNameError
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


def cmd_warmup(args: argparse.Namespace, out: TextIO) -> int:
    from escaramuza.agents.fast import COMPILE_NOTICE_SECONDS, find_kernel, warm_up
    from escaramuza.rules import RULESETS, get_ruleset

    wanted = list(args.rulesets) or list(RULESETS)
    for ruleset_id in wanted:
        if ruleset_id not in RULESETS:
            raise UnknownNameError(f"unknown ruleset {ruleset_id!r} (known: {', '.join(RULESETS)})")
    for ruleset_id in wanted:
        title = get_ruleset(ruleset_id).name
        if find_kernel(ruleset_id) is None:
            out.write(_f("{ruleset}: no compiled kernel (the engine plays)", title) + "\n")
            continue
        out.write(_f("{ruleset}: compiling or loading the kernel…", title) + " ")
        out.flush()
        seconds = warm_up(ruleset_id)
        how = _("compiled") if seconds > COMPILE_NOTICE_SECONDS else _("loaded from the cache")
        out.write(_f("{how} in {seconds} s", how, format(seconds, ".1f")) + "\n")
        out.flush()
    return 0
