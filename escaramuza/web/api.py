"""The JSON API under ``/api/``, documented by the OpenAPI schema at ``/openapi.json``
(browsable at ``/docs``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from escaramuza.gm import DEFAULT_SEED
from escaramuza.rules.core.bookkeeping import short
from escaramuza.rules.core.i18n import _, _f
from escaramuza.web.autopilot import AutopilotView, autopilot_view
from escaramuza.web.deps import cookie, need, obtain
from escaramuza.web.errors import NotFoundError, WebError
from escaramuza.web.limits import MAX_STATE_UPLOAD_BYTES, MAX_UPLOAD_BYTES
from escaramuza.web.models import (
    ERRORS,
    SEARCH_ERRORS,
    SESSION_ERRORS,
    ApplyRequest,
    AutopilotRequest,
    EditRequest,
    NewBattle,
    PlaytestRequest,
    SeedForm,
    SuggestRequest,
    VersionRequest,
    errors,
)
from escaramuza.web.uploads import attachment
from escaramuza.web.views import (
    ApplyView,
    BattleView,
    PlaytestView,
    ScenarioInfo,
    SessionView,
    SuggestionsView,
    apply_view,
    battle_view,
    playtest_view,
    shipped,
    suggestions_view,
)

router = APIRouter()


@router.get(
    "/api/scenarios", response_model=list[ScenarioInfo], responses=errors(404), tags=["battle"]
)
def scenarios() -> list[ScenarioInfo]:
    """The shipped scenarios a battle can start from."""
    return list(shipped())


@router.post("/api/session", response_model=SessionView, responses=SESSION_ERRORS, tags=["session"])
def session(request: Request, response: Response) -> SessionView:
    """This client's session (created if needed; also set as a cookie)."""
    s, created = obtain(request)
    cookie(response, s, created)
    return SessionView(session=s.id, battle=s.gm is not None)


@router.post("/api/battle", response_model=BattleView, responses=SESSION_ERRORS, tags=["battle"])
def new_battle(body: NewBattle, request: Request, response: Response) -> BattleView:
    """Start a battle of a shipped scenario (initiative rolled with ``seed``)."""
    s, created = obtain(request)
    cookie(response, s, created)
    with s.lock:
        s.start_shipped(body.scenario, body.seed)
        return battle_view(s)


@router.post(
    "/api/battle/upload", response_model=BattleView, responses=SESSION_ERRORS, tags=["battle"]
)
async def upload_battle(
    request: Request,
    response: Response,
    file: Annotated[UploadFile, File()],
    seed: SeedForm = DEFAULT_SEED,
) -> BattleView:
    """Start a battle of an uploaded scenario YAML (validated; at most 256 KB)."""
    data = await file.read(MAX_UPLOAD_BYTES + 1)
    s, created = obtain(request)
    cookie(response, s, created)

    def work() -> BattleView:
        with s.lock:
            s.start_upload(file.filename or "upload.yaml", data, seed)
            return battle_view(s)

    return await run_in_threadpool(work)


@router.get("/api/battle", response_model=BattleView, responses=ERRORS, tags=["battle"])
def get_battle(request: Request) -> BattleView:
    """The battle: round, pending decision, combatants, legal actions, map."""
    s = need(request)
    with s.lock:
        return battle_view(s)


@router.post(
    "/api/suggest", response_model=SuggestionsView, responses=SEARCH_ERRORS, tags=["battle"]
)
def suggest(body: SuggestRequest, request: Request) -> SuggestionsView:
    """Rank the pending decision's actions (win chance, exact odds, risk, reason).

    Every search ends within the server's time cap (5 s): a time budget and its
    maximum are at most that, and an iteration budget the cap cuts says so
    (``capped``, ``stopped_text``)."""
    s = need(request)
    with s.lock:
        return suggestions_view(s, s.suggest(body.budget_ms, body.iterations, body.max_ms))


@router.post("/api/apply", response_model=ApplyView, responses=ERRORS, tags=["battle"])
def apply(body: ApplyRequest, request: Request) -> ApplyView:
    """Apply a legal action (by number or fields) with the tool's or the given dice."""
    s = need(request)
    with s.lock:
        if body.index is None and body.action is None:
            raise WebError(_("give the action's index or its fields"))
        index = body.index
        if index is None and body.action is not None:
            index = s.find_index(body.action.model_dump())
        lines = s.apply(int(index or 0), body.dice, body.version)
        return apply_view(s, lines)


@router.post("/api/undo", response_model=BattleView, responses=ERRORS, tags=["battle"])
def undo(request: Request, body: VersionRequest | None = None) -> BattleView:
    """Take back the last change."""
    s = need(request)
    with s.lock:
        s.undo(body.version if body else None)
        return battle_view(s)


@router.post("/api/edit", response_model=BattleView, responses=ERRORS, tags=["battle"])
def edit(body: EditRequest, request: Request) -> BattleView:
    """Mirror the table: ``set ID RES N``, ``status``, ``move``, ``cond``, ``initiative``."""
    s = need(request)
    with s.lock:
        s.edit(body.command, body.version)
        return battle_view(s)


@router.get("/api/state", responses=ERRORS, tags=["state file"], response_class=Response)
def save_state(request: Request) -> Response:
    """Download the battle as a state file (JSON, docs/gm.md)."""
    s = need(request)
    with s.lock:
        name, data = s.state_document()
    return Response(
        data, media_type="application/json", headers={"Content-Disposition": attachment(name)}
    )


@router.post("/api/state", response_model=BattleView, responses=SESSION_ERRORS, tags=["state file"])
async def load_state(
    request: Request, response: Response, file: Annotated[UploadFile, File()]
) -> BattleView:
    """Continue from an uploaded state file (at most 1 MiB: what the page saves)."""
    data = await file.read(MAX_STATE_UPLOAD_BYTES + 1)
    s, created = obtain(request)
    cookie(response, s, created)

    def work() -> BattleView:
        with s.lock:
            s.load_state(file.filename or "state.json", data)
            return battle_view(s)

    return await run_in_threadpool(work)


@router.post(
    "/api/playtest",
    response_model=PlaytestView,
    status_code=202,
    responses=ERRORS,
    tags=["playtest"],
)
def start_playtest(body: PlaytestRequest, request: Request) -> PlaytestView:
    """Play N battles of this session's scenario in the background."""
    s = need(request)
    with s.lock:
        return playtest_view(s.start_playtest(body.n, body.seed, body.heroes, body.enemies))


@router.get("/api/playtest", response_model=PlaytestView, responses=ERRORS, tags=["playtest"])
def get_playtest(request: Request) -> PlaytestView:
    """The playtest's progress, then its numbers (summary.json) and plot URLs."""
    return playtest_view(need(request).playtest)


@router.delete("/api/playtest", response_model=PlaytestView, responses=ERRORS, tags=["playtest"])
def cancel_playtest(request: Request) -> PlaytestView:
    """Stop the running playtest."""
    s = need(request)
    s.cancel_playtest()
    return playtest_view(s.playtest)


@router.get(
    "/api/playtest/plots/{name}.png",
    responses=ERRORS,
    tags=["playtest"],
    response_class=Response,
)
def plot(name: str, request: Request) -> Response:
    """A plot of the finished playtest: outcomes, rounds or survival."""
    job = need(request).playtest
    if job is None or name not in job.plots:
        # The name is the request's path: cut, as every echoed value is.
        raise NotFoundError(_f("no plot {name}: run a playtest first", short(name)))
    return Response(job.plots[name], media_type="image/png", headers={"Cache-Control": "no-store"})


@router.get("/api/battlefield.svg", responses=ERRORS, tags=["battle"], response_class=Response)
def battlefield_svg(request: Request) -> Response:
    """The battlefield picture: zones, links and tokens (SVG)."""
    s = need(request)
    with s.lock:
        view = battle_view(s)
    env = request.app.state.templates_env
    text = env.get_template("battlefield.svg").render(battle=view, standalone=True)
    return Response(text, media_type="image/svg+xml")


@router.get("/api/autopilot", response_model=AutopilotView, responses=ERRORS, tags=["autopilot"])
def get_autopilot(request: Request) -> AutopilotView:
    """The enemies' autopilot: on or off, its agent and budget, and — while a request is
    playing the enemies' decisions — how far it got (read without waiting for it)."""
    return autopilot_view(need(request))


@router.post(
    "/api/autopilot", response_model=ApplyView, responses=SEARCH_ERRORS, tags=["autopilot"]
)
def set_autopilot(body: AutopilotRequest, request: Request) -> ApplyView:
    """Turn the enemies' autopilot on or off. On, it plays every enemy decision — turns,
    reactions, the ruleset's choices — at once if an enemy decides now, and after every
    applied action, until a heroes' decision; each with its reason and win chance.

    One request plays at most 40 decisions or 15 s (then it pauses, saying so: send it
    again to go on), each decision searching at most the server's 5 s cap."""
    s = need(request)
    with s.lock:
        lines = s.autopilot(body.enabled, body.agent, body.budget_ms, body.iterations, body.version)
        return apply_view(s, lines)
