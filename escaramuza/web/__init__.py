"""``escaramuza serve``: a local web page for the game master (issue 10).

The page shows the battlefield as zones with tokens, each combatant's
resources and conditions, whose decision is pending and a ranked list of
suggestions; the GM applies an action with the tool's dice or the ones rolled
at the table, undoes, saves and loads state files and runs playtests. A JSON
API under the page serves other tools (docs/web.md).

This module only holds the command line; the server lives in
:mod:`escaramuza.web.app` and needs the ``web`` extra (FastAPI, uvicorn), which
is imported only when ``serve`` runs, so the rest of the CLI works without it.
"""

from __future__ import annotations

import ipaddress
import sys
from typing import Any, TextIO

from escaramuza.rules.core.errors import EscaramuzaError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def add_parser(commands: Any) -> None:
    """Add the ``serve`` subcommand to the CLI's subparsers."""
    serve = commands.add_parser(
        "serve",
        help="serve the game master's web page on this machine",
        description=(
            "Serve the game master's web page and its JSON API (docs/web.md): the "
            "battlefield, suggestions, apply with the tool's or the table's dice, undo, "
            "state files and playtests. Binds to 127.0.0.1 (this machine only) by default. "
            "Needs the web extra: pip install 'escaramuza[web]'."
        ),
    )
    serve.add_argument("--host", default=DEFAULT_HOST,
                       help=f"address to listen on (default {DEFAULT_HOST}: this machine only)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT,
                       help=f"port (default {DEFAULT_PORT})")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def run_command(args: Any, out: TextIO) -> int:
    """Run ``escaramuza serve`` until interrupted."""
    if not 0 < args.port < 65536:
        raise EscaramuzaError(f"--port must be 1–65535, not {args.port}")
    try:
        import uvicorn

        from escaramuza.web.app import LOOPBACK_HOSTS, create_app
    except ImportError as exc:
        raise EscaramuzaError(
            f"escaramuza serve needs the web extra ({exc.name} is missing): "
            "pip install 'escaramuza[web]'"
        ) from None
    local = is_loopback(args.host)
    if not local:
        sys.stderr.write(
            f"warning: listening on {args.host}: anyone who can reach this address can use "
            "the page (there is no login)\n"
        )
    # On loopback, only local host names are answered (a guard against DNS rebinding).
    app = create_app(trusted_hosts=LOOPBACK_HOSTS if local else None)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    out.write(f"escaramuza GM page: http://{shown}:{args.port}/  (API: /docs; Ctrl-C stops)\n")
    out.flush()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
