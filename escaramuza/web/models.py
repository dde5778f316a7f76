"""The JSON API's request bodies and its error answers, as FastAPI documents them in the
OpenAPI schema (``/openapi.json``)."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import Form
from pydantic import BaseModel, BeforeValidator, Field, StrictBool

from escaramuza.gm import DEFAULT_SEED
from escaramuza.rules.core.errors import clip
from escaramuza.rules.core.i18n import _f
from escaramuza.rules.core.parsers import escaped
from escaramuza.rules.core.seeds import MAX_SEED
from escaramuza.web import limits
from escaramuza.web.views import ActionModel


def _number(value: object) -> object:
    # JSON's false/true and "12" are not numbers: pydantic's lax mode would read them as
    # 0, 1 and 12 (`"seed": false` would start a battle with seed 0).
    # 12.0 stays a valid integer, as it is for the JSON Schema `integer` of /openapi.json.
    # The value as the JSON body wrote it (false, "12"), cut so that the answer stays short.
    if isinstance(value, bool | str):
        raise ValueError(
            _f(
                "expected a number, not {value}",
                clip(escaped(json.dumps(value, ensure_ascii=False)), 40),
            )
        )
    return value


#: Integers and numbers of the JSON bodies: a JSON number only.
JsonInt = Annotated[int, BeforeValidator(_number)]
JsonFloat = Annotated[float, BeforeValidator(_number)]
#: A seed, in a JSON body or a form: the range every command's --seed and a state file's
#: meta.seed accept (escaramuza.rules.core.seeds), so a battle's state file loads back.
JsonSeed = Annotated[JsonInt, Field(ge=0, le=MAX_SEED)]
SeedForm = Annotated[int, Form(ge=0, le=MAX_SEED)]


class NewBattle(BaseModel):
    scenario: str = Field(description="a shipped scenario name (GET /api/scenarios)")
    seed: JsonSeed = Field(DEFAULT_SEED, description="seed of the tool's dice")


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
        ge=limits.MIN_BUDGET_MS,
        le=limits.MAX_BUDGET_MS,
        description=f"search time in ms (default {limits.WEB_BUDGET_MS:g})",
    )
    iterations: JsonInt | None = Field(
        None,
        ge=1,
        le=limits.MAX_ITERATIONS,
        description="or a number of rollouts (reproducible; stopped at the server's "
        f"{limits.SUGGEST_CAP_MS:g} ms time cap, which the answer reports)",
    )
    max_ms: JsonFloat | None = Field(
        None,
        ge=limits.MIN_BUDGET_MS,
        le=limits.MAX_BUDGET_MS,
        description=f"go on up to this while too close to call (default {limits.WEB_MAX_MS:g}; "
        "time budgets only)",
    )


class PlaytestRequest(BaseModel):
    n: JsonInt = Field(
        200,
        ge=1,
        le=limits.MAX_PLAYTEST_BATTLES,
        description=f"battles (stopped at the server's {limits.PLAYTEST_CAP_S:g} s "
        "time cap, which the answer reports)",
    )
    seed: JsonSeed = 1
    heroes: str = "heuristic"
    enemies: str = "heuristic"


class ErrorView(BaseModel):
    """Every error answer of the API: one human-readable message (file, field, reason)."""

    detail: str


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorView} for code in codes}


#: The error answers of the API's operations. 422 is declared with the project's
#: ``{"detail": "…"}`` model: FastAPI would otherwise document its own list of
#: validation errors, which this API does not send. 411 and 413 come from
#: :class:`BodyLimit`.
ERRORS = errors(400, 404, 409, 411, 413, 422, 429)
#: Operations that may create a session also answer 429 when this client started too
#: many sessions lately (with ``Retry-After``) and 503 when every slot holds a battle in
#: play (:class:`escaramuza.web.sessions.SessionStore`).
SESSION_ERRORS = errors(400, 404, 409, 411, 413, 422, 429, 503)
#: A search may also fail with a 500 that says so
#: (:class:`escaramuza.web.sessions.SearchFailedError`).
SEARCH_ERRORS = errors(400, 404, 409, 411, 413, 422, 429, 500)


class AutopilotRequest(BaseModel):
    enabled: StrictBool = Field(description="turn the enemies' autopilot on or off")
    agent: str | None = Field(
        None,
        max_length=50,
        description="who plays the enemies: mcts (the planner) or a scripted temperament "
        "(AutopilotView.agents); default: the current one, else mcts",
    )
    budget_ms: JsonFloat | None = Field(
        None,
        ge=limits.MIN_BUDGET_MS,
        le=limits.MAX_BUDGET_MS,
        description="the most one decision searches, in ms (default: the page's search budget)",
    )
    iterations: JsonInt | None = Field(
        None,
        ge=1,
        le=limits.MAX_ITERATIONS,
        description="or rollouts a decision (reproducible; each search stopped at the "
        f"server's {limits.SUGGEST_CAP_MS:g} ms cap)",
    )
    version: JsonInt | None = Field(None, description="BattleView.version the client saw")
