"""The FastAPI application: the GM's page and the JSON API under it.

``/`` is the page (server-rendered Jinja2 templates; ``static/app.js`` only
submits the forms in the background and follows a running playtest, and every
form also works without it). ``/api/…`` is the JSON API, documented by the
OpenAPI schema at ``/openapi.json`` (browsable at ``/docs``).

Errors a user can cause are :class:`EscaramuzaError`: the API answers them with
a 4xx and ``{"detail": message}``, the page draws them in a red box with the
same message (a scenario error names the file, the field and the reason).
Anything else is logged on the server and answered with a bare 500, never a
traceback; a search that fails that way is a 500 with a message saying so (the
battle is unchanged), on the page in its red box.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

import jinja2
from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, BeforeValidator, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import HTTPConnection
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from escaramuza import __version__
from escaramuza.gm import DEFAULT_SEED
from escaramuza.rules.core.errors import EscaramuzaError, ScenarioError, UnknownNameError
from escaramuza.rules.core.i18n import (
    LANGUAGES,
    _,
    current_language,
    language,
    ngettext,
    outcome_reason,
    who_wins,
    word,
)
from escaramuza.web import sessions as ws
from escaramuza.web.views import (
    ActionModel,
    ApplyView,
    BattleView,
    PlaytestView,
    ScenarioInfo,
    SessionView,
    SuggestionsView,
    battle_view,
    playtest_view,
    shipped_infos,
    suggestions_view,
)

log = logging.getLogger("escaramuza.web")

HERE = Path(__file__).resolve().parent
COOKIE = "escaramuza_session"
#: Header an API client may send instead of the cookie (the id from POST /api/session).
SESSION_HEADER = "x-escaramuza-session"
#: A request body may hold one upload plus a few form fields.
MAX_BODY_BYTES = ws.MAX_UPLOAD_BYTES + 16 * 1024
#: Host names accepted when serving on the loopback interface (DNS-rebinding guard).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


# -- request bodies -----------------------------------------------------------------


def _number(value: object) -> object:
    # JSON's false/true and "12" are not numbers: pydantic's lax mode would read them as
    # 0, 1 and 12 (`"seed": false` would start a battle with seed 0).
    # 12.0 stays a valid integer, as it is for the JSON Schema `integer` of /openapi.json.
    if isinstance(value, bool | str):
        raise ValueError(
            "expected a number, not " + ("true/false" if value in (True, False) else "text")
        )
    return value


#: Integers and numbers of the JSON bodies: a JSON number only.
JsonInt = Annotated[int, BeforeValidator(_number)]
JsonFloat = Annotated[float, BeforeValidator(_number)]


class NewBattle(BaseModel):
    scenario: str = Field(description="a shipped scenario name (GET /api/scenarios)")
    seed: JsonInt = Field(DEFAULT_SEED, ge=0, description="seed of the tool's dice")


class ApplyRequest(BaseModel):
    index: JsonInt | None = Field(None, description="number of the legal action (BattleView)")
    action: ActionModel | None = Field(None, description="or the action's fields")
    dice: str = Field(
        "",
        max_length=2000,
        description="dice rolled at the table in order ('6 14 d10=4'); empty: the tool rolls",
    )
    version: JsonInt | None = Field(None, description="BattleView.version the client saw")


class VersionRequest(BaseModel):
    version: JsonInt | None = None


class EditRequest(BaseModel):
    command: str = Field(max_length=500, description="set/status/move/cond/initiative …")
    version: JsonInt | None = None


class SuggestRequest(BaseModel):
    budget_ms: JsonFloat | None = Field(
        None,
        ge=ws.MIN_BUDGET_MS,
        le=ws.MAX_BUDGET_MS,
        description=f"search time in ms (default {ws.WEB_BUDGET_MS:g})",
    )
    iterations: JsonInt | None = Field(
        None,
        ge=1,
        le=ws.MAX_ITERATIONS,
        description="or a number of rollouts (reproducible; stopped at the server's "
        f"{ws.SUGGEST_CAP_MS:g} ms time cap, which the answer reports)",
    )
    max_ms: JsonFloat | None = Field(
        None,
        ge=ws.MIN_BUDGET_MS,
        le=ws.MAX_BUDGET_MS,
        description=f"go on up to this while too close to call (default {ws.WEB_MAX_MS:g}; "
        "time budgets only)",
    )


class PlaytestRequest(BaseModel):
    n: JsonInt = Field(
        200,
        ge=1,
        le=ws.MAX_PLAYTEST_BATTLES,
        description=f"battles (stopped at the server's {ws.PLAYTEST_CAP_S:g} s "
        "time cap, which the answer reports)",
    )
    seed: JsonInt = Field(1, ge=0)
    heroes: str = "heuristic"
    enemies: str = "heuristic"


class ErrorView(BaseModel):
    """Every error answer of the API: one human-readable message (file, field, reason)."""

    detail: str


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorView} for code in codes}


#: The error answers of the API's operations. 422 is declared with the project's
#: ``{"detail": "…"}`` model: FastAPI would otherwise document its own list of
#: validation errors, which this API does not send. 411 and 413 come from
#: :class:`BodyLimit`.
ERRORS = _errors(400, 404, 409, 411, 413, 422, 429)
#: Operations that may create a session also answer 429 when this client started too
#: many sessions lately (with ``Retry-After``) and 503 when every slot holds a battle in
#: play (:class:`escaramuza.web.sessions.SessionStore`).
SESSION_ERRORS = _errors(400, 404, 409, 411, 413, 422, 429, 503)
#: A search may also fail with a 500 that says so
#: (:class:`escaramuza.web.sessions.SearchFailedError`).
SEARCH_ERRORS = _errors(400, 404, 409, 411, 413, 422, 429, 500)


# -- the size limit ---------------------------------------------------------------


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes before they are read or spooled."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("POST", "PUT", "PATCH"):
            headers = dict(scope["headers"])
            length = headers.get(b"content-length")
            problem = None
            if length is None and b"transfer-encoding" in headers:
                problem = (411, "send a Content-Length")
            elif length is not None and (not length.isdigit() or int(length) > self.limit):
                problem = (
                    413,
                    f"the request is larger than {self.limit} bytes "
                    f"(uploads up to {ws.MAX_UPLOAD_BYTES} bytes)",
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


# -- the application ---------------------------------------------------------------


def create_app(
    trusted_hosts: Sequence[str] | None = None,
    max_sessions: int = ws.MAX_SESSIONS,
    keep_idle_s: float = ws.KEEP_IDLE_S,
    client_sessions: int = ws.CLIENT_SESSIONS,
    client_window_s: float = ws.CLIENT_WINDOW_S,
    clock: Callable[[], float] = time.monotonic,
) -> FastAPI:
    """The app. ``trusted_hosts`` limits the Host header (``escaramuza serve`` on localhost);
    the other arguments are :class:`~escaramuza.web.sessions.SessionStore`'s."""
    store = ws.SessionStore(max_sessions, keep_idle_s, clock, client_sessions, client_window_s)

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
    _add_error_handlers(app, templates)
    _add_api(app)
    _add_page(app, templates)
    return app


# -- sessions --------------------------------------------------------------------------


def _store(request: Request) -> ws.SessionStore:
    return request.app.state.store  # type: ignore[no-any-return]


def _lookup(request: Request) -> ws.WebSession | None:
    sid = request.headers.get(SESSION_HEADER) or request.cookies.get(COOKIE)
    return _store(request).get(sid)


def _obtain(request: Request) -> tuple[ws.WebSession, bool]:
    session = _lookup(request)
    if session is not None:
        return session, False
    return _store(request).create(request.client.host if request.client else None), True


def _need(request: Request) -> ws.WebSession:
    session = _lookup(request)
    if session is None:
        raise ws.NotFoundError(
            "no session: start a battle first (POST /api/battle) or open the page"
        )
    return session


def _cookie(response: Response, session: ws.WebSession, created: bool) -> Response:
    if created:
        # SameSite=strict: another site's page cannot act in this session.
        response.set_cookie(COOKIE, session.id, httponly=True, samesite="strict")
    return response


def status_of(exc: EscaramuzaError) -> int:
    if isinstance(exc, ws.WebError):
        return exc.status
    if isinstance(exc, UnknownNameError):
        return 404
    return 400


def headers_of(exc: EscaramuzaError) -> dict[str, str]:
    """The answer's headers for an error: ``Retry-After`` when the client may retry later."""
    if isinstance(exc, ws.RateLimitError):
        return {"Retry-After": str(exc.retry_after)}
    return {}


# -- errors ------------------------------------------------------------------------------


#: Problems of one uploaded file the page lists in its red box (the rest are counted).
MAX_PAGE_PROBLEMS = 12


def page_error(exc: EscaramuzaError) -> str:
    """An error as the page's red box shows it: a file with several problems lists them
    one per line (the command line's one-line message points to ``validate``, which a
    page user has no terminal for)."""
    if not isinstance(exc, ScenarioError) or len(exc.problems) < 2:
        return str(exc)
    problems = exc.problems
    lines = [
        ngettext("{file}: {n} problem", "{file}: {n} problems", len(problems)).format(
            file=exc.source, n=len(problems)
        )
    ]
    for p in problems[:MAX_PAGE_PROBLEMS]:
        lines.append(f"  {p.field}: {p.reason}" if p.field else f"  {p.reason}")
    if len(problems) > MAX_PAGE_PROBLEMS:
        rest = len(problems) - MAX_PAGE_PROBLEMS
        lines.append(ngettext("  … and {n} more", "  … and {n} more", rest).format(n=rest))
    return "\n".join(lines)


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _add_error_handlers(app: FastAPI, templates: Jinja2Templates) -> None:
    @app.exception_handler(EscaramuzaError)
    async def user_error(request: Request, exc: EscaramuzaError) -> Response:
        if _is_api(request):
            return JSONResponse(
                {"detail": str(exc)}, status_code=status_of(exc), headers=headers_of(exc)
            )
        # The page's own errors are drawn by its routes; what reaches here is a session
        # that could not be created (a full server, too many new sessions from this
        # client): the page shows it in its red box.
        response = _render(
            templates, request, _lookup(request), error=page_error(exc), status=status_of(exc)
        )
        response.headers.update(headers_of(exc))
        return response

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'request'}: "
            f"{e.get('msg', 'invalid')}"
            for e in exc.errors()
        )
        if _is_api(request):
            return JSONResponse({"detail": problems}, status_code=422)
        session = _lookup(request)
        return _render(templates, request, session, error=problems, status=422)

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
        return JSONResponse({"detail": "internal server error"}, status_code=500)


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route of the app serves at this request's path."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        if match != Match.NONE:
            methods |= getattr(route, "methods", None) or set()
    return sorted(methods)


# -- the JSON API ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _shipped() -> tuple[ScenarioInfo, ...]:
    return tuple(shipped_infos())


def _add_api(app: FastAPI) -> None:  # noqa: C901 - one small function per route
    @app.get(
        "/api/scenarios", response_model=list[ScenarioInfo], responses=_errors(404), tags=["battle"]
    )
    def scenarios() -> list[ScenarioInfo]:
        """The shipped scenarios a battle can start from."""
        return list(_shipped())

    @app.post(
        "/api/session", response_model=SessionView, responses=SESSION_ERRORS, tags=["session"]
    )
    def session(request: Request, response: Response) -> SessionView:
        """This client's session (created if needed; also set as a cookie)."""
        s, created = _obtain(request)
        _cookie(response, s, created)
        return SessionView(session=s.id, battle=s.gm is not None)

    @app.post("/api/battle", response_model=BattleView, responses=SESSION_ERRORS, tags=["battle"])
    def new_battle(body: NewBattle, request: Request, response: Response) -> BattleView:
        """Start a battle of a shipped scenario (initiative rolled with ``seed``)."""
        s, created = _obtain(request)
        _cookie(response, s, created)
        with s.lock:
            s.start_shipped(body.scenario, body.seed)
            return battle_view(s)

    @app.post(
        "/api/battle/upload", response_model=BattleView, responses=SESSION_ERRORS, tags=["battle"]
    )
    async def upload_battle(
        request: Request,
        response: Response,
        file: Annotated[UploadFile, File()],
        seed: Annotated[int, Form(ge=0)] = DEFAULT_SEED,
    ) -> BattleView:
        """Start a battle of an uploaded scenario YAML (validated; at most 256 KB)."""
        data = await file.read(ws.MAX_UPLOAD_BYTES + 1)
        s, created = _obtain(request)
        _cookie(response, s, created)

        def work() -> BattleView:
            with s.lock:
                s.start_upload(file.filename or "upload.yaml", data, seed)
                return battle_view(s)

        return await run_in_threadpool(work)

    @app.get("/api/battle", response_model=BattleView, responses=ERRORS, tags=["battle"])
    def get_battle(request: Request) -> BattleView:
        """The battle: round, pending decision, combatants, legal actions, map."""
        s = _need(request)
        with s.lock:
            return battle_view(s)

    @app.post(
        "/api/suggest", response_model=SuggestionsView, responses=SEARCH_ERRORS, tags=["battle"]
    )
    def suggest(body: SuggestRequest, request: Request) -> SuggestionsView:
        """Rank the pending decision's actions (win chance, exact odds, risk, reason).

        Every search ends within the server's time cap (5 s): a time budget and its
        maximum are at most that, and an iteration budget the cap cuts says so
        (``capped``, ``stopped_text``)."""
        s = _need(request)
        with s.lock:
            return suggestions_view(s, s.suggest(body.budget_ms, body.iterations, body.max_ms))

    @app.post("/api/apply", response_model=ApplyView, responses=ERRORS, tags=["battle"])
    def apply(body: ApplyRequest, request: Request) -> ApplyView:
        """Apply a legal action (by number or fields) with the tool's or the given dice."""
        s = _need(request)
        with s.lock:
            if body.index is None and body.action is None:
                raise ws.WebError(_("give the action's index or its fields"))
            index = body.index
            if index is None and body.action is not None:
                index = s.find_index(body.action.model_dump())
            lines = s.apply(int(index or 0), body.dice, body.version)
            return ApplyView(lines=lines, battle=battle_view(s))

    @app.post("/api/undo", response_model=BattleView, responses=ERRORS, tags=["battle"])
    def undo(request: Request, body: VersionRequest | None = None) -> BattleView:
        """Take back the last change."""
        s = _need(request)
        with s.lock:
            s.undo(body.version if body else None)
            return battle_view(s)

    @app.post("/api/edit", response_model=BattleView, responses=ERRORS, tags=["battle"])
    def edit(body: EditRequest, request: Request) -> BattleView:
        """Mirror the table: ``set ID RES N``, ``status``, ``move``, ``cond``, ``initiative``."""
        s = _need(request)
        with s.lock:
            s.edit(body.command, body.version)
            return battle_view(s)

    @app.get("/api/state", responses=ERRORS, tags=["state file"], response_class=Response)
    def save_state(request: Request) -> Response:
        """Download the battle as a state file (JSON, docs/gm.md)."""
        s = _need(request)
        with s.lock:
            name, data = s.state_document()
        return Response(
            data,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @app.post(
        "/api/state", response_model=BattleView, responses=SESSION_ERRORS, tags=["state file"]
    )
    async def load_state(
        request: Request, response: Response, file: Annotated[UploadFile, File()]
    ) -> BattleView:
        """Continue from an uploaded state file (at most 256 KB)."""
        data = await file.read(ws.MAX_UPLOAD_BYTES + 1)
        s, created = _obtain(request)
        _cookie(response, s, created)

        def work() -> BattleView:
            with s.lock:
                s.load_state(file.filename or "state.json", data)
                return battle_view(s)

        return await run_in_threadpool(work)

    @app.post(
        "/api/playtest",
        response_model=PlaytestView,
        status_code=202,
        responses=ERRORS,
        tags=["playtest"],
    )
    def start_playtest(body: PlaytestRequest, request: Request) -> PlaytestView:
        """Play N battles of this session's scenario in the background."""
        s = _need(request)
        with s.lock:
            return playtest_view(s.start_playtest(body.n, body.seed, body.heroes, body.enemies))

    @app.get("/api/playtest", response_model=PlaytestView, responses=ERRORS, tags=["playtest"])
    def get_playtest(request: Request) -> PlaytestView:
        """The playtest's progress, then its numbers (summary.json) and plot URLs."""
        return playtest_view(_need(request).playtest)

    @app.delete("/api/playtest", response_model=PlaytestView, responses=ERRORS, tags=["playtest"])
    def cancel_playtest(request: Request) -> PlaytestView:
        """Stop the running playtest."""
        s = _need(request)
        s.cancel_playtest()
        return playtest_view(s.playtest)

    @app.get(
        "/api/playtest/plots/{name}.png",
        responses=ERRORS,
        tags=["playtest"],
        response_class=Response,
    )
    def plot(name: str, request: Request) -> Response:
        """A plot of the finished playtest: outcomes, rounds or survival."""
        job = _need(request).playtest
        if job is None or name not in job.plots:
            raise ws.NotFoundError(f"no plot {name!r}: run a playtest first")
        return Response(
            job.plots[name], media_type="image/png", headers={"Cache-Control": "no-store"}
        )

    @app.get("/api/battlefield.svg", responses=ERRORS, tags=["battle"], response_class=Response)
    def battlefield_svg(request: Request) -> Response:
        """The battlefield picture: zones, links and tokens (SVG)."""
        s = _need(request)
        with s.lock:
            view = battle_view(s)
        env = request.app.state.templates_env
        text = env.get_template("battlefield.svg").render(battle=view, standalone=True)
        return Response(text, media_type="image/svg+xml")


# -- the page ---------------------------------------------------------------------------------


def _render(
    templates: Jinja2Templates,
    request: Request,
    session: ws.WebSession | None,
    error: str | None = None,
    status: int = 200,
    created: bool = False,
) -> Response:
    context: dict[str, Any] = {
        "lang": current_language(),
        "scenarios": _shipped(),
        "error": error,
        "battle": None,
        "suggestions": None,
        "playtest": playtest_view(None),
        "session": session,
        "limits": ws,
        "agents": ws.PLAYTEST_AGENTS,
        "edit_commands": ws.EDIT_COMMANDS,
        "version": __version__,
    }
    if session is not None:
        with session.lock:
            if session.gm is not None:
                context["battle"] = battle_view(session)
                current = session.current_suggestions()
                if current is not None:
                    context["suggestions"] = suggestions_view(session, current)
            context["message"] = session.message
            context["playtest"] = playtest_view(session.playtest)
    response = templates.TemplateResponse(request, "index.html", context, status_code=status)
    response.headers["Cache-Control"] = "no-store"
    if session is not None:
        _cookie(response, session, created)
    return response


def _add_page(app: FastAPI, templates: Jinja2Templates) -> None:  # noqa: C901 - one per form
    app.state.templates_env = templates.env

    def run(request: Request, action: Callable[[ws.WebSession], object]) -> Response:
        session, created = _obtain(request)
        try:
            with session.lock:
                action(session)
        except EscaramuzaError as exc:
            return _render(templates, request, session, page_error(exc), status_of(exc), created)
        return _cookie(RedirectResponse("/", status_code=303), session, created)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page(request: Request) -> Response:
        session, created = _obtain(request)
        return _render(templates, request, session, created=created)

    @app.post("/ui/new", include_in_schema=False)
    def ui_new(
        request: Request,
        scenario: Annotated[str, Form(max_length=200)],
        seed: Annotated[int, Form(ge=0)] = DEFAULT_SEED,
    ) -> Response:
        return run(request, lambda s: s.start_shipped(scenario, seed))

    @app.post("/ui/upload", include_in_schema=False)
    async def ui_upload(
        request: Request,
        file: Annotated[UploadFile, File()],
        seed: Annotated[int, Form(ge=0)] = DEFAULT_SEED,
    ) -> Response:
        data = await file.read(ws.MAX_UPLOAD_BYTES + 1)
        name = file.filename or "upload.yaml"
        return await run_in_threadpool(run, request, lambda s: s.start_upload(name, data, seed))

    @app.post("/ui/suggest", include_in_schema=False)
    def ui_suggest(
        request: Request,
        budget_ms: Annotated[float, Form()] = ws.WEB_BUDGET_MS,
        max_ms: Annotated[float | None, Form()] = None,
    ) -> Response:
        return run(request, lambda s: s.suggest(budget_ms, None, max_ms))

    @app.post("/ui/apply", include_in_schema=False)
    def ui_apply(
        request: Request,
        version: Annotated[int, Form()],
        index: Annotated[int | None, Form()] = None,
        pick: Annotated[int | None, Form()] = None,
        dice: Annotated[str, Form(max_length=2000)] = "",
    ) -> Response:
        # A suggestion's Apply button sends `index`; the action list's button `pick`.
        chosen = index if index is not None else pick
        if chosen is None:
            return run(request, _fail("pick an action to apply"))
        return run(request, lambda s: s.apply(chosen, dice, version))

    @app.post("/ui/undo", include_in_schema=False)
    def ui_undo(request: Request, version: Annotated[int, Form()]) -> Response:
        return run(request, lambda s: s.undo(version))

    @app.post("/ui/edit", include_in_schema=False)
    def ui_edit(
        request: Request,
        version: Annotated[int, Form()],
        command: Annotated[str, Form(max_length=500)],
    ) -> Response:
        return run(request, lambda s: s.edit(command, version))

    @app.post("/ui/load", include_in_schema=False)
    async def ui_load(request: Request, file: Annotated[UploadFile, File()]) -> Response:
        data = await file.read(ws.MAX_UPLOAD_BYTES + 1)
        name = file.filename or "state.json"
        return await run_in_threadpool(run, request, lambda s: s.load_state(name, data))

    @app.post("/ui/playtest", include_in_schema=False)
    def ui_playtest(
        request: Request,
        n: Annotated[int, Form()],
        seed: Annotated[int, Form(ge=0)] = 1,
        heroes: Annotated[str, Form(max_length=50)] = "heuristic",
        enemies: Annotated[str, Form(max_length=50)] = "heuristic",
    ) -> Response:
        return run(request, lambda s: s.start_playtest(n, seed, heroes, enemies))

    @app.post("/ui/lang", include_in_schema=False)
    def ui_lang(request: Request, lang: Annotated[str, Form(max_length=10)]) -> Response:
        if lang not in LANGUAGES:
            session, created = _obtain(request)
            problem = f"lang: {lang!r} is not a language escaramuza speaks (en or es)"
            return _render(templates, request, session, problem, 400, created)
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(LANG_COOKIE, lang, samesite="strict", max_age=365 * 24 * 3600)
        return response

    @app.post("/ui/playtest/cancel", include_in_schema=False)
    def ui_cancel(request: Request) -> Response:
        return run(request, lambda s: s.cancel_playtest())


def _fail(message: str) -> Callable[[ws.WebSession], None]:
    def action(_session: ws.WebSession) -> None:
        raise ws.WebError(message)

    return action
