"""The command line of the GM tools: ``escaramuza suggest``, ``escaramuza gm`` and
``play --save-state`` / ``--stop-after`` (the battle in progress a GM continues)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

from escaramuza.agents.fast import add_engine_option
from escaramuza.agents.policy import add_trust_option
from escaramuza.agents.search import MAX_BUDGET_MS, MAX_ITERATIONS, MIN_BUDGET_MS, check_budget
from escaramuza.agents.suggest import (
    DEFAULT_BUDGET_MS,
    DEFAULT_MAX_MS,
    TABLE_WIDTH,
    load_policy,
    suggest,
)
from escaramuza.gm.plan import (
    DEFAULT_PLAN_ITERATIONS,
    DEFAULT_PLAYOUTS,
    DEFAULT_SAMPLES,
    MAX_PLAYOUTS,
    MAX_SAMPLES,
    plan_progress,
    plan_round,
)
from escaramuza.gm.session import run_session
from escaramuza.gm.state import DEFAULT_SEED, GMError, open_battle
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file import ROLL_MODES, save_state


def add_parsers(commands: Any) -> None:
    """Add the ``suggest`` and ``gm`` subcommands to the CLI's subparsers."""
    sug = commands.add_parser(
        "suggest",
        help=_("rank the pending combatant's actions (search, exact odds, in-character pick)"),
        description=_(
            "Rank the legal actions of the pending decision of SCENARIO_OR_STATE: the "
            "chance its side wins (MCTS rollouts, interval at 95%), exact chance to hit, "
            "expected damage and chance to drop the target, risk to the actor before its "
            "next turn, a reason, and what its temperament would do. A scenario is started "
            "afresh (initiative rolled with --seed); a state file (*.json) continues."
        ),
    )
    sug.add_argument(
        "target",
        metavar="SCENARIO_OR_STATE",
        help=_("a shipped scenario name, a scenario YAML or a state file (.json)"),
    )
    sug.add_argument(
        "--actor",
        metavar="ID",
        help=_("the combatant to rank; must be the pending one (default: it)"),
    )
    # One budget or the other: with both, the time cut the rollouts short, reported as
    # "stopped at the budget", and the ranking was not the reproducible one asked for.
    one_budget = sug.add_mutually_exclusive_group()
    one_budget.add_argument(
        "--budget-ms",
        type=float,
        default=None,
        metavar="MS",
        help=_f(
            "search time in milliseconds, {least:g}–{most:g} (default {default:g})",
            MIN_BUDGET_MS,
            MAX_BUDGET_MS,
            DEFAULT_BUDGET_MS,
        ),
    )
    one_budget.add_argument(
        "--iterations",
        type=int,
        default=None,
        metavar="N",
        help=_f(
            "search N rollouts (1–{most}) instead of a time budget (reproducible)",
            MAX_ITERATIONS,
        ),
    )
    sug.add_argument(
        "--max-ms",
        type=float,
        default=None,
        metavar="MS",
        help=_f(
            "while the best is too close to call at --budget-ms, go on up to MS "
            "milliseconds (10–60000, default {default:g}; not with --iterations)",
            DEFAULT_MAX_MS,
        ),
    )
    sug.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=_f("seed of the search and of a fresh battle (default {default})", DEFAULT_SEED),
    )
    sug.add_argument(
        "--policy",
        metavar="SPEC",
        default=None,
        help=_(
            "add a POLICY column: the probability a trained policy gives each "
            "action (policy:PATH, a model file or a shipped policy name such "
            "as destiny_dice/emboscada)"
        ),
    )
    sug.add_argument(
        "--json", action="store_true", help=_("print one JSON document (schema in docs/gm.md)")
    )
    sug.add_argument(
        "--wide",
        action="store_true",
        help=_("one line per action, its reason included (default: the table fits 100 columns)"),
    )
    sug.add_argument(
        "--plan",
        action="store_true",
        help=_(
            "lay out the enemies' plan for the round instead: each enemy's turn in order with "
            "its reason, from the round played forward on sampled dice, and their win chance "
            "if it is followed (docs/gm.md)"
        ),
    )
    sug.add_argument(
        "--samples",
        type=int,
        default=None,
        metavar="K",
        help=_f(
            "with --plan: continuations of the round sampled (1–{most}, default {default})",
            MAX_SAMPLES,
            DEFAULT_SAMPLES,
        ),
    )
    sug.add_argument(
        "--playouts",
        type=int,
        default=None,
        metavar="M",
        help=_f(
            "with --plan: playouts of the plan to the end, for its win chance (1–{most}, "
            "default {default})",
            MAX_PLAYOUTS,
            DEFAULT_PLAYOUTS,
        ),
    )
    add_engine_option(sug, _("the search's rollouts"))
    add_trust_option(sug)

    gm = commands.add_parser(
        "gm",
        help=_("interactive game master session (edit, roll, apply, undo, suggest)"),
        description=_(
            "Mirror the table in an interactive session: set PV, move combatants, add "
            "conditions, enter the dice rolled, apply actions, undo, save, and ask for "
            "suggestions. Type help inside. The battle is autosaved after every change."
        ),
    )
    gm.add_argument(
        "target",
        metavar="SCENARIO_OR_STATE",
        help=_("a shipped scenario name, a scenario YAML or a state file (.json)"),
    )
    gm.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=_f("seed of the tool's dice (default {default})", DEFAULT_SEED),
    )
    gm.add_argument(
        "--roll",
        choices=ROLL_MODES,
        default="auto",
        help=_("who rolls: the tool (auto) or the table, die by die (manual)"),
    )
    gm.add_argument(
        "--max-ms",
        type=float,
        default=DEFAULT_MAX_MS,
        metavar="MS",
        help=_f(
            "how long suggest may go on while the best is too close to call "
            "(10–60000 ms, default {default:g}; suggest MS max MAX overrides it)",
            DEFAULT_MAX_MS,
        ),
    )
    budget = gm.add_mutually_exclusive_group()
    budget.add_argument(
        "--budget-ms",
        type=float,
        default=DEFAULT_BUDGET_MS,
        metavar="MS",
        help=_f(
            "the session's search budget: suggest's time, and the most one decision of the "
            "autopilot takes ({least:g}–{most:g}, default {default:g})",
            MIN_BUDGET_MS,
            MAX_BUDGET_MS,
            DEFAULT_BUDGET_MS,
        ),
    )
    budget.add_argument(
        "--iterations",
        type=int,
        default=None,
        metavar="N",
        help=_f(
            "search N rollouts (1–{most}) instead: suggest, plan and the autopilot become "
            "reproducible for a seed",
            MAX_ITERATIONS,
        ),
    )
    add_engine_option(gm, _("suggest's rollouts"))
    save = gm.add_mutually_exclusive_group()
    save.add_argument(
        "--autosave",
        metavar="FILE",
        default=None,
        help=_("autosave file (default: <scenario>.autosave.json here)"),
    )
    save.add_argument("--no-autosave", action="store_true", help=_("do not autosave"))


def _decisions(text: str) -> int:
    """argparse type of ``--stop-after``: a whole number of decisions, at least 1."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_f("{value} is not a whole number", repr(text))) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_f("must be at least 1, not {value}", value))
    return value


def add_play_options(play: Any) -> None:
    """``play --save-state FILE [--stop-after N]``."""
    play.add_argument(
        "--save-state",
        metavar="FILE",
        default=None,
        help=_("write the battle's state to FILE (JSON, see docs/gm.md) when it stops"),
    )
    play.add_argument(
        "--stop-after",
        metavar="N",
        type=_decisions,
        default=None,
        help=_("stop after N decisions (a battle in progress, e.g. for suggest)"),
    )


def run_command(args: Any, out: TextIO) -> int:
    """Run ``escaramuza suggest`` or ``escaramuza gm``."""
    if args.command == "gm":
        autosave: Path | bool = (
            False if args.no_autosave else (Path(args.autosave) if args.autosave else True)
        )
        # The session's MAX, which a `suggest` without one takes: within the bounds the
        # command's own MAX has (10–60000 ms), so that a search always ends.
        check_budget(args.max_ms, None, "--max-ms")
        check_budget(args.budget_ms, args.iterations, "--budget-ms", "--iterations")
        run_session(
            args.target,
            None,
            out,
            autosave,
            args.seed,
            args.roll,
            args.max_ms,
            args.engine,
            # At a terminal the GM reads and types while the kernel compiles; scripted
            # input (tests, pipes) gets the kernel compiled at its first search.
            warm=sys.stdin.isatty(),
            budget_ms=args.budget_ms,
            iterations=args.iterations,
        )
        return 0
    if args.plan:
        return _run_plan(args, out)
    for option, given in (("--samples", args.samples), ("--playouts", args.playouts)):
        if given is not None:
            raise GMError(_f("{option} goes with --plan", option))
    import json

    # Before the battle is opened: a budget the search could not finish is refused at once.
    check_budget(args.budget_ms, args.iterations, "--budget-ms", "--iterations")
    if args.max_ms is not None:
        check_budget(args.max_ms, None, "--max-ms")
    if args.max_ms is not None and args.iterations is not None:
        raise GMError(
            _(
                "--max-ms extends a time budget (--budget-ms); with --iterations the "
                "search stops at N rollouts, so that the ranking is reproducible"
            )
        )
    budget = args.budget_ms if args.budget_ms is not None or args.iterations is None else None
    if budget is None and args.iterations is None:
        budget = DEFAULT_BUDGET_MS
    if args.max_ms is not None and budget is not None and args.max_ms < budget:
        raise GMError(
            _f(
                "--max-ms ({max_ms:g}) must be at least --budget-ms ({budget_ms:g})",
                args.max_ms,
                budget,
            )
        )
    # The default maximum never cuts an explicit budget above it.
    max_ms = (
        None
        if args.iterations is not None
        else (args.max_ms if args.max_ms is not None else max(DEFAULT_MAX_MS, budget or 0.0))
    )
    policy = load_policy(args.policy, trust=args.trust_policy) if args.policy else None
    state, _meta = open_battle(args.target, args.seed)
    result = suggest(
        state,
        args.actor,
        budget_ms=budget,
        iterations=args.iterations,
        seed=args.seed,
        policy=policy,
        max_ms=max_ms,
        engine=args.engine,
    )
    if args.json:
        out.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
    else:
        out.write(result.table(None if args.wide else TABLE_WIDTH) + "\n")
    return 0


def after_play(state: BattleState, args: Any, out: TextIO) -> bool:
    """``play``'s end for ``--save-state`` / ``--stop-after``; True if it printed the end."""
    if getattr(args, "save_state", None):
        save_state(state, args.save_state, {"seed": args.seed, "steps": 0, "roll": "auto"})
    if state.outcome is not None:
        if args.save_state:
            sys.stderr.write(_f("state saved to {path}", args.save_state) + "\n")
        return False
    pending = state.pending
    who = state.by_id[pending.actor].name if pending is not None else _("nobody")
    if args.json:
        import json

        out.write(
            json.dumps(
                {
                    "type": "Stopped",
                    "scenario": state.scenario.name,
                    "round": state.round,
                    "pending": pending.actor if pending else None,
                    "state_file": args.save_state,
                },
                ensure_ascii=False,
            )
            + "\n"
        )
    else:
        saved = _f(" State saved to {path}.", args.save_state) if args.save_state else ""
        out.write(
            "\n"
            + _f(
                "Stopped after {n} decision(s) in round {round}; next to decide: {who}.{saved}",
                args.stop_after,
                state.round,
                who,
                saved,
            )
            + "\n"
        )
    return True


def _run_plan(args: Any, out: TextIO) -> int:
    """``escaramuza suggest --plan``: the enemies' plan for the round
    (:mod:`escaramuza.gm.plan`), reproducible for a state, sizes and seed."""
    import json

    for option, value in (
        ("--budget-ms", args.budget_ms),
        ("--max-ms", args.max_ms),
        ("--actor", args.actor),
        ("--policy", args.policy),
    ):
        if value is not None:
            raise GMError(
                _f(
                    "{option} does not go with --plan: the plan searches each enemy decision "
                    "with --iterations rollouts, so that it is reproducible",
                    option,
                )
            )

    def given(value: int | None, default: int) -> int:
        return default if value is None else value

    samples = given(args.samples, DEFAULT_SAMPLES)
    playouts = given(args.playouts, DEFAULT_PLAYOUTS)
    state, _meta = open_battle(args.target, args.seed)
    with plan_progress(samples + playouts) as progress:
        plan = plan_round(
            state,
            samples=samples,
            iterations=given(args.iterations, DEFAULT_PLAN_ITERATIONS),
            playouts=playouts,
            seed=args.seed,
            engine=args.engine,
            progress=progress,
        )
    if args.json:
        out.write(json.dumps(plan.to_dict(), ensure_ascii=False) + "\n")
    else:
        out.write(plan.table() + "\n")
    return 0
