"""The ``escaramuza migrate`` command: each file planned, checked with the current loader,
backed up and written atomically (or put back), and the arguments."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from escaramuza.migrate.renames import Change, MigrateError
from escaramuza.migrate.rewrite import _dump, _migrate_json, _migrate_yaml
from escaramuza.rules.core.errors import EscaramuzaError, clip
from escaramuza.rules.core.files import atomic_write, read_text_file
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.parsers import parse_json, parse_yaml
from escaramuza.rules.core.scenario import (
    DAY_SUFFIX,
    MAX_SCENARIO_BYTES,
    parse_scenario_text,
    shipped_scenarios,
)
from escaramuza.state_file import FORMAT, MAX_STATE_BYTES, is_state_file
from escaramuza.validate import _TABLES_KEYS  # what a tables file has, as validate reads it

#: Largest file read: the larger of the scenario and state file limits.
MAX_BYTES = max(MAX_SCENARIO_BYTES, MAX_STATE_BYTES)

#: The order files are migrated in: a day or a state file loads the scenarios it names.
_ORDER = {"scenario": 0, "tables": 0, "day": 1, "state": 2}

#: Most backups of one file (``FILE.bak`` … ``FILE.bak999``).
MAX_BACKUPS = 1000

#: Where a state file carries its scenario's YAML (written by the web page).
EMBEDDED = ("meta", "scenario_yaml")


@dataclass(frozen=True, slots=True)
class Migration:
    """What migrating one file gives: its kind, the new text (``None``: already current),
    the changes, and where they are (``FILE`` or ``FILE: meta.scenario_yaml``)."""

    name: str
    kind: str
    text: str
    new_text: str | None
    changes: tuple[Change, ...]
    embedded: bool = False

    def change_lines(self) -> list[str]:
        """Each change as ``escaramuza validate`` words a problem, ``FILE:LINE: FIELD:
        REASON``, in the file's order."""
        where = f"{self.name}: {'.'.join(EMBEDDED)}" if self.embedded else self.name
        return [
            f"{where}:{c.line}: {c.field}: {c.reason}"
            if c.line
            else f"{where}: {c.field}: {c.reason}"
            for c in sorted(self.changes, key=lambda change: change.line or 0)
        ]


# -- one file ------------------------------------------------------------------------------


def _kind(path: Path, data: Any) -> str:
    """What the file is, from its keys (and, as the loaders decide, its name)."""
    if not isinstance(data, dict):
        raise MigrateError(
            str(path), "", _("not a scenario, day or state file (not a mapping of fields)")
        )
    keys = set(data)
    if "format" in keys or (is_state_file(path) and "battlefield" not in keys):
        return "state"
    if path.name.endswith(DAY_SUFFIX) or ("encounters" in keys and "combatants" not in keys):
        return "day"
    if keys & _TABLES_KEYS and not keys & {"ruleset", "combatants"}:
        return "tables"
    if keys & {"ruleset", "combatants"}:
        return "scenario"
    raise MigrateError(
        str(path), "", _("not a scenario, day or state file (no ruleset, combatants or format)")
    )


def _parse(text: str, source: str) -> tuple[Any, bool]:
    """The file's value and whether it is JSON (read as JSON, written back as JSON).

    A ``.json`` file is JSON, as the state file loader reads it; any other file is YAML
    unless it is a JSON object (YAML's flow style that is not JSON stays YAML).
    """
    if is_state_file(source):
        return parse_json(text, source, MigrateError), True
    if text.lstrip(" \t\r\n").startswith("{"):
        try:
            return parse_json(text, source, MigrateError), True
        except MigrateError:
            pass
    return parse_yaml(text, source, MigrateError), False


def _embedded(doc: dict[str, Any]) -> str | None:
    meta = doc.get(EMBEDDED[0])
    value = meta.get(EMBEDDED[1]) if isinstance(meta, dict) else None
    return value if isinstance(value, str) else None


def plan(name: str, text: str) -> Migration:
    """What migrating the file ``name`` (its ``text``) gives; nothing is written."""
    path = Path(name)
    data, is_json = _parse(text, name)
    kind = _kind(path, data)
    if kind == "tables":  # no stat block: nothing of the vocabulary
        return Migration(name, kind, text, None, ())
    if kind == "state":
        if not is_json:
            raise MigrateError(name, "", _("a state file must be JSON"))
        if data.get("format") != FORMAT:
            raise MigrateError(
                name,
                "format",
                _f(
                    "expected {expected}, got {value}",
                    repr(FORMAT),
                    repr(data.get("format")),
                ),
            )
        inner = _embedded(data)
        if inner is None:
            return Migration(name, kind, text, None, ())
        label = f"{name}: {'.'.join(EMBEDDED)}"
        new_inner, changes = _migrate_yaml(inner, "scenario", label)
        if not changes:
            return Migration(name, kind, text, None, ())
        data[EMBEDDED[0]][EMBEDDED[1]] = new_inner
        return Migration(name, kind, text, _dump(data), tuple(changes), embedded=True)
    if is_json:
        new_text, changes = _migrate_json(data, kind, name)
    else:
        new_text, changes = _migrate_yaml(text, kind, name)
    return Migration(name, kind, text, new_text if changes else None, tuple(changes))


def check(path: Path, kind: str, text: str) -> None:
    """Load ``text`` as the file ``path`` of ``kind`` with the current loader (what
    ``play``, ``campaign``, ``gm`` and the web page use); raise what it raises."""
    source = str(path)
    if kind == "scenario":
        parse_scenario_text(text, source, default_name=path.stem)
    elif kind == "day":
        from escaramuza.day import day_stem, file_lookup, parse_day
        from escaramuza.rules.core.errors import ScenarioError

        data = parse_yaml(text, source, ScenarioError)
        parse_day(data, source, file_lookup(source), day_stem(path))
    elif kind == "state":
        from escaramuza.state_file import StateFileError, state_from_dict

        doc = parse_json(text, source, StateFileError)
        inner = _embedded(doc) if isinstance(doc, dict) else None
        ref = doc.get("scenario") if isinstance(doc, dict) else None
        if inner is not None and isinstance(ref, str) and ref not in shipped_scenarios():
            # As the web page loads a state file it saved: the scenario it carries.
            scenario = parse_scenario_text(inner, Path(ref).name, default_name=Path(ref).stem)
            state_from_dict(doc, source, scenario=scenario)
        else:
            state_from_dict(doc, source, base_dir=path.parent)


def _backup(path: Path, data: bytes, mode: int) -> Path:
    """A copy of ``data`` in ``FILE.bak`` (``FILE.bak1``… when taken), never overwriting."""
    for n in range(MAX_BACKUPS):
        backup = path.with_name(f"{path.name}.bak{n or ''}")
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            backup.unlink(missing_ok=True)
            raise
        return backup
    raise MigrateError(str(path), "", _f("has {n} backups already; remove some", MAX_BACKUPS))


def write(migration: Migration) -> Path:
    """Write a planned migration: the backup, the new text, the check; the backup's path.

    The new text goes to the file a symbolic link names (the link stays: ``atomic_write``
    follows it) and keeps the file's permissions. If the file written does not load, the
    original is put back and its backup removed.
    """
    assert migration.new_text is not None
    path = Path(migration.name)
    try:
        mode = path.stat().st_mode & 0o7777
        backup = _backup(path, migration.text.encode("utf-8"), mode)
    except OSError as exc:
        raise MigrateError(
            migration.name,
            "",
            _f("no backup could be written ({reason}); nothing changed", exc.strerror),
        ) from None
    try:
        atomic_write(path, migration.new_text)
        os.chmod(path, mode)
    except OSError as exc:
        raise MigrateError(
            migration.name,
            "",
            _f(
                "cannot be written ({reason}); the original is kept as {backup}",
                exc.strerror,
                backup,
            ),
        ) from None
    try:
        text = read_text_file(path, MigrateError, _("a migrated file"), MAX_BYTES)
        check(path, migration.kind, text)
    except EscaramuzaError as exc:
        try:
            atomic_write(path, migration.text)
            os.chmod(path, mode)
            backup.unlink()
        except OSError as undo:
            raise MigrateError(
                migration.name,
                "",
                _f(
                    "the rewritten file does not load ({error}) and cannot be restored "
                    "({reason}): the original is {backup}",
                    exc,
                    undo.strerror,
                    backup,
                ),
            ) from None
        raise MigrateError(
            migration.name,
            "",
            _f(
                "not migrated: the rewritten file does not load ({error}); the original is "
                "restored",
                exc,
            ),
        ) from None
    return backup


def _read(name: str) -> str:
    return read_text_file(Path(name), MigrateError, _("a scenario, day or state file"), MAX_BYTES)


# -- the command ---------------------------------------------------------------------------


def add_parser(commands: Any) -> None:
    migrate = commands.add_parser(
        "migrate",
        help=_("rewrite scenario, day and state files that use retired stat-block names"),
        description=_(
            "Rewrite each FILE — a scenario (YAML or JSON), an adventuring day "
            "(*.day.yaml) or a state file (.json, the scenario the web page embeds) — from the "
            "retired stat-block names to the current ones (armas to weapons…), the names "
            "escaramuza validate reports as retired. YAML is edited in place, so comments and "
            "layout stay. The original is kept as FILE.bak (FILE.bak1… if taken); a file with "
            "nothing to rename is left alone. A file with both an old key and its new one is "
            "refused, as is one that would still not load. Exit 0 when every file is migrated "
            "or already current, 2 otherwise."
        ),
    )
    migrate.add_argument("files", nargs="+", metavar="FILE", help=_("files to rewrite"))
    migrate.add_argument(
        "--dry-run",
        action="store_true",
        help=_("print what would change and write nothing"),
    )


def cmd_migrate(args: argparse.Namespace, out: TextIO) -> int:
    from escaramuza.cli import PROG

    failed = 0

    def refuse(exc: EscaramuzaError) -> None:
        nonlocal failed
        failed += 1
        out.flush()
        message = clip(" ".join(str(exc).splitlines()), 1000)
        sys.stderr.write(f"{PROG}: error: {message}\n")

    planned: list[tuple[str, str, str]] = []  # (kind, name, text), to migrate in order
    for name in args.files:
        try:
            text = _read(name)
            kind = _kind(Path(name), _parse(text, name)[0])
        except EscaramuzaError as exc:
            refuse(exc)
            continue
        planned.append((kind, name, text))
    for _kind_of, name, text in sorted(planned, key=lambda item: _ORDER[item[0]]):
        try:
            migration = plan(name, text)
            if migration.new_text is None:
                out.write(_f("{file}: already current", name) + "\n")
                continue
            try:
                check(Path(name), migration.kind, migration.new_text)
            except EscaramuzaError as exc:
                raise MigrateError(
                    name,
                    "",
                    _f(
                        "not migrated, nothing written: with the retired names rewritten it "
                        "still does not load: {error}",
                        exc,
                    ),
                ) from None
            for line in migration.change_lines():
                out.write(line + "\n")
            if args.dry_run:
                out.write(_f("{file}: would be migrated (dry run: nothing written)", name) + "\n")
                continue
            backup = write(migration)
        except EscaramuzaError as exc:
            refuse(exc)
            continue
        out.write(_f("{file}: migrated; the original is kept as {backup}", name, backup) + "\n")
    return 2 if failed else 0
