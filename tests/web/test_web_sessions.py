"""Sessions: no stranger can evict the GM's battle or lock new visitors out.

A session counts as *invested* once its battle has been played (three applies, undos or
edits, or a loaded state file). When the table is full, sessions never used again go
first, then sessions not invested, then invested ones idle for an hour; an invested
session used within the hour is never dropped. Each client address may start only a
quarter of the table's sessions an hour (429 with Retry-After past that). Time is a
fake clock handed to the app: nothing here sleeps or measures.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest

from escaramuza.web.app import create_app
from escaramuza.web.deps import COOKIE
from escaramuza.web.errors import FullError, RateLimitError
from escaramuza.web.limits import CLIENT_SESSIONS, INVEST_CHANGES, KEEP_IDLE_S, MAX_SESSIONS
from escaramuza.web.sessions import WebSession
from escaramuza.web.store import SessionStore, client_key
from tests.web.web_helpers import visitor

DUEL = "destiny_dice/brann-vs-saqueador"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def playing_gm(app: Any, address: str = "192.0.2.1") -> tuple[Any, str, dict[str, Any]]:
    """A GM who started a battle and played it: an edit, its undo and an action (three
    changes: an invested session). Returns the client, its session id and the battle."""
    gm = visitor(app, address)
    assert gm.post("/api/battle", json={"scenario": DUEL, "seed": 3}).status_code == 200
    assert gm.post("/api/edit", json={"command": "set brann pv 5"}).status_code == 200
    assert gm.post("/api/undo", json={}).status_code == 200
    r = gm.post("/api/apply", json={"index": 1})
    assert r.status_code == 200, r.text
    assert INVEST_CHANGES == 3
    return gm, gm.cookies[COOKIE], r.json()["battle"]


def invest(session: WebSession) -> None:
    """Play a battle in ``session`` through its own commands, far enough to invest it."""
    session.start_shipped(DUEL, 3)
    for _ in range(INVEST_CHANGES):
        session.edit("set brann pv 5")
    assert session.invested


def test_strangers_using_sessions_once_neither_lock_out_visitors_nor_evict_the_gm() -> None:
    clock = Clock()
    app = create_app(clock=clock)
    store = app.state.store
    gm, sid, view = playing_gm(app)
    clock.now += 60.0
    # A flood: as many strangers as the table holds, each from its own address,
    # creating a session and using it once.
    for i in range(MAX_SESSIONS):
        stranger = visitor(app, f"198.51.100.{i + 1}")
        assert stranger.post("/api/battle", json={"scenario": DUEL}).status_code == 200
        assert stranger.get("/api/battle").status_code == 200
        clock.now += 1.0
    assert len(store) == MAX_SESSIONS
    newcomer = visitor(app, "203.0.113.7")
    page = newcomer.get("/")
    assert page.status_code == 200, page.text
    assert newcomer.post("/api/battle", json={"scenario": DUEL}).status_code == 200
    assert len(store) == MAX_SESSIONS
    again = gm.get("/api/battle")
    assert again.status_code == 200
    assert again.json() == view  # the same battle, at the same version
    assert gm.cookies[COOKIE] == sid


def test_an_invested_session_survives_100_new_sessions_from_other_clients() -> None:
    app = create_app()
    store = app.state.store
    gm, sid, view = playing_gm(app)
    others = []
    for i in range(100):
        other = visitor(app, f"10.0.{i // 250}.{i % 250 + 1}")
        path, body = ("/api/session", None) if i % 2 else ("/api/battle", {"scenario": DUEL})
        r = other.post(path, json=body)
        assert r.status_code == 200, r.text
        others.append(weakref.ref(store.peek(r.cookies[COOKIE])))
        assert len(store) <= MAX_SESSIONS
    assert len(store) == MAX_SESSIONS
    gc.collect()
    assert sum(ref() is not None for ref in others) <= MAX_SESSIONS  # dropped ones are freed
    assert gm.get("/api/battle").json() == view


def test_a_table_full_of_battles_in_play_refuses_new_sessions_and_keeps_them() -> None:
    clock = Clock()
    app = create_app(max_sessions=4, clock=clock)
    store = app.state.store
    gm, sid, view = playing_gm(app)
    for i in range(3):  # three more GMs, each playing
        playing_gm(app, f"198.51.100.{i + 1}")
    clock.now += KEEP_IDLE_S - 1.0  # every battle was played within the hour
    refused = visitor(app, "203.0.113.7").post("/api/battle", json={"scenario": DUEL})
    assert refused.status_code == 503
    assert "4 sessions in use" in refused.json()["detail"]
    page = visitor(app, "203.0.113.8").get("/")  # the page says it too, in its error box
    assert page.status_code == 503 and "4 sessions in use" in page.text
    assert len(store) == 4
    assert gm.get("/api/battle").json() == view
    # An hour after its last use an invested session may go; the GM's was just used,
    # the other GMs' were not.
    clock.now += 2.0
    assert gm.get("/api/battle").status_code == 200
    assert visitor(app, "203.0.113.9").get("/").status_code == 200
    assert store.peek(sid) is not None


def test_one_client_may_start_only_its_share_of_sessions_an_hour() -> None:
    clock = Clock()
    app = create_app(clock=clock)
    store = app.state.store
    gm, sid, view = playing_gm(app, "192.0.2.1")
    churner = visitor(app, "198.51.100.1")
    for _ in range(CLIENT_SESSIONS):
        churner.cookies.clear()
        assert churner.post("/api/session").status_code == 200
        clock.now += 60.0
    churner.cookies.clear()
    refused = churner.post("/api/session")
    assert refused.status_code == 429
    detail = refused.json()["detail"]
    assert f"started {CLIENT_SESSIONS} sessions" in detail and "cookie" in detail
    # The first of its sessions leaves the hour's window this many seconds from now.
    wait = int(KEEP_IDLE_S - CLIENT_SESSIONS * 60.0)
    assert refused.headers["Retry-After"] == str(wait)
    churner.cookies.clear()
    page = churner.get("/")  # the page too, in its error box
    assert page.status_code == 429 and f"started {CLIENT_SESSIONS} sessions" in page.text
    assert page.headers["Retry-After"] == str(wait)
    # Another client is not affected, nor is a session the churner already holds.
    assert visitor(app, "198.51.100.2").post("/api/session").status_code == 200
    assert gm.get("/api/battle").json() == view
    clock.now += wait
    churner.cookies.clear()
    assert churner.post("/api/session").status_code == 200
    assert len(store) == CLIENT_SESSIONS + 3


def test_sessions_never_used_go_first_then_casual_ones_then_idle_battles() -> None:
    clock = Clock()
    store = SessionStore(max_sessions=3, keep_idle_s=60.0, clock=clock)
    gm = store.create()
    assert store.get(gm.id) is gm
    invest(gm)
    casual = store.create()
    assert store.get(casual.id) is casual  # came back once, played nothing
    unused = store.create()  # never came back
    clock.now = 10.0
    second = store.create()  # full: the session never used goes
    assert store.peek(unused.id) is None
    assert store.get(second.id) is second  # used at 10 s, played nothing
    newest = store.create()  # full: then the least recently used one not invested...
    assert store.peek(casual.id) is None
    assert store.peek(second.id) is second and store.peek(gm.id) is gm  # ...not the GM's
    assert store.get(newest.id) is newest
    invest(newest)
    third = store.create()  # the other one not invested goes
    assert store.peek(second.id) is None
    assert store.get(third.id) is third
    invest(third)
    clock.now = 59.0  # every session holds a battle played within 60 s
    with pytest.raises(FullError) as refused:
        store.create()
    assert refused.value.status == 503
    assert len(store) == 3
    clock.now = 61.0  # the GM's battle idle for 61 s: the only idle one, so it goes
    store.get(newest.id)
    store.get(third.id)
    store.create()
    assert store.peek(gm.id) is None
    assert store.peek(newest.id) is newest and store.peek(third.id) is third
    assert len(store) == 3


def test_a_loaded_state_file_invests_a_session_at_once() -> None:
    source = WebSession("s" * 24)
    source.start_shipped(DUEL, 3)
    name, data = source.state_document()
    target = WebSession("t" * 24)
    target.start_shipped(DUEL, 3)
    target.apply(1)
    assert not target.invested  # one action: a visitor trying the page
    target.load_state(name, data)
    assert target.invested


def test_the_per_client_cap_counts_a_machine_not_each_of_its_addresses() -> None:
    clock = Clock()
    store = SessionStore(clock=clock, client_sessions=2, client_window_s=100.0)
    # One IPv6 machine holds a whole /64: its addresses count together.
    store.create("2001:db8:1:2::10")
    store.create("2001:db8:1:2:ffff::1")
    with pytest.raises(RateLimitError) as refused:
        store.create("[2001:db8:1:2::99]")
    assert refused.value.status == 429 and refused.value.retry_after == 100
    store.create("2001:db8:1:3::10")  # another /64: another client
    store.create("::ffff:192.0.2.5")  # an IPv4 address written as IPv6 is that address
    store.create("192.0.2.5")
    with pytest.raises(RateLimitError):
        store.create("192.0.2.5")
    clock.now = 100.0
    store.create("192.0.2.5")
    assert client_key(None) == "unknown"
    assert client_key("2001:db8:1:2::10") == "2001:db8:1:2::/64"


def test_the_store_refusals_speak_the_current_language(marked: None) -> None:
    """A full server and a client past its share were English under ``?lang=es``: each is
    now the marked catalog's (tests/conftest.py)."""
    store = SessionStore(max_sessions=1, keep_idle_s=60.0, clock=Clock(), client_sessions=1)
    gm = store.create("192.0.2.1")
    assert store.get(gm.id) is gm
    invest(gm)
    with pytest.raises(RateLimitError) as limited:
        store.create("192.0.2.1")
    assert str(limited.value) == (
        "«this client (192.0.2.1) started 1 sessions in the last 60 minutes, the most one "
        "client may; it may start another in 3600 s. Keep your session's cookie (API "
        "clients: send the X-Escaramuza-Session header with the id from POST /api/session)»"
    )
    with pytest.raises(FullError) as full:
        store.create("192.0.2.2")
    assert str(full.value) == (
        "«the server already holds 1 sessions in use (battles in play, each used in the last "
        "1 minutes); try again later, or reuse your session's cookie»"
    )
