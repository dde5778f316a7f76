"""The app's middlewares: the request size limit and each request's language."""

from __future__ import annotations

from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from escaramuza.rules.core.i18n import LANGUAGES, _, _f, current_language, language
from escaramuza.web.limits import MAX_STATE_UPLOAD_BYTES, MAX_UPLOAD_BYTES

#: A request body may hold one upload plus a few form fields.
MAX_BODY_BYTES = MAX_UPLOAD_BYTES + 16 * 1024
#: The paths that take a state file, and their larger upload (limits.py says why).
STATE_PATHS = frozenset({"/api/state", "/ui/load"})
MAX_STATE_BODY_BYTES = MAX_STATE_UPLOAD_BYTES + 16 * 1024


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes (``state_limit`` on the paths that take
    a state file) before they are read or spooled."""

    def __init__(
        self, app: ASGIApp, limit: int = MAX_BODY_BYTES, state_limit: int = MAX_STATE_BODY_BYTES
    ) -> None:
        self.app = app
        self.limit = limit
        self.state_limit = state_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("POST", "PUT", "PATCH"):
            headers = dict(scope["headers"])
            length = headers.get(b"content-length")
            state = scope.get("path") in STATE_PATHS
            limit = self.state_limit if state else self.limit
            problem = None
            if length is None and b"transfer-encoding" in headers:
                problem = (411, _("send a Content-Length"))
            elif length is not None and (not length.isdigit() or int(length) > limit):
                problem = (
                    413,
                    _f(
                        "the request is larger than {n} bytes (uploads up to {most} bytes)",
                        limit,
                        MAX_STATE_UPLOAD_BYTES if state else MAX_UPLOAD_BYTES,
                    ),
                )
            if problem is not None:
                response = JSONResponse({"detail": problem[1]}, status_code=problem[0])
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


#: The page's language: the selector's cookie, else ``?lang=``, else the
#: server's own (``serve --lang`` / ``ESCARAMUZA_LANG``, else English).
LANG_COOKIE = "escaramuza_lang"
#: The selector's choices: (code, the language's own name).
LANGUAGE_NAMES = (("en", "English"), ("es", "Español"))


class Language:
    """Run each request in its language, so narration, suggestions and the page's labels
    are made in it (rules/core/i18n.py: a context variable, so concurrent requests in
    other languages do not interfere)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        asked = conn.cookies.get(LANG_COOKIE) or conn.query_params.get("lang") or ""
        code = asked if asked in LANGUAGES else current_language()
        with language(code):
            await self.app(scope, receive, send)
