"""The ``escaramuza`` command line: list shipped scenarios and play whole battles.

``escaramuza scenarios`` lists what ships; ``escaramuza play SCENARIO`` plays one
battle with two agents and prints the narrated log as it happens — initiative,
every die and what it meant, damage, conditions, who dropped — and the outcome.
Every error a user can cause (a bad scenario file, an
unknown name, an illegal action) is an :class:`EscaramuzaError`: it is printed
as one ``escaramuza: error: …`` line on stderr with exit code 2, never a
traceback, the same code argparse uses for a bad command line.

Start-up is kept short: this module imports only argparse and
the error classes; a command's module (the agents, the GM session, the web page,
training) is imported when that command runs. :func:`main` parses twice: first
with every command as a name and help line only (which answers ``--help`` and
``--version`` at once), then with the chosen command's real arguments.

The help texts follow the language (``--lang`` / ``ESCARAMUZA_LANG``, docs/translating.md):
:func:`main` picks it from the raw arguments before building any parser, and every help
string is translated when its parser is built. argparse's own words (``usage:``, the
groups' titles, ``-h``'s help) are translated per parser by :func:`_localize`, and its
error messages while :func:`main` parses (:func:`argparse_errors`).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from escaramuza import __version__
from escaramuza.progress import quiet
from escaramuza.rules.core.errors import EscaramuzaError, UnknownNameError, clip
from escaramuza.rules.core.i18n import (
    DEFAULT_LANGUAGE,
    ENV_VAR,
    LANGUAGES,
    N_,
    _,
    _f,
    language,
    language_from,
    ngettext,
)

if TYPE_CHECKING:
    from escaramuza.agents.base import Agent
    from escaramuza.rules.core.events import Event
    from escaramuza.rules.core.scenario import Scenario
    from escaramuza.rules.core.state import BattleState

PROG = "escaramuza"

#: The seed ``play`` uses when none is given: fixed, so the README's command prints
#: the same battle on every machine (determinism guarantee: scenario + seed ⇒ log).
DEFAULT_SEED = 1

#: Agent each side plays when none is given.
DEFAULT_AGENT = "heuristic"

#: Exit code of every user error, the same argparse uses for a bad command line.
EXIT_USER_ERROR = 2


#: Every command's one-line help, in the order ``--help`` lists them. A command that is
#: not the one running is defined by this line only, so its module is not imported
#: (tests/cli/test_cli_startup.py checks each line is the one its module gives). English
#: msgids, translated where a parser is built.
COMMAND_HELP: dict[str, str] = {
    "scenarios": N_("list the shipped scenarios"),
    "play": N_("play one whole battle and print the narrated log"),
    "playtest": N_("play a scenario many times and report how deadly it is"),
    "balance": N_("find the variant of an encounter closest to a target difficulty"),
    "campaign": N_("play an adventuring day (encounters and rests) many times"),
    "suggest": N_("rank the pending combatant's actions (search, exact odds, in-character pick)"),
    "gm": N_("interactive game master session (edit, roll, apply, undo, suggest)"),
    "serve": N_("serve the game master's web page on this machine"),
    "train": N_("train a MaskablePPO (or PPO) agent on an escaramuza env"),
    "evaluate": N_("play every pair of agents on each side; win matrix, ratings, heat map"),
    "validate": N_("check scenario, day, state and tables files without playing"),
    "migrate": N_("rewrite scenario, day and state files that use retired stat-block names"),
    "schema": N_("print the JSON Schema of a scenario or tables file (for editors)"),
    "warmup": N_(
        "compile every ruleset's fast-path kernel now (once per install), not at the table"
    ),
}


#: The commands whose parsers their own modules define: (commands, module, function).
#: Each module's docs: playtest.md (playtest, balance, campaign), gm.md (suggest, gm),
#: web.md (serve), training.md (train, evaluate), cli.md (validate, migrate),
#: scenario-format.md (schema), fast-path.md (warmup).
COMMAND_PARSERS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("playtest",), "escaramuza.playtest.cli", "add_parser"),
    (("balance",), "escaramuza.balance.cli", "add_parser"),
    (("campaign",), "escaramuza.campaign", "add_parser"),
    (("suggest", "gm"), "escaramuza.gm.cli", "add_parsers"),
    (("serve",), "escaramuza.web", "add_parser"),
    (("train", "evaluate"), "escaramuza.training.cli", "add_parsers"),
    (("validate",), "escaramuza.validate", "add_parser"),
    (("migrate",), "escaramuza.migrate.command", "add_parser"),
    (("schema",), "escaramuza.schema", "add_parser"),
    (("warmup",), "escaramuza.warmup", "add_parser"),
)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter with its ``usage:`` prefix in the current language."""

    def add_usage(
        self,
        usage: str | None,
        actions: Iterable[argparse.Action],
        groups: Iterable[argparse._MutuallyExclusiveGroup],
        prefix: str | None = None,
    ) -> None:
        super().add_usage(usage, actions, groups, _("usage: ") if prefix is None else prefix)


def _localize(parser: argparse.ArgumentParser) -> None:
    """argparse's own words in ``parser``'s help in the current language: the usage prefix,
    the groups' titles and the help of ``-h`` and ``--version``. Per parser, not argparse's
    module-wide gettext, so other argparse users in the process are left alone; argparse's
    error messages stay English (docs/translating.md)."""
    parser.formatter_class = _HelpFormatter
    parser._positionals.title = _("positional arguments")
    parser._optionals.title = _("options")
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            action.help = _("show this help message and exit")
        elif isinstance(action, argparse._VersionAction):
            action.help = _("show program's version number and exit")


#: The errors argparse makes of a bad command line (its own msgids, which it looks up with
#: its module's ``_`` when it makes them), marked here for the catalog. Left out: the
#: ``%(prog)s: error:`` tag (a script's grep reads it in English, as escaramuza's own
#: errors write it), and the errors only a wrong parser definition can cause.
ARGPARSE_ERRORS = (
    N_("argument %(argument_name)s: %(message)s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
)


def _argparse_ngettext(singular: str, plural: str, n: int) -> str:
    """argparse's plural message in the current language (written out, so that it is
    extracted for the catalog); any other plural as the catalog has it."""
    if (singular, plural) == ("expected %s argument", "expected %s arguments"):
        return ngettext("expected %s argument", "expected %s arguments", n)
    return ngettext(singular, plural, n)


@contextmanager
def argparse_errors() -> Iterator[None]:
    """argparse's error messages in the current language while the block runs.

    argparse looks its messages up through its module's ``_`` and ``ngettext``
    (``gettext``'s, module-wide, with the process's default domain); they point to the
    current language's catalog only for the block, so another argparse user in the
    process is left as it was."""
    module: Any = argparse
    saved = module._, module.ngettext
    module._, module.ngettext = _, _argparse_ngettext
    try:
        yield
    finally:
        module._, module.ngettext = saved


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line. With ``command`` (``""``: none), only that command gets its
    arguments and the others are names with a help line; ``None`` defines them all.
    The help texts are in the language current when it is called (:func:`main` sets it)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=_("Combat AI and tactics sandbox for tabletop role-playing games."),
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _add_lang(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def wanted(*names: str) -> bool:
        if command is None or command in names:
            return True
        for name in names:  # a line in --help; its arguments are read in the second pass
            commands.add_parser(name, help=_(COMMAND_HELP[name]), add_help=False)
        return False

    if wanted("scenarios"):
        _add_scenarios(commands)
    if wanted("play"):
        _add_play(commands)
    for names, module, function in COMMAND_PARSERS:
        if wanted(*names):
            getattr(importlib.import_module(module), function)(commands)
    _localize(parser)
    for sub in commands.choices.values():  # --lang after the command too
        _add_lang(sub)
        _localize(sub)
    return parser


def _add_lang(parser: argparse.ArgumentParser) -> None:
    """``--lang en|es``: the language of the narration and interface (docs/cli.md).

    SUPPRESS as default so the option given before the command is not overwritten by a
    command's own default; :func:`main` falls back to ``ESCARAMUZA_LANG``, then English."""
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=argparse.SUPPRESS,
        help=_f(
            "language of the narration and interface ({languages}; default ${variable}, "
            "else {default})",
            ", ".join(LANGUAGES),
            ENV_VAR,
            DEFAULT_LANGUAGE,
        ),
    )


def _add_scenarios(commands: Any) -> None:
    listing = commands.add_parser(
        "scenarios",
        help=_("list the shipped scenarios"),
        description=_("List the shipped scenarios: name, ruleset, combatants per side, title."),
    )
    listing.add_argument(
        "--json", action="store_true", help=_("one JSON object per scenario instead of a table")
    )


def _add_play(commands: Any) -> None:
    from escaramuza.agents import AGENT_NAMES
    from escaramuza.gm import cli as gm_cli
    from escaramuza.rules.core.model import Side

    play = commands.add_parser(
        "play",
        help=_("play one whole battle and print the narrated log"),
        description=_(
            "Play one whole battle of SCENARIO and print every event as it happens, "
            "then the outcome. The same scenario, seed and agents always give the same log."
        ),
    )
    play.add_argument(
        "scenario",
        metavar="SCENARIO",
        help=_(
            "a shipped scenario name (destiny_dice/emboscada, or a unique short name such as "
            "kaspar-tiroteo) or the path of a YAML file"
        ),
    )
    play.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=_f("seed of the dice and the agents (default {seed})", DEFAULT_SEED),
    )
    # A trained policy plays too (README, "Training and evaluation"): name that form.
    agents = ", ".join((*AGENT_NAMES, "policy:PATH"))
    side_help = {
        Side.HEROES: _f(
            "agent playing the heroes ({agents}; default {agent})", agents, DEFAULT_AGENT
        ),
        Side.ENEMIES: _f(
            "agent playing the enemies ({agents}; default {agent})", agents, DEFAULT_AGENT
        ),
    }
    for side in Side:
        play.add_argument(
            f"--{side.value}", metavar="AGENT", default=DEFAULT_AGENT, help=side_help[side]
        )
    play.add_argument(
        "--json",
        action="store_true",
        help=_("print the events as JSON lines, then one line with the outcome"),
    )
    play.add_argument(
        "--validate",
        action="store_true",
        help=_("re-check every chosen action against the legal actions (slower; for debugging)"),
    )
    from escaramuza.agents.policy import add_trust_option

    add_trust_option(play)
    gm_cli.add_play_options(play)


# -- scenarios ----------------------------------------------------------------


def _scenario_row(name: str, scenario: Scenario) -> dict[str, Any]:
    from escaramuza.rules.core.model import Side

    counts = {side.value: sum(c.side is side for c in scenario.combatants) for side in Side}
    return {
        "name": name,
        "ruleset": scenario.ruleset.id,
        "title": scenario.title,
        "heroes": counts[Side.HEROES.value],
        "enemies": counts[Side.ENEMIES.value],
        "zones": len(scenario.battlefield),
        "round_limit": scenario.round_limit,
    }


def cmd_scenarios(args: argparse.Namespace, out: TextIO) -> int:
    from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios

    rows = [_scenario_row(name, load_scenario(name)) for name in shipped_scenarios()]
    if args.json:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        return 0
    if not rows:
        out.write(_("no shipped scenarios") + "\n")
        return 0
    header = (_("NAME"), _("RULESET"), _("HEROES v ENEMIES"), _("TITLE"))
    table = [(r["name"], r["ruleset"], f"{r['heroes']} v {r['enemies']}", r["title"]) for r in rows]
    widths = [max(len(row[i]) for row in (header, *table)) for i in range(3)]
    for row in (header, *table):
        cells = [row[i].ljust(widths[i]) for i in range(3)]
        out.write("  ".join([*cells, row[3]]).rstrip() + "\n")
    return 0


# -- play ---------------------------------------------------------------------


def _agent(spec: str, scenario: Scenario, trust_policy: bool = False) -> Agent:
    from escaramuza.agents import make_agent
    from escaramuza.agents.heuristic import HeuristicAgent

    agent = make_agent(spec, trust_policy=trust_policy)
    if isinstance(agent, HeuristicAgent):
        # The heuristic agent dispatches by ruleset id; a ruleset without one would
        # otherwise fail mid-battle with an ImportError instead of a clear message.
        module = f"escaramuza.agents.heuristics.{scenario.ruleset.id}"
        if importlib.util.find_spec(module) is None:
            raise UnknownNameError(
                f"no heuristic agent for ruleset {scenario.ruleset.id!r} yet; "
                f"use --heroes random --enemies random"
            )
    return agent


def _outcome_dict(state: BattleState, seed: int) -> dict[str, Any]:
    outcome = state.outcome
    assert outcome is not None  # play_battle only returns finished battles
    return {
        "type": "Outcome",
        "scenario": state.scenario.name,
        "ruleset": state.ruleset.id,
        "seed": seed,
        "winner": outcome.winner.value if outcome.winner else None,
        "reason": outcome.reason,
        "rounds": outcome.rounds,
        "combatants": [
            {
                "id": c.id,
                "side": c.side.value,
                "status": c.status.value,
                "zone": c.zone,
                "resources": dict(c.resources),
            }
            for c in state.combatants
        ],
    }


def _outcome_lines(state: BattleState) -> list[str]:
    from escaramuza.rules.core.i18n import outcome_reason, who_wins, word

    outcome = state.outcome
    assert outcome is not None
    who = who_wins(outcome.winner.value if outcome.winner else None)
    lines = [
        _f(
            "Outcome: {who} ({reason}) after {rounds} round(s).",
            who,
            outcome_reason(outcome.reason),
            outcome.rounds,
        )
    ]
    for c in state.combatants:
        res = ", ".join(
            f"{key} {value}/{c.maxima[key]}" if key in c.maxima else f"{key} {value}"
            for key, value in c.resources.items()
        )
        lines.append(f"  {c.name} ({word(c.side.value)}, {c.zone}): {word(c.status.value)}; {res}")
    return lines


def _indent(event: Event) -> str:
    from escaramuza.rules.core.events import (
        ActionTaken,
        BattleEnded,
        BattleStarted,
        RoundStarted,
        TurnStarted,
    )

    # Events printed flush left; the dice and consequences under them are indented so a
    # GM can scan the log turn by turn.
    if isinstance(event, BattleStarted | RoundStarted | TurnStarted | BattleEnded):
        return ""
    if isinstance(event, ActionTaken):
        return "  » "
    return "    "


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    from escaramuza.agents.runner import play_battle
    from escaramuza.rules.core.events import RoundStarted
    from escaramuza.rules.core.model import Side
    from escaramuza.rules.core.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    agents = {
        Side.HEROES: _agent(args.heroes, scenario, args.trust_policy),
        Side.ENEMIES: _agent(args.enemies, scenario, args.trust_policy),
    }
    if args.save_state:
        from escaramuza.state_file import check_save_target

        check_save_target(scenario, args.save_state)  # before the battle, not after it

    def emit_text(events: list[Event]) -> None:
        for event in events:
            if not event.text:
                continue
            if isinstance(event, RoundStarted):
                out.write("\n")
            out.write(_indent(event) + event.text + "\n")

    def emit_json(events: list[Event]) -> None:
        for event in events:
            out.write(event.to_json() + "\n")

    if not args.json:
        out.write(
            _f(
                "{title} [{name}, {ruleset}] — seed {seed}; heroes: {heroes}, enemies: {enemies}",
                scenario.title,
                scenario.name,
                scenario.ruleset.name,
                args.seed,
                args.heroes,
                args.enemies,
            )
            + "\n\n"
        )
    state = play_battle(
        scenario,
        agents,
        seed=args.seed,
        on_events=emit_json if args.json else emit_text,
        validate=args.validate,
        stop_after=args.stop_after,
    )
    from escaramuza.gm.cli import after_play

    if after_play(state, args, out):
        return 0
    if args.json:
        out.write(json.dumps(_outcome_dict(state, args.seed), ensure_ascii=False) + "\n")
    else:
        out.write("\n" + "\n".join(_outcome_lines(state)) + "\n")
    return 0


# -- entry point ----------------------------------------------------------------


def _run(args: argparse.Namespace, out: TextIO) -> int:
    """Run the parsed command, importing only its module."""
    from escaramuza.rules.core.seeds import check_seed

    if getattr(args, "seed", None) is not None:  # every command's --seed: one range
        check_seed(args.seed)
    if args.command == "playtest":
        from escaramuza.playtest.cli import cmd_playtest

        return cmd_playtest(args, out)
    if args.command == "balance":
        from escaramuza.balance.cli import cmd_balance

        return cmd_balance(args, out)
    if args.command == "campaign":
        from escaramuza.campaign import cmd_campaign

        return cmd_campaign(args, out)
    if args.command == "scenarios":
        return cmd_scenarios(args, out)
    if args.command == "validate":
        from escaramuza.validate import cmd_validate

        return cmd_validate(args, out)
    if args.command == "migrate":
        from escaramuza.migrate.command import cmd_migrate

        return cmd_migrate(args, out)
    if args.command == "schema":
        from escaramuza.schema import cmd_schema

        return cmd_schema(args, out)
    if args.command in ("train", "evaluate"):
        from escaramuza.training import cli as training_cli

        return training_cli.run_command(args, out)
    if args.command in ("suggest", "gm"):
        from escaramuza.gm import cli as gm_cli

        return gm_cli.run_command(args, out)
    if args.command == "serve":
        from escaramuza import web

        return web.run_command(args, out)
    if args.command == "warmup":
        from escaramuza.warmup import cmd_warmup

        return cmd_warmup(args, out)
    return cmd_play(args, out)


#: The metavars of the arguments that name a scenario or day (a shipped name or a path),
#: and of those that name a file or folder only. Every command's such arguments are
#: checked by :func:`check_paths`, as every ``--seed`` is by ``check_seed``.
NAME_OR_PATH_METAVARS = frozenset({"SCENARIO", "SCENARIO_OR_STATE", "DAY", "S"})
PATH_METAVARS = frozenset({"FILE", "DIR", "RUN_DIR", "CHECKPOINT"})


def check_paths(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse an empty scenario, file or folder argument of the command ``args`` holds.

    To the system an empty path is the current folder (``play ''`` said ``.: is a
    directory``) and an empty option was taken as not given (``--save-state ''`` saved
    nothing): one check here, for every command, names the argument instead. Blanks
    alone are as empty (``--save-state '  '`` wrote a file named by two spaces)."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for action in commands.choices[args.command]._actions:
        if action.metavar not in NAME_OR_PATH_METAVARS | PATH_METAVARS:
            continue
        value = getattr(args, action.dest, None)
        given = value if isinstance(value, list) else [value]
        if not any(isinstance(v, str) and not v.strip() for v in given):
            continue
        # An option by its long spelling; a positional argument by its metavar.
        where = max(action.option_strings, key=len) if action.option_strings else action.metavar
        if action.metavar in NAME_OR_PATH_METAVARS:
            raise EscaramuzaError(_f("{argument}: the name or path is empty", where))
        raise EscaramuzaError(_f("{argument}: the path is empty", where))


def help_language(argv: Sequence[str]) -> str:
    """The language of the help texts, known before any parser exists: the last
    ``--lang X`` / ``--lang=X`` of ``argv`` (before a ``--``), else ``ESCARAMUZA_LANG``,
    else English. A value escaramuza does not speak gives English without a word: argparse
    then refuses a bad ``--lang`` itself, and :func:`main` a bad ``ESCARAMUZA_LANG``."""
    given: str | None = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(argv):
            given = argv[i + 1]
        elif arg.startswith("--lang="):
            given = arg.partition("=")[2]
    if given is None:  # as language_from reads the environment: case and spaces ignored
        given = os.environ.get(ENV_VAR, "").strip().lower()
    return given if given in LANGUAGES else DEFAULT_LANGUAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 2 user error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        # First pass: which command (every command a name only; answers --help and
        # --version without importing any command's module). Second: its arguments.
        # Both build their parsers in the language asked for, so --help speaks it.
        with language(help_language(argv)), argparse_errors():
            chosen, _unknown = build_parser("").parse_known_args(argv)
            parser = build_parser(chosen.command)
            args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version or a bad command line
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USER_ERROR)
    out = sys.stdout
    try:
        # Before anything is narrated: events keep the text of the language current when
        # they were made (rules/core/i18n.py). Restored on return (main is called in-process
        # by tests and the GM session's own commands).
        with (
            language(language_from(getattr(args, "lang", None))),
            quiet(bool(getattr(args, "no_progress", False))),
        ):
            check_paths(parser, args)
            return _run(args, out)
    except EscaramuzaError as exc:
        out.flush()
        # One line, whatever the input held (a hostile file's newlines or huge values).
        message = clip(" ".join(str(exc).splitlines()), 1000)
        sys.stderr.write(f"{PROG}: error: {message}\n")
        return EXIT_USER_ERROR
    except BrokenPipeError:
        # `escaramuza play … | head`: the reader left; stop quietly, like other Unix tools.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
