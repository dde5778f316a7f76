"""Which session a request belongs to: its cookie, or the header an API client sends; and
the HTTP status and headers of an error."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from escaramuza.rules.core.i18n import _
from escaramuza.web.errors import NotFoundError
from escaramuza.web.sessions import WebSession
from escaramuza.web.store import SessionStore

COOKIE = "escaramuza_session"
#: Header an API client may send instead of the cookie (the id from POST /api/session).
SESSION_HEADER = "x-escaramuza-session"
#: A request body may hold one upload plus a few form fields.


def store(request: Request) -> SessionStore:
    return request.app.state.store


def lookup(request: Request) -> WebSession | None:
    sid = request.headers.get(SESSION_HEADER) or request.cookies.get(COOKIE)
    return store(request).get(sid)


def obtain(request: Request) -> tuple[WebSession, bool]:
    session = lookup(request)
    if session is not None:
        return session, False
    return store(request).create(request.client.host if request.client else None), True


def need(request: Request) -> WebSession:
    session = lookup(request)
    if session is None:
        raise NotFoundError(
            _("no session: start a battle first (POST /api/battle) or open the page")
        )
    return session


def cookie(response: Response, session: WebSession, created: bool) -> Response:
    if created:
        # SameSite=strict: another site's page cannot act in this session.
        response.set_cookie(COOKIE, session.id, httponly=True, samesite="strict")
    return response
