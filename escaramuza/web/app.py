"""The FastAPI application: the GM's page and the JSON API under it.

``/`` is the page (:mod:`escaramuza.web.page`: server-rendered Jinja2 templates;
``static/app.js`` only submits the forms in the background and follows a running
playtest, and every form also works without it). ``/api/…`` is the JSON API
(:mod:`escaramuza.web.api`), documented by the OpenAPI schema at ``/openapi.json``
(browsable at ``/docs``). The request bodies are :mod:`escaramuza.web.models`, the
answers :mod:`escaramuza.web.views`, the middlewares :mod:`escaramuza.web.middleware`
and the error handlers :mod:`escaramuza.web.handlers`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import jinja2
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.middleware.trustedhost import TrustedHostMiddleware

from escaramuza import __version__
from escaramuza.rules.core.i18n import _, ngettext, outcome_reason, who_wins, word
from escaramuza.web import api, page
from escaramuza.web.handlers import add_error_handlers
from escaramuza.web.limits import CLIENT_SESSIONS, CLIENT_WINDOW_S, KEEP_IDLE_S, MAX_SESSIONS
from escaramuza.web.middleware import LANGUAGE_NAMES, BodyLimit, Language
from escaramuza.web.store import SessionStore

HERE = Path(__file__).resolve().parent
#: Host names accepted when serving on the loopback interface (DNS-rebinding guard).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def create_app(
    trusted_hosts: Sequence[str] | None = None,
    max_sessions: int = MAX_SESSIONS,
    keep_idle_s: float = KEEP_IDLE_S,
    client_sessions: int = CLIENT_SESSIONS,
    client_window_s: float = CLIENT_WINDOW_S,
    clock: Callable[[], float] = time.monotonic,
) -> FastAPI:
    """The app. ``trusted_hosts`` limits the Host header (``escaramuza serve`` on localhost);
    the other arguments are :class:`~escaramuza.web.store.SessionStore`'s."""
    store = SessionStore(max_sessions, keep_idle_s, clock, client_sessions, client_window_s)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        store.close()

    app = FastAPI(
        title="escaramuza GM",
        version=__version__,
        description=(
            "The game master's page and its JSON API: battles from shipped or uploaded "
            "scenarios, ranked suggestions, apply with the tool's or the table's dice, undo, "
            "state files and playtests. A session is a cookie (`escaramuza_session`) or the "
            "`X-Escaramuza-Session` header with the id from `POST /api/session`."
        ),
        lifespan=lifespan,
    )
    app.state.store = store
    app.add_middleware(BodyLimit)
    app.add_middleware(Language)
    if trusted_hosts:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(trusted_hosts))
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    # The page's labels go through the same catalog as the narration (docs/translating.md).
    env.install_gettext_callables(gettext=_, ngettext=ngettext)  # type: ignore[attr-defined]
    env.globals.update(
        word=word, outcome_reason=outcome_reason, who_wins=who_wins, languages=LANGUAGE_NAMES
    )
    templates = Jinja2Templates(env=env)
    app.state.templates = templates
    app.state.templates_env = env
    add_error_handlers(app)
    app.include_router(api.router)
    app.include_router(page.router)
    # Every route of the routers, for the Allow header of a 405 (escaramuza.web.handlers).
    app.state.routes = (*api.router.routes, *page.router.routes)
    return app
