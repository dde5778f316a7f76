"""Atomic file writes: what a user had is never left half-written.

Every file the project writes (state files, reports, plots, trained models) goes
through :func:`atomic_write`: the bytes go to a temporary file in the target's
folder, are flushed to disk, and the temporary file replaces the target with
``os.replace`` (atomic on POSIX and Windows). A crash leaves either the old file
or the new one, never a truncated mix.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


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
