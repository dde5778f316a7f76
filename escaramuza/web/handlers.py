"""The app's error handlers.

Errors a user can cause are :class:`EscaramuzaError`: the API answers them with a 4xx
and ``{"detail": message}``, the page draws them in a red box with the same message (a
scenario error names the file, the field and the reason; an upload's several problems
are listed, :func:`~escaramuza.web.problems.page_error`). Anything else is logged on
the server and answered with a bare 500, never a traceback; a search that fails that
way is a 500 with a message saying so (the battle is unchanged), on the page in its red
box.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _
from escaramuza.rules.core.pydantic_reasons import pydantic_reason
from escaramuza.web.deps import lookup
from escaramuza.web.page import render
from escaramuza.web.problems import headers_of, page_error, status_of

log = logging.getLogger("escaramuza.web")


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(EscaramuzaError)
    async def user_error(request: Request, exc: EscaramuzaError) -> Response:
        if _is_api(request):
            return JSONResponse(
                {"detail": page_error(exc)}, status_code=status_of(exc), headers=headers_of(exc)
            )
        # The page's own errors are drawn by its routes; what reaches here is a session
        # that could not be created (a full server, too many new sessions from this
        # client): the page shows it in its red box.
        # Drawn in a worker thread, as every page is: drawing takes the session's lock,
        # which a search or the autopilot may hold for seconds, and waiting for it here
        # would stop the event loop, every other client's requests with it.
        response = await run_in_threadpool(
            render, request, lookup(request), page_error(exc), status_of(exc)
        )
        response.headers.update(headers_of(exc))
        return response

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        # Each reason in the request's language, worded as the scenario loader words a
        # file's (a validator's own sentence without pydantic's "Value error, ").
        problems = "; ".join(f"{_field(e)}: {pydantic_reason(e)}" for e in exc.errors())
        if _is_api(request):
            return JSONResponse({"detail": problems}, status_code=422)
        # In a worker thread, as above.
        return await run_in_threadpool(render, request, lookup(request), problems, 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            # Starlette's Allow names only the methods of the first route on the path;
            # GET and POST /api/battle are two routes.
            headers["Allow"] = ", ".join(_allowed_methods(request))
        return JSONResponse(
            {"detail": str(exc.detail)}, status_code=exc.status_code, headers=headers
        )

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> Response:
        # Logged with its traceback on the server; the client learns nothing more.
        log.error("internal error on %s %s", request.method, request.url.path, exc_info=exc)
        return JSONResponse({"detail": _("internal server error")}, status_code=500)


def _field(error: dict[str, Any]) -> str:
    """The field of a request's validation error (``seed``, ``action.target``), or the
    request itself for an error of the whole body: one that is not a JSON object, or not
    JSON at all (whose location is a character position, not a field)."""
    loc = () if error.get("type") == "json_invalid" else error.get("loc", ())
    return ".".join(str(p) for p in loc if p != "body") or _("request")


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route of the app serves at this request's path (the routes of
    its routers, :func:`escaramuza.web.app.create_app`'s ``app.state.routes``)."""
    methods: set[str] = set()
    for route in request.app.state.routes:
        match, _scope = route.matches(request.scope)
        if match != Match.NONE:
            methods |= getattr(route, "methods", None) or set()
    return sorted(methods)
