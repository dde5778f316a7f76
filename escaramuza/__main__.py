"""``python -m escaramuza`` runs the command line (same as the ``escaramuza`` script)."""

from __future__ import annotations

from escaramuza.cli import main

raise SystemExit(main())
