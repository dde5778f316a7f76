"""Sessions: no client can evict another's battle by asking for sessions (issue 19, item 9).

Before, 32 `POST /api/session` calls dropped the GM's battle (least recently used first).
Now a session its owner used within the last hour is never dropped for someone else's
new one; the cap on sessions still holds.
"""

from __future__ import annotations

import gc
import weakref

from web_helpers import client

from escaramuza.web.app import COOKIE
from escaramuza.web.sessions import MAX_SESSIONS, FullError, SessionStore

DUEL = "destiny_dice/brann-vs-saqueador"


def gm_client(**kwargs: object) -> tuple[object, str, dict[str, object]]:
    """A client that started a battle and applied an action (activity from its owner)."""
    c = client(**kwargs)
    c.post("/api/battle", json={"scenario": DUEL, "seed": 3})
    view = c.post("/api/apply", json={"index": 1}).json()["battle"]
    return c, c.cookies[COOKIE], view


def test_an_active_session_survives_100_new_sessions_from_other_clients() -> None:
    gm, sid, view = gm_client()
    store = gm.app.state.store  # type: ignore[attr-defined]
    others = []
    for i in range(100):
        gm.cookies.clear()  # another client: no cookie
        path, body = ("/api/session", None) if i % 2 else ("/api/battle", {"scenario": DUEL})
        r = gm.post(path, json=body)
        assert r.status_code == 200, r.text
        others.append(weakref.ref(store.peek(r.cookies[COOKIE])))
        assert len(store) <= MAX_SESSIONS
    assert len(store) == MAX_SESSIONS
    gc.collect()
    assert sum(ref() is not None for ref in others) <= MAX_SESSIONS  # dropped ones are freed
    gm.cookies.clear()
    gm.cookies.set(COOKIE, sid)
    again = gm.get("/api/battle")
    assert again.status_code == 200
    assert again.json() == view  # the same battle, at the same version


def test_clients_that_use_their_sessions_cannot_push_the_gm_out() -> None:
    gm, sid, view = gm_client(max_sessions=4)
    store = gm.app.state.store  # type: ignore[attr-defined]
    for _ in range(3):  # three more clients, each coming back to its session
        gm.cookies.clear()
        gm.post("/api/session")
        assert gm.post("/api/session").status_code == 200
    gm.cookies.clear()
    refused = gm.post("/api/battle", json={"scenario": DUEL})
    assert refused.status_code == 503
    assert "4 sessions in use" in refused.json()["detail"]
    page = gm.get("/")  # the page says it too, in its error box
    assert page.status_code == 503 and "4 sessions in use" in page.text
    assert len(store) == 4
    gm.cookies.set(COOKIE, sid)
    assert gm.get("/api/battle").json() == view


def test_sessions_never_used_again_go_first_then_idle_ones() -> None:
    now = [0.0]
    store = SessionStore(max_sessions=3, keep_idle_s=60.0, clock=lambda: now[0])
    gm = store.create()
    assert store.get(gm.id) is gm  # the GM came back: in use
    other = store.create()
    store.get(other.id)
    unused = store.create()
    now[0] = 30.0
    store.get(other.id)
    newest = store.create()  # full: the session never used again goes
    assert store.peek(unused.id) is None
    assert store.get(newest.id) is newest  # its owner uses it at 30 s
    now[0] = 59.0  # gm idle 59 s < 60: kept; every session is in use
    try:
        store.create()
    except FullError as exc:
        assert exc.status == 503
    else:
        raise AssertionError("a full store of sessions in use must refuse a new one")
    assert len(store) == 3
    now[0] = 60.0 + 1  # gm idle 61 s: the only idle one, so it goes
    store.get(other.id)
    store.get(newest.id)
    store.create()
    assert store.peek(gm.id) is None
    assert store.peek(other.id) is other and store.peek(newest.id) is newest
    assert len(store) == 3
