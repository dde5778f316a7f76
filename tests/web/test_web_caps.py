"""Every search and playtest from the page is bounded, and a failing search is an answer.

A suggestion runs at most the server's time cap (5 s): a time budget and its maximum are
at most that (a larger one is a 422 or, from the page's form, a 400 with the reason), and
an iteration budget stops there and says so. A playtest is at most 5000 battles and stops
at its time cap, reporting the battles it played. The clocks here are fakes that jump
ahead on every reading: nothing sleeps, and no assertion is about how long anything took.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest

import escaramuza.agents.search.mcts as search_module
import escaramuza.agents.search.rollouts as rollouts_module
from escaramuza.agents.fast import use_kernel
from escaramuza.playtest import PlaytestConfig, playtest
from escaramuza.web import sessions as ws
from escaramuza.web.limits import (
    MAX_BUDGET_MS,
    MAX_ITERATIONS,
    MAX_PLAYTEST_BATTLES,
    PLAYTEST_CAP_S,
    SUGGEST_CAP_MS,
)
from escaramuza.web.store import SessionStore
from escaramuza.web.views import playtest_view
from tests.web.web_helpers import client

EMBOSCADA = "destiny_dice/emboscada"
DUEL = "destiny_dice/brann-vs-saqueador"


class LeapingClock:
    """``time.perf_counter`` for the planner: every reading is ``step`` seconds on."""

    def __init__(self, step: float = 10.0) -> None:
        self.now = 0.0
        self.step = step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


def started(scenario: str = EMBOSCADA) -> Any:
    c = client()
    assert c.post("/api/battle", json={"scenario": scenario, "seed": 3}).status_code == 200
    return c


@pytest.mark.compile
def test_an_iteration_budget_the_time_cap_cuts_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    c = started()
    # The planner reads the clock in both modules (the search's deadlines, the chunks).
    clock = LeapingClock()
    monkeypatch.setattr(search_module, "time", clock)
    monkeypatch.setattr(rollouts_module, "time", clock)
    r = c.post("/api/suggest", json={"iterations": MAX_ITERATIONS})
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["capped"] is True
    assert doc["time_cap_ms"] == SUGGEST_CAP_MS
    search = doc["search"]
    assert 1 <= search["iterations"] < MAX_ITERATIONS
    # What was asked, as `escaramuza suggest --iterations N --json` writes it.
    assert search["budget_iterations"] == MAX_ITERATIONS
    assert search["budget_ms"] is None and search["max_ms"] is None
    assert doc["stopped_text"] == (
        f"stopped early: time cap ({SUGGEST_CAP_MS:g} ms on this server) after "
        f"{search['iterations']} of {MAX_ITERATIONS} rollouts"
    )
    page = c.get("/")  # the page's table caption says it too
    assert "stopped early: time cap" in page.text


@pytest.mark.compile
def test_an_iteration_budget_within_the_cap_is_not_marked_capped() -> None:
    c = started()
    doc = c.post("/api/suggest", json={"iterations": 40}).json()
    assert doc["capped"] is False
    assert doc["search"]["iterations"] == 40
    assert "time cap" not in doc["stopped_text"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"budget_ms": MAX_BUDGET_MS + 1}, "budget_ms"),
        ({"budget_ms": 600, "max_ms": MAX_BUDGET_MS + 1}, "max_ms"),
        ({"iterations": MAX_ITERATIONS + 1}, "iterations"),
    ],
)
def test_an_over_cap_search_is_refused_with_the_reason(body: dict[str, Any], field: str) -> None:
    r = started().post("/api/suggest", json=body)
    assert r.status_code == 422
    assert r.json()["detail"].startswith(f"{field}: ")


@pytest.mark.parametrize(
    ("form", "reason"),
    [
        ({"budget_ms": str(MAX_BUDGET_MS + 1)}, f"budget_ms must be 50–{MAX_BUDGET_MS:g}"),
        ({"budget_ms": "600", "max_ms": str(MAX_BUDGET_MS + 1)}, "max_ms must be in"),
    ],
)
def test_an_over_cap_search_from_the_page_is_refused_with_the_reason(
    form: dict[str, str], reason: str
) -> None:
    page = started().post("/ui/suggest", data=form)
    assert page.status_code == 400
    assert reason in page.text


def test_an_over_cap_playtest_is_refused_with_the_reason() -> None:
    c = started(DUEL)
    r = c.post("/api/playtest", json={"n": MAX_PLAYTEST_BATTLES + 1})
    assert r.status_code == 422 and r.json()["detail"].startswith("n: ")
    page = c.post("/ui/playtest", data={"n": str(MAX_PLAYTEST_BATTLES + 1)})
    assert page.status_code == 400
    assert f"n must be 1–{MAX_PLAYTEST_BATTLES} battles" in page.text
    assert c.get("/api/playtest").json()["status"] == "idle"  # nothing was started


@pytest.mark.compile
def test_a_playtest_stops_at_its_time_cap_with_the_numbers_of_the_battles_played() -> None:
    readings = itertools.count(0.0, 1000.0)  # every reading of the clock 1000 s on
    store = SessionStore(clock=lambda: next(readings))
    session = store.create()
    session.start_shipped(DUEL, 3)
    job = session.start_playtest(50, 4, "heuristic", "heuristic")
    job.thread.join(timeout=300)  # a bound on a hung thread, not a measurement
    assert job.status == "done", job.error
    assert job.stopped == "time_cap"
    assert 1 <= job.done < 50
    view = playtest_view(job)
    assert view.stopped == "time_cap" and view.done == job.done and view.total == 50
    assert view.time_cap_s == PLAYTEST_CAP_S
    assert view.stopped_text is not None
    assert view.stopped_text.startswith(
        f"stopped early: time cap ({PLAYTEST_CAP_S:g} s on this server), "
        f"{job.done} of 50 battles played"
    )
    # The numbers are those of `escaramuza playtest -n DONE` with the same seed and agents.
    expected = playtest([DUEL], PlaytestConfig(n=job.done, seed=4)).document()["scenarios"][0]
    assert view.summary == json.loads(json.dumps(expected))
    assert view.text is not None and "heroes win" in view.text


@pytest.mark.compile
def test_a_search_that_raises_is_a_500_with_a_message_and_the_server_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("kernel state /home/x corrupted")

    c = client(raise_server_exceptions=False)
    c.post("/api/battle", json={"scenario": EMBOSCADA, "seed": 3})
    before = c.get("/api/battle").json()
    monkeypatch.setattr(ws, "suggest", broken)
    r = c.post("/api/suggest", json={"iterations": 20})
    assert r.status_code == 500
    detail = r.json()["detail"]
    assert "the search failed" in detail and "the battle is unchanged" in detail
    assert "/home/x" not in r.text and "Traceback" not in r.text
    page = c.post("/ui/suggest", data={"budget_ms": "100"})  # the page: in its error box
    assert page.status_code == 500 and "the search failed" in page.text
    assert "/home/x" not in page.text
    # The battle is as it was and the server goes on: a search, then an action.
    assert c.get("/api/battle").json() == before
    monkeypatch.undo()
    assert c.post("/api/suggest", json={"iterations": 20}).status_code == 200
    assert c.post("/api/apply", json={"index": 1}).status_code == 200


@pytest.mark.parametrize("step", [10.0, 0.02])
def test_an_autopilot_decision_the_time_cap_cuts_says_so(
    monkeypatch: pytest.MonkeyPatch, step: float
) -> None:
    c = started(DUEL)
    clock = LeapingClock(step)  # past the cap at once, or after a few hundred rollouts
    monkeypatch.setattr(search_module, "time", clock)
    monkeypatch.setattr(rollouts_module, "time", clock)
    with use_kernel("destiny_dice", None):
        r = c.post("/api/autopilot", json={"enabled": True, "iterations": MAX_ITERATIONS})
        assert r.status_code == 200, r.text
        battle = r.json()["battle"]
        end_turn = next(a["index"] for a in battle["actions"] if a["action"]["verb"] == "fin_turno")
        doc = c.post("/api/apply", json={"index": end_turn}).json()
    decisions = [d for d in doc["autopilot"] if d["rollouts"]]
    assert decisions
    for d in decisions:
        assert d["capped"] is True and 1 <= d["rollouts"] < MAX_ITERATIONS
        # The chosen row's own rollouts, then where the cap cut the whole search.
        said = re.search(
            rf"{d['rollouts']} rollouts; .* \(stopped early: time cap "
            rf"\({SUGGEST_CAP_MS:g} ms on this server\) after (\d+) of {MAX_ITERATIONS} "
            r"rollouts\)$",
            d["line"],
        )
        assert said is not None, d["line"]
        assert d["rollouts"] <= int(said.group(1)) < MAX_ITERATIONS
        assert d["line"] in "\n".join(doc["lines"])
