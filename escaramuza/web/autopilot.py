"""The enemies' autopilot on the web page: which agents the page offers, its caps, and what
the page and the API show of it.

The autopilot is the GM session's (:mod:`escaramuza.gm.auto`): the page turns it on and
off, and every change that hands the battle to the enemies (an apply, the toggle itself)
lets it play until the heroes decide. Its setting lives in the server's session, beside
the battle it plays: a reload of the page, another tab or an API client see the same
toggle, and a downloaded state file carries it (``meta.autopilot``).

Caps: each decision searches at most the page's search cap (:data:`SUGGEST_CAP_MS`), and
one request plays at most :data:`MAX_AUTO_DECISIONS` decisions or
:data:`AUTO_CAP_S` seconds (then one decision more at most), pausing with a message and
a Continue button: no request a client sends holds a worker thread for long.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from escaramuza.gm.auto import StretchLimit
from escaramuza.gm.autopilot import DEFAULT_AGENT, AutoDecision, Pilot, make_pilot
from escaramuza.rules.core.i18n import _, _f, word
from escaramuza.rules.core.state import BattleState
from escaramuza.web.limits import (
    PLAYTEST_AGENTS,
    SUGGEST_CAP_MS,
    check_agent,
    check_search,
)

if TYPE_CHECKING:
    from escaramuza.web.sessions import WebSession

#: Agents the page's autopilot offers: the planner and the scripted temperaments.
#: ``policy:PATH`` would name a server file; ``mcts:…`` budgets come from the budget field.
AUTOPILOT_AGENTS: tuple[str, ...] = (DEFAULT_AGENT, *PLAYTEST_AGENTS)
#: Decisions the autopilot plays in one request at most, and the seconds after which it
#: starts no further decision (the one under way ends within its search cap).
MAX_AUTO_DECISIONS = 40
AUTO_CAP_S = 15.0
#: The page's stretch limit.
WEB_STRETCH = StretchLimit(MAX_AUTO_DECISIONS, AUTO_CAP_S)


def web_pilot(agent: str, budget_ms: float | None, iterations: int | None) -> Pilot:
    """A pilot the page may run: an offered agent, a budget within the page's bounds, an
    iteration budget cut at the page's search cap."""
    check_agent(agent, AUTOPILOT_AGENTS)
    check_search(budget_ms, iterations)
    return make_pilot(agent, budget_ms, iterations, cap_ms=SUGGEST_CAP_MS)


@dataclass
class AutoProgress:
    """What the autopilot is doing during a request (read without the session's lock by
    ``GET /api/autopilot``): when the stretch began, decisions played, who decides."""

    started: float = 0.0
    done: int = 0
    deciding: str | None = None
    running: bool = False

    def update(self, state: BattleState, done: int) -> None:
        if not self.running:
            self.started, self.running = time.monotonic(), True
        self.done = done
        pending = state.pending
        self.deciding = state.by_id[pending.actor].name if pending is not None else None


# -- views ---------------------------------------------------------------------------


class AutoDecisionView(BaseModel):
    """One decision the autopilot took."""

    actor: str
    actor_name: str
    decision: str = Field(description="the decision's name (turn, a reaction, a choice)")
    action: str = Field(description="the action as `escaramuza gm`'s apply reads it")
    text: str = Field(description="the action in words")
    reason: str
    win: float | None = Field(description="the enemies' win chance after it (None: not searched)")
    win_interval: list[float] | None = Field(description="its 95% Wilson interval")
    rollouts: int
    capped: bool = Field(
        description="the server's time cap stopped its search before the iteration "
        "budget's rollouts (the line says so)"
    )
    line: str = Field(description="the line the log shows: who chose, win chance, reason")


class AutopilotView(BaseModel):
    """The autopilot's setting, and what it did in the last change."""

    enabled: bool
    agent: str | None
    budget_ms: float | None
    iterations: int | None
    agents: list[str] = Field(description="the agents the page offers")
    heroes_turn: bool = Field(description="a heroes' decision is pending: the autopilot waits")
    stopped: str | None = Field(
        description="why the last stretch stopped: heroes, over, decisions, time, aborted, "
        "interrupted (None: it did not play)"
    )
    stopped_text: str | None
    running: bool = Field(description="a stretch is being played now (GET /api/autopilot)")
    done: int = Field(description="decisions played so far in the stretch under way")
    deciding: str | None = Field(description="who decides in the stretch under way")
    seconds: float


def decision_view(state_before: BattleState, decision: AutoDecision) -> AutoDecisionView:
    row = decision.row
    actor = decision.action.actor
    return AutoDecisionView(
        actor=actor,
        actor_name=state_before.by_id[actor].name if actor in state_before.by_id else actor,
        decision=decision.ranking.decision,
        action=str(decision.action),
        text=row.text,
        reason=row.reason,
        win=round(row.win, 4) if row.visits else None,
        win_interval=[round(row.win_low, 4), round(row.win_high, 4)] if row.visits else None,
        rollouts=row.visits,
        capped=decision.capped,
        line=decision.why(),
    )


def stopped_text(why: str | None) -> str | None:
    """Why the autopilot stopped, in words, where the page says so (a pause)."""
    return {
        "decisions": _f(
            "The autopilot paused after {n} decisions, the most it plays at once: press Continue.",
            MAX_AUTO_DECISIONS,
        ),
        "time": _f(
            "The autopilot paused after {s} s, the most it plays at once: press Continue.",
            format(AUTO_CAP_S, "g"),
        ),
        "aborted": _("The autopilot's decision could not be applied (see above)."),
    }.get(why or "")


def autopilot_view(session: WebSession) -> AutopilotView:
    gm = session.require()
    pilot = gm.pilot
    st = gm.state
    progress = session.auto_progress
    heroes = st.outcome is None and st.pending is not None and st.pending.side.value == "heroes"
    return AutopilotView(
        enabled=pilot is not None,
        agent=pilot.agent if pilot is not None else None,
        budget_ms=pilot.budget_ms if pilot is not None else None,
        iterations=pilot.iterations if pilot is not None else None,
        agents=list(AUTOPILOT_AGENTS),
        heroes_turn=heroes,
        stopped=gm.auto_stopped,
        stopped_text=stopped_text(gm.auto_stopped),
        running=progress.running,
        done=progress.done,
        deciding=progress.deciding if progress.running else None,
        seconds=round(time.monotonic() - progress.started, 1) if progress.running else 0.0,
    )


def whose_turn(state: BattleState) -> str | None:
    """The page's line on who decides now (None when the battle is over)."""
    if state.outcome is not None or state.pending is None:
        return None
    c = state.by_id[state.pending.actor]
    text = (
        _("Heroes' decision: {name} ({decision})")
        if c.side.value == "heroes"
        else _("Enemies' decision: {name} ({decision})")
    )
    return text.format(name=c.name, decision=word(state.pending.name))
