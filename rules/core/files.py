"""Reading and writing the project's files.

:func:`read_text_file` reads a user's text file (scenario YAML, state file) and
turns every way it can fail into the caller's own error class, with the same
reasons everywhere ("no such file", "is a directory", "not UTF-8 text",
"cannot be read (…)").

Atomic file writes: what a user had is never left half-written.

Every file the project writes (state files, reports, plots, trained models) goes
through :func:`atomic_write`: the bytes go to a temporary file in the target's
folder, are flushed to disk, and the temporary file replaces the target with
``os.replace`` (atomic on POSIX and Windows). A crash leaves either the old file
or the new one, never a truncated mix.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def read_text_file(
    path: str | os.PathLike[str],
    error: Callable[[str, str, str], Exception],
    kind: str,
) -> str:
    """The UTF-8 text of ``path``, or ``error(source, "", reason)`` raised.

    ``error`` builds the caller's error class from (source, field, reason) —
    ``ScenarioError`` or ``StateFileError`` — and ``kind`` names what the file
    should be in the directory message ("a scenario file", "a state file").
    """
    source = str(path)
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(source, "", "no such file") from None
    except IsADirectoryError:
        raise error(source, "", f"is a directory, not {kind}") from None
    except UnicodeDecodeError:
        raise error(source, "", "not UTF-8 text") from None
    except OSError as exc:
        raise error(source, "", f"cannot be read ({exc.strerror})") from None


def _umask() -> int:
    # os.umask can only be read by setting it; restore it at once.
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` (bytes, or text as UTF-8) to ``path`` atomically.

    The file gets the permissions a plain ``open(path, "w")`` would give
    (``0o666`` less the umask), not ``mkstemp``'s private ``0o600``.
    Raises ``OSError`` like ``open`` would; the temporary file is removed.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
