"""``escaramuza playtest``: play a scenario thousands of times and say how deadly it is.

The scenario designer's question — "how deadly is this encounter?" — answered
with numbers and their uncertainty: outcome rates with
95 % Wilson intervals, rounds, per-combatant knock-out / death / damage /
survival, the party-wipe probability, the enemy that hurts the heroes most and a
difficulty rating. Definitions and thresholds are documented in
``docs/playtest.md``; the JSON written by ``--json`` and ``summary.json`` follows
the schema there.

The options every command that plays battles shares (``playtest``, ``balance``,
``campaign``) are added by :func:`add_run_options` and read by :func:`run_config`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from escaramuza.agents.fast import DEFAULT_ENGINE, add_engine_option
from escaramuza.agents.policy import add_trust_option
from escaramuza.playtest.result import playtest
from escaramuza.playtest.runner import (
    DEFAULT_AGENT,
    DEFAULT_N,
    DEFAULT_SEED,
    DEFAULT_WORKERS,
    PlaytestConfig,
)
from escaramuza.playtest.text import render_text
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import Side

# -- command line -----------------------------------------------------------------


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that plays battles on the runner (``playtest``,
    ``balance``, ``campaign``): the seed, each side's agent, the workers and backend,
    ``--json`` and ``--no-progress``; each command adds
    ``--trust-policy`` (:func:`~escaramuza.agents.policy.add_trust_option`) last, so its
    help lists it after the command's own options. :func:`run_config` reads them back.
    The help texts are in the current language (the CLI's, while it builds its parser)."""
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=_f("run seed (default {seed})", DEFAULT_SEED),
    )
    side_help = {
        Side.HEROES: _f("agent playing the heroes (default {agent})", DEFAULT_AGENT),
        Side.ENEMIES: _f("agent playing the enemies (default {agent})", DEFAULT_AGENT),
    }
    for side in Side:
        parser.add_argument(
            f"--{side.value}", metavar="AGENT", default=DEFAULT_AGENT, help=side_help[side]
        )
    parser.add_argument(
        "--workers",
        metavar="W",
        type=int,
        default=DEFAULT_WORKERS,
        help=_f("processes (default {workers}; 0 = all cores)", DEFAULT_WORKERS),
    )
    parser.add_argument(
        "--backend",
        default="local",
        help=_("local (this process or a process pool; default) or ray"),
    )
    parser.add_argument("--address", metavar="ADDR", help=_("Ray cluster to join (--backend ray)"))
    parser.add_argument("--json", action="store_true", help=_("print one JSON document"))
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help=_("no progress bar (shown on stderr when it is a terminal)"),
    )


def run_config(args: argparse.Namespace, n: int) -> PlaytestConfig:
    """The runner's configuration from :func:`add_run_options`' options (and ``--engine``
    where the command has it), for ``n`` battles or days."""
    return PlaytestConfig(
        n=n,
        seed=args.seed,
        heroes=args.heroes,
        enemies=args.enemies,
        workers=args.workers,
        backend=args.backend,
        address=args.address,
        trust_policy=args.trust_policy,
        engine=getattr(args, "engine", DEFAULT_ENGINE),
    )


def report_folder(args: argparse.Namespace) -> Path | None:
    """``--report DIR`` created and checked writable now, so a bad folder fails before the
    battles, not after them (None without ``--report``)."""
    if args.report is None:
        return None
    from escaramuza.playtest.report import prepare_dir

    return prepare_dir(args.report)


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``playtest`` subcommand to the CLI's subparsers."""
    parser = commands.add_parser(
        "playtest",
        help=_("play a scenario many times and report how deadly it is"),
        description=_(
            "Play N battles of each SCENARIO and report outcome rates with 95% Wilson "
            "intervals, rounds, per-combatant knock-out, death, damage and survival, the "
            "party-wipe probability and a difficulty rating. Same seed ⇒ same numbers, for "
            "any worker count and either backend. See docs/playtest.md."
        ),
    )
    parser.add_argument("scenarios", metavar="SCENARIO", nargs="+", help=_("shipped name or path"))
    parser.add_argument(
        "-n",
        type=int,
        default=DEFAULT_N,
        help=_f("battles per scenario (default {n})", DEFAULT_N),
    )
    add_run_options(parser)
    parser.add_argument(
        "--report", metavar="DIR", help=_("write summary.json, report.md and PNG plots to DIR")
    )
    add_engine_option(parser, N_("the battles"))
    add_trust_option(parser)
    return parser


def cmd_playtest(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``escaramuza playtest``; user errors are raised as EscaramuzaError (exit 2)."""
    config = run_config(args, args.n)
    config.validate()
    report_dir = report_folder(args)
    # On stderr and only on a terminal (escaramuza/progress.py), so never in --json's stdout.
    result = playtest(args.scenarios, config, show_progress=not args.no_progress)
    if report_dir is not None:
        from escaramuza.playtest.report import write_report

        write_report(result, report_dir)
    out.write(result.to_json() if args.json else render_text(result))
    return 0
