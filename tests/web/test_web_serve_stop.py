"""`escaramuza serve` stops on SIGTERM, even with a request stuck in a worker thread.

The server runs as a subprocess on a free loopback port. A search cannot be interrupted
once it runs in its worker thread; uvicorn, and then the interpreter's exit, would wait
for that thread for ever. The stuck request here is a search that never returns: the
subprocess runs the real command line (``escaramuza.cli.main(["serve", …])``) with the
web layer's ``suggest`` replaced by one that blocks and says when it started, so the
test knows the request is under way without waiting a guessed time. The waits below
are bounds (a hung server fails the test instead of hanging it), not measurements.
"""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

DUEL = "destiny_dice/emboscada"
#: The command line with a search that never returns (until the process ends).
STUCK_SEARCH = """
import sys
import threading

from escaramuza.web import sessions


def stuck(*args, **kwargs):
    print("search started", flush=True)
    threading.Event().wait()


sessions.suggest = stuck
from escaramuza.cli import main

sys.exit(main(sys.argv[1:]))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(code: str | None) -> Iterator[tuple[subprocess.Popen[str], str, queue.Queue[str]]]:
    """``escaramuza serve`` on 127.0.0.1 (``code``: run instead of ``-m escaramuza``), its
    base URL and the lines of its stdout; killed at the end if it is still running."""
    port = free_port()
    head = ["-c", code] if code is not None else ["-m", "escaramuza"]
    proc = subprocess.Popen(
        [sys.executable, *head, "serve", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    try:
        for _attempt in range(1200):  # up to a minute for the imports and the bind
            if proc.poll() is not None:
                pytest.fail(f"serve exited with {proc.returncode}: {proc.stderr.read()}")
            try:
                if httpx.get(f"{base}/api/scenarios", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            pytest.fail("serve did not start")
        yield proc, base, lines
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_stops_serve_while_a_search_is_stuck_in_its_thread(sig: int) -> None:
    with serving(STUCK_SEARCH) as (proc, base, lines):
        api = httpx.Client(base_url=base, timeout=None)
        assert api.post("/api/battle", json={"scenario": DUEL}).status_code == 200

        def ask() -> None:
            try:
                api.post("/api/suggest", json={"budget_ms": 5000, "max_ms": 5000})
            except httpx.TransportError:
                pass  # the server went away under it, which is the point

        threading.Thread(target=ask, daemon=True).start()
        while (line := lines.get(timeout=60)) != "search started":
            assert "GM page" in line, line
        proc.send_signal(sig)
        code = proc.wait(timeout=60)
        # Ended by the signal once uvicorn's grace is over, or by the hard stop (128 +
        # the signal, saying so) when even that waits for the thread; never a clean 0.
        assert proc.stderr is not None
        stderr = proc.stderr.read()
        assert code in (-sig, 128 + sig), (code, stderr)
        assert (code == 128 + sig) == ("exiting without waiting any longer" in stderr)


def test_sigterm_stops_an_idle_serve_as_the_signal_does() -> None:
    with serving(None) as (proc, base, _lines):
        assert httpx.post(f"{base}/api/session").status_code == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == -signal.SIGTERM
