"""The page at ``/`` and its forms under ``/ui/``: server-rendered Jinja2 templates
(``static/app.js`` only submits the forms in the background and follows a running
playtest, and every form also works without it). Not in the OpenAPI schema."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from escaramuza import __version__
from escaramuza.gm import DEFAULT_SEED
from escaramuza.gm.autopilot import DEFAULT_AGENT
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import LANGUAGES, _, _f, current_language
from escaramuza.web import limits
from escaramuza.web.autopilot import AUTOPILOT_AGENTS
from escaramuza.web.deps import cookie, obtain
from escaramuza.web.errors import BusyError, WebError
from escaramuza.web.middleware import LANG_COOKIE
from escaramuza.web.models import SeedForm
from escaramuza.web.problems import page_error, status_of
from escaramuza.web.sessions import WebSession
from escaramuza.web.views import battle_view, playtest_view, shipped, suggestions_view

router = APIRouter(include_in_schema=False)


def templates_of(request: Request) -> Jinja2Templates:
    """The app's templates (:func:`escaramuza.web.app.create_app` builds them)."""
    return request.app.state.templates


def render(
    request: Request,
    session: WebSession | None,
    error: str | None = None,
    status: int = 200,
    created: bool = False,
) -> Response:
    """The page for ``session``'s battle, with ``error`` in its red box."""
    context: dict[str, Any] = {
        "lang": current_language(),
        "scenarios": shipped(),
        "error": error,
        "battle": None,
        "suggestions": None,
        "playtest": playtest_view(None),
        "session": session,
        "limits": limits,
        "agents": limits.PLAYTEST_AGENTS,
        "edit_commands": limits.EDIT_COMMANDS,
        "auto_agents": AUTOPILOT_AGENTS,
        "version": __version__,
    }
    if session is not None:
        try:
            with session.lock:
                if session.gm is not None:
                    context["battle"] = battle_view(session)
                    current = session.current_suggestions()
                    if current is not None:
                        context["suggestions"] = suggestions_view(session, current)
                        # Each row's numbers as the terminal's table prints them.
                        context["cells"] = {s.rank: s.cells() for s in current.items}
                context["message"] = session.message
                context["playtest"] = playtest_view(session.playtest)
        except BusyError as exc:
            # Too many of this session's requests wait already: the page is drawn without
            # its battle, saying so (or with the error it was drawn for).
            context["error"] = error or page_error(exc)
            status = status if error else exc.status
    response = templates_of(request).TemplateResponse(
        request, "index.html", context, status_code=status
    )
    response.headers["Cache-Control"] = "no-store"
    if session is not None:
        cookie(response, session, created)
    return response


def run(request: Request, action: Callable[[WebSession], object]) -> Response:
    """Carry out a form's action in this client's session, then draw the page again (a
    redirect to ``/``), or the page with the error in its red box."""
    session, created = obtain(request)
    try:
        with session.lock:
            action(session)
    except EscaramuzaError as exc:
        return render(request, session, page_error(exc), status_of(exc), created)
    return cookie(RedirectResponse("/", status_code=303), session, created)


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def page(request: Request) -> Response:
    session, created = obtain(request)
    return render(request, session, created=created)


@router.post("/ui/new", include_in_schema=False)
def ui_new(
    request: Request,
    scenario: Annotated[str, Form(max_length=200)],
    seed: SeedForm = DEFAULT_SEED,
) -> Response:
    return run(request, lambda s: s.start_shipped(scenario, seed))


@router.post("/ui/upload", include_in_schema=False)
async def ui_upload(
    request: Request,
    file: Annotated[UploadFile, File()],
    seed: SeedForm = DEFAULT_SEED,
) -> Response:
    data = await file.read(limits.MAX_UPLOAD_BYTES + 1)
    name = file.filename or "upload.yaml"
    return await run_in_threadpool(run, request, lambda s: s.start_upload(name, data, seed))


@router.post("/ui/suggest", include_in_schema=False)
def ui_suggest(
    request: Request,
    budget_ms: Annotated[float, Form()] = limits.WEB_BUDGET_MS,
    max_ms: Annotated[float | None, Form()] = None,
) -> Response:
    return run(request, lambda s: s.suggest(budget_ms, None, max_ms))


@router.post("/ui/apply", include_in_schema=False)
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
        return run(request, _fail(_("pick an action to apply")))
    return run(request, lambda s: s.apply(chosen, dice, version))


@router.post("/ui/auto", include_in_schema=False)
def ui_auto(
    request: Request,
    version: Annotated[int, Form()],
    enabled: Annotated[str, Form(max_length=10)] = "",
    agent: Annotated[str, Form(max_length=50)] = DEFAULT_AGENT,
    budget_ms: Annotated[float | None, Form()] = None,
) -> Response:
    # The toggle is a checkbox: sent ("on") when ticked, absent when not.
    return run(request, lambda s: s.autopilot(bool(enabled), agent, budget_ms, None, version))


@router.post("/ui/undo", include_in_schema=False)
def ui_undo(request: Request, version: Annotated[int, Form()]) -> Response:
    return run(request, lambda s: s.undo(version))


@router.post("/ui/edit", include_in_schema=False)
def ui_edit(
    request: Request,
    version: Annotated[int, Form()],
    command: Annotated[str, Form(max_length=500)],
) -> Response:
    return run(request, lambda s: s.edit(command, version))


@router.post("/ui/load", include_in_schema=False)
async def ui_load(request: Request, file: Annotated[UploadFile, File()]) -> Response:
    data = await file.read(limits.MAX_STATE_UPLOAD_BYTES + 1)
    name = file.filename or "state.json"
    return await run_in_threadpool(run, request, lambda s: s.load_state(name, data))


@router.post("/ui/playtest", include_in_schema=False)
def ui_playtest(
    request: Request,
    n: Annotated[int, Form()],
    seed: SeedForm = 1,
    heroes: Annotated[str, Form(max_length=50)] = "heuristic",
    enemies: Annotated[str, Form(max_length=50)] = "heuristic",
) -> Response:
    return run(request, lambda s: s.start_playtest(n, seed, heroes, enemies))


@router.post("/ui/lang", include_in_schema=False)
def ui_lang(request: Request, lang: Annotated[str, Form(max_length=10)]) -> Response:
    if lang not in LANGUAGES:
        session, created = obtain(request)
        problem = _f("lang: {lang} is not a language escaramuza speaks (en or es)", repr(lang))
        return render(request, session, problem, 400, created)
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(LANG_COOKIE, lang, samesite="strict", max_age=365 * 24 * 3600)
    return response


@router.post("/ui/playtest/cancel", include_in_schema=False)
def ui_cancel(request: Request) -> Response:
    return run(request, lambda s: s.cancel_playtest())


def _fail(message: str) -> Callable[[WebSession], None]:
    def action(_session: WebSession) -> None:
        raise WebError(message)

    return action
