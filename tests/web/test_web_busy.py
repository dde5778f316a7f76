"""A form's error page, drawn under its session's lock, is drawn in a worker thread: a
search or the autopilot may hold that lock for seconds, and waiting for it on the event
loop would stop every other client's requests."""

from __future__ import annotations

import asyncio
from typing import Any

from escaramuza.web.deps import COOKIE
from escaramuza.web.sessions import WebSession
from tests.web.web_helpers import TestClient, client

DUEL = "destiny_dice/brann-vs-saqueador"


def started() -> tuple[TestClient, WebSession]:
    c = client()
    assert c.post("/api/battle", json={"scenario": DUEL}).status_code == 200
    session = c.app.state.store.peek(c.cookies[COOKIE])  # type: ignore[attr-defined]
    assert session is not None
    return c, session


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
