"""The sessions of one server: at most so many, and so many new ones per client an hour;
which session gives up its slot when the table is full (docs/web.md, "Sessions kept")."""

from __future__ import annotations

import ipaddress
import logging
import math
import re
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from escaramuza.rules.core.i18n import _f
from escaramuza.web.errors import FullError, RateLimitError
from escaramuza.web.limits import (
    CLIENT_SESSIONS,
    CLIENT_WINDOW_S,
    KEEP_IDLE_S,
    MAX_SESSIONS,
    MAX_TRACKED_CLIENTS,
)
from escaramuza.web.sessions import WebSession

log = logging.getLogger("escaramuza.web")

_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


def client_key(host: str | None) -> str:
    """Whom the per-client cap counts: an IPv4 address, an IPv6 address's /64 network
    (one machine usually holds a whole /64 and can pick any address in it), or the
    host name as given (the test client's ``testclient``)."""
    if not host:
        return "unknown"
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class SessionStore:
    """The sessions of one server, by id, at most ``max_sessions`` of them.

    When a new session would pass the cap, the one dropped is, in this order:

    1. a session whose owner never came back with its id after the request that
       created it (a client that asked for a session and left), the oldest first;
    2. a session that is not *invested* (:attr:`WebSession.invested`: fewer than
       :data:`INVEST_CHANGES` changes of its battle and no state file loaded), the
       least recently used first: a visitor who looked, or a script that created a
       session and used it once;
    3. an invested session idle for ``keep_idle_s`` or more, the least recently used
       first (its playtest is cancelled).

    An invested session its owner used more recently (a GM playing) is never dropped
    for someone else's new one: with every slot holding such a session, a new one is
    refused (:class:`FullError`, 503) until one goes idle. A dropped session's running
    playtest is cancelled.

    So that one client can neither churn the table (pushing out other visitors'
    sessions of steps 1 and 2) nor fill it with sessions of its own, each client
    (:func:`client_key` of its address) may start at most ``client_sessions`` sessions
    per ``client_window_s``; past that it is refused with :class:`RateLimitError`
    (429, with the seconds until it may start one again).
    """

    def __init__(
        self,
        max_sessions: int = MAX_SESSIONS,
        keep_idle_s: float = KEEP_IDLE_S,
        clock: Callable[[], float] = time.monotonic,
        client_sessions: int = CLIENT_SESSIONS,
        client_window_s: float = CLIENT_WINDOW_S,
    ) -> None:
        self.max_sessions = max_sessions
        self.keep_idle_s = keep_idle_s
        self.clock = clock
        self.client_sessions = client_sessions
        self.client_window_s = client_window_s
        self._lock = threading.Lock()
        # Least recently used first.
        self._sessions: OrderedDict[str, WebSession] = OrderedDict()
        # When each client started its sessions of the window, oldest first; the
        # clients that started one least recently first.
        self._started: OrderedDict[str, deque[float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, sid: str | None) -> WebSession | None:
        """The session with this id, used by its owner now (None if there is none)."""
        if not sid or not _SESSION_ID.match(sid):
            return None
        with self._lock:
            session = self._sessions.get(sid)
            if session is not None:
                self._sessions.move_to_end(sid)
                session.touched = self.clock()
                session.returned = True
            return session

    def peek(self, sid: str) -> WebSession | None:
        """The session with this id, without counting as its owner's use (tests, logs)."""
        with self._lock:
            return self._sessions.get(sid)

    def _victim(self) -> tuple[WebSession, str] | None:
        """The session to drop for a new one, and why (the class's order), or None."""
        sessions = self._sessions.values()  # least recently used first
        idle_since = self.clock() - self.keep_idle_s
        for why, rule in (
            ("its owner never used it", lambda s: not s.returned),
            ("no battle in play in it", lambda s: not s.invested),
            ("idle for long", lambda s: s.touched <= idle_since),
        ):
            found = next((s for s in sessions if rule(s)), None)
            if found is not None:
                return found, why
        return None

    def _admit(self, client: str, now: float) -> deque[float]:
        """The times ``client`` started its sessions of the window; refuse it when it
        has started ``client_sessions`` of them."""
        since = now - self.client_window_s
        # Forget the clients seen least recently while their last new session is out
        # of the window, or while there are more than MAX_TRACKED_CLIENTS of them.
        while self._started:
            first, times = next(iter(self._started.items()))
            if len(self._started) <= MAX_TRACKED_CLIENTS and times and times[-1] > since:
                break
            del self._started[first]
        times = self._started.pop(client, deque())
        while times and times[0] <= since:
            times.popleft()
        self._started[client] = times
        if len(times) >= self.client_sessions:
            wait = max(1, math.ceil(times[0] + self.client_window_s - now))
            log.warning(
                "client %s started %d sessions in %g s: a new one was refused",
                client,
                len(times),
                self.client_window_s,
            )
            raise RateLimitError(
                _f(
                    "this client ({client}) started {n} sessions in the last {minutes:g} "
                    "minutes, the most one client may; it may start another in {wait} s. "
                    "Keep your session's cookie (API clients: send the X-Escaramuza-Session "
                    "header with the id from POST /api/session)",
                    client,
                    len(times),
                    self.client_window_s / 60,
                    wait,
                ),
                wait,
            )
        return times

    def create(self, client: str | None = None) -> WebSession:
        """A new session for ``client`` (its address: ``request.client.host``)."""
        with self._lock:
            now = self.clock()
            started = self._admit(client_key(client), now)
            while len(self._sessions) >= self.max_sessions:
                victim = self._victim()
                if victim is None:
                    log.warning(
                        "session limit %d reached and every session holds a battle "
                        "in play: a new one was refused",
                        self.max_sessions,
                    )
                    raise FullError(
                        _f(
                            "the server already holds {n} sessions in use (battles in play, "
                            "each used in the last {minutes:g} minutes); try again later, or "
                            "reuse your session's cookie",
                            self.max_sessions,
                            self.keep_idle_s / 60,
                        )
                    )
                old, why = victim
                del self._sessions[old.id]
                if old.playtest is not None:
                    old.playtest.cancel()
                log.info("session limit %d reached: dropped a session (%s)", self.max_sessions, why)
            session = WebSession(secrets.token_urlsafe(24), self.clock)
            self._sessions[session.id] = session
            started.append(now)
            return session

    def close(self) -> None:
        with self._lock:
            for session in self._sessions.values():
                if session.playtest is not None:
                    session.playtest.cancel()
            self._sessions.clear()
