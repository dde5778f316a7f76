"""The JSON API of `escaramuza serve`, through FastAPI's TestClient.

Expected values come from the engine itself, driven directly: the same scenario and
seed through `new_battle`, the same action and dice through `apply_action` with a
ScriptedRoller — never from the web layer's own output.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import unquote

import pytest

from escaramuza.agents.suggest import suggest
from escaramuza.playtest import PlaytestConfig, playtest
from escaramuza.rules.core.dice import RandomRoller, ScriptedRoller
from escaramuza.rules.core.ruleset import apply_action
from escaramuza.rules.core.scenario import shipped_scenarios
from escaramuza.rules.core.state import BattleState
from tests.web.web_helpers import DUEL_YAML, client, terminal_battle

EMBOSCADA = "destiny_dice/emboscada"
DUEL = "destiny_dice/brann-vs-saqueador"


class RecordingRoller:
    """A seeded roller that keeps every face it hands out (to replay them as table dice)."""

    def __init__(self, seed: int) -> None:
        self.inner = RandomRoller(seed)
        self.faces: list[str] = []

    def roll(self, sides: int, why: str = "") -> int:
        value = self.inner.roll(sides, why)
        self.faces.append(f"d{sides}={value}")
        return value


def attack_seed() -> int:
    """The first seed whose first decision in the ambush can attack (an action with an item)."""
    for seed in range(1, 60):
        st = terminal_battle(EMBOSCADA, seed)
        if any(a.target and a.item for a in st.ruleset.legal_actions(st)):
            return seed
    raise AssertionError("no seed starts with an attack")


def fighters(view: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (
            c["id"],
            c["zone"],
            c["status"],
            tuple((r["key"], r["value"]) for r in c["resources"]),
            tuple(c["conditions"]),
        )
        for c in view["combatants"]
    ]


def engine_fighters(state: BattleState) -> list[tuple[Any, ...]]:
    out = []
    for c in state.combatants:
        conds = tuple(k.text() for k in c.conditions.values())
        out.append((c.id, c.zone, c.status.value, tuple(c.resources.items()), conds))
    return out


def test_scenarios_lists_every_shipped_scenario() -> None:
    rows = client().get("/api/scenarios").json()
    assert [r["name"] for r in rows] == list(shipped_scenarios())
    duel = next(r for r in rows if r["name"] == DUEL)
    assert (duel["ruleset"], duel["heroes"], duel["enemies"]) == ("destiny_dice", 1, 1)


@pytest.mark.parametrize(
    "name", [EMBOSCADA, "donjon/duelo", "cairn/emboscada_goblin", "sistema_2d10/duelo"]
)
def test_new_battle_matches_the_terminal_session(name: str) -> None:
    view = client().post("/api/battle", json={"scenario": name, "seed": 7}).json()
    state = terminal_battle(name, 7)
    assert state.pending is not None
    assert view["pending"]["actor"] == state.pending.actor
    assert fighters(view) == engine_fighters(state)
    legal = state.ruleset.legal_actions(state)
    assert [a["index"] for a in view["actions"]] == list(range(1, len(legal) + 1))
    assert [a["text"] for a in view["actions"]] == [state.ruleset.describe(state, a) for a in legal]
    assert {z["id"] for z in view["zones"]} == set(state.battlefield.zone_ids)
    assert len(view["links"]) == state.battlefield.graph.number_of_edges()
    assert view["can_undo"] is False


def test_apply_with_the_tables_dice_equals_the_engine_and_undo_restores() -> None:
    c = client()
    seed = attack_seed()
    before = c.post("/api/battle", json={"scenario": EMBOSCADA, "seed": seed}).json()
    state = terminal_battle(EMBOSCADA, seed)
    legal = state.ruleset.legal_actions(state)
    # The first attack of the pending combatant, with dice a seeded roller would roll.
    index, action = next((i, a) for i, a in enumerate(legal, 1) if a.target and a.item)
    recorder = RecordingRoller(99)
    apply_action(state.clone(), action, recorder)
    assert recorder.faces, "an attack rolls dice"
    expected = state.clone()
    roller = ScriptedRoller(recorder.faces)
    apply_action(expected, action, roller)
    roller.assert_exhausted()

    r = c.post(
        "/api/apply",
        json={"index": index, "dice": " ".join(recorder.faces), "version": before["version"]},
    )
    assert r.status_code == 200, r.text
    after = r.json()
    assert fighters(after["battle"]) == engine_fighters(expected)
    assert after["lines"][0].startswith("» ")
    assert after["battle"]["can_undo"] is True
    assert after["battle"]["version"] == before["version"] + 1

    undone = c.post("/api/undo", json={}).json()
    assert fighters(undone) == fighters(before)
    assert undone["pending"] == before["pending"]
    assert undone["actions"] == before["actions"]
    assert undone["can_undo"] is False


def test_apply_by_action_fields_and_automatic_dice() -> None:
    c = client()
    view = c.post("/api/battle", json={"scenario": DUEL, "seed": 1}).json()
    chosen = view["actions"][-1]
    r = c.post("/api/apply", json={"action": chosen["action"]})
    assert r.status_code == 200, r.text
    assert r.json()["lines"][0] == f"» {chosen['text']}"


def test_wrong_dice_change_nothing() -> None:
    c = client()
    before = c.post("/api/battle", json={"scenario": EMBOSCADA, "seed": attack_seed()}).json()
    attack = next(a for a in before["actions"] if a["action"].get("item"))
    r = c.post("/api/apply", json={"index": attack["index"], "dice": "1"})  # too few dice
    assert r.status_code == 400
    assert "nothing was applied" in r.json()["detail"]
    assert fighters(c.get("/api/battle").json()) == fighters(before)


@pytest.mark.compile
def test_suggest_ranks_every_legal_action_with_exact_odds() -> None:
    c = client()
    view = c.post("/api/battle", json={"scenario": EMBOSCADA, "seed": 3}).json()
    r = c.post("/api/suggest", json={"iterations": 24})
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["format"] == "escaramuza-suggestions"
    assert doc["actor"] == view["pending"]["actor"]
    assert doc["verdict"] in ("clear", "too_close")
    assert doc["search"]["max_ms"] is None  # an iteration budget has no wall-clock maximum
    assert doc["verdict_text"].startswith(("clear", "too close to call"))
    assert all("tied_with_best" in s for s in doc["suggestions"])
    items = doc["suggestions"]
    assert [s["rank"] for s in items] == list(range(1, len(view["actions"]) + 1))
    assert sorted(s["index"] for s in items) == [a["index"] for a in view["actions"]]
    by_index = {a["index"]: a for a in view["actions"]}
    state = terminal_battle(EMBOSCADA, 3)
    legal = state.ruleset.legal_actions(state)
    for s in items:
        assert s["action"] == by_index[s["index"]]["action"]
        odds = state.ruleset.odds(state, legal[s["index"] - 1])
        if odds is None:
            assert s["p_hit"] is None
        else:
            assert s["p_hit"] == pytest.approx(odds.p_hit, abs=1e-4)
            assert s["expected_damage"] == pytest.approx(odds.expected_damage, abs=1e-4)
        lo, hi = s["win_interval"]
        assert 0 <= lo <= s["win_probability"] <= hi <= 1
        assert s["reason"]


def without_unset_fields(doc: Any) -> Any:
    """``doc`` with the None fields of its actions left out, as ``Action.to_dict`` writes
    them (the API's action model lists every field)."""
    if isinstance(doc, list):
        return [without_unset_fields(x) for x in doc]
    if isinstance(doc, dict):
        action = "verb" in doc
        return {k: without_unset_fields(v) for k, v in doc.items() if not (action and v is None)}
    return doc


@pytest.mark.compile
def test_suggest_answers_the_command_lines_document_with_each_actions_index() -> None:
    """docs/web.md: ``POST /api/suggest`` is ``suggest --json``'s document (with each
    row's ``index``): no key of it is dropped, twins and the engine included."""
    c = client()
    c.post("/api/battle", json={"scenario": EMBOSCADA, "seed": 3})
    web = c.post("/api/suggest", json={"iterations": 24}).json()
    cli = suggest(terminal_battle(EMBOSCADA, 3), budget_ms=None, iterations=24, seed=3).to_dict()
    assert set(cli) <= set(web)
    web["search"].pop("elapsed_ms")
    cli["search"].pop("elapsed_ms")
    assert web["search"] == cli["search"]
    rows = [{k: v for k, v in row.items() if k != "index"} for row in web["suggestions"]]
    assert without_unset_fields(rows) == cli["suggestions"]


def test_state_file_round_trip_between_sessions() -> None:
    a, b = client(), client()
    a.post("/api/battle", json={"scenario": EMBOSCADA, "seed": 5})
    for _ in range(3):
        a.post("/api/apply", json={"index": 1})
    saved = a.get("/api/state")
    assert saved.status_code == 200
    assert "attachment" in saved.headers["content-disposition"]
    doc = json.loads(saved.content)
    assert doc["format"] == "escaramuza-state" and doc["scenario"] == EMBOSCADA
    loaded = b.post("/api/state", files={"file": ("mid.json", saved.content)})
    assert loaded.status_code == 200, loaded.text
    mine = a.get("/api/battle").json()
    theirs = loaded.json()
    for key in ("round", "pending", "outcome", "actions", "steps", "seed"):
        assert theirs[key] == mine[key], key
    assert fighters(theirs) == fighters(mine)


@pytest.mark.parametrize("name", ["Śląsk.yaml", "東京 duelo.yaml", "ñandú.yaml"])
def test_a_battle_of_a_scenario_uploaded_under_any_name_saves_and_loads_back(name: str) -> None:
    # An HTTP header is Latin-1: the download's name goes as RFC 6266's filename*
    # (UTF-8, percent-encoded) beside an ASCII filename, never as a 500.
    a, b = client(), client()
    r = a.post("/api/battle/upload", files={"file": (name, DUEL_YAML.encode())})
    assert r.status_code == 200, r.text
    saved = a.get("/api/state")
    assert saved.status_code == 200, saved.text
    stem = name.removesuffix(".yaml")
    disposition = saved.headers["content-disposition"]
    assert disposition.startswith('attachment; filename="') and disposition.isascii()
    encoded = disposition.split("filename*=UTF-8''")[1]
    assert unquote(encoded) == f"{stem}-round1.json"
    loaded = b.post("/api/state", files={"file": (unquote(encoded), saved.content)})
    assert loaded.status_code == 200, loaded.text
    assert loaded.json()["round"] == 1


def test_uploaded_scenario_plays_saves_and_loads_back() -> None:
    a, b = client(), client()
    r = a.post(
        "/api/battle/upload", files={"file": ("duelo.yaml", DUEL_YAML.encode())}, data={"seed": "2"}
    )
    assert r.status_code == 200, r.text
    assert r.json()["scenario"]["name"] == "duelo.yaml"
    a.post("/api/apply", json={"index": 1})
    saved = json.loads(a.get("/api/state").content)
    # Named by its file (for `escaramuza gm` beside it) and carrying the YAML for the page.
    assert saved["scenario"] == "duelo.yaml"
    assert saved["meta"]["scenario_yaml"] == DUEL_YAML
    loaded = b.post("/api/state", files={"file": ("s.json", json.dumps(saved).encode())})
    assert loaded.status_code == 200, loaded.text
    assert fighters(loaded.json()) == fighters(a.get("/api/battle").json())
    assert loaded.json()["scenario"]["title"] == "Brann contra el Saqueador (subido)"


def test_an_uploaded_scenario_at_its_largest_saves_a_state_the_page_loads_back() -> None:
    """A scenario of the most bytes an upload takes, blank lines after the duel (each
    twice as long JSON-escaped, the worst a YAML text grows): the state file the page
    saves carries it, is larger than a scenario upload may be, and the page (on either
    path) takes it back; past the state file's own limit it is refused by name."""
    from escaramuza.web.limits import MAX_STATE_UPLOAD_BYTES, MAX_UPLOAD_BYTES

    text = DUEL_YAML + "\n" * (MAX_UPLOAD_BYTES - len(DUEL_YAML.encode()))
    a = client()
    assert a.post("/api/battle/upload", files={"file": ("big.yaml", text.encode())}).is_success
    a.post("/api/apply", json={"index": 1})
    saved = a.get("/api/state").content
    assert MAX_UPLOAD_BYTES * 2 < len(saved) <= MAX_STATE_UPLOAD_BYTES
    loaded = client().post("/api/state", files={"file": ("s.json", saved)})
    assert loaded.status_code == 200, loaded.text
    assert fighters(loaded.json()) == fighters(a.get("/api/battle").json())
    assert client().post("/ui/load", files={"file": ("s.json", saved)}).status_code == 200
    big = saved + b" " * (MAX_STATE_UPLOAD_BYTES + 1 - len(saved))
    refused = client().post("/api/state", files={"file": ("s.json", big)})
    assert refused.status_code == 413
    assert (
        f"s.json: the file is {len(big)} bytes; the limit is {MAX_STATE_UPLOAD_BYTES}"
        in (refused.json()["detail"])
    )


def test_sessions_are_kept_apart() -> None:
    a, b = client(), client()
    a.post("/api/battle", json={"scenario": EMBOSCADA, "seed": 1})
    assert b.get("/api/battle").status_code == 404
    b.post("/api/battle", json={"scenario": DUEL, "seed": 1})
    before = a.get("/api/battle").json()
    b.post("/api/apply", json={"index": 1})
    assert a.get("/api/battle").json()["version"] == before["version"]
    assert a.get("/api/battle").json()["scenario"]["name"] == EMBOSCADA
    assert b.get("/api/battle").json()["scenario"]["name"] == DUEL


def test_session_header_works_without_cookies() -> None:
    c = client()
    sid = c.post("/api/session").json()["session"]
    c.cookies.clear()
    headers = {"X-Escaramuza-Session": sid}
    assert c.post("/api/battle", json={"scenario": DUEL}, headers=headers).status_code == 200
    c.cookies.clear()
    assert c.get("/api/battle", headers=headers).status_code == 200
    assert c.get("/api/battle").status_code == 404


def test_session_cap_drops_the_least_recently_used() -> None:
    c = client(max_sessions=2)
    ids = []
    for _ in range(3):
        c.cookies.clear()
        ids.append(c.post("/api/session").json()["session"])
    assert len(c.app.state.store) == 2  # type: ignore[attr-defined]
    c.cookies.clear()
    first = c.get("/api/battle", headers={"X-Escaramuza-Session": ids[0]})
    assert first.status_code == 404
    assert c.app.state.store.get(ids[2]) is not None  # type: ignore[attr-defined]


def test_stale_version_is_refused() -> None:
    c = client()
    view = c.post("/api/battle", json={"scenario": DUEL}).json()
    c.post("/api/apply", json={"index": 1, "version": view["version"]})
    r = c.post("/api/apply", json={"index": 1, "version": view["version"]})
    assert r.status_code == 409
    assert "changed" in r.json()["detail"]


def test_edit_commands_mirror_the_table() -> None:
    c = client()
    c.post("/api/battle", json={"scenario": DUEL})
    r = c.post("/api/edit", json={"command": "set brann pv 5"})
    assert r.status_code == 200, r.text
    brann = next(x for x in r.json()["combatants"] if x["id"] == "brann")
    assert {x["key"]: x["value"] for x in brann["resources"]}["pv"] == 5
    assert c.post("/api/undo", json={}).status_code == 200
    brann = next(x for x in c.get("/api/battle").json()["combatants"] if x["id"] == "brann")
    assert {x["key"]: x["value"] for x in brann["resources"]}["pv"] == 16


@pytest.mark.compile
def test_playtest_runs_in_the_background_and_gives_the_cli_numbers() -> None:
    c = client()
    c.post("/api/battle", json={"scenario": DUEL})
    r = c.post("/api/playtest", json={"n": 30, "seed": 4})
    assert r.status_code == 202, r.text
    assert r.json()["status"] == "running" and r.json()["total"] == 30
    deadline = time.monotonic() + 30
    job = r.json()
    while job["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
        job = c.get("/api/playtest").json()
    assert job["status"] == "done", job
    assert job["done"] == 30
    expected = playtest([DUEL], PlaytestConfig(n=30, seed=4)).document()["scenarios"][0]
    assert job["summary"] == json.loads(json.dumps(expected))
    assert "heroes win" in job["text"]
    assert len(job["plots"]) == 3
    for url in job["plots"]:
        png = c.get(url)
        assert png.status_code == 200 and png.content.startswith(b"\x89PNG")


def test_openapi_documents_the_api() -> None:
    schema = client().get("/openapi.json").json()
    for path in (
        "/api/battle",
        "/api/suggest",
        "/api/apply",
        "/api/undo",
        "/api/state",
        "/api/playtest",
    ):
        assert path in schema["paths"], path
    ok = schema["paths"]["/api/suggest"]["post"]["responses"]["200"]
    assert ok["content"]["application/json"]["schema"]["$ref"].endswith("SuggestionsView")
    assert "/ui/apply" not in schema["paths"]
