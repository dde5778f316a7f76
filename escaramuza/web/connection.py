"""The HTTP connections of ``escaramuza serve``: uvicorn's HTTP/1.1 protocol (h11) with a
deadline for receiving each request.

uvicorn times out a connection only while it is idle between two requests. A client that
opens a connection and sends part of a request's headers or body, then nothing (or a byte
a minute), holds the connection, its buffers and a file descriptor for ever: a few
thousand such clients exhaust the process's descriptors and nobody else can connect.
Here a request's headers and body must arrive within :data:`REQUEST_READ_S` of its start
(the connection's opening, or the end of the previous answer on a kept-alive one), or the
connection is closed. The time the server takes to answer does not count.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from escaramuza.web.limits import REQUEST_READ_S


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request does not arrive whole
    within ``read_s`` seconds."""

    read_s = REQUEST_READ_S
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self._receiving():
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # The next request of a kept-alive connection has its own time.
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _receiving(self) -> bool:
        """Whether the client is still sending a request (its headers or its body)."""
        return self.conn.their_state in (h11.IDLE, h11.SEND_BODY)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.read_s, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self._receiving() and not self.transport.is_closing():
            self.transport.close()
