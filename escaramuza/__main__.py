"""``python -m escaramuza`` runs the command line (same as the ``escaramuza`` script)."""

from __future__ import annotations

from escaramuza.cli import main

# Guarded: importing this module — as a state file could once make the
# web server do — must not run the command line.
if __name__ == "__main__":
    raise SystemExit(main())
