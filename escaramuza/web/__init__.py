"""``escaramuza serve``: a local web page for the game master.

The page shows the battlefield as zones with tokens, each combatant's
resources and conditions, whose decision is pending and a ranked list of
suggestions; the GM applies an action with the tool's dice or the ones rolled
at the table, undoes, saves and loads state files and runs playtests. A JSON
API under the page serves other tools (docs/web.md).

This module only holds the command line and how the server stops; the server
lives in :mod:`escaramuza.web.app` and needs the ``web`` extra (FastAPI, uvicorn),
which is imported only when ``serve`` runs, so the rest of the CLI works without it.

SIGTERM or Ctrl-C always stops the server. A request whose work runs in a worker
thread (a search, a parse) cannot be interrupted, and uvicorn would wait for it for
ever, then asyncio's and the interpreter's exit would wait for its thread. So the
requests under way get :data:`SHUTDOWN_GRACE_S` to finish (uvicorn's graceful
shutdown, after which uvicorn ends by the signal itself), and :data:`HARD_STOP_S`
after the signal the process exits whatever still runs, with the shell's status of
that signal (128 + its number).
"""

from __future__ import annotations

import faulthandler
import ipaddress
import os
import sys
import threading
from types import FrameType
from typing import Any, TextIO

from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: Seconds the requests under way get to finish after SIGTERM/SIGINT: a search is at
#: most 5 s (escaramuza.web.sessions.SUGGEST_CAP_MS).
SHUTDOWN_GRACE_S = 5.0
#: Seconds after the signal at which the process exits even if a request's worker
#: thread still runs (the grace, then the app's own shutdown).
HARD_STOP_S = SHUTDOWN_GRACE_S + 3.0


def add_parser(commands: Any) -> None:
    """Add the ``serve`` subcommand to the CLI's subparsers."""
    serve = commands.add_parser(
        "serve",
        help=_("serve the game master's web page on this machine"),
        description=_f(
            "Serve the game master's web page and its JSON API (docs/web.md): the "
            "battlefield, suggestions, apply with the tool's or the table's dice, undo, "
            "state files and playtests. Binds to {host} (this machine only) by default. "
            "Needs the web extra: pip install 'escaramuza[web]'.",
            DEFAULT_HOST,
        ),
    )
    serve.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=_f("address to listen on (default {host}: this machine only)", DEFAULT_HOST),
    )
    serve.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=_f("port (default {port})", DEFAULT_PORT)
    )


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
        raise EscaramuzaError(
            _f("{name} must be 1–{most}, not {value}", "--port", 65535, args.port)
        )
    try:
        import uvicorn

        from escaramuza.web.app import LOOPBACK_HOSTS, create_app
    except ImportError as exc:
        raise EscaramuzaError(
            _f(
                "escaramuza serve needs the web extra ({module} is missing): "
                "pip install 'escaramuza[web]'",
                exc.name,
            )
        ) from None
    local = is_loopback(args.host)
    if not local:
        warning = _f(
            "warning: listening on {host}: anyone who can reach this address can use the "
            "page (there is no login)",
            args.host,
        )
        sys.stderr.write(warning + "\n")
    # On loopback, only local host names are answered (a guard against DNS rebinding).
    app = create_app(trusted_hosts=LOOPBACK_HOSTS if local else None)
    # Every kernel compiles (or loads) in the background while the page is used: the
    # suggestions search on the engine until a ruleset's is ready.
    from escaramuza.agents.fast import warm_in_background
    from escaramuza.rules import RULESETS

    warm_in_background(list(RULESETS))
    # A fault in compiled code (a search's kernel) ends the process; the traceback of
    # every thread goes to stderr first, so the log says which request it was.
    faulthandler.enable()
    server = _server_class(uvicorn.Server)(server_config(app, args.host, args.port))
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{args.port}/"
    out.write(_f("escaramuza GM page: {url}  (API: /docs; Ctrl-C stops)", url) + "\n")
    out.flush()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    except SystemExit:
        # uvicorn logs why it could not start (a port in use) and exits with its own
        # status; a user error is one line of ours and status 2 (docs/cli.md).
        if server.started:
            raise
    if not server.started:
        raise EscaramuzaError(
            _f(
                "could not serve on {host}:{port} (the reason is above: a port in use?)",
                shown,
                args.port,
            )
        )
    return 0


def server_config(app: Any, host: str, port: int) -> Any:
    """uvicorn's configuration of ``serve``: its HTTP connections close when a request does
    not arrive within a deadline (:mod:`escaramuza.web.connection`)."""
    import uvicorn

    from escaramuza.web.connection import DeadlineH11Protocol

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        http=DeadlineH11Protocol,
    )


def _hard_stop(seconds: float, sig: int) -> None:
    """Exit the process ``seconds`` from now, with status 128 + ``sig``, unless it has
    exited by then (a daemon timer: it never keeps the process alive)."""

    # Worded now, in the language of the thread that got the signal: the timer's thread
    # does not inherit the command's language (a context variable).
    message = _f(
        "escaramuza serve: not stopped {seconds:g} s after the stop signal (a request "
        "still running in a worker thread?); exiting without waiting any longer",
        seconds,
    )

    def stop() -> None:
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(128 + sig)

    timer = threading.Timer(seconds, stop)
    timer.daemon = True
    timer.name = "escaramuza-hard-stop"
    timer.start()


def _server_class(base: type[Any]) -> type[Any]:
    """uvicorn's Server, whose first stop signal also arms :func:`_hard_stop`."""

    class Server(base):  # type: ignore[misc, valid-type]
        _armed = False

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            super().handle_exit(sig, frame)
            if not self._armed:
                self._armed = True
                _hard_stop(HARD_STOP_S, sig)

    return Server
