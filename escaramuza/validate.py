"""``escaramuza validate FILE…``: check scenario, state and tables files without playing.

Each file goes through the loader that ``play``, ``gm`` and the Sistema 2d10 ruleset
use (:func:`load_scenario_file`, :func:`load_state`, :func:`load_tables`), so what
passes here loads there, and reads it as they do: at most as many bytes as they read,
parsed by the same bounded parser before its lines are looked up. Every problem the
loader collects is listed, one line each, in the file's order:

    FILE:LINE: FIELD: REASON (did you mean 'x'?)

— the first :data:`~escaramuza.rules.core.errors.MAX_LISTED_PROBLEMS` of a file, then one
line that counts the rest.

LINE comes from the YAML (or JSON) node the field path leads to — PyYAML's
``compose()`` keeps each node's start mark — and is left out when the path does
not lead anywhere in the file. "Did you mean" comes from :func:`difflib.get_close_matches`
over the names the file could have meant: a model's field names (read from its JSON
Schema, so they follow the models when the vocabulary changes), the zones, rulesets,
temperaments, locations or shipped scenario names the loader knows.

A file whose own stat blocks name a retired key or value gets one more line, on stderr
(the list on stdout stays one problem a line): ``escaramuza migrate FILE`` rewrites them.

Exit code: 0 when every file is valid, 2 when any problem is found (the code of
every user error).
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from escaramuza.rules.core.errors import (
    MAX_LISTED_PROBLEMS,
    EscaramuzaError,
    Problem,
    ScenarioError,
)
from escaramuza.rules.core.i18n import N_, _, _f, ngettext
from escaramuza.rules.core.vocabulary import (
    FieldLines,
    compose,
    did_you_mean,
    field_path,
    says_retired,
    schema_keys,
)

#: ``--kind``: what a file is; ``auto`` decides from its name and keys.
KINDS = ("auto", "scenario", "day", "state", "tables")
#: A kind as the "ok" line names it, in the current language.
KIND_WORDS = {
    "scenario": N_("scenario"),
    "day": N_("day"),
    "state": N_("state"),
    "tables": N_("tables"),
}

#: Top-level keys that only a Sistema 2d10 tables file has.
_TABLES_KEYS = frozenset({"localizacion", "ataque_apuntado", "gdf"})

_SYNTAX_WHERE = re.compile(r"^line (\d+), column (\d+)$")


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem of one file, ready to print."""

    source: str
    field: str
    reason: str
    line: int | None = None
    suggestion: str | None = None

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        field = f" {self.field}:" if self.field else ""
        hint = _f(" (did you mean {names}?)", repr(self.suggestion)) if self.suggestion else ""
        return f"{where}:{field} {self.reason}{hint}"


# -- reading the file ------------------------------------------------------------------


def _not_regular(path: Path) -> str | None:
    """Why ``path`` cannot be validated without opening it, or ``None``.

    Checked with ``stat`` first so a FIFO or a device is never opened (opening a FIFO
    blocks until a writer comes).
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return _("no such file")
    except OSError as exc:
        return _f("cannot be read ({reason})", exc.strerror)
    if stat.S_ISDIR(mode):
        return _("is a directory, not a file to validate")
    if not stat.S_ISREG(mode):
        return _("is not a regular file (a FIFO, socket or device)")
    if not os.access(path, os.R_OK):
        return _f("cannot be read ({reason})", os.strerror(errno.EACCES))
    return None


def _read(path: Path, kind: str) -> str:
    """The text of ``path`` through the loaders' bounded reader, at most as many bytes as
    the loader of ``kind`` reads (of any YAML kind while ``auto`` has not decided):
    a file too large for it is refused before it is read, as ``play`` refuses it."""
    from escaramuza.rules.core.files import read_text_file
    from escaramuza.rules.core.scenario import MAX_SCENARIO_BYTES
    from escaramuza.rules.sistema_2d10.tables import MAX_TABLES_BYTES
    from escaramuza.state_file.reading import MAX_STATE_BYTES

    what, limit = {
        "state": (_("a state file"), MAX_STATE_BYTES),
        "day": (_("a day file"), MAX_SCENARIO_BYTES),
        "tables": (_("a tables file"), MAX_TABLES_BYTES),
        "scenario": (_("a scenario file"), MAX_SCENARIO_BYTES),
    }.get(kind, (_("a scenario, day or tables file"), max(MAX_SCENARIO_BYTES, MAX_TABLES_BYTES)))
    return read_text_file(path, ScenarioError, what, limit)


def _tree(text: str, source: str, kind: str) -> Any:
    """The node tree of ``text`` (:func:`compose`, for lines and keys), or ``None`` when
    the bounded parser the loader of ``kind`` uses refuses it: the composer has no bound
    of its own (a file nested 100,000 deep would exhaust the recursion, a list as a key
    is not hashable). The loader reports why the text is refused."""
    from escaramuza.rules.core.parsers import parse_json, parse_yaml

    parse = parse_json if kind == "state" else parse_yaml
    try:
        parse(text, source, ScenarioError)
    except EscaramuzaError:
        return None
    return compose(text)


def _kind_by_name(path: Path, kind: str) -> str:
    """``state`` for ``.json`` (as ``gm``/``suggest`` decide), ``day`` for ``*.day.yaml``,
    else ``kind``: what the name tells before the file is read."""
    from escaramuza.state_file import is_state_file

    if kind != "auto":
        return kind
    if is_state_file(path):
        return "state"
    return "day" if path.name.endswith(".day.yaml") else kind


def _kind(root: Any) -> str:
    """What a YAML file whose name did not tell is, from its keys (``root`` is its
    :func:`_tree`): ``day`` for a mapping with encounters and no combatants, ``tables``
    for a mapping of tables keys without a ruleset, else ``scenario``."""
    keys = {k.value for k, _ in root.value} if _is_mapping(root) else set()
    if "encounters" in keys and "combatants" not in keys:
        return "day"
    if keys & _TABLES_KEYS and not keys & {"ruleset", "combatants"}:
        return "tables"
    return "scenario"


def _is_mapping(node: Any) -> bool:
    import yaml

    return isinstance(node, yaml.MappingNode)


# -- did you mean --------------------------------------------------------------------------


def _scenario_schema(root: Any) -> dict[str, Any]:
    """The schema whose names a scenario could have meant: its ruleset's, or the
    generic keys' when the ruleset is unknown."""
    from escaramuza.rules import RULESETS
    from escaramuza.rules.core.scenario import ScenarioSpec, scenario_model

    ruleset = None
    if _is_mapping(root):
        ruleset = next((v.value for k, v in root.value if k.value == "ruleset"), None)
    if ruleset in RULESETS:
        return scenario_model(ruleset).model_json_schema()
    return ScenarioSpec.model_json_schema()


def _names_for(kind: str, root: Any) -> dict[str, Any] | None:
    if kind == "scenario":
        return _scenario_schema(root)
    if kind == "day":
        from escaramuza.day import DaySpec

        return DaySpec.model_json_schema()
    if kind == "tables":
        from escaramuza.rules.sistema_2d10.tables import tables_model

        return tables_model().model_json_schema()
    return None


def _state_known(problem: Problem, root: Any) -> Problem:
    """A state file's unknown scenario: the shipped names are what it could have meant."""
    if problem.field != "scenario" or problem.known or not _is_mapping(root):
        return problem
    from escaramuza.rules.core.scenario import shipped_scenarios

    value = next((v.value for k, v in root.value if k.value == "scenario"), None)
    if not isinstance(value, str):
        return problem
    names = list(shipped_scenarios())
    names += [name.split("/", 1)[1] for name in names]
    return Problem(problem.field, problem.reason, value, tuple(names))


# -- one file ------------------------------------------------------------------------------


def _load(path: Path, kind: str) -> None:
    """Load ``path`` with the project's own loader for ``kind``; raise what it raises."""
    if kind == "state":
        from escaramuza.state_file import load_state

        load_state(path)
    elif kind == "tables":
        from escaramuza.rules.sistema_2d10.tables import load_tables

        load_tables(str(path))
    elif kind == "day":
        from escaramuza.day import load_day_file

        load_day_file(path)
    else:
        from escaramuza.rules.core.scenario import load_scenario_file

        load_scenario_file(path)


def _problems(exc: EscaramuzaError) -> tuple[str | None, tuple[Problem, ...]]:
    problems = getattr(exc, "problems", None)
    if problems:
        return getattr(exc, "source", None), tuple(problems)
    field = getattr(exc, "field", None)
    reason = getattr(exc, "reason", None)
    if reason is not None:
        return getattr(exc, "source", None), (Problem(field or "", reason),)
    return None, (Problem("", str(exc)),)


def validate_file(name: str, kind: str = "auto") -> tuple[str, list[Finding], int]:
    """Validate one file: the kind it was checked as, its first problems in the file's
    order (at most :data:`MAX_LISTED_PROBLEMS`), and how many more it has."""
    path = Path(name)
    why = _not_regular(path)
    if why is not None:
        return kind, [Finding(name, "", why)], 0
    kind = _kind_by_name(path, kind)
    try:
        text = _read(path, kind)
    except ScenarioError as exc:
        return kind, [Finding(name, "", exc.reason)], 0
    root = _tree(text, name, kind)
    if kind == "auto":
        kind = _kind(root)
    try:
        _load(path, kind)
    except EscaramuzaError as exc:
        source, problems = _problems(exc)
        source = source or name
        if source == name:
            return (kind, *_findings(source, root, kind, problems))
        # The problem is in another file (a scenario's tables file, a state file's
        # scenario): its lines and names are that file's.
        other = "tables" if kind == "scenario" else "scenario"
        try:
            root = _tree(_read(Path(source), other), source, other)
        except EscaramuzaError:
            root, other = None, "other"
        return (kind, *_findings(source, root, other, problems))
    return kind, [], 0


def _findings(
    source: str, root: Any, kind: str, problems: Sequence[Problem]
) -> tuple[list[Finding], int]:
    """The first :data:`MAX_LISTED_PROBLEMS` of ``problems`` in the file's order (problems
    without a line, of the whole file, first) with their lines and "did you mean", and how
    many more there are. Every problem's line is found (one step per part of its path),
    the names it could have meant only for those listed."""
    lines = FieldLines(root)
    placed: list[tuple[int | None, Problem, bool]] = []  # (line, problem, a syntax error)
    for problem in problems:
        if kind == "state":
            problem = _state_known(problem, root)
        where = _SYNTAX_WHERE.match(problem.field)
        if where:  # a YAML or JSON syntax error: the loader's field is where it is
            placed.append((int(where.group(1)), problem, True))
            continue
        key_line = problem.reason == _("unknown field") or problem.at_key
        placed.append((problem.line or lines.line(problem.field, key_line), problem, False))
    placed.sort(key=lambda item: item[0] or 0)  # stable: the loader's order on one line
    schema: dict[str, Any] | None = None
    out: list[Finding] = []
    for line, problem, syntax in placed[:MAX_LISTED_PROBLEMS]:
        if syntax:
            out.append(Finding(source, "", problem.reason, line))
            continue
        known = problem.known
        if problem.reason == _("unknown field") and not known:
            if schema is None:
                schema = _names_for(kind, root) or {}
            known = tuple(schema_keys(schema, field_path(problem.field)[:-1]))
        out.append(
            Finding(source, problem.field, problem.reason, line, did_you_mean(problem.value, known))
        )
    return out, len(placed) - len(out)


# -- the command ---------------------------------------------------------------------------


def add_parser(commands: Any) -> None:
    validate = commands.add_parser(
        "validate",
        help=_("check scenario, day, state and tables files without playing"),
        description=_(
            "Check each FILE with the loader play and gm use — a scenario (YAML), "
            "an adventuring day (*.day.yaml), a state file (.json) or a Sistema 2d10 tables "
            "file (YAML) — and list every "
            "problem as FILE:LINE: FIELD: REASON, with a 'did you mean' where a known name "
            "is close. Exit 0 when all are valid, 2 otherwise."
        ),
    )
    validate.add_argument("files", nargs="+", metavar="FILE", help=_("files to check"))
    validate.add_argument(
        "--kind",
        choices=KINDS,
        default="auto",
        help=_(
            "what the files are (default auto: .json is a state file, *.day.yaml or a "
            "mapping with encounters and no combatants a day, a YAML mapping "
            "with localizacion/ataque_apuntado/gdf and no ruleset a tables file, else a "
            "scenario)"
        ),
    )
    validate.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help=_("print only the problems, not the valid files"),
    )


def _retired_here(name: str, finding: Finding) -> bool:
    """Whether ``finding`` is a retired key or value of a stat block written in the file
    ``name`` itself (a scenario's combatants, a day's heroes): what migrate rewrites."""
    return (
        finding.source == name
        and finding.field.startswith(("combatants[", "heroes["))
        and says_retired(finding.reason)
    )


def cmd_validate(args: argparse.Namespace, out: TextIO) -> int:
    bad = 0
    total = 0
    for name in args.files:
        kind, findings, unlisted = validate_file(name, args.kind)
        total += len(findings) + unlisted
        if findings:
            bad += 1
            for finding in findings:
                out.write(f"{finding}\n")
            if unlisted:
                out.write(
                    ngettext(
                        "{file}: {n} more problem, not listed (a file's first {listed} are)",
                        "{file}: {n} more problems, not listed (a file's first {listed} are)",
                        unlisted,
                    ).format(file=name, n=unlisted, listed=MAX_LISTED_PROBLEMS)
                    + "\n"
                )
            if any(_retired_here(name, finding) for finding in findings):
                out.flush()  # the hint follows the file's problems in a terminal
                sys.stderr.write(
                    _f("{file}: run `escaramuza migrate {file}` to rewrite the retired names", name)
                    + "\n"
                )
        elif not args.quiet:
            out.write(_f("{file}: ok ({kind})", name, _(KIND_WORDS[kind])) + "\n")
    if bad:
        files = len(args.files)
        out.write(_f("{total} problem(s) in {bad} of {files} file(s)", total, bad, files) + "\n")
        return 2
    return 0
