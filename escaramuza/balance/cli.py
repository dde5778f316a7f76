"""The ``escaramuza balance`` command: its arguments and its run."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, TextIO

from escaramuza.agents.fast import add_engine_option
from escaramuza.agents.policy import add_trust_option
from escaramuza.balance.dimensions import DEFAULT_TOLERANCE, Target
from escaramuza.balance.report import agent_options, out_text, plot, render_text
from escaramuza.balance.search import DEFAULT_ALPHA, DEFAULT_MAX_BATTLES, FIRST_LOOK, balance
from escaramuza.playtest.cli import add_run_options, report_folder, run_config
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.files import atomic_write, check_writable, same_file
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.scenario import resolve_scenario


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "balance",
        help=_("find the variant of an encounter closest to a target difficulty"),
        description=_(
            "Vary SCENARIO (--vary count:ID=1..6, stat:enemies.pv=*0.5..*2, "
            "stat:ID.cuerpo=d6..d12, zones:enemies=Z1,Z2) and find the variant on --target "
            "(a difficulty level easy…deadly, or heroes-win=0.6, wipe=0.1…): each variant "
            "plays battles until a confidence sequence decides it is above, below or on the "
            "target; bisection picks the next. See docs/playtest.md."
        ),
    )
    parser.add_argument("scenario", metavar="SCENARIO", help=_("shipped name or path"))
    parser.add_argument(
        "--target",
        required=True,
        help=_("trivial, easy, medium, hard, deadly, or MEASURE=RATE"),
    )
    parser.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="SPEC",
        help=_("what may vary (repeatable)"),
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=DEFAULT_TOLERANCE,
        help=_f("half-width of a numeric target's band (default {tolerance})", DEFAULT_TOLERANCE),
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=DEFAULT_ALPHA,
        help=_f("error rate of each variant's decision (default {alpha})", DEFAULT_ALPHA),
    )
    parser.add_argument(
        "--max-battles",
        type=int,
        default=DEFAULT_MAX_BATTLES,
        help=_f("battles per variant at most (default {n})", DEFAULT_MAX_BATTLES),
    )
    # No bar of its own (each variant's looks are short, and the table says what was
    # tried), but --no-progress as in every command that plays battles: it silences the
    # other progress lines too (a kernel's first compile, escaramuza/progress.py).
    add_run_options(parser)
    add_engine_option(parser, N_("the battles"))
    parser.add_argument("--out", metavar="FILE", help=_("write the chosen variant's YAML"))
    parser.add_argument("--report", metavar="DIR", help=_("write summary.json and a plot to DIR"))
    add_trust_option(parser)
    return parser


def _out_error(path: str, exc: OSError) -> EscaramuzaError:
    return EscaramuzaError(_f("--out {path}: cannot write ({reason})", path, exc.strerror or exc))


def out_file(args: argparse.Namespace) -> Path | None:
    """``--out FILE`` checked writable now (its folder created, as ``--report``'s is), so a
    bad path fails before the search, not after it (None without ``--out``)."""
    if args.out is None:
        return None
    try:
        target = check_writable(args.out)
    except OSError as exc:
        raise _out_error(args.out, exc) from None
    if same_file(target, resolve_scenario(args.scenario)):
        # The variant would replace the scenario it was found from: nothing the user had
        # is lost, so the original stays and the variant goes elsewhere.
        raise EscaramuzaError(
            _f("--out {path} is the scenario being balanced: write the variant elsewhere", args.out)
        )
    return target


def cmd_balance(args: argparse.Namespace, out: TextIO) -> int:
    config = run_config(args, 1)
    target = Target.parse(args.target, args.tolerance)
    # --out is checked first: a refusal of it leaves no --report folder of this run's making.
    out_path = out_file(args)
    made = args.report is not None and not os.path.exists(args.report)
    report_dir = report_folder(args)
    try:
        doc = balance(
            args.scenario,
            target,
            args.vary,
            config,
            args.alpha,
            min(FIRST_LOOK, args.max_battles),
            args.max_battles,
        )
    except EscaramuzaError:
        # A refused search leaves no empty --report folder of its own making behind.
        if made and report_dir is not None and not any(report_dir.iterdir()):
            report_dir.rmdir()
        raise
    command = "escaramuza balance " + " ".join(
        [
            args.scenario,
            "--target",
            args.target,
            *[f"--vary {v}" for v in args.vary],
            *agent_options(args.heroes, args.enemies),
            f"--tolerance {args.tolerance:g} --alpha {args.alpha:g}",
            f"--max-battles {args.max_battles} --engine {args.engine} --seed {args.seed}",
        ]
    )
    if out_path is not None:
        try:
            atomic_write(out_path, out_text(doc, command))
        except OSError as exc:  # the folder went away during the search
            raise _out_error(args.out, exc) from None
    if report_dir is not None:
        from escaramuza.playtest.report import write_files

        write_files(
            report_dir,
            {
                "summary.json": json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=2)
                + "\n",
                "balance.png": plot(doc),
            },
        )
    out.write(
        json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
        if args.json
        else render_text(doc)
    )
    return 0
