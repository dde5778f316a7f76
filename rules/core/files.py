"""Reading and writing the project's files.

:func:`read_text_file` reads a user's text file (scenario YAML, state file,
tables file) and turns every way it can fail into the caller's own error class,
with the same reasons everywhere ("no such file", "is a directory", "not UTF-8
text", "cannot be read (…)"). It reads only regular files, and at most a given
number of bytes: ``/dev/zero``, a pipe or a huge file is refused before it can
exhaust memory.

The bounded YAML and JSON parsers are :mod:`~escaramuza.rules.core.parsers`'s; their
names are importable from here too.

Atomic file writes: what a user had is never left half-written.

Every file the project writes (state files, reports, plots, trained models) goes
through :func:`atomic_write`: the bytes go to a temporary file in the target's
folder, are flushed to disk, and the temporary file replaces the target with
``os.replace`` (atomic on POSIX and Windows). A crash leaves either the old file
or the new one, never a truncated mix; a temporary a killed writer left behind
(``.NAME.XXXXXXXX.tmp``) is removed by the next write of the same file
(:func:`remove_stale_temporaries`). A symbolic link is followed: the file it names
is replaced and the link stays. A target that exists but is not a regular file (a
folder, a FIFO, a device, a socket) is refused, untouched: replacing it would swap
``/dev/null`` or a pipe a reader waits on for a plain file.
:func:`write_file` is :func:`atomic_write` with the refusal or any other ``OSError``
turned into the caller's error class, as :func:`read_text_file` does for reading.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import time
from pathlib import Path

from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.parsers import (
    MAX_ALIAS_NODES,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    ErrorFactory,
    StrictSafeLoader,
    check_tree,
    parse_json,
    parse_yaml,
)

try:  # POSIX: a writer holds a lock on its temporary file while it writes it.
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

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
    should be in the messages, in the current language (``_("a scenario file")``,
    ``_("a state file")``): it fills whole sentences. Only a regular
    file of at most ``max_bytes`` bytes is read: a device (``/dev/zero``), a pipe
    or a larger file is refused with the reason and the limit.
    """
    source = str(path)
    limit = _describe_size(max_bytes)
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error(source, "", _("no such file")) from None
    except IsADirectoryError:
        raise error(source, "", _f("is a directory, not {kind}", kind)) from None
    except OSError as exc:
        raise error(source, "", _f("cannot be read ({reason})", exc.strerror)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise error(source, "", _f("is a directory, not {kind}", kind))
        if not stat.S_ISREG(info.st_mode):
            raise error(
                source,
                "",
                _f(
                    "is not a regular file (a device, pipe or socket); {kind} must be "
                    "a regular file of at most {limit}",
                    kind,
                    limit,
                ),
            )
        if info.st_size > max_bytes:
            raise error(
                source,
                "",
                _f("is {size} bytes; {kind} may be at most {limit}", info.st_size, kind, limit),
            )
        chunks: list[bytes] = []
        size = 0
        while True:  # the size can change after fstat: never read past the limit
            chunk = os.read(fd, _READ_CHUNK)
            if not chunk:
                break
            size += len(chunk)
            if size > max_bytes:
                raise error(source, "", _f("is larger than {kind}'s limit of {limit}", kind, limit))
            chunks.append(chunk)
    except OSError as exc:
        raise error(source, "", _f("cannot be read ({reason})", exc.strerror)) from None
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise error(source, "", _("not UTF-8 text")) from None


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


def write_target(path: str | os.PathLike[str]) -> Path:
    """The file a write of ``path`` replaces: ``path`` with its symbolic links followed.

    Raises ``OSError`` (``strerror`` says why, in the current language) when that file
    exists and is not a regular file, or when the links loop: nothing is written then.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = target.lstat().st_mode
    except FileNotFoundError:
        return target  # a new file (a dangling link's target is created, as open() does)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    if stat.S_ISLNK(mode):  # realpath gives up on a loop of links
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
    if stat.S_ISREG(mode):
        return target
    if stat.S_ISDIR(mode):
        reason = _("it is a folder, not a regular file")
    elif stat.S_ISFIFO(mode):
        reason = _("it is a pipe (FIFO), not a regular file")
    elif stat.S_ISSOCK(mode):
        reason = _("it is a socket, not a regular file")
    else:
        reason = _("it is a device, not a regular file")
    raise OSError(errno.EEXIST, reason, str(path))


def make_writable_folder(folder: str | os.PathLike[str], create: bool = True) -> Path:
    """``folder``, created with its parents if missing (unless not ``create``) and checked
    now to take a new file (one is made and removed). Raises ``OSError`` when it cannot: a
    command checks its output this way before its work, so a bad path fails before
    anything is lost."""
    path = Path(folder)
    if create:
        path.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path, prefix=".escaramuza-check-"):
        pass
    return path


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether ``a`` and ``b`` name one existing file (False when either is missing or
    no file can have its name): a write to ``a`` would replace ``b``."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def check_writable(path: str | os.PathLike[str], create: bool = True) -> Path:
    """The file a later :func:`atomic_write` of ``path`` replaces, checked now that the
    write can happen: :func:`write_target` refuses a folder, a pipe or a device, and
    the file's folder is made (unless not ``create``: then it must exist, as
    :func:`atomic_write` needs) and checked by :func:`make_writable_folder` (a read-only
    file in a writable folder can be replaced, as :func:`atomic_write` does). Raises
    ``OSError`` like :func:`atomic_write` would; nothing is written at ``path``."""
    target = write_target(path)
    make_writable_folder(target.parent, create)
    return target


def _write_error(
    path: str | os.PathLike[str], exc: OSError, error: ErrorFactory | None
) -> Exception:
    """``exc``, a failed write of ``path``, as ``error(path, "", "cannot be written (reason)")``
    (an :class:`EscaramuzaError` naming the path when ``error`` is not given)."""
    reason = _f("cannot be written ({reason})", exc.strerror or str(exc))
    if error is None:
        return EscaramuzaError(f"{path}: {reason}")
    return error(str(path), "", reason)


def check_file_writable(path: str | os.PathLike[str], error: ErrorFactory | None = None) -> None:
    """Refuse now, as :func:`write_file` would at the end, a ``path`` it could not write
    (:func:`check_writable`, without making a missing folder, as :func:`write_file` does
    not): a command that writes a file after long work checks it first."""
    try:
        check_writable(path, create=False)
    except OSError as exc:
        raise _write_error(path, exc, error) from None


def remove_stale_temporaries(path: str | os.PathLike[str]) -> list[Path]:
    """Remove what a killed :func:`atomic_write` of ``path`` left.

    Only ``path``'s own temporaries (``.NAME.XXXXXXXX.tmp`` in its folder) that are
    regular files, older than :data:`STALE_AFTER_SECONDS` and not locked by a live
    writer: a concurrent writer of the same file holds its temporary's lock from
    creation to ``os.replace``, so its file is never taken from under it. Returns the
    paths removed; never raises (a cleanup must not stop a save or a load). A symbolic
    link's temporaries are its target's, in the target's folder.
    """
    path = Path(os.path.realpath(path) if os.path.islink(path) else path)
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
    A symbolic link is followed (:func:`write_target`): its target is replaced, the
    link stays. Raises ``OSError`` like ``open`` would, and for a target that is not a
    regular file (nothing is written); the temporary file is removed.
    The temporary is locked (``flock``) while it is written, which tells
    :func:`remove_stale_temporaries` (run first) a live writer's file from a
    killed one's.
    """
    path = write_target(path)
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


def write_file(
    path: str | os.PathLike[str], data: bytes | str, error: ErrorFactory | None = None
) -> None:
    """:func:`atomic_write`, every way it can fail raised as
    ``error(str(path), "", "cannot be written (reason)")`` (an :class:`EscaramuzaError`
    naming the path when ``error`` is not given): the CLI's one line, exit 2."""
    try:
        atomic_write(path, data)
    except OSError as exc:
        raise _write_error(path, exc, error) from None


__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_TEXT_BYTES",
    "STALE_AFTER_SECONDS",
    "ErrorFactory",
    "StrictSafeLoader",
    "atomic_write",
    "check_file_writable",
    "check_tree",
    "check_writable",
    "make_writable_folder",
    "parse_json",
    "parse_yaml",
    "read_text_file",
    "remove_stale_temporaries",
    "write_file",
    "write_target",
]
