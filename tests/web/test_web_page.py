"""The server-rendered page (forms work without JavaScript) and `escaramuza serve`'s CLI."""

from __future__ import annotations

import dataclasses
import json
import re
import socket
from fractions import Fraction
from typing import Any

import pytest

from escaramuza.agents.fast import use_kernel
from escaramuza.agents.suggest import Suggestions
from escaramuza.cli import build_parser, main
from escaramuza.rules.core.ruleset import Odds
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from escaramuza.rules.core.stats import wilson_interval
from escaramuza.web import is_loopback
from escaramuza.web.deps import COOKIE
from escaramuza.web.views import token_label, zone_positions
from tests.web.web_helpers import DUEL_YAML, client, finished_playtest, terminal_battle

EMBOSCADA = "destiny_dice/emboscada"


def version_of(html: str) -> int:
    match = re.search(r'name="version" value="(\d+)"', html)
    assert match, "the page carries the battle version in its forms"
    return int(match.group(1))


def test_first_visit_sets_the_session_cookie_and_lists_the_scenarios() -> None:
    c = client()
    r = c.get("/")
    assert r.status_code == 200
    assert COOKIE in r.cookies
    assert "samesite=strict" in r.headers["set-cookie"].lower()
    for name in shipped_scenarios():
        assert f'value="{name}"' in r.text
    assert 'src="/static/app.js"' in r.text and "http" not in r.text.split("<body>")[0]


def test_static_files_are_served_locally() -> None:
    c = client()
    assert "fetch(" in c.get("/static/app.js").text
    assert ".token" in c.get("/static/style.css").text


def test_start_draws_zones_tokens_table_and_decision() -> None:
    c = client()
    c.get("/")
    r = c.post("/ui/new", data={"scenario": EMBOSCADA, "seed": "2"})
    assert r.status_code == 200 and r.history and r.history[0].status_code == 303
    state = terminal_battle(EMBOSCADA, 2)
    html = r.text
    assert html.count('<g class="zone') == len(state.battlefield.zone_ids)
    assert html.count('<g class="token') == len(state.combatants)
    assert html.count('<line class="link"') == state.battlefield.graph.number_of_edges()
    rows = re.findall(r'<tr class="[^"]*" data-combatant="([^"]+)"', html)
    assert rows == [x.id for x in state.combatants]
    assert state.pending is not None
    pending = state.by_id[state.pending.actor]
    assert f'data-combatant="{pending.id}"' in html
    assert re.search(
        rf'class="token {pending.side.value} pending" data-combatant="{pending.id}"', html
    )
    decision = html.split('id="decision"')[1].split("</div>")[0]
    assert pending.name in decision
    options = re.findall(r'<option value="(\d+)">\d+\. ', html)
    assert len(options) == len(state.ruleset.legal_actions(state))


@pytest.mark.compile
def test_suggest_apply_from_a_suggestion_and_undo_through_forms() -> None:
    c = client()
    c.get("/")
    html = c.post("/ui/new", data={"scenario": EMBOSCADA, "seed": "2"}).text
    v0 = version_of(html)
    html = c.post("/ui/suggest", data={"budget_ms": "150"}).text
    assert 'id="suggestions"' in html
    buttons = re.findall(r'form="apply-form" name="index" value="(\d+)"', html)
    assert buttons, "each suggestion has an Apply button"
    first = int(buttons[0])
    action_text = re.search(rf'<option value="{first}">{first}\. ([^<]+)</option>', html)
    assert action_text
    html = c.post(
        "/ui/apply", data={"version": str(v0), "index": str(first), "pick": "1", "dice": ""}
    ).text
    last = html.split('id="last"')[1].split("</pre>")[0]
    assert f"» {action_text.group(1)}".replace("'", "&#39;") in last
    assert 'id="suggestions"' not in html  # they were for the previous decision
    html = c.post("/ui/undo", data={"version": str(version_of(html))}).text
    assert "undone: apply" in html
    assert 'id="undo-button" disabled' in html


def test_a_search_too_short_to_call_draws_one_tie_group() -> None:
    c = client()
    c.get("/")
    c.post("/ui/new", data={"scenario": EMBOSCADA, "seed": "2"})
    # 100 ms on the reference engine is a few rollouts of each of the ambush's actions,
    # fewer than the paired test needs (MIN_SHARED): nothing can be separated from the
    # best, so all are tied. (The compiled kernel's thousands of rollouts could separate
    # some: the override keeps the test about the page, not the engine's speed.)
    with use_kernel(EMBOSCADA.split("/")[0], None):
        html = c.post("/ui/suggest", data={"budget_ms": "100", "max_ms": "100"}).text
    assert html.count('class="tie-group"') == 1
    group = html.split('class="tie-group"')[1].split("</tbody>")[0]
    assert "too close to call: any of these" in group
    assert 'data-verdict="too_close"' in html
    rows = re.findall(r'<tr data-rank="(\d+)"', group)
    assert rows and rows[0] == "1"
    first = group.split('<tr data-rank="1"')[1].split("</tr>")[0]
    assert "★" in first  # the in-character pick heads the group
    assert "up to" in html and 'name="max_ms"' in html


def test_form_errors_are_drawn_in_the_page() -> None:
    c = client()
    c.get("/")
    bad = DUEL_YAML.replace("pv: 16", "pv: muchos")
    r = c.post("/ui/upload", files={"file": ("mi-escena.yaml", bad.encode())}, data={"seed": "1"})
    assert r.status_code == 400
    box = r.text.split('role="alert" id="error">')[1].split("</div>")[0]
    assert box.startswith("mi-escena.yaml: combatants[0].pv: ")
    r = c.post("/ui/new", data={"scenario": EMBOSCADA, "seed": "minus"})
    assert r.status_code == 422 and 'role="alert"' in r.text and "seed" in r.text


def test_stale_form_is_refused_and_shows_the_current_battle() -> None:
    c = client()
    c.get("/")
    html = c.post("/ui/new", data={"scenario": EMBOSCADA, "seed": "2"}).text
    v0 = version_of(html)
    c.post("/ui/apply", data={"version": str(v0), "pick": "1"})
    r = c.post("/ui/apply", data={"version": str(v0), "pick": "1"})
    assert r.status_code == 409
    assert "changed since this page was drawn" in r.text
    assert version_of(r.text) == v0 + 1


def test_uploaded_names_are_escaped() -> None:
    c = client()
    c.get("/")
    evil = DUEL_YAML.replace(
        "title: Brann contra el Saqueador (subido)", 'title: "<script>alert(1)</script>"'
    )
    evil = evil.replace("name: Brann", 'name: "<img src=x onerror=alert(2)>"')
    r = c.post("/ui/upload", files={"file": ("evil.yaml", evil.encode())}, data={"seed": "1"})
    assert r.status_code == 200
    assert "<script>alert(1)" not in r.text and "<img src=x" not in r.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in r.text
    svg = c.get("/api/battlefield.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert "<img src=x" not in svg.text


@pytest.mark.compile
def test_playtest_panel_shows_progress_then_numbers_and_plots() -> None:
    c = client()
    c.get("/")
    c.post("/ui/new", data={"scenario": "destiny_dice/brann-vs-saqueador", "seed": "1"})
    html = c.post(
        "/ui/playtest", data={"n": "10", "seed": "1", "heroes": "heuristic", "enemies": "random"}
    ).text
    assert 'id="playtest"' in html
    job = finished_playtest(c)
    assert job["status"] == "done"
    html = c.get("/").text
    assert 'id="pt-report"' in html and "heroes win" in html
    assert html.count('src="/api/playtest/plots/') == 3


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("Lancero 2", "L2"),
        ("Jefe de los saqueadores", "JD"),
        ("Brann", "Br"),
        ("Ilse", "Il"),
        ("Arquero 1", "A1"),
        ("", "?"),
    ],
)
def test_token_labels(name: str, label: str) -> None:
    assert token_label(name) == label


def test_zone_layout_is_deterministic_and_inside_the_unit_square() -> None:
    bf = load_scenario(EMBOSCADA).battlefield
    first = zone_positions(bf)
    again = zone_positions(load_scenario(EMBOSCADA).battlefield)  # a new object, same map
    assert first == again
    assert set(first) == set(bf.zone_ids)
    assert all(0 <= x <= 1 and 0 <= y <= 1 for x, y in first.values())
    assert len(set(first.values())) == len(first)  # no two zones on one spot


@pytest.mark.parametrize("name", list(shipped_scenarios()))
def test_zone_boxes_do_not_overlap(name: str) -> None:
    c = client()
    view = c.post("/api/battle", json={"scenario": name}).json()
    boxes = view["zones"]
    for i, a in enumerate(boxes):
        assert a["width"] / 2 <= a["x"] <= 900 - a["width"] / 2
        assert a["height"] / 2 <= a["y"] <= 560 - a["height"] / 2
        for b in boxes[i + 1 :]:
            apart_x = abs(a["x"] - b["x"]) >= (a["width"] + b["width"]) / 2
            apart_y = abs(a["y"] - b["y"]) >= (a["height"] + b["height"]) / 2
            assert apart_x or apart_y, f"{a['id']} overlaps {b['id']}"
    for t in view["combatants"]:
        zone = next(z for z in boxes if z["id"] == t["zone"])
        assert abs(t["token"]["x"] - zone["x"]) < zone["width"] / 2
        assert abs(t["token"]["y"] - zone["y"]) < zone["height"] / 2


def test_serve_defaults_to_localhost_port_8000() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "9000"])
    assert (args.host, args.port) == ("0.0.0.0", 9000)


@pytest.mark.parametrize("port", ["0", "70000"])
def test_serve_rejects_bad_ports(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", port]) == 2
    assert "--port must be" in capsys.readouterr().err


def test_serve_on_a_port_in_use_is_a_user_error(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """uvicorn exits with its own status when it cannot bind; serve says so in its one
    line and exits 2, as every user error does (docs/cli.md, "Exit codes and errors")."""
    import escaramuza.agents.fast

    monkeypatch.setattr(escaramuza.agents.fast, "warm_in_background", lambda rulesets: None)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capfd.readouterr().err
    assert f"escaramuza: error: could not serve on 127.0.0.1:{port}" in err


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("example.org", False),
    ],
)
def test_is_loopback(host: str, local: bool) -> None:
    assert is_loopback(host) is local


def test_an_upload_with_several_problems_lists_them_all_in_the_page() -> None:
    c = client()
    c.get("/")
    bad = DUEL_YAML.replace("pv: 16", "pv: muchos").replace("cuerpo: d6", "cuerpo: d7")
    bad = bad.replace("zone: pasillo\n    cuerpo: d6", "zone: cueva\n    cuerpo: d6")
    r = c.post("/ui/upload", files={"file": ("mi-escena.yaml", bad.encode())}, data={"seed": "1"})
    assert r.status_code == 400
    box = r.text.split('role="alert" id="error">')[1].split("</div>")[0]
    lines = box.splitlines()
    # A head line with the count, then one line per problem, each naming its field.
    count = int(re.search(r"mi-escena\.yaml: (\d+) problems", lines[0]).group(1))  # type: ignore[union-attr]
    assert count >= 2 and len(lines) == 1 + count
    assert any(line.strip().startswith("combatants[0].pv: ") for line in lines[1:])
    assert any("cuerpo" in line for line in lines[1:])
    assert "escaramuza validate" not in box  # a page user has no terminal for it


def test_a_state_file_with_several_problems_lists_them_all_in_the_page() -> None:
    c = client()
    c.post("/ui/new", data={"scenario": "destiny_dice/brann-vs-saqueador", "seed": "1"})
    doc = json.loads(c.get("/api/state").content)
    for c_doc in doc["combatants"][:2]:
        c_doc["resources"]["pv"] = -1
    r = c.post("/ui/load", files={"file": ("s.json", json.dumps(doc).encode())})
    assert r.status_code == 400
    box = r.text.split('role="alert" id="error">')[1].split("</div>")[0]
    lines = box.splitlines()
    assert lines[0] == "s.json: 2 problems" and len(lines) == 3
    assert [line.split(":")[0].strip() for line in lines[1:]] == [
        "combatants[0].resources.pv",
        "combatants[1].resources.pv",
    ]
    assert "escaramuza validate" not in box  # a page user has no terminal for it


def test_without_a_battle_the_page_has_no_empty_playtest_panel() -> None:
    c = client()
    assert 'id="playtest"' not in c.get("/").text
    html = c.post("/ui/new", data={"scenario": EMBOSCADA, "seed": "1"}).text
    assert 'id="playtest"' in html and 'id="playtest-form"' in html


def test_zone_labels_are_legible_and_their_tags_translated() -> None:
    c = client()
    c.post("/ui/lang", data={"lang": "es"})
    html = c.post("/ui/new", data={"scenario": EMBOSCADA, "seed": "1"}).text
    scenario = load_scenario(EMBOSCADA)
    exits = [z for z in scenario.battlefield.zones.values() if z.exit]
    assert exits and html.count(">salida<") + html.count("· salida<") >= len(exits)
    assert "· exit" not in html and ", exit" not in html
    css = c.get("/static/style.css").text
    size = int(re.search(r"\.zone text \{ font: (\d+)px", css).group(1))  # type: ignore[union-attr]
    assert size >= 15  # the map shrinks to ~0.65 of its 900 units: 15 units ≥ 10 px
    # Every zone's box is wide enough for its name at that size (≈0.55 em a letter).
    view = c.get("/api/battle").json()
    for z in view["zones"]:
        assert z["width"] >= 0.55 * size * len(z["name"])


def test_an_action_never_searched_shows_no_win_chance_or_risk() -> None:
    c = client()
    c.get("/")
    c.post("/ui/new", data={"scenario": EMBOSCADA, "seed": "2"})
    doc = c.post("/api/suggest", json={"iterations": 1}).json()
    unsearched = [s for s in doc["suggestions"] if s["visits"] == 0]
    assert unsearched, "one rollout leaves actions unsearched"
    for s in unsearched:
        assert (s["win_probability"], s["value"], s["risk"]) == (None, None, None)
    html = c.get("/").text
    for s in unsearched:
        row = html.split(f'<tr data-rank="{s["rank"]}"')[1].split("</tr>")[0]
        cells = re.findall(r"<td>(.*?)</td>", row, re.S)
        # rank, action, win %, rollouts, hit, E[dmg], drop, risk: no win chance, no risk.
        assert cells[2] == "—" and cells[3] == "0" and cells[7] == "—", row


def test_the_pages_numbers_are_rounded_once_as_the_terminal_prints_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A row whose numbers lie just past a half percent: 17 wins of 103 rollouts is
    # 16.50 %, so 17 (the JSON's 0.165, rounded again, would be 16); and so on for the
    # interval, the odds and the risk. The page prints what the terminal's table does.
    from escaramuza.web import sessions as ws

    real = ws.suggest
    wins, n = 17, 103
    low, high = wilson_interval(wins, n)
    odds = Odds(p_hit=wins / n, expected_damage=1.04996, p_drop=5 / 111)

    def doctored(*args: Any, **kwargs: Any) -> Suggestions:
        result = real(*args, **kwargs)
        first = dataclasses.replace(
            result.items[0],
            visits=n,
            win=wins / n,
            win_low=low,
            win_high=high,
            odds=odds,
            risk=5 / 111,
        )
        return dataclasses.replace(result, items=(first, *result.items[1:]))

    monkeypatch.setattr(ws, "suggest", doctored)
    c = client()
    c.get("/")
    c.post("/ui/new", data={"scenario": EMBOSCADA, "seed": "2"})
    html = c.post("/ui/suggest", data={"budget_ms": "100", "max_ms": "100"}).text
    row = html.split('<tr data-rank="1"')[1].split("</tr>")[0]
    cells = [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]

    def once(x: Fraction) -> str:  # a percentage rounded once, half to even
        return str(round(x))

    ends = [once(Fraction(end) * 100) for end in (low, high)]
    assert cells[2] == f"{once(Fraction(100 * wins, n))} ({ends[0]}–{ends[1]})"
    assert cells[4:8] == [
        once(Fraction(100 * wins, n)) + "%",
        "1.0",
        once(Fraction(500, 111)) + "%",
        once(Fraction(500, 111)) + "%",
    ]
