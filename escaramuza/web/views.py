"""What the page and the JSON API show: pydantic models built from a session.

The same models are the API's response models (FastAPI documents them in the
OpenAPI schema at ``/openapi.json`` and ``/docs``) and the data the page's
templates draw, so the page shows exactly what a tool reading the API gets.

The battlefield picture: zone positions come from ``networkx.spring_layout``
with a fixed seed (the same layout as ``envs/render.py``), computed once per
battlefield and cached; zones are boxes sized to hold their tokens.
"""

from __future__ import annotations

import math
import re
import threading
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, Field

from escaramuza.agents.suggest import Suggestions
from escaramuza.rules.core.battlefield import Battlefield
from escaramuza.rules.core.state import BattleState
from escaramuza.web.autopilot import (
    AutoDecisionView,
    AutopilotView,
    autopilot_view,
    decision_view,
    whose_turn,
)
from escaramuza.web.limits import PLAYTEST_CAP_S, SUGGEST_CAP_MS
from escaramuza.web.playtests import PlaytestJob
from escaramuza.web.sessions import WebSession

#: Drawing area of the battlefield SVG (viewBox units).
WIDTH, HEIGHT = 900.0, 560.0
#: Token radius and pitch inside a zone box; tokens per row.
TOKEN_R, TOKEN_PITCH, TOKENS_PER_ROW = 13.0, 32.0, 4
#: Width of one letter of a zone's name on the map (16 px sans-serif), for the box.
LABEL_CHAR = 9.0
#: Layouts kept (one per battlefield seen).
_LAYOUT_CACHE_SIZE = 64


# -- response models -------------------------------------------------------------


class ScenarioInfo(BaseModel):
    name: str = Field(description="shipped name ruleset/stem, or the uploaded file's name")
    title: str
    ruleset: str
    heroes: int
    enemies: int


class ActionModel(BaseModel):
    """An engine action (the fields of ``escaramuza.rules.core.model.Action``)."""

    verb: str
    actor: str
    target: str | None = None
    zone: str | None = None
    item: str | None = None
    option: str | None = None


class ActionView(BaseModel):
    index: int = Field(description="1-based number of the legal action (POST /api/apply)")
    text: str
    action: ActionModel


class ResourceView(BaseModel):
    key: str
    value: int
    maximum: int | None


class TokenView(BaseModel):
    x: float
    y: float
    label: str


class CombatantView(BaseModel):
    id: str
    name: str
    side: str
    zone: str
    status: str
    active: bool
    pending: bool = Field(description="this combatant's decision is the pending one")
    temperament: str
    resources: list[ResourceView]
    conditions: list[str]
    health: float | None = Field(description="first resource over its maximum, 0–1")
    token: TokenView


class ZoneView(BaseModel):
    id: str
    name: str
    cover: int
    exit: bool
    difficult: bool
    x: float
    y: float
    width: float
    height: float


class LinkView(BaseModel):
    a: str
    b: str
    x1: float
    y1: float
    x2: float
    y2: float


class DecisionView(BaseModel):
    actor: str
    actor_name: str
    side: str
    name: str
    prompt: str


class OutcomeView(BaseModel):
    winner: str | None
    reason: str
    rounds: int


class BattleView(BaseModel):
    """The whole battle as the page shows it."""

    scenario: ScenarioInfo
    version: int = Field(description="bumped on every change; send it back to detect stale pages")
    round: int
    round_limit: int
    seed: int
    steps: int
    pending: DecisionView | None
    outcome: OutcomeView | None
    combatants: list[CombatantView]
    actions: list[ActionView]
    zones: list[ZoneView]
    links: list[LinkView]
    can_undo: bool
    last: list[str] = Field(description="lines printed by the last change")
    log: list[str] = Field(description="the last events of the battle")
    turn: str | None = Field(description="whose decision it is, in words (None: over)")
    autopilot: AutopilotView


class GapView(BaseModel):
    n: int = Field(description="rollouts the two actions share (same dice)")
    mean: float = Field(description="the best's win chance minus the other's")
    interval: list[float] = Field(description="mean ± z × standard error")


class SuggestionView(BaseModel):
    rank: int
    index: int = Field(description="the action's number among the legal actions")
    action: ActionModel
    text: str
    visits: int
    win_probability: float | None = Field(description="None: the action was never searched")
    win_interval: list[float]
    value: float | None
    p_hit: float | None
    expected_damage: float | None
    p_drop: float | None
    risk: float | None = Field(description="None: the action was never searched")
    reason: str
    in_character: bool
    win_estimate: float | None = Field(description="win chance paired over the best's dice")
    tied_with_best: bool = Field(description="too close to call: in the tie group")
    gap_to_best: GapView | None
    twins: list[ActionModel] = Field(description="the actions this row stands for by symmetry")


class SearchView(BaseModel):
    iterations: int
    elapsed_ms: float
    budget_ms: float | None
    budget_iterations: int | None
    max_ms: float | None
    max_iterations: int | None
    stopped: str = Field(
        description="clear, identical, budget, max_time, max_iterations, single_action or symmetric"
    )
    seed: int | None
    z: float
    min_shared: int
    engine: str = Field(description="who played the rollouts: fast (the kernel) or reference")
    engine_refusal: str | None = Field(description="why the kernel did not play them")


class SuggestionsView(BaseModel):
    """``escaramuza suggest --json`` (docs/gm.md) plus each action's number."""

    format: str
    version: int
    scenario: str
    ruleset: str
    round: int
    actor: str
    side: str
    decision: str
    temperament: str
    in_character: ActionModel
    search: SearchView
    verdict: str = Field(description="clear or too_close")
    best: ActionModel | None
    runner_up: ActionModel | None
    gap: GapView | None
    odds_available: bool
    suggestions: list[SuggestionView]
    verdict_text: str = Field(
        description="the verdict in words, as `escaramuza suggest` prints it (the tie group's line)"
    )
    stopped_text: str = Field(description="why the search stopped, in words")
    time_cap_ms: float = Field(
        description="the server's wall-clock cap of one search: a "
        "time budget and its maximum are at most this"
    )
    capped: bool = Field(
        description="an iteration budget stopped early at the time cap: "
        "the ranking is of fewer rollouts than asked"
    )


class ApplyView(BaseModel):
    lines: list[str] = Field(description="what happened: the action and every die")
    autopilot: list[AutoDecisionView] = Field(
        default=[], description="the decisions the autopilot took after it, in order"
    )
    battle: BattleView


def apply_view(session: WebSession, lines: list[str]) -> ApplyView:
    """The answer to a change: its lines, the autopilot's decisions after it, the battle."""
    gm = session.require()
    return ApplyView(
        lines=lines,
        autopilot=[decision_view(gm.state, d) for d in gm.last_stretch],
        battle=battle_view(session),
    )


class PlaytestView(BaseModel):
    status: str = Field(description="idle, running, done, failed or cancelled")
    done: int
    total: int
    seconds: float
    scenario: str | None
    heroes: str | None
    enemies: str | None
    seed: int | None
    error: str | None
    stopped: str | None = Field(
        description="time_cap when the playtest stopped at the "
        "server's time cap before its N battles, else null"
    )
    stopped_text: str | None = Field(description="why it stopped early, in words")
    time_cap_s: float = Field(description="the server's wall-clock cap of one playtest")
    text: str | None = Field(description="the report's numbers, as escaramuza playtest prints")
    summary: dict[str, Any] | None = Field(description="summary.json (docs/playtest.md)")
    plots: list[str] = Field(description="URLs of the PNG plots")


class SessionView(BaseModel):
    session: str
    battle: bool


# -- the battlefield layout -------------------------------------------------------

_layouts: dict[tuple[Any, ...], dict[str, tuple[float, float]]] = {}
_layouts_lock = threading.Lock()


def _layout_key(bf: Battlefield) -> tuple[Any, ...]:
    edges = tuple(sorted(tuple(sorted((str(a), str(b)))) for a, b in bf.graph.edges))
    return (bf.zone_ids, edges)


def zone_positions(bf: Battlefield) -> dict[str, tuple[float, float]]:
    """Each zone's centre in [0, 1]², from a seeded spring layout, cached per map."""
    key = _layout_key(bf)
    with _layouts_lock:
        cached = _layouts.get(key)
    if cached is not None:
        return cached
    import networkx as nx

    raw = nx.spring_layout(bf.graph, seed=0) if len(bf.zone_ids) > 1 else {}
    pos: dict[str, tuple[float, float]] = {}
    xs = [float(raw[z][0]) for z in raw] or [0.0]
    ys = [float(raw[z][1]) for z in raw] or [0.0]
    for zid in bf.zone_ids:
        x, y = (float(raw[zid][0]), float(raw[zid][1])) if zid in raw else (0.0, 0.0)
        pos[zid] = (_unit(x, min(xs), max(xs)), _unit(y, min(ys), max(ys)))
    with _layouts_lock:
        if len(_layouts) >= _LAYOUT_CACHE_SIZE:
            _layouts.pop(next(iter(_layouts)))
        _layouts[key] = pos
    return pos


def _unit(v: float, lo: float, hi: float) -> float:
    return 0.5 if hi - lo < 1e-9 else (v - lo) / (hi - lo)


def token_label(name: str) -> str:
    """Two or three letters for a token: initial plus any number ("Lancero 2" → "L2")."""
    digits = "".join(re.findall(r"\d", name))[:2]
    letters = [w[0] for w in re.findall(r"[^\W\d_]+", name)]
    if digits:
        return (letters[0].upper() if letters else "") + digits
    if len(letters) >= 2:
        return (letters[0] + letters[1]).upper()
    word = re.sub(r"\W", "", name)
    return word[:2].capitalize() or "?"


def _spread(
    centres: list[list[float]], sizes: list[tuple[float, float]], gap: float = 16.0
) -> None:
    """Push overlapping zone boxes apart (deterministic: fixed order, fixed passes).

    The spring layout places zones as points; once each is a box big enough for its
    tokens, neighbours can overlap. Each pass moves every overlapping pair apart along
    the axis where they overlap least, then keeps the boxes inside the picture.
    """
    n = len(centres)
    for _ in range(120):
        moved = False
        for i in range(n):
            for j in range(i + 1, n):
                (xi, yi), (xj, yj) = centres[i], centres[j]
                (wi, hi), (wj, hj) = sizes[i], sizes[j]
                dx, dy = xj - xi, yj - yi
                ox = (wi + wj) / 2 + gap - abs(dx)
                oy = (hi + hj) / 2 + gap - abs(dy)
                if ox <= 0 or oy <= 0:
                    continue
                moved = True
                if ox < oy:
                    step = (ox / 2 + 0.5) * (1 if dx >= 0 else -1)
                    centres[i][0] -= step
                    centres[j][0] += step
                else:
                    step = (oy / 2 + 0.5) * (1 if dy >= 0 else -1)
                    centres[i][1] -= step
                    centres[j][1] += step
        for (w, h), c in zip(sizes, centres, strict=True):
            c[0] = min(max(c[0], w / 2 + 4), WIDTH - w / 2 - 4)
            c[1] = min(max(c[1], h / 2 + 4), HEIGHT - h / 2 - 4)
        if not moved:
            break


def _boxes(state: BattleState) -> tuple[list[ZoneView], dict[str, TokenView]]:
    bf = state.battlefield
    pos = zone_positions(bf)
    members: dict[str, list[str]] = {z: [] for z in bf.zone_ids}
    for c in state.combatants:
        members.setdefault(c.zone, []).append(c.id)
    margin_x, margin_y = 110.0, 70.0
    sizes: list[tuple[float, float]] = []
    centres: list[list[float]] = []
    for zid in bf.zone_ids:
        ids = members.get(zid, [])
        cols = max(1, min(TOKENS_PER_ROW, len(ids)))
        rows = max(1, math.ceil(len(ids) / TOKENS_PER_ROW))
        # Wide enough for the zone's name (16 px, ~9 px a letter), tall enough for the
        # name, its tags line (cover, exit) and the tokens below them.
        label = min(LABEL_CHAR * len(bf.zones[zid].name) + 24, WIDTH / 3)
        sizes.append((max(150.0, cols * TOKEN_PITCH + 24, label), rows * TOKEN_PITCH + 56))
        ux, uy = pos[zid]
        centres.append(
            [margin_x + ux * (WIDTH - 2 * margin_x), margin_y + (1 - uy) * (HEIGHT - 2 * margin_y)]
        )
    _spread(centres, sizes)
    zones: list[ZoneView] = []
    tokens: dict[str, TokenView] = {}
    for zid, (width, height), (cx, cy) in zip(bf.zone_ids, sizes, centres, strict=True):
        z = bf.zones[zid]
        zones.append(
            ZoneView(
                id=zid,
                name=z.name,
                cover=z.cover,
                exit=z.exit,
                difficult=z.difficult,
                x=round(cx, 1),
                y=round(cy, 1),
                width=width,
                height=height,
            )
        )
        ids = members.get(zid, [])
        top = cy - height / 2 + 48
        for k, cid in enumerate(ids):
            row, col = divmod(k, TOKENS_PER_ROW)
            in_row = min(TOKENS_PER_ROW, len(ids) - row * TOKENS_PER_ROW)
            x = cx + (col - (in_row - 1) / 2) * TOKEN_PITCH
            y = top + row * TOKEN_PITCH + TOKEN_R
            tokens[cid] = TokenView(
                x=round(x, 1), y=round(y, 1), label=token_label(state.by_id[cid].name)
            )
    return zones, tokens


# -- building the views ---------------------------------------------------------------


def battle_view(session: WebSession) -> BattleView:
    gm = session.require()
    st = gm.state
    sc = st.scenario
    zones, tokens = _boxes(st)
    centre = {z.id: (z.x, z.y) for z in zones}
    links = [
        LinkView(a=a, b=b, x1=centre[a][0], y1=centre[a][1], x2=centre[b][0], y2=centre[b][1])
        for a, b in sorted(tuple(sorted((str(a), str(b)))) for a, b in st.battlefield.graph.edges)
    ]
    first = next(iter(st.ruleset.resources), None)
    pending_id = st.pending.actor if st.pending is not None and st.outcome is None else None
    combatants = []
    for c in st.combatants:
        top = c.maxima.get(first) if first is not None else None
        health = None
        if first is not None and top:
            health = max(0.0, min(1.0, c.resources.get(first, 0) / top))
        combatants.append(
            CombatantView(
                id=c.id,
                name=c.name,
                side=c.side.value,
                zone=c.zone,
                status=c.status.value,
                active=c.active,
                pending=c.id == pending_id,
                temperament=c.temperament,
                resources=[
                    ResourceView(key=k, value=v, maximum=c.maxima.get(k))
                    for k, v in c.resources.items()
                ],
                conditions=[x.text() for x in c.conditions.values()],
                health=health,
                token=tokens[c.id],
            )
        )
    pending = None
    if pending_id is not None and st.pending is not None:
        who = st.by_id[pending_id]
        pending = DecisionView(
            actor=who.id,
            actor_name=who.name,
            side=who.side.value,
            name=st.pending.name,
            prompt=st.pending.prompt,
        )
    outcome = None
    if st.outcome is not None:
        o = st.outcome
        outcome = OutcomeView(
            winner=o.winner.value if o.winner else None, reason=o.reason, rounds=o.rounds
        )
    actions = [
        ActionView(index=i, text=st.ruleset.describe(st, a), action=ActionModel(**a.to_dict()))
        for i, a in enumerate(session.actions(), start=1)
    ]
    return BattleView(
        scenario=scenario_info(session),
        version=session.version,
        round=st.round,
        round_limit=sc.round_limit,
        seed=gm.seed,
        steps=gm.steps,
        pending=pending,
        outcome=outcome,
        combatants=combatants,
        actions=actions,
        zones=zones,
        links=links,
        can_undo=bool(gm.history),
        last=list(session.lines),
        log=[e.text for e in st.log[-14:] if e.text],
        turn=whose_turn(st),
        autopilot=autopilot_view(session),
    )


def scenario_info(session: WebSession) -> ScenarioInfo:
    sc = session.state.scenario
    name = session.upload.filename if session.upload is not None else sc.name
    return ScenarioInfo(
        name=name,
        title=sc.title,
        ruleset=sc.ruleset.id,
        heroes=sum(c.side.value == "heroes" for c in sc.combatants),
        enemies=sum(c.side.value == "enemies" for c in sc.combatants),
    )


def suggestions_view(session: WebSession, result: Suggestions) -> SuggestionsView:
    doc = result.to_dict()
    index = {a: i for i, a in enumerate(session.actions(), start=1)}
    for item, s in zip(doc["suggestions"], result.items, strict=True):
        item["index"] = index.get(s.action, 0)
    doc["verdict_text"] = result.verdict_text()
    doc["stopped_text"] = result.stopped_text()
    doc["time_cap_ms"] = SUGGEST_CAP_MS
    doc["capped"] = result.capped
    if result.capped:
        doc["stopped_text"] = result.capped_text(SUGGEST_CAP_MS)
    return SuggestionsView.model_validate(doc)


def playtest_view(job: PlaytestJob | None, base: str = "/api/playtest/plots") -> PlaytestView:
    if job is None:
        return PlaytestView(
            status="idle",
            done=0,
            total=0,
            seconds=0.0,
            scenario=None,
            heroes=None,
            enemies=None,
            seed=None,
            error=None,
            stopped=None,
            stopped_text=None,
            time_cap_s=PLAYTEST_CAP_S,
            text=None,
            summary=None,
            plots=[],
        )
    cfg = job.config
    return PlaytestView(
        status=job.status,
        done=job.done,
        total=cfg.n,
        seconds=round(job.seconds, 2),
        scenario=job.ref.name,
        heroes=cfg.heroes,
        enemies=cfg.enemies,
        seed=cfg.seed,
        error=job.error,
        stopped=job.stopped,
        stopped_text=job.stopped_text(),
        time_cap_s=job.cap_s,
        text=job.text,
        summary=job.summary,
        plots=[f"{base}/{name}.png" for name in job.plots],
    )


@lru_cache(maxsize=1)
def shipped() -> tuple[ScenarioInfo, ...]:
    """The shipped scenarios, read once per process."""
    return tuple(shipped_infos())


def shipped_infos() -> list[ScenarioInfo]:
    from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios

    out = []
    for name in shipped_scenarios():
        sc = load_scenario(name)
        out.append(
            ScenarioInfo(
                name=name,
                title=sc.title,
                ruleset=sc.ruleset.id,
                heroes=sum(c.side.value == "heroes" for c in sc.combatants),
                enemies=sum(c.side.value == "enemies" for c in sc.combatants),
            )
        )
    return out
