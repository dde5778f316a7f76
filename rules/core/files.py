"""Reading and writing the project's files.

:func:`read_text_file` reads a user's text file (scenario YAML, state file,
tables file) and turns every way it can fail into the caller's own error class,
with the same reasons everywhere ("no such file", "is a directory", "not UTF-8
text", "cannot be read (…)"). It reads only regular files, and at most a given
number of bytes (issue 19, item 3): ``/dev/zero``, a pipe or a huge file is
refused before it can exhaust memory.

:func:`parse_yaml` and :func:`parse_json` parse a user's text into plain values
and bound what the parser accepts (issue 19, items 4 and 7): nesting at most
:data:`MAX_DEPTH` levels, integers of at most :data:`MAX_INT_DIGITS` digits, no
duplicate keys in YAML mappings (reported at the second key's line). Every
failure is the caller's error class naming the file, the place and the reason —
never a ``RecursionError`` or ``ValueError`` escaping a parser.

Atomic file writes: what a user had is never left half-written.

Every file the project writes (state files, reports, plots, trained models) goes
through :func:`atomic_write`: the bytes go to a temporary file in the target's
folder, are flushed to disk, and the temporary file replaces the target with
``os.replace`` (atomic on POSIX and Windows). A crash leaves either the old file
or the new one, never a truncated mix; a temporary a killed writer left behind
(``.NAME.XXXXXXXX.tmp``) is removed by the next write of the same file
(:func:`remove_stale_temporaries`, issue 19, item 8).
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

try:  # POSIX: a writer holds a lock on its temporary file while it writes it.
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: ``error(source, field, reason)`` builds the caller's error class.
ErrorFactory = Callable[[str, str, str], Exception]

#: Deepest nesting of lists and mappings a YAML or JSON file may have. The deepest the
#: project writes is about 8 (a state's pending attack inside ``data``); Python's parsers
#: and the validators recurse, so a file nested thousands deep must be stopped first.
MAX_DEPTH = 64

#: Longest integer a file may spell, in digits (more than any 64-bit value needs). Python
#: refuses to convert more than 4,300 digits and big ints are slow to compare and print.
MAX_INT_DIGITS = 19

#: Default cap of :func:`read_text_file`; callers pass their own (scenario, state, tables).
MAX_TEXT_BYTES = 1 << 20

_READ_CHUNK = 1 << 16


def _describe_size(limit: int) -> str:
    if limit % (1 << 20) == 0:
        return f"{limit >> 20} MiB"
    if limit % (1 << 10) == 0:
        return f"{limit >> 10} KiB"
    return f"{limit} bytes"


def read_text_file(
    path: str | os.PathLike[str],
    error: ErrorFactory,
    kind: str,
    max_bytes: int = MAX_TEXT_BYTES,
) -> str:
    """The UTF-8 text of ``path``, or ``error(source, "", reason)`` raised.

    ``error`` builds the caller's error class from (source, field, reason) —
    ``ScenarioError`` or ``StateFileError`` — and ``kind`` names what the file
    should be in the messages ("a scenario file", "a state file"). Only a regular
    file of at most ``max_bytes`` bytes is read: a device (``/dev/zero``), a pipe
    or a larger file is refused with the reason and the limit.
    """
    source = str(path)
    limit = _describe_size(max_bytes)
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error(source, "", "no such file") from None
    except IsADirectoryError:
        raise error(source, "", f"is a directory, not {kind}") from None
    except OSError as exc:
        raise error(source, "", f"cannot be read ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise error(source, "", f"is a directory, not {kind}")
        if not stat.S_ISREG(info.st_mode):
            raise error(
                source, "", f"is not a regular file (a device, pipe or socket); {kind} must be "
                f"a regular file of at most {limit}",
            )
        if info.st_size > max_bytes:
            raise error(source, "", f"is {info.st_size} bytes; {kind} may be at most {limit}")
        chunks: list[bytes] = []
        size = 0
        while True:  # the size can change after fstat: never read past the limit
            chunk = os.read(fd, _READ_CHUNK)
            if not chunk:
                break
            size += len(chunk)
            if size > max_bytes:
                raise error(source, "", f"is larger than {kind}'s limit of {limit}")
            chunks.append(chunk)
    except OSError as exc:
        raise error(source, "", f"cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise error(source, "", "not UTF-8 text") from None


# -- parsing: YAML and JSON, bounded -------------------------------------------------------


class _LongInteger(str):
    """An integer literal longer than :data:`MAX_INT_DIGITS`, kept as text until it is
    reported with its field path by :func:`check_tree` (the parser knows no path)."""


def _bounded_int(text: str) -> int | _LongInteger:
    digits = sum(ch.isdigit() for ch in text)
    if digits > MAX_INT_DIGITS or len(text) > 2 * MAX_INT_DIGITS:
        return _LongInteger(text)
    return int(text)


_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class StrictSafeLoader(_Base):  # type: ignore[misc, valid-type]
    """PyYAML's safe loader (the C one when libyaml is there: the pure-Python parser
    runs at about 10 s per MB) that rejects a duplicate key in a mapping and keeps an
    overlong integer as text for :func:`check_tree` to report."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # "<<: *base" keys may repeat what they merge
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:
                    continue  # an unhashable key: the base constructor reports it
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r} (it appears earlier in the mapping)",
                        key_node.start_mark,
                    )
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: Any) -> Any:
        text = self.construct_scalar(node)
        if isinstance(_bounded_int(text.replace("_", "")), _LongInteger):
            return _LongInteger(text)
        return super().construct_yaml_int(node)


StrictSafeLoader.add_constructor("tag:yaml.org,2002:int", StrictSafeLoader.construct_yaml_int)


def _yaml_where(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark else "YAML"


def parse_yaml(text: str, source: str, error: ErrorFactory) -> Any:
    """The value of a YAML document, bounded (see the module docstring).

    A syntax error is ``error(source, "line L, column C", "YAML syntax error: …")``;
    a duplicate key names the second key's line.
    """
    try:
        # First the event stream (no recursion): too deep a nesting is refused before the
        # composer and the constructor, which recurse once per level.
        depth = 0
        for event in yaml.parse(text, Loader=StrictSafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    raise error(
                        source, f"line {mark.line + 1}, column {mark.column + 1}",
                        f"lists and mappings are nested more than {MAX_DEPTH} levels deep",
                    )
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        value = yaml.load(text, Loader=StrictSafeLoader)  # noqa: S506 - a safe loader
    except yaml.constructor.ConstructorError as exc:
        # A duplicate key, an unknown tag (``!!python/object/apply`` is one: never built).
        raise error(source, _yaml_where(exc), f"invalid YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise error(source, _yaml_where(exc), f"YAML syntax error: {problem}") from None
    except RecursionError:  # pragma: no cover - the depth pass stops this first
        raise error(source, "", f"nested more than {MAX_DEPTH} levels deep") from None
    check_tree(value, source, error)
    return value


def parse_json(text: str, source: str, error: ErrorFactory) -> Any:
    """The value of a JSON document, bounded (see the module docstring)."""
    try:
        value = json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise error(
            source, f"line {exc.lineno}, column {exc.colno}", f"not valid JSON: {exc.msg}"
        ) from None
    except RecursionError:
        raise error(
            source, "", f"lists and objects are nested more than {MAX_DEPTH} levels deep"
        ) from None
    check_tree(value, source, error)
    return value


def check_tree(value: Any, source: str, error: ErrorFactory) -> None:
    """Refuse too deep a nesting or an overlong integer, naming its field (no recursion)."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, _LongInteger):
            raise error(
                source, where or "value",
                f"integer {item[:12]}… has more than {MAX_INT_DIGITS} digits",
            )
        if isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise error(
                    source, where or "value",
                    f"lists and mappings are nested more than {MAX_DEPTH} levels deep",
                )
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, sub in pairs:
                if isinstance(key, _LongInteger):
                    raise error(source, where or "value", f"key {key[:12]}… is too long")
                at = f"{where}[{key}]" if isinstance(key, int) else (
                    f"{where}.{key}" if where else str(key))
                stack.append((sub, at, depth + 1))


# -- writing ------------------------------------------------------------------------------


def _umask() -> int:
    # os.umask can only be read by setting it; restore it at once.
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: A temporary younger than this is never removed: its writer may not have locked it yet
#: (it locks right after creating it), or, without ``fcntl``, may still be writing it.
STALE_AFTER_SECONDS = 5.0
_STALE_WITHOUT_LOCKS = 600.0


def _temporary_pattern(path: Path) -> re.Pattern[str]:
    # mkstemp's names: prefix + 8 characters of [a-z0-9_] + suffix (see atomic_write).
    return re.compile(re.escape(f".{path.name}.") + r"[a-z0-9_]{8}\.tmp")


def _locked_by_a_writer(tmp: Path) -> bool:
    """Whether a live writer holds ``tmp``'s lock (a killed one's lock died with it)."""
    if fcntl is None:  # pragma: no cover - Windows: fall back on the age alone
        return time.time() - tmp.stat().st_mtime < _STALE_WITHOUT_LOCKS
    fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing releases our probe lock too
    return False


def remove_stale_temporaries(path: str | os.PathLike[str]) -> list[Path]:
    """Remove what a killed :func:`atomic_write` of ``path`` left (issue 19, item 8).

    Only ``path``'s own temporaries (``.NAME.XXXXXXXX.tmp`` in its folder) that are
    regular files, older than :data:`STALE_AFTER_SECONDS` and not locked by a live
    writer: a concurrent writer of the same file holds its temporary's lock from
    creation to ``os.replace``, so its file is never taken from under it. Returns the
    paths removed; never raises (a cleanup must not stop a save or a load).
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    pattern = _temporary_pattern(path)
    removed: list[Path] = []
    try:
        names = [n for n in os.listdir(folder) if pattern.fullmatch(n)]
    except OSError:
        return removed
    now = time.time()
    for name in names:
        tmp = folder / name
        try:
            info = tmp.lstat()
            if not stat.S_ISREG(info.st_mode) or now - info.st_mtime < STALE_AFTER_SECONDS:
                continue
            if _locked_by_a_writer(tmp):
                continue
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            continue
    return removed


def atomic_write(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` (bytes, or text as UTF-8) to ``path`` atomically.

    The file gets the permissions a plain ``open(path, "w")`` would give
    (``0o666`` less the umask), not ``mkstemp``'s private ``0o600``.
    Raises ``OSError`` like ``open`` would; the temporary file is removed.
    The temporary is locked (``flock``) while it is written, which tells
    :func:`remove_stale_temporaries` (run first) a live writer's file from a
    killed one's.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    folder = path.parent if str(path.parent) else Path(".")
    remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            if fcntl is not None:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
            os.chmod(tmp, 0o666 & ~_umask())
            # Replaced while still locked: the name is never seen unlocked while it holds
            # a live writer's bytes. The lock goes when the file is closed.
            os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
