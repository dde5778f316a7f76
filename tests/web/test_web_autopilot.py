"""The enemies' autopilot on the web page and its API.

The fast tests play the Destiny Dice duel on the reference engine with tiny iteration
budgets (``use_kernel``: the fast tier calls no compiled kernel); the shipped battles,
played whole through the API on the kernels, are the slow test at the end.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from escaramuza.agents.fast import use_kernel
from escaramuza.agents.heuristic import heuristic_choice
from escaramuza.gm.auto import StretchLimit
from escaramuza.rules.core.scenario import shipped_scenarios
from escaramuza.web.autopilot import AUTOPILOT_AGENTS
from escaramuza.web.sessions import WebSession
from tests.web.web_helpers import client

DUEL = "destiny_dice/brann-vs-saqueador"
RULESETS = ("destiny_dice", "donjon", "cairn", "sistema_2d10")


@pytest.fixture
def engine_only() -> Iterator[None]:
    """The searches of these tests on the reference engine (no kernel compiled)."""
    with use_kernel(RULESETS[0], None):
        yield


def the_session(c: Any) -> WebSession:
    """The server's side of the client's session."""
    session = c.app.state.store.peek(c.cookies["escaramuza_session"])
    assert session is not None
    return session  # type: ignore[no-any-return]


def started(scenario: str = DUEL, seed: int = 3) -> Any:
    c = client()
    r = c.post("/api/battle", json={"scenario": scenario, "seed": seed})
    assert r.status_code == 200, r.text
    return c


def index_of(battle: dict[str, Any], verb: str) -> int:
    return next(a["index"] for a in battle["actions"] if a["action"]["verb"] == verb)


def on(c: Any, **body: Any) -> dict[str, Any]:
    r = c.post("/api/autopilot", json={"enabled": True, "iterations": 4, **body})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_the_toggle_waits_on_a_heroes_turn(engine_only: None) -> None:
    c = started()
    doc = on(c)
    assert doc["autopilot"] == [] and doc["battle"]["steps"] == 0
    view = doc["battle"]["autopilot"]
    assert view["enabled"] and view["agent"] == "mcts" and view["iterations"] == 4
    assert view["heroes_turn"] and view["agents"] == list(AUTOPILOT_AGENTS)
    assert doc["battle"]["turn"] == "Heroes' decision: Brann (turn)"
    assert "the autopilot waits" in " ".join(doc["lines"])
    assert c.get("/api/autopilot").json()["enabled"] is True


def test_an_apply_lets_the_enemies_play_until_the_heroes_decide(engine_only: None) -> None:
    c = started()
    battle = on(c)["battle"]
    r = c.post(
        "/api/apply", json={"index": index_of(battle, "fin_turno"), "version": battle["version"]}
    )
    assert r.status_code == 200, r.text
    doc = r.json()
    decisions = doc["autopilot"]
    assert decisions and all(d["actor"] == "saqueador" for d in decisions)
    for d in decisions:
        assert d["reason"] and d["line"].startswith("autopilot (mcts): ")
        if d["win"] is not None:
            low, high = d["win_interval"]
            assert low <= d["win"] <= high and d["rollouts"] >= 1
        assert d["line"] in "\n".join(doc["lines"])
    after = doc["battle"]
    assert after["outcome"] is not None or after["pending"]["side"] == "heroes"
    assert after["autopilot"]["stopped"] in ("heroes", "over")
    # The log shows each of them with its reason.
    log = "\n".join(after["log"])
    assert all(d["reason"] in log for d in decisions)


def test_undo_takes_the_stretch_back_exactly(engine_only: None) -> None:
    c = started()
    battle = on(c)["battle"]
    before = c.get("/api/state").content
    c.post("/api/apply", json={"index": index_of(battle, "fin_turno")})
    assert c.get("/api/state").content != before
    r = c.post("/api/undo", json={})
    assert r.status_code == 200
    assert re.match(r"undone: apply \[brann: fin_turno\], and the autopilot's", r.json()["last"][0])
    assert c.get("/api/state").content == before


def test_the_toggle_and_the_search_state_survive_a_reload(engine_only: None) -> None:
    c = started()
    c.post("/ui/suggest", data={"budget_ms": "300", "max_ms": "700"})
    version = int(re.search(r'name="version" value="(\d+)"', c.get("/").text).group(1))  # type: ignore[union-attr]
    r = c.post(
        "/ui/auto",
        data={
            "version": str(version),
            "enabled": "on",
            "agent": "heuristic:brute",
            "budget_ms": "250",
        },
    )
    assert r.status_code == 200
    page = c.get("/").text  # a reload: everything drawn from the server's session
    assert re.search(r'id="auto-toggle"[^>]* checked', page)
    assert re.search(r"<option selected>heuristic:brute</option>", page)
    assert 'name="budget_ms" value="250"' in page
    assert 'name="budget_ms" value="300"' in page and 'name="max_ms" value="700"' in page
    assert "Heroes&#39; decision: Brann (turn) — the autopilot waits for the heroes" in page
    assert "suggestions" in page  # the last search's table, still current
    # Off, from the page too: the checkbox is not sent.
    version = int(re.search(r'name="version" value="(\d+)"', page).group(1))  # type: ignore[union-attr]
    c.post("/ui/auto", data={"version": str(version), "agent": "mcts"})
    assert not re.search(r'id="auto-toggle"[^>]* checked', c.get("/").text)


def test_a_stretch_pauses_at_its_cap_and_continue_goes_on(engine_only: None) -> None:
    c = started("destiny_dice/emboscada", seed=1)
    session = the_session(c)
    battle = c.get("/api/battle").json()
    while battle["pending"]["side"] == "heroes":  # to the first enemy's decision
        battle = c.post("/api/apply", json={"index": 1}).json()["battle"]
    session.require().stretch_limit = StretchLimit(decisions=1, seconds=60.0)
    doc = on(c)
    assert len(doc["autopilot"]) == 1
    view = doc["battle"]["autopilot"]
    if view["stopped"] == "decisions":  # the next decision was an enemy's too
        assert "paused" in view["stopped_text"]
        assert 'id="auto-continue"' in c.get("/").text
        assert len(on(c)["autopilot"]) == 1  # Continue: one more


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"enabled": True, "agent": "policy:/etc/passwd"}, 400, "unknown agent"),
        ({"enabled": True, "agent": "mcts:1it"}, 400, "unknown agent"),
        ({"enabled": True, "budget_ms": 0}, 422, "budget_ms"),
        ({"enabled": True, "iterations": 99999}, 422, "iterations"),
        ({"enabled": "yes"}, 422, "enabled"),
    ],
)
def test_bad_autopilot_requests_say_why(
    body: dict[str, Any], status: int, message: str, engine_only: None
) -> None:
    c = started()
    r = c.post("/api/autopilot", json=body)
    assert r.status_code == status and message in r.json()["detail"]
    assert c.get("/api/autopilot").json()["enabled"] is False


def test_a_state_file_carries_the_toggle_and_a_foreign_agent_is_left_off(
    engine_only: None,
) -> None:
    c = started()
    on(c, agent="heuristic:cautious")
    saved = c.get("/api/state").content
    other = started()
    r = other.post("/api/state", files={"file": ("s.json", saved, "application/json")})
    assert r.status_code == 200 and r.json()["autopilot"]["agent"] == "heuristic:cautious"
    foreign = saved.replace(b'"heuristic:cautious"', b'"policy:x"')
    r = other.post("/api/state", files={"file": ("s.json", foreign, "application/json")})
    assert r.status_code == 200 and r.json()["autopilot"]["enabled"] is False
    assert "its autopilot is off" in other.get("/").text


def test_the_page_in_spanish_names_the_autopilot(engine_only: None) -> None:
    c = started()
    c.post("/ui/lang", data={"lang": "es"})
    page = c.get("/").text
    assert "Piloto automático: enemigos" in page and "ms por decisión" in page


# -- the shipped battles through the API --------------------------------------------------


@pytest.mark.compile
@pytest.mark.parametrize("name", sorted(shipped_scenarios()))
def test_shipped_battles_through_the_api_stop_at_heroes_and_undo_exactly(name: str) -> None:
    c = started(name, seed=6)
    on(c, iterations=12)
    rng = random.Random(6)
    session = the_session(c)
    seen = []
    for _stop in range(400):
        battle = c.get("/api/battle").json()
        if battle["outcome"] is not None:
            break
        assert battle["pending"]["side"] == "heroes", (name, battle["pending"])
        st = session.state
        legal = st.ruleset.legal_actions(st)
        index = legal.index(heuristic_choice(st, legal, rng)) + 1
        before = c.get("/api/state").content
        applied = c.post("/api/apply", json={"index": index})
        assert applied.status_code == 200, applied.text
        after = c.get("/api/state").content
        assert c.post("/api/undo", json={}).status_code == 200
        assert c.get("/api/state").content == before, name
        assert c.post("/api/apply", json={"index": index}).status_code == 200
        assert c.get("/api/state").content == after, name
        seen.append(len(applied.json()["autopilot"]))
    assert c.get("/api/battle").json()["outcome"] is not None, name
    assert sum(seen) > 0


def test_get_autopilot_follows_a_stretch_under_way(engine_only: None) -> None:
    """What GET /api/autopilot reads while a request plays (the page's busy line)."""
    from escaramuza.web.autopilot import autopilot_view

    c = started()
    battle = on(c)["battle"]
    session = the_session(c)
    gm = session.require()
    seen: list[tuple[bool, int, str | None]] = []
    follow = gm.on_auto_progress
    assert follow is not None

    def watch(state: Any, done: int) -> None:
        follow(state, done)
        view = autopilot_view(session)
        seen.append((view.running, view.done, view.deciding))

    gm.on_auto_progress = watch
    c.post("/api/apply", json={"index": index_of(battle, "fin_turno")})
    assert seen and all(running for running, _, _ in seen)
    assert [done for _, done, _ in seen] == list(range(len(seen)))
    assert {who for _, _, who in seen} == {"Saqueador"}
    after = c.get("/api/autopilot").json()
    assert after["running"] is False and after["deciding"] is None
