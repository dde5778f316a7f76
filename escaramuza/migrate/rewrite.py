"""The renames written into a file's text: YAML edited in place where the node tree says
each key or value is written (comments, layout and quoting stay), JSON renamed with its
keys in the same order; round after round until nothing retired is left."""

from __future__ import annotations

import json
from typing import Any

import yaml

from escaramuza.migrate.renames import Change, MigrateError, _parent, _renames
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.parsers import parse_yaml
from escaramuza.rules.core.vocabulary import compose, field_path, line_of

#: Most rounds of renames: each round reaches one level deeper (a combatant's key, then
#: its weapons' keys, then their values), so three suffice for today's tables.
MAX_PASSES = 8

_MERGE = "tag:yaml.org,2002:merge"


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
        raise MigrateError(source, field, _("is not a single word, so it cannot be rewritten"))
    span = (node.start_mark.index, node.end_mark.index)
    if "\n" in text[span[0] : span[1]]:
        raise MigrateError(
            source,
            field,
            _("is written over several lines: write it on one line and migrate again"),
        )
    replacement = f"{node.style}{new}{node.style}" if node.style in ("'", '"') else new
    if span in edits:
        if edits[span] != replacement:  # pragma: no cover - one node, one successor
            raise MigrateError(source, field, _("is renamed two ways"))
        return False
    edits[span] = replacement
    return True


def _still_retired() -> str:
    """The reason of a file whose renames do not settle (YAML or JSON)."""
    return _f("still names retired keys after {n} rounds of renames", MAX_PASSES)


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
                raise MigrateError(source, rename.field, _("cannot find where it is written"))
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
    raise MigrateError(source, "", _still_retired())


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
        raise MigrateError(source, "", _still_retired())
    text = _dump(data)
    root = compose(text)
    return text, [Change(f, line_of(root, f, key_line=at_key), why) for f, at_key, why in done]
