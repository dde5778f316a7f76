"""A session busy with a long request (a search, the autopilot) holds up neither the
server nor its worker threads.

Each session's requests take turns at its lock. Waiting for it happens in a worker
thread, never on the event loop (which serves every client), and at most
``SESSION_WAITING`` requests of one session wait at once: one more is refused at once
with a 429, so that one client cannot hold the server's worker threads with a hundred
requests queued behind a search. Nothing here sleeps on a clock: the long request is
a lock the test holds.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from escaramuza.web.deps import COOKIE
from escaramuza.web.limits import SESSION_WAITING
from escaramuza.web.sessions import WebSession
from tests.web.web_helpers import TestClient, client

DUEL = "destiny_dice/brann-vs-saqueador"
#: How long a test waits for a request it expects to answer, only so that a regression
#: fails instead of hanging the suite (not a measurement).
HANG_GUARD_S = 60.0


def started() -> tuple[TestClient, WebSession]:
    c = client()
    assert c.post("/api/battle", json={"scenario": DUEL}).status_code == 200
    session = c.app.state.store.peek(c.cookies[COOKIE])  # type: ignore[attr-defined]
    assert session is not None
    return c, session


@contextmanager
def held(session: WebSession) -> Iterator[None]:
    """The session's lock held by another thread, as a long search holds it."""
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with session.lock:
            taken.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    assert taken.wait(HANG_GUARD_S)
    try:
        yield
    finally:
        release.set()
        holder.join(HANG_GUARD_S)


def in_thread(
    c: TestClient, method: str, path: str, **kwargs: Any
) -> tuple[threading.Thread, list[int]]:
    """A request of the session of ``c`` sent from its own thread (its own client)."""
    other = TestClient(c.app, headers={"X-Escaramuza-Session": c.cookies[COOKIE]})
    status: list[int] = []
    thread = threading.Thread(
        target=lambda: status.append(other.request(method, path, **kwargs).status_code)
    )
    thread.start()
    return thread, status


def test_requests_past_a_busy_session_s_waiting_room_are_refused_at_once() -> None:
    c, session = started()
    with held(session):
        waiting = [in_thread(c, "GET", "/api/battle") for _ in range(SESSION_WAITING)]
        deadline = time.monotonic() + HANG_GUARD_S
        while session.lock.waiting < SESSION_WAITING and time.monotonic() < deadline:
            time.sleep(0.01)  # until they all wait for the lock
        assert session.lock.waiting == SESSION_WAITING
        # One more of this session's requests: the API's and the page's are refused, not
        # queued (each would hold a worker thread until the ones before it are done).
        extra, status = in_thread(c, "POST", "/api/suggest", json={})
        extra.join(HANG_GUARD_S)
        assert status == [429]
        r = c.post("/api/suggest", json={})
        assert r.status_code == 429
        assert "this session is busy" in r.json()["detail"]
        page = c.get("/")
        assert page.status_code == 429
        assert "this session is busy" in page.text
        assert c.get("/api/scenarios").status_code == 200  # other work goes on
    for thread, answered in waiting:
        thread.join(HANG_GUARD_S)
        assert answered == [200]
    assert c.get("/api/battle").status_code == 200


class LoopWatchingLock:
    """A session's lock that records whether it was ever taken on an event loop's thread
    (where waiting for it would stop every other client's requests)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.on_loop = False

    def __enter__(self) -> Any:
        try:
            asyncio.get_running_loop()
            self.on_loop = True
        except RuntimeError:
            pass
        return self.inner.__enter__()

    def __exit__(self, *exc: object) -> None:
        self.inner.__exit__(*exc)


def test_a_form_error_page_is_drawn_off_the_event_loop() -> None:
    c, session = started()
    watch = LoopWatchingLock(session.lock)
    session.lock = watch  # type: ignore[assignment]
    version = c.get("/api/battle").json()["version"]
    # A form without its version field (422) and a bad value (400): both pages show the
    # battle, drawn under the session's lock.
    r = c.post("/ui/undo", data={})
    assert r.status_code == 422
    assert "version" in r.text
    r = c.post("/ui/edit", data={"version": version, "command": "fly away"})
    assert r.status_code == 400
    assert not watch.on_loop
