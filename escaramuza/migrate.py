"""``escaramuza migrate FILE…``: rewrite files of the retired stat-block vocabulary.

A file written before the stat-block vocabulary changed no longer loads: each retired
key is an error ("`armas` is now `weapons`"). This command renames them. What is renamed
is exactly what the loader would name: the file's stat blocks are validated with the
scenario model of its ruleset, and every problem :func:`~escaramuza.rules.core.vocabulary.retired`
reads as a retired key or value (its successor valid at that place for that ruleset) is
renamed to the successor the vocabulary's tables give. A key renamed can hold more retired
names (``armas`` holds weapons with ``nombre``), so the file is validated again until
nothing retired is left.

The files it rewrites:

* a scenario (YAML, or JSON, which the loader reads too): its combatants;
* an adventuring day (``*.day.yaml``): its heroes, stat blocks as a scenario's (the
  encounters name scenario files, which are migrated on their own);
* a state file (``.json``): the scenario YAML the web page embeds in
  ``meta.scenario_yaml`` (a state file names its scenario otherwise, and holds no stat
  block).

YAML is edited in place: each key or value is replaced where the YAML node tree
(``yaml.compose``) says it is written, so comments, layout and quoting stay. A JSON file
is read, renamed with its keys in the same order, and written with the indentation state
files are written with.

Cairn's ``ranged: true`` is ``kind: distancia`` (the table's ``key: value`` form names the
value the new key takes); ``ranged: false`` meant the flag's absence, so it becomes the
new key's default (``kind: cuerpo_a_cuerpo``), read from the ruleset's schema.

Safety: a file whose old and new key are both written (``armas`` and ``weapons``), or two
retired keys of one successor, is refused, and nothing is written. The rewritten text must
load with the current loader before it is written; the original is then copied to
``FILE.bak`` (``FILE.bak1``, ``FILE.bak2``… when taken: a backup is never overwritten), the
new text written atomically (a temporary file in the same folder and ``os.replace``), and
the file loaded again from disk; if that fails, the original is put back. Scenarios are
migrated first, then days, then state files, so a day's or a state file's check loads the
scenarios migrated in the same run.

Exit code: 0 when every file was migrated or already current, 2 when any was refused
(each refusal is one ``escaramuza: error: FILE: FIELD: REASON`` line on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TextIO

import yaml
from pydantic import ValidationError

from escaramuza.rules.core.errors import EscaramuzaError, clip
from escaramuza.rules.core.files import atomic_write, parse_json, parse_yaml, read_text_file
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.scenario import (
    DAY_SUFFIX,
    MAX_SCENARIO_BYTES,
    parse_scenario_text,
    pydantic_problems,
    scenario_model,
    shipped_scenarios,
)
from escaramuza.rules.core.vocabulary import (
    compose,
    field_path,
    line_of,
    retired,
    schema_nodes,
)
from escaramuza.state_file import FORMAT, MAX_STATE_BYTES, is_state_file
from escaramuza.validate import _TABLES_KEYS  # what a tables file has, as validate reads it

#: Largest file read: the larger of the scenario and state file limits.
MAX_BYTES = max(MAX_SCENARIO_BYTES, MAX_STATE_BYTES)

#: The order files are migrated in: a day or a state file loads the scenarios it names.
_ORDER = {"scenario": 0, "tables": 0, "day": 1, "state": 2}

#: Most rounds of renames: each round reaches one level deeper (a combatant's key, then
#: its weapons' keys, then their values), so three suffice for today's tables.
MAX_PASSES = 8

#: Most backups of one file (``FILE.bak`` … ``FILE.bak999``).
MAX_BACKUPS = 1000

#: Where a state file carries its scenario's YAML (written by the web page).
EMBEDDED = ("meta", "scenario_yaml")

_MERGE = "tag:yaml.org,2002:merge"


class MigrateError(EscaramuzaError):
    """A file that cannot be migrated: names the file, the field and the reason."""

    def __init__(self, source: str, field: str, reason: str) -> None:
        self.source = source
        self.field = clip(field, 120)
        self.reason = clip(reason)
        where = f"{source}: {self.field}" if field else source
        super().__init__(f"{where}: {self.reason}")


@dataclass(frozen=True, slots=True)
class Change:
    """One retired key or value rewritten: where (``line`` of the text it is in) and what."""

    field: str
    line: int | None
    reason: str


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


@dataclass(frozen=True, slots=True)
class _Rename:
    """A rename found in one round: the field (the file's path), the key and its new name
    (``None`` for a retired value), the new value (where one is written) and the reason."""

    field: str
    new_key: str | None
    new_value: str | None
    reason: str


# -- what to rename ------------------------------------------------------------------------


@cache
def _schema(ruleset: str) -> dict[str, Any]:
    return scenario_model(ruleset).model_json_schema()


def _ruleset(data: Mapping[str, Any], source: str) -> str:
    """The file's ruleset: the retired names that count depend on its stat block."""
    from escaramuza.rules import RULESETS

    ruleset = data.get("ruleset")
    if ruleset is None:
        raise MigrateError(
            source, "ruleset", "required field is missing (which names are retired depends on it)"
        )
    if not isinstance(ruleset, str) or ruleset not in RULESETS:
        raise MigrateError(
            source,
            "ruleset",
            f"unknown ruleset {str(ruleset)[:80]!r} (known: {', '.join(RULESETS)})",
        )
    return ruleset


def _parent(data: Any, path: list[str | int]) -> dict[str, Any] | None:
    """The mapping that holds the last part of ``path``, if the path leads to one."""
    node = data
    for part in path[:-1]:
        if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(part, str) and isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node if isinstance(node, dict) else None


def _default(schema: Mapping[str, Any], path: list[str | int], key: str) -> str | None:
    """The default the schema gives ``key`` in the object at ``path``."""
    for node in schema_nodes(schema, path):
        prop = node.get("properties", {}).get(key)
        if isinstance(prop, Mapping) and isinstance(prop.get("default"), str):
            return str(prop["default"])
    return None


def _flag(value: Any) -> str:
    return "true" if value is True else "false" if value is False else repr(value)


def _renames(kind: str, data: dict[str, Any], source: str) -> list[_Rename]:
    """The retired keys and values the loader would name in ``data`` now.

    A scenario is validated as the loader validates it; a day's heroes as the stat blocks
    of a scenario (the day's loader puts them in each encounter on the heroes' side).
    """
    ruleset = _ruleset(data, source)
    schema = _schema(ruleset)
    prefix = "combatants"
    probe: Any = data
    if kind == "day":
        heroes = data.get("heroes")
        if not isinstance(heroes, list):
            return []
        prefix = "heroes"
        probe = {
            "ruleset": ruleset,
            "combatants": [
                {**h, "side": "heroes", "zone": ""} if isinstance(h, dict) else h for h in heroes
            ],
        }
    try:
        scenario_model(ruleset).model_validate(probe)
    except ValidationError as err:
        problems = pydantic_problems(err)
    else:
        return []
    out: list[_Rename] = []
    seen: set[tuple[int, str]] = set()  # (the mapping, its key): an alias shares a mapping
    successors: dict[tuple[int, str], str] = {}  # (the mapping, a successor) -> its field
    for problem in problems:
        found = retired(problem, schema)
        if found is None or not found.field.startswith("combatants["):
            continue
        field = prefix + found.field[len("combatants") :]
        path = field_path(field)
        parent, key = _parent(data, path), str(path[-1])
        if parent is None or key not in parent or (id(parent), key) in seen:
            continue
        seen.add((id(parent), key))
        if found.of_value:
            out.append(_Rename(field, None, found.new, found.reason))
            continue
        new_key = found.key
        if new_key in parent:
            raise MigrateError(
                source,
                field,
                f"both `{key}` and `{new_key}` are written: keep one of them and migrate again",
            )
        if (id(parent), new_key) in successors:
            other = str(field_path(successors[id(parent), new_key])[-1])
            raise MigrateError(
                source,
                field,
                f"`{other}` and `{key}` would both become `{new_key}`: "
                "keep one of them and migrate again",
            )
        successors[id(parent), new_key] = field
        new_value, reason = found.value, found.reason
        if new_value is not None:  # a flag that became a key's value
            old = parent[key]
            if old is False:
                new_value = _default(schema, field_path(found.field)[:-1], new_key)
                if new_value is None:
                    raise MigrateError(
                        source, field, f"`{key}: false` has no successor: write `{new_key}` by hand"
                    )
            elif old is not True:
                raise MigrateError(
                    source,
                    field,
                    f"`{key}` is {_flag(old)}: only `{key}: true` (`{found.new}`) or "
                    f"`{key}: false` can be rewritten",
                )
            reason = f"`{key}: {_flag(old)}` is now `{new_key}: {new_value}`"
        out.append(_Rename(field, new_key, new_value, reason))
    return out


# -- rewriting YAML text in place ----------------------------------------------------------


def _entry(node: Any, key: str) -> tuple[Any, Any] | None:
    """The (key node, value node) of ``key`` in a mapping node: its own keys first, then
    those of the mappings it merges (``<<``), in order, as the loader reads them."""
    if not isinstance(node, yaml.MappingNode):
        return None
    merged: list[Any] = []
    for key_node, value_node in node.value:
        if key_node.tag == _MERGE:
            merged.extend(
                value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            )
        elif isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return key_node, value_node
    for source in merged:
        found = _entry(source, key)
        if found is not None:
            return found
    return None


def _node_at(root: Any, path: list[str | int]) -> tuple[Any, Any] | None:
    """The (key node, value node) the field ``path`` leads to in the node tree."""
    key_node: Any = None
    node = root
    for part in path:
        if isinstance(part, int):
            if not isinstance(node, yaml.SequenceNode) or not 0 <= part < len(node.value):
                return None
            node, key_node = node.value[part], None
        else:
            found = _entry(node, part)
            if found is None:
                return None
            key_node, node = found
    return key_node, node


def _edit(
    edits: dict[tuple[int, int], str], text: str, node: Any, new: str, source: str, field: str
) -> bool:
    """Plan replacing the scalar ``node`` with ``new`` (quoted as it was quoted); whether it
    is a new edit (an alias's second path to the same node is not)."""
    if not isinstance(node, yaml.ScalarNode):
        raise MigrateError(source, field, "is not a single word, so it cannot be rewritten")
    span = (node.start_mark.index, node.end_mark.index)
    if "\n" in text[span[0] : span[1]]:
        raise MigrateError(
            source, field, "is written over several lines: write it on one line and migrate again"
        )
    replacement = f"{node.style}{new}{node.style}" if node.style in ("'", '"') else new
    if span in edits:
        if edits[span] != replacement:  # pragma: no cover - one node, one successor
            raise MigrateError(source, field, "is renamed two ways")
        return False
    edits[span] = replacement
    return True


def _migrate_yaml(text: str, kind: str, source: str) -> tuple[str, list[Change]]:
    """``text`` with every retired name rewritten in place, and the changes."""
    changes: list[Change] = []
    for _pass in range(MAX_PASSES):
        data = parse_yaml(text, source, MigrateError)
        renames = _renames(kind, data, source)
        if not renames:
            return text, changes
        root = compose(text)
        edits: dict[tuple[int, int], str] = {}
        for rename in renames:
            found = _node_at(root, field_path(rename.field))
            if found is None or found[0] is None:  # pragma: no cover - the loader's own path
                raise MigrateError(source, rename.field, "cannot find where it is written")
            key_node, value_node = found
            new = False
            if rename.new_key is not None:
                new = _edit(edits, text, key_node, rename.new_key, source, rename.field)
            if rename.new_value is not None:
                new = _edit(edits, text, value_node, rename.new_value, source, rename.field) or new
            if new:
                node = key_node if rename.new_key is not None else value_node
                changes.append(Change(rename.field, node.start_mark.line + 1, rename.reason))
        for (start, end), replacement in sorted(edits.items(), reverse=True):
            text = text[:start] + replacement + text[end:]
    raise MigrateError(source, "", f"still names retired keys after {MAX_PASSES} rounds of renames")


# -- rewriting JSON ------------------------------------------------------------------------


def _dump(doc: Any) -> str:
    """JSON as the project writes state files."""
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def _migrate_json(data: dict[str, Any], kind: str, source: str) -> tuple[str, list[Change]]:
    """``data`` renamed in place (keys in their order); its new text and the changes, with
    the lines they are at in the new text."""
    done: list[tuple[str, bool, str]] = []  # (field in the new document, at a key, reason)
    for _pass in range(MAX_PASSES):
        renames = _renames(kind, data, source)
        if not renames:
            break
        for rename in renames:
            path = field_path(rename.field)
            parent, key = _parent(data, path), str(path[-1])
            assert parent is not None  # _renames found it there
            if rename.new_key is None:
                parent[key] = rename.new_value
                done.append((rename.field, False, rename.reason))
                continue
            items = list(parent.items())
            parent.clear()
            for k, v in items:
                if k == key:
                    parent[rename.new_key] = v if rename.new_value is None else rename.new_value
                else:
                    parent[k] = v
            above = rename.field.rpartition(".")[0]
            done.append((f"{above}.{rename.new_key}", True, rename.reason))
    else:
        raise MigrateError(
            source, "", f"still names retired keys after {MAX_PASSES} rounds of renames"
        )
    text = _dump(data)
    root = compose(text)
    return text, [Change(f, line_of(root, f, key_line=at_key), why) for f, at_key, why in done]


# -- one file ------------------------------------------------------------------------------


def _kind(path: Path, data: Any) -> str:
    """What the file is, from its keys (and, as the loaders decide, its name)."""
    if not isinstance(data, dict):
        raise MigrateError(
            str(path), "", "not a scenario, day or state file (not a mapping of fields)"
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
        str(path), "", "not a scenario, day or state file (no ruleset, combatants or format)"
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
            raise MigrateError(name, "", "a state file must be JSON")
        if data.get("format") != FORMAT:
            raise MigrateError(name, "format", f"expected {FORMAT!r}, got {data.get('format')!r}")
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
    raise MigrateError(str(path), "", f"has {MAX_BACKUPS} backups already; remove some")


def write(migration: Migration) -> Path:
    """Write a planned migration: the backup, the new text, the check; the backup's path.

    The new text goes to the file a symbolic link names (the link stays) and keeps the
    file's permissions. If the file written does not load, the original is put back and
    its backup removed.
    """
    assert migration.new_text is not None
    path = Path(migration.name)
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode & 0o7777
        backup = _backup(path, migration.text.encode("utf-8"), mode)
    except OSError as exc:
        raise MigrateError(
            migration.name, "", f"no backup could be written ({exc.strerror}); nothing changed"
        ) from None
    try:
        atomic_write(target, migration.new_text)
        os.chmod(target, mode)
    except OSError as exc:
        raise MigrateError(
            migration.name,
            "",
            f"cannot be written ({exc.strerror}); the original is kept as {backup}",
        ) from None
    try:
        text = read_text_file(path, MigrateError, "a migrated file", MAX_BYTES)
        check(path, migration.kind, text)
    except EscaramuzaError as exc:
        try:
            atomic_write(target, migration.text)
            os.chmod(target, mode)
            backup.unlink()
        except OSError as undo:
            raise MigrateError(
                migration.name,
                "",
                f"the rewritten file does not load ({exc}) and cannot be restored "
                f"({undo.strerror}): the original is {backup}",
            ) from None
        raise MigrateError(
            migration.name,
            "",
            f"not migrated: the rewritten file does not load ({exc}); the original is restored",
        ) from None
    return backup


def _read(name: str) -> str:
    return read_text_file(Path(name), MigrateError, "a scenario, day or state file", MAX_BYTES)


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
                    f"not migrated, nothing written: with the retired names rewritten it "
                    f"still does not load: {exc}",
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
