"""Bad requests get a 4xx with a message, never a 500 or a traceback."""

from __future__ import annotations

import json
from typing import Any

import pytest

from escaramuza.rules.core.seeds import MAX_SEED
from escaramuza.web.app import LOOPBACK_HOSTS
from escaramuza.web.limits import MAX_UPLOAD_BYTES
from escaramuza.web.sessions import WebSession
from tests.web.web_helpers import DUEL_YAML, client

DUEL = "destiny_dice/brann-vs-saqueador"


def started() -> Any:
    c = client()
    assert c.post("/api/battle", json={"scenario": DUEL}).status_code == 200
    return c


# (method, path, request kwargs, status, fragment of the message)
BATTLE_ROWS = [
    ("post", "/api/battle", {"json": {"scenario": "../../etc/passwd"}}, 404, "no shipped scenario"),
    ("post", "/api/battle", {"json": {"scenario": "emboscada"}}, 404, "no shipped scenario"),
    ("post", "/api/battle", {"json": {"scenario": DUEL, "seed": -1}}, 422, "seed"),
    # Above the one range of seeds (a state file could not hold it).
    ("post", "/api/battle", {"json": {"scenario": DUEL, "seed": MAX_SEED + 1}}, 422, "seed"),
    ("post", "/api/playtest", {"json": {"n": 10, "seed": MAX_SEED + 1}}, 422, "seed"),
    (
        "post",
        "/api/battle",
        {"content": b"not json", "headers": {"content-type": "application/json"}},
        422,
        "JSON",
    ),
    ("post", "/api/apply", {"json": {"index": 0}}, 400, "no action 0"),
    ("post", "/api/apply", {"json": {"index": 999}}, 400, "no action 999"),
    ("post", "/api/apply", {"json": {}}, 400, "index"),
    ("post", "/api/apply", {"json": {"index": 1, "dice": "six"}}, 400, "bad die 'six'"),
    ("post", "/api/apply", {"json": {"index": 1, "dice": "d20=25"}}, 400, "nothing was applied"),
    (
        "post",
        "/api/apply",
        {"json": {"action": {"verb": "volar", "actor": "brann"}}},
        400,
        "not a legal action",
    ),
    # The bounds are in the schema (50–5000 ms, 1–2000 rollouts): 422 like any field.
    ("post", "/api/suggest", {"json": {"budget_ms": 0}}, 422, "budget_ms"),
    ("post", "/api/suggest", {"json": {"budget_ms": 49.9}}, 422, "budget_ms"),
    ("post", "/api/suggest", {"json": {"budget_ms": 600000}}, 422, "budget_ms"),
    (
        "post",
        "/api/suggest",
        {"content": b'{"budget_ms": NaN}', "headers": {"content-type": "application/json"}},
        422,
        "budget_ms",
    ),
    ("post", "/api/suggest", {"json": {"iterations": 100000}}, 422, "iterations"),
    ("post", "/api/suggest", {"json": {"iterations": True}}, 422, "iterations"),
    # JSON's false/true and numbers as text are not integers.
    ("post", "/api/battle", {"json": {"scenario": DUEL, "seed": False}}, 422, "seed"),
    ("post", "/api/battle", {"json": {"scenario": DUEL, "seed": "3"}}, 422, "seed"),
    ("post", "/api/apply", {"json": {"index": True}}, 422, "index"),
    ("post", "/api/undo", {"json": {"version": False}}, 422, "version"),
    ("post", "/api/playtest", {"json": {"n": 10, "seed": False}}, 422, "seed"),
    ("post", "/api/suggest", {"json": {"budget_ms": 600, "max_ms": 300}}, 400, "max_ms"),
    # A time field beside rollouts was dropped without a word; the terminal refuses it too.
    ("post", "/api/suggest", {"json": {"iterations": 20, "max_ms": 900}}, 400, "one or the other"),
    ("post", "/api/suggest", {"json": {"iterations": 20, "budget_ms": 600}}, 400, "one or the"),
    ("post", "/api/suggest", {"json": {"budget_ms": 600, "max_ms": 60000}}, 422, "max_ms"),
    ("post", "/api/edit", {"json": {"command": "save /tmp/x.json"}}, 400, "unknown edit command"),
    ("post", "/api/edit", {"json": {"command": "load /etc/passwd"}}, 400, "unknown edit command"),
    ("post", "/api/edit", {"json": {"command": "set nobody pv 3"}}, 404, "nobody"),
    ("post", "/api/edit", {"json": {"command": "set brann pv 99"}}, 400, "0–16"),
    ("post", "/api/playtest", {"json": {"n": 0}}, 422, "n: "),
    ("post", "/api/playtest", {"json": {"n": 5001}}, 422, "n: "),
    (
        "post",
        "/api/playtest",
        {"json": {"n": 10, "heroes": "policy:/etc/passwd"}},
        400,
        "unknown agent",
    ),
    ("post", "/api/playtest", {"json": {"n": 10, "enemies": "mcts"}}, 400, "unknown agent"),
    ("delete", "/api/playtest", {}, 404, "no playtest"),
    ("get", "/api/playtest/plots/outcomes.png", {}, 404, "no plot"),
]


def test_an_unknown_plots_long_name_is_cut_in_the_refusal() -> None:
    c = started()
    name = "x" * 8000
    r = c.get(f"/api/playtest/plots/{name}.png")
    assert r.status_code == 404, r.text
    detail = r.json()["detail"]
    assert "no plot 'xxx" in detail
    assert len(detail) < 200


@pytest.mark.parametrize(("method", "path", "kwargs", "status", "fragment"), BATTLE_ROWS)
def test_bad_battle_requests_get_4xx_with_a_message(
    method: str, path: str, kwargs: dict[str, Any], status: int, fragment: str
) -> None:
    c = started()
    before = c.get("/api/battle").json()
    r = getattr(c, method)(path, **kwargs)
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    assert fragment.lower() in detail.lower()
    assert "Traceback" not in r.text
    after = c.get("/api/battle").json()
    assert after["version"] == before["version"]  # nothing changed


@pytest.mark.parametrize("path", ["/api/battle", "/api/state", "/api/playtest"])
def test_no_session_is_404(path: str) -> None:
    r = client().get(path)
    assert r.status_code == 404
    assert "session" in r.json()["detail"]


# (file name, bytes, status, fragments the message must hold: file, field, reason)
UPLOAD_ROWS = [
    ("big.yaml", b"#" * (MAX_UPLOAD_BYTES + 1), 413, ["big.yaml", str(MAX_UPLOAD_BYTES)]),
    ("empty.yaml", b"   \n", 400, ["empty.yaml", "empty"]),
    ("latin.yaml", "título: ñ".encode("latin-1"), 400, ["latin.yaml", "UTF-8"]),
    ("syntax.yaml", b"name: [unclosed\n", 400, ["syntax.yaml", "line", "YAML syntax error"]),
    (
        "bell.yaml",
        b"name: x\ntitle: a\x07b\n",
        400,
        [
            "bell.yaml: line 2, column 9: YAML syntax error: character '\\x07' (U+0007) "
            "is not allowed in a YAML file"
        ],
    ),
    ("tag.yaml", b"name: !!python/object/apply:os.system ['echo hi']\n", 400, ["tag.yaml", "YAML"]),
    (
        "tables.yaml",
        DUEL_YAML.replace(
            "round_limit: 20", "round_limit: 20\noptions:\n  tables: /etc/passwd"
        ).encode(),
        400,
        ["tables.yaml", "options.tables", "cannot name a file on the server"],
    ),
    (
        "field.yaml",
        DUEL_YAML.replace("pv: 16", "pv: -3").encode(),
        400,
        ["field.yaml", "combatants[0].pv"],
    ),
    ("../../etc/x.yaml", b"name: [", 400, ["x.yaml"]),
]


@pytest.mark.parametrize(("name", "data", "status", "fragments"), UPLOAD_ROWS)
def test_bad_scenario_uploads_name_file_field_and_reason(
    name: str, data: bytes, status: int, fragments: list[str]
) -> None:
    r = client().post("/api/battle/upload", files={"file": (name, data)})
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    for fragment in fragments:
        assert fragment in detail
    assert "etc" not in detail  # the client's path is never echoed or used


def _state_doc() -> dict[str, Any]:
    c = started()
    return json.loads(c.get("/api/state").content)


STATE_ROWS = [
    (lambda d: b"{not json", 400, "not valid JSON"),
    (lambda d: b"[1, 2]", 400, "JSON object"),
    (
        lambda d: json.dumps(dict(d, scenario="/etc/passwd")).encode(),
        400,
        "never opens server paths",
    ),
    (
        lambda d: json.dumps(dict(d, scenario="../scenarios/destiny_dice/emboscada.yaml")).encode(),
        400,
        "not a shipped scenario",
    ),
    (lambda d: json.dumps(dict(d, format="other")).encode(), 400, "format"),
    (lambda d: json.dumps(dict(d, round=999)).encode(), 400, "round"),
    (
        lambda d: json.dumps(dict(d, meta=dict(d["meta"], seed=-1))).encode(),
        400,
        "s.json: meta.seed: expected an integer from 0 to 9223372036854775807, got -1",
    ),
    (
        lambda d: json.dumps(dict(d, meta=dict(d["meta"], roll="psychic"))).encode(),
        400,
        "s.json: meta.roll: unknown roll mode 'psychic' (known: auto, manual)",
    ),
    (
        lambda d: json.dumps(
            dict(d, combatants=[dict(d["combatants"][0], side="neutral"), *d["combatants"][1:]])
        ).encode(),
        400,
        "s.json: combatants[0].side: unknown side 'neutral' (known: heroes, enemies)",
    ),
    (
        lambda d: json.dumps(d).replace('"round":', '"round": 1, "round":', 1).encode(),
        400,
        "s.json: round: duplicate key 'round' (it appears earlier in the object)",
    ),
    (
        lambda d: json.dumps(
            dict(
                d,
                scenario="x.yaml",
                meta={
                    "scenario_yaml": DUEL_YAML.replace(
                        "round_limit: 20", "options: {tables: /etc/x}"
                    )
                },
            )
        ).encode(),
        400,
        "options.tables",
    ),
    # A JSON escape of half a UTF-16 pair reads as a lone surrogate, which no UTF-8
    # answer or saved file can hold: refused where it is, in a key or in a value.
    (
        lambda d: json.dumps(
            dict(
                d,
                scenario="x.yaml",
                meta={"scenario_yaml": DUEL_YAML.replace("round_limit: 20", 'notes: "\ud800"')},
            )
        ).encode(),
        400,
        "s.json: meta.scenario_yaml: text 'name: brann-vs-saque…' holds a lone surrogate, "
        "\\ud800: half of a UTF-16 pair without its other half, not a character",
    ),
    (
        lambda d: json.dumps(d).replace('"pv":', '"\\ud800":', 1).encode(),
        400,
        "s.json: combatants[0].resources.\\ud800: text '\\ud800' holds a lone surrogate",
    ),
    (
        lambda d: json.dumps(d).replace('"Brann"', '"Brann \\udfff"', 1).encode(),
        400,
        "s.json: combatants[0].name: text 'Brann \\udfff' holds a lone surrogate",
    ),
]


@pytest.mark.parametrize(("make", "status", "fragment"), STATE_ROWS)
def test_bad_state_files_are_refused(make: Any, status: int, fragment: str) -> None:
    c = client()
    r = c.post("/api/state", files={"file": ("s.json", make(_state_doc()))})
    assert r.status_code == status, r.text
    assert fragment in r.json()["detail"]


def test_the_largest_seed_a_battle_accepts_loads_back_from_its_state_file() -> None:
    c = client()
    assert c.post("/api/battle", json={"scenario": DUEL, "seed": MAX_SEED}).status_code == 200
    saved = c.get("/api/state").content
    assert json.loads(saved)["meta"]["seed"] == MAX_SEED
    r = client().post("/api/state", files={"file": ("s.json", saved)})
    assert r.status_code == 200, r.text


def test_oversized_body_is_refused_before_it_is_read() -> None:
    r = client().post(
        "/api/battle",
        content=b"x" * (MAX_UPLOAD_BYTES * 2),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413
    assert "larger than" in r.json()["detail"]


def test_unexpected_error_is_a_bare_500(marked: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing of the error reaches the client; the message is the catalog's."""

    def boom(self: WebSession, version: int | None = None) -> list[str]:
        raise RuntimeError("secret internals /home/x")

    monkeypatch.setattr(WebSession, "undo", boom)
    c = client(raise_server_exceptions=False)
    c.post("/api/battle", json={"scenario": DUEL})
    r = c.post("/api/undo", json={})
    assert r.status_code == 500
    assert r.json() == {"detail": "«internal server error»"}
    assert "secret" not in r.text and "Traceback" not in r.text


def test_loopback_server_answers_only_local_host_names() -> None:
    c = client(trusted_hosts=LOOPBACK_HOSTS)
    assert c.get("/api/scenarios", headers={"host": "127.0.0.1:8000"}).status_code == 200
    assert c.get("/api/scenarios", headers={"host": "localhost:8000"}).status_code == 200
    assert c.get("/api/scenarios", headers={"host": "evil.example"}).status_code == 400


def test_page_budget_nan_is_refused_with_a_message() -> None:
    """The page's form field is text: "nan" reaches the session's own bounds check."""
    c = started()
    r = c.post("/ui/suggest", data={"budget_ms": "nan"})
    assert r.status_code == 400
    assert "budget_ms must be 50–5000, not nan" in r.text


def test_validation_errors_are_the_declared_error_model() -> None:
    """Every operation that can answer 422 declares it with the ``{"detail": str}`` body
    it sends, not FastAPI's default list of errors."""
    schema = client().get("/openapi.json").json()
    declared = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = "requestBody" in operation or operation.get("parameters")
            if not body:
                continue
            answer = operation["responses"].get("422")
            assert answer is not None, (method, path)
            ref = answer["content"]["application/json"]["schema"]["$ref"]
            assert ref.endswith("/ErrorView"), (method, path)
            declared += 1
    assert declared >= 8
    error_view = schema["components"]["schemas"]["ErrorView"]
    assert error_view["properties"]["detail"]["type"] == "string"
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    r = started().post("/api/battle", json={"scenario": DUEL, "seed": False})
    assert r.status_code == 422 and isinstance(r.json()["detail"], str)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("put", "/api/battle"),
        ("delete", "/api/battle"),
        ("delete", "/api/state"),
        ("put", "/api/playtest"),
        ("get", "/api/apply"),
    ],
)
def test_405_allow_lists_every_method_of_the_path(method: str, path: str) -> None:
    c = started()
    documented = {m.upper() for m in c.get("/openapi.json").json()["paths"][path]}
    r = c.request(method, path)
    assert r.status_code == 405
    assert {m.strip() for m in r.headers["allow"].split(",")} == documented
    assert isinstance(r.json()["detail"], str)


def test_an_upload_with_several_problems_lists_them_in_the_api_detail() -> None:
    # The command line's message sends the user to `escaramuza validate two.yaml`, a file
    # that is only in the browser: the API lists the problems, as the page does.
    bad = DUEL_YAML.replace("pv: 16", "pv: -16").replace("pv: 10", "pv: -10")
    r = client().post("/api/battle/upload", files={"file": ("two.yaml", bad.encode())})
    assert r.status_code == 400, r.text
    assert r.json()["detail"] == (
        "two.yaml: 2 problems\n"
        "  combatants[0].pv: Input should be greater than or equal to 1, not -16\n"
        "  combatants[1].pv: Input should be greater than or equal to 1, not -10"
    )


def test_a_state_file_with_several_problems_lists_them_in_the_api_detail() -> None:
    doc = _state_doc()
    for i, c in enumerate(doc["combatants"][:2]):
        c["resources"]["pv"] = -1 - i
    r = client().post("/api/state", files={"file": ("s.json", json.dumps(doc).encode())})
    assert r.status_code == 400, r.text
    ids = [c["id"] for c in doc["combatants"][:2]]
    assert r.json()["detail"] == (
        "s.json: 2 problems\n"
        f"  combatants[0].resources.pv: -1 is below 0 ({ids[0]}'s pv cannot be negative)\n"
        f"  combatants[1].resources.pv: -2 is below 0 ({ids[1]}'s pv cannot be negative)"
    )


def test_upload_and_state_file_refusals_in_spanish() -> None:
    """These refusals were English with ``?lang=es``; each is now the catalog's."""
    c = client()
    upload = DUEL_YAML.replace("round_limit: 20", "round_limit: 20\noptions:\n  tables: /x")
    r = c.post("/api/battle/upload?lang=es", files={"file": ("t.yaml", upload.encode())})
    assert r.status_code == 400, r.text
    assert r.json()["detail"] == (
        "t.yaml: options.tables: un escenario subido no puede nombrar un archivo del servidor; "
        "quítalo para usar el predeterminado"
    )
    doc = _state_doc()
    rows = [
        (b"[1, 2]", "s.json: un archivo de estado debe ser un objeto JSON"),
        (
            json.dumps(dict(doc, scenario=5)).encode(),
            "s.json: scenario: se esperaba un texto, no 5",
        ),
        (
            json.dumps(dict(doc, scenario="/x.yaml")).encode(),
            "s.json: scenario: '/x.yaml' no es un escenario incluido y el archivo no lleva su "
            "YAML (meta.scenario_yaml, que se escribe cuando esta página guarda un escenario "
            "subido); la página nunca abre rutas del servidor",
        ),
    ]
    for data, detail in rows:
        r = c.post("/api/state?lang=es", files={"file": ("s.json", data)})
        assert r.status_code == 400, r.text
        assert r.json()["detail"] == detail


def test_session_playtest_and_request_refusals_speak_the_current_language(
    marked: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """These were English with ``?lang=es``: each is now the marked catalog's
    (tests/conftest.py), so the page and the API say them in the asked language."""
    from escaramuza.web import playtests, sessions
    from escaramuza.web.limits import MAX_RUNNING_PLAYTESTS
    from escaramuza.web.middleware import MAX_BODY_BYTES

    c = client()
    r = c.get("/api/battle")
    assert (r.status_code, r.json()["detail"]) == (
        404,
        "«no session: start a battle first (POST /api/battle) or open the page»",
    )
    assert c.post("/api/session").status_code == 200
    r = c.get("/api/battle")
    assert (r.status_code, r.json()["detail"]) == (
        404,
        "«no battle in this session yet: pick or upload a scenario»",
    )
    c = started()
    big = b"#" * (MAX_UPLOAD_BYTES + 1)

    def failing_search(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a bug in the search")

    rows: list[tuple[Any, int, str]] = [
        (
            lambda: c.post("/api/apply", json={"index": 1, "version": 999}),
            409,
            "«the battle changed since this page was drawn (another tab or window?); the page "
            "now shows the current state — try again»",
        ),
        (lambda: c.delete("/api/playtest"), 404, "«no playtest is running in this session»"),
        (
            lambda: c.get("/api/playtest/plots/outcomes.png"),
            404,
            "«no plot 'outcomes': run a playtest first»",
        ),
        (
            lambda: c.post("/api/battle/upload", files={"file": ("big.yaml", big)}),
            413,
            f"«big.yaml: the file is {len(big)} bytes; the limit is {MAX_UPLOAD_BYTES} bytes»",
        ),
        (
            lambda: c.post("/api/battle/upload", content=b"#" * (MAX_BODY_BYTES + 1)),
            413,
            f"«the request is larger than {MAX_BODY_BYTES} bytes (uploads up to "
            f"{MAX_UPLOAD_BYTES} bytes)»",
        ),
    ]
    for call, status, detail in rows:
        r = call()
        assert (r.status_code, r.json()["detail"]) == (status, detail)
    monkeypatch.setattr(sessions, "suggest", failing_search)
    r = c.post("/api/suggest", json={"iterations": 5})
    assert (r.status_code, r.json()["detail"]) == (
        500,
        "«the search failed with an internal error (written to the server's log); the battle "
        "is unchanged: apply an action without a suggestion, or try again»",
    )
    # Every playtest slot of the server taken: a new playtest is refused.
    for _ in range(MAX_RUNNING_PLAYTESTS):
        assert playtests._RUNNING.acquire(blocking=False)
    try:
        r = c.post("/api/playtest", json={"n": 10})
    finally:
        for _ in range(MAX_RUNNING_PLAYTESTS):
            playtests._RUNNING.release()
    assert (r.status_code, r.json()["detail"]) == (
        429,
        f"«{MAX_RUNNING_PLAYTESTS} playtests are already running on this server; wait for "
        "one to finish»",
    )
    # A playtest already running in this session.
    from types import SimpleNamespace

    from escaramuza.web.deps import COOKIE

    session = c.app.state.store.peek(c.cookies[COOKIE])  # type: ignore[attr-defined]
    session.playtest = SimpleNamespace(status="running")
    r = c.post("/api/playtest", json={"n": 10})
    assert (r.status_code, r.json()["detail"]) == (
        429,
        "«a playtest is already running in this session; wait or cancel it»",
    )
    session.playtest = None
    # The page's Apply without an action.
    page = c.post("/ui/apply", data={"version": "0"})
    assert page.status_code == 400 and "«pick an action to apply»" in page.text


def returning_server(monkeypatch: pytest.MonkeyPatch, started: bool) -> None:
    """``serve`` with a uvicorn server whose ``run`` returns at once, having started or
    not, and without the kernels' warm-up or faulthandler."""
    import faulthandler

    import uvicorn

    from escaramuza.agents import fast

    class Server:
        def __init__(self, config: object) -> None:
            self.started = started

        def run(self) -> None:
            pass

    monkeypatch.setattr(uvicorn, "Server", Server)
    monkeypatch.setattr(fast, "warm_in_background", lambda rulesets: None)
    monkeypatch.setattr(faulthandler, "enable", lambda: None)


def test_serve_and_body_number_refusals_speak_the_current_language(
    marked: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``serve``'s refusals and the JSON bodies' "expected a number" were English under
    ``--lang es`` / ``?lang=es``: each is now the marked catalog's (tests/conftest.py)."""
    import sys

    from escaramuza.cli import main

    assert main(["serve", "--port", "70000"]) == 2
    assert capsys.readouterr().err == "escaramuza: error: «--port must be 1–65535, not 70000»\n"
    # The web extra missing: its import fails.
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "uvicorn", None)
        assert main(["serve"]) == 2
    assert capsys.readouterr().err == (
        "escaramuza: error: «escaramuza serve needs the web extra (uvicorn is missing): "
        "pip install 'escaramuza[web]'»\n"
    )

    # A server that never starts (uvicorn logs why: the port in use, say) and returns.
    returning_server(monkeypatch, started=False)
    assert main(["serve", "--port", "8123"]) == 2
    assert capsys.readouterr().err == (
        "escaramuza: error: «could not serve on 127.0.0.1:8123 (the reason is above: a port "
        "in use?)»\n"
    )
    # JSON's false and "12" are not numbers; the value is shown as the body wrote it.
    c = started()
    for seed, shown in ((False, "false"), ("12", '"12"')):
        r = c.post("/api/battle", json={"scenario": DUEL, "seed": seed})
        assert (r.status_code, r.json()["detail"]) == (
            422,
            f"seed: «expected a number, not {shown}»",
        )


@pytest.mark.parametrize(
    ("yaml_text", "where"),
    [("a: [1,\n", "line "), ("options: {tables: /etc/passwd}\n", "options.tables")],
)
def test_a_state_files_bad_embedded_scenario_is_named_by_the_files_field(
    yaml_text: str, where: str
) -> None:
    """The scenario a state file carries (``meta.scenario_yaml``) is refused under the
    uploaded file's name and that field, as the terminal names it, not under the name of
    the scenario it stands for (which no file of the user's has)."""
    a = client()
    assert a.post("/api/battle/upload", files={"file": ("d.yaml", DUEL_YAML.encode())}).is_success
    doc = json.loads(a.get("/api/state").content)
    doc["meta"]["scenario_yaml"] = yaml_text
    r = client().post("/api/state", files={"file": ("s.json", json.dumps(doc).encode())})
    assert r.status_code == 400
    assert r.json()["detail"].startswith(f"s.json: meta.scenario_yaml: {where}")


#: Every number of the JSON bodies: (path, field, the body's other required fields).
NUMBER_FIELDS = [
    ("/api/battle", "seed", {"scenario": DUEL}),
    ("/api/apply", "index", {}),
    ("/api/apply", "version", {"index": 1}),
    ("/api/undo", "version", {}),
    ("/api/edit", "version", {"command": "set brann pv 3"}),
    ("/api/suggest", "budget_ms", {}),
    ("/api/suggest", "iterations", {}),
    ("/api/suggest", "max_ms", {}),
    ("/api/playtest", "n", {}),
    ("/api/playtest", "seed", {"n": 10}),
    ("/api/autopilot", "budget_ms", {"enabled": True}),
    ("/api/autopilot", "iterations", {"enabled": True}),
    ("/api/autopilot", "version", {"enabled": True}),
]


@pytest.mark.parametrize(("path", "field", "body"), NUMBER_FIELDS)
def test_a_lone_surrogate_in_a_number_field_is_refused_by_name(
    path: str, field: str, body: dict[str, Any]
) -> None:
    """JSON's ``"\\ud800"`` (valid JSON, half of a UTF-16 pair) where a number goes: a
    422 naming the field, quoting the value escaped; it was a 500, the message quoting a
    character UTF-8 cannot encode. The session goes on."""
    c = started()
    text = json.dumps({**body, field: "\ud800"})  # ensure_ascii: the escape as sent
    r = c.post(path, content=text, headers={"content-type": "application/json"})
    assert (r.status_code, r.json()["detail"]) == (
        422,
        f'{field}: expected a number, not "\\ud800"',
    )
    assert c.get("/api/battle").status_code == 200


def test_serve_speaks_the_current_language_from_start_to_hard_stop(
    marked: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``serve``'s warning about a non-loopback host, its start line and the message of
    its hard stop are the catalog's, the hard stop's worded in the language of the
    signal's thread (its timer's thread starts in the default language)."""
    import signal
    import threading

    import escaramuza.web as web
    from escaramuza.cli import main

    returning_server(monkeypatch, started=True)
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123"]) == 0
    out, err = capsys.readouterr()
    assert out == "«escaramuza GM page: http://0.0.0.0:8123/  (API: /docs; Ctrl-C stops)»\n"
    assert err == (
        "«warning: listening on 0.0.0.0: anyone who can reach this address can use the "
        "page (there is no login)»\n"
    )

    # The hard stop's timer, run at once in a thread of its own (as threading.Timer
    # does), exits with 128 + the signal.
    timers: list[Any] = []

    class Timer:
        def __init__(self, seconds: float, function: Any) -> None:
            timers.append(function)

        def start(self) -> None:
            pass

    exits: list[int] = []
    monkeypatch.setattr(web.threading, "Timer", Timer)
    monkeypatch.setattr(web.os, "_exit", exits.append)
    web._hard_stop(8.0, signal.SIGTERM)
    stop = threading.Thread(target=timers[0])
    stop.start()
    stop.join()
    assert exits == [128 + signal.SIGTERM]
    assert capsys.readouterr().err == (
        "«escaramuza serve: not stopped 8 s after the stop signal (a request still running "
        "in a worker thread?); exiting without waiting any longer»\n"
    )


def test_request_validation_errors_are_worded_in_the_current_language(marked: None) -> None:
    """A request the models refuse gets the loader's reasons (the catalog's, without
    pydantic's English), on the API and on the page; an unknown language's refusal is
    the catalog's too."""
    c = started()
    rows = [
        ({"seed": 3}, "scenario: «required field is missing»"),
        (
            {"scenario": DUEL, "seed": -1},
            "seed: «Input should be greater than or equal to 0, not -1»",
        ),
        ({"scenario": 5}, "scenario: «Input should be a valid string, not 5»"),
        ([1, 2], "«request»: «Input should be a mapping (key: value), not [1, 2]»"),
    ]
    for body, detail in rows:
        r = c.post("/api/battle", json=body)
        assert (r.status_code, r.json()["detail"]) == (422, detail)
    r = c.post("/api/battle", content=b"{bad", headers={"content-type": "application/json"})
    assert (r.status_code, r.json()["detail"]) == (
        422,
        "«request»: «not valid JSON: «Expecting property name enclosed in double quotes»»",
    )
    r = c.post("/api/suggest", json={"budget_ms": 1e9})
    assert r.json()["detail"] == (
        "budget_ms: «Input should be less than or equal to 5000.0, not 1000000000.0»"
    )
    page = c.post("/ui/new", data={"scenario": DUEL, "seed": "x"})
    assert page.status_code == 422
    assert "seed: «Input should be a valid integer, not &#39;x&#39;»" in page.text
    page = c.post("/ui/lang", data={"lang": "fr"})
    assert page.status_code == 400
    assert "«lang: &#39;fr&#39; is not a language escaramuza speaks (en or es)»" in page.text
