"""`escaramuza serve` closes a connection whose request does not arrive in time.

A client that sends part of a request (its headers, or a body shorter than its
Content-Length) and then nothing would otherwise hold its connection and a file
descriptor for ever. The server here is the one ``serve`` configures, run in a thread
with a deadline of a fraction of a second; the socket timeouts are bounds, so that a
regression fails instead of hanging the suite, not measurements.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import uvicorn

from escaramuza.web import server_config
from escaramuza.web.app import create_app
from escaramuza.web.connection import DeadlineH11Protocol
from escaramuza.web.deps import SESSION_HEADER

HANG_GUARD_S = 60.0
READ_S = 0.5


@contextmanager
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, uvicorn.Server]]:
    """``serve``'s server on a free loopback port, in a thread, with a short deadline."""
    monkeypatch.setattr(DeadlineH11Protocol, "read_s", READ_S)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = uvicorn.Server(server_config(create_app(), "127.0.0.1", port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + HANG_GUARD_S
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.started
    try:
        yield port, server
    finally:
        server.should_exit = True
        thread.join(HANG_GUARD_S)


def answer(port: int, data: bytes) -> bytes:
    """All the server sends back on a connection after ``data``, until it closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD_S) as s:
        s.sendall(data)
        received = b""
        while chunk := s.recv(65536):
            received += chunk
        return received


@pytest.mark.parametrize(
    "partial",
    [
        b"",
        b"GET /api/scenarios HTTP/1.1\r\nHost: 127.0.0.1\r\n",
        b"POST /api/edit HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n{",
        # A kept-alive connection: the first request is answered, the second is late.
        b"GET /api/scenarios HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /api/sc",
    ],
    ids=["nothing", "half-headers", "short-body", "second-request"],
)
def test_a_request_that_does_not_arrive_in_time_gets_its_connection_closed(
    monkeypatch: pytest.MonkeyPatch, partial: bytes
) -> None:
    with served(monkeypatch) as (port, _server):
        received = answer(port, partial)
    # Closed (the read above ended) with no answer but the first request's.
    assert received.count(b"HTTP/1.1 ") == partial.count(b"\r\n\r\nGET")


def test_the_time_an_answer_takes_does_not_count(monkeypatch: pytest.MonkeyPatch) -> None:
    with served(monkeypatch) as (port, server):
        app = server.config.app
        store = app.state.store
        session = store.create("127.0.0.1")
        request = (
            f"GET /api/battle HTTP/1.1\r\nHost: 127.0.0.1\r\n{SESSION_HEADER}: {session.id}\r\n"
            "Connection: close\r\n\r\n"
        ).encode()
        got: list[bytes] = []
        with session.lock:  # a long search holds the session past the deadline
            asking = threading.Thread(target=lambda: got.append(answer(port, request)))
            asking.start()
            time.sleep(3 * READ_S)
        asking.join(HANG_GUARD_S)
    assert got and got[0].startswith(b"HTTP/1.1 404 "), got  # its answer: no battle yet
