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

One module per part, each importing only the ones above it:

* :mod:`~escaramuza.migrate.renames`: what to rename, and the conflicts refused;
* :mod:`~escaramuza.migrate.rewrite`: the renames written into YAML text in place, or into
  JSON;
* :mod:`~escaramuza.migrate.command`: one file planned, checked, backed up and written;
  the command.

The names below are re-exported so ``from escaramuza.migrate import X`` keeps working.
"""

from __future__ import annotations

from escaramuza.migrate.command import (
    EMBEDDED,
    MAX_BACKUPS,
    MAX_BYTES,
    Migration,
    add_parser,
    check,
    cmd_migrate,
    plan,
    write,
)
from escaramuza.migrate.renames import Change, MigrateError
from escaramuza.migrate.rewrite import MAX_PASSES

__all__ = [
    "EMBEDDED",
    "MAX_BACKUPS",
    "MAX_BYTES",
    "MAX_PASSES",
    "Change",
    "MigrateError",
    "Migration",
    "add_parser",
    "check",
    "cmd_migrate",
    "plan",
    "write",
]
